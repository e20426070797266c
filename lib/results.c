/*
 * results.c -- the results file (tb-fit --format csv, tb-compare's cache):
 * its one list of fields, its writer and its reader (libcsv, as the run
 * reader), side by side so that they cannot drift apart.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <csv.h>
#include <ctype.h>
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
    F_FORMAT, F_FILE, F_COLUMN, F_UNIT, F_STATUS, F_ERROR, F_ORDER, F_POINTS, F_DURATION,
    F_RSS, F_RMSE, F_TINF, F_TINF_LO, F_TINF_HI,
    F_TERMS,                                   /* kJ, kJ_lo, kJ_hi, tauJ_s, ... */
    F_SETTLE = F_TERMS + 6 * TB_FIT_MAX_ORDER, F_OPS, F_OPS_LO, F_OPS_HI,
    F_PEAK, F_MEAN, F_LIMIT, F_ABOVE, F_THROTTLED, F_SUST, F_SUST_LO, F_SUST_HI, F_ENERGY,
    F_OPS_PER_J,                               /* measured: optional in format 2 */
    F_CI_METHOD, F_CI_LEVEL, F_FLAGS, F_META, F_COUNT
};

/* Field F's name in format VERSION (1 or 2), or NULL when that format
 * has no such field. */
static const char *field_name(int f, int version, char *buf, size_t size)
{
    static const char *const fixed[] = {
        "format", "file", "column", "unit", "status", "error", "order", "points", "duration_s",
        "rss", "rmse", "T_inf", "T_inf_lo", "T_inf_hi",
    };
    static const char *const tail[] = {
        "settle_s", "ops_per_s", "ops_lo_per_s", "ops_hi_per_s", "peak", "mean", "limit",
        "above_limit_s", "throttled_share", "ops_sustained_per_s", "ops_sustained_lo_per_s",
        "ops_sustained_hi_per_s", "energy_j", "ops_per_j", "ci_method", "ci_level", "flags",
        "meta"};
    static const char *const suffix[] = {"", "_lo", "_hi"};
    if (version < 2 && (f == F_FORMAT || f == F_UNIT || f == F_STATUS || f == F_ERROR ||
                        f == F_OPS_LO || f == F_OPS_HI || f == F_CI_METHOD || f == F_CI_LEVEL ||
                        f == F_META || (f >= F_PEAK && f <= F_OPS_PER_J)))
        return NULL;
    if (f < F_TERMS)
        return fixed[f];
    if (f >= F_SETTLE)
        return tail[f - F_SETTLE];
    int term = (f - F_TERMS) / 6, which = (f - F_TERMS) % 6;
    /* a τ is in s: format 2 says so in its name, as duration_s does */
    snprintf(buf, size, "%s%d%s%s", which < 3 ? "k" : "tau", term + 1, suffix[which % 3],
             which >= 3 && version >= 2 ? "_s" : "");
    return buf;
}

/* The fields a results file cannot do without (T∞ only of a fit that
 * did not fail). */
static int field_required(int f, int version)
{
    return f == F_FILE || f == F_COLUMN || f == F_TINF || f == F_TINF_LO || f == F_TINF_HI ||
           (version >= 2 && f == F_FORMAT);
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
    case F_OPS_LO: return &r->ops_lo;
    case F_OPS_HI: return &r->ops_hi;
    case F_PEAK: return &r->peak;
    case F_MEAN: return &r->mean;
    case F_LIMIT: return &r->limit;
    case F_ABOVE: return &r->above_limit_s;
    case F_THROTTLED: return &r->throttled_share;
    case F_SUST: return &r->ops_sustained.value;
    case F_SUST_LO: return &r->ops_sustained.lo;
    case F_SUST_HI: return &r->ops_sustained.hi;
    case F_ENERGY: return &r->energy_j;
    case F_OPS_PER_J: return &r->ops_per_j;
    case F_CI_LEVEL: return &r->ci_level;
    default: break;
    }
    if (f >= F_TERMS && f < F_SETTLE) {
        int term = (f - F_TERMS) / 6, which = (f - F_TERMS) % 6;
        tb_estimate *e = which < 3 ? &r->k[term] : &r->tau[term];
        return which % 3 == 0 ? &e->value : which % 3 == 1 ? &e->lo : &e->hi;
    }
    return NULL;
}

/* The string field F of R; NULL for the others. */
static char **field_text(tb_result *r, int f)
{
    switch (f) {
    case F_FILE: return &r->file;
    case F_COLUMN: return &r->column;
    case F_UNIT: return &r->unit;
    case F_ERROR: return &r->error;
    case F_CI_METHOD: return &r->ci_method;
    case F_FLAGS: return &r->flags;
    case F_META: return &r->meta;
    default: return NULL;
    }
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
    for (int f = 0; f < F_COUNT; f++) {
        char **t = field_text(r, f);
        if (t) {
            free(*t);
            *t = NULL;
        }
    }
}

/* S to F with %, ; and = written %25, %3B and %3D. */
static void meta_encode(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '%' || *s == ';' || *s == '=')
            fprintf(f, "%%%02X", (unsigned char)*s);
        else
            fputc(*s, f);
    }
}

/* The run's metadata as KEY=VALUE;KEY=VALUE, encoded; "" when none. */
static char *meta_of(const tb_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    for (size_t i = 0; run && i < tb_run_nmeta(run); i++) {
        if (i)
            fputc(';', f);
        meta_encode(f, tb_run_meta_key(run, i));
        fputc('=', f);
        meta_encode(f, tb_run_meta_value(run, i));
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The N bytes at S decoded (%XX) into a new string. */
static char *meta_decode(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (s[i] == '%' && i + 2 < n + 1 && isxdigit((unsigned char)s[i + 1]) &&
            isxdigit((unsigned char)s[i + 2]) && sscanf(s + i + 1, "%2X", &v) == 1) {
            *o++ = (char)v;
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return out;
}

double tb_result_extrapolation(const tb_result *r)
{
    if (r->failed || r->order < 1 || r->order > TB_FIT_MAX_ORDER || !(r->duration >= 0))
        return NAN;
    double end = 0;   /* Σ kᵢ·exp(−d/τᵢ): the curve's last point minus T∞ */
    for (int j = 0; j < r->order; j++)
        end += r->k[j].value * exp(-r->duration / r->tau[j].value);
    return -end;
}

int tb_result_sound(const tb_result *r, double tolerance)
{
    if (r->failed)
        return 0;
    if (!r->flags || !*r->flags)
        return 1;
    if (strcmp(r->flags, tb_fit_flag_name(TB_FIT_EXTRAPOLATED)) != 0)
        return 0;
    return fabs(tb_result_extrapolation(r)) <= tolerance;
}

char *tb_result_meta(const tb_result *r, const char *key)
{
    const char *p = r ? r->meta : NULL;
    while (p && *p) {
        size_t len = strcspn(p, ";");
        const char *eq = memchr(p, '=', len);
        if (eq) {
            char *k = meta_decode(p, (size_t)(eq - p));
            int match = k && strcmp(k, key) == 0;
            free(k);
            if (match)
                return meta_decode(eq + 1, len - (size_t)(eq - p) - 1);
        }
        p += len + (p[len] == ';');
    }
    return NULL;
}

void tb_result_measured(const tb_analysed_column *c, tb_result *r)
{
    const tb_run_metrics *m = c->metrics;
    r->peak = c->sensor ? c->sensor->peak : NAN;
    r->mean = c->sensor ? c->sensor->mean : NAN;
    r->limit = c->limit;
    r->above_limit_s = c->above_limit_s;
    r->throttled_share = NAN;
    for (size_t i = 0; m && i < m->ncooling; i++)
        r->throttled_share = fmax(r->throttled_share, m->cooling[i].throttled_share);
    r->ops_sustained = c->ops_sustained;
    r->energy_j = m && m->npower ? m->power[0].energy_j : NAN;
    r->ops_per_j = m ? m->ops_per_j : NAN;
}

int tb_result_from_column(const tb_analysed_column *c, tb_result *r)
{
    const tb_fit *fit = c->fit;
    char flags[256];

    memset(r, 0, sizeof *r);
    r->file = strdup(c->source);
    /* a part of a column (its cooling) is a row of its own */
    if (c->part) {
        if (asprintf(&r->column, "%s (%s)", c->column->name, c->part) < 0)
            r->column = NULL;
    } else {
        r->column = strdup(c->column->name);
    }
    r->unit = strdup(c->column->unit ? c->column->unit : "");
    r->meta = meta_of(c->run);
    r->t_inf = (tb_estimate){NAN, NAN, NAN};
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++) {
        r->k[j] = j < (fit ? fit->order : 0) ? fit->series[c->series].k[j] : (tb_estimate){NAN, NAN, NAN};
        r->tau[j] = j < (fit ? fit->order : 0) ? fit->tau[j] : (tb_estimate){NAN, NAN, NAN};
    }
    r->duration = r->rss = r->rmse = r->settle = r->ci_level = NAN;
    r->ops_per_s = c->ops_per_s;
    r->ops_lo = c->ops.lo;
    r->ops_hi = c->ops.hi;
    tb_result_measured(c, r);
    if (!fit) {   /* a row that says it failed, and why */
        r->failed = 1;
        r->error = strdup(c->error ? c->error : "the fit failed");
        r->flags = strdup("");
        r->points = c->n;
    } else {
        const tb_fit_series *s = &fit->series[c->series];
        r->flags = strdup(tb_fit_flags_text(fit->flags, flags, sizeof flags));
        r->ci_method = strdup(tb_ci_method_name(fit->ci));
        r->ci_level = fit->level;
        r->order = fit->order;
        r->points = s->n;
        r->duration = s->duration;
        r->rss = fit->rss;
        r->rmse = fit->rmse;
        r->t_inf = s->t_inf;
        r->settle = c->settle;
    }
    if (!r->file || !r->column || !r->flags || !r->unit || !r->meta || (r->failed && !r->error) ||
        (!r->failed && !r->ci_method)) {
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
    (void)max_order;   /* every order's fields, whatever the fits' */
    for (int fi = 0; fi < F_COUNT; fi++)
        fprintf(f, "%s%s", fi ? "," : "", field_name(fi, TB_RESULTS_FORMAT, buf, sizeof buf));
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

int tb_results_write(FILE *f, const tb_result *r_in, int max_order)
{
    tb_result r = *r_in;   /* field_number() gives pointers into a result */
    (void)max_order;
    for (int fi = 0; fi < F_COUNT; fi++) {
        if (fi > 0)
            fputc(',', f);
        double *x = field_number(&r, fi);
        char **t = field_text(&r, fi);
        if (fi == F_FORMAT)
            fprintf(f, "%d", TB_RESULTS_FORMAT);
        else if (fi == F_STATUS)
            fputs(r.failed ? "failed" : "ok", f);
        else if (t)
            tb_csv_write_string(f, *t);
        else if (fi == F_ORDER && !r.failed)
            fprintf(f, "%d", r.order);
        else if (fi == F_POINTS)
            fprintf(f, "%zu", r.points);
        else if (fi >= F_TERMS && fi < F_SETTLE && (fi - F_TERMS) / 6 >= r.order)
            ;   /* a term this fit has not: empty */
        else if (fi == F_CI_LEVEL && isfinite(*x))
            fprintf(f, "%g", *x);   /* 0.95, not 0.94999999999999996 */
        else if (x && isfinite(*x))
            fprintf(f, "%.17g", *x);
    }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

/* --- reading ------------------------------------------------------------------ */

struct reader {
    const char *name;
    int where[F_COUNT];       /* column of each field, -1 if absent */
    int version;              /* the file's format: 1 or 2 */
    size_t line, field;
    int header_done, failed;
    char *err;
    size_t errlen;
    struct csv_row row;       /* the current row */
    tb_result **rows;
    size_t *n;
    size_t cap;               /* rows allocated: grown by half, not by one */
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
                     field_name(f, r->version, buf, sizeof buf));
        }
        return NAN;
    }
    double x;
    const char *cell = csv_row_cell(&r->row, c);
    if (tb_number_parse(cell, strlen(cell), &x) != TB_NUMBER_OK) {
        if (!r->failed) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s:%zu: %s: \"%.40s\" is not a number", r->name,
                     r->line, field_name(f, r->version, buf, sizeof buf), cell);
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
        /* format 2 has a format field; format 1 has not */
        r->version = 1;
        for (size_t i = 0; i < r->row.n; i++)
            if (strcmp(r->row.cells[i], "format") == 0)
                r->version = 2;
        for (int f = 0; f < F_COUNT; f++) {
            const char *name = field_name(f, r->version, buf, sizeof buf);
            r->where[f] = -1;
            for (size_t i = 0; name && i < r->row.n; i++)
                if (strcmp(r->row.cells[i], name) == 0)
                    r->where[f] = (int)i;
        }
        for (int f = 0; f < F_COUNT; f++) {
            if (r->where[f] < 0 && field_required(f, r->version)) {
                r->failed = 1;
                snprintf(r->err, r->errlen, "%s:%zu: not a tb-fit CSV result: no %s field",
                         r->name, r->line, field_name(f, r->version, buf, sizeof buf));
                goto out;
            }
        }
        r->header_done = 1;
        goto out;
    }
    if (r->version >= 2) {
        double format = number(r, F_FORMAT, 1);
        if (!r->failed && format != TB_RESULTS_FORMAT) {
            r->failed = 1;
            snprintf(r->err, r->errlen, "%s:%zu: results format %g: this tbkit reads formats 1 "
                     "to %d (a newer tbkit wrote it?)", r->name, r->line, format, TB_RESULTS_FORMAT);
        }
    }
    const char *status = csv_row_cell(&r->row, r->where[F_STATUS]);
    tb_result row = {0};
    row.failed = strcmp(status, "failed") == 0;
    if (!r->failed && r->where[F_STATUS] >= 0 && !row.failed && strcmp(status, "ok") != 0) {
        r->failed = 1;
        snprintf(r->err, r->errlen, "%s:%zu: status: \"%.40s\" is neither ok nor failed", r->name,
                 r->line, status);
    }
    for (int f = 0; f < F_COUNT; f++) {
        double *x = field_number(&row, f);
        if (x)
            *x = number(r, f, f == F_TINF && !row.failed);
    }
    if (r->where[F_CI_LEVEL] < 0)
        row.ci_level = NAN;
    double order = number(r, F_ORDER, 0), pts = number(r, F_POINTS, 0);
    row.order = order >= 0 && order <= TB_FIT_MAX_ORDER ? (int)order : 0;
    row.points = pts >= 0 && pts < 1e15 ? (size_t)pts : 0;
    if (r->failed)
        goto out;
    int short_of_memory = 0;
    for (int f = 0; f < F_COUNT; f++) {
        char **t = field_text(&row, f);
        /* absent text fields: "" for those every row has, else NULL */
        if (t && (r->where[f] >= 0 || f == F_FILE || f == F_COLUMN || f == F_FLAGS || f == F_UNIT))
            short_of_memory |= !(*t = text(r, f));
    }
    if (row.error && !row.error[0]) {
        free(row.error);
        row.error = NULL;
    }
    if (row.failed && !row.error && !short_of_memory)
        short_of_memory |= !(row.error = strdup("the fit failed"));
    if (row.ci_method && !row.ci_method[0]) {   /* "" is unknown */
        free(row.ci_method);
        row.ci_method = NULL;
    }
    if (!short_of_memory && *r->n == r->cap) {
        size_t cap = r->cap < 16 ? 16 : r->cap + r->cap / 2;
        tb_result *nr = realloc(*r->rows, cap * sizeof *nr);
        if (nr) {
            *r->rows = nr;
            r->cap = cap;
        }
    }
    if (short_of_memory || *r->n == r->cap) {
        tb_result_clear(&row);
        r->failed = 1;
        snprintf(r->err, r->errlen, "%s: out of memory", r->name);
        goto out;
    }
    (*r->rows)[(*r->n)++] = row;
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
    /* the rows already in *ROWS fill what is known of its size */
    struct reader r = {.name = name, .err = err, .errlen = errlen, .rows = rows, .n = n,
                       .cap = *n};
    struct csv_parser p;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;

    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
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
    if (!r.failed && csv_fini(&p, on_cell, on_row, &r) != 0 && !r.failed) {
        r.failed = 1;   /* a quote never closed: its cell would hold the rest */
        snprintf(err, errlen, "%s:%zu: malformed CSV (a quote is not closed)", r.name, r.line);
    }
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
    int seen[F_COUNT] = {0}, ok = 1, version = 1;
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
    if (strncmp(line, "format,", 7) == 0)
        version = 2;
    char *copy = strdup(line);   /* strtok_r cuts LINE up */
    if (!copy) {
        free(line);
        return 0;
    }
    for (char *save, *cell = strtok_r(line, ",", &save); ok && cell;
         cell = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (int fi = 0; fi < F_COUNT && !known; fi++) {
            const char *name = field_name(fi, version, buf, sizeof buf);
            if (name && strcmp(cell, name) == 0)
                known = seen[fi] = 1;
        }
        ok = known;
    }
    for (int fi = 0; ok && fi < F_COUNT; fi++)
        ok = !field_required(fi, version) || seen[fi];
    /* a results file of another format: the reader says which it is */
    if (!ok && version >= 2 && strstr(copy, ",file,") && strstr(copy, ",column"))
        ok = 1;
    free(copy);
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
