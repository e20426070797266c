/*
 * fit_job.h -- from input paths to fitted columns, as tb-fit and
 * tb-compare do it: find the runs, read them, choose their columns, cut
 * the window, subtract the ambient, work out operations per second and
 * throttling, then fit.  Part of libtbfit, not of its public API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_FIT_JOB_H
#define TB_FIT_JOB_H

#include <stdio.h>

#include "cli.h"
#include "tbfit.h"

/* Exit statuses every host tool shares. */
enum { TB_EXIT_OK = 0, TB_EXIT_FIT = 1, TB_EXIT_INPUT = 2 };

/* Input paths: files as given, directories searched for *.csv. */
struct tb_paths {
    char **v;
    size_t n;
};

/* Add ARG: a file (or "-"), or the *.csv files below a directory, sorted.
 * 0, or -1 with a message (PROG: ...) on standard error. */
int tb_paths_add(struct tb_paths *l, const char *arg, const char *prog);
void tb_paths_free(struct tb_paths *l);

struct tb_job_request {
    const char *prog;                    /* for messages */
    const struct tb_model_settings *m;
    const char *const *columns;          /* -c; none: the default columns */
    size_t ncolumns;
    const char *const *work;             /* --work; none: *_work_done */
    size_t nwork;
};

/* A column ready to fit. */
struct tb_prepared {
    const char *file;
    const tb_run *run;
    size_t column;
    double *t, *y;                       /* the window, ambient subtracted */
    size_t n;
    double ops;                          /* operations/s of its run, or NaN */
    double throttled_since;              /* s, or NaN */
    const char *throttled_by;
};

struct tb_job_data {
    tb_run **runs;
    size_t nruns;
    struct tb_prepared *p;
    size_t n;
};

/* Read the NPATHS runs and prepare their columns; messages ("PROG: ...")
 * go to MSG.  Returns TB_EXIT_OK, or the worst status met (a run that
 * cannot be read, an unknown column: TB_EXIT_INPUT); what could be
 * prepared is in DATA either way.  Release with tb_job_free(). */
int tb_job_prepare(const struct tb_job_request *req, const char *const *paths,
                   size_t npaths, FILE *msg, struct tb_job_data *data);
void tb_job_free(struct tb_job_data *data);

/* Fit the NP prepared columns P together (one, or several with shared τ)
 * with the request's model: 0, or -1 with a message in ERR.  A throttled
 * run flags the fit. */
int tb_job_fit(const struct tb_job_request *req, const struct tb_prepared *p, size_t np,
               tb_fit *fit, char *err, size_t errlen);

/* Series SERIES of FIT (of the prepared column P) as a result row, as
 * tb-fit --format csv would give it; 0, or -1 when memory runs out.
 * Release its strings as tb_results_free() does. */
int tb_job_result(const struct tb_prepared *p, const tb_fit *fit, size_t series, tb_result *r);

/* Whether NAME is a work counter, thermobench's NAME_work_done column:
 * a running count of operations, taken by default for operations/s. */
int tb_is_work_counter(const char *name);

/* "PROG: message" as a line of MSG. */
void tb_say(FILE *msg, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
