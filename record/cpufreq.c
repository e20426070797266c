/*
 * cpufreq.c -- hold CPUs at a frequency through cpufreq, and give them
 * back.  The files are those of Documentation/admin-guide/pm/cpufreq.rst:
 * scaling_governor, scaling_setspeed (the userspace governor's),
 * scaling_min_freq, scaling_max_freq, scaling_available_frequencies,
 * cpuinfo_min_freq and cpuinfo_max_freq, all in kHz.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include "cpufreq.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_text(const char *dir, const char *file, char *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return 0;
}

static int read_khz(const char *dir, const char *file, uint64_t *khz)
{
    char buf[64], *end;
    if (read_text(dir, file, buf, sizeof buf) < 0)
        return -1;
    *khz = strtoull(buf, &end, 10);
    return end == buf || *end ? -1 : 0;
}

static int write_text(const char *dir, const char *file, const char *text,
                      char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    /* "w" truncates and rewrites, as sysfs wants: one write of the value */
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write %s: %s", path, text, strerror(errno));
        return -1;
    }
    return 0;
}

static int write_khz(const char *dir, const char *file, uint64_t khz, char *err, size_t errlen)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)khz);
    return write_text(dir, file, buf, err, errlen);
}

static int add_cpu(struct cpufreq *c, const char *root, int cpu, int listed,
                   char *err, size_t errlen)
{
    char dir[3000], buf[4096];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpu%d/cpufreq", root, cpu);
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        if (!listed)
            return 0;
        snprintf(err, errlen, "%s: no cpufreq for CPU %d", dir, cpu);
        return -1;
    }
    struct cpufreq_cpu *more = realloc(c->cpus, (c->n + 1) * sizeof *more);
    if (!more)
        goto nomem;
    c->cpus = more;
    struct cpufreq_cpu *u = &c->cpus[c->n];
    *u = (struct cpufreq_cpu){.cpu = cpu, .dir = strdup(dir)};
    if (!u->dir)
        goto nomem;
    c->n++;
    if (read_text(dir, "scaling_governor", u->governor, sizeof u->governor) < 0 ||
        read_khz(dir, "scaling_min_freq", &u->min) < 0 ||
        read_khz(dir, "scaling_max_freq", &u->max) < 0) {
        snprintf(err, errlen, "%s: cannot read its governor and limits "
                 "(scaling_governor, scaling_min_freq, scaling_max_freq)", dir);
        return -1;
    }
    if (read_khz(dir, "cpuinfo_min_freq", &u->lowest) < 0)
        u->lowest = u->min;
    if (read_khz(dir, "cpuinfo_max_freq", &u->highest) < 0)
        u->highest = u->max;
    if (read_text(dir, "scaling_available_governors", buf, sizeof buf) == 0) {
        snprintf(u->governors, sizeof u->governors, "%.511s", buf);
        for (char *w = strtok(buf, " \t"); w; w = strtok(NULL, " \t"))
            if (!strcmp(w, "userspace"))
                u->userspace = 1;
        snprintf(buf, sizeof buf, "%s/scaling_setspeed", dir);
        u->userspace = u->userspace && access(buf, W_OK) == 0;
    }
    if (read_text(dir, "scaling_available_frequencies", buf, sizeof buf) == 0) {
        for (char *w = strtok(buf, " \t\n"); w; w = strtok(NULL, " \t\n")) {
            uint64_t *o = realloc(u->offered, (u->noffered + 1) * sizeof *o);
            if (!o)
                goto nomem;
            u->offered = o;
            u->offered[u->noffered++] = strtoull(w, NULL, 10);
        }
    }
    return 0;
nomem:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int cpufreq_open(struct cpufreq *c, const char *root, const char *list, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!root)
        root = "/sys";
    if (list) {
        const char *p = list;
        while (*p) {
            char *end;
            long a = strtol(p, &end, 10), b = a;
            if (end == p || a < 0 || a > 65535)
                goto bad;
            p = end;
            if (*p == '-') {
                b = strtol(p + 1, &end, 10);
                if (end == p + 1 || b < a || b > 65535)
                    goto bad;
                p = end;
            }
            for (long cpu = a; cpu <= b; cpu++)
                if (add_cpu(c, root, (int)cpu, 1, err, errlen) < 0)
                    return -1;
            if (*p == ',' || *p == ' ')
                p++;
            else if (*p)
                goto bad;
        }
    } else {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/devices/system/cpu", root);
        DIR *d = opendir(dir);
        int max = -1;
        for (struct dirent *e; d && (e = readdir(d)); ) {
            char *end;
            long cpu;
            if (!strncmp(e->d_name, "cpu", 3) && isdigit((unsigned char)e->d_name[3]) &&
                (cpu = strtol(e->d_name + 3, &end, 10)) >= 0 && !*end && cpu > max && cpu < 65536)
                max = (int)cpu;
        }
        if (d)
            closedir(d);
        for (int cpu = 0; cpu <= max; cpu++)
            if (add_cpu(c, root, cpu, 0, err, errlen) < 0)
                return -1;
    }
    if (c->n == 0) {
        snprintf(err, errlen, "%s/devices/system/cpu: no CPU with cpufreq", root);
        return -1;
    }
    return 0;
bad:
    snprintf(err, errlen, "cpus: '%s' is not a list of CPUs such as 0-3,6", list);
    return -1;
}

void cpufreq_close(struct cpufreq *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->cpus[i].dir);
        free(c->cpus[i].offered);
    }
    free(c->cpus);
    memset(c, 0, sizeof *c);
}

static int offers(const struct cpufreq_cpu *u, uint64_t khz)
{
    if (!u->offered)
        return khz >= u->lowest && khz <= u->highest;
    for (size_t i = 0; i < u->noffered; i++)
        if (u->offered[i] == khz)
            return 1;
    return 0;
}

int cpufreq_check(const struct cpufreq *c, uint64_t khz, char *err, size_t errlen)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct cpufreq_cpu *u = &c->cpus[i];
        if (offers(u, khz))
            continue;
        size_t len = (size_t)snprintf(err, errlen, "CPU %d does not offer %g MHz; it offers ",
                                      u->cpu, (double)khz / 1000);
        if (!u->offered)
            snprintf(err + len, errlen > len ? errlen - len : 0, "%g to %g MHz",
                     (double)u->lowest / 1000, (double)u->highest / 1000);
        for (size_t k = 0; k < u->noffered && len < errlen; k++)
            len += (size_t)snprintf(err + len, errlen - len, "%s%g", k ? ", " : "",
                                    (double)u->offered[k] / 1000);
        if (u->offered && len < errlen)
            snprintf(err + len, errlen - len, " MHz");
        return -1;
    }
    return 0;
}

/* Limits LO..HI, written in an order the kernel accepts from any
 * present limits (it refuses a minimum above the maximum). */
static int set_limits(const struct cpufreq_cpu *u, uint64_t lo, uint64_t hi, char *err, size_t errlen)
{
    return write_khz(u->dir, "scaling_min_freq", u->lowest, err, errlen) < 0 ||
           write_khz(u->dir, "scaling_max_freq", hi, err, errlen) < 0 ||
           write_khz(u->dir, "scaling_min_freq", lo, err, errlen) < 0 ? -1 : 0;
}

int cpufreq_set(struct cpufreq *c, uint64_t khz, char *err, size_t errlen)
{
    c->changed = 1;
    for (size_t i = 0; i < c->n; i++) {
        const struct cpufreq_cpu *u = &c->cpus[i];
        if (u->userspace) {
            /* the limits opened wide, so that the governor's speed is not clamped */
            if (write_text(u->dir, "scaling_governor", "userspace", err, errlen) < 0 ||
                set_limits(u, u->lowest, u->highest, err, errlen) < 0 ||
                write_khz(u->dir, "scaling_setspeed", khz, err, errlen) < 0)
                return -1;
        } else if (set_limits(u, khz, khz, err, errlen) < 0) {
            return -1;
        }
    }
    return 0;
}

int cpufreq_restore(struct cpufreq *c, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct cpufreq_cpu *u = &c->cpus[i];
        char why[1024];
        /* every CPU tried, whatever one of them refuses */
        if (write_text(u->dir, "scaling_governor", u->governor, why, sizeof why) < 0 ||
            set_limits(u, u->min, u->max, why, sizeof why) < 0) {
            if (rc == 0)
                snprintf(err, errlen, "%s", why);
            rc = -1;
        }
    }
    if (rc == 0)
        c->changed = 0;
    return rc;
}

void cpufreq_saved_text(const struct cpufreq *c, size_t i, char *buf, size_t len)
{
    const struct cpufreq_cpu *u = &c->cpus[i];
    snprintf(buf, len, "cpu%d %s %llu %llu", u->cpu, u->governor,
             (unsigned long long)u->min, (unsigned long long)u->max);
}

/* Whether CPU U offers GOVERNOR: among its available governors, or, when
 * it does not list them, the one it has now. */
static int offers_governor(const struct cpufreq_cpu *u, const char *governor)
{
    if (!u->governors[0])
        return strcmp(governor, u->governor) == 0;
    size_t len = strlen(governor);
    for (const char *w = u->governors; (w = strstr(w, governor)); w += len)
        if ((w == u->governors || w[-1] == ' ' || w[-1] == '\t') &&
            (w[len] == '\0' || w[len] == ' ' || w[len] == '\t' || w[len] == '\n'))
            return 1;
    return 0;
}

int cpufreq_saved_parse(struct cpufreq *c, const char *text, char *err, size_t errlen)
{
    int cpu, used = 0;
    char governor[64];
    unsigned long long min, max;
    if (sscanf(text, "cpu%d %63s %llu %llu%n", &cpu, governor, &min, &max, &used) != 4 ||
        text[used] != '\0') {
        snprintf(err, errlen, "not \"cpuN GOVERNOR MIN MAX\"");
        return -1;
    }
    for (size_t i = 0; i < c->n; i++) {
        struct cpufreq_cpu *u = &c->cpus[i];
        if (u->cpu != cpu)
            continue;
        if (!offers_governor(u, governor)) {
            snprintf(err, errlen, "CPU %d offers no governor '%s' (%s)", cpu, governor,
                     u->governors[0] ? u->governors : u->governor);
            return -1;
        }
        if (min > max || min < u->lowest || max > u->highest) {
            snprintf(err, errlen, "CPU %d's limits %llu to %llu kHz are not within its %llu to "
                     "%llu kHz", cpu, min, max, (unsigned long long)u->lowest,
                     (unsigned long long)u->highest);
            return -1;
        }
        snprintf(u->governor, sizeof u->governor, "%s", governor);
        u->min = min;
        u->max = max;
        return 1;
    }
    return 0;
}
