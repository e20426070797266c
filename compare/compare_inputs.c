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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "paths.h"
#include "work_pool.h"

/* FNV-1a of the run's bytes and of the options that change its fit; the
 * leading version changes with what a fit gives (v2: k_spans_zero; v3:
 * HAC intervals by default, the results file's every field). */
static int cache_key(const struct compare_settings *s, const char *path, char *key, size_t size)
{
    uint64_t h = 14695981039346656037ULL;
    unsigned char buf[65536];
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ULL;
    fclose(f);
    char opts[4096];
    int len = snprintf(opts, sizeof opts, "v3|%d|%d|%s|%.17g|%.17g|%.17g|%.17g|%.17g|%d|%d|%d|%lu",
                       s->m.auto_order ? 0 : s->m.fit.order, s->m.auto_order,
                       s->m.ambient ? s->m.ambient : "", s->m.from, s->m.to, s->m.fit.tau_min,
                       s->m.fit.tau_max, s->m.fit.level, s->shared_tau, (int)s->m.fit.ci,
                       s->m.fit.bootstrap,
                       s->m.fit.seed);
    for (size_t k = 0; k < s->ncolumns && len > 0 && (size_t)len < sizeof opts; k++)
        len += snprintf(opts + len, sizeof opts - (size_t)len, "|c=%s", s->columns[k]);
    for (size_t k = 0; k < s->nwork && len > 0 && (size_t)len < sizeof opts; k++)
        len += snprintf(opts + len, sizeof opts - (size_t)len, "|w=%s", s->work[k]);
    for (const char *p = opts; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    snprintf(key, size, "%s/%016llx.csv", s->cache, (unsigned long long)h);
    return 0;
}

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

/* Fit the run at IN->path (or take its fit from the cache). */
static void fit_run(const struct compare_settings *s, struct compare_input *in, FILE *msg)
{
    char key[4096], err[TB_ERRMAX];
    int cached = s->cache && cache_key(s, in->path, key, sizeof key) == 0;

    if (cached && access(key, R_OK) == 0) {
        tb_result *rows = NULL;
        size_t n = 0;
        if (tb_results_read(key, &rows, &n, err, sizeof err) == 0) {
            char *group = tb_grouping_of(&s->grouping, in->path, NULL, err, sizeof err);
            for (size_t i = 0; i < n; i++) {
                char *g = group ? strdup(group) : NULL;
                free(rows[i].file);
                rows[i].file = strdup(in->path);
                if (!g || add_row(in, &rows[i], g) < 0) {
                    free(g);
                    say(in, msg, "%s", group ? "out of memory" : err);
                    in->status = TB_EXIT_INPUT;
                    for (size_t k = i; k < n; k++)
                        tb_result_clear(&rows[k]);
                    free(rows);
                    free(group);
                    return;
                }
            }
            free(rows);
            free(group);
            return;
        }
        say(in, msg, "warning: cache %s: %s: fitting again", key, err);
        tb_results_free(rows, n);
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
     * cannot be fitted: the others are still compared. */
    size_t ncols = tb_analysis_ncolumns(a);
    if (tb_analysis_status(a) == TB_STATUS_INPUT || ncols == 0) {
        say(in, msg, "excluded: %s", in->path);
        in->failed++;
        tb_analysis_free(a);
        return;
    }
    char *group = tb_grouping_of(&s->grouping, in->path, tb_analysis_run(a, 0), err, sizeof err);
    if (!group) {
        say(in, msg, "%s", err);
        in->status = TB_EXIT_INPUT;
        tb_analysis_free(a);
        return;
    }
    /* A failed fit is not cached: it is tried again next time. */
    FILE *cache = NULL;
    char tmp[4200];
    if (cached && tb_analysis_status(a) == TB_STATUS_OK) {
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", key, (long)getpid());
        if ((cache = fopen(tmp, "w")))
            tb_results_write_header(cache, TB_FIT_MAX_ORDER);
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
        tb_result r;
        char *g = strdup(group);
        if (!g || tb_result_from_column(c, &r) < 0) {
            free(g);
            say(in, msg, "out of memory");
            in->status = TB_EXIT_INPUT;
            continue;
        }
        if (cache)
            tb_results_write(cache, &r, TB_FIT_MAX_ORDER);
        if (add_row(in, &r, g) < 0) {
            tb_result_clear(&r);
            free(g);
            say(in, msg, "out of memory");
            in->status = TB_EXIT_INPUT;
        }
    }
    if (cache) {
        if (fclose(cache) == 0)
            rename(tmp, key);   /* whole or not at all: no half-written entry */
        else
            remove(tmp);
    }
    free(group);
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
            char *g = tb_grouping_of(&s->grouping, rows[i].file, NULL, err, sizeof err);
            if (!g || add_row(in, &rows[i], g) < 0) {
                say(in, msg, "%s", g ? "out of memory" : err);
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
    tb_work_pool_finish(&pool);
    return 0;
}

void compare_row_clear(struct compare_row *row)
{
    tb_result_clear(&row->r);
    free(row->group);
}
