/*
 * plot_ident.c -- tb-plot ident: an identified model (tb-ident -o) against
 * a run, best one it was not fitted to: for each sensor the measured
 * points, the model's prediction from the run's inputs (tb_ident_predict,
 * as tb-ident --validate computes it) and the residuals; and the model's
 * steady-state gain matrix as a heat map labelled with its K/W.
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

/* One sensor's panel: the points it has, the prediction at them. */
struct sensor_panel {
    size_t n;
    double *t, *y, *pred, *res;
    double rmse, worst;
};

static void draw_sensor(const struct sensor_panel *p, const char *name, const char *title,
                        double left, double top, double bottom, const char *xlabel,
                        double scale, double t_lo, double t_hi)
{
    double below = figure_lines(xlabel ? 3.8 : 2.4);
    double inner = top - figure_lines(2.2) - (bottom + below);
    double res_top = bottom + below + 0.27 * inner;
    double lo = INFINITY, hi = -INFINITY, lim = 0;
    for (size_t k = 0; k < p->n; k++) {
        lo = fmin(lo, fmin(p->y[k], p->pred[k]));
        hi = fmax(hi, fmax(p->y[k], p->pred[k]));
        lim = fmax(lim, fabs(p->res[k]));
    }
    padded_range(&lo, &hi);
    lim = lim > 0 ? 1.1 * lim : 1;
    char ylabel[160];
    snprintf(ylabel, sizeof ylabel, "%s (°C)", name);
    draw_axes(left, 0.97, res_top + figure_lines(0.8), top - figure_lines(2.2), t_lo, t_hi, lo, hi,
              "bcst", "bcnstv", NULL, ylabel);
    plcol0(C_BLACK);
    plmtex("t", 0.8, 0.5, 0.5, title);
    double *x = malloc(p->n * sizeof *x);
    if (x) {
        for (size_t k = 0; k < p->n; k++)
            x[k] = p->t[k] / scale;
        draw_points(p->n, x, p->y, C_BLUE);
        draw_line(p->n, x, p->pred, NAN, C_RED, 1, 1.8);
    }
    struct legend lg = {0};
    char text[256];
    legend_points(&lg, "measured", C_BLUE);
    snprintf(text, sizeof text, "predicted from the inputs: rmse %.3g °C, worst %.3g °C",
             p->rmse, p->worst);
    legend_line(&lg, text, C_RED, 1, 1.8);
    plschr(0, 0.85);
    legend_draw(&lg, PL_POSITION_BOTTOM | PL_POSITION_RIGHT);
    plschr(0, 1.0);
    legend_free(&lg);
    draw_axes(left, 0.97, bottom + below, res_top, t_lo, t_hi, -lim, lim, "bcnst", "bcnstv",
              xlabel, "residual (°C)");
    double zx[2] = {t_lo, t_hi}, zy[2] = {0, 0};
    draw_line(2, zx, zy, NAN, C_BLACK, 1, 1);
    if (x)
        draw_points(p->n, x, p->res, C_BLUE);
    free(x);
}

/* The unit all of the model's inputs share in RUN ("W"), or NULL when
 * they differ or have none; each one's in UNITS. */
static const char *inputs_unit(const tb_run *run, const tb_ident_model *m, const char **units)
{
    const char *common = NULL;
    for (size_t u = 0; u < m->ninputs; u++) {
        size_t idx;
        char err[TB_ERRMAX];
        units[u] = tb_run_select(run, m->inputs[u], &idx, 1, err, sizeof err) == 1
                       ? tb_run_column(run, idx)->unit : "";
        if (u == 0)
            common = units[u];
        else if (common && strcmp(common, units[u]) != 0)
            common = NULL;
    }
    return common && *common ? common : NULL;
}

/* The inputs as the model saw them, each held from its row to the next:
 * what drove the sensors below. */
static void draw_inputs(const tb_ident_model *m, const tb_ident_run *d, const char *const *units,
                        const char *unit, double left, double top, double bottom,
                        double scale, double t_lo, double t_hi)
{
    static const int colours[] = {C_RED, C_GREEN, C_ORANGE, C_PURPLE, C_BROWN, C_TEAL, C_PINK};
    double lo = INFINITY, hi = -INFINITY;
    for (size_t u = 0; u < m->ninputs; u++)
        for (size_t k = 0; k < d->n; k++)
            if (isfinite(d->u[u][k])) {
                lo = fmin(lo, d->u[u][k]);
                hi = fmax(hi, d->u[u][k]);
            }
    if (!isfinite(lo))
        lo = 0, hi = 1;
    padded_range(&lo, &hi);
    char ylabel[64];
    snprintf(ylabel, sizeof ylabel, unit ? "input (%s)" : "input", unit);
    draw_axes(left, 0.97, bottom + figure_lines(2.4), top - figure_lines(2.2), t_lo, t_hi, lo, hi,
              "bcnst", "bcnstv", NULL, ylabel);
    plcol0(C_BLACK);
    plmtex("t", figure_title_lines(0.8), 0.5, 0.5, "the inputs, as the model is driven by them");
    size_t n = d->n;
    double *x = malloc(2 * (n ? 2 * n : 1) * sizeof *x), *y = x ? x + 2 * n : NULL;
    struct legend lg = {0};
    for (size_t u = 0; x && u < m->ninputs; u++) {
        size_t k2 = 0;
        for (size_t k = 0; k < n; k++) {   /* a step at each row */
            x[k2] = (d->t[k] - d->t[0]) / scale;
            y[k2++] = d->u[u][k];
            x[k2] = (k + 1 < n ? d->t[k + 1] - d->t[0] : d->t[k] - d->t[0]) / scale;
            y[k2++] = d->u[u][k];
        }
        int colour = colours[u % (sizeof colours / sizeof *colours)];
        draw_line(k2, x, y, NAN, colour, 1, 1.5);
        char text[192];
        snprintf(text, sizeof text, unit || !*units[u] ? "%s" : "%s (%s)", m->inputs[u], units[u]);
        legend_line(&lg, text, colour, 1, 1.5);
    }
    free(x);
    plschr(0, 0.85);
    legend_draw(&lg, PL_POSITION_TOP | PL_POSITION_RIGHT);
    plschr(0, 1.0);
    legend_free(&lg);
}

/* The scale of the gain matrix's colours, from 0 (white) to KMAX (the
 * deepest red), right of the matrix, in K per unit of input. */
static void draw_gain_scale(double kmax, const char *unit)
{
    PLFLT width, height;
    PLINT label_opts[] = {PL_COLORBAR_LABEL_RIGHT};
    char label[64];
    snprintf(label, sizeof label, "gain (K per %s)", unit ? unit : "unit");
    const char *labels[] = {label};
    const char *axis_opts[] = {"bcvtm"};
    PLFLT ticks[] = {0};
    PLINT sub_ticks[] = {0};
    PLINT n_values[] = {2};
    PLFLT range[] = {0, kmax};
    const PLFLT *values[] = {range};
    plcolorbar(&width, &height, PL_COLORBAR_GRADIENT | PL_COLORBAR_LABEL_RIGHT,
               PL_POSITION_RIGHT | PL_POSITION_OUTSIDE | PL_POSITION_VIEWPORT, 0.015, 0, 0.025, 1.0,
               C_WHITE, C_BLACK, 1, 0, 0, 0, 0, 1, label_opts, labels, 1, axis_opts, ticks,
               sub_ticks, n_values, values);
}

/* The steady-state gain matrix: a cell per sensor (rows) and input
 * (columns), its colour by its gain, its value written in it. */
static void draw_gains(const tb_ident_model *m, const char *const *units, const char *unit,
                       double left, double top, double bottom)
{
    size_t nu = m->ninputs, ns = m->nsensors;
    double below = figure_lines(2.6), vy0 = bottom + below, vy1 = top - figure_lines(2.2);
    double kmax = 0;
    for (size_t k = 0; k < nu * ns; k++)
        kmax = fmax(kmax, m->steady[k].value);
    if (!(kmax > 0))
        kmax = 1;
    /* the matrix, and right of it the colour bar that reads its colours */
    double right = 0.97 - figure_chars(10);
    plvpor(left, right, vy0, vy1);
    plwind(0, (double)nu, 0, (double)ns);
    /* white to deep red: the hotter the path, the darker */
    PLFLT pos[2] = {0, 1}, r[2] = {1, 0.70}, g[2] = {1, 0.10}, b[2] = {1, 0.10};
    plscmap1l(1, 2, pos, r, g, b, NULL);
    plschr(0, 0.9);
    for (size_t i = 0; i < ns; i++)
        for (size_t u = 0; u < nu; u++) {
            const tb_estimate *e = &m->steady[i * nu + u];
            double y = (double)(ns - 1 - i), f = e->value / kmax;
            double bx[4] = {(double)u, (double)u + 1, (double)u + 1, (double)u};
            double by[4] = {y, y, y + 1, y + 1};
            plcol1(f);
            plfill(4, bx, by);
            char text[160];
            tb_estimate_text et;
            int d = tb_interval_decimals(e->value, e->lo, e->hi, 2);
            if (tb_format_estimate(&et, e->value, e->lo, e->hi, d, 0))
                snprintf(text, sizeof text, "%s [%s, %s]", et.value, et.lo, et.hi);
            else
                snprintf(text, sizeof text, "%s", et.value);
            plcol0(f > 0.6 ? C_WHITE : C_BLACK);
            plptex((double)u + 0.5, y + 0.42, 1, 0, 0.5, text);
        }
    plcol0(C_BLACK);
    plbox("bc", 1, 0, "bc", 1, 0);
    draw_gain_scale(kmax, unit);
    for (size_t u = 0; u < nu; u++) {
        char name[192];
        snprintf(name, sizeof name, unit || !*units[u] ? "%s" : "%s (%s)", m->inputs[u], units[u]);
        plmtex("b", 1.2, ((double)u + 0.5) / (double)nu, 0.5, name);
    }
    for (size_t i = 0; i < ns; i++)
        plmtex("lv", 0.8, ((double)(ns - 1 - i) + 0.5) / (double)ns, 1, m->sensors[i]);
    plschr(0, 1.0);
    char title[128];
    int intervals = ns && nu && isfinite(m->steady[0].lo);
    snprintf(title, sizeof title, "steady-state gain, K per %s%s: sensor by input",
             unit ? unit : "unit of input",
             intervals ? (m->level == 0.95 ? " (95 %)" : " (interval)") : "");
    plmtex("t", 0.8, 0.5, 0.5, title);
}

/* An ident figure's page, worked out before it is drawn. */
struct ident_page {
    const struct plot_settings *s;
    const char *path;
    const tb_ident_model *m;
    const tb_ident_run *data;
    const struct sensor_panel *p;
    const char *const *units;   /* each input's */
    const char *unit;           /* the one they share, or NULL */
    int rows;
    const char *xlabel;
    double scale, t_lo, t_hi;
};

/* The inputs on top, each sensor under them, the gains at the bottom. */
static void draw_ident_page(void *ctx)
{
    const struct ident_page *g = ctx;
    const tb_ident_model *m = g->m;
    size_t ns = m->nsensors;
    pladv(0);
    /* room for the y labels and numbers, and for the gain map's sensor names */
    double left = figure_lines_across(6.4);
    for (size_t i = 0; i < ns; i++)
        left = fmax(left, figure_lines_across(1.5) +
                              figure_chars((double)tb_display_width(m->sensors[i]) * 1.15));
    double band = 1.0 / g->rows;
    draw_inputs(m, g->data, g->units, g->unit, left, 1, 1 - band, g->scale, g->t_lo, g->t_hi);
    for (size_t i = 0; i < ns; i++) {
        char title[512];
        if (g->s->fig.title)
            snprintf(title, sizeof title, "%s: %s", g->s->fig.title, m->sensors[i]);
        else
            snprintf(title, sizeof title, "%s: %s predicted by %s", figure_file_name(g->path),
                     m->sensors[i], figure_file_name(g->s->model));
        double top = 1 - band * (double)(i + 1);
        draw_sensor(&g->p[i], m->sensors[i], title, left, top, top - band,
                    i + 1 == ns ? g->xlabel : NULL, g->scale, g->t_lo, g->t_hi);
    }
    draw_gains(m, g->units, g->unit, left, band, 0);
}

/* Sensor I's panel Q: its measured points of DATA, the prediction PRED
 * (plus the ambient, where the model is above it) and the residuals.  0,
 * or -1 when memory runs out. */
static int fill_panel(struct sensor_panel *q, const tb_ident_run *data, size_t i,
                      const double *pred)
{
    size_t n = data->n;
    q->t = malloc(n * sizeof *q->t);
    q->y = malloc(n * sizeof *q->y);
    q->pred = malloc(n * sizeof *q->pred);
    q->res = malloc(n * sizeof *q->res);
    if (!q->t || !q->y || !q->pred || !q->res)
        return -1;
    for (size_t k = 0; k < n; k++) {
        double y = data->y[i][k];
        if (isnan(y))
            continue;
        double amb = data->ambient ? data->ambient[k] : 0;
        q->t[q->n] = data->t[k] - data->t[0];
        q->y[q->n] = y;
        q->pred[q->n] = pred[k] + amb;
        q->res[q->n] = y - q->pred[q->n];
        q->n++;
    }
    return 0;
}

int plot_ident(const struct plot_settings *s, const char *path)
{
    char err[TB_ERRMAX];
    tb_ident_model m;
    tb_ident_run data = {0};
    struct sensor_panel *p = NULL;
    double **pred = NULL, *rmse = NULL, *worst = NULL;
    int status = TB_EXIT_INPUT;
    tb_run *run = NULL;

    if (tb_ident_model_read(s->model, &m, err, sizeof err) < 0) {
        fprintf(stderr, "tb-plot: --model: %s\n", err);
        return TB_EXIT_INPUT;
    }
    if (m.above_ambient && !s->m.ambient) {
        fprintf(stderr, "tb-plot: %s: the model is above the ambient: name its column "
                "(--ambient)\n", s->model);
        goto out;
    }
    if (!(run = tb_run_read(path, NULL, err, sizeof err))) {
        fprintf(stderr, "tb-plot: %s\n", err);
        goto out;
    }
    if (tb_ident_run_extract(run, (const char *const *)m.inputs, m.ninputs,
                             (const char *const *)m.sensors, m.nsensors,
                             m.above_ambient ? s->m.ambient : NULL, m.averaged, s->m.from,
                             s->m.to > 0 ? s->m.to : INFINITY, &data, err, sizeof err) < 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        goto out;
    }
    size_t ns = m.nsensors, n = data.n;
    pred = calloc(ns, sizeof *pred);
    rmse = calloc(ns, sizeof *rmse);
    worst = calloc(ns, sizeof *worst);
    p = calloc(ns, sizeof *p);
    status = TB_EXIT_OUTPUT;
    if (!pred || !rmse || !worst || !p)
        goto out;
    for (size_t i = 0; i < ns; i++)
        if (!(pred[i] = malloc(n * sizeof **pred)))
            goto out;
    if (tb_ident_predict(&m, &data, pred, rmse, worst, err, sizeof err) < 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        status = TB_EXIT_INPUT;
        goto out;
    }
    for (size_t i = 0; i < ns; i++) {
        if (fill_panel(&p[i], &data, i, pred[i]) < 0)
            goto out;
        p[i].rmse = rmse[i];
        p[i].worst = worst[i];
    }
    int rows = (int)ns + 2;   /* the inputs, each sensor, the gains */
    double min_height;
    if (s->fig.height > 0 && figure_text_scale(&s->fig, rows, &min_height) < FIGURE_READABLE) {
        fprintf(stderr, "tb-plot: --size: %d panels do not fit %.0f pixels' height readably: give "
                "a height of %.0f (or %.1f cm)\n", rows, s->fig.height, min_height,
                min_height / 80);
        status = TB_EXIT_INPUT;
        goto out;
    }
    const char *xlabel;
    double span = data.t[n - 1] - data.t[0], scale = time_scale(span, &xlabel);
    double t_lo = 0, t_hi = span / scale;
    padded_range(&t_lo, &t_hi);
    const char **units = calloc(m.ninputs ? m.ninputs : 1, sizeof *units);
    if (!units)
        goto out;
    struct ident_page page = {s, path, &m, &data, p, units, inputs_unit(run, &m, units), rows,
                              xlabel, scale, t_lo, t_hi};
    figure_draw(&s->fig, rows, draw_ident_page, &page);
    free(units);
    status = TB_EXIT_OK;
out:
    for (size_t i = 0; p && i < m.nsensors; i++) {
        free(p[i].t);
        free(p[i].y);
        free(p[i].pred);
        free(p[i].res);
    }
    for (size_t i = 0; pred && i < m.nsensors; i++)
        free(pred[i]);
    free(p);
    free(pred);
    free(rmse);
    free(worst);
    tb_ident_run_clear(&data);
    tb_run_free(run);
    tb_ident_model_clear(&m);
    return status;
}
