/*
 * fit-optimum.c -- does tb-fit's search reach the global optimum?  For every
 * °C column of the runs given and orders 1 to 3, the default search is
 * set beside the best of many searches each held to a window of the τ
 * range (every pair of 14 log-spaced points at least 30× apart): a
 * reference found by brute force through the public API alone.  Used by
 * bench/optimum; prints one line per series, order and range.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

#define WINDOW_POINTS 14

/* RSS of the fit of S with OPT, INFINITY when it fails. */
static double rss_of(const tb_series *s, const tb_fit_options *opt, double *tau)
{
    char err[TB_ERRMAX];
    tb_fit f;
    if (tb_fit_series_run(s, 1, opt, &f, err, sizeof err) < 0)
        return INFINITY;
    double rss = f.rss;
    for (int j = 0; tau && j < f.order; j++)
        tau[j] = f.tau[j].value;
    tb_fit_clear(&f);
    return rss;
}

int main(int argc, char **argv)
{
    char err[TB_ERRMAX];
    printf("%-34s %-14s %5s %-9s %14s %14s %9s  %s\n", "run", "column", "order", "tau-min",
           "search RSS", "reference RSS", "excess", "τ of the search");
    for (int a = 1; a < argc; a++) {
        tb_run *run = tb_run_read(argv[a], NULL, err, sizeof err);
        if (!run) {
            fprintf(stderr, "fit-optimum: %s\n", err);
            return 1;
        }
        size_t *idx = malloc(tb_run_ncolumns(run) * sizeof *idx);
        size_t ncol = idx ? tb_default_columns(run, -1, idx, NULL, NULL) : 0;
        for (size_t c = 0; c < ncol; c++) {
            const tb_column *col = tb_run_column(run, idx[c]);
            tb_series s = {col->t, col->v, col->n};
            double duration = col->t[col->n - 1] - col->t[0];
            for (int order = 1; order <= 3; order++) {
                for (int wide = 0; wide < 2; wide++) {
                    tb_fit_options opt = tb_fit_default_options();
                    opt.order = order;
                    opt.ci = TB_CI_PLAIN;
                    opt.tau_min = wide ? 0.001 : 0;
                    double tau[TB_FIT_MAX_ORDER] = {0};
                    double search = rss_of(&s, &opt, tau), best = search;
                    tb_fit f;
                    if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) < 0)
                        continue;
                    double lo = log(f.tau_min), hi = log(f.tau_max);
                    tb_fit_clear(&f);
                    (void)duration;
                    for (int i = 0; i < WINDOW_POINTS; i++) {
                        for (int k = i + 1; k < WINDOW_POINTS; k++) {
                            double wa = lo + (hi - lo) * i / (WINDOW_POINTS - 1);
                            double wb = lo + (hi - lo) * k / (WINDOW_POINTS - 1);
                            if (wb - wa < log(30))
                                continue;
                            tb_fit_options w = opt;
                            w.tau_min = exp(wa);
                            w.tau_max = exp(wb);
                            best = fmin(best, rss_of(&s, &w, NULL));
                        }
                    }
                    const char *name = strrchr(argv[a], '/');
                    printf("%-34s %-14s %5d %-9s %14.6f %14.6f %8.4f%%  ", name ? name + 1 : argv[a],
                           col->name, order, wide ? "0.001" : "default", search, best,
                           100 * (search - best) / best);
                    for (int j = 0; j < order; j++)
                        printf("%s%.4g", j ? " " : "", tau[j]);
                    putchar('\n');
                }
            }
        }
        free(idx);
        tb_run_free(run);
    }
    return 0;
}
