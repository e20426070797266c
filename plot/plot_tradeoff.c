/*
 * plot_tradeoff.c -- the figure that decides between thermal-management
 * strategies: for each group of runs (a governor, a trip, a sustainable
 * power), the work rate it kept once warm against the peak temperature it
 * reached (or the time it spent above its limit), each the mean of the
 * repeats with its interval in both directions, each run a faint dot, and
 * the limit drawn: the best strategy is the highest point left of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grouping.h"
#include "plot.h"

struct strategy {
    char *name;          /* the group (and column, with several) */
    int predicted;       /* its runs are tb-sim's predictions */
    double *x, *y;       /* its runs' values */
    size_t n;
    double mx, xlo, xhi, my, ylo, yhi;   /* means and intervals */
};

static const int colours[] = {
    C_BLUE, C_RED, C_GREEN, C_ORANGE, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE, C_GREY,
};
static const char *const symbols[] = {"•", "■", "▲", "◆", "▼"};
static const double symbol_size[] = {1.4, 0.65, 0.65, 0.75, 0.65};   /* drawn alike */
/* a prediction's: open, beside its measured strategy's filled one */
static const char *const open_symbols[] = {"○", "□", "△", "◇", "▽"};
static const char predicted_suffix[] = " (predicted)";

static int above_axis(const struct plot_settings *s)
{
    return s->tradeoff_x && strcmp(s->tradeoff_x, "above") == 0;
}

/* The group of row R (with its column when COLUMNS), or NULL said. */
static char *name_of(struct tb_grouping *g, const tb_result *r, int columns)
{
    char err[TB_ERRMAX], *name = tb_grouping_of(g, r->file, NULL, r, err, sizeof err), *with;
    if (!name) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return NULL;
    }
    /* a run tb-sim predicted (its "# prediction:" line) is a strategy of
     * its own beside the measured one */
    char *predicted = tb_result_meta(r, "prediction");
    if (!columns && !predicted)
        return name;
    if (asprintf(&with, "%s%s%s%s", name, columns ? ": " : "", columns ? r->column : "",
                 predicted ? predicted_suffix : "") < 0)
        with = NULL;
    free(predicted);
    free(name);
    return with;
}

static int is_predicted(const char *name)
{
    size_t n = strlen(name), k = sizeof predicted_suffix - 1;
    return n > k && strcmp(name + n - k, predicted_suffix) == 0;
}

/* The colour and symbol index of strategy K: the measured ones in turn,
 * then the predictions without one; a prediction takes its measured
 * strategy's (the same name without the suffix), if drawn. */
static size_t style_of(const struct strategy *st, size_t nst, size_t k)
{
    size_t measured = 0, alone = 0;
    for (size_t j = 0; j < nst; j++)
        measured += !st[j].predicted;
    if (!st[k].predicted) {
        for (size_t j = 0; j < k; j++)
            alone += !st[j].predicted;
        return alone;
    }
    size_t len = strlen(st[k].name) - (sizeof predicted_suffix - 1);
    for (size_t j = 0, m = 0; j < nst; j++) {
        if (st[j].predicted)
            continue;
        if (strlen(st[j].name) == len && strncmp(st[j].name, st[k].name, len) == 0)
            return m;
        m++;
    }
    for (size_t j = 0; j < k; j++)   /* (a prediction of its own) */
        alone += st[j].predicted;
    return measured + alone;
}

/* The point (X, Y) into the strategy NAME of ST (owning NAME): 0, or -1
 * when memory runs out. */
static int add_point(struct strategy *st, size_t *nst, char *name, double x, double y)
{
    size_t k = 0;
    while (k < *nst && strcmp(st[k].name, name) != 0)
        k++;
    if (k == *nst)
        st[(*nst)++] = (struct strategy){.name = name, .predicted = is_predicted(name)};
    else
        free(name);
    struct strategy *p = &st[k];
    double *nx = realloc(p->x, (p->n + 1) * sizeof *nx);
    if (nx)
        p->x = nx;
    double *ny = nx ? realloc(p->y, (p->n + 1) * sizeof *ny) : NULL;
    if (!ny)
        return -1;
    p->y = ny;
    p->x[p->n] = x;
    p->y[p->n++] = y;
    return 0;
}

/* The strategies of the N ROWS into *ST (*NST of them) and the limit the
 * runs share (*LIMIT, NaN when they have none or differ).  TB_EXIT_OK, or
 * an exit status said. */
static int gather(const struct plot_settings *s, const tb_result *rows, size_t n,
                  struct strategy **st, size_t *nst, double *limit)
{
    struct tb_grouping g;
    char err[TB_ERRMAX];
    int columns = 0, status = TB_EXIT_OK;
    size_t drawn = 0;

    if (tb_grouping_init(&g, s->group_by ? s->group_by : "dir", s->group_order, err,
                         sizeof err) < 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return TB_EXIT_INPUT;
    }
    /* a column in the names when the measured runs (or the predicted
     * ones) have several: a prediction's column is named as the model's */
    const char *first[2] = {NULL, NULL};   /* the measured runs' column, the predicted's */
    for (size_t i = 0; i < n && !columns; i++) {
        char *predicted = tb_result_meta(&rows[i], "prediction");
        const char **f = &first[predicted != NULL];
        if (!*f)
            *f = rows[i].column;
        columns = strcmp(*f, rows[i].column) != 0;
        free(predicted);
    }
    *st = calloc(n ? n : 1, sizeof **st);
    *nst = 0;
    *limit = NAN;
    for (size_t i = 0; *st && i < n && status == TB_EXIT_OK; i++) {
        const tb_result *r = &rows[i];
        double x = above_axis(s) ? r->above_limit_s : r->peak, y = r->ops_sustained.value;
        if (!isfinite(x) || !isfinite(y)) {
            fprintf(stderr, "tb-plot: %s: %s: no %s: not drawn\n", r->file, r->column,
                    !isfinite(y) ? "work rate (no work counter)"
                    : above_axis(s) ? "limit (no trip point; give --trip to tb-fit)"
                                    : "peak (not in °C)");
            continue;
        }
        if (drawn++ == 0 || *limit == r->limit)
            *limit = r->limit;
        else
            *limit = NAN;
        char *name = name_of(&g, r, columns);
        if (!name || add_point(*st, nst, name, x, y) < 0)
            status = name ? TB_EXIT_OUTPUT : TB_EXIT_INPUT;
    }
    if (!*st)
        status = TB_EXIT_OUTPUT;
    if (status == TB_EXIT_OUTPUT)
        fprintf(stderr, "tb-plot: out of memory\n");
    if (status == TB_EXIT_OK && drawn == 0) {
        fprintf(stderr, "tb-plot: tradeoff: no run with both a work rate and a %s\n",
                above_axis(s) ? "limit" : "peak temperature");
        status = TB_EXIT_INPUT;
    }
    if (status == TB_EXIT_OK) {
        char **names = malloc(*nst * sizeof *names);
        if (names) {   /* in the groups' order, as tb-compare's */
            for (size_t k = 0; k < *nst; k++)
                names[k] = (*st)[k].name;
            if (tb_grouping_sort(&g, names, *nst, err, sizeof err) == 0)
                for (size_t k = 0; k < *nst; k++)
                    for (size_t j = k; j < *nst; j++)
                        if ((*st)[j].name == names[k]) {
                            struct strategy t = (*st)[k];
                            (*st)[k] = (*st)[j];
                            (*st)[j] = t;
                        }
            free(names);
        }
    }
    tb_grouping_free(&g);
    return status;
}

/* The mean of the N values X with its LEVEL interval (none for one run). */
static void mean_interval(const double *x, size_t n, double level, double *m, double *lo,
                          double *hi)
{
    double half;
    *m = tb_mean_ci(x, n, level, &half);
    *lo = n >= 2 && isfinite(half) ? *m - half : *m;
    *hi = n >= 2 && isfinite(half) ? *m + half : *m;
}

static void draw_strategies(const struct plot_settings *s, struct strategy *st, size_t nst,
                            double limit)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t k = 0; k < nst; k++) {
        struct strategy *p = &st[k];
        mean_interval(p->x, p->n, s->m.fit.level, &p->mx, &p->xlo, &p->xhi);
        mean_interval(p->y, p->n, s->m.fit.level, &p->my, &p->ylo, &p->yhi);
        for (size_t i = 0; i < p->n; i++) {
            xlo = fmin(xlo, p->x[i]), xhi = fmax(xhi, p->x[i]);
            ylo = fmin(ylo, p->y[i]), yhi = fmax(yhi, p->y[i]);
        }
        xlo = fmin(xlo, p->xlo), xhi = fmax(xhi, p->xhi);
        ylo = fmin(ylo, p->ylo), yhi = fmax(yhi, p->yhi);
    }
    if (!above_axis(s) && isfinite(limit))
        xlo = fmin(xlo, limit), xhi = fmax(xhi, limit);
    padded_range(&xlo, &xhi);
    padded_range(&ylo, &yhi);

    char xlabel[96];
    if (!above_axis(s))
        snprintf(xlabel, sizeof xlabel, "peak temperature (°C)");
    else if (isfinite(limit))
        snprintf(xlabel, sizeof xlabel, "time above the limit, %g °C (s)", limit);
    else
        snprintf(xlabel, sizeof xlabel, "time above each run's limit (s)");
    figure_begin(&s->fig, 1);
    pladv(0);
    draw_axes(0.10, 0.97, 0.12, 0.80, xlo, xhi, ylo, yhi, "bcnst", "bcnstv", xlabel,
              "work rate over the last third (operations/s)");
    plcol0(C_BLACK);
    plmtex("t", 5.0, 0.5, 0.5, s->fig.title ? s->fig.title : "Work rate kept against the heat it cost");

    struct legend lg = {0};
    if (!above_axis(s) && isfinite(limit)) {
        double lx[2] = {limit, limit}, ly[2] = {ylo, yhi};
        plcol0(C_GREY);
        pllsty(2);
        figure_pen(1.5);
        plline(2, lx, ly);
        pllsty(1);
        char text[64];
        snprintf(text, sizeof text, "limit %g °C (%s)", limit, isnan(s->limit) ? "trip" : "--limit");
        legend_line(&lg, text, C_GREY, 2, 1.5);
    }
    for (size_t k = 0; k < nst; k++) {
        struct strategy *p = &st[k];
        size_t style = style_of(st, nst, k);
        int colour = colours[style % (sizeof colours / sizeof *colours)];
        const char *symbol = (p->predicted ? open_symbols : symbols)[style % (sizeof symbols / sizeof *symbols)];
        plcol0(colour);
        plschr(0, 0.5);   /* each run, faint beside its group's mean */
        plstring((PLINT)p->n, p->x, p->y, "•");
        plschr(0, 1.0);
        figure_pen(1.5);
        plerrx(1, &p->xlo, &p->xhi, &p->my);
        plerry(1, &p->mx, &p->ylo, &p->yhi);
        plschr(0, p->predicted ? 0.75 : symbol_size[style % (sizeof symbols / sizeof *symbols)]);
        plstring(1, &p->mx, &p->my, symbol);
        plschr(0, 1.0);
        occupy_points(p->n, p->x, p->y, 2);
        occupy_segment(p->xlo, p->my, p->xhi, p->my, 2);
        occupy_segment(p->mx, p->ylo, p->mx, p->yhi, 2);
        char text[200];
        int len = (int)strlen(p->name) - (p->predicted ? (int)sizeof predicted_suffix - 1 : 0);
        snprintf(text, sizeof text, "%.*s (%s%zu run%s)", len, p->name, p->predicted ? "predicted, " : "",
                 p->n, p->n == 1 ? "" : "s");
        legend_points(&lg, text, colour);
        lg.symbol[lg.n - 1] = symbol;
    }
    legend_draw(&lg, PL_POSITION_BOTTOM | PL_POSITION_RIGHT);
    legend_free(&lg);
    plcol0(C_BLACK);
    plschr(0, 0.8);
    char note[128];
    int predictions = 0;
    for (size_t k = 0; k < nst; k++)
        predictions |= st[k].predicted;
    snprintf(note, sizeof note, "mean of the repeats, %g %% intervals both ways; dots: runs%s",
             s->m.fit.level * 100, predictions ? "; open: predicted" : "");
    plmtex("t", 1.2, 1.0, 1.0, note);
    plschr(0, 1.0);
    figure_end();
}

int plot_tradeoff(const struct plot_settings *s, char **paths, int npaths)
{
    tb_result *rows = NULL;
    size_t nrows = 0, nst = 0;
    struct strategy *st = NULL;
    double limit;
    int status = plot_read_results(s, paths, npaths, &rows, &nrows);

    if (status != TB_EXIT_INPUT && status != TB_EXIT_OUTPUT) {
        int got = gather(s, rows, nrows, &st, &nst, &limit);
        if (got != TB_EXIT_OK)
            status = got;
        else
            draw_strategies(s, st, nst, limit);
    }
    for (size_t k = 0; k < nst; k++) {
        free(st[k].name);
        free(st[k].x);
        free(st[k].y);
    }
    free(st);
    tb_results_free(rows, nrows);
    return status;
}
