/*
 * plot_thermal.c -- tb-plot zth and spectrum, a run under its power step
 * as tb-fit --power reports it.  zth: the thermal impedance Zth(t) =
 * ΔT(t)/ΔP on a log time axis: the data averaged over a log grid, the
 * model, each Foster stage's share, and R_th with its interval.
 * spectrum: the time-constant spectrum and the cumulative structure
 * function.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot.h"

#define CURVE_POINTS 400

static const int stage_colours[TB_FIT_MAX_ORDER] = {C_RED, C_GREEN, C_ORANGE, C_PURPLE};

/* Σ Rᵢ(1 − e^(−t/τᵢ)) over the stages FROM..TO of TH's fit. */
static double zth_model(const tb_analysed_column *c, size_t from, size_t to, double t)
{
    double z = 0;
    for (size_t j = from; j < to; j++)
        z += c->thermal->foster_r[j].value * (1 - exp(-t / c->fit->tau[j].value));
    return z;
}

/* A Zth figure's page, worked out before it is drawn. */
struct zth_page {
    const struct plot_settings *s;
    const tb_analysed_column *c;
    const char *path;
    const tb_zth_point *z;
    ssize_t nz;
    double x0, x1, y0, y1;      /* the frame, log10 of s by K/W */
    double *room;               /* for 2 CURVE_POINTS and 2 nz numbers */
};

static void draw_zth_page(void *ctx)
{
    const struct zth_page *p = ctx;
    const struct plot_settings *s = p->s;
    const tb_analysed_column *c = p->c;
    const tb_thermal *th = c->thermal;
    const tb_zth_point *z = p->z;
    ssize_t nz = p->nz;
    double x0 = p->x0, x1 = p->x1, y0 = p->y0, y1 = p->y1;
    const char *path = p->path;
    pladv(0);
    draw_axes(0.09, 0.97, 0.10, 0.92, x0, x1, y0, y1, "bclnst", "bcnstv", "time since the step (s)",
              "Zth = ΔT/ΔP (K/W)");
    char title[512];
    if (s->fig.title)
        snprintf(title, sizeof title, "%s", s->fig.title);
    else
        snprintf(title, sizeof title, "%s: %s, power step %.3g W", figure_file_name(path), c->column->name,
                 th->power.step);
    plcol0(C_BLACK);
    plmtex("t", figure_title_lines(1.2), 0.5, 0.5, title);

    struct legend lg = {0};
    char text[256];
    /* R_th's interval as a band, its value as a line */
    if (isfinite(th->r_th.lo) && isfinite(th->r_th.hi)) {
        double bx[4] = {x0, x1, x1, x0};
        double by[4] = {th->r_th.lo, th->r_th.lo, th->r_th.hi, th->r_th.hi};
        plcol0(C_BAND);
        plfill(4, bx, by);
    }
    double lx[2] = {x0, x1}, ly[2] = {th->r_th.value, th->r_th.value};
    draw_line(2, lx, ly, NAN, C_GREY, 3, 1.5);
    /* decimals enough for the interval to show two digits of its own */
    double half = (th->r_th.hi - th->r_th.lo) / 2;
    int digits = 2;
    while (digits < 6 && half > 0 && half < 2 * pow(10, -digits))
        digits++;
    snprintf(text, sizeof text, "R_th %.*f K/W [%.*f, %.*f] (%g %% interval)", digits,
             th->r_th.value, digits, th->r_th.lo, digits, th->r_th.hi, s->m.fit.level * 100);
    legend_line(&lg, text, C_GREY, 3, 1.5);

    double *cx = p->room, *cy = cx + CURVE_POINTS, *dx = cy + CURVE_POINTS, *dy = dx + nz;
    /* each Foster stage's share, dashed */
    const char *labels[TB_FIT_MAX_ORDER];
    tb_model_labels(&s->m, c->fit, c->series, labels);
    for (size_t j = 0; j < th->n; j++) {
        for (int k = 0; k < CURVE_POINTS; k++) {
            cx[k] = x0 + (x1 - x0) * k / (CURVE_POINTS - 1);
            cy[k] = zth_model(c, j, j + 1, pow(10, cx[k]));
        }
        draw_line(CURVE_POINTS, cx, cy, NAN, stage_colours[j], 2, 1.5);
        double tau = c->fit->tau[j].value, cap = th->foster_c[j].value;
        snprintf(text, sizeof text, "R%zu %.3g K/W, C%zu %.*f J/K, τ%zu %.*f s%s%s", j + 1,
                 th->foster_r[j].value, j + 1, cap >= 100 ? 0 : 1, cap, j + 1, tau >= 100 ? 0 : 1,
                 tau, labels[j] ? ": " : "", labels[j] ? labels[j] : "");
        legend_line(&lg, text, stage_colours[j], 2, 1.5);
    }
    for (int k = 0; k < CURVE_POINTS; k++) {
        cx[k] = x0 + (x1 - x0) * k / (CURVE_POINTS - 1);
        cy[k] = zth_model(c, 0, th->n, pow(10, cx[k]));
    }
    draw_line(CURVE_POINTS, cx, cy, NAN, C_BLACK, 1, 1.5);
    /* the data over the model, as marks it cannot hide */
    for (ssize_t i = 0; i < nz; i++) {
        dx[i] = log10(z[i].t);
        dy[i] = z[i].data;
    }
    plcol0(C_BLUE);
    plstring((PLINT)nz, dx, dy, "•");
    occupy_points((size_t)nz, dx, dy, 24);
    legend_points(&lg, "measured ΔT/ΔP, averaged on a log time grid", C_BLUE);
    legend_line(&lg, "model: Σ Rᵢ(1 − e^(−t/τᵢ))", C_BLACK, 1, 1.5);
    if (th->flags) {
        char flags[128];
        snprintf(text, sizeof text, "FLAGGED: %s", tb_thermal_flags_text(th->flags, flags, sizeof flags));
        legend_text(&lg, text);
    }
    legend_draw(&lg, PL_POSITION_TOP | PL_POSITION_LEFT);
    legend_free(&lg);
}

/* Draw column C's Zth into the whole page. */
static int draw_zth(const struct plot_settings *s, const tb_analysed_column *c, const char *path)
{
    const tb_thermal *th = c->thermal;
    tb_zth_point *z;
    ssize_t nz = tb_thermal_zth(c->fit, c->series, c->t, c->y, c->n, th->power.step, 20, &z);
    if (nz < 0) {
        fputs("tb-plot: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    if (nz < 2) {
        fprintf(stderr, "tb-plot: %s: %s: too short a run for a Zth curve\n", path, c->column->name);
        free(z);
        return TB_EXIT_INPUT;
    }
    double x0 = log10(z[0].t), x1 = log10(z[nz - 1].t);
    padded_range(&x0, &x1);
    double y0 = 0, y1 = th->r_th.value;
    for (ssize_t i = 0; i < nz; i++) {
        y0 = fmin(y0, z[i].data);
        y1 = fmax(y1, z[i].data);
    }
    if (isfinite(th->r_th.hi))
        y1 = fmax(y1, th->r_th.hi);
    padded_range(&y0, &y1);

    struct zth_page page = {s, c, path, z, nz, x0, x1, y0, y1,
                            malloc(2 * (CURVE_POINTS + (size_t)nz) * sizeof *page.room)};
    if (!page.room) {
        free(z);
        fputs("tb-plot: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    figure_draw(&s->fig, 1, draw_zth_page, &page);
    free(page.room);
    free(z);
    return TB_EXIT_OK;
}

/* The spectrum of column C: above, R per decade against τ with the
 * range the run resolves and the fit's τ; below, the cumulative structure
 * function, ΣC (log) against ΣR. */
static int draw_spectrum(const struct plot_settings *s, const tb_analysed_column *c,
                         const char *path)
{
    const tb_spectrum *sp = c->spectrum;
    size_t n = sp->n, m = sp->nladder;
    double *x = malloc((2 * n + 2 * m + 2) * sizeof *x), *y = x ? x + n : NULL;
    double *lx = y ? y + n : NULL, *ly = lx ? lx + m + 1 : NULL;
    if (!x) {
        fputs("tb-plot: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    double per_decade = n > 1 ? 1 / log10(sp->tau[1] / sp->tau[0]) : 1, top = 0;
    for (size_t j = 0; j < n; j++) {
        x[j] = log10(sp->tau[j]);
        y[j] = sp->r[j] * per_decade;
        top = fmax(top, y[j]);
    }
    /* headroom above the peaks for the legend */
    double x0 = x[0], x1 = x[n - 1], y0 = 0, y1 = top > 0 ? 1.8 * top : 1;
    figure_begin(&s->fig, 1);
    pladv(0);
    char title[512], text[256];
    if (s->fig.title)
        snprintf(title, sizeof title, "%s", s->fig.title);
    else
        snprintf(title, sizeof title, "%s: %s, power step %.3g W", figure_file_name(path), c->column->name,
                 c->thermal->power.step);
    draw_axes(0.10, 0.97, 0.58, 0.92, x0, x1, y0, y1, "bclnst", "bcnstv", "time constant τ (s)",
              "R per decade (K/W)");
    plcol0(C_BLACK);
    plmtex("t", 1.2, 0.5, 0.5, title);
    /* what the run cannot resolve, shaded */
    double rl = log10(sp->resolved_lo), rh = log10(sp->resolved_hi);
    double bx[4] = {x0, rl, rl, x0}, by[4] = {y0, y0, y1, y1};
    plcol0(C_BAND);
    if (rl > x0)
        plfill(4, bx, by);
    double cx[4] = {rh, x1, x1, rh};
    if (rh < x1)
        plfill(4, cx, by);
    struct legend lg = {0};
    legend_line(&lg, "unresolved by the run (under 3 periods, over a third of it)", C_BAND, 1, 8);
    for (int j = 0; j < c->fit->order; j++) {
        double tx[2] = {log10(c->fit->tau[j].value), log10(c->fit->tau[j].value)}, ty[2] = {y0, y1};
        draw_line(2, tx, ty, NAN, C_GREY, 2, 1);
    }
    legend_line(&lg, "τ of the fit", C_GREY, 2, 1);
    draw_line(n, x, y, NAN, C_BLUE, 1, 2);
    occupy_points(n, x, y, 24);
    snprintf(text, sizeof text, "spectrum, λ %.3g (L-curve), ΣR %.3g K/W", sp->lambda, sp->r_total);
    legend_line(&lg, text, C_BLUE, 1, 2);
    if (sp->flags) {
        snprintf(text, sizeof text, "FLAGGED:%s%s", sp->flags & TB_SPECTRUM_UNRESOLVED ? " unresolved" : "",
                 sp->flags & TB_SPECTRUM_LADDER_INEXACT ? " ladder_inexact" : "");
        legend_text(&lg, text);
    }
    legend_draw(&lg, PL_POSITION_TOP | PL_POSITION_LEFT);
    legend_free(&lg);

    /* the structure function from the source (0, 0) out */
    double r_hi = 0, c_lo = INFINITY, c_hi = -INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (!(sp->cum_c[i] > 0))
            continue;
        lx[k] = sp->cum_r[i];
        ly[k] = log10(sp->cum_c[i]);
        r_hi = fmax(r_hi, lx[k]);
        c_lo = fmin(c_lo, ly[k]);
        c_hi = fmax(c_hi, ly[k]);
        k++;
    }
    if (k > 0) {
        double r0 = 0;
        padded_range(&r0, &r_hi);
        r0 = 0;
        /* the ladder's last stages run off to the ambient: four decades
         * of ΣC show the structure */
        c_hi = fmin(c_hi, c_lo + 4);
        padded_range(&c_lo, &c_hi);
        draw_axes(0.10, 0.97, 0.10, 0.44, r0, r_hi, c_lo, c_hi, "bcnst", "bclnstv",
                  "cumulative thermal resistance ΣR (K/W)", "ΣC (J/K)");
        draw_line(k, lx, ly, NAN, C_RED, 1, 2);
        plcol0(C_RED);
        plstring((PLINT)k, lx, ly, "•");
        occupy_points(k, lx, ly, 24);
        struct legend lg2 = {0};
        legend_line(&lg2, "cumulative structure function: the spectrum's Cauer ladder", C_RED, 1, 2);
        legend_draw(&lg2, PL_POSITION_TOP | PL_POSITION_LEFT);
        legend_free(&lg2);
    }
    free(x);
    figure_end();
    return TB_EXIT_OK;
}

int plot_zth(const struct plot_settings *s, const char *path)
{
    return plot_thermal(s, path, 0);
}

int plot_spectrum(const struct plot_settings *s, const char *path)
{
    return plot_thermal(s, path, 1);
}

int plot_thermal(const struct plot_settings *s, const char *path, int spectrum)
{
    char err[TB_ERRMAX];
    tb_run *run = tb_run_read(path, NULL, err, sizeof err);

    if (!run) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return TB_EXIT_INPUT;
    }
    tb_analysis *an = plot_analyse(s, run, 0);
    if (!an) {
        tb_run_free(run);
        return TB_EXIT_INPUT;
    }
    int status = tb_analysis_status(an);
    const tb_analysed_column *col = NULL;
    for (size_t i = 0; i < tb_analysis_ncolumns(an) && !col; i++)
        if (tb_analysis_column(an, i)->thermal)
            col = tb_analysis_column(an, i);
    if (!col) {
        tb_analysis_free(an);
        tb_run_free(run);
        return status == TB_EXIT_OK ? TB_EXIT_FIT : status;
    }
    if (tb_analysis_ncolumns(an) > 1)
        fprintf(stderr, "tb-plot: note: %s: drawing %s only; name one column with -c\n", path,
                col->column->name);
    if (spectrum && !col->spectrum) {
        tb_analysis_free(an);
        tb_run_free(run);
        return TB_EXIT_FIT;   /* its failure is said */
    }
    int drawn = spectrum ? draw_spectrum(s, col, path) : draw_zth(s, col, path);
    tb_analysis_free(an);
    tb_run_free(run);
    return drawn != TB_EXIT_OK ? drawn : status;
}
