/*
 * fit-series.c -- time libtbfit's fit of every °C column of a run for
 * orders 1 to 3.  Used by bench/fit; prints one key=value line per fit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tbfit.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    char err[TB_ERRMAX];

    if (argc != 3) {
        fprintf(stderr, "usage: fit-series RUN.csv REPEAT\n");
        return 2;
    }
    int repeat = atoi(argv[2]);
    tb_run *run = tb_run_read(argv[1], NULL, err, sizeof err);
    if (!run || repeat < 1) {
        fprintf(stderr, "fit-series: %s\n", run ? "bad REPEAT" : err);
        return 1;
    }
    double *ms = malloc((size_t)repeat * sizeof *ms);
    for (size_t i = 1; i < tb_run_ncolumns(run); i++) {
        const tb_column *c = tb_run_column(run, i);
        int constant = 1;
        for (size_t j = 1; j < c->n; j++)
            constant &= c->v[j] == c->v[0];
        if (strcmp(c->unit, "°C") != 0 || strstr(c->name, "ambient") || constant || c->n < 10)
            continue;
        tb_series s = {c->t, c->v, c->n};
        for (int order = 1; order <= 3; order++) {
            tb_fit_options opt = tb_fit_default_options();
            tb_fit f;
            opt.order = order;
            for (int r = 0; r < repeat; r++) {
                double t0 = now_s();
                if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) < 0) {
                    fprintf(stderr, "fit-series: %s: %s\n", c->name, err);
                    return 1;
                }
                ms[r] = (now_s() - t0) * 1e3;
                if (r + 1 < repeat)
                    tb_fit_clear(&f);
            }
            gsl_sort(ms, 1, (size_t)repeat);
            printf("column=%s points=%zu order=%d ms=%.4f rss=%.9g flags=%u tau=", c->name,
                   c->n, order, gsl_stats_median_from_sorted_data(ms, 1, (size_t)repeat),
                   f.rss, f.flags);
            for (int j = 0; j < order; j++)
                printf("%s%.4g", j ? ";" : "", f.tau[j].value);
            putchar('\n');
            tb_fit_clear(&f);
        }
    }
    free(ms);
    tb_run_free(run);
    return 0;
}
