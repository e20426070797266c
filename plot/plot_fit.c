/*
 * plot_fit.c -- a run's fit: the points, the fitted curve, each term's
 * exponential dashed, T∞ with its confidence band, a legend with the
 * formula and rmse, and the residuals in a panel below.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "plot.h"

#define CURVE_POINTS 400

static const int series_colour[] = {C_BLUE, C_ORANGE, C_GREEN, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE};
static const int term_colour[] = {C_GREEN, C_ORANGE, C_PURPLE, C_BROWN};

/* A column of the analysis as a panel draws it. */
struct panel_data {
    const tb_column *c;
    const double *t, *y;    /* the window, ambient subtracted */
    size_t n;
    const tb_fit *fit;      /* NULL when the fit failed: */
    const char *why;        /* why */
    double worst;           /* the largest |residual| (0 without a fit) */
};

/* The largest |residual| of D's fit, 0 when it has none. */
static double worst_residual(const struct panel_data *d)
{
    double worst = 0;
    for (size_t i = 0; d->fit && i < d->n; i++)
        worst = fmax(worst, fabs(d->y[i] - tb_fit_eval(d->fit, 0, d->t[i] - d->t[0])));
    return worst;
}

static double min_of(const double *x, size_t n)
{
    double m = INFINITY;
    for (size_t i = 0; i < n; i++)
        m = fmin(m, x[i]);
    return m;
}

static double max_of(const double *x, size_t n)
{
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, x[i]);
    return m;
}

/* The fitted curve, or the term J (-1: the whole model; -2: T∞ alone),
 * at CURVE_POINTS times over the panel's span, in display units. */
static void model_curve(const struct panel_data *p, int j, double scale, double *x, double *y)
{
    const tb_fit *f = p->fit;
    double t0 = p->t[0], span = p->t[p->n - 1] - t0;
    for (int i = 0; i < CURVE_POINTS; i++) {
        double t = span * i / (CURVE_POINTS - 1);
        x[i] = (t0 + t) / scale;
        if (j == -1)
            y[i] = tb_fit_eval(f, 0, t);
        else if (j == -2)
            y[i] = f->series[0].t_inf.value;
        else
            y[i] = f->series[0].t_inf.value + f->series[0].k[j].value * exp(-t / f->tau[j].value);
    }
}

/* "53.65 [53.57, 53.73]" in the reports' numeric style; "not determined"
 * where the interval is wider than WIDEST (as tb-fit says it). */
static void estimate_text(const tb_estimate *e, int fallback, double widest, char *out, size_t size)
{
    tb_estimate_text t;
    if (!tb_estimate_determined(e, widest) && isfinite(e->lo))
        snprintf(out, size, "not determined");
    else if (tb_format_estimate(&t, e->value, e->lo, e->hi,
                           tb_interval_decimals(e->value, e->lo, e->hi, fallback), 0))
        snprintf(out, size, "%s [%s, %s]", t.value, t.lo, t.hi);
    else
        snprintf(out, size, "%s [interval unknown]", t.value);
}

/* The legend of one column's fit: its points, each term's τ (and name),
 * the curve, T∞ and the flags in words. */
static void legend_of_fit(const struct plot_settings *s, const struct panel_data *d, struct legend *lg)
{
    char text[512], est[160], flags[256];
    const tb_fit *f = d->fit;
    snprintf(text, sizeof text, "%s, %zu points", d->c->name, d->n);
    legend_points(lg, text, C_BLUE);
    if (!f)
        return;
    const char *labels[TB_FIT_MAX_ORDER];
    tb_model_labels(&s->m, f, 0, labels);
    for (int j = 0; j < f->order; j++) {
        estimate_text(&f->tau[j], 1, TB_WIDEST_SPANS * (d->t[d->n - 1] - d->t[0]), est, sizeof est);
        snprintf(text, sizeof text, "term %d: τ%d %s s%s%s", j + 1, j + 1, est,
                 labels[j] ? ", " : "", labels[j] ? labels[j] : "");
        legend_line(lg, text, term_colour[j], 2, 1.5);
    }
    snprintf(text, sizeof text, "fit: %d term%s, rmse %.3g °C", f->order, f->order == 1 ? "" : "s",
             f->rmse);
    legend_line(lg, text, C_RED, 1, 1.8);
    estimate_text(&f->series[0].t_inf, 2, TB_WIDEST_SPANS * tb_values_span(d->y, d->n), est,
                  sizeof est);
    if (strncmp(est, "not", 3) == 0)
        snprintf(text, sizeof text, "T∞ %s", est);
    else
        snprintf(text, sizeof text, "T∞ %s °C (%g %%)", est, s->m.fit.level * 100);
    legend_line(lg, text, C_GREY, 3, 1.5);
    if (f->flags) {
        snprintf(text, sizeof text, "flagged: %s", tb_fit_flags_text(f->flags, flags, sizeof flags));
        for (char *c = text; *c; c++)
            if (*c == ';')
                *c = ',';
        legend_text(lg, text);
    }
}

static void draw_fit_panel(const struct plot_settings *s, const struct panel_data *p, size_t np,
                           double vx0, double vy0, double vy1, const char *title,
                           double scale, double t_lo, double t_hi)
{
    double ylo = INFINITY, yhi = -INFINITY;
    const char *unit = s->m.ambient ? "°C above ambient" : "°C";
    char ylabel[128];

    for (size_t k = 0; k < np; k++) {
        ylo = fmin(ylo, min_of(p[k].y, p[k].n));
        yhi = fmax(yhi, max_of(p[k].y, p[k].n));
    }
    double span = yhi - ylo;
    for (size_t k = 0; k < np; k++) {
        const tb_estimate *e = p[k].fit ? &p[k].fit->series[0].t_inf : NULL;
        /* T∞ and its band, unless a degenerate fit throws them far off */
        if (e && e->value < yhi + span && e->value > ylo - span) {
            ylo = fmin(ylo, e->value);
            yhi = fmax(yhi, e->value);
            if (e->hi < yhi + span / 4 && e->lo > ylo - span / 4) {
                ylo = fmin(ylo, e->lo);
                yhi = fmax(yhi, e->hi);
            }
        }
    }
    padded_range(&ylo, &yhi);
    snprintf(ylabel, sizeof ylabel, "%s (%s)", np == 1 ? p[0].c->name : "temperature", unit);
    draw_axes(vx0, 0.97, vy0, vy1, t_lo, t_hi, ylo, yhi, "bcst", "bcnstv", NULL, ylabel);
    plcol0(C_BLACK);
    plmtex("t", figure_title_lines(0.8), 0.5, 0.5, title);

    struct legend lg = {0};
    char text[512], est[160];
    double x[CURVE_POINTS], y[CURVE_POINTS];
    /* The T∞ bands first: under the data, never over them. */
    for (size_t k = 0; k < np; k++) {
        const tb_estimate *e = p[k].fit ? &p[k].fit->series[0].t_inf : NULL;
        if (e && isfinite(e->lo) && isfinite(e->hi)) {
            double bx[4] = {t_lo, t_hi, t_hi, t_lo}, by[4] = {e->lo, e->lo, e->hi, e->hi};
            plcol0(C_BAND);
            plfill(4, bx, by);
        }
    }
    for (size_t k = 0; k < np; k++) {
        const struct panel_data *d = &p[k];
        double *xs = malloc(d->n * sizeof *xs);
        if (!xs)
            continue;
        for (size_t i = 0; i < d->n; i++)
            xs[i] = d->t[i] / scale;
        draw_points(d->n, xs, d->y, np == 1 ? C_BLUE : series_colour[k % 8]);
        free(xs);
        if (np == 1) {
            legend_of_fit(s, d, &lg);
        } else {
            /* one entry a column: its colour, T∞, and whether it is flagged */
            if (d->fit)
                estimate_text(&d->fit->series[0].t_inf, 2, TB_WIDEST_SPANS * tb_values_span(d->y, d->n),
                              est, sizeof est);
            snprintf(text, sizeof text, "%s: %s%s%s", d->c->name, d->fit ? "T∞ " : "fit failed",
                     d->fit ? est : "", d->fit ? d->fit->flags ? " °C, flagged" : " °C" : "");
            legend_line(&lg, text, series_colour[k % 8], 1, 2.2);
        }
    }
    /* the model over the points, thin enough to show them round it */
    for (size_t k = 0; k < np; k++) {
        const tb_fit *f = p[k].fit;
        int colour = np == 1 ? C_RED : series_colour[k % 8];
        if (!f)
            continue;
        model_curve(&p[k], -2, scale, x, y);
        draw_line(CURVE_POINTS, x, y, NAN, C_GREY, 3, 1.5);
        for (int j = 0; np == 1 && j < f->order; j++) {
            model_curve(&p[k], j, scale, x, y);
            draw_line(CURVE_POINTS, x, y, NAN, term_colour[j], 2, 1.5);
        }
        model_curve(&p[k], -1, scale, x, y);
        draw_line(CURVE_POINTS, x, y, NAN, colour, 1, 1.8);
    }
    for (size_t k = 0; np == 1 && k < np; k++) {
        if (!p[k].fit) {
            char msg[TB_ERRMAX + 64];
            snprintf(msg, sizeof msg, "%s: fit failed: %s", p[k].c->name, p[k].why);
            plcol0(C_RED);
            plmtex("t", -1.5, 0.5, 0.5, msg);
        }
    }
    plschr(0, 0.85);
    legend_draw(&lg, PL_POSITION_BOTTOM | PL_POSITION_RIGHT);
    plschr(0, 1.0);
    legend_free(&lg);
}

/* The residual panel's half height: the largest residual and a tenth. */
static double residual_limit(const struct panel_data *p, size_t np)
{
    double lim = 0;
    for (size_t k = 0; k < np; k++)
        lim = fmax(lim, p[k].worst);
    return lim > 0 ? 1.1 * lim : 1.1;
}

static void draw_residual_panel(const struct panel_data *p, size_t np, double vx0, double vy0, double vy1,
                                const char *xlabel, double scale, double t_lo, double t_hi)
{
    double lim = residual_limit(p, np);
    draw_axes(vx0, 0.97, vy0, vy1, t_lo, t_hi, -lim, lim, "bcnst", "bcnstv", xlabel,
              "residual (°C)");
    double zx[2] = {t_lo, t_hi}, zy[2] = {0, 0};
    draw_line(2, zx, zy, NAN, C_BLACK, 1, 1);
    for (size_t k = 0; k < np; k++) {
        if (!p[k].fit)
            continue;
        double *x = malloc(p[k].n * sizeof *x), *r = malloc(p[k].n * sizeof *r);
        if (x && r) {
            for (size_t i = 0; i < p[k].n; i++) {
                x[i] = p[k].t[i] / scale;
                r[i] = p[k].y[i] - tb_fit_eval(p[k].fit, 0, p[k].t[i] - p[k].t[0]);
            }
            draw_points(p[k].n, x, r, np == 1 ? C_BLUE : series_colour[k % 8]);
        }
        free(x);
        free(r);
    }
}

/* A fit figure's page: its columns' panels, worked out before it is drawn. */
struct fit_page {
    const struct plot_settings *s;
    const char *path;
    const struct panel_data *p;
    size_t ncol, rows;          /* rows: 1 with --overlay, else ncol */
    const char *xlabel;
    double scale, t_lo, t_hi;   /* seconds a unit of the time axis; its ends */
};

static void draw_fit_page(void *ctx)
{
    const struct fit_page *f = ctx;
    pladv(0);
    double band = 1.0 / (double)f->rows;
    /* the y label and numbers of five characters, or as many as the
     * widest panel's: one left edge, so the panels' time axes line up */
    double left = figure_lines_across(6.4);
    for (size_t k = 0; k < f->ncol; k++) {
        double lo = min_of(f->p[k].y, f->p[k].n), hi = max_of(f->p[k].y, f->p[k].n), lim = residual_limit(&f->p[k], 1);
        padded_range(&lo, &hi);
        left = fmax(left, fmax(figure_axis_margin(lo, hi), figure_axis_margin(-lim, lim)));
    }
    for (size_t k = 0; k < f->rows; k++) {
        char title[512];
        double top = 1 - band * (double)k, bottom = top - band;
        double below = figure_lines(k + 1 == f->rows ? 3.8 : 2.4);   /* numbers (and the x label) */
        double inner = top - figure_lines(2.2) - (bottom + below);
        double res_top = bottom + below + 0.27 * inner;
        if (f->s->fig.title)
            snprintf(title, sizeof title, "%s", f->s->fig.title);
        else if (f->s->overlay)
            snprintf(title, sizeof title, "%s", figure_file_name(f->path));
        else
            snprintf(title, sizeof title, "%s: %s", figure_file_name(f->path), f->p[k].c->name);
        draw_fit_panel(f->s, f->s->overlay ? f->p : &f->p[k], f->s->overlay ? f->ncol : 1, left,
                       res_top + figure_lines(0.8), top - figure_lines(2.2), title, f->scale,
                       f->t_lo, f->t_hi);
        draw_residual_panel(f->s->overlay ? f->p : &f->p[k], f->s->overlay ? f->ncol : 1, left, bottom + below,
                            res_top, k + 1 == f->rows ? f->xlabel : NULL, f->scale, f->t_lo, f->t_hi);
    }
}

int plot_fit(const struct plot_settings *s, const char *path)
{
    char err[TB_ERRMAX];
    tb_run *run = tb_run_read(path, NULL, err, sizeof err);
    if (!run) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return TB_EXIT_INPUT;
    }
    tb_analysis *a = plot_analyse(s, run, 0);
    if (!a) {
        tb_run_free(run);
        return TB_EXIT_INPUT;
    }
    int status = tb_analysis_status(a);
    size_t ncol = tb_analysis_ncolumns(a);
    struct panel_data *p = calloc(ncol ? ncol : 1, sizeof *p);
    double t_min = INFINITY, t_max = -INFINITY;
    if (!p) {
        fputs("tb-plot: out of memory\n", stderr);
        status = TB_EXIT_OUTPUT;
    }
    for (size_t k = 0; p && k < ncol; k++) {
        const tb_analysed_column *c = tb_analysis_column(a, k);
        p[k] = (struct panel_data){c->column, c->t, c->y, c->n, c->fit, c->error, 0};
        p[k].worst = worst_residual(&p[k]);
        t_min = fmin(t_min, c->t[0]);
        t_max = fmax(t_max, c->t[c->n - 1]);
    }
    /* A run the options do not fit is not drawn; a failed fit is.  Each
     * column is a row of the page (a fit over its residuals), the page
     * growing with them; a given size too small for them is refused. */
    size_t rows = s->overlay ? 1 : ncol;
    double min_height;
    if (p && ncol > 0 && status != TB_EXIT_INPUT && s->fig.height > 0 && rows > 1 &&
        figure_text_scale(&s->fig, (int)rows, &min_height) < FIGURE_READABLE) {
        fprintf(stderr, "tb-plot: --size: %zu columns do not fit %.0f pixels' height readably: give "
                "a height of %.0f (or %.1f cm), fewer columns (-c) or --overlay\n", rows,
                s->fig.height, min_height, min_height / 80);
        status = TB_EXIT_INPUT;
    }
    if (p && ncol > 0 && status != TB_EXIT_INPUT) {
        const char *xlabel;
        double scale = time_scale(t_max - t_min, &xlabel);
        double t_lo = t_min / scale, t_hi = t_max / scale;
        padded_range(&t_lo, &t_hi);
        struct fit_page page = {s, path, p, ncol, rows, xlabel, scale, t_lo, t_hi};
        figure_draw(&s->fig, (int)rows, draw_fit_page, &page);
    }
    free(p);
    tb_analysis_free(a);
    tb_run_free(run);
    return status == TB_EXIT_OK || status == TB_EXIT_FIT ? status : TB_EXIT_INPUT;
}
