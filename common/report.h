/*
 * report.h -- tb-fit's results as a table, CSV or JSON.  The CSV and JSON
 * layouts are a contract (tb-compare and users' scripts parse them): see
 * tb-fit(1).  Part of libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_REPORT_H
#define TB_REPORT_H

#include <stdio.h>

#include "ci_report.h"
#include "tbfit.h"

enum tb_format { TB_FORMAT_TEXT, TB_FORMAT_CSV, TB_FORMAT_JSON };

/* How to present a fitted column: what the analysis does not know. */
typedef struct tb_fit_report {
    const tb_analysed_column *c;  /* with a fit */
    double tolerance;             /* °C, of its settle time */
    const char *ambient;          /* the ambient column subtracted, or NULL */
    const char *const *labels;    /* one per τ, or NULL */
    double level;                 /* of the intervals */
    int auto_order;               /* the order was chosen (--order auto) */
    const char *power;            /* the power column, or NULL (a step given) */
} tb_fit_report;

/* One result; FIRST: the first JSON object of the output (no comma).  The
 * CSV is libtbfit's results file (tb_results_write()).  0, or -1 when
 * memory ran out or F could not be written. */
int tb_report_fit(FILE *f, enum tb_format format, const tb_fit_report *r,
                   int max_order, int first);

/* The tests of R's column for the CI formats (report_ci.c): T∞, each τ,
 * and R_th, the sustainable power and the time to trip where known.  T∞
 * passes where its interval lies below LIMIT (°C) and fails where not;
 * without a limit (NaN) the tests are measurements.  A flagged fit's
 * tests are errors, a failed fit one error.  0, or -1 out of memory. */
int tb_report_fit_ci(tb_ci_list *l, const tb_fit_report *r, double limit);

/* The run-length analysis of one column. */
void tb_report_run_length_csv_header(FILE *f);
void tb_report_run_length(FILE *f, enum tb_format format, const char *file,
                          const char *column, const tb_run_length *rl,
                          double tolerance, double level, int first);

#endif
