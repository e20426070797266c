/*
 * sim_sysfs.c -- the files of tb-sim's fake board, and the kernel's
 * governor run on it: each poll decides the cooling state from the zone's
 * temperature, the state sets the CPUs' frequency, power and work.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"
#include "sim_sysfs.h"

static int put_file(const char *dir, const char *name, const char *text, int padded)
{
    char path[4096], buf[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (padded ? 0 : O_TRUNC), 0644);
    if (fd < 0)
        return -1;
    int n = snprintf(buf, sizeof buf, padded ? "%-20s\n" : "%s\n", text);
    int rc = pwrite(fd, buf, (size_t)n, 0) == n ? 0 : -1;
    close(fd);
    return rc;
}

int sysfs_put(const char *dir, const char *name, const char *text)
{
    return put_file(dir, name, text, 1);
}

int sysfs_put_name(const char *dir, const char *name, const char *text)
{
    return put_file(dir, name, text, 0);
}

int sysfs_mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int live_governor_start(struct live_governor *lg, const struct governor_settings *g)
{
    memset(lg, 0, sizeof *lg);
    int status = governor_read_devices(g, &lg->devs);
    lg->table = &lg->devs.table[0];
    if (status == 0 && lg->devs.n != 1) {
        fprintf(stderr, "tb-sim: --opp %s: %zu devices; the fake board (--sysfs) has one cooling "
                "device\n", g->opp, lg->devs.n);
        status = TB_EXIT_INPUT;
    }
    if (status == 0)
        status = governor_parse_policy(g->policy[0], &lg->policy, lg->name, sizeof lg->name);
    if (status == 0)
        status = governor_start(&lg->policy, lg->name, &lg->devs, &lg->gov);
    if (status) {
        live_governor_clear(lg);
        return status;
    }
    /* (the governor keeps a pointer to the table's points: it stays put here) */
    lg->speed = 1;
    lg->idle_w = g->idle_w;
    lg->load = g->load;
    return 0;
}

void live_governor_clear(struct live_governor *lg)
{
    governor_devices_clear(&lg->devs);
}

double live_governor_power(const struct live_governor *lg, double *ops)
{
    return lg->idle_w + tb_cooling_power(&lg->gov.dev[0], lg->gov.state[0], lg->load, ops);
}

/* The zone files a poll follows: the first seven, then each passive trip. */
static const char *const zone_file[] = {"policy", "sustainable_power", "k_po", "k_pu", "k_i", "k_d",
                                        "integral_cutoff"};
enum { F_POLICY, F_SP, F_KPO, F_KPU, F_KI, F_KD, F_CUTOFF, F_TRIP,
       F_HYST = F_TRIP + TB_GOV_MAX_TRIPS };

/* DIR/NAME's first word into BUF (SIZE bytes); 0, or -1 if it is empty
 * or cannot be read (being rewritten, say). */
static int read_word(const char *dir, const char *name, char *buf, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    buf[strcspn(buf, " \t\n")] = '\0';
    return buf[0] ? 0 : -1;
}

/* File F's new TEXT into policy P (or LG's modes).  0, or -1 if it is
 * not a value of that file. */
static int take_up(struct live_governor *lg, tb_zone_policy *p, size_t f, const char *text)
{
    if (f == F_POLICY) {
        lg->user_space = strcmp(text, "user_space") == 0;
        lg->held = 0;
        if (strcmp(text, "step_wise") == 0)
            p->governor = TB_GOV_STEP_WISE;
        else if (strcmp(text, "power_allocator") == 0)
            p->governor = TB_GOV_POWER_ALLOCATOR;
        else if (!lg->user_space) {
            lg->held = 1;
            fprintf(stderr, "tb-sim: zone 0's policy %s: the fake board runs step_wise, power_allocator "
                    "and user_space; it holds the cooling state under %s\n", text, text);
        }
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end || errno || v < 0)
        return -1;
    switch (f) {
    case F_SP: p->sustainable_w = v / 1000.0; break;
    case F_KPO: p->k_po = v; break;
    case F_KPU: p->k_pu = v; break;
    case F_KI: p->k_i = v; break;
    case F_KD: p->k_d = v; break;
    case F_CUTOFF: p->integral_cutoff_c = v / 1000.0; break;
    default:
        if (f >= F_HYST)
            p->hyst_c[f - F_HYST] = v / 1000.0;
        else
            p->trip_c[f - F_TRIP] = v / 1000.0;
        break;
    }
    return 0;
}

/* What was written to zone 0's files since the last look, into the
 * governor; the first look only notes them. */
static void follow_zone(struct live_governor *lg, const char *sysfs)
{
    char dir[4096], text[24], name[64];
    snprintf(dir, sizeof dir, "%s/class/thermal/thermal_zone0", sysfs);
    tb_zone_policy p = lg->gov.policy;
    int first = lg->seen[0][0] == '\0', changed = 0;
    for (size_t f = 0; f < F_HYST + lg->gov.policy.ntrips; f++) {
        if (f >= F_TRIP + lg->gov.policy.ntrips && f < F_HYST)
            continue;   /* (no such trip) */
        const char *file = f < F_TRIP ? zone_file[f] : name;
        if (f >= F_TRIP)
            snprintf(name, sizeof name, "trip_point_%zu_%s", f - (f >= F_HYST ? F_HYST : F_TRIP),
                     f >= F_HYST ? "hyst" : "temp");
        if (read_word(dir, file, text, sizeof text) < 0 || strcmp(text, lg->seen[f]) == 0)
            continue;
        if (first || take_up(lg, &p, f, text) == 0) {
            snprintf(lg->seen[f], sizeof lg->seen[f], "%s", text);
            changed = !first;
        }
    }
    char err[TB_ERRMAX];
    if (changed && tb_governor_update(&lg->gov, &p, err, sizeof err) < 0 && !lg->said++)
        fprintf(stderr, "tb-sim: zone 0: %s; the zone keeps its last settings\n", err);
}

/* The allocator's sustainable power and constants in use, where they
 * differ from the files: as the kernel shows what it estimated. */
static void show_constants(struct live_governor *lg, const char *sysfs)
{
    const tb_governor *g = &lg->gov;
    if (g->policy.governor != TB_GOV_POWER_ALLOCATOR || g->sustainable_mw == 0)
        return;
    const long in_use[] = {[F_SP] = (long)g->sustainable_mw, [F_KPO] = g->k_po, [F_KPU] = g->k_pu,
                           [F_KI] = g->k_i};
    char dir[4096], text[24];
    snprintf(dir, sizeof dir, "%s/class/thermal/thermal_zone0", sysfs);
    for (size_t f = F_SP; f <= F_KI; f++) {
        snprintf(text, sizeof text, "%ld", in_use[f]);
        if (strcmp(text, lg->seen[f]) != 0 && sysfs_put_name(dir, zone_file[f], text) == 0)
            snprintf(lg->seen[f], sizeof lg->seen[f], "%s", text);
    }
}

/* The CPUs' busy share a benchmark on the fake board wrote to tbsim/load
 * (0 to 1), if it reads as one. */
static void follow_load(struct live_governor *lg, const char *sysfs)
{
    char dir[4096], text[24], *end;
    snprintf(dir, sizeof dir, "%s/tbsim", sysfs);
    if (read_word(dir, "load", text, sizeof text) < 0)
        return;
    double v = strtod(text, &end);
    if (!*end && v >= 0 && v <= 1)
        lg->load = v;
}

void live_governor_follow(struct live_governor *lg, const char *sysfs)
{
    follow_zone(lg, sysfs);
    follow_load(lg, sysfs);
    show_constants(lg, sysfs);
    char dir[4096], text[24];
    long v;
    snprintf(dir, sizeof dir, "%s/class/thermal/cooling_device0", sysfs);
    if (lg->user_space && read_word(dir, "cur_state", text, sizeof text) == 0 &&
        sscanf(text, "%ld", &v) == 1 && v >= 0 && v < (long)lg->table->n)
        lg->gov.state[0] = (int)v;
}

void live_governor_poll(struct live_governor *lg, double t, double temp_c)
{
    if (lg->user_space || lg->held) {   /* (no governor of ours decides) */
        lg->next_poll = t + lg->gov.policy.poll_idle_s;
        return;
    }
    tb_governor_trace tr;
    tb_governor_poll(&lg->gov, temp_c, &lg->load, &tr);
    lg->next_poll = t + tr.next_poll_s;
}

/* A value that changes in the run (rewritten in place), or one that
 * does not (written whole, as tb-record copies it into the metadata). */
static int put_long(const char *dir, const char *name, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    return sysfs_put(dir, name, text);
}

static int put_const(const char *dir, const char *name, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    return sysfs_put_name(dir, name, text);
}

int live_governor_make_tree(const struct live_governor *lg, const char *sysfs, int nzones, char *dir,
                            size_t size)
{
    const tb_zone_policy *p = &lg->policy;
    const tb_opp_table *t = lg->table;
    const char *gov = p->governor == TB_GOV_STEP_WISE ? "step_wise" : "power_allocator";
    tb_ipa_constants k;
    if (tb_governor_constants(p, lg->gov.dev, lg->gov.ndev, &k) < 0)
        memset(&k, 0, sizeof k);
    for (int j = 0; j < nzones; j++) {
        snprintf(dir, size, "%s/class/thermal/thermal_zone%d", sysfs, j);
        if (sysfs_put_name(dir, "policy", gov) < 0 || put_const(dir, "sustainable_power", (long)k.sustainable_mw) < 0 ||
            put_const(dir, "k_po", (long)k.k_po) < 0 || put_const(dir, "k_pu", (long)k.k_pu) < 0 ||
            put_const(dir, "k_i", (long)k.k_i) < 0 ||
            put_const(dir, "k_d", p->k_d >= 0 ? p->k_d : 0) < 0)
            return -1;
        for (size_t k = 0; k <= p->ntrips; k++) {
            char name[64];
            int critical = k == p->ntrips;   /* one critical trip above the passive ones */
            snprintf(name, sizeof name, "trip_point_%zu_type", k);
            if (sysfs_put_name(dir, name, critical ? "critical" : "passive") < 0)
                return -1;
            snprintf(name, sizeof name, "trip_point_%zu_temp", k);
            if (put_const(dir, name, critical ? 100000 : lround(p->trip_c[k] * 1000)) < 0)
                return -1;
            snprintf(name, sizeof name, "trip_point_%zu_hyst", k);
            if (critical ? 0 : put_const(dir, name, lround(p->hyst_c[k] * 1000)) < 0)
                return -1;
        }
    }
    for (int j = 0; j < nzones; j++)   /* the plain board's trips past ours */
        for (size_t k = p->ntrips + 1; k < 3; k++) {
            static const char *const part[] = {"type", "temp", "hyst"};
            for (int i = 0; i < 3; i++) {
                char path[4200];
                snprintf(path, sizeof path, "%s/class/thermal/thermal_zone%d/trip_point_%zu_%s", sysfs, j,
                         k, part[i]);
                unlink(path);
            }
        }
    snprintf(dir, size, "%s/class/thermal/cooling_device0", sysfs);
    if (put_const(dir, "max_state", (long)t->n - 1) < 0)
        return -1;
    snprintf(dir, size, "%s/tbsim", sysfs);
    char load[32];
    snprintf(load, sizeof load, "%g", lg->load);
    if (sysfs_mkdirs(dir) < 0 || sysfs_put_name(dir, "load", load) < 0)
        return -1;
    char freqs[TB_OPP_MAX * 12] = "";
    for (size_t i = 0; i < t->n; i++)
        snprintf(freqs + strlen(freqs), sizeof freqs - strlen(freqs), "%s%.0f", i ? " " : "", t->opp[i].khz);
    for (int cpu = 0; cpu < 2; cpu++) {
        snprintf(dir, size, "%s/devices/system/cpu/cpu%d/cpufreq", sysfs, cpu);
        if (sysfs_put_name(dir, "scaling_available_frequencies", freqs) < 0)
            return -1;
    }
    return live_governor_write(lg, sysfs, dir, size);
}

int live_governor_write(const struct live_governor *lg, const char *sysfs, char *dir, size_t size)
{
    const tb_governor *g = &lg->gov;
    int state = g->state[0];
    snprintf(dir, size, "%s/class/thermal/cooling_device0", sysfs);
    if (!lg->user_space && put_long(dir, "cur_state", state) < 0)   /* (user_space: the user's) */
        return -1;
    long khz = lround(lg->table->opp[lg->table->n - 1 - (size_t)state].khz);
    for (int cpu = 0; cpu < 2; cpu++) {
        snprintf(dir, size, "%s/devices/system/cpu/cpu%d/cpufreq", sysfs, cpu);
        if (put_long(dir, "scaling_cur_freq", khz) < 0)
            return -1;
    }
    snprintf(dir, size, "%s/tbsim", sysfs);
    /* as the energy counter: a rate read from it in real seconds is the
     * model's at any --speed */
    return put_long(dir, "work_done", lround(floor(lg->work / lg->speed)));
}
