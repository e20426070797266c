/*
 * fit_job.c -- from input paths to fitted columns, as tb-fit and
 * tb-compare do it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fit_job.h"
#include "report.h"

void tb_say(FILE *msg, const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(msg, "%s: ", prog);
    vfprintf(msg, fmt, ap);
    fputc('\n', msg);
    va_end(ap);
}

/* --- inputs ---------------------------------------------------------------- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_path(struct tb_paths *l, const char *p)
{
    char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!nv || !(nv[l->n] = strdup(p))) {
        if (nv)
            l->v = nv;
        return -1;
    }
    l->v = nv;
    l->n++;
    return 0;
}

/* The *.csv files below DIR, sorted. */
static int add_directory(struct tb_paths *l, const char *dir, const char *prog)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct tb_paths here = {0};
    int rc = 0;

    if (!d) {
        fprintf(stderr, "%s: %s: cannot read: %s\n", prog, dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d))) {
        char *p;
        struct stat st;
        if (e->d_name[0] == '.' || asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            continue;
        if (stat(p, &st) == 0 && (S_ISDIR(st.st_mode) || fnmatch("*.csv", e->d_name, 0) == 0))
            rc |= push_path(&here, p);
        free(p);
    }
    closedir(d);
    qsort(here.v, here.n, sizeof *here.v, compare_strings);
    for (size_t i = 0; i < here.n; i++) {
        struct stat st;
        if (stat(here.v[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc |= add_directory(l, here.v[i], prog);
        else
            rc |= push_path(l, here.v[i]);
    }
    tb_paths_free(&here);
    return rc;
}

int tb_paths_add(struct tb_paths *l, const char *arg, const char *prog)
{
    struct stat st;
    if (strcmp(arg, "-") != 0 && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *dir = strdup(arg);
        if (!dir)
            return -1;
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            dir[--len] = '\0';
        int rc = add_directory(l, dir, prog);
        free(dir);
        return rc;
    }
    return push_path(l, arg);
}

void tb_paths_free(struct tb_paths *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* --- preparing columns --------------------------------------------------------- */

struct note_ctx {
    FILE *msg;
    const char *prog, *file;
};

static void note_skipped(void *ctx, const tb_column *c, const char *why)
{
    struct note_ctx *x = ctx;
    tb_say(x->msg, x->prog, "note: %s: %s %s: not fitted", x->file, c->name, why);
}

/* The columns to fit in RUN into IDX; how many (0 with a message when none
 * or on error: *STATUS says which). */
static size_t choose_columns(const struct tb_job_request *req, const tb_run *run,
                             ssize_t ambient, size_t *idx, FILE *msg, int *status)
{
    const char *file = tb_run_source(run);
    size_t n = 0;
    char err[TB_ERRMAX];

    if (req->ncolumns > 0) {
        ssize_t m = tb_run_select_all(run, req->columns, req->ncolumns, idx, err, sizeof err);
        if (m < 0) {
            tb_say(msg, req->prog, "%s", err);
            *status = TB_EXIT_INPUT;
            return 0;
        }
        for (size_t k = 0; k < (size_t)m; k++) {
            const tb_column *c = tb_run_column(run, idx[k]);
            if (idx[k] == 0)
                continue;   /* time is the x axis, not a series */
            if (strcmp(c->unit, "°C") != 0)
                tb_say(msg, req->prog, "warning: %s: column %s is in %s, not °C: fitted all the same",
                       file, c->name, *c->unit ? c->unit : "no unit");
            idx[n++] = idx[k];
        }
        if (n == 0)
            tb_say(msg, req->prog, "%s: no column to fit: the time column cannot be fitted", file);
    } else {
        struct note_ctx x = {msg, req->prog, file};
        n = tb_default_columns(run, ambient, idx, note_skipped, &x);
        if (n == 0)
            tb_say(msg, req->prog, "%s: no temperature (°C) column to fit; name one with -c", file);
    }
    if (n == 0 && *status == TB_EXIT_OK)
        *status = TB_EXIT_INPUT;
    return n;
}

int tb_is_work_counter(const char *name)
{
    return fnmatch("*_work_done", name, 0) == 0;
}

/* Sum of the work rates of the --work columns (or *_work_done); NaN
 * when there is none. */
static double work_rate(const struct tb_job_request *req, const tb_run *run, FILE *msg,
                        int *status)
{
    size_t ncols = tb_run_ncolumns(run);
    size_t *idx = malloc(ncols * sizeof *idx);
    char err[TB_ERRMAX];
    double sum = 0;
    int any = 0;
    size_t n = 0;

    if (!idx)
        return NAN;
    if (req->nwork == 0) {
        for (size_t i = 1; i < ncols; i++)
            if (tb_is_work_counter(tb_run_column(run, i)->name))
                idx[n++] = i;
    } else {
        ssize_t m = tb_run_select_all(run, req->work, req->nwork, idx, err, sizeof err);
        if (m < 0) {
            tb_say(msg, req->prog, "--work: %s", err);
            *status = TB_EXIT_INPUT;
        }
        n = m > 0 ? (size_t)m : 0;
    }
    for (size_t k = 0; k < n; k++) {
        double r = idx[k] ? tb_work_rate(tb_run_column(run, idx[k]), req->m->from, req->m->to) : NAN;
        if (isfinite(r)) {
            sum += r;
            any = 1;
        }
    }
    free(idx);
    return any ? sum : NAN;
}

int tb_job_prepare(const struct tb_job_request *req, const char *const *paths,
                   size_t npaths, FILE *msg, struct tb_job_data *data)
{
    const struct tb_model_settings *m = req->m;
    tb_read_options ropt = tb_read_default_options();
    char err[TB_ERRMAX];
    int status = TB_EXIT_OK;

    memset(data, 0, sizeof *data);
    if (!(data->runs = calloc(npaths ? npaths : 1, sizeof *data->runs)))
        return TB_EXIT_INPUT;
    data->nruns = npaths;
    for (size_t p = 0; p < npaths; p++) {
        if (!(data->runs[p] = tb_run_read(paths[p], &ropt, err, sizeof err))) {
            tb_say(msg, req->prog, "%s", err);
            status = TB_EXIT_INPUT;
            continue;
        }
        const tb_run *run = data->runs[p];
        for (size_t w = 0; w < tb_run_nwarnings(run); w++)
            tb_say(msg, req->prog, "warning: %s", tb_run_warning(run, w));

        ssize_t ambient = -1;
        if (m->ambient) {
            size_t a;
            if (tb_run_select(run, m->ambient, &a, 1, err, sizeof err) < 0) {
                tb_say(msg, req->prog, "--ambient: %s", err);
                status = TB_EXIT_INPUT;
                continue;
            }
            ambient = (ssize_t)a;
        }
        size_t *idx = malloc(tb_run_ncolumns(run) * sizeof *idx);
        size_t ncol = idx ? choose_columns(req, run, ambient, idx, msg, &status) : 0;
        double ops = work_rate(req, run, msg, &status);
        double since;
        const char *by = NULL;
        if (tb_throttle_check(run, m->from, m->to, &since, &by) != 1)
            since = NAN;
        struct tb_prepared *np = realloc(data->p, (data->n + ncol + 1) * sizeof *np);
        if (!np) {
            free(idx);
            status = TB_EXIT_INPUT;
            break;
        }
        data->p = np;
        const tb_column *amb = ambient >= 0 ? tb_run_column(run, (size_t)ambient) : NULL;
        for (size_t k = 0; k < ncol; k++) {
            struct tb_prepared *f = &data->p[data->n];
            *f = (struct tb_prepared){
                .file = paths[p], .run = run, .column = idx[k], .ops = ops,
                .throttled_since = since, .throttled_by = by,
            };
            if (tb_series_extract(tb_run_column(run, idx[k]), m->from, m->to, amb,
                                  &f->t, &f->y, &f->n, err, sizeof err) < 0) {
                tb_say(msg, req->prog, "%s: %s", paths[p], err);
                status = TB_EXIT_INPUT;
                continue;
            }
            data->n++;
        }
        free(idx);
    }
    return status;
}

void tb_job_free(struct tb_job_data *data)
{
    for (size_t i = 0; i < data->n; i++) {
        free(data->p[i].t);
        free(data->p[i].y);
    }
    free(data->p);
    for (size_t r = 0; r < data->nruns; r++)
        tb_run_free(data->runs[r]);
    free(data->runs);
    memset(data, 0, sizeof *data);
}

int tb_job_fit(const struct tb_job_request *req, const struct tb_prepared *p, size_t np,
               tb_fit *fit, char *err, size_t errlen)
{
    tb_series *series = malloc(np * sizeof *series);
    if (!series) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < np; i++)
        series[i] = (tb_series){p[i].t, p[i].y, p[i].n};
    int rc = req->m->auto_order ? tb_fit_series_auto(series, np, &req->m->fit, fit, err, errlen)
                                : tb_fit_series_run(series, np, &req->m->fit, fit, err, errlen);
    free(series);
    for (size_t i = 0; rc == 0 && i < np; i++)
        if (isfinite(p[i].throttled_since))
            fit->flags |= TB_FIT_THROTTLED;
    return rc;
}

/* A fit as a result row, as tb-fit --format csv would give it. */
int tb_job_result(const struct tb_prepared *p, const tb_fit *fit, size_t series, tb_result *r)
{
    char flags[256];
    const tb_fit_series *fs = &fit->series[series];
    memset(r, 0, sizeof *r);
    r->file = strdup(p->file);
    r->column = strdup(tb_run_column(p->run, p->column)->name);
    r->flags = strdup(tb_report_flags(fit->flags, flags, sizeof flags));
    r->order = fit->order;
    r->points = fs->n;
    r->t_inf = fs->t_inf;
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
        r->tau[j] = j < fit->order ? fit->tau[j] : (tb_estimate){NAN, NAN, NAN};
    r->rmse = fit->rmse;
    r->ops_per_s = p->ops;
    return r->file && r->column && r->flags ? 0 : -1;
}
