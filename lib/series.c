/*
 * series.c -- from a run's columns to the series that are fitted, and what
 * else a thermal engineer asks of a run: the default columns, the window,
 * the ambient, operations per second, whether the CPU throttled, when the
 * fitted curve settles.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "run_internal.h"

size_t tb_default_columns(const tb_run *run, ssize_t ambient, size_t *idx,
                          void (*note)(void *ctx, const tb_column *c, const char *why),
                          void *ctx)
{
    size_t n = 0;
    for (size_t i = 1; i < tb_run_ncolumns(run); i++) {
        const tb_column *c = tb_run_column(run, i);
        if (strcmp(c->unit, "°C") != 0 || (ssize_t)i == ambient || strcasestr(c->name, "ambient"))
            continue;
        if (c->n == 0) {
            if (note)
                note(ctx, c, c->n_missing ? "has no values (all nan)" : "has no values");
            continue;
        }
        int constant = 1;
        for (size_t j = 1; j < c->n && constant; j++)
            constant = c->v[j] == c->v[0];
        if (constant) {
            char why[64];
            snprintf(why, sizeof why, "is constant (%g °C)", c->v[0]);
            if (note)
                note(ctx, c, why);
            continue;
        }
        idx[n++] = i;
    }
    return n;
}

const char *tb_term_label(const tb_fit *fit, size_t i, int j)
{
    if (!fit || i >= fit->nseries || j < 0 || j >= fit->order || fit->flags & TB_FIT_DEGENERATE)
        return NULL;
    const tb_fit_series *s = &fit->series[i];
    const tb_estimate *k = &s->k[j];
    double sum = 0;
    for (int m = 0; m < fit->order; m++)
        sum += s->k[m].value;
    if (!(k->value * sum > 0) || (k->lo <= 0 && k->hi >= 0))
        return NULL;
    double tau = fit->tau[j].value;
    return tau < TB_TERM_HEAT_SINK_MAX ? "heat sink" : tau <= TB_TERM_BOARD_MAX ? "board" : "testbed";
}

/* Linear interpolation of column C at time T; the nearest value outside
 * its time range.  C has at least one point. */
static double interpolate(const tb_column *c, double t)
{
    size_t lo = 0, hi = c->n - 1;
    if (t <= c->t[0])
        return c->v[0];
    if (t >= c->t[hi])
        return c->v[hi];
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double dt = c->t[hi] - c->t[lo];
    return dt > 0 ? c->v[lo] + (c->v[hi] - c->v[lo]) * (t - c->t[lo]) / dt : c->v[hi];
}

/* Where the bin of a point at time T ends, MAX bins of WIDTH from T0: its
 * bin b has b·width <= t − t0 < (b + 1)·width, but is at least *BIN, the
 * one after the bin before (a point just past a bin's end may round back
 * into it: it would make a bin of its own, over MAX in all, 39 more than
 * 2000 for a run of millisecond steps).  So b grows by one at least from
 * bin to bin, and bin MAX − 1, which runs to the end, is the last.  Each
 * takes one point at least, so the means land at or before the points
 * they read. */
static double bin_end(double t, double t0, double width, size_t max, double *bin)
{
    double b = fmax(floor((t - t0) / width), *bin);
    *bin = b + 1;
    return b + 1 >= (double)max ? INFINITY : t0 + (b + 1) * width;
}

/* Column C's points within [FROM, TO]: the first, and how many into *N;
 * 0, or -1 with ERR when there are none (or AMBIENT has none). */
static int series_window(const tb_column *c, double from, double to, const tb_column *ambient,
                         size_t *first, size_t *n, char *err, size_t errlen)
{
    /* (a NaN FROM cuts nothing off, a NaN TO nothing either) */
    *first = run_times_before(c->t, c->n, from, 0);
    size_t last = isnan(to) ? c->n : run_times_before(c->t, c->n, to, 1);
    *n = last > *first ? last - *first : 0;
    if (c->n == 0) {
        if (c->n_missing > 0)
            snprintf(err, errlen, "column %s has no values: all %zu are missing (nan)",
                     c->name, c->n_missing);
        else
            snprintf(err, errlen, "column %s has no values", c->name);
        return -1;
    }
    if (*n == 0) {
        snprintf(err, errlen, "column %s: no points in the window %g to %g s",
                 c->name, from, to);
        return -1;
    }
    if (ambient && ambient->n == 0) {
        snprintf(err, errlen, "ambient column %s has no points", ambient->name);
        return -1;
    }
    return 0;
}

static int series_alloc(size_t n, double **t, double **y, char *err, size_t errlen)
{
    *t = malloc(n * sizeof **t);
    *y = malloc(n * sizeof **y);
    if (*t && *y)
        return 0;
    free(*t);
    free(*y);
    *t = *y = NULL;
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Point I of column C less the AMBIENT there and OFFSET. */
static double series_value(const tb_column *c, size_t i, const tb_column *ambient, double offset)
{
    double y = c->v[i] - (ambient ? interpolate(ambient, c->t[i]) : 0);
    return y - offset;
}

int tb_series_extract(const tb_column *c, double from, double to,
                      const tb_column *ambient, double **t, double **y,
                      size_t *n, char *err, size_t errlen)
{
    return tb_series_extract_bins(c, from, to, ambient, 0, 0, t, y, n, err, errlen);
}

int tb_series_extract_bins(const tb_column *c, double from, double to, const tb_column *ambient,
                           double offset, size_t max, double **t, double **y, size_t *n,
                           char *err, size_t errlen)
{
    size_t first, m;
    *t = *y = NULL;
    if (series_window(c, from, to, ambient, &first, &m, err, errlen) < 0)
        return -1;
    const double *ct = c->t + first;
    double t0 = ct[0], width = max > 0 ? (ct[m - 1] - t0) / (double)max : 0;
    if (max == 0 || m <= max || !(width > 0)) {   /* every point */
        if (series_alloc(m, t, y, err, errlen) < 0)
            return -1;
        for (size_t i = 0; i < m; i++) {
            (*t)[i] = ct[i];
            (*y)[i] = series_value(c, first + i, ambient, offset);
        }
        *n = m;
        return 0;
    }
    /* The bins of tb_series_bin(), summed as the points are read: no copy
     * of a run of millions of rows (tb-fit --follow does this each
     * update), the same means to the last bit. */
    if (series_alloc(max, t, y, err, errlen) < 0)
        return -1;
    size_t kept = 0, i = 0;
    double bin = 0;
    while (i < m) {
        double end = bin_end(ct[i], t0, width, max, &bin);
        double st = ct[i], sy = series_value(c, first + i, ambient, offset);
        size_t k = 1;
        for (i++; i < m && ct[i] < end; i++, k++) {
            st += ct[i];
            sy += series_value(c, first + i, ambient, offset);
        }
        (*t)[kept] = st / (double)k;
        (*y)[kept] = sy / (double)k;
        kept++;
    }
    *n = kept;
    return 0;
}

size_t tb_series_bin(double *t, double *y, size_t n, size_t max)
{
    if (max == 0 || n <= max)
        return n;
    double t0 = t[0], width = (t[n - 1] - t0) / (double)max;
    if (!(width > 0))
        return n;
    size_t kept = 0, i = 0;
    double bin = 0;
    while (i < n) {
        double end = bin_end(t[i], t0, width, max, &bin);
        double st = t[i], sy = y[i];
        size_t m = 1;
        for (i++; i < n && t[i] < end; i++, m++) {
            st += t[i];
            sy += y[i];
        }
        t[kept] = st / (double)m;
        y[kept] = sy / (double)m;
        kept++;
    }
    return kept;
}

#define STARTUP_PERIOD_SPAN 1024

size_t tb_startup_samples(const tb_column *c)
{
    if (c->n < 8)
        return 0;
    /* The regular period: the median of the first STARTUP_PERIOD_SPAN
     * intervals, not of all (a pass and a copy of every row at each of
     * tb-fit --follow's updates, a fifth of their time an hour into a run
     * sampled each millisecond). */
    size_t m = c->n - 1 < STARTUP_PERIOD_SPAN ? c->n - 1 : STARTUP_PERIOD_SPAN;
    double dt[STARTUP_PERIOD_SPAN];
    for (size_t i = 0; i < m; i++)
        dt[i] = c->t[i + 1] - c->t[i];
    double period = gsl_stats_median(dt, 1, m);   /* quickselect: O(m), no sort */
    /* The burst: leading intervals under a tenth of the period; its last
     * sample too, since regular sampling starts after it.  A handful at
     * most: a run whose every interval is short has no burst. */
    size_t burst = 0;
    while (burst < 8 && burst + 1 < c->n && c->t[burst + 1] - c->t[burst] < 0.1 * period)
        burst++;
    return burst > 0 && burst < 8 ? burst + 1 : 0;
}

int tb_is_work_counter(const char *name)
{
    size_t n = strlen(name), suffix = strlen("_work_done");
    return n >= suffix && strcmp(name + n - suffix, "_work_done") == 0;
}

/* The points of C from FROM to TO: [*FIRST, *LAST). */
static void window_points(const tb_column *c, double from, double to, size_t *first, size_t *last)
{
    *first = 0;
    *last = c->n;
    while (*first < c->n && c->t[*first] < from)
        (*first)++;
    while (*last > *first && c->t[*last - 1] > to)
        (*last)--;
}

double tb_work_rate(const tb_column *work, double from, double to)
{
    size_t first, last;
    window_points(work, from, to, &first, &last);
    if (last - first < 2 || work->t[last - 1] <= work->t[first])
        return NAN;
    /* the count's change over the time: a counter sums its increments, and
     * their noise with them, so a line fitted to it would weigh its middle
     * and know the rate less well (6/5 the variance) */
    return (work->v[last - 1] - work->v[first]) / (work->t[last - 1] - work->t[first]);
}

/* The work rate of each of WORK_BATCHES equal stretches of time from A to
 * B, summed over the N counters, into RATES; how many stretches had two
 * points of every counter (the others are left out). */
#define WORK_BATCHES 10
static size_t batch_rates(const tb_column *const *work, size_t n, double a, double b,
                          double *rates)
{
    size_t m = 0;
    double w = (b - a) / WORK_BATCHES;
    for (int k = 0; k < WORK_BATCHES; k++) {
        double sum = 0;
        int whole = 1;
        for (size_t c = 0; c < n && whole; c++) {
            size_t first, last;
            window_points(work[c], a + k * w, k + 1 == WORK_BATCHES ? b : a + (k + 1) * w,
                          &first, &last);
            whole = last - first >= 2 && work[c]->t[last - 1] > work[c]->t[first];
            if (whole)
                sum += (work[c]->v[last - 1] - work[c]->v[first]) /
                       (work[c]->t[last - 1] - work[c]->t[first]);
        }
        if (whole)
            rates[m++] = sum;
    }
    return m;
}

int tb_work_rate_estimate(const tb_column *const *work, size_t n, double from, double to,
                          double level, tb_estimate *rate)
{
    double a = INFINITY, b = -INFINITY;
    *rate = (tb_estimate){0, NAN, NAN};
    for (size_t c = 0; c < n; c++) {
        double r = tb_work_rate(work[c], from, to);
        size_t first, last;
        if (!isfinite(r)) {
            *rate = (tb_estimate){NAN, NAN, NAN};
            return -1;
        }
        rate->value += r;
        window_points(work[c], from, to, &first, &last);
        a = fmin(a, work[c]->t[first]);
        b = fmax(b, work[c]->t[last - 1]);
    }
    if (n == 0) {
        rate->value = NAN;
        return -1;
    }
    /* Batch means: the rates of ten stretches of the run are close to
     * independent however the counts are correlated from one sample to
     * the next (a counter sums them, so its residuals from a line are
     * not), and their spread says how well the mean rate is known. */
    double rates[WORK_BATCHES];
    size_t m = batch_rates(work, n, a, b, rates);
    if (m >= 3 && level > 0 && level < 1) {
        double half = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(m - 1)) *
                      gsl_stats_sd(rates, 1, m) / sqrt((double)m);
        rate->lo = rate->value - half;
        rate->hi = rate->value + half;
    }
    return 0;
}

/* Power or frequency that changes during the window breaks the model's
 * assumption of a constant power step.  The reference is the median of
 * the window's first tenth; a change is three points in a row below 90 %
 * of it (a frequency) or off by more than 25 % (a power). */
int tb_throttle_check(const tb_run *run, double from, double to,
                      double *since, const char **column)
{
    int found = 0;
    *since = INFINITY;
    for (size_t i = 1; i < tb_run_ncolumns(run); i++) {
        const tb_column *c = tb_run_column(run, i);
        int is_freq = strcmp(c->unit, "Hz") == 0, is_power = strcmp(c->unit, "W") == 0;
        if (!is_freq && !is_power)
            continue;
        size_t first, last;
        window_points(c, from, to, &first, &last);
        if (last - first < 6)
            continue;
        double t_ref = c->t[first] + (c->t[last - 1] - c->t[first]) / 10;
        size_t nref = 0;
        while (first + nref < last && c->t[first + nref] <= t_ref)
            nref++;
        if (nref < 3)
            nref = 3;
        double *ref = malloc(nref * sizeof *ref);
        if (!ref)
            return -1;
        memcpy(ref, c->v + first, nref * sizeof *ref);
        double reference = gsl_stats_median(ref, 1, nref);
        free(ref);
        size_t run_len = 0;
        for (size_t j = first + nref; j < last; j++) {
            double v = c->v[j];
            int off = is_freq ? v < 0.9 * reference
                              : fabs(v - reference) > 0.25 * fabs(reference);
            run_len = off ? run_len + 1 : 0;
            if (run_len == 3) {
                double when = c->t[j - 2];
                if (when < *since) {
                    *since = when;
                    *column = c->name;
                }
                found = 1;
                break;
            }
        }
    }
    return found;
}

double tb_fit_settle_time(const tb_fit *fit, size_t i, double tol)
{
    const tb_fit_series *s = &fit->series[i];
    double t_up = 0, t_min_tau = INFINITY;

    /* Beyond t_up each of the n terms is under tol/n. */
    for (int j = 0; j < fit->order; j++) {
        double k = fabs(s->k[j].value), tau = fit->tau[j].value;
        if (k * fit->order > tol)
            t_up = fmax(t_up, tau * log(k * fit->order / tol));
        t_min_tau = fmin(t_min_tau, tau);
    }
    if (t_up <= 0)
        return 0;
    double step = t_min_tau / 8;
    double t = t_up;
    while (t > 0 && fabs(tb_fit_eval(fit, i, t) - s->t_inf.value) <= tol)
        t -= step;
    if (t <= 0)
        return 0;
    double lo = t, hi = t + step;   /* |dev(lo)| > tol >= |dev(hi)| */
    for (int k = 0; k < 60; k++) {
        double mid = (lo + hi) / 2;
        if (fabs(tb_fit_eval(fit, i, mid) - s->t_inf.value) > tol)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

