/*
 * thermal_zone.c -- a thermal zone's governor, trip points and power
 * allocator constants, and cooling devices' states, set for a series and
 * given back (see thermal_zone.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "thermal_zone.h"

static const char *const allocator_keys[] = {
    "sustainable_power", "k_po", "k_pu", "k_i", "k_d", "integral_cutoff", NULL,
};

/* The trip number of "trip_point_K_temp" or "_hyst", or -1. */
static int trip_key(const char *name)
{
    int k, used = 0;
    if (sscanf(name, "trip_point_%d_temp%n", &k, &used) == 1 && used && !name[used] && k >= 0)
        return k;
    used = 0;
    if (sscanf(name, "trip_point_%d_hyst%n", &k, &used) == 1 && used && !name[used] && k >= 0)
        return k;
    return -1;
}

/* The device number of "cooling_deviceN_state", or -1. */
static int cdev_key(const char *name)
{
    int n, used = 0;
    if (sscanf(name, "cooling_device%d_state%n", &n, &used) == 1 && used && !name[used] && n >= 0)
        return n;
    return -1;
}

int tz_is_key(const char *name)
{
    if (!strcmp(name, "policy") || trip_key(name) >= 0 || cdev_key(name) >= 0)
        return 1;
    for (size_t k = 0; allocator_keys[k]; k++)
        if (!strcmp(name, allocator_keys[k]))
            return 1;
    return 0;
}

/* PATH's first line, without its newline, into BUF; 0, or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* The zone directory ZONE names (a type, or thermal_zoneN) into DIR. */
static int find_zone(struct tz *z, const char *root, const char *zone, char *dir, size_t len,
                     char *err, size_t errlen)
{
    char base[4096], path[4500];
    if ((size_t)snprintf(base, sizeof base, "%s/class/thermal", root) >= sizeof base) {
        snprintf(err, errlen, "%s: too long a path", root);
        return -1;
    }
    DIR *d = opendir(base);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "thermal_zone", 12) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/type", base, e->d_name);
        char type[256] = "";
        read_line(path, type, sizeof type);
        if (!(zone ? !strcmp(zone, e->d_name) || !strcmp(zone, type)
                   : !strcmp(e->d_name, "thermal_zone0")))
            continue;
        /* two zones of one type (two acpitz): which one is the user's? */
        if (found++) {
            snprintf(err, errlen, "two thermal zones of type %s (%s and %s): give zone = "
                     "thermal_zoneN", zone, z->zone, e->d_name);
            closedir(d);
            return -1;
        }
        snprintf(z->zone, sizeof z->zone, "%s", e->d_name);
        snprintf(z->type, sizeof z->type, "%s", type);
        snprintf(dir, len, "%s/%s", base, e->d_name);
    }
    if (d)
        closedir(d);
    if (!found)
        snprintf(err, errlen, "no thermal zone %s under %s", zone ? zone : "thermal_zone0", base);
    return found ? 0 : -1;
}

/* Setting KEY of the zone in DIR: its file, kind and bounds. */
static int add_setting(struct tz *z, const char *root, const char *dir, const char *key,
                       char *err, size_t errlen)
{
    struct tz_setting *s = &z->set[z->n];
    struct stat st;
    int cdev = cdev_key(key);
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "%s", key);
    s->kind = !strcmp(key, "policy") ? TZ_POLICY : trip_key(key) >= 0 ? TZ_TEMP
              : cdev >= 0 ? TZ_STATE : TZ_INTEGER;
    if (cdev >= 0) {
        char max[64];
        snprintf(s->path, sizeof s->path, "%s/class/thermal/cooling_device%d/max_state", root, cdev);
        if (read_line(s->path, max, sizeof max) < 0 || !isdigit((unsigned char)max[0])) {
            snprintf(err, errlen, "%s: %s: no cooling device's max_state", key, s->path);
            return -1;
        }
        s->hi = strtoll(max, NULL, 10);
        snprintf(s->path, sizeof s->path, "%s/class/thermal/cooling_device%d/cur_state", root, cdev);
    } else {
        snprintf(s->path, sizeof s->path, "%s/%s", dir, key);
    }
    if (stat(s->path, &st) < 0 || read_line(s->path, s->saved, sizeof s->saved) < 0) {
        snprintf(err, errlen, "%s: %s: %s (the zone %s has no such setting)", key, s->path,
                 strerror(errno), z->type[0] ? z->type : z->zone);
        return -1;
    }
    /* a trip the firmware fixed reads, and is not written: its mode says */
    if (!(st.st_mode & 0222) || access(s->path, W_OK) != 0) {
        snprintf(err, errlen, "%s: %s is not writable (a trip point the device tree fixed, a "
                 "kernel without CONFIG_THERMAL_WRITABLE_TRIPS, or not root)", key, s->path);
        return -1;
    }
    z->n++;
    return 0;
}

int tz_open(struct tz *z, const char *sysfs_root, const char *zone, const char *const *keys,
            size_t nkeys, char *err, size_t errlen)
{
    const char *root = sysfs_root ? sysfs_root : "/sys";
    char dir[4500], path[4600];
    memset(z, 0, sizeof *z);
    if (nkeys > TZ_MAX_SETTINGS) {
        snprintf(err, errlen, "at most %d thermal settings", TZ_MAX_SETTINGS);
        return -1;
    }
    if (find_zone(z, root, zone, dir, sizeof dir, err, errlen) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/available_policies", dir);
    read_line(path, z->policies, sizeof z->policies);
    for (size_t k = 0; k < nkeys; k++)
        if (add_setting(z, root, dir, keys[k], err, errlen) < 0)
            return -1;
    return 0;
}

static struct tz_setting *setting(struct tz *z, const char *key)
{
    for (size_t i = 0; i < z->n; i++)
        if (!strcmp(z->set[i].key, key))
            return &z->set[i];
    return NULL;
}

/* Whether WORD is one of the space-separated words of LIST. */
static int among(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
            return 1;
    return 0;
}

int tz_value(const struct tz *z, const char *key, const char *value, char *out, size_t len,
             char *err, size_t errlen)
{
    const struct tz_setting *s = setting((struct tz *)z, key);
    char *end;
    if (!s) {
        snprintf(err, errlen, "%s: not a setting of this series", key);
        return -1;
    }
    if (s->kind == TZ_POLICY) {
        if (!*value || strchr(value, ' ') || (z->policies[0] && !among(z->policies, value))) {
            snprintf(err, errlen, "the zone %s offers no policy '%s' (it offers: %s)", z->type,
                     value, z->policies[0] ? z->policies : "none listed");
            return -1;
        }
        snprintf(out, len, "%s", value);
        return 0;
    }
    errno = 0;
    double x = strtod(value, &end);
    if (s->kind == TZ_TEMP && end != value && (!strcmp(end, "C") || !strcmp(end, "°C"))) {
        x *= 1000;   /* °C to the m°C the kernel writes */
        end += strlen(end);
    }
    /* the kernel keeps the allocator's constants in 32 bits */
    long long hi = s->kind == TZ_STATE ? s->hi : s->kind == TZ_TEMP ? 1000000 : 2147483647LL;
    long long lo = s->kind == TZ_TEMP ? -273150 : 0;
    if (end == value || *end || errno || !(x >= (double)lo && x <= (double)hi) ||
        x != floor(x)) {
        snprintf(err, errlen, "%s: '%s' is not %s", key, value,
                 s->kind == TZ_STATE ? "a state from 0 to the device's max_state"
                 : s->kind == TZ_TEMP ? "a temperature (85C, or m°C as the kernel writes it)"
                                      : "a whole number from 0 to 2147483647");
        if (s->kind == TZ_STATE)
            snprintf(err + strlen(err), errlen - strlen(err), " (%lld)", s->hi);
        return -1;
    }
    snprintf(out, len, "%lld", (long long)x);
    return 0;
}

/* Write TEXT into PATH (a sysfs store takes it whole; O_TRUNC for a
 * plain file, as a fake tree's); 0, or -1 with errno. */
static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return n == (ssize_t)len ? 0 : -1;
}

int tz_set(struct tz *z, const char *key, const char *value, char *err, size_t errlen)
{
    char text[128];
    struct tz_setting *s = setting(z, key);
    if (tz_value(z, key, value, text, sizeof text, err, errlen) < 0)
        return -1;
    if (write_text(s->path, text) < 0) {
        snprintf(err, errlen, "%s: cannot write '%s': %s", s->path, text, strerror(errno));
        return -1;
    }
    s->changed = 1;
    return 0;
}

int tz_restore(struct tz *z, char *err, size_t errlen)
{
    int rc = 0;
    /* the policy last: a cooling state given back under user_space stays
     * as the governor found it */
    for (int policy = 0; policy < 2; policy++)
        for (size_t i = 0; i < z->n; i++) {
            struct tz_setting *s = &z->set[i];
            if ((s->kind == TZ_POLICY) != policy || !s->changed)
                continue;
            if (write_text(s->path, s->saved) < 0) {
                snprintf(err, errlen, "%s: cannot write '%s' back: %s", s->path, s->saved,
                         strerror(errno));
                rc = -1;
                continue;
            }
            s->changed = 0;
        }
    return rc;
}

void tz_saved_text(const struct tz *z, size_t i, char *buf, size_t len)
{
    snprintf(buf, len, "zone %s %s %s", z->zone, z->set[i].key, z->set[i].saved);
}

int tz_saved_is(const struct tz *z, const char *text)
{
    char zone[256], key[48];
    if (sscanf(text, "zone %255s %47s", zone, key) != 2 || strcmp(zone, z->zone) != 0)
        return 0;
    return setting((struct tz *)z, key) != NULL;
}

int tz_saved_parse(struct tz *z, const char *text, char *err, size_t errlen)
{
    char zone[256], key[48], value[128], checked[128];
    int used = 0;
    if (strncmp(text, "zone ", 5) != 0)
        return 0;
    if (sscanf(text, "zone %255s %47s %127s%n", zone, key, value, &used) != 3 || text[used]) {
        snprintf(err, errlen, "not a setting as tb-series writes it ('zone ZONE KEY VALUE')");
        return -1;
    }
    struct tz_setting *s = setting(z, key);
    if (strcmp(zone, z->zone) != 0 || !s)
        return 0;   /* another zone's, or a setting this plan does not set: kept, not taken */
    if (tz_value(z, key, value, checked, sizeof checked, err, errlen) < 0)
        return -1;
    snprintf(s->saved, sizeof s->saved, "%s", checked);
    s->changed = 1;   /* the series that saved it may have changed it */
    return 1;
}
