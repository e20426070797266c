/*
 * schedule.c -- the load level over time and its duty cycles.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

/* Bit K of the sequence of SEED: a hash of both (splitmix64), so any bit
 * is had at once, the same for the same seed on every board. */
static int prbs_bit(uint64_t seed, uint64_t k)
{
    uint64_t z = seed + (k + 1) * 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (int)(z >> 63);
}

double schedule_level(const struct schedule *s, size_t cpu, double t, double *next)
{
    if (s->nsteps > 0) {
        size_t lo = 0, hi = s->nsteps;   /* the last step at or before t */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->time[mid] <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        *next = lo < s->nsteps ? s->time[lo] : INFINITY;
        if (lo == 0)
            return 0;   /* before the profile's first line: idle */
        return s->level[(lo - 1) * s->per_step + (s->per_step > 1 ? cpu : 0)];
    }
    if (s->bit > 0) {
        uint64_t k = (uint64_t)floor(t / s->bit), j = k + 1;
        int b = prbs_bit(s->seed, k);
        while (j < k + 4096 && prbs_bit(s->seed, j) == b)
            j++;
        *next = (double)j * s->bit;
        return b ? s->util : 0;
    }
    *next = INFINITY;
    return s->util;
}

int schedule_on(const struct schedule *s, size_t cpu, double t, double *until)
{
    double next, level = schedule_level(s, cpu, t, &next);
    if (level >= 100 || level <= 0 || !(s->period > 0)) {
        *until = next;
        return level > 0;
    }
    double P = s->period, k = floor(t / P);
    if ((k + 1) * P <= t)   /* t / P rounded down a period too few */
        k += 1;
    double edge = k * P + level / 100 * P;
    int on = t < edge;
    double change = on ? edge : (k + 1) * P;
    *until = change < next ? change : next;
    return on;
}

/* The fields of LINE, split at commas, as numbers into V (the first MAX
 * of them); their number, or -1 when one is not a number. */
static int parse_fields(char *line, double *v, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *f = strtok_r(line, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        double x = strtod(f, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == f || *end || errno || !isfinite(x))
            return -1;
        if (n < max)
            v[n] = x;
        n++;
    }
    return n;
}

int schedule_read_profile(struct schedule *s, const char *path, size_t ncpus, char *err,
                          size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lineno = 0, alloc = 0;
    double *v = malloc((ncpus + 2) * sizeof *v);
    int rc = -1, seen_data = 0;

    if (!f || !v) {
        snprintf(err, errlen, "%s: %s", path, f ? "out of memory" : strerror(errno));
        goto out;
    }
    s->nsteps = 0;
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        char copy[64];
        snprintf(copy, sizeof copy, "%s", p);
        int n = parse_fields(p, v, (int)ncpus + 1);
        if (n < 0 && !seen_data && s->nsteps == 0) {
            seen_data = 1;   /* a header line: names, not numbers */
            continue;
        }
        seen_data = 1;
        if (n < 0) {
            snprintf(err, errlen, "%s:%zu: '%s' is not time_s,util numbers", path, lineno, copy);
            goto out;
        }
        size_t utils = (size_t)(n - 1);
        if (n < 2 || (utils != 1 && utils != ncpus)) {
            snprintf(err, errlen, "%s:%zu: %d fields, but a line is time_s and one util, or a util "
                     "for each of the %zu CPUs", path, lineno, n, ncpus);
            goto out;
        }
        if (s->nsteps > 0 && utils != s->per_step) {
            snprintf(err, errlen, "%s:%zu: %zu utils, where the lines before have %zu", path,
                     lineno, utils, s->per_step);
            goto out;
        }
        if (v[0] < 0 || (s->nsteps > 0 && !(v[0] > s->time[s->nsteps - 1]))) {
            snprintf(err, errlen, "%s:%zu: time %g s: times start at 0 or later and increase",
                     path, lineno, v[0]);
            goto out;
        }
        for (size_t u = 1; u <= utils; u++)
            if (v[u] < 0 || v[u] > 100) {
                snprintf(err, errlen, "%s:%zu: util %g is not a percentage from 0 to 100", path,
                         lineno, v[u]);
                goto out;
            }
        if (s->nsteps == alloc) {
            alloc = alloc ? 2 * alloc : 64;
            double *t = realloc(s->time, alloc * sizeof *t);
            if (t)
                s->time = t;
            double *l = t ? realloc(s->level, alloc * utils * sizeof *l) : NULL;
            if (!l) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto out;
            }
            s->level = l;
        }
        s->per_step = utils;
        s->time[s->nsteps] = v[0];
        memcpy(s->level + s->nsteps * utils, v + 1, utils * sizeof *v);
        s->nsteps++;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (s->nsteps == 0) {
        snprintf(err, errlen, "%s: no time_s,util line", path);
        goto out;
    }
    rc = 0;
out:
    if (f)
        fclose(f);
    free(line);
    free(v);
    return rc;
}

void schedule_free(struct schedule *s)
{
    free(s->time);
    free(s->level);
    s->time = s->level = NULL;
    s->nsteps = 0;
}
