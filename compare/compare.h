/*
 * compare.h -- the parts of tb-compare: its inputs (runs fitted, or
 * tb-fit's result files, each put in its group), the table of groups it
 * tests against the baseline, and the reports of that table.
 * tb-compare.c holds the command line and drives them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

#include <stddef.h>

#include "cli.h"
#include "exit_status.h"
#include "ci_report.h"
#include "grouping.h"
#include "tbfit.h"

enum compare_format {
    COMPARE_TEXT, COMPARE_CSV, COMPARE_JSON, COMPARE_MARKDOWN,
    COMPARE_CI                     /* a CI format (.ci): compare_ci.c */
};

struct compare_settings {
    struct tb_model_settings m;
    const char **columns;
    size_t ncolumns;
    const char **work;
    size_t nwork;
    int shared_tau;
    const char *group_by;          /* "dir", "meta:KEY" or "re:REGEX" */
    struct tb_grouping grouping;   /* set up from group_by */
    const char *group_order;       /* --group-order G1,G2,... */
    const char *baseline;
    double threshold, tau_threshold, ops_threshold;
    int regression;                /* a baseline or a threshold was asked
                                      for: verdicts are regressions */
    int include_flagged;           /* --include-flagged */
    enum compare_format format;
    enum tb_ci_format ci;          /* with COMPARE_CI */
    int strict;
    const char *cache;             /* --cache DIR */
    int jobs;
    const char *plot;              /* --plot FILE */
};

/* --- inputs (compare_inputs.c) --- */

/* A fitted column with the group of its run. */
struct compare_row {
    tb_result r;
    char *group;
};

/* What one input gave: rows, and the fits that failed. */
struct compare_input {
    const char *path;
    struct compare_row *rows;
    size_t nrows;
    char *msg;          /* its messages, printed in input order */
    size_t msglen;
    int status;         /* TB_EXIT_OK or TB_EXIT_INPUT */
    size_t failed;      /* fits that failed: the run is left out */
    char *group_error;  /* why it could not be grouped, or NULL: said for
                           the first few inputs only, then counted */
};

/* Read or fit each of the N inputs, S->jobs at a time.  0, or -1 when
 * memory runs out before any is. */
int compare_read_inputs(const struct compare_settings *s, struct compare_input *in, size_t n);

/* Free a row's result and group. */
void compare_row_clear(struct compare_row *row);

/* --- the cache (compare_cache.c) --- */

/* The cache entry of the run at PATH into KEY (SIZE bytes): DIR/HASH.csv
 * with a hash of the run's bytes, every fitting option and the version.
 * 0, or -1 when the run cannot be read or the name is too long. */
int compare_cache_key(const struct compare_settings *s, const char *path, char *key, size_t size);

/* The rows of the entry KEY: 1 with *ROWS and *N (tb_results_free()), 0
 * when there is none, -1 with ERR when it is not whole (cut, empty, a
 * column twice, not a regular file): it is then to be fitted again. */
int compare_cache_read(const char *key, tb_result **rows, size_t *n, char *err, size_t errlen);

/* Write the N ROWS as the entry KEY, whole or not at all: a temporary file
 * of its own in the cache, fsynced, renamed over KEY.  0, or -1 with ERR. */
int compare_cache_write(const char *key, const tb_result *rows, size_t n, char *err, size_t errlen);

/* --- the table (compare_table.c) --- */

/* Fitted (T∞, τ) and measured (operations/s and what the run did under
 * its limits: taken from every run, its fit flagged or not). */
enum compare_metric {
    M_TINF, M_TAU1, M_OPS = M_TAU1 + TB_FIT_MAX_ORDER, M_SUSTAINED, M_PEAK, M_ABOVE,
    M_THROTTLED, M_COUNT
};

/* Whether metric M is measured, not fitted: it does not rest on the fit. */
#define COMPARE_MEASURED(m) ((m) >= M_OPS)

/* Metric M's name in the machine formats (T_inf, tau1, ops_per_s), or
 * with TEXT in the text reports (T∞, τ1, operations/s). */
const char *compare_metric_name(int m, char *buf, size_t size);
const char *compare_metric_label(int m, int text, char *buf, size_t size);

/* Metric M's unit: "°C", "s", "operations/s"; "" for a share. */
const char *compare_metric_unit(int m);

struct compare_cell {     /* one metric of one group of one column */
    size_t n;
    size_t nflagged;         /* of them, flagged fits (--include-flagged) */
    double mean, lo, hi, sd; /* lo, hi: the mean's confidence interval */
    double *x;               /* the values; of a τ, their logarithms */
};

struct compare_test {     /* one group against the baseline, one metric */
    size_t column, group;
    int metric;
    tb_welch_result w;
    double p_adj;            /* Holm-corrected over every test */
    const char *verdict;     /* "regression", "improvement", "changed",
                                "higher", "lower", "inconclusive", "" */
    int regression;
    int inconclusive;        /* too few sound fits to test: no w, no p */
};

/* A group whose leading keys have no baseline group (compare_table's
 * baseline_of): a board without the baseline kernel. */
#define COMPARE_NO_BASELINE ((size_t)-1)

/* The fewest sound fits a group needs for its T∞ to be tested. */
#define COMPARE_MIN_FITS 2

struct compare_table {
    char **columns;
    size_t ncolumns;
    char **groups;           /* in order: --group-order, then natural */
    size_t ngroups;
    size_t baseline;              /* the (first) baseline group */
    size_t *baseline_of;          /* [group]: its baseline, COMPARE_NO_BASELINE
                                     where its leading keys have none */
    char *baseline_label;         /* "6.1 of each meta:board", or NULL: one
                                     baseline for all */
    struct compare_cell *cells;   /* [column][group][metric] */
    struct compare_test *tests;
    size_t ntests;
    int *order_lo, *order_hi;     /* [column]: the fits' orders; τ are
                                     compared only where they agree */
    const struct compare_row **left_out;  /* flagged fits kept out of the
                                             statistics, in input order */
    size_t nleft_out, nfits;      /* of NFITS fits */
};

/* Columns and groups in order, each metric's values, the tests against
 * the baseline and Holm's correction over all of them.  0, or -1 with a
 * message in ERR; compare_table_free() T either way. */
int compare_table_build(const struct compare_settings *s, const struct compare_row *rows,
                        size_t n, struct compare_table *t, char *err, size_t errlen);
void compare_table_free(struct compare_table *t);

/* The length of GROUP's leading keys: all of its name but the last key's
 * value ("imx8qm" of "imx8qm/6.1"; several keys' values are joined by
 * '/'), or all of it for one key. */
size_t compare_leading_keys(const char *group);

/* What the groups are compared with, for a report's words: the baseline
 * group's name, or "6.1 of each meta:board". */
const char *compare_baseline_label(const struct compare_table *t);

/* Group G's baseline's name, or "none" where it has none. */
const char *compare_baseline_name(const struct compare_table *t, size_t g);

/* The cell of column C, group G, metric M. */
const struct compare_cell *compare_cell_at(const struct compare_table *t, size_t c, size_t g,
                                           int m);

/* The test of column C, group G, metric M against its baseline, or NULL
 * (the baseline's own cells, a metric not tested). */
const struct compare_test *compare_test_at(const struct compare_table *t, size_t c, size_t g,
                                           int m);

/* Whether any test is a regression; the first such test, or NULL. */
int compare_regressed(const struct compare_table *t);
const struct compare_test *compare_first_regression(const struct compare_table *t);

/* Whether any group's T∞ could not be tested for too few sound fits. */
int compare_inconclusive(const struct compare_table *t);

/* Whether R is kept out of the statistics: a fit no verdict may rest on
 * (tb_result_sound(), with the T∞ threshold as the tolerance), unless
 * --include-flagged. */
int compare_left_out(const struct compare_settings *s, const tb_result *r);

/* --- reports (compare_report.c) --- */

/* "+0.99 °C [+0.96, +1.02]": test K's change from its baseline, or "not
 * tested". */
void compare_change_text(const struct compare_test *k, char *out, size_t size);

/* The table on standard output in S->format; NFAILED fits were left out;
 * ROWS (N) the fits it was built from. */
void compare_report(const struct compare_settings *s, const struct compare_table *t,
                    size_t nfailed, const struct compare_row *rows, size_t n);

/* --- the summary across boards (compare_boards.c) --- */

/* Where each group has the baseline of its leading keys (--group-by
 * meta:board,meta:kernel --baseline 6.1), a line, a markdown row or a JSON
 * object a board: its verdict, each regression or test that could not be
 * made with its change and interval, else its largest T∞ change; nothing
 * with one baseline for all.  The JSON is a member to append (",\n
 * \"boards\": [...]").  0, or -1 out of memory. */
int compare_boards_text(const struct compare_settings *s, const struct compare_table *t);
int compare_boards_markdown(const struct compare_settings *s, const struct compare_table *t);
int compare_boards_json(const struct compare_table *t);

/* --- reports for CI (compare_ci.c) --- */

/* The table in the CI format S->ci (JUnit XML, TAP 13, KCIDB v5, LAVA
 * test cases, SQUAD metrics): a test per group, column and metric, failed
 * by a regression, an error where too few sound fits leave it
 * inconclusive.  0, or -1 out of memory or on a write error. */
int compare_report_ci(const struct compare_settings *s, const struct compare_table *t,
                      const struct compare_row *rows, size_t n);

/* --plot: the first column's groups drawn by tb-plot compare.
 * TB_EXIT_OK, or TB_EXIT_INPUT with a message on standard error. */
int compare_plot(const struct compare_settings *s, const struct compare_row *rows, size_t n,
                 const struct compare_table *t);

#endif
