/*
 * report.h -- tb-fit's results as a table, CSV or JSON.  The CSV and JSON
 * layouts are a contract (tb-compare and users' scripts parse them): see
 * tb-fit(1).  Part of libtbfit, not of its public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_REPORT_H
#define TB_REPORT_H

#include <stdio.h>

#include "tbfit.h"

enum tb_format { TB_FORMAT_TEXT, TB_FORMAT_CSV, TB_FORMAT_JSON };

/* One fitted column, with what tb-fit knows around it. */
typedef struct tb_fit_report {
    const char *file;
    const char *column;
    const char *unit;             /* the column's (normalised), NULL: °C */
    const tb_fit *fit;
    size_t series;                /* which series of FIT */
    double settle;                /* s, NaN when not computed */
    double tolerance;             /* °C, for the settle time */
    double ops_per_s;             /* NaN when there is no work counter */
    double throttled_since;       /* s, NaN when not throttled */
    const char *throttled_by;     /* the column that changed */
    const char *ambient;          /* the ambient column subtracted, or NULL */
    const char *const *labels;    /* one per τ, or NULL */
    double level;                 /* of the intervals */
    const char *ci_method;        /* "covariance" or "bootstrap" */
    int auto_order;               /* the order was chosen (--order auto) */
} tb_fit_report;

/* The CSV header for results of up to MAX_ORDER terms. */
void tb_report_csv_header(FILE *f, int max_order);

/* One result; FIRST: the first JSON object of the output (no comma). */
void tb_report_fit(FILE *f, enum tb_format format, const tb_fit_report *r,
                   int max_order, int first);

/* The flags of a fit as "a;b" (CSV), or "" when none, into BUF. */
const char *tb_report_flags(unsigned flags, char *buf, size_t size);

/* The run-length analysis of one column. */
void tb_report_run_length_csv_header(FILE *f);
void tb_report_run_length(FILE *f, enum tb_format format, const char *file,
                          const char *column, const tb_run_length *rl,
                          double tolerance, double level, int first);

#endif
