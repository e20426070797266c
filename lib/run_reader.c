/*
 * run_reader.c -- read a thermobench CSV run, streaming, with libcsv.
 *
 * The file is read a line at a time: "#" lines are metadata, the rest goes
 * through libcsv (quoting, embedded separators).  Reading by lines keeps the
 * line number for messages and lets the reader refuse binary data before
 * libcsv sees it.  Each data row is turned into points as its cells arrive,
 * so memory grows with the points kept, never with the file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

struct reader {
    tb_run *run;
    const char *name;
    char *err;
    size_t errlen;
    int failed;
    int normalise;

    size_t line;          /* physical line being fed to libcsv */
    int header_done;
    char **header;        /* cells of the header row while it is read */
    size_t nheader, header_cap;

    size_t field;         /* index of the next cell in the current row */
    size_t row_line;      /* line the current row started on */
    size_t rows_ended;    /* rows libcsv has finished, header included */
    size_t header_line;
    double prev_raw_time;
    double time_mul, time_div;
    double *col_mul, *col_div;  /* per-column conversion factors */
};

static void fail(struct reader *r, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(struct reader *r, size_t line, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    int n = line ? snprintf(r->err, r->errlen, "%s:%zu: ", r->name, line)
                 : snprintf(r->err, r->errlen, "%s: ", r->name);
    if (n < 0 || (size_t)n >= r->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static void warn(struct reader *r, size_t line, const char *what)
{
    char msg[TB_ERRMAX];
    snprintf(msg, sizeof msg, "%s:%zu: %s", r->name, line, what);
    if (run_strv_push(&r->run->warnings, &r->run->nwarnings, msg) < 0)
        fail(r, line, "out of memory");
}

/* Growth by half again keeps the slack, and so peak memory, at most 1.5x
 * the data; realloc of large blocks moves pages rather than copying. */
static size_t grown(size_t cap)
{
    return cap < 64 ? 64 : cap + cap / 2;
}

static int column_append(struct run_column *c, size_t row, double v)
{
    size_t n = c->pub.n;
    if (n == c->cap) {
        size_t cap = grown(c->cap);
        double *nv = realloc(c->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        c->v = nv;
        if (c->rows) {
            uint32_t *nr = realloc(c->rows, cap * sizeof *nr);
            if (!nr)
                return -1;
            c->rows = nr;
        }
        c->cap = cap;
    }
    if (!c->rows && n != row) {
        /* The first row this column skips: from here on it needs to
         * remember which rows its points come from. */
        if (!(c->rows = malloc(c->cap * sizeof *c->rows)))
            return -1;
        for (size_t i = 0; i < n; i++)
            c->rows[i] = (uint32_t)i;
    }
    c->v[n] = v;
    if (c->rows)
        c->rows[n] = (uint32_t)row;
    c->pub.n = n + 1;
    return 0;
}

/* Scaling by 1e-3 would round twice; dividing by 1000 rounds once. */
static void conversion_factors(double scale, double *mul, double *div)
{
    if (scale < 1) {
        *mul = 1;
        *div = round(1 / scale);
    } else {
        *mul = scale;
        *div = 1;
    }
}

static void replace_percent_pairs(char *s)
{
    char *w = s;
    for (char *p = s; *p; p++) {
        *w++ = *p;
        if (p[0] == '%' && p[1] == '%')
            p++;
    }
    *w = '\0';
}

struct name_at {
    const char *name;
    size_t column;
};

static int compare_names(const void *a, const void *b)
{
    const struct name_at *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->column > y->column) - (x->column < y->column);
}

/* Two columns of one name make a run ambiguous: refuse it, naming the
 * first column that repeats an earlier one.  By sorting, not by comparing
 * every pair: a header may have 10⁵ columns.  0, or -1 after fail(). */
static int check_unique_names(struct reader *r, tb_run *run, size_t line)
{
    struct name_at *v = malloc(run->ncols * sizeof *v);
    if (!v) {
        fail(r, line, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < run->ncols; i++)
        v[i] = (struct name_at){run->cols[i].name, i};
    qsort(v, run->ncols, sizeof *v, compare_names);
    size_t first = 0, second = SIZE_MAX;
    for (size_t i = 1; i < run->ncols; i++)
        if (strcmp(v[i].name, v[i - 1].name) == 0 && v[i].column < second) {
            first = v[i - 1].column;
            second = v[i].column;
        }
    if (second != SIZE_MAX)
        fail(r, line, "duplicate column name \"%s\" (columns %zu and %zu)",
             run->cols[second].name, first + 1, second + 1);
    free(v);
    return second == SIZE_MAX ? 0 : -1;
}

/* Turn the header cells into columns. */
static void header_finish(struct reader *r)
{
    tb_run *run = r->run;
    size_t line = r->row_line;

    r->header_line = line;
    if (r->nheader == 0 || !r->header[0] || !*r->header[0]) {
        fail(r, line, "column 1 has no name: a run's first column is time/ms");
        return;
    }
    run->cols = calloc(r->nheader, sizeof *run->cols);
    r->col_mul = calloc(r->nheader, sizeof *r->col_mul);
    r->col_div = calloc(r->nheader, sizeof *r->col_div);
    if (!run->cols || !r->col_mul || !r->col_div) {
        fail(r, line, "out of memory");
        return;
    }
    run->ncols = r->nheader;
    for (size_t i = 0; i < r->nheader; i++) {
        struct run_column *c = &run->cols[i];
        char *cell = r->header[i];
        if (!cell) {
            fail(r, line, "column %zu has no name", i + 1);
            return;
        }
        replace_percent_pairs(cell);
        char *slash = strchr(cell, '/');
        size_t nlen = slash ? (size_t)(slash - cell) : strlen(cell);
        c->header = strdup(cell);
        c->name = strndup(cell, nlen);
        c->raw_unit = strdup(slash ? slash + 1 : "");
        if (!c->header || !c->name || !c->raw_unit) {
            fail(r, line, "out of memory");
            return;
        }
        if (!*c->name) {
            fail(r, line, "column %zu has no name", i + 1);
            return;
        }
        double scale = 1;
        const char *unit = r->normalise ? tb_unit_normalise(c->raw_unit, &scale)
                                        : c->raw_unit;
        c->pub = (tb_column){
            .header = c->header, .name = c->name, .raw_unit = c->raw_unit,
            .unit = unit, .scale = scale,
        };
        conversion_factors(scale, &r->col_mul[i], &r->col_div[i]);
    }

    if (check_unique_names(r, run, line) < 0)
        return;
    struct run_column *time = &run->cols[0];
    if (strcmp(time->name, "time") != 0) {
        /* tb-fit's own tables begin file,column: say which one this is */
        int table = (strcmp(time->name, "file") == 0 && run->ncols > 2 &&
                     strcmp(run->cols[1].name, "column") == 0) ||
                    (strcmp(time->name, "format") == 0 && run->ncols > 2 &&
                     strcmp(run->cols[1].name, "file") == 0);
        int prefixes = table && strcmp(run->cols[2].name, "length_s") == 0;
        fail(r, line, "column 1 is \"%s\": a run's first column is time/ms%s", time->header,
             prefixes ? " (this is tb-fit --run-length's table of prefixes, not fits of runs: "
                        "give tb-fit -f csv's results without --run-length)"
             : table ? " (a table of tb-fit's that is not its results: the header lacks "
                       "T_inf, T_inf_lo or T_inf_hi, or has a field they do not)" : "");
        return;
    }
    double scale;
    /* A bare "time" is taken as seconds. */
    if (*time->raw_unit && strcmp(tb_unit_normalise(time->raw_unit, &scale), "s")) {
        fail(r, line, "time unit \"%s\" is not one of ms, s, us, ns",
             time->raw_unit);
        return;
    }
    r->time_mul = r->col_mul[0];
    r->time_div = r->col_div[0];
    r->header_done = 1;
}

static void header_cell(struct reader *r, const char *s)
{
    char **nh = r->header;
    if (r->nheader == r->header_cap) {   /* grown by half, not by one: 10⁵ columns */
        size_t cap = grown(r->header_cap);
        if (!(nh = realloc(r->header, cap * sizeof *nh))) {
            fail(r, r->row_line, "out of memory");
            return;
        }
        r->header = nh;
        r->header_cap = cap;
    }
    nh[r->nheader] = s ? strdup(s) : NULL;
    if (s && !nh[r->nheader]) {
        fail(r, r->row_line, "out of memory");
        return;
    }
    r->nheader++;
}

static void time_cell(struct reader *r, const char *s, size_t len)
{
    tb_run *run = r->run;
    double raw;

    if (!s) {
        fail(r, r->row_line, "time (column 1) is empty");
        return;
    }
    switch (tb_number_parse(s, len, &raw)) {
    case TB_NUMBER_OK:
        break;
    case TB_NUMBER_RANGE:
        fail(r, r->row_line, "time (column 1): %.40s is out of range", s);
        return;
    default:
        fail(r, r->row_line, "time (column 1): \"%.40s\" is not a number", s);
        return;
    }
    if (run->nrows > 0 && raw < r->prev_raw_time) {
        fail(r, r->row_line, "time goes backwards: %.17g after %.17g",
             raw, r->prev_raw_time);
        return;
    }
    if (run->nrows >= UINT32_MAX) {
        fail(r, r->row_line, "more than %lu rows", (unsigned long)UINT32_MAX);
        return;
    }
    if (run->nrows == run->rows_cap) {
        size_t cap = grown(run->rows_cap);
        double *nt = realloc(run->row_t, cap * sizeof *nt);
        if (!nt) {
            fail(r, r->row_line, "out of memory");
            return;
        }
        run->row_t = nt;
        run->rows_cap = cap;
    }
    r->prev_raw_time = raw;
    run->row_t[run->nrows++] = raw * r->time_mul / r->time_div;   /* ms, µs, ns: only smaller */
}

static void value_cell(struct reader *r, size_t k, const char *s, size_t len)
{
    struct run_column *c = &r->run->cols[k];
    double x;

    if (!s)
        return;
    switch (tb_number_parse(s, len, &x)) {
    case TB_NUMBER_OK: {
        double v = x * r->col_mul[k] / r->col_div[k];
        if (!isfinite(v)) {   /* 1e300 GHz is no number of Hz */
            fail(r, r->row_line, "column %zu (%s): %.40s %s is out of range in %s",
                 k + 1, c->name, s, c->raw_unit, c->pub.unit);
            return;
        }
        if (column_append(c, r->run->nrows - 1, v) < 0)
            fail(r, r->row_line, "out of memory");
        return;
    }
    case TB_NUMBER_NAN:
        c->pub.n_missing++;
        return;
    case TB_NUMBER_RANGE:
        fail(r, r->row_line, "column %zu (%s): %.40s is out of range",
             k + 1, c->name, s);
        return;
    case TB_NUMBER_INVALID:
        fail(r, r->row_line, "column %zu (%s): \"%.40s\" is not a number",
             k + 1, c->name, s);
        return;
    }
}

static void on_cell(void *s, size_t len, void *data)
{
    struct reader *r = data;
    size_t k = r->field++;

    if (r->failed)
        return;
    if (k == 0)
        r->row_line = r->line;
    if (!r->header_done)
        header_cell(r, s);
    else if (k == 0)
        time_cell(r, s, len);
    else if (k < r->run->ncols)
        value_cell(r, k, s, len);
}

static void on_row_end(int c, void *data)
{
    struct reader *r = data;
    size_t fields = r->field;

    (void)c;
    r->field = 0;
    r->rows_ended++;
    if (r->failed || fields == 0)
        return;
    if (!r->header_done)
        header_finish(r);
    else if (fields > r->run->ncols)
        fail(r, r->row_line, "row has %zu fields, the header has %zu",
             fields, r->run->ncols);
}

/* Give every column its times, and free the slack of growth. */
/* Old thermobench files label cpufreq's kHz "Hz": an A72 at 1.6 GHz read
 * as 1.6 MHz.  No CPU runs between 10 kHz and 10 MHz, so such a column
 * of a frequency is taken in kHz (1 when it was). */
static int fix_khz_labelled_hz(struct reader *r, struct run_column *c)
{
    if (!r->normalise || strcmp(c->raw_unit, "Hz") != 0 || !strcasestr(c->name, "freq"))
        return 0;
    double hi = 0;
    for (size_t j = 0; j < c->pub.n; j++)
        if (isfinite(c->v[j]) && c->v[j] > hi)
            hi = c->v[j];
    if (!(hi > 1e4 && hi <= 1e7))
        return 0;
    for (size_t j = 0; j < c->pub.n; j++)
        c->v[j] *= 1e3;
    c->pub.scale = 1e3;
    return 1;
}

static void columns_finish(struct reader *r)
{
    tb_run *run = r->run;
    char khz[512] = "";

    if (run->nrows > 0 && run->nrows < run->rows_cap) {
        double *nt = realloc(run->row_t, run->nrows * sizeof *nt);
        if (nt)
            run->row_t = nt;
    }
    for (size_t i = 0; i < run->ncols; i++) {
        struct run_column *c = &run->cols[i];
        size_t n = c->pub.n;
        if (i == 0) {
            c->pub.n = run->nrows;
            c->pub.t = c->pub.v = run->row_t;
            continue;
        }
        if (n > 0 && n < c->cap) {
            double *nv = realloc(c->v, n * sizeof *nv);
            if (nv)
                c->v = nv;
        }
        c->pub.v = c->v;
        if (fix_khz_labelled_hz(r, c)) {   /* said once for the run, naming them */
            size_t len = strlen(khz);
            snprintf(khz + len, sizeof khz - len, "%s%s", len ? ", " : "", c->name);
        }
        if (c->rows) {
            free(c->t_owned);   /* a follower's times so far */
            if (!(c->t_owned = malloc(n * sizeof *c->t_owned))) {
                fail(r, 0, "out of memory");
                return;
            }
            for (size_t j = 0; j < n; j++)
                c->t_owned[j] = run->row_t[c->rows[j]];
            free(c->rows);
            c->rows = NULL;
            c->pub.t = c->t_owned;
        } else {
            c->pub.t = run->row_t;   /* its points are rows 0..n-1 */
        }
    }
    if (*khz) {
        char what[TB_ERRMAX];
        snprintf(what, sizeof what, "%s: labelled Hz, but no CPU runs at 10 kHz to 10 MHz: "
                 "cpufreq's kHz, as old thermobench files write them, read as kHz", khz);
        warn(r, r->header_line, what);
    }
}

/* Refuse bytes no recorder writes; 0 when the line is text. */
static int check_text(struct reader *r, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\n') {
            fail(r, r->line, "%s at byte %zu (binary data?)",
                 ch == 0 ? "NUL byte" : "control character", i + 1);
            return -1;
        }
    }
    return 0;
}

static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

static void comment_line(struct reader *r, char *s, size_t len)
{
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        len--;
    s[len] = '\0';
    if (run_add_comment(r->run, s + 1) < 0)
        fail(r, r->line, "out of memory");
}

/* One physical line S of N bytes (its end of line included, except for a
 * file's last line).  *OPEN_SINCE is the line a quoted cell still open
 * began on (0: none). */
static void read_line(struct reader *r, struct csv_parser *p, char *s, size_t n,
                      size_t *open_since)
{
    int in_quote = *open_since != 0;

    r->line++;
    if (r->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;   /* a UTF-8 byte order mark, as spreadsheets write */
        n -= 3;
    }
    if (n == 0 || check_text(r, s, n) < 0)
        return;
    if (!in_quote && s[0] == '#') {
        comment_line(r, s, n);
        return;
    }
    if (!in_quote && is_blank(s, n))
        return;
    if (!in_quote && r->header_done && s[n - 1] != '\n') {
        /* What a killed recorder leaves: the last number may be cut. */
        warn(r, r->line, "last row has no end of line (cut short?): ignored");
        return;
    }
    size_t ended = r->rows_ended;
    if (csv_parse(p, s, n, on_cell, on_row_end, r) != n && !r->failed) {
        if (csv_error(p) == CSV_EPARSE)
            fail(r, r->line, "misplaced quote (a quoted cell must be \"...\" as a whole)");
        else
            fail(r, r->line, "%s", csv_strerror(csv_error(p)));
    }
    if (r->rows_ended == ended && s[n - 1] == '\n') {
        if (!*open_since)
            *open_since = r->line;
    } else {
        *open_since = 0;
    }
}

/* The end of the input: a quoted cell left open is an error. */
static void read_end(struct reader *r, struct csv_parser *p, size_t open_since)
{
    if (!r->failed && csv_fini(p, on_cell, on_row_end, r) != 0 && !r->failed)
        fail(r, r->line, "unterminated quoted cell (opened on line %zu)",
             open_since ? open_since : r->line);
}

static void read_lines(struct reader *r, FILE *f, struct csv_parser *p)
{
    char *buf = NULL;
    size_t bufsize = 0, open_since = 0;
    ssize_t len;

    while (!r->failed && (len = getline(&buf, &bufsize, f)) >= 0)
        read_line(r, p, buf, (size_t)len, &open_since);
    if (!r->failed && ferror(f))
        fail(r, r->line + 1, "read error: %s", strerror(errno));
    else
        read_end(r, p, open_since);
    free(buf);
}

tb_read_options tb_read_default_options(void)
{
    return (tb_read_options){.normalise_units = 1};
}

/* A reader of a run named NAME, with its libcsv parser: 0, or -1 with
 * a message in ERR. */
static int reader_start(struct reader *r, struct csv_parser *p, const char *name,
                        const tb_read_options *opt, char *err, size_t errlen)
{
    tb_read_options defaults = tb_read_default_options();
    *r = (struct reader){
        .name = name, .err = err, .errlen = errlen,
        .normalise = (opt ? opt : &defaults)->normalise_units,
    };
    if (errlen > 0)
        err[0] = '\0';
    if (!(r->run = calloc(1, sizeof *r->run)) || !(r->run->source = strdup(name))) {
        free(r->run);
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL |
                        CSV_EMPTY_IS_NULL) != 0) {
        tb_run_free(r->run);
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    return 0;
}

/* The run read, or NULL after an error (its message in the reader's ERR);
 * the reader and its parser are released either way. */
static tb_run *reader_finish(struct reader *r, struct csv_parser *p)
{
    csv_free(p);
    if (!r->failed && r->line == 0)
        fail(r, 1, "empty file");
    else if (!r->failed && !r->header_done)
        fail(r, r->line, "no header line (only comments or blank lines)");
    if (!r->failed)
        columns_finish(r);

    for (size_t i = 0; i < r->nheader; i++)
        free(r->header[i]);
    free(r->header);
    free(r->col_mul);
    free(r->col_div);
    if (r->failed) {
        tb_run_free(r->run);
        return NULL;
    }
    return r->run;
}

tb_run *tb_run_read_stream(FILE *f, const char *name, const tb_read_options *opt,
                           char *err, size_t errlen)
{
    struct reader r;
    struct csv_parser p;

    if (reader_start(&r, &p, name, opt, err, errlen) < 0)
        return NULL;
    read_lines(&r, f, &p);
    return reader_finish(&r, &p);
}

/* --- a run followed as it is written ------------------------------------- */

struct tb_run_follower {
    struct reader r;
    struct csv_parser p;
    size_t open_since;
    char *line;              /* the part of a line not yet ended */
    size_t len, cap;
    char err[TB_ERRMAX];
};

tb_run_follower *tb_run_follower_new(const char *name, const tb_read_options *opt,
                                     char *err, size_t errlen)
{
    tb_run_follower *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    if (reader_start(&f->r, &f->p, name, opt, f->err, sizeof f->err) < 0) {
        snprintf(err, errlen, "%s", f->err);
        free(f);
        return NULL;
    }
    f->r.name = f->r.run->source;   /* NAME need not outlive this call */
    return f;
}

/* Keep the N bytes at S as the start of a line still to end. */
static int follower_hold(tb_run_follower *f, const char *s, size_t n)
{
    if (f->len + n + 1 > f->cap) {
        size_t cap = grown(f->len + n + 1);
        char *nl = realloc(f->line, cap);
        if (!nl)
            return -1;
        f->line = nl;
        f->cap = cap;
    }
    memcpy(f->line + f->len, s, n);
    f->len += n;
    return 0;
}

int tb_run_follower_feed(tb_run_follower *f, const char *buf, size_t len)
{
    while (!f->r.failed && len > 0) {
        const char *nl = memchr(buf, '\n', len);
        size_t n = nl ? (size_t)(nl - buf) + 1 : len;
        if (follower_hold(f, buf, n) < 0) {
            fail(&f->r, f->r.line + 1, "out of memory");
            break;
        }
        buf += n;
        len -= n;
        if (!nl)
            break;
        f->line[f->len] = '\0';
        read_line(&f->r, &f->p, f->line, f->len, &f->open_since);
        f->len = 0;
    }
    return f->r.failed ? -1 : 0;
}

/* Point every column at its points so far, without a copy: a sparse
 * column's times are brought up to date from where they were. */
static int follower_columns(tb_run_follower *f)
{
    tb_run *run = f->r.run;
    for (size_t i = 0; i < run->ncols; i++) {
        struct run_column *c = &run->cols[i];
        if (i == 0) {
            c->pub.n = run->nrows;
            c->pub.t = c->pub.v = run->row_t;
            continue;
        }
        c->pub.v = c->v;
        if (!c->rows) {
            c->pub.t = run->row_t;
            continue;
        }
        if (c->t_cap < c->pub.n) {
            double *nt = realloc(c->t_owned, c->cap * sizeof *nt);
            if (!nt)
                return -1;
            c->t_owned = nt;
            c->t_cap = c->cap;
        }
        for (; c->t_n < c->pub.n; c->t_n++)
            c->t_owned[c->t_n] = run->row_t[c->rows[c->t_n]];
        c->pub.t = c->t_owned;
    }
    return 0;
}

const tb_run *tb_run_follower_run(tb_run_follower *f)
{
    if (f->r.failed || !f->r.header_done)
        return NULL;
    if (follower_columns(f) < 0) {
        fail(&f->r, f->r.line, "out of memory");
        return NULL;
    }
    return f->r.run;
}

size_t tb_run_follower_lines(const tb_run_follower *f)
{
    return f->r.line;
}

const char *tb_run_follower_error(const tb_run_follower *f)
{
    return f->r.failed ? f->err : NULL;
}

tb_run *tb_run_follower_end(tb_run_follower *f, char *err, size_t errlen)
{
    if (!f->r.failed && f->len > 0) {   /* a last line without its end */
        f->line[f->len] = '\0';
        read_line(&f->r, &f->p, f->line, f->len, &f->open_since);
    }
    read_end(&f->r, &f->p, f->open_since);
    tb_run *run = reader_finish(&f->r, &f->p);
    snprintf(err, errlen, "%s", run ? "" : f->err);
    free(f->line);
    free(f);
    return run;
}

void tb_run_follower_free(tb_run_follower *f)
{
    if (!f)
        return;
    csv_free(&f->p);
    for (size_t i = 0; i < f->r.nheader; i++)
        free(f->r.header[i]);
    free(f->r.header);
    free(f->r.col_mul);
    free(f->r.col_div);
    tb_run_free(f->r.run);
    free(f->line);
    free(f);
}

tb_run *tb_run_read(const char *path, const tb_read_options *opt,
                    char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return tb_run_read_stream(stdin, "<stdin>", opt, err, errlen);

    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    tb_run *run = tb_run_read_stream(f, path, opt, err, errlen);
    fclose(f);
    return run;
}
