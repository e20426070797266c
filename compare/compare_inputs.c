/*
 * compare_inputs.c -- tb-compare's inputs to rows: each run fitted as
 * tb-fit would (or its fit taken from the cache), or a tb-fit result file
 * read, and every fitted column filed under its run's group.  Inputs are
 * worked on by -j threads; each keeps its messages for the input order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "paths.h"
#include "progress.h"
#include "work_pool.h"

static int add_row(struct compare_input *in, const tb_result *r, char *group)
{
    struct compare_row *nr = realloc(in->rows, (in->nrows + 1) * sizeof *nr);
    if (!nr)
        return -1;
    in->rows = nr;
    nr[in->nrows++] = (struct compare_row){*r, group};
    return 0;
}

static void say(struct compare_input *in, FILE *msg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(struct compare_input *in, FILE *msg, const char *fmt, ...)
{
    char line[2 * TB_ERRMAX];
    va_list ap;
    (void)in;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    tb_say(msg, "tb-compare", "%s", line);
}

/* A cache that cannot be written is said once a process, not once a run. */
static atomic_int cache_write_warned;

/* File the ROWS of the run at IN->path under its group: 0, or -1 when
 * memory runs out (said).  The rows are taken either way. */
static int file_rows(const struct compare_settings *s, struct compare_input *in, FILE *msg,
                     tb_result *rows, size_t n, const tb_run *run)
{
    char err[TB_ERRMAX];
    char *group = tb_grouping_of(&s->grouping, in->path, run, NULL, err, sizeof err);
    int rc = 0;
    if (!group) {
        if (!in->group_error)
            in->group_error = strdup(err);
        in->status = TB_EXIT_INPUT;
    }
    for (size_t i = 0; i < n; i++) {
        char *g = group ? strdup(group) : NULL;
        if (!g || add_row(in, &rows[i], g) < 0) {
            if (group && rc == 0)
                say(in, msg, "out of memory");
            free(g);
            tb_result_clear(&rows[i]);
            in->status = TB_EXIT_INPUT;
            rc = -1;
        }
    }
    free(group);
    return rc;
}

/* Fit the run at IN->path (or take its fit from the cache). */
static void fit_run(const struct compare_settings *s, struct compare_input *in, FILE *msg)
{
    char key[4096], err[TB_ERRMAX];
    int cached = s->cache && compare_cache_key(s, in->path, key, sizeof key) == 0;

    if (cached) {
        tb_result *rows = NULL;
        size_t n = 0;
        int found = compare_cache_read(key, &rows, &n, err, sizeof err);
        if (found > 0) {
            for (size_t i = 0; i < n; i++) {
                free(rows[i].file);
                rows[i].file = strdup(in->path);
            }
            file_rows(s, in, msg, rows, n, NULL);
            free(rows);
            return;
        }
        if (found < 0)
            say(in, msg, "warning: cache %s: %s: fitted again and replaced", key, err);
    }

    tb_analysis_options o = tb_model_analysis_options(&s->m);
    o.columns = s->columns;
    o.ncolumns = s->ncolumns;
    o.work = s->work;
    o.nwork = s->nwork;
    o.shared_tau = s->shared_tau;
    tb_analysis *a = tb_analyse_paths(&in->path, 1, &o, err, sizeof err);
    if (!a) {
        say(in, msg, "%s", err);
        in->status = TB_EXIT_INPUT;
        return;
    }
    for (size_t i = 0; i < tb_analysis_nmessages(a); i++)
        say(in, msg, "%s", tb_analysis_message(a, i));
    /* A run that cannot be read, lacks a column or a work counter, or has
     * nothing to fit is left out whole, and said so, like a column that
     * cannot be fitted: the others are still compared.  Nothing of such a
     * run is cached: it is tried again next time. */
    size_t ncols = tb_analysis_ncolumns(a);
    if (tb_analysis_status(a) == TB_STATUS_INPUT || ncols == 0) {
        say(in, msg, "excluded: %s", in->path);
        in->failed++;
        tb_analysis_free(a);
        return;
    }
    tb_result *rows = calloc(ncols, sizeof *rows);
    size_t n = 0;
    if (!rows) {
        say(in, msg, "out of memory");
        in->status = TB_EXIT_INPUT;
        tb_analysis_free(a);
        return;
    }
    for (size_t i = 0; i < ncols; i++) {
        const tb_analysed_column *c = tb_analysis_column(a, i);
        if (!c->fit) {
            say(in, msg, "excluded: %s: %s", in->path, s->shared_tau ? "shared-τ fit" : c->column->name);
            in->failed++;
            if (s->shared_tau)
                break;
            continue;
        }
        if (tb_result_from_column(c, &rows[n]) < 0) {
            say(in, msg, "out of memory");
            in->status = TB_EXIT_INPUT;
            continue;
        }
        n++;
    }
    if (cached && tb_analysis_status(a) == TB_STATUS_OK && n == ncols &&
        compare_cache_write(key, rows, n, err, sizeof err) < 0 &&
        atomic_exchange(&cache_write_warned, 1) == 0)
        say(in, msg, "warning: --cache %s: cannot write its entries (%s): fits are not kept",
            s->cache, err);
    file_rows(s, in, msg, rows, n, tb_analysis_run(a, 0));
    free(rows);
    tb_analysis_free(a);
}

static void read_input(const struct compare_settings *s, struct compare_input *in)
{
    FILE *msg = open_memstream(&in->msg, &in->msglen);
    char err[TB_ERRMAX];

    if (!msg) {
        in->status = TB_EXIT_INPUT;
        return;
    }
    if (strcmp(in->path, "-") != 0 && tb_results_is_results_file(in->path)) {
        tb_result *rows = NULL;
        size_t n = 0;
        if (tb_results_read(in->path, &rows, &n, err, sizeof err) < 0) {
            say(in, msg, "%s", err);
            in->status = TB_EXIT_INPUT;
        }
        for (size_t i = 0; i < n; i++) {
            if (rows[i].failed) {   /* tb-fit wrote that it failed */
                say(in, msg, "excluded: %s: %s: its fit failed (%s)", rows[i].file, rows[i].column,
                    rows[i].error);
                in->failed++;
                tb_result_clear(&rows[i]);
                continue;
            }
            char *g = tb_grouping_of(&s->grouping, rows[i].file, NULL, &rows[i], err, sizeof err);
            if (!g) {   /* said by tb-compare, the first few times */
                if (!in->group_error)
                    in->group_error = strdup(err);
                in->status = TB_EXIT_INPUT;
                tb_result_clear(&rows[i]);
            } else if (add_row(in, &rows[i], g) < 0) {
                say(in, msg, "%s", "out of memory");
                in->status = TB_EXIT_INPUT;
                free(g);
                tb_result_clear(&rows[i]);
            }
        }
        free(rows);
    } else {
        fit_run(s, in, msg);
    }
    fclose(msg);
}

struct work {
    const struct compare_settings *s;
    struct compare_input *in;
};

static void work_on_input(void *ctx, size_t i)
{
    struct work *w = ctx;
    read_input(w->s, &w->in[i]);
}

int compare_read_inputs(const struct compare_settings *s, struct compare_input *in, size_t n)
{
    struct work w = {.s = s, .in = in};
    struct tb_work_pool pool;
    if (tb_work_pool_start(&pool, n, s->jobs, work_on_input, &w) < 0)
        return -1;
    struct tb_progress progress;
    tb_progress_start(&progress, "tb-compare", "inputs", n);
    for (size_t i = 0; i < n; i++) {
        tb_work_pool_wait(&pool, i);
        tb_progress_show(&progress, i + 1);
    }
    tb_progress_clear(&progress);
    tb_work_pool_finish(&pool);
    return 0;
}

void compare_row_clear(struct compare_row *row)
{
    tb_result_clear(&row->r);
    free(row->group);
}
