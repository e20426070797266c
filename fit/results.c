/*
 * results.c -- read tb-fit's CSV results back, for tb-plot compare and
 * the batch comparison, with libcsv like the run reader.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <csv.h>
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsl_errors.h"
#include "tbfit.h"

enum field {
    F_FILE, F_COLUMN, F_ORDER, F_POINTS, F_RMSE, F_TINF, F_TINF_LO, F_TINF_HI,
    F_OPS, F_FLAGS, F_TAU1, F_TAU1_LO, F_TAU1_HI, F_COUNT = F_TAU1 + 3 * TB_FIT_MAX_ORDER
};

struct reader {
    const char *name;
    int where[F_COUNT];       /* column of each field, -1 if absent */
    size_t line, field;
    int header_done, failed;
    char *err;
    size_t errlen;
    char **cells;             /* the current row */
    size_t ncells, cap;
    tb_result **rows;
    size_t *n;
};

static const char *field_name(int f, char *buf, size_t size)
{
    static const char *const names[] = {
        "file", "column", "order", "points", "rmse", "T_inf", "T_inf_lo", "T_inf_hi",
        "ops_per_s", "flags",
    };
    if (f < F_TAU1)
        return names[f];
    int term = (f - F_TAU1) / 3 + 1;
    static const char *const suffix[] = {"", "_lo", "_hi"};
    snprintf(buf, size, "tau%d%s", term, suffix[(f - F_TAU1) % 3]);
    return buf;
}

static void on_cell(void *s, size_t len, void *data)
{
    struct reader *r = data;
    (void)len;
    if (r->failed)
        return;
    if (r->ncells == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        char **nc = realloc(r->cells, cap * sizeof *nc);
        if (!nc) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s: out of memory", r->name);
            return;
        }
        r->cells = nc;
        r->cap = cap;
    }
    r->cells[r->ncells++] = strdup(s ? s : "");
}

static double number(struct reader *r, int f, int required)
{
    int c = r->where[f];
    char buf[32];
    if (c < 0 || (size_t)c >= r->ncells || !r->cells[c][0]) {
        if (required && !r->failed) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s:%zu: %s is empty", r->name, r->line,
                     field_name(f, buf, sizeof buf));
        }
        return NAN;
    }
    double x;
    if (tb_number_parse(r->cells[c], strlen(r->cells[c]), &x) != TB_NUMBER_OK) {
        if (!r->failed) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s:%zu: %s: \"%.40s\" is not a number", r->name,
                     r->line, field_name(f, buf, sizeof buf), r->cells[c]);
        }
        return NAN;
    }
    return x;
}

static char *text(struct reader *r, int f)
{
    int c = r->where[f];
    return strdup(c >= 0 && (size_t)c < r->ncells ? r->cells[c] : "");
}

static void on_row(int c, void *data)
{
    struct reader *r = data;
    (void)c;
    if (r->failed)
        goto out;
    if (!r->header_done) {
        char buf[32];
        for (int f = 0; f < F_COUNT; f++) {
            r->where[f] = -1;
            for (size_t i = 0; i < r->ncells; i++)
                if (strcmp(r->cells[i], field_name(f, buf, sizeof buf)) == 0)
                    r->where[f] = (int)i;
        }
        for (int f = F_FILE; f <= F_TINF_HI; f++) {
            if (r->where[f] < 0 && f != F_ORDER && f != F_POINTS && f != F_RMSE) {
                r->failed = 1;
                snprintf(r->err, r->errlen, "%s:%zu: not a tb-fit CSV result: no %s field",
                         r->name, r->line, field_name(f, buf, sizeof buf));
                goto out;
            }
        }
        r->header_done = 1;
        goto out;
    }
    tb_result row = {0};
    row.t_inf = (tb_estimate){number(r, F_TINF, 1), number(r, F_TINF_LO, 0), number(r, F_TINF_HI, 0)};
    double order = number(r, F_ORDER, 0), pts = number(r, F_POINTS, 0);
    row.order = order >= 0 && order <= TB_FIT_MAX_ORDER ? (int)order : 0;
    row.points = pts >= 0 && pts < 1e15 ? (size_t)pts : 0;
    row.rmse = number(r, F_RMSE, 0);
    row.ops_per_s = number(r, F_OPS, 0);
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
        row.tau[j] = (tb_estimate){number(r, F_TAU1 + 3 * j, 0), number(r, F_TAU1 + 3 * j + 1, 0),
                                   number(r, F_TAU1 + 3 * j + 2, 0)};
    if (r->failed)
        goto out;
    row.file = text(r, F_FILE);
    row.column = text(r, F_COLUMN);
    row.flags = text(r, F_FLAGS);
    tb_result *nr = realloc(*r->rows, (*r->n + 1) * sizeof *nr);
    if (!nr || !row.file || !row.column || !row.flags) {
        free(row.file);
        free(row.column);
        free(row.flags);
        if (nr)
            *r->rows = nr;
        r->failed = 1;
        snprintf(r->err, r->errlen, "%s: out of memory", r->name);
        goto out;
    }
    *r->rows = nr;
    nr[(*r->n)++] = row;
out:
    for (size_t i = 0; i < r->ncells; i++)
        free(r->cells[i]);
    r->ncells = 0;
}

int tb_results_read(const char *path, tb_result **rows, size_t *n, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return tb_results_read_stream(stdin, "<stdin>", rows, n, err, errlen);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = tb_results_read_stream(f, path, rows, n, err, errlen);
    fclose(f);
    return rc;
}

int tb_results_read_stream(FILE *f, const char *name, tb_result **rows, size_t *n,
                           char *err, size_t errlen)
{
    struct reader r = {.name = name, .err = err, .errlen = errlen, .rows = rows, .n = n};
    struct csv_parser p;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;

    csv_init(&p, CSV_STRICT | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    while (!r.failed && (len = getline(&line, &size, f)) >= 0) {
        r.line++;
        if (memchr(line, '\0', (size_t)len)) {
            r.failed = 1;
            snprintf(err, errlen, "%s:%zu: NUL byte (binary data?)", r.name, r.line);
            break;
        }
        if (csv_parse(&p, line, (size_t)len, on_cell, on_row, &r) != (size_t)len && !r.failed) {
            r.failed = 1;
            snprintf(err, errlen, "%s:%zu: malformed CSV", r.name, r.line);
        }
    }
    if (!r.failed)
        csv_fini(&p, on_cell, on_row, &r);
    if (!r.failed && !r.header_done) {
        r.failed = 1;
        snprintf(err, errlen, "%s:1: empty file", r.name);
    }
    for (size_t i = 0; i < r.ncells; i++)
        free(r.cells[i]);
    free(r.cells);
    csv_free(&p);
    free(line);
    return r.failed ? -1 : 0;
}

void tb_results_free(tb_result *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].file);
        free(rows[i].column);
        free(rows[i].flags);
    }
    free(rows);
}

int tb_results_is_results_file(const char *path)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) && strncmp(buf, "file,column,", 12) == 0;
    fclose(f);
    return ok;
}

double tb_mean_ci(const double *x, size_t n, double level, double *half)
{
    *half = NAN;
    if (n == 0)
        return NAN;
    double mean = gsl_stats_mean(x, 1, n);
    fit_gsl_errors_off();
    if (n >= 2)
        *half = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(n - 1)) *
                gsl_stats_sd_m(x, 1, n, mean) / sqrt((double)n);
    return mean;
}
