/*
 * results.c -- the results file (tb-fit --format csv, tb-compare's cache):
 * its one list of fields, its writer and its reader (libcsv, as the run
 * reader), side by side so that they cannot drift apart.
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

#include "csv_row_internal.h"
#include "gsl_errors.h"
#include "tbfit.h"

/* The fields of a results file, in the order they are written; the
 * writer, the reader and tb_results_is_results_file() all go by this. */
enum field {
    F_FILE, F_COLUMN, F_ORDER, F_POINTS, F_DURATION, F_RSS, F_RMSE,
    F_TINF, F_TINF_LO, F_TINF_HI,
    F_TERMS,                                   /* kJ, kJ_lo, kJ_hi, tauJ, ... */
    F_SETTLE = F_TERMS + 6 * TB_FIT_MAX_ORDER, F_OPS, F_FLAGS, F_COUNT
};

static const char *field_name(int f, char *buf, size_t size)
{
    static const char *const fixed[] = {
        "file", "column", "order", "points", "duration_s", "rss", "rmse",
        "T_inf", "T_inf_lo", "T_inf_hi",
    };
    static const char *const tail[] = {"settle_s", "ops_per_s", "flags"};
    static const char *const suffix[] = {"", "_lo", "_hi"};
    if (f < F_TERMS)
        return fixed[f];
    if (f >= F_SETTLE)
        return tail[f - F_SETTLE];
    int term = (f - F_TERMS) / 6, which = (f - F_TERMS) % 6;
    snprintf(buf, size, "%s%d%s", which < 3 ? "k" : "tau", term + 1, suffix[which % 3]);
    return buf;
}

/* The fields a results file cannot do without. */
static int field_required(int f)
{
    return f == F_FILE || f == F_COLUMN || f == F_TINF || f == F_TINF_LO || f == F_TINF_HI;
}

/* Whether field F is written for results of up to MAX_ORDER terms. */
static int field_written(int f, int max_order)
{
    return f < F_TERMS || f >= F_SETTLE || (f - F_TERMS) / 6 < max_order;
}

/* The number a numeric field F of R is kept in; NULL for the others. */
static double *field_number(tb_result *r, int f)
{
    switch (f) {
    case F_DURATION: return &r->duration;
    case F_RSS: return &r->rss;
    case F_RMSE: return &r->rmse;
    case F_TINF: return &r->t_inf.value;
    case F_TINF_LO: return &r->t_inf.lo;
    case F_TINF_HI: return &r->t_inf.hi;
    case F_SETTLE: return &r->settle;
    case F_OPS: return &r->ops_per_s;
    default: break;
    }
    if (f >= F_TERMS && f < F_SETTLE) {
        int term = (f - F_TERMS) / 6, which = (f - F_TERMS) % 6;
        tb_estimate *e = which < 3 ? &r->k[term] : &r->tau[term];
        return which % 3 == 0 ? &e->value : which % 3 == 1 ? &e->lo : &e->hi;
    }
    return NULL;
}

/* --- writing ------------------------------------------------------------------ */

const char *tb_fit_flags_text(unsigned flags, char *buf, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return buf;
    buf[0] = '\0';
    for (unsigned bit = 1; bit && bit <= TB_FIT_FLAG_LAST; bit <<= 1) {
        if (!(flags & bit))
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? ";" : "",
                         tb_fit_flag_name(bit));
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

void tb_result_clear(tb_result *r)
{
    if (!r)
        return;
    free(r->file);
    free(r->column);
    free(r->flags);
    r->file = r->column = r->flags = NULL;
}

int tb_result_from_column(const tb_analysed_column *c, tb_result *r)
{
    const tb_fit *fit = c->fit;
    char flags[256];

    memset(r, 0, sizeof *r);
    if (!fit)
        return -1;
    const tb_fit_series *s = &fit->series[c->series];
    r->file = strdup(c->source);
    /* a part of a column (its cooling) is a row of its own */
    if (c->part) {
        if (asprintf(&r->column, "%s (%s)", c->column->name, c->part) < 0)
            r->column = NULL;
    } else {
        r->column = strdup(c->column->name);
    }
    r->flags = strdup(tb_fit_flags_text(fit->flags, flags, sizeof flags));
    r->order = fit->order;
    r->points = s->n;
    r->duration = s->duration;
    r->rss = fit->rss;
    r->rmse = fit->rmse;
    r->t_inf = s->t_inf;
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++) {
        r->k[j] = j < fit->order ? s->k[j] : (tb_estimate){NAN, NAN, NAN};
        r->tau[j] = j < fit->order ? fit->tau[j] : (tb_estimate){NAN, NAN, NAN};
    }
    r->settle = c->settle;
    r->ops_per_s = c->ops_per_s;
    if (!r->file || !r->column || !r->flags) {
        tb_result_clear(r);
        return -1;
    }
    return 0;
}

void tb_csv_write_string(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int tb_results_write_header(FILE *f, int max_order)
{
    char buf[32];
    int first = 1;
    for (int fi = 0; fi < F_COUNT; fi++) {
        if (!field_written(fi, max_order))
            continue;
        fprintf(f, "%s%s", first ? "" : ",", field_name(fi, buf, sizeof buf));
        first = 0;
    }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

int tb_results_write(FILE *f, const tb_result *r_in, int max_order)
{
    tb_result r = *r_in;   /* field_number() gives pointers into a result */
    for (int fi = 0; fi < F_COUNT; fi++) {
        if (!field_written(fi, max_order))
            continue;
        if (fi > 0)
            fputc(',', f);
        double *x = field_number(&r, fi);
        if (fi == F_FILE)
            tb_csv_write_string(f, r.file);
        else if (fi == F_COLUMN)
            tb_csv_write_string(f, r.column);
        else if (fi == F_FLAGS)
            tb_csv_write_string(f, r.flags);
        else if (fi == F_ORDER)
            fprintf(f, "%d", r.order);
        else if (fi == F_POINTS)
            fprintf(f, "%zu", r.points);
        else if (fi >= F_TERMS && fi < F_SETTLE && (fi - F_TERMS) / 6 >= r.order)
            ;   /* a term this fit has not: empty */
        else if (isfinite(*x))
            fprintf(f, "%.17g", *x);
    }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

/* --- reading ------------------------------------------------------------------ */

struct reader {
    const char *name;
    int where[F_COUNT];       /* column of each field, -1 if absent */
    size_t line, field;
    int header_done, failed;
    char *err;
    size_t errlen;
    struct csv_row row;       /* the current row */
    tb_result **rows;
    size_t *n;
};

static void on_cell(void *s, size_t len, void *data)
{
    struct reader *r = data;
    (void)len;
    if (!r->failed && csv_row_add(&r->row, s) < 0) {
        r->failed = 1;
        snprintf(r->err, r->errlen, "%s: out of memory", r->name);
    }
}

static double number(struct reader *r, int f, int required)
{
    int c = r->where[f];
    char buf[32];
    if (!csv_row_cell(&r->row, c)[0]) {
        if (required && !r->failed) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s:%zu: %s is empty", r->name, r->line,
                     field_name(f, buf, sizeof buf));
        }
        return NAN;
    }
    double x;
    const char *cell = csv_row_cell(&r->row, c);
    if (tb_number_parse(cell, strlen(cell), &x) != TB_NUMBER_OK) {
        if (!r->failed) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s:%zu: %s: \"%.40s\" is not a number", r->name,
                     r->line, field_name(f, buf, sizeof buf), cell);
        }
        return NAN;
    }
    return x;
}

static char *text(struct reader *r, int f)
{
    int c = r->where[f];
    return strdup(csv_row_cell(&r->row, c));
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
            for (size_t i = 0; i < r->row.n; i++)
                if (strcmp(r->row.cells[i], field_name(f, buf, sizeof buf)) == 0)
                    r->where[f] = (int)i;
        }
        for (int f = 0; f < F_COUNT; f++) {
            if (r->where[f] < 0 && field_required(f)) {
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
    for (int f = 0; f < F_COUNT; f++) {
        double *x = field_number(&row, f);
        if (x)
            *x = number(r, f, f == F_TINF);
    }
    double order = number(r, F_ORDER, 0), pts = number(r, F_POINTS, 0);
    row.order = order >= 0 && order <= TB_FIT_MAX_ORDER ? (int)order : 0;
    row.points = pts >= 0 && pts < 1e15 ? (size_t)pts : 0;
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
    csv_row_reset(&r->row);
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
        if (line[len - 1] != '\n') {
            /* What a writer that was stopped leaves: a T∞ cut from 55.98
             * to "5" still parses, so a cut row is never taken. */
            r.failed = 1;
            snprintf(err, errlen, "%s:%zu: the last row is cut short (no end of line)",
                     r.name, r.line);
            break;
        }
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
    csv_row_free(&r.row);
    csv_free(&p);
    free(line);
    return r.failed ? -1 : 0;
}

void tb_results_free(tb_result *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        tb_result_clear(&rows[i]);
    free(rows);
}

int tb_results_is_results_file(const char *path)
{
    char *line = NULL, buf[32];
    size_t size = 0;
    int seen[F_COUNT] = {0}, ok = 1;
    FILE *f = fopen(path, "r");

    if (!f)
        return 0;
    ssize_t len = getline(&line, &size, f);
    fclose(f);
    if (len <= 0) {
        free(line);
        return 0;
    }
    line[strcspn(line, "\r\n")] = '\0';
    for (char *save, *cell = strtok_r(line, ",", &save); ok && cell;
         cell = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (int fi = 0; fi < F_COUNT && !known; fi++)
            if (strcmp(cell, field_name(fi, buf, sizeof buf)) == 0)
                known = seen[fi] = 1;
        ok = known;
    }
    for (int fi = 0; ok && fi < F_COUNT; fi++)
        ok = !field_required(fi) || seen[fi];
    free(line);
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
