/*
 * opp_table.c -- an operating-point table from a sweep of frequencies:
 * each run's power above idle and work rate, averaged over the runs at
 * each frequency, with intervals (tb-info --opp-table).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

struct point {
    double khz, power, ops, ops_lo, ops_hi;
};

static int by_khz(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    return (x->khz > y->khz) - (x->khz < y->khz);
}

/* Run R's frequency, power above IDLE_W and work rate into P: 0, or -1
 * with ERR. */
static int point_of(const tb_run *r, const char *key, double idle_w, double level, struct point *p,
                    char *err, size_t errlen)
{
    const char *v = tb_run_meta(r, key);
    char *end;
    tb_run_metrics m;
    if (!v || (p->khz = strtod(v, &end), end == v) || !(p->khz > 0)) {
        snprintf(err, errlen, "%s: no \"# %s:\" line with a frequency in kHz", tb_run_source(r), key);
        return -1;
    }
    int rc = tb_run_metrics_compute(r, -INFINITY, INFINITY, level, NULL, 0, &m, err, errlen);
    if (rc < 0)
        return -1;
    p->power = m.npower ? m.power[0].mean_w - idle_w : NAN;
    p->ops = m.ops.value;
    p->ops_lo = m.ops.lo;
    p->ops_hi = m.ops.hi;
    tb_run_metrics_clear(&m);
    if (!(p->power > 0) || !(p->ops > 0)) {
        snprintf(err, errlen, "%s: %s", tb_run_source(r),
                 !(p->ops > 0) ? "no work counter with a rate" : "no power column above the idle power");
        return -1;
    }
    return 0;
}

/* The mean of X[0..N) (stride STRIDE) with its Student-t LEVEL interval. */
static tb_estimate mean_interval(const double *x, size_t stride, size_t n, double level)
{
    tb_estimate e = {gsl_stats_mean(x, stride, n), NAN, NAN};
    if (n > 1) {
        double h = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(n - 1)) * gsl_stats_sd(x, stride, n) /
                   sqrt((double)n);
        e.lo = e.value - h;
        e.hi = e.value + h;
    }
    return e;
}

int tb_opp_table_from_runs(const tb_run *const *runs, size_t n, const char *key, const char *device,
                           int cpus, double idle_w, double level, tb_opp_table *t, char *err,
                           size_t errlen)
{
    memset(t, 0, sizeof *t);
    struct point *p = calloc(n ? n : 1, sizeof *p);
    if (!p || !(t->device = strdup(device))) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    t->cpus = cpus;
    for (size_t i = 0; i < n; i++)
        if (point_of(runs[i], key, idle_w, level, &p[i], err, errlen) < 0)
            goto fail;
    qsort(p, n, sizeof *p, by_khz);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && p[j].khz == p[i].khz; j++)
            ;
        if (t->n == TB_OPP_MAX) {
            snprintf(err, errlen, "more than %d frequencies", TB_OPP_MAX);
            goto fail;
        }
        size_t k = t->n++, m = j - i;
        t->power[k] = mean_interval(&p[i].power, sizeof *p / sizeof(double), m, level);
        t->ops[k] = mean_interval(&p[i].ops, sizeof *p / sizeof(double), m, level);
        if (m == 1) {   /* one run: its work rate's own interval (batch means) */
            t->ops[k].lo = p[i].ops_lo;
            t->ops[k].hi = p[i].ops_hi;
        }
        t->runs[k] = (double)m;
        t->opp[k] = (tb_opp){p[i].khz, t->power[k].value / cpus, t->ops[k].value / cpus};
    }
    free(p);
    return 0;
fail:
    free(p);
    tb_opp_table_clear(t);
    return -1;
}
