/* fit-run.c -- libtbfit by task, on one run */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tbfit.h>

int main(int argc, char **argv)
{
    char err[TB_ERRMAX];
    if (argc != 2) {
        fprintf(stderr, "usage: fit-run RUN.csv\n");
        return 2;
    }

    /* Read a run. */
    tb_run *run = tb_run_read(argv[1], NULL, err, sizeof err);
    if (!run) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    printf("%s: %zu rows, %zu columns\n", tb_run_source(run),
           tb_run_rows(run), tb_run_ncolumns(run));

    /* Select a column and cut its series: the whole run, no ambient. */
    size_t i;
    double *t, *y;
    size_t n;
    if (tb_run_select(run, "CPU_0_temp", &i, 1, err, sizeof err) < 0 ||
        tb_series_extract(tb_run_column(run, i), 0, INFINITY, NULL,
                          &t, &y, &n, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        tb_run_free(run);
        return 2;
    }

    /* Fit three terms, with 95 % intervals. */
    tb_series s = {t, y, n};
    tb_fit_options opt = tb_fit_default_options();
    opt.order = 3;
    tb_fit fit;
    if (tb_fit_series_run(&s, 1, &opt, &fit, err, sizeof err) == 0) {
        const tb_estimate *e = &fit.series[0].t_inf;
        printf("T_inf %.2f [%.2f, %.2f] degC, tau", e->value, e->lo, e->hi);
        for (int j = 0; j < fit.order; j++)
            printf(" %.0f", fit.tau[j].value);
        printf(" s%s\n", fit.flags ? ", flagged" : "");
        tb_fit_clear(&fit);
    }

    /* How long must such a run be? */
    tb_run_length rl;
    opt.order = 2;
    if (tb_run_length_estimate(&s, &opt, 60, 0.5, &rl, err, sizeof err) == 0) {
        printf("run length for 0.5 degC: %.0f s\n", rl.shortest);
        tb_run_length_clear(&rl);
    }
    free(t);
    free(y);

    /* All of it as tb-fit does, written as a results file and read back. */
    tb_analysis_options ao = tb_analysis_default_options();
    ao.fit = opt;
    const tb_run *runs[] = {run};
    tb_analysis *a = tb_analyse_runs(runs, 1, &ao, err, sizeof err);
    if (!a) {
        fprintf(stderr, "%s\n", err);
        tb_run_free(run);
        return 3;
    }
    for (size_t m = 0; m < tb_analysis_nmessages(a); m++)
        fprintf(stderr, "%s\n", tb_analysis_message(a, m));
    FILE *f = tmpfile();
    tb_results_write_header(f, opt.order);
    for (size_t k = 0; k < tb_analysis_ncolumns(a); k++) {
        tb_result r;
        if (tb_result_from_column(tb_analysis_column(a, k), &r) == 0) {
            tb_results_write(f, &r, opt.order);
            tb_result_clear(&r);
        }
    }
    rewind(f);
    tb_result *rows = NULL;
    size_t nrows = 0;
    if (tb_results_read_stream(f, "results", &rows, &nrows, err, sizeof err) == 0)
        for (size_t k = 0; k < nrows; k++)
            printf("%s: T_inf %.2f degC, %.0f operations/s\n", rows[k].column,
                   rows[k].t_inf.value, rows[k].ops_per_s);
    tb_results_free(rows, nrows);
    fclose(f);
    int status = tb_analysis_status(a);
    tb_analysis_free(a);
    tb_run_free(run);
    return status;
}
