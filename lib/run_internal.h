/*
 * run_internal.h -- the run object as the reader builds it.  Private to
 * libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RUN_INTERNAL_H
#define TB_RUN_INTERNAL_H

#include <stdint.h>

#include "tbfit.h"

/* A column while it is read.  A column with a value on every row so far
 * shares the run's row times; the first row it skips gives it an index of
 * the rows it has values on (4 bytes a point instead of 8). */
struct run_column {
    tb_column pub;
    char *header, *name, *raw_unit;
    double *v;
    uint32_t *rows;     /* NULL while the column is dense */
    size_t cap;         /* capacity of v (and rows) */
    double *t_owned;    /* times built from rows when the column is sparse */
    size_t t_cap, t_n;  /* a follower's: capacity of t_owned, times made */
};

struct string_pair {
    char *key, *value;
};

struct tb_run {
    char *source;
    struct run_column *cols;
    size_t ncols;
    double *row_t;      /* time of each data row */
    size_t nrows, rows_cap;

    char *started, *version, *command;
    struct string_pair *meta;
    size_t nmeta;
    char **comments;
    size_t ncomments;
    char **warnings;
    size_t nwarnings;
};

/* How many of the N ascending times T (a column's) lie before X
 * (INCLUSIVE: at or before it): by bisection, not a pass, for windows cut
 * at each update of a followed run of millions of rows. */
size_t run_times_before(const double *t, size_t n, double x, int inclusive);

/* Append a copy of S to a growable array of strings; 0 or -1 (no memory). */
int run_strv_push(char ***v, size_t *n, const char *s);

/* Record the comment line TEXT (without "#") as the start line, a
 * "key: value" pair or a free comment; 0 or -1 (no memory). */
int run_add_comment(tb_run *run, const char *text);

#endif
