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
    char err[TB_ERRMAX];
    memset(lg, 0, sizeof *lg);
    if (tb_opp_table_read(g->opp, NULL, &lg->table, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: --opp: %s\n", err);
        return TB_EXIT_INPUT;
    }
    tb_cooling_device dev = {lg->table.opp, lg->table.n, lg->table.cpus, 0};
    if (tb_zone_policy_parse(g->policy[0], &lg->policy, lg->name, sizeof lg->name, err, sizeof err) < 0 ||
        tb_governor_init(&lg->gov, &lg->policy, &dev, 1, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: --policy %s\n", err);
        live_governor_clear(lg);
        return TB_EXIT_INPUT;
    }
    /* (the governor keeps a pointer to the table's points: it stays put here) */
    lg->idle_w = g->idle_w;
    lg->load = g->load;
    return 0;
}

void live_governor_clear(struct live_governor *lg)
{
    tb_opp_table_clear(&lg->table);
}

double live_governor_power(const struct live_governor *lg, double *ops)
{
    return lg->idle_w + tb_cooling_power(&lg->gov.dev[0], lg->gov.state[0], lg->load, ops);
}

void live_governor_poll(struct live_governor *lg, double t, double temp_c)
{
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
    const tb_opp_table *t = &lg->table;
    const char *gov = p->governor == TB_GOV_STEP_WISE ? "step_wise" : "power_allocator";
    /* the allocator's constants as the kernel shows them: from the
     * sustainable power given, or its estimate (the CPUs at their slowest) */
    tb_ipa_constants k;
    double sp = p->sustainable_w > 0 ? p->sustainable_w
                                     : floor(t->opp[0].power_w * 1000) * t->cpus / 1000;
    if (tb_ipa_constants_compute(sp, p->trip_c[p->ntrips - 1], p->ntrips > 1 ? p->trip_c[0] : NAN, &k) < 0)
        memset(&k, 0, sizeof k);
    for (int j = 0; j < nzones; j++) {
        snprintf(dir, size, "%s/class/thermal/thermal_zone%d", sysfs, j);
        if (sysfs_put_name(dir, "policy", gov) < 0 || put_const(dir, "sustainable_power", (long)k.sustainable_mw) < 0 ||
            put_const(dir, "k_po", p->k_po >= 0 ? p->k_po : (long)k.k_po) < 0 ||
            put_const(dir, "k_pu", p->k_pu >= 0 ? p->k_pu : (long)k.k_pu) < 0 ||
            put_const(dir, "k_i", p->k_i >= 0 ? p->k_i : (long)k.k_i) < 0 ||
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
    if (sysfs_mkdirs(dir) < 0)
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
    if (put_long(dir, "cur_state", state) < 0)
        return -1;
    long khz = lround(lg->table.opp[lg->table.n - 1 - (size_t)state].khz);
    for (int cpu = 0; cpu < 2; cpu++) {
        snprintf(dir, size, "%s/devices/system/cpu/cpu%d/cpufreq", sysfs, cpu);
        if (put_long(dir, "scaling_cur_freq", khz) < 0)
            return -1;
    }
    snprintf(dir, size, "%s/tbsim", sysfs);
    return put_long(dir, "work_done", lround(floor(lg->work)));
}
