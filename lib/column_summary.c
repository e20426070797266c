/*
 * column_summary.c -- what a person wants to know about a column before
 * fitting it: how many points, over which times, in which range, how often.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#include "tbfit.h"

int tb_column_summarise(const tb_column *c, tb_column_summary *s)
{
    size_t n = c->n;

    *s = (tb_column_summary){
        .n = n, .n_missing = c->n_missing,
        .t_first = NAN, .t_last = NAN, .min = NAN, .mean = NAN, .max = NAN,
        .median_period = NAN,
    };
    if (n == 0)
        return 0;
    s->t_first = c->t[0];
    s->t_last = c->t[n - 1];
    gsl_stats_minmax(&s->min, &s->max, c->v, 1, n);
    s->mean = gsl_stats_mean(c->v, 1, n);
    if (n < 2)
        return 0;

    double *dt = malloc((n - 1) * sizeof *dt);
    if (!dt)
        return -1;
    for (size_t i = 0; i + 1 < n; i++)
        dt[i] = c->t[i + 1] - c->t[i];
    s->median_period = gsl_stats_median(dt, 1, n - 1);   /* quickselect: O(n), no sort */
    free(dt);
    return 0;
}
