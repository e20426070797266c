/*
 * ident_run.c -- a run's rows as the identification takes them: the
 * input, sensor and ambient columns brought onto the rows where any of
 * them was sampled (thermobench rows are sparse).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

void tb_ident_run_clear(tb_ident_run *r)
{
    if (!r)
        return;
    free((void *)r->t);
    if (r->u)
        free((void *)r->u[0]);
    free((void *)r->u);
    if (r->y)
        free((void *)r->y[0]);
    free((void *)r->y);
    free((void *)r->ambient);
    memset(r, 0, sizeof *r);
}

/* The one column SPEC names in RUN, or NULL with a message. */
static const tb_column *one_column(const tb_run *run, const char *spec, const char *role,
                                   char *err, size_t errlen)
{
    size_t idx[2];
    ssize_t n = tb_run_select(run, spec, idx, 2, err, errlen);
    if (n < 0)
        return NULL;
    if (n > 1 || idx[0] == 0) {
        snprintf(err, errlen, "%s: %s %s names %s; name one column", tb_run_source(run), role,
                 spec, n > 1 ? "several columns" : "the time column");
        return NULL;
    }
    return tb_run_column(run, idx[0]);
}

/* Column C's value at each of the N row times T (NaN where it has none). */
static void onto_rows(const tb_column *c, const double *t, size_t n, double *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
    for (size_t p = 0; p < c->n; p++) {
        while (k < n && t[k] < c->t[p])
            k++;
        if (k == n)
            break;
        if (t[k] == c->t[p])
            out[k++] = c->v[p];
    }
}

/* The ROWS rows at times T within FROM..TO where some of the first NC
 * columns of ALL (each ROWS long) has a value, marked in KEEP; how many. */
static size_t keep_rows(const double *t, size_t rows, const double *all, size_t nc, double from,
                        double to, char *keep)
{
    size_t n = 0;
    for (size_t k = 0; k < rows; k++) {
        if (t[k] < from || t[k] > to)
            continue;
        for (size_t c = 0; c < nc; c++)
            if (!isnan(all[c * rows + k]))
                keep[k] = 1;
        n += keep[k];
    }
    return n;
}

/* An input's value at each of its N rows (V, NaN where it has no
 * sample) for the interval to the next row, over the whole run before
 * the window is cut (the window's first rows have the value set before
 * it): a level holds until its next sample; a mean over the interval
 * before its row (AVERAGED) covers the rows since the last. */
static void hold_input(double *v, size_t n, int averaged)
{
    double carried = NAN;
    if (averaged) {
        for (size_t k = n; k-- > 0;) {
            double here = v[k];
            v[k] = carried;   /* the first value after row k */
            if (!isnan(here))
                carried = here;
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            if (isnan(v[k]))
                v[k] = carried;
            carried = v[k];
        }
    }
}

/* The ambient A (some values) at each of the N times T: linear between
 * its samples (a row every few seconds), its nearest value outside them. */
static void ambient_at(const tb_column *a, const double *t, size_t n, double *amb)
{
    size_t p = 0;
    for (size_t k = 0; k < n; k++) {
        while (p + 1 < a->n && a->t[p + 1] <= t[k])
            p++;
        if (t[k] <= a->t[0] || p + 1 >= a->n)
            amb[k] = t[k] <= a->t[0] ? a->v[0] : a->v[a->n - 1];
        else
            amb[k] = a->v[p] + (a->v[p + 1] - a->v[p]) * (t[k] - a->t[p]) /
                                   (a->t[p + 1] - a->t[p]);
    }
}

int tb_ident_run_extract(const tb_run *run, const char *const *inputs, size_t nu,
                         const char *const *sensors, size_t ns, const char *ambient,
                         unsigned averaged, double from, double to, tb_ident_run *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->name = tb_run_source(run);
    size_t nc = nu + ns + (ambient ? 1 : 0);
    const tb_column **cols = calloc(nc, sizeof *cols);
    const tb_column *time = tb_run_column(run, 0);
    size_t rows = time ? time->n : 0;
    double *all = NULL, *t = NULL;
    char *keep = NULL;
    int rc = -1;
    if (!cols) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t c = 0; c < nc; c++)
        if (!(cols[c] = one_column(run, c < nu ? inputs[c] : c < nu + ns ? sensors[c - nu] : ambient,
                                   c < nu ? "input" : c < nu + ns ? "sensor" : "ambient", err,
                                   errlen)))
            goto out;
    /* every column onto the run's rows, then the rows kept */
    all = malloc(nc * (rows ? rows : 1) * sizeof *all);
    keep = calloc(rows ? rows : 1, 1);
    t = malloc((rows ? rows : 1) * sizeof *t);
    if (!all || !keep || !t) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t c = 0; c < nc; c++)
        onto_rows(cols[c], time->t, rows, all + c * rows);
    size_t n = keep_rows(time->t, rows, all, nu + ns, from, to, keep);
    for (size_t c = 0; c < nu; c++)
        hold_input(all + c * rows, rows, averaged & (1u << c));
    if (n < 3) {
        snprintf(err, errlen, "%s: %zu rows hold the columns asked in the window", out->name,
                 n);
        goto out;
    }
    double *u = malloc(nu * n * sizeof *u), *y = malloc(ns * n * sizeof *y);
    const double **up = malloc(nu * sizeof *up), **yp = malloc(ns * sizeof *yp);
    double *amb = ambient ? malloc(n * sizeof *amb) : NULL;
    out->u = up;
    out->y = yp;
    out->ambient = amb;
    if (up)
        up[0] = u;
    if (yp)
        yp[0] = y;
    if (!u || !y || !up || !yp || (ambient && !amb)) {
        if (!up)
            free(u);
        if (!yp)
            free(y);
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    size_t i = 0;
    for (size_t k = 0; k < rows; k++) {
        if (!keep[k])
            continue;
        t[i] = time->t[k];
        for (size_t c = 0; c < nu; c++)
            u[c * n + i] = all[c * rows + k];
        for (size_t c = 0; c < ns; c++)
            y[c * n + i] = all[(nu + c) * rows + k];
        i++;
    }
    for (size_t c = 0; c < nu; c++)
        up[c] = u + c * n;
    for (size_t c = 0; c < ns; c++)
        yp[c] = y + c * n;
    if (ambient) {
        if (cols[nu + ns]->n == 0) {
            snprintf(err, errlen, "%s: ambient column %s has no values", out->name, ambient);
            goto out;
        }
        ambient_at(cols[nu + ns], t, n, amb);
    }
    out->t = t;
    t = NULL;
    out->n = n;
    rc = 0;
out:
    free(cols);
    free(all);
    free(keep);
    free(t);
    if (rc < 0) {
        const char *name = out->name;
        tb_ident_run_clear(out);
        out->name = name;
    }
    return rc;
}
