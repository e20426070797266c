/*
 * thermal_zone.h -- set a thermal zone's governor, trip points and power
 * allocator constants, and cooling devices' states, through the kernel's
 * thermal sysfs files, and give them back as they were: the strategies a
 * series compares.
 *
 * The settings are plan variables named for the files they write:
 *   policy                    the zone's governor (among available_policies)
 *   trip_point_K_temp         a writable trip's temperature ("85C", or m°C)
 *   trip_point_K_hyst         its hysteresis (likewise)
 *   sustainable_power, k_po, k_pu, k_i, k_d, integral_cutoff
 *                             the power allocator's constants (integers)
 *   cooling_deviceN_state     a cooling device's cur_state (0..max_state),
 *                             for the user_space governor
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_THERMAL_ZONE_H
#define TB_RECORD_THERMAL_ZONE_H

#include <stddef.h>

#define TZ_MAX_SETTINGS 16

enum tz_kind { TZ_POLICY, TZ_INTEGER, TZ_TEMP, TZ_STATE };

struct tz_setting {
    char key[48];          /* the plan variable */
    char path[4600];       /* the file it writes */
    enum tz_kind kind;
    long long hi;          /* TZ_STATE: max_state */
    char saved[128];       /* as found, to be given back */
    int changed;           /* written since it was saved */
};

struct tz {
    char zone[256];        /* thermal_zoneN */
    char type[256];
    char policies[512];    /* available_policies; "" unknown */
    struct tz_setting set[TZ_MAX_SETTINGS];
    size_t n;
};

/* Whether NAME is a plan variable set through thermal sysfs. */
int tz_is_key(const char *name);

/* The zone ZONE names (its type or thermal_zoneN; NULL: thermal_zone0)
 * under SYSFS_ROOT (NULL: /sys), with each of the NKEYS settings KEYS:
 * its file there and writable (a trip the firmware fixed is not), its
 * value as found.  0, or -1 with the reason in ERR. */
int tz_open(struct tz *z, const char *sysfs_root, const char *zone, const char *const *keys,
            size_t nkeys, char *err, size_t errlen);

/* VALUE of KEY as its file takes it into OUT ("85C" -> "85000"): 0, or
 * -1 when it is not one the zone can be given (a policy it does not
 * offer, a state beyond max_state, not a number), with why in ERR. */
int tz_value(const struct tz *z, const char *key, const char *value, char *out, size_t len,
             char *err, size_t errlen);

/* Write KEY = VALUE (checked by tz_value()).  0, or -1 with ERR. */
int tz_set(struct tz *z, const char *key, const char *value, char *err, size_t errlen);

/* Give every setting back its value as found (policy last).  0, or -1. */
int tz_restore(struct tz *z, char *err, size_t errlen);

/* Setting I as found, as a journal's words ("zone thermal_zone0 policy
 * step_wise"); and back from such words: 1 when it names one of Z's
 * settings and was taken, 0 when it is no "zone" line or another zone's
 * or setting's (not Z's to give back), -1 when its value is not one the
 * zone can be given (nothing taken then), with why in ERR.
 * tz_saved_is(): whether TEXT is the saved line of one of Z's settings. */
void tz_saved_text(const struct tz *z, size_t i, char *buf, size_t len);
int tz_saved_parse(struct tz *z, const char *text, char *err, size_t errlen);
int tz_saved_is(const struct tz *z, const char *text);

#endif
