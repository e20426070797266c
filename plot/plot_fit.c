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

#include "plot.h"

#define CURVE_POINTS 400

static const int series_colour[] = {C_BLUE, C_ORANGE, C_GREEN, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE};
static const int term_colour[] = {C_GREEN, C_ORANGE, C_PURPLE, C_BROWN};

struct panel_data {
    const tb_column *c;
    double *t, *y;          /* the window, ambient subtracted */
    size_t n;
    tb_fit fit;
    int fitted;
    char why[TB_ERRMAX];    /* when it was not */
};

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
    const tb_fit *f = &p->fit;
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

static void draw_fit_panel(const struct plot_settings *s, struct panel_data *p, size_t np,
                           double vy0, double vy1, const char *file, const char *xlabel,
                           double scale, double t_lo, double t_hi)
{
    double ylo = INFINITY, yhi = -INFINITY;
    const char *unit = s->m.ambient ? "°C above ambient" : "°C";
    char ylabel[128], title[512];

    for (size_t k = 0; k < np; k++) {
        ylo = fmin(ylo, min_of(p[k].y, p[k].n));
        yhi = fmax(yhi, max_of(p[k].y, p[k].n));
        if (p[k].fitted) {
            const tb_estimate *e = &p[k].fit.series[0].t_inf;
            /* T∞ and its band, unless a degenerate fit throws it far off */
            if (e->value < yhi + (yhi - ylo) && e->value > ylo - (yhi - ylo)) {
                ylo = fmin(ylo, e->value);
                yhi = fmax(yhi, e->value);
            }
        }
    }
    padded_range(&ylo, &yhi);
    snprintf(ylabel, sizeof ylabel, "%s (%s)", np == 1 ? p[0].c->name : "temperature", unit);
    draw_axes(0.09, 0.97, vy0, vy1, t_lo, t_hi, ylo, yhi, "bcst", "bcnstv", NULL, ylabel);
    (void)xlabel;
    if (np == 1)
        snprintf(title, sizeof title, "%s", s->fig.title ? s->fig.title : file);
    else
        snprintf(title, sizeof title, "%s", s->fig.title ? s->fig.title : file);
    plcol0(C_BLACK);
    plmtex("t", 1.2, 0.5, 0.5, title);

    struct legend lg = {0};
    static char texts[16][160];
    int nt = 0;
    double x[CURVE_POINTS], y[CURVE_POINTS];
    for (size_t k = 0; k < np; k++) {
        struct panel_data *d = &p[k];
        int colour = np == 1 ? C_BLUE : series_colour[k % 8];
        double *xs = malloc(d->n * sizeof *xs);
        if (!xs)
            continue;
        for (size_t i = 0; i < d->n; i++)
            xs[i] = d->t[i] / scale;
        draw_points(d->n, xs, d->y, colour);
        free(xs);
        snprintf(texts[nt], sizeof texts[nt], "%s (%zu points)", d->c->name, d->n);
        legend_points(&lg, texts[nt++], colour);
        if (!d->fitted)
            continue;
        const tb_fit *f = &d->fit;
        const tb_estimate *e = &f->series[0].t_inf;
        /* T∞ with its band */
        if (isfinite(e->lo) && isfinite(e->hi)) {
            double bx[4] = {t_lo, t_hi, t_hi, t_lo}, by[4] = {e->lo, e->lo, e->hi, e->hi};
            plcol0(C_BAND);
            plfill(4, bx, by);
        }
        model_curve(d, -2, scale, x, y);
        draw_line(CURVE_POINTS, x, y, NAN, C_GREY, 3, 1.5);
        if (np == 1) {
            const char *const *labels = s->m.nlabels == f->order ? s->m.labels
                                                                : tb_default_labels(f->order);
            for (int j = 0; j < f->order; j++) {
                model_curve(d, j, scale, x, y);
                draw_line(CURVE_POINTS, x, y, NAN, term_colour[j], 2, 1.5);
                snprintf(texts[nt], sizeof texts[nt], "T∞ + k%d·e^(−t/τ%d): τ%d = %.1f s%s%s", j + 1,
                         j + 1, j + 1, f->tau[j].value, labels ? ", " : "", labels ? labels[j] : "");
                legend_line(&lg, texts[nt++], term_colour[j], 2, 1.5);
            }
        }
        model_curve(d, -1, scale, x, y);
        draw_line(CURVE_POINTS, x, y, NAN, np == 1 ? C_RED : colour, 1, 3);
        snprintf(texts[nt], sizeof texts[nt], "%sT = T∞ + Σ kᵢ·e^(−t/τᵢ), %d term%s, rmse %.3f °C",
                 np == 1 ? "" : "fit: ", f->order, f->order == 1 ? "" : "s", f->rmse);
        legend_line(&lg, texts[nt++], np == 1 ? C_RED : colour, 1, 3);
        snprintf(texts[nt], sizeof texts[nt], "T∞ = %.2f °C [%.2f, %.2f] (%g %%)%s", e->value, e->lo,
                 e->hi, s->m.fit.level * 100, f->flags ? ", flagged" : "");
        legend_line(&lg, texts[nt++], C_GREY, 3, 1.5);
    }
    for (size_t k = 0; k < np; k++) {
        if (!p[k].fitted) {
            char msg[TB_ERRMAX + 64];
            snprintf(msg, sizeof msg, "%s: fit failed: %s", p[k].c->name, p[k].why);
            plcol0(C_RED);
            plmtex("t", -2.0 - 1.5 * (double)k, 0.5, 0.5, msg);
        }
    }
    legend_draw(&lg, PL_POSITION_BOTTOM | PL_POSITION_RIGHT);
}

static void draw_residual_panel(struct panel_data *p, size_t np, double vy0, double vy1,
                                const char *xlabel, double scale, double t_lo, double t_hi)
{
    double lim = 0;
    for (size_t k = 0; k < np; k++) {
        if (!p[k].fitted)
            continue;
        for (size_t i = 0; i < p[k].n; i++)
            lim = fmax(lim, fabs(p[k].y[i] - tb_fit_eval(&p[k].fit, 0, p[k].t[i] - p[k].t[0])));
    }
    if (!(lim > 0))
        lim = 1;
    lim *= 1.1;
    draw_axes(0.09, 0.97, vy0, vy1, t_lo, t_hi, -lim, lim, "bcnst", "bcnstv", xlabel,
              "residual (°C)");
    double zx[2] = {t_lo, t_hi}, zy[2] = {0, 0};
    draw_line(2, zx, zy, NAN, C_BLACK, 1, 1);
    for (size_t k = 0; k < np; k++) {
        if (!p[k].fitted)
            continue;
        double *x = malloc(p[k].n * sizeof *x), *r = malloc(p[k].n * sizeof *r);
        if (x && r) {
            for (size_t i = 0; i < p[k].n; i++) {
                x[i] = p[k].t[i] / scale;
                r[i] = p[k].y[i] - tb_fit_eval(&p[k].fit, 0, p[k].t[i] - p[k].t[0]);
            }
            draw_points(p[k].n, x, r, np == 1 ? C_BLUE : series_colour[k % 8]);
        }
        free(x);
        free(r);
    }
}

int plot_fit(const struct plot_settings *s, const char *path)
{
    size_t *idx, ncol;
    tb_run *run = plot_read_run(path, &idx, &ncol, s, 1);
    char err[TB_ERRMAX];
    int status = PLOT_EXIT_OK;

    if (!run)
        return PLOT_EXIT_INPUT;
    const tb_column *amb = NULL;
    if (s->m.ambient) {
        size_t a;
        if (tb_run_select(run, s->m.ambient, &a, 1, err, sizeof err) < 0) {
            fprintf(stderr, "tb-plot: --ambient: %s\n", err);
            tb_run_free(run);
            free(idx);
            return PLOT_EXIT_INPUT;
        }
        amb = tb_run_column(run, a);
    }
    struct panel_data *p = calloc(ncol, sizeof *p);
    double t_min = INFINITY, t_max = -INFINITY;
    for (size_t k = 0; p && k < ncol; k++) {
        p[k].c = tb_run_column(run, idx[k]);
        if (tb_series_extract(p[k].c, s->m.from, s->m.to, amb, &p[k].t, &p[k].y, &p[k].n, err,
                              sizeof err) < 0) {
            fprintf(stderr, "tb-plot: %s: %s\n", path, err);
            status = PLOT_EXIT_INPUT;
            break;
        }
        t_min = fmin(t_min, p[k].t[0]);
        t_max = fmax(t_max, p[k].t[p[k].n - 1]);
        tb_series ser = {p[k].t, p[k].y, p[k].n};
        int rc = s->m.auto_order ? tb_fit_series_auto(&ser, 1, &s->m.fit, &p[k].fit, p[k].why, sizeof p[k].why)
                               : tb_fit_series_run(&ser, 1, &s->m.fit, &p[k].fit, p[k].why, sizeof p[k].why);
        p[k].fitted = rc == 0;
        if (rc < 0) {
            fprintf(stderr, "tb-plot: %s: %s: fit failed: %s\n", path, p[k].c->name, p[k].why);
            status = PLOT_EXIT_FIT;
        }
    }
    if (p && status != PLOT_EXIT_INPUT) {
        const char *xlabel;
        double scale = time_scale(t_max - t_min, &xlabel);
        double t_lo = t_min / scale, t_hi = t_max / scale;
        padded_range(&t_lo, &t_hi);
        size_t panels = s->overlay ? 1 : ncol;
        figure_begin(&s->fig, (int)panels);
        for (size_t k = 0; k < panels; k++) {
            char title[512];
            pladv(0);
            plschr(0, panels > 2 ? 0.8 : 1.0);
            snprintf(title, sizeof title, "%s: %s", path, s->overlay ? "fit" : p[k].c->name);
            draw_fit_panel(s, s->overlay ? p : &p[k], s->overlay ? ncol : 1, 0.36, 0.93,
                           title, xlabel, scale, t_lo, t_hi);
            draw_residual_panel(s->overlay ? p : &p[k], s->overlay ? ncol : 1, 0.10, 0.30,
                                xlabel, scale, t_lo, t_hi);
        }
        figure_end();
    }
    for (size_t k = 0; p && k < ncol; k++) {
        free(p[k].t);
        free(p[k].y);
        if (p[k].fitted)
            tb_fit_clear(&p[k].fit);
    }
    free(p);
    free(idx);
    tb_run_free(run);
    return status;
}
