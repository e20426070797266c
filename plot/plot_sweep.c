/*
 * plot_sweep.c -- the figure of a sweep: T∞ (or a τ, operations/s, or a
 * column's mean) against a numeric variable of the runs' metadata, one
 * line per value of another, each point the mean of its repeats with its
 * Student-t interval (a single run: its fit's own interval).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grouping.h"
#include "plot.h"

struct point {
    char *line;       /* the --by group (and column) it belongs to */
    double x;
    double *y;        /* its repeats */
    size_t n, cap;
    tb_estimate own;  /* the fit's interval, for a point of one run */
};

/* X of TEXT, a variable's value: a number and a unit; frequencies in MHz
 * ("600MHz", "1.2GHz").  0 with the unit in UNIT, or -1. */
static int parse_x(const char *text, double *x, char *unit, size_t len)
{
    char *end;
    *x = strtod(text, &end);
    if (end == text || !isfinite(*x))
        return -1;
    while (*end == ' ')
        end++;
    static const struct { const char *suffix; double scale; } hz[] = {
        {"Hz", 1e-6}, {"kHz", 1e-3}, {"MHz", 1}, {"GHz", 1e3},
    };
    for (size_t i = 0; i < sizeof hz / sizeof *hz; i++)
        if (!strcasecmp(end, hz[i].suffix)) {
            *x *= hz[i].scale;
            snprintf(unit, len, "MHz");
            return 0;
        }
    snprintf(unit, len, "%s", end);
    return 0;
}

/* The value the figure draws of row R: 0, or -1 when the row has none. */
static int y_of(const struct plot_settings *s, const tb_result *r, double *y, tb_estimate *own,
                char *err, size_t errlen)
{
    const char *what = s->sweep_y ? s->sweep_y : "tinf";
    *own = (tb_estimate){NAN, NAN, NAN};
    if (!strcmp(what, "tinf")) {
        *own = r->t_inf;
    } else if (!strncmp(what, "tau", 3)) {
        int j = what[3] - '1';
        if (j >= r->order) {
            snprintf(err, errlen, "%s: %s: no τ%d in a fit of %d terms", r->file, r->column, j + 1,
                     r->order);
            return -1;
        }
        *own = r->tau[j];
    } else if (!strcmp(what, "ops")) {
        own->value = r->ops_per_s;
    } else {   /* mean:COLUMN, of the run itself */
        char why[TB_ERRMAX];
        tb_run *run = tb_run_read(r->file, NULL, why, sizeof why);
        size_t idx;
        tb_column_summary sum;
        if (!run) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        ssize_t n = tb_run_select(run, what + 5, &idx, 1, why, sizeof why);
        if (n != 1 || tb_column_summarise(tb_run_column(run, idx), &sum) < 0) {
            snprintf(err, errlen, n > 1 ? "%s: --y %s names %zd columns" : "%s: %s", r->file,
                     n > 1 ? what : why, n);
            tb_run_free(run);
            return -1;
        }
        own->value = sum.mean;
        tb_run_free(run);
    }
    *y = own->value;
    if (!isfinite(*y)) {
        snprintf(err, errlen, "%s: %s: no %s", r->file, r->column, what);
        return -1;
    }
    return 0;
}

static const char *y_label(const struct plot_settings *s, char *buf, size_t len)
{
    const char *what = s->sweep_y ? s->sweep_y : "tinf";
    if (!strcmp(what, "tinf"))
        return "T∞ (°C)";
    if (!strncmp(what, "tau", 3))
        snprintf(buf, len, "τ%c (s)", what[3]);
    else if (!strcmp(what, "ops"))
        snprintf(buf, len, "operations/s");
    else
        snprintf(buf, len, "mean of %s", what + 5);
    return buf;
}

static int compare_points(const void *a, const void *b)
{
    const struct point *p = a, *q = b;
    int c = tb_natural_compare(p->line, q->line);
    return c ? c : (p->x > q->x) - (p->x < q->x);
}

static const int line_colours[] = {
    C_BLUE, C_RED, C_GREEN, C_ORANGE, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE, C_GREY,
};
static const char *const line_styles[] = {"•", "■", "▲", "◆", "▼"};
static const double line_style_size[] = {1.6, 0.9, 0.9, 1.0, 0.9};

/* Row R's point PT: its x (--x, in UNIT), the line it is drawn on (--by,
 * and its column among several), the fit's interval; and its value *Y.
 * 0, or TB_EXIT_INPUT, said. */
static int sweep_point(const struct plot_settings *s, const struct tb_grouping *xg,
                       const struct tb_grouping *by, int columns, const tb_result *r,
                       struct point *pt, double *y, char *unit, size_t unitlen)
{
    char err[TB_ERRMAX];
    char *xt = tb_grouping_of(xg, r->file, NULL, r, err, sizeof err);
    if (!xt || parse_x(xt, &pt->x, unit, unitlen) < 0) {
        if (xt)
            fprintf(stderr, "tb-plot: %s: --x %s: '%s' is not a number (600, 1.2GHz); "
                    "draw a line per value with --by instead\n", r->file, s->sweep_x, xt);
        else
            fprintf(stderr, "tb-plot: %s\n", err);
        free(xt);
        return TB_EXIT_INPUT;
    }
    free(xt);
    if (y_of(s, r, y, &pt->own, err, sizeof err) < 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return TB_EXIT_INPUT;
    }
    char *line = by ? tb_grouping_of(by, r->file, NULL, r, err, sizeof err) : strdup("");
    if (line && columns) {
        char *with = NULL;
        if (asprintf(&with, "%s%s%s", line, *line ? ": " : "", r->column) < 0)
            with = NULL;
        free(line);
        line = with;
    }
    if (!line) {
        fprintf(stderr, "tb-plot: %s\n", by ? err : "out of memory");
        return TB_EXIT_INPUT;
    }
    pt->line = line;
    pt->y = NULL;
    pt->n = pt->cap = 0;
    return 0;
}

/* Add the repeat Y of point NEW to POINTS (*NPOINTS): to the point of its
 * line and x, or NEW itself, its line taken.  0, or -1 when memory runs
 * out. */
static int add_repeat(struct point *points, size_t *npoints, struct point *new, double y)
{
    size_t p = 0;
    while (p < *npoints && !(points[p].x == new->x && !strcmp(points[p].line, new->line)))
        p++;
    if (p == *npoints) {
        points[(*npoints)++] = *new;
    } else {
        free(new->line);
    }
    new->line = NULL;
    struct point *pt = &points[p];
    if (pt->n == pt->cap) {
        size_t cap = pt->cap ? 2 * pt->cap : 4;
        double *more = realloc(pt->y, cap * sizeof *more);
        if (!more)
            return -1;
        pt->y = more;
        pt->cap = cap;
    }
    pt->y[pt->n++] = y;
    return 0;
}

/* The rows' points, one a line and x, each with its repeats; every run in
 * one unit of --x, which goes to UNIT.  TB_EXIT_OK, or what went wrong,
 * said. */
static int collect_points(const struct plot_settings *s, const struct tb_grouping *xg,
                          const struct tb_grouping *by, const tb_result *rows, size_t nrows,
                          struct point *points, size_t *npoints, char *unit, size_t unitlen)
{
    int columns = 0;
    for (size_t i = 1; i < nrows; i++)
        columns |= strcmp(rows[i].column, rows[0].column) != 0;
    for (size_t i = 0; i < nrows; i++) {
        char this_unit[64] = "";
        struct point pt;
        double y;
        int status = sweep_point(s, xg, by, columns, &rows[i], &pt, &y, this_unit, sizeof this_unit);
        if (status)
            return status;
        if (i == 0) {
            snprintf(unit, unitlen, "%s", this_unit);
        } else if (strcmp(this_unit, unit)) {
            fprintf(stderr, "tb-plot: %s: --x %s: unit '%s', where other runs have '%s'\n",
                    rows[i].file, s->sweep_x, this_unit, unit);
            free(pt.line);
            return TB_EXIT_INPUT;
        }
        if (add_repeat(points, npoints, &pt, y) < 0) {
            fprintf(stderr, "tb-plot: out of memory\n");
            return TB_EXIT_OUTPUT;
        }
    }
    return TB_EXIT_OK;
}

/* One line of the sweep, points START to END - 1 (LINE of NLINES), its
 * error bars DODGE apart from the other lines' at one x; its legend's
 * entry in LG.  -1 when memory runs out. */
static int draw_sweep_line(const struct point *points, size_t start, size_t end, size_t line,
                           size_t nlines, double dodge, const double *mean, const double *lo,
                           const double *hi, struct legend *lg)
{
    size_t n = end - start;
    double *x = malloc(n * sizeof *x);
    if (!x)
        return -1;
    for (size_t k = 0; k < n; k++)
        x[k] = points[start + k].x + dodge * ((double)line - (double)(nlines - 1) / 2);
    int colour = line_colours[line % (sizeof line_colours / sizeof *line_colours)];
    const char *symbol = line_styles[line % (sizeof line_styles / sizeof *line_styles)];
    draw_line(n, x, mean + start, NAN, colour, 1, 1.5);
    plcol0(colour);
    figure_pen(1.5);
    plerry((PLINT)n, x, lo + start, hi + start);
    occupy_points(n, x, lo + start, 2);
    occupy_points(n, x, hi + start, 2);
    plschr(0, line_style_size[line % (sizeof line_styles / sizeof *line_styles)]);
    plstring((PLINT)n, x, mean + start, symbol);
    plschr(0, 1.0);
    char text[200];
    size_t most = 0;
    for (size_t k = start; k < end; k++)
        most = points[k].n > most ? points[k].n : most;
    snprintf(text, sizeof text, "%s%s(%zu run%s a point)", points[start].line,
             *points[start].line ? " " : "", most, most == 1 ? "" : "s");
    legend_points(lg, text, colour);
    lg->symbol[lg->n - 1] = symbol;
    free(x);
    return 0;
}

/* The figure of the points (sorted by line, then x), --x's values in
 * UNIT.  TB_EXIT_OK, or TB_EXIT_OUTPUT when memory runs out. */
static int draw_sweep(const struct plot_settings *s, const struct point *points, size_t npoints,
                      const char *unit)
{
    /* The lines: runs of points of one name, in natural order. */
    size_t nlines = 0;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    double *mean = calloc(3 * npoints + 1, sizeof *mean), *lo = mean + npoints, *hi = lo + npoints;
    if (!mean) {
        fprintf(stderr, "tb-plot: out of memory\n");
        return TB_EXIT_OUTPUT;
    }
    for (size_t p = 0; p < npoints; p++) {
        double half;
        nlines += p == 0 || strcmp(points[p].line, points[p - 1].line) != 0;
        mean[p] = tb_mean_ci(points[p].y, points[p].n, s->m.fit.level, &half);
        lo[p] = points[p].n >= 2 ? mean[p] - half : points[p].own.lo;
        hi[p] = points[p].n >= 2 ? mean[p] + half : points[p].own.hi;
        if (!isfinite(lo[p]) || !isfinite(hi[p]))
            lo[p] = hi[p] = mean[p];
        xlo = fmin(xlo, points[p].x);
        xhi = fmax(xhi, points[p].x);
        ylo = fmin(ylo, lo[p]);
        yhi = fmax(yhi, hi[p]);
    }
    padded_range(&xlo, &xhi);
    padded_range(&ylo, &yhi);

    char xlabel[128], ybuf[128], title[256];
    const char *key = s->sweep_x + 5;
    snprintf(xlabel, sizeof xlabel, *unit ? "%s (%s)" : "%s", key, unit);
    const char *ylab = y_label(s, ybuf, sizeof ybuf);
    snprintf(title, sizeof title, "%.*s against %s", (int)strcspn(ylab, " ("), ylab, key);
    figure_begin(&s->fig, 1);
    pladv(0);
    draw_axes(0.10, 0.97, 0.12, 0.80, xlo, xhi, ylo, yhi, "bcnst", "bcnstv", xlabel, ylab);
    plcol0(C_BLACK);
    plmtex("t", 5.0, 0.5, 0.5, s->fig.title ? s->fig.title : title);

    struct legend lg = {0};
    double dodge = (xhi - xlo) * 0.006;   /* error bars of lines at one x side by side */
    size_t start = 0, line = 0;
    for (size_t p = 1; p <= npoints; p++) {
        if (p < npoints && !strcmp(points[p].line, points[start].line))
            continue;
        if (draw_sweep_line(points, start, p, line, nlines, dodge, mean, lo, hi, &lg) < 0)
            break;
        start = p;
        line++;
    }
    legend_draw(&lg, PL_POSITION_TOP | PL_POSITION_LEFT);
    legend_free(&lg);
    plcol0(C_BLACK);
    plschr(0, 0.8);
    char note[128];
    snprintf(note, sizeof note, "mean of the repeats, %g %% interval", s->m.fit.level * 100);
    plmtex("t", 1.2, 1.0, 1.0, note);
    plschr(0, 1.0);
    figure_end();
    free(mean);
    return TB_EXIT_OK;
}

int plot_sweep(const struct plot_settings *s, char **paths, int npaths)
{
    tb_result *rows = NULL;
    size_t nrows = 0, npoints = 0;
    struct point *points = NULL;
    struct tb_grouping xg, by;
    char err[TB_ERRMAX], unit[64] = "";
    int have_by = 0, status;

    if ((status = plot_read_results(s, paths, npaths, &rows, &nrows)) == TB_EXIT_INPUT ||
        status == TB_EXIT_OUTPUT) {
        tb_results_free(rows, nrows);
        return status;
    }
    tb_grouping_init(&xg, s->sweep_x, NULL, err, sizeof err);   /* checked with the options */
    if (s->group_by) {
        if (tb_grouping_init(&by, s->group_by, s->group_order, err, sizeof err) < 0) {
            fprintf(stderr, "tb-plot: %s\n", err);
            tb_grouping_free(&xg);
            tb_results_free(rows, nrows);
            return TB_EXIT_INPUT;
        }
        have_by = 1;
    }
    points = calloc(nrows ? nrows : 1, sizeof *points);
    int collected = points ? collect_points(s, &xg, have_by ? &by : NULL, rows, nrows, points,
                                            &npoints, unit, sizeof unit)
                           : TB_EXIT_OUTPUT;
    if (!points)
        fprintf(stderr, "tb-plot: out of memory\n");
    if (collected != TB_EXIT_OK) {
        status = collected;
    } else {
        /* a failed fit (reading's TB_EXIT_FIT) still draws the others */
        qsort(points, npoints, sizeof *points, compare_points);
        int drawn = draw_sweep(s, points, npoints, unit);
        if (drawn != TB_EXIT_OK)
            status = drawn;
    }
    for (size_t p = 0; p < npoints; p++) {
        free(points[p].line);
        free(points[p].y);
    }
    free(points);
    tb_grouping_free(&xg);
    if (have_by)
        tb_grouping_free(&by);
    tb_results_free(rows, nrows);
    return status;
}
