/*
 * run_metrics.c -- how a run did under its thermal limits: the peak and
 * mean temperature, the time above each trip point, how long and how hard
 * each cooling device throttled, the energy, and the work rate kept,
 * overall and once warm: what decides between two thermal-management
 * strategies.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

/* Time-weighted sums of column C within [FROM, TO], each sample held
 * until the next (the last one held for none): Σ v·dt into *VT, the time
 * into *T, the time with v > ABOVE into *T_ABOVE, the largest value into
 * *PEAK.  How many points lay in the window. */
static size_t held_sums(const tb_column *c, double from, double to, double above, double *vt,
                        double *t, double *t_above, double *peak)
{
    size_t n = 0;
    *vt = *t = *t_above = 0;
    *peak = -INFINITY;
    for (size_t i = 0; i < c->n; i++) {
        if (c->t[i] < from || c->t[i] > to || isnan(c->v[i]))
            continue;
        n++;
        *peak = fmax(*peak, c->v[i]);
        size_t j = i + 1;
        while (j < c->n && isnan(c->v[j]))
            j++;
        if (j >= c->n || c->t[j] > to)
            continue;
        double dt = c->t[j] - c->t[i];
        *vt += c->v[i] * dt;
        *t += dt;
        if (c->v[i] > above)
            *t_above += dt;
    }
    return n;
}

/* The trip points "# trip.NAME.K: TYPE m°C" of column NAME into S. */
static void sensor_trips(const tb_run *run, const char *name, tb_sensor_metrics *s)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < tb_run_nmeta(run) && s->ntrips < TB_METRICS_MAX_TRIPS; i++) {
        const char *key = tb_run_meta_key(run, i);
        char type[16];
        double mc;
        if (strncmp(key, "trip.", 5) != 0 || strncmp(key + 5, name, len) != 0 ||
            key[5 + len] != '.' ||
            sscanf(tb_run_meta_value(run, i), "%15s %lf", type, &mc) != 2 || !isfinite(mc))
            continue;
        s->trip[s->ntrips] = mc / 1000;
        memcpy(s->trip_type[s->ntrips], type, sizeof type);
        s->ntrips++;
    }
}

double tb_time_above(const tb_column *c, double from, double to, double level)
{
    double vt, t, above, peak;
    held_sums(c, from, to, level, &vt, &t, &above, &peak);
    return above;
}

double tb_sensor_metrics_limit(const tb_sensor_metrics *s)
{
    double passive = INFINITY, any = INFINITY;
    for (size_t j = 0; j < s->ntrips; j++) {
        any = fmin(any, s->trip[j]);
        if (strcmp(s->trip_type[j], "passive") == 0)
            passive = fmin(passive, s->trip[j]);
    }
    return isfinite(passive) ? passive : isfinite(any) ? any : NAN;
}

static void sensor_metrics(const tb_run *run, size_t k, double from, double to,
                           tb_sensor_metrics *s)
{
    const tb_column *c = tb_run_column(run, k);
    double vt, t, above;
    memset(s, 0, sizeof *s);
    s->column = k;
    held_sums(c, from, to, INFINITY, &vt, &t, &above, &s->peak);
    s->mean = t > 0 ? vt / t : NAN;
    sensor_trips(run, c->name, s);
    for (size_t j = 0; j < s->ntrips; j++)
        s->above_s[j] = tb_time_above(c, from, to, s->trip[j]);
}

static void cooling_metrics(const tb_run *run, size_t k, double from, double to,
                            tb_cooling_metrics *cm)
{
    const tb_column *c = tb_run_column(run, k);
    double vt, t, above, peak;
    char key[300];
    held_sums(c, from, to, 0, &vt, &t, &above, &peak);
    cm->column = k;
    cm->mean_state = t > 0 ? vt / t : NAN;
    cm->throttled_share = t > 0 ? above / t : NAN;
    snprintf(key, sizeof key, "max_state.%s", c->name);
    const char *max = tb_run_meta(run, key);
    cm->max_state = max ? strtod(max, NULL) : NAN;
}

static void power_metrics(const tb_run *run, size_t k, double from, double to,
                          tb_power_metrics *pm)
{
    double vt, t, above, peak;
    held_sums(tb_run_column(run, k), from, to, INFINITY, &vt, &t, &above, &peak);
    pm->column = k;
    pm->energy_j = vt;
    pm->mean_w = t > 0 ? vt / t : NAN;
}

/* The work rate of RUN's work counters (columns WORK[0..NWORK), or with
 * WORK NULL those named as work counters) within [FROM, TO] into *OPS and
 * over its last third into *SUSTAINED; a counter with no rate in the
 * window adds none. */
static int work_metrics(const tb_run *run, const size_t *work, size_t nwork, double from,
                        double to, double level, tb_estimate *ops, tb_estimate *sustained)
{
    size_t ncols = tb_run_ncolumns(run), n = 0;
    const tb_column **c = malloc(ncols * sizeof *c);
    *ops = *sustained = (tb_estimate){NAN, NAN, NAN};
    if (!c)
        return -1;
    for (size_t i = work ? 0 : 1; i < (work ? nwork : ncols); i++) {
        if (work && work[i] == 0)   /* (the time column) */
            continue;
        const tb_column *col = tb_run_column(run, work ? work[i] : i);
        if ((work || tb_is_work_counter(col->name)) && isfinite(tb_work_rate(col, from, to)))
            c[n++] = col;
    }
    if (n > 0 && tb_work_rate_estimate(c, n, from, to, level, ops) == 0)
        tb_work_rate_estimate(c, n, to - (to - from) / 3, to, level, sustained);
    free(c);
    return 0;
}

/* The window's ends as the points in it have them.  A column's times
 * ascend: its first and last point in the window are found by bisection,
 * not a pass (tb-fit --follow computes this at each update). */
static int window_of(const tb_run *run, double *from, double *to)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 1; i < tb_run_ncolumns(run) && !isnan(*from) && !isnan(*to); i++) {
        const tb_column *c = tb_run_column(run, i);
        size_t first = run_times_before(c->t, c->n, *from, 0);
        size_t end = run_times_before(c->t, c->n, *to, 1);
        if (first < end) {
            lo = fmin(lo, c->t[first]);
            hi = fmax(hi, c->t[end - 1]);
        }
    }
    *from = lo;
    *to = hi;
    return hi > lo ? 0 : -1;
}

int tb_run_metrics_compute(const tb_run *run, double from, double to, double level,
                           const size_t *work, size_t nwork, tb_run_metrics *m, char *err,
                           size_t errlen)
{
    size_t ncols = tb_run_ncolumns(run);
    memset(m, 0, sizeof *m);
    if (window_of(run, &from, &to) < 0) {
        snprintf(err, errlen, "%s: no two points in the window", tb_run_source(run));
        return -1;
    }
    m->from = from;
    m->to = to;
    m->sensors = calloc(ncols, sizeof *m->sensors);
    m->cooling = calloc(ncols, sizeof *m->cooling);
    m->power = calloc(ncols, sizeof *m->power);
    if (!m->sensors || !m->cooling || !m->power)
        goto oom;
    for (size_t k = 1; k < ncols; k++) {
        const char *unit = tb_run_column(run, k)->unit;
        if (strcmp(unit, "°C") == 0)
            sensor_metrics(run, k, from, to, &m->sensors[m->nsensors++]);
        else if (strcmp(unit, "state") == 0)
            cooling_metrics(run, k, from, to, &m->cooling[m->ncooling++]);
        else if (strcmp(unit, "W") == 0)
            power_metrics(run, k, from, to, &m->power[m->npower++]);
    }
    if (work_metrics(run, work, nwork, from, to, level, &m->ops, &m->ops_sustained) < 0)
        goto oom;
    m->ops_per_j = m->npower && m->power[0].mean_w > 0 ? m->ops.value / m->power[0].mean_w : NAN;
    return 0;
oom:
    tb_run_metrics_clear(m);
    snprintf(err, errlen, "out of memory");
    return -2;
}

void tb_run_metrics_clear(tb_run_metrics *m)
{
    if (!m)
        return;
    free(m->sensors);
    free(m->cooling);
    free(m->power);
    memset(m, 0, sizeof *m);
}
