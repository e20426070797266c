/*
 * profile.c -- values over time from a small CSV file (tb_profile_read()):
 * tb-sim's power and input profiles, read with libcsv as every CSV is.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_row_internal.h"
#include "tbfit.h"

struct profile_reader {
    tb_profile *p;
    size_t cap;   /* rows the arrays hold */
};

static int is_number(const char *s)
{
    double x;
    return tb_number_parse(s, strlen(s), &x) == TB_NUMBER_OK;
}

/* The header row: the time's name, then a name per column. */
static void take_header(struct csv_file *f, tb_profile *p)
{
    const struct csv_row *row = &f->row;
    if (row->n < 2) {
        csv_file_fail(f, "no column named after the time");
        return;
    }
    p->time_name = strdup(row->cells[0]);
    p->names = calloc(row->n - 1, sizeof *p->names);
    if (!p->time_name || !p->names) {
        csv_file_fail(f, "out of memory");
        return;
    }
    for (size_t j = 0; j + 1 < row->n; j++)
        if (!(p->names[p->ncols++] = strdup(row->cells[j + 1]))) {
            csv_file_fail(f, "out of memory");
            return;
        }
}

/* Room for one more row. */
static int grow(struct profile_reader *r)
{
    tb_profile *p = r->p;
    if (p->n < r->cap)
        return 0;
    size_t cap = r->cap ? 2 * r->cap : 64;
    double *t = realloc(p->t, cap * sizeof *t);
    if (t)
        p->t = t;
    double *v = t ? realloc(p->v, cap * p->ncols * sizeof *v) : NULL;
    if (!v)
        return -1;
    p->v = v;
    r->cap = cap;
    return 0;
}

static void on_profile_row(struct csv_file *f, void *ctx)
{
    struct profile_reader *r = ctx;
    tb_profile *p = r->p;
    const struct csv_row *row = &f->row;
    char what[160];
    if (p->n == 0 && !p->names && !is_number(csv_row_cell(row, 0))) {
        take_header(f, p);
        return;
    }
    if (p->ncols == 0 && (p->ncols = row->n ? row->n - 1 : 0) == 0) {
        csv_file_fail(f, "a time and a value are wanted (\"time_s,value\")");
        return;
    }
    if (row->n != p->ncols + 1) {
        csv_file_fail(f, "%zu cells, not %zu as the rows above", row->n, p->ncols + 1);
        return;
    }
    double t = csv_file_number(f, 0, "the time", 1);
    if (f->failed)
        return;
    if (p->n && t < p->t[p->n - 1]) {
        csv_file_fail(f, "the time %s s comes before the row above's: rows in time order",
                      row->cells[0]);
        return;
    }
    if (grow(r) < 0) {
        csv_file_fail(f, "out of memory");
        return;
    }
    for (size_t j = 0; j < p->ncols; j++) {
        snprintf(what, sizeof what, "%s's value", p->names ? p->names[j] : "the value");
        double v = csv_file_number(f, (int)j + 1, what, 1);
        if (f->failed)
            return;
        if (!(fabs(v) <= TB_POWER_MAX)) {
            csv_file_fail(f, "%s is beyond ±%g W", row->cells[j + 1], TB_POWER_MAX);
            return;
        }
        p->v[p->n * p->ncols + j] = v;
    }
    p->t[p->n++] = t;
}

int tb_profile_read(const char *path, tb_profile *p, char *err, size_t errlen)
{
    struct profile_reader r = {.p = p};
    struct csv_file f = {.name = path, .err = err, .errlen = errlen, .open_end = 1,
                         .on_row = on_profile_row, .ctx = &r};
    memset(p, 0, sizeof *p);
    if (csv_file_read(&f) < 0) {
        tb_profile_free(p);
        return -1;
    }
    if (p->n == 0) {
        snprintf(err, errlen, "%s: no rows of values", path);
        tb_profile_free(p);
        return -1;
    }
    return 0;
}

void tb_profile_free(tb_profile *p)
{
    for (size_t j = 0; p->names && j < p->ncols; j++)
        free(p->names[j]);
    free(p->names);
    free(p->time_name);
    free(p->t);
    free(p->v);
    memset(p, 0, sizeof *p);
}
