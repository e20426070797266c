/*
 * plot_series.c -- a run's raw series (a second y axis for a second unit,
 * gaps where data are missing) and its run-length analysis.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output.h"
#include "plot.h"

static const int colours[] = {C_BLUE, C_RED, C_GREEN, C_ORANGE, C_PURPLE, C_BROWN, C_TEAL,
                              C_PINK, C_OLIVE};

/* Frequencies in MHz or GHz rather than with an exponent on the axis. */
static double unit_scale(const char *unit, double max, const char **shown)
{
    *shown = unit;
    if (strcmp(unit, "Hz") != 0)
        return 1;
    if (max >= 1e9) {
        *shown = "GHz";
        return 1e9;
    }
    if (max >= 1e6) {
        *shown = "MHz";
        return 1e6;
    }
    if (max >= 1e3) {
        *shown = "kHz";
        return 1e3;
    }
    return 1;
}

/* What raw draws of a column: its points, or for a work counter
 * (NAME_work_done, thermobench's cumulative count of operations) its rate
 * between successive points, in operations per second. */
struct series {
    const char *name;
    const char *unit;
    size_t n;
    const double *t, *v;
    double *owned;          /* the rate's t and v, when computed */
    char label[160];
};

/* What a column in UNIT measures, for an axis of several: "temperature"
 * for °C... "value" when the unit says nothing. */
static const char *quantity_of(const char *unit)
{
    static const struct {
        const char *unit, *quantity;
    } known[] = {
        {"°C", "temperature"}, {"m°C", "temperature"}, {"K", "temperature"},
        {"Hz", "frequency"}, {"kHz", "frequency"}, {"MHz", "frequency"}, {"GHz", "frequency"},
        {"%", "load"}, {"W", "power"}, {"mW", "power"}, {"µW", "power"}, {"uW", "power"},
        {"J", "energy"}, {"mJ", "energy"}, {"µJ", "energy"}, {"uJ", "energy"},
        {"V", "voltage"}, {"mV", "voltage"}, {"A", "current"}, {"mA", "current"},
        {"operations/s", "rate"},
    };
    for (size_t i = 0; unit && i < sizeof known / sizeof *known; i++)
        if (strcmp(unit, known[i].unit) == 0)
            return known[i].quantity;
    return "value";
}

/* A unitless work counter with a name before its suffix, for the label. */
static int is_work_counter(const tb_column *c)
{
    return !*c->unit && strlen(c->name) > strlen("_work_done") && tb_is_work_counter(c->name);
}

static int series_of(const tb_column *c, struct series *se)
{
    memset(se, 0, sizeof *se);
    se->name = c->name;
    se->unit = c->unit;
    se->n = c->n;
    se->t = c->t;
    se->v = c->v;
    snprintf(se->label, sizeof se->label, "%s", c->name);
    if (!is_work_counter(c) || c->n < 2)
        return 0;
    if (!(se->owned = malloc(2 * (c->n - 1) * sizeof *se->owned)))
        return -1;
    double *t = se->owned, *v = se->owned + c->n - 1;
    size_t m = 0;
    for (size_t i = 1; i < c->n; i++) {
        double dt = c->t[i] - c->t[i - 1];
        if (!(dt > 0))
            continue;
        t[m] = c->t[i];
        v[m++] = (c->v[i] - c->v[i - 1]) / dt;
    }
    se->t = t;
    se->v = v;
    se->n = m;
    se->unit = "operations/s";
    snprintf(se->label, sizeof se->label, "%.*s work rate", (int)(strlen(c->name) - 10), c->name);
    return 0;
}

/* A hole in a sparse series is a step over three median periods. */
static double gap_of_series(const struct series *se, double scale)
{
    if (se->n < 3)
        return NAN;
    double *dt = malloc((se->n - 1) * sizeof *dt);
    if (!dt)
        return NAN;
    for (size_t i = 1; i < se->n; i++)
        dt[i - 1] = se->t[i] - se->t[i - 1];
    double med = gsl_stats_median(dt, 1, se->n - 1);
    free(dt);
    return 3 * med / scale;
}

/* The points of SE inside the window, in display units. */
static size_t window_of(const struct series *se, double from, double to, double scale,
                        double vscale, double **x, double **y)
{
    size_t n = 0;
    *x = malloc((se->n ? se->n : 1) * sizeof **x);
    *y = malloc((se->n ? se->n : 1) * sizeof **y);
    if (!*x || !*y)
        return 0;
    for (size_t i = 0; i < se->n; i++) {
        if (se->t[i] < from || se->t[i] > to)
            continue;
        (*x)[n] = se->t[i] / scale;
        (*y)[n++] = se->v[i] / vscale;
    }
    return n;
}

/* The run at PATH and the columns -c names in it (time, the x axis, left
 * out); NULL with a message printed on error. */
static tb_run *read_columns(const char *path, size_t **idx, size_t *n,
                            const struct plot_settings *s)
{
    char err[TB_ERRMAX];
    tb_run *run = tb_run_read(path, NULL, err, sizeof err);

    if (!run) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return NULL;
    }
    for (size_t w = 0; w < tb_run_nwarnings(run); w++)
        fprintf(stderr, "tb-plot: warning: %s\n", tb_run_warning(run, w));
    *n = 0;
    if (!(*idx = malloc(tb_run_ncolumns(run) * sizeof **idx))) {
        fprintf(stderr, "tb-plot: out of memory\n");
        tb_run_free(run);
        return NULL;
    }
    ssize_t m = tb_run_select_all(run, s->columns, s->ncolumns, *idx, err, sizeof err);
    if (m < 0)
        fprintf(stderr, "tb-plot: %s\n", err);
    for (ssize_t k = 0; k < m; k++)
        if ((*idx)[k] != 0)
            (*idx)[(*n)++] = (*idx)[k];
    if (m >= 0 && *n == 0)
        fprintf(stderr, "tb-plot: %s: no column to draw (the time column is the x axis)\n", path);
    if (*n == 0) {
        free(*idx);
        *idx = NULL;
        tb_run_free(run);
        return NULL;
    }
    return run;
}

/* A raw figure's page, worked out before it is drawn (perhaps twice: see
 * figure_draw()). */
struct raw_page {
    const struct plot_settings *s;
    const char *path;
    struct series *se;
    size_t n;
    const size_t *idx;
    size_t amb;                 /* the ambient column's index, or 0 */
    const char *units[2];       /* of the left and right axes */
    double lo[2], hi[2];        /* of each axis, in its shown unit */
    double vscale[2];           /* a value's divisor to its shown unit */
    double t_lo, t_hi, scale;   /* the time axis, and seconds a unit of it */
    const char *xlabel;
    char ylabel[2][192];
};

static void draw_raw_page(void *ctx)
{
    const struct raw_page *p = ctx;
    pladv(0);
    /* the right axis's numbers and label as wide as they are */
    double right = p->units[1] ? fmin(0.97, 1 - figure_axis_margin(p->lo[1], p->hi[1])) : 0.97;
    draw_axes(0.09, right, 0.10, 0.92, p->t_lo, p->t_hi, p->lo[0], p->hi[0],
              "bcnst", p->units[1] ? "bnstvf" : "bcnstvf", p->xlabel, p->ylabel[0]);
    if (p->units[1]) {
        plwind(p->t_lo, p->t_hi, p->lo[1], p->hi[1]);
        plcol0(C_BLACK);
        plbox("", 0, 0, "cmstvf", 0, 0);
        plmtex("r", NUMBER_WIDTH * figure_tick_chars(p->lo[1], p->hi[1]) + 2.2, 0.5, 0.5, p->ylabel[1]);
    }
    /* The right axis's series first, the left's over them, the ambient
     * last: a frequency's floor must not hide the ambient under it. */
    struct legend lg = {0};
    for (int pass = 0; pass < 3; pass++) {
        int a = pass == 0 ? 1 : 0;
        if (!p->units[a])
            continue;
        plwind(p->t_lo, p->t_hi, p->lo[a], p->hi[a]);
        for (size_t k = 0; k < p->n; k++) {
            if ((strcmp(p->se[k].unit, p->units[0]) == 0) != (a == 0) || (pass > 0 && (p->idx[k] == p->amb) != (pass == 2)))
                continue;
            double *x, *y;
            size_t m = window_of(&p->se[k], p->s->m.from, p->s->m.to, p->scale, p->vscale[a], &x, &y);
            int colour = colours[k % 9], style = a == 0 ? 1 : 2;
            if (p->idx[k] == p->amb)
                colour = C_GREY;
            if (m == 1)
                draw_points(1, x, y, colour);
            draw_line(m, x, y, gap_of_series(&p->se[k], p->scale), colour, style, 2);
            free(x);
            free(y);
        }
    }
    for (int a = 0; a < (p->units[1] ? 2 : 1); a++) {
        for (size_t k = 0; k < p->n; k++) {
            if ((strcmp(p->se[k].unit, p->units[0]) == 0) != (a == 0))
                continue;
            char text[512];
            snprintf(text, sizeof text, "%s%s", p->se[k].label,
                     p->units[1] ? (a == 0 ? " (left axis)" : " (right axis)") : "");
            legend_line(&lg, text, p->idx[k] == p->amb ? C_GREY : colours[k % 9], a == 0 ? 1 : 2, 2);
        }
    }
    plwind(p->t_lo, p->t_hi, p->lo[0], p->hi[0]);
    plcol0(C_BLACK);
    plmtex("t", figure_title_lines(1.2), 0.5, 0.5,
           p->s->fig.title ? p->s->fig.title : figure_file_name(p->path));
    legend_draw(&lg, PL_POSITION_BOTTOM | PL_POSITION_RIGHT);
    legend_free(&lg);
}

/* The ambient column, added to the N columns of IDX (room for one more)
 * when temperatures are drawn without it; its index, or 0 without one. */
static size_t with_ambient(const tb_run *run, size_t *idx, size_t *n)
{
    size_t amb = 0;
    for (size_t i = 1; i < tb_run_ncolumns(run); i++)
        if (strcasestr(tb_run_column(run, i)->name, "ambient"))
            amb = i;
    int has_amb = 0, has_temp = 0;
    for (size_t k = 0; k < *n; k++) {
        has_amb |= idx[k] == amb;
        has_temp |= strcmp(tb_run_column(run, idx[k])->unit, "°C") == 0;
    }
    if (amb && !has_amb && has_temp && strcmp(tb_run_column(run, amb)->unit, "°C") == 0)
        idx[(*n)++] = amb;
    return amb;
}

/* The units of the N series, one an axis, into UNITS.  0, or -1 (said)
 * for more than two. */
static int axis_units(const struct series *se, size_t n, const char *units[2], const char *path)
{
    for (size_t k = 0; k < n; k++) {
        const char *u = se[k].unit;
        if ((units[0] && strcmp(units[0], u) == 0) || (units[1] && strcmp(units[1], u) == 0))
            continue;
        if (!units[0]) {
            units[0] = u;
        } else if (!units[1]) {
            units[1] = u;
        } else {
            fprintf(stderr, "tb-plot: %s: columns in more than two units (%s, %s, %s): "
                    "choose columns of at most two\n", path, *units[0] ? units[0] : "none",
                    *units[1] ? units[1] : "none", *u ? u : "none");
            return -1;
        }
    }
    return 0;
}

/* The time span T and each axis's values LO..HI of the N series within
 * the window; 0, or -1 when it holds no point. */
static int data_range(const struct plot_settings *s, const struct series *se, size_t n,
                      const char *unit0, double t[2], double lo[2], double hi[2])
{
    t[0] = lo[0] = lo[1] = INFINITY;
    t[1] = hi[0] = hi[1] = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        int axis = strcmp(se[k].unit, unit0) == 0 ? 0 : 1;
        for (size_t i = 0; i < se[k].n; i++) {
            if (se[k].t[i] < s->m.from || se[k].t[i] > s->m.to)
                continue;
            t[0] = fmin(t[0], se[k].t[i]);
            t[1] = fmax(t[1], se[k].t[i]);
            lo[axis] = fmin(lo[axis], se[k].v[i]);
            hi[axis] = fmax(hi[axis], se[k].v[i]);
        }
    }
    return isfinite(t[0]) ? 0 : -1;
}

/* Each axis of PAGE scaled to a readable unit, padded, labelled: the
 * column, or the quantity of its columns, and the unit. */
static void scale_axes(struct raw_page *page)
{
    const char *const *units = page->units;
    const char *shown[2] = {units[0], units[1]};
    for (int a = 0; a < (units[1] ? 2 : 1); a++) {
        page->vscale[a] = unit_scale(units[a], fmax(fabs(page->lo[a]), fabs(page->hi[a])), &shown[a]);
        page->lo[a] /= page->vscale[a];
        page->hi[a] /= page->vscale[a];
        /* The right axis spans at least a tenth of its level: a work rate
         * steady to 0.1 % is drawn flat, not as swings over the height. */
        double level = fmax(fabs(page->lo[a]), fabs(page->hi[a]));
        if (a == 1 && page->hi[a] - page->lo[a] < 0.1 * level) {
            double mid = (page->lo[a] + page->hi[a]) / 2;
            page->lo[a] = mid - 0.05 * level;
            page->hi[a] = mid + 0.05 * level;
        }
        padded_range(&page->lo[a], &page->hi[a]);
    }
    if (units[1])   /* the right axis's floor clear of the left's (a frequency's of the ambient) */
        page->lo[1] -= (page->hi[1] - page->lo[1]) * 0.08;
    for (int a = 0; a < 2; a++) {
        const char *only = NULL;
        size_t on_axis = 0;
        for (size_t k = 0; units[a] && k < page->n; k++)
            if (strcmp(page->se[k].unit, units[a]) == 0 && page->idx[k] != page->amb) {
                only = page->se[k].label;
                on_axis++;
            }
        const char *what = on_axis == 1 ? only : quantity_of(units[a]);
        if (shown[a] && *shown[a])
            snprintf(page->ylabel[a], sizeof page->ylabel[a], "%s (%s)", what, shown[a]);
        else
            snprintf(page->ylabel[a], sizeof page->ylabel[a], "%s", what);
    }
}

int plot_raw(const struct plot_settings *s, const char *path)
{
    size_t *idx, n;
    tb_run *run = read_columns(path, &idx, &n, s);
    const char *units[2] = {NULL, NULL};
    int status = TB_EXIT_OK;

    if (!run)
        return TB_EXIT_INPUT;
    /* Draw the ambient too when there is one and temperatures are shown. */
    size_t amb = with_ambient(run, idx, &n);
    struct series *se = calloc(n ? n : 1, sizeof *se);
    if (!se) {
        fprintf(stderr, "tb-plot: out of memory\n");
        free(idx);
        tb_run_free(run);
        return TB_EXIT_INPUT;
    }
    for (size_t k = 0; k < n; k++) {
        if (series_of(tb_run_column(run, idx[k]), &se[k]) < 0) {
            fprintf(stderr, "tb-plot: out of memory\n");
            status = TB_EXIT_INPUT;
            goto done;
        }
    }
    if (axis_units(se, n, units, path) < 0) {
        status = TB_EXIT_INPUT;
        goto done;
    }
    double t[2];
    struct raw_page page = {.s = s, .path = path, .se = se, .n = n, .idx = idx, .amb = amb,
                            .units = {units[0], units[1]}, .vscale = {1, 1}};
    if (data_range(s, se, n, units[0], t, page.lo, page.hi) < 0) {
        fprintf(stderr, "tb-plot: %s: no points to draw in the window\n", path);
        status = TB_EXIT_INPUT;
        goto done;
    }
    page.scale = time_scale(t[1] - t[0], &page.xlabel);
    page.t_lo = t[0] / page.scale;
    page.t_hi = t[1] / page.scale;
    padded_range(&page.t_lo, &page.t_hi);
    scale_axes(&page);
    figure_draw(&s->fig, 1, draw_raw_page, &page);
done:
    for (size_t k = 0; k < n; k++)
        free(se[k].owned);
    free(se);
    free(idx);
    tb_run_free(run);
    return status;
}

/* A run-length figure's page, worked out before it is drawn. */
struct runlength_page {
    const struct plot_settings *s;
    const char *path, *column;
    const tb_run_length *rl;
    const char *xl;             /* the x axis's label */
    double scale;               /* seconds a unit of the x axis */
    double full, tol;           /* T∞ of the whole run, the band's half width */
    double lo, hi, x_hi;        /* the frame */
    double *xs;                 /* room for 4 numbers a prefix */
};

static void draw_runlength_page(void *ctx)
{
    const struct runlength_page *p = ctx;
    const tb_run_length rl = *p->rl;
    double scale = p->scale, full = p->full, tol = p->tol, lo = p->lo, hi = p->hi, x_hi = p->x_hi;
    const char *xl = p->xl;
    pladv(0);
    char ylabel[128], title[512];
    snprintf(ylabel, sizeof ylabel, "T∞ of %s (%s)", p->column, p->s->m.ambient ? "°C above ambient" : "°C");
    draw_axes(0.09, 0.97, 0.10, 0.92, 0, x_hi, lo, hi, "bcnst", "bcnstv", xl, ylabel);
    snprintf(title, sizeof title, "%s", p->s->fig.title ? p->s->fig.title : figure_file_name(p->path));
    plcol0(C_BLACK);
    plmtex("t", figure_title_lines(1.2), 0.5, 0.5, title);

    double bx[4] = {0, x_hi, x_hi, 0}, by[4] = {full - tol, full - tol, full + tol, full + tol};
    plcol0(C_BAND);
    plfill(4, bx, by);
    double fx[2] = {0, x_hi}, fy[2] = {full, full};
    draw_line(2, fx, fy, NAN, C_GREY, 3, 1.5);

    struct legend lg = {0};
    /* Every prefix is drawn, however long the run. */
    double *xs = p->xs, *ys = xs + rl.nprefix, *ylo = ys + rl.nprefix, *yhi = ylo + rl.nprefix;
    for (int pass = 0; pass < 2; pass++) {   /* unsound estimates first, grey */
        size_t k2 = 0;
        for (size_t k = 0; k < rl.nprefix; k++) {
            const tb_prefix *e = &rl.prefix[k];
            int sound = e->ok && !(e->flags & TB_FIT_DEGENERATE);
            if (!e->ok || sound != pass)
                continue;
            xs[k2] = e->length / scale;
            ys[k2] = fmin(fmax(e->t_inf.value, lo), hi);
            ylo[k2] = fmin(fmax(isfinite(e->t_inf.lo) ? e->t_inf.lo : ys[k2], lo), hi);
            yhi[k2] = fmin(fmax(isfinite(e->t_inf.hi) ? e->t_inf.hi : ys[k2], lo), hi);
            k2++;
        }
        int colour = pass ? C_BLUE : C_GREY;
        plcol0(colour);
        figure_pen(1.5);
        if (k2)
            plerry((PLINT)k2, xs, ylo, yhi);
        for (size_t i = 0; i < k2; i++)
            occupy_segment(xs[i], ylo[i], xs[i], yhi[i], 1);
        occupy_points(k2, xs, ys, pass ? 24 : 6);   /* a hidden estimate costs most */
        plschr(0, 1.2);
        if (k2)
            plstring((PLINT)k2, xs, ys, "•");
        plschr(0, 1.0);
    }
    char t_full[128], t_band[64], t_short[128];
    legend_points(&lg, "T∞ fitted to the run up to each length, with its interval", C_BLUE);
    legend_points(&lg, "a flagged (degenerate) fit, clipped to the frame", C_GREY);
    char full_text[48];
    tb_format_number(full_text, sizeof full_text, full,
                     tb_interval_decimals(full, rl.t_inf.lo, rl.t_inf.hi, 2), 0);
    snprintf(t_full, sizeof t_full, "T∞ of the whole run: %s °C", full_text);
    legend_line(&lg, t_full, C_GREY, 3, 1.5);
    snprintf(t_band, sizeof t_band, "± %g °C", tol);
    legend_line(&lg, t_band, C_BAND, 1, 8);
    if (isfinite(rl.shortest)) {
        double sx[2] = {rl.shortest / scale, rl.shortest / scale}, sy[2] = {lo, hi};
        draw_line(2, sx, sy, NAN, C_RED, 2, 2);
        double whole = rl.prefix[rl.nprefix - 1].length;
        if (rl.shortest >= whole * (1 - 1e-9))   /* as tb-fit says it */
            snprintf(t_short, sizeof t_short, "shortest run: the whole run (%.0f s), no shorter one; "
                     "settles after %.0f s", whole, rl.settle);
        else
            snprintf(t_short, sizeof t_short, "shortest run: %.0f s (%.1f min); settles after %.0f s",
                     rl.shortest, rl.shortest / 60, rl.settle);
    } else {
        snprintf(t_short, sizeof t_short, "no prefix stays within ± %g °C; settles after %.0f s",
                 tol, rl.settle);
    }
    legend_line(&lg, t_short, C_RED, 2, 2);
    legend_draw(&lg, PL_POSITION_BOTTOM | PL_POSITION_RIGHT);
    legend_free(&lg);
}

int plot_runlength(const struct plot_settings *s, const char *path)
{
    char err[TB_ERRMAX], spec[32];
    tb_run *run = tb_run_read(path, NULL, err, sizeof err);

    if (!run) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return TB_EXIT_INPUT;
    }
    /* One column is drawn: the first -c names, or the first default one. */
    struct plot_settings one = *s;
    const char *first = spec;
    if (s->ncolumns == 0) {
        size_t *idx = malloc(tb_run_ncolumns(run) * sizeof *idx), a;
        ssize_t amb = -1;
        if (s->m.ambient && tb_run_select(run, s->m.ambient, &a, 1, err, sizeof err) == 1)
            amb = (ssize_t)a;
        size_t n = idx ? tb_default_columns(run, amb, idx, NULL, NULL) : 0;
        snprintf(spec, sizeof spec, "%zu", n > 0 ? idx[0] + 1 : 0);
        if (n > 1)
            fprintf(stderr, "tb-plot: note: %s: drawing %s only; name another with -c\n", path,
                    tb_run_column(run, idx[0])->name);
        free(idx);
        if (n > 0) {
            one.columns = &first;
            one.ncolumns = 1;
        }
    }
    tb_analysis *an = plot_analyse(&one, run, 1);
    if (!an) {
        tb_run_free(run);
        return TB_EXIT_INPUT;
    }
    int status = tb_analysis_status(an);
    const tb_analysed_column *col = tb_analysis_column(an, 0);
    if (status == TB_EXIT_INPUT || !col || !col->run_length) {
        tb_analysis_free(an);
        tb_run_free(run);
        return status == TB_EXIT_OK ? TB_EXIT_INPUT : status;
    }
    if (tb_analysis_ncolumns(an) > 1)
        fprintf(stderr, "tb-plot: note: %s: drawing %s only; name one column with -c\n", path,
                col->column->name);
    const tb_column *c = col->column;
    const tb_run_length rl = *col->run_length;

    const char *xlabel;
    double scale = time_scale(rl.prefix[rl.nprefix - 1].length, &xlabel);
    const char *xl = scale > 1 ? "run length (min)" : "run length (s)";
    (void)xlabel;
    double full = rl.t_inf.value, tol = s->tolerance;
    /* Room for the band and the sound estimates; wild ones are clipped. */
    double lo = full - 4 * tol, hi = full + 4 * tol;
    for (size_t k = 0; k < rl.nprefix; k++) {
        const tb_prefix *p = &rl.prefix[k];
        if (p->ok && !(p->flags & TB_FIT_DEGENERATE) && fabs(p->t_inf.value - full) < 10 * tol) {
            lo = fmin(lo, fmax(p->t_inf.lo, full - 10 * tol));
            hi = fmax(hi, fmin(p->t_inf.hi, full + 10 * tol));
        }
    }
    double x_hi = rl.prefix[rl.nprefix - 1].length / scale * 1.04;
    /* Every prefix is drawn, however long the run. */
    struct runlength_page page = {s, path, c->name, col->run_length, xl, scale, full, tol, lo, hi, x_hi,
                                  malloc(4 * rl.nprefix * sizeof *page.xs)};
    if (!page.xs) {
        fputs("tb-plot: out of memory\n", stderr);
        tb_analysis_free(an);
        tb_run_free(run);
        return TB_EXIT_OUTPUT;
    }
    figure_draw(&s->fig, 1, draw_runlength_page, &page);
    free(page.xs);
    tb_analysis_free(an);
    tb_run_free(run);
    return TB_EXIT_OK;
}
