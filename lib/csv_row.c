/*
 * csv_row.c -- the cells of one CSV row, and the small CSV files read
 * row by row (see csv_row_internal.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "csv_row_internal.h"
#include "tbfit.h"

int csv_row_add(struct csv_row *row, const char *s)
{
    if (row->n == row->cap) {
        size_t cap = row->cap ? 2 * row->cap : 32;
        char **nc = realloc(row->cells, cap * sizeof *nc);
        if (!nc)
            return -1;
        row->cells = nc;
        row->cap = cap;
    }
    char *cell = strdup(s ? s : "");
    if (!cell)
        return -1;
    row->cells[row->n++] = cell;
    return 0;
}

const char *csv_row_cell(const struct csv_row *row, int i)
{
    return i >= 0 && (size_t)i < row->n ? row->cells[i] : "";
}

void csv_row_reset(struct csv_row *row)
{
    for (size_t i = 0; i < row->n; i++)
        free(row->cells[i]);
    row->n = 0;
}

void csv_row_free(struct csv_row *row)
{
    csv_row_reset(row);
    free(row->cells);
    row->cells = NULL;
    row->cap = 0;
}

void csv_write_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
}

void csv_write_estimate(FILE *f, const double *value, const double *lo, const double *hi)
{
    csv_write_number(f, *value);
    fputc(',', f);
    csv_write_number(f, *lo);
    fputc(',', f);
    csv_write_number(f, *hi);
}

void csv_row_fields(const struct csv_row *row, const char *const *names, int n, int *where)
{
    for (int f = 0; f < n; f++) {
        where[f] = -1;
        for (size_t i = 0; i < row->n; i++)
            if (strcmp(row->cells[i], names[f]) == 0)
                where[f] = (int)i;
    }
}

void csv_file_fail(struct csv_file *f, const char *fmt, ...)
{
    if (f->failed)
        return;
    f->failed = 1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(f->err, f->errlen, "%s:%zu: %s", f->name, f->line, msg);
}

int csv_file_header(struct csv_file *f, const char *const *names, int n, int *where,
                    const int *required, size_t nreq, const char *kind)
{
    csv_row_fields(&f->row, names, n, where);
    for (size_t k = 0; k < nreq; k++)
        if (where[required[k]] < 0) {
            csv_file_fail(f, "not a %s file: no %s field", kind, names[required[k]]);
            return -1;
        }
    return 0;
}

int csv_file_known_fields(struct csv_file *f, const char *const *names, int n)
{
    for (size_t c = 0; c < f->row.n; c++) {
        int known = 0;
        for (int k = 0; k < n && !known; k++)
            known = strcmp(f->row.cells[c], names[k]) == 0;
        if (!known) {
            csv_file_fail(f, "unknown field '%.60s'", f->row.cells[c]);
            return -1;
        }
    }
    return 0;
}

int csv_file_in_range(struct csv_file *f, double x, double lo, double hi, const char *name,
                      const char *unit)
{
    if (isnan(x) || (x >= lo && x <= hi))
        return 0;
    csv_file_fail(f, "%s %g is not a possible %s (%g to %g)", name, x, unit, lo, hi);
    return -1;
}

double csv_file_number(struct csv_file *f, int where, const char *name, int required)
{
    const char *s = csv_row_cell(&f->row, where);
    double x;
    if (where < 0 || (!*s && !required))
        return NAN;
    if (tb_number_parse(s, strlen(s), &x) != TB_NUMBER_OK || !isfinite(x)) {
        csv_file_fail(f, "%s is not a number", name);
        return NAN;
    }
    return x;
}

static void on_cell(void *s, size_t len, void *data)
{
    struct csv_file *f = data;
    (void)len;
    if (!f->failed && csv_row_add(&f->row, s) < 0)
        csv_file_fail(f, "out of memory");
}

static void on_row(int c, void *data)
{
    struct csv_file *f = data;
    (void)c;
    if (!f->failed)
        f->on_row(f, f->ctx);
    csv_row_reset(&f->row);
}

int csv_file_read(struct csv_file *f)
{
    struct csv_parser p;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    FILE *in = fopen(f->name, "r");

    if (!in) {
        snprintf(f->err, f->errlen, "%s: cannot open: %s", f->name, strerror(errno));
        return -1;
    }
    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    while (!f->failed && (len = getline(&line, &size, in)) >= 0) {
        f->line++;
        if (line[0] == '#')
            continue;
        if (line[len - 1] != '\n' && !f->open_end) {
            csv_file_fail(f, "the last row is cut short (no end of line)");
            break;
        }
        if (memchr(line, '\0', (size_t)len) ||
            (csv_parse(&p, line, (size_t)len, on_cell, on_row, f) != (size_t)len && !f->failed))
            csv_file_fail(f, "malformed CSV");
    }
    if (!f->failed && csv_fini(&p, on_cell, on_row, f) != 0)
        csv_file_fail(f, "malformed CSV (a quote is not closed)");   /* its cell would hold the rest */
    csv_row_free(&f->row);
    csv_free(&p);
    free(line);
    fclose(in);
    return f->failed ? -1 : 0;
}
