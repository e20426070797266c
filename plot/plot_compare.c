/*
 * plot_compare.c -- the T∞ of tb-fit results side by side: one point per
 * fitted column, or per group of runs (mean and Student-t interval), with
 * error bars, and optionally operations per second on a second axis.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <fnmatch.h>
#include <libgen.h>
#include <math.h>
#include <plplot.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "paths.h"
#include "grouping.h"
#include "plot.h"

struct group {
    char *name;
    double *t_inf, *ops;     /* n and nops of them, room for cap */
    size_t n, nops, cap;
    tb_estimate own;         /* the fit's interval, for a group of one */
    const char *column;      /* its results' column */
    size_t category, series; /* its place on the axis, its colour (a column each) */
};

static const int series_colour[] = {C_BLUE, C_ORANGE, C_GREEN, C_PURPLE, C_BROWN, C_TEAL, C_PINK, C_OLIVE};

/* Room for one more value in G; 0, or -1 when memory runs out.  Each
 * group holds what it has, so n results take O(n) memory, grouped or not. */
static int group_grow(struct group *g)
{
    if (g->n < g->cap)
        return 0;
    size_t cap = g->cap ? 2 * g->cap : 4;
    double *t = realloc(g->t_inf, cap * sizeof *t);
    if (t)
        g->t_inf = t;
    double *o = t ? realloc(g->ops, cap * sizeof *o) : NULL;
    if (o)
        g->ops = o;
    if (!t || !o)
        return -1;
    g->cap = cap;
    return 0;
}

/* The index of the group named KEY in a hash table of SIZE slots (a power
 * of two) over GROUPS: a slot holding it, or the empty one to put it in. */
static size_t group_slot(const size_t *table, size_t size, const struct group *groups,
                         const char *key)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    size_t i = (size_t)h & (size - 1);
    while (table[i] != SIZE_MAX && strcmp(groups[table[i]].name, key) != 0)
        i = (i + 1) & (size - 1);
    return i;
}

/* The point a result belongs to.  With --group-by: its run's group, and
 * its column too when the results hold several (the mean of a group is
 * over runs of one sensor, never over sensors).  Without: the result
 * itself, by its path (less ".csv") and column, so that run1.csv of two
 * directories stay two points. */
static char *group_key(const struct tb_grouping *g, const tb_result *r, int columns,
                       char *err, size_t errlen)
{
    char *key = NULL;
    if (g) {
        char *group = tb_grouping_of(g, r->file, NULL, r, err, errlen);
        if (!group || columns < 2)
            return group;
        if (asprintf(&key, "%s: %s", group, r->column) < 0)
            key = NULL;
        free(group);
    } else {
        size_t len = strlen(r->file);
        if (len > 4 && strcmp(r->file + len - 4, ".csv") == 0)
            len -= 4;
        if (asprintf(&key, "%.*s: %s", (int)len, r->file, r->column) < 0)
            key = NULL;
    }
    if (!key)
        snprintf(err, errlen, "out of memory");
    return key;
}

/* How many different columns the N results hold (2 means "several"). */
static int distinct_columns(const tb_result *rows, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (strcmp(rows[i].column, rows[0].column) != 0)
            return 2;
    return n > 0;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* The categories of the N GROUPS (sorted), in their order: a group's key
 * less its ": COLUMN" (which runs keep always, groups of --group-by when
 * there are several COLUMNS); each group's category and series (its
 * column's place among the columns, in order of first appearance) set,
 * their counts in *NCAT and *NSERIES.  NULL when memory runs out. */
static char **category_names(struct group *groups, size_t n, size_t *ncat, size_t *nseries,
                             int grouped, int columns)
{
    char **cats = malloc((n ? n : 1) * sizeof *cats);
    const char **series = malloc((n ? n : 1) * sizeof *series);
    size_t tsize = 16;
    while (tsize < 2 * n)
        tsize *= 2;
    size_t *table = malloc(tsize * sizeof *table);
    struct group *index = calloc(n ? n : 1, sizeof *index);   /* group_slot() looks up names */
    *ncat = *nseries = 0;
    if (!cats || !series || !table || !index)
        goto fail;
    for (size_t i = 0; i < tsize; i++)
        table[i] = SIZE_MAX;
    for (size_t g = 0; g < n; g++) {
        size_t len = strlen(groups[g].name), col = strlen(groups[g].column);
        if ((!grouped || columns > 1) && len >= col + 2 &&
            strcmp(groups[g].name + len - col, groups[g].column) == 0 &&
            strncmp(groups[g].name + len - col - 2, ": ", 2) == 0)
            len -= col + 2;
        char *cat = strndup(groups[g].name, len);
        if (!cat)
            goto fail;
        size_t slot = group_slot(table, tsize, index, cat);
        if (table[slot] == SIZE_MAX) {
            table[slot] = *ncat;
            index[*ncat].name = cat;
            cats[(*ncat)++] = cat;
        } else {
            free(cat);
        }
        groups[g].category = table[slot];
        size_t k = 0;
        while (k < *nseries && strcmp(series[k], groups[g].column) != 0)
            k++;
        if (k == *nseries)
            series[(*nseries)++] = groups[g].column;
        groups[g].series = k;
    }
    free(series);
    free(table);
    free(index);
    return cats;
fail:
    free_names(cats, *ncat);
    free(series);
    free(table);
    free(index);
    return NULL;
}

#define LABEL_MAX 30

/* NAME cut to its last LABEL_MAX characters, where runs differ
 * ("…bench-t1-15min: CPU_0_temp"). */
static void shorten(const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    if (len <= LABEL_MAX) {
        snprintf(out, size, "%s", name);
        return;
    }
    const char *tail = name + len - (LABEL_MAX - 1);
    while ((*tail & 0xC0) == 0x80)   /* not inside a UTF-8 character */
        tail++;
    snprintf(out, size, "…%s", tail);
}

/* Append a fitted row to ROWS. */
static int push_row(tb_result **rows, size_t *n, const tb_result *r)
{
    tb_result *nr = realloc(*rows, (*n + 1) * sizeof *nr);
    if (!nr)
        return -1;
    nr[(*n)++] = *r;
    *rows = nr;
    return 0;
}

/* Whether result R is one of the -c specs' columns: a result holds the
 * column's name, which a name, a glob or a header (NAME/UNIT) picks. */
static int wanted_column(const struct plot_settings *s, const tb_result *r)
{
    for (size_t i = 0; i < s->ncolumns; i++) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(s->columns[i], "/"), s->columns[i]);
        if (fnmatch(name, r->column, 0) == 0)
            return 1;
    }
    return s->ncolumns == 0;
}

/* Keep of ROWS[FROM..*N) those -c asks for, in order. */
static void keep_wanted(const struct plot_settings *s, tb_result *rows, size_t from, size_t *n)
{
    size_t kept = from;
    for (size_t k = from; k < *n; k++) {
        if (wanted_column(s, &rows[k]))
            rows[kept++] = rows[k];
        else
            tb_result_clear(&rows[k]);
    }
    *n = kept;
}

/* A group's mean never rests on a fit that says not to trust it
 * (tb_result_sound(), as tb-compare): such rows are left out and named,
 * unless --include-flagged.  0, or -1 when memory runs out. */
static int leave_out_unsound(const struct plot_settings *s, tb_result *rows, size_t *n)
{
    const tb_result **out = malloc((*n ? *n : 1) * sizeof *out);
    tb_result *gone = malloc((*n ? *n : 1) * sizeof *gone);
    size_t kept = 0, nout = 0, total = *n;
    if (!out || !gone) {
        free(out);
        free(gone);
        return -1;
    }
    for (size_t k = 0; k < *n; k++) {
        if (tb_result_sound(&rows[k], isnan(s->threshold) ? 0.5 : s->threshold))
            rows[kept++] = rows[k];
        else
            gone[nout++] = rows[k];
    }
    for (size_t k = 0; k < nout; k++)
        out[k] = &gone[k];
    if (nout) {
        fputs("tb-plot: ", stderr);
        tb_left_out_text(stderr, out, nout, total);
    }
    for (size_t k = 0; k < nout; k++)
        tb_result_clear(&gone[k]);
    *n = kept;
    free(out);
    free(gone);
    return 0;
}

int plot_read_results(const struct plot_settings *s, char **paths, int npaths,
                      tb_result **rows, size_t *nrows)
{
    struct tb_paths runs = {0};
    char err[TB_ERRMAX];
    int status = TB_EXIT_OK;

    for (int i = 0; i < npaths; i++) {
        if (strcmp(paths[i], "-") == 0 || tb_results_is_results_file(paths[i])) {
            size_t before = *nrows;
            if (tb_results_read(paths[i], rows, nrows, err, sizeof err) < 0) {
                fprintf(stderr, "tb-plot: %s\n", err);
                status = TB_EXIT_INPUT;
                break;
            }
            /* the rows of fits that failed: said, and not drawn */
            size_t kept = before;
            for (size_t k = before; k < *nrows; k++) {
                if ((*rows)[k].failed) {
                    fprintf(stderr, "tb-plot: %s: %s: %s: its fit failed (%s): not drawn\n", paths[i],
                            (*rows)[k].file, (*rows)[k].column, (*rows)[k].error);
                    tb_result_clear(&(*rows)[k]);
                    status = TB_EXIT_FIT;
                } else {
                    (*rows)[kept++] = (*rows)[k];
                }
            }
            *nrows = kept;
            keep_wanted(s, *rows, before, nrows);
        } else if (tb_paths_add(&runs, paths[i], "tb-plot") < 0) {
            status = TB_EXIT_INPUT;
            break;
        }
    }
    /* many runs take a while to fit: a progress line on a terminal, its
     * messages clear of it */
    struct tb_progress progress;
    struct plot_settings with_progress = *s;
    with_progress.progress = &progress;
    tb_progress_start(&progress, "tb-plot", "runs", runs.n);
    for (size_t i = 0; status != TB_EXIT_INPUT && i < runs.n; i++) {
        tb_run *run = tb_run_read(runs.v[i], NULL, err, sizeof err);
        tb_analysis *a = run ? plot_analyse(&with_progress, run, 0) : NULL;
        tb_progress_show(&progress, i + 1);
        if (!run) {
            tb_progress_clear(&progress);
            fprintf(stderr, "tb-plot: %s\n", err);
        }
        if (!a || tb_analysis_status(a) == TB_EXIT_INPUT)
            status = TB_EXIT_INPUT;
        for (size_t k = 0; status != TB_EXIT_INPUT && k < tb_analysis_ncolumns(a); k++) {
            const tb_analysed_column *c = tb_analysis_column(a, k);
            tb_result r;
            if (!c->fit) {   /* said among the analysis's messages */
                status = TB_EXIT_FIT;
                continue;
            }
            if (tb_result_from_column(c, &r) < 0 || push_row(rows, nrows, &r) < 0) {
                tb_result_clear(&r);
                tb_progress_clear(&progress);
                fprintf(stderr, "tb-plot: out of memory\n");
                status = TB_EXIT_OUTPUT;
            }
        }
        tb_analysis_free(a);
        tb_run_free(run);
    }
    tb_progress_clear(&progress);
    tb_paths_free(&runs);
    if (status != TB_EXIT_INPUT && (s->group_by || s->sweep_x) && !s->include_flagged && !s->measured_only &&
        leave_out_unsound(s, *rows, nrows) < 0) {
        fprintf(stderr, "tb-plot: out of memory\n");
        status = TB_EXIT_OUTPUT;
    }
    if (status != TB_EXIT_INPUT && *nrows == 0) {
        if (npaths == 1)
            fprintf(stderr, "tb-plot: %s: no results in it\n", paths[0]);
        else
            fprintf(stderr, "tb-plot: no results in the %d inputs given\n", npaths);
        status = TB_EXIT_INPUT;
    }
    return status;
}

/* Groups in tb-compare's order: --group-order's first, the rest natural. */
static int order_groups(const struct tb_grouping *g, struct group *groups, size_t n,
                        char *err, size_t errlen)
{
    char **names = malloc((n ? n : 1) * sizeof *names);
    struct group *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!names || !copy) {
        free(names);
        free(copy);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        names[i] = groups[i].name;
    int rc = tb_grouping_sort(g, names, n, err, errlen);
    if (rc == 0) {
        memcpy(copy, groups, n * sizeof *copy);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (copy[j].name == names[i])
                    groups[i] = copy[j];
    }
    free(names);
    free(copy);
    return rc;
}

/* The rows grouped into *GROUPS (*NGROUPS of them): with GROUPING as
 * tb-compare groups them, in its order; else a point a row.  TB_EXIT_OK,
 * or the status of what went wrong, said; the groups are the caller's to
 * free either way. */
static int collect_groups(const struct tb_grouping *grouping, const tb_result *rows, size_t nrows, int columns,
                          struct group **groups_out, size_t *ngroups_out)
{
    char err[TB_ERRMAX];
    int status = TB_EXIT_OK;
    size_t ngroups = 0;
    struct group *groups = calloc(nrows ? nrows : 1, sizeof *groups);
    size_t tsize = 16;
    while (tsize < 2 * nrows)
        tsize *= 2;
    size_t *table = groups ? malloc(tsize * sizeof *table) : NULL;
    if (!table) {
        free(groups);
        fprintf(stderr, "tb-plot: out of memory\n");
        return TB_EXIT_OUTPUT;
    }
    for (size_t i = 0; i < tsize; i++)
        table[i] = SIZE_MAX;
    for (size_t i = 0; i < nrows; i++) {
        char *key = group_key(grouping, &rows[i], columns, err, sizeof err);
        if (!key) {
            fprintf(stderr, "tb-plot: %s\n", err);
            status = TB_EXIT_INPUT;
            break;
        }
        size_t slot = group_slot(table, tsize, groups, key), g = table[slot];
        if (g == SIZE_MAX) {
            g = table[slot] = ngroups++;
            groups[g].name = key;
            groups[g].own = rows[i].t_inf;
            groups[g].column = rows[i].column;
        } else {
            free(key);
        }
        if (group_grow(&groups[g]) < 0) {
            fprintf(stderr, "tb-plot: out of memory\n");
            status = TB_EXIT_OUTPUT;
            break;
        }
        groups[g].t_inf[groups[g].n++] = rows[i].t_inf.value;
        if (isfinite(rows[i].ops_per_s))
            groups[g].ops[groups[g].nops++] = rows[i].ops_per_s;
    }
    free(table);
    *groups_out = groups;
    *ngroups_out = ngroups;
    if (status == TB_EXIT_OK && grouping &&
        order_groups(grouping, groups, ngroups, err, sizeof err) < 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        status = TB_EXIT_INPUT;
    }
    return status;
}

/* What is drawn of the groups: a point each at X, T∞ Y [YLO, YHI], the
 * operations per second OY beside it at OX. */
struct compare_points {
    double *x, *y, *ylo, *yhi, *oy, *ox;   /* one block of 6 × n */
    double lo, hi, olo, ohi;               /* the axes' ranges */
    int any_ops;
};

static int compare_points(const struct plot_settings *s, const struct group *groups, size_t ng,
                          size_t nseries, struct compare_points *p)
{
    double *x = malloc(6 * (ng ? ng : 1) * sizeof *x);
    if (!x)
        return -1;
    *p = (struct compare_points){.x = x, .y = x + ng, .ylo = x + 2 * ng, .yhi = x + 3 * ng,
                                 .oy = x + 4 * ng, .ox = x + 5 * ng,
                                 .lo = INFINITY, .hi = -INFINITY, .olo = INFINITY, .ohi = -INFINITY};
    for (size_t g = 0; g < ng; g++) {
        double half;
        p->x[g] = (double)groups[g].category + 1 +
                  (nseries > 1 ? ((double)groups[g].series - (double)(nseries - 1) / 2) * 0.7 / (double)nseries : 0);
        p->y[g] = tb_mean_ci(groups[g].t_inf, groups[g].n, s->m.fit.level, &half);
        p->ylo[g] = groups[g].n >= 2 ? p->y[g] - half : groups[g].own.lo;
        p->yhi[g] = groups[g].n >= 2 ? p->y[g] + half : groups[g].own.hi;
        if (!isfinite(p->ylo[g]) || !isfinite(p->yhi[g]))
            p->ylo[g] = p->yhi[g] = p->y[g];
        p->lo = fmin(p->lo, p->ylo[g]);
        p->hi = fmax(p->hi, p->yhi[g]);
        p->oy[g] = groups[g].nops ? tb_mean_ci(groups[g].ops, groups[g].nops, s->m.fit.level, &half) : NAN;
        if (isfinite(p->oy[g])) {
            p->any_ops = 1;
            p->olo = fmin(p->olo, p->oy[g]);
            p->ohi = fmax(p->ohi, p->oy[g]);
        }
    }
    return 0;
}

/* The legend: T∞'s points (a colour a column), the rate's diamonds. */
static void compare_legend(struct legend *lg, const struct plot_settings *s,
                           const struct group *groups, size_t ng, size_t nseries,
                           int draw_ops, int same_ops, double ops, int ops_colour)
{
    char text[160];
    if (nseries > 1) {
        snprintf(text, sizeof text, "T∞%s, %g %% interval, of:", s->group_by ? " (group mean)" : "",
                 s->m.fit.level * 100);
        legend_text(lg, text);
        for (size_t k = 0; k < nseries; k++)
            for (size_t g = 0; g < ng; g++)
                if (groups[g].series == k) {
                    legend_points(lg, groups[g].column, series_colour[k % 8]);
                    break;
                }
    } else {
        snprintf(text, sizeof text, "T∞%s, %g %% interval", s->group_by ? " (group mean)" : "",
                 s->m.fit.level * 100);
        legend_points(lg, text, C_BLUE);
    }
    if (draw_ops) {
        legend_points(lg, "operations/s (right axis)", ops_colour);
        lg->symbol[lg->n - 1] = "◆";
    }
    if (same_ops) {
        char same[96];
        snprintf(same, sizeof same, "operations/s: %.6g in every group", ops);
        legend_points(lg, same, ops_colour);
        lg->symbol[lg->n - 1] = "◆";
    }
}

/* The baseline's line from X0 to X1 at Y, and with REGRESSION the
 * threshold's above it, each named. */
static void draw_baseline(const struct plot_settings *s, const char *name, double y, double x0,
                          double x1, double span, int regression)
{
    double bx[2] = {x0, x1}, by[2] = {y, y}, ty[2] = {y + s->threshold, y + s->threshold};
    char text[128];
    draw_line(2, bx, by, INFINITY, C_GREY, 2, 1.5);
    if (regression)
        draw_line(2, bx, ty, INFINITY, C_RED, 3, 1.5);
    plschr(0, 0.7);
    plcol0(C_GREY);
    snprintf(text, sizeof text, "%s %s", regression ? "baseline" : "versus", name);
    plptex(x1 - 0.05, y - span * 0.025, 1.0, 0.0, 1.0, text);
    if (regression) {
        plcol0(C_RED);
        snprintf(text, sizeof text, "+%g °C: a regression, if significant", s->threshold);
        plptex(x1 - 0.05, y + s->threshold + span * 0.035, 1.0, 0.0, 1.0, text);
    }
    plschr(0, 1.0);
}

/* tb-compare's verdicts (--verdict GROUP=WORD), above their groups (a
 * group, or a category of several columns). */
static void draw_verdicts(const struct plot_settings *s, const struct group *groups, size_t ng,
                          char **cats, const double *yhi, double span)
{
    for (size_t v = 0; v < s->nverdicts; v++) {
        const char *eq = strchr(s->verdicts[v], '=');
        size_t len = (size_t)(eq - s->verdicts[v]);
        for (size_t g = 0; g < ng; g++) {
            const char *cat = cats[groups[g].category];
            int here = (strlen(groups[g].name) == len && strncmp(groups[g].name, s->verdicts[v], len) == 0) ||
                       (strlen(cat) == len && strncmp(cat, s->verdicts[v], len) == 0 &&
                        (g + 1 == ng || groups[g + 1].category != groups[g].category));
            if (!here)
                continue;
            plcol0(strcmp(eq + 1, "improvement") == 0 ? C_GREEN : C_RED);
            plschr(0, 0.9);
            plptex((double)groups[g].category + 1, yhi[g] + span * 0.11, 1.0, 0.0, 0.5, eq + 1);
            plschr(0, 1.0);
        }
    }
}

/* How many runs a point is the mean of: once over a category when its
 * columns all have as many, else over each point. */
static void draw_counts(const struct group *groups, size_t ng, const struct compare_points *p,
                        double span)
{
    for (size_t g = 0; g < ng; g++) {
        size_t first = g, last = g;
        while (first > 0 && groups[first - 1].category == groups[g].category)
            first--;
        while (last + 1 < ng && groups[last + 1].category == groups[g].category)
            last++;
        int same = 1;
        double top_of = -INFINITY;
        for (size_t k = first; k <= last; k++) {
            same &= groups[k].n == groups[g].n;
            top_of = fmax(top_of, p->yhi[k]);
        }
        if (groups[g].n < 2 || (same && g != last))
            continue;
        char count[32];
        snprintf(count, sizeof count, "n = %zu", groups[g].n);
        /* plptex() centres the text on its point: lift it clear of the cap */
        if (same)
            plptex((double)groups[g].category + 1, top_of + span * 0.05, 1.0, 0.0, 0.5, count);
        else
            plptex(p->x[g], p->yhi[g] + span * 0.05, 1.0, 0.0, 0.5, count);
    }
}

/* Each group's T∞ with its interval, in its column's colour. */
static void draw_group_points(const struct group *groups, size_t ng, size_t nseries,
                              const struct compare_points *p)
{
    figure_pen(2);
    for (size_t g = 0; g < ng; g++) {
        plcol0(nseries > 1 ? series_colour[groups[g].series % 8] : C_BLUE);
        plerry(1, &p->x[g], &p->ylo[g], &p->yhi[g]);
        plschr(0, 1.5);
        plstring(1, &p->x[g], &p->y[g], "•");
        plschr(0, 1.0);
    }
}

/* The operations per second on a right axis from OLO to OHI, a diamond
 * beside each T∞. */
static void draw_ops_axis(size_t ng, struct compare_points *p, double x0, double x1, double olo,
                          double ohi, int colour)
{
    plwind(x0, x1, olo, ohi);
    plcol0(C_BLACK);
    plbox("", 0, 0, "cmstv", 0, 0);
    plmtex("r", 5.6, 0.5, 0.5, "operations/s");
    for (size_t g = 0; g < ng; g++)
        p->ox[g] = p->x[g] + 0.18;   /* beside its T∞, not on it */
    plcol0(colour);
    plschr(0, 1.2);
    plstring((PLINT)ng, p->ox, p->oy, "◆");
    plschr(0, 1.0);
}

/* The baseline group (--baseline, a group or the category of one; else
 * the first): its index, or NG when there is none so named. */
static size_t baseline_group(const struct plot_settings *s, const struct group *groups, size_t ng,
                             char **cats)
{
    size_t base = 0;
    if (s->baseline)
        while (base < ng && strcmp(groups[base].name, s->baseline) != 0 &&
               strcmp(cats[groups[base].category], s->baseline) != 0)
            base++;
    return base;
}

/* The figure: the axes and their names, the legend, the baseline, the
 * verdicts, the categories' labels, the counts and the points. */
static void draw_compare(const struct plot_settings *s, const tb_result *rows, size_t nrows,
                         int columns, const struct group *groups, size_t ng, char **cats,
                         size_t ncat, size_t nseries, struct compare_points *p)
{
    size_t base = baseline_group(s, groups, ng, cats);
    /* within one column, as tb-compare compares (two sensors are not one
     * baseline) */
    int lines = s->group_by && columns == 1 && ng > 1 && isfinite(p->y[base]);
    /* the regression line only where regressions were asked for */
    int regression_line = lines && s->threshold > 0;
    double lo = p->lo, hi = p->hi, olo = p->olo, ohi = p->ohi;
    if (regression_line)
        hi = fmax(hi, p->y[base] + s->threshold);
    int draw_ops = s->ops && p->any_ops;
    /* the same rate in every group: said in the legend, no axis invented
     * around it (it was 119 to 121 for 120) */
    int same_ops = draw_ops && !(ohi - olo > 1e-9 * fmax(fabs(olo), fabs(ohi)));
    if (same_ops)
        draw_ops = 0;
    padded_range(&lo, &hi);
    hi += (hi - lo) * (s->nverdicts ? 0.16 : 0.08);   /* room for "n = N" (and a verdict) above */
    if (draw_ops) {
        padded_range(&olo, &ohi);
        padded_range(&olo, &ohi);   /* room for the markers */
    }

    figure_begin(&s->fig, 1);
    pladv(0);
    double right = draw_ops ? 0.88 : 0.97;
    /* Long names stand upright under their points, so leave room. */
    size_t longest = 0;
    size_t skip = s->group_by ? 0 : tb_common_dir(cats, ncat);
    for (size_t c = 0; c < ncat; c++) {
        size_t len = tb_display_width(cats[c] + skip);
        longest = len > longest ? len : longest;
    }
    if (longest > LABEL_MAX)
        longest = LABEL_MAX;
    /* upright when they would not fit side by side */
    double slot = (right - 0.09) / (double)ncat, label_size = ncat > 12 ? 0.6 : 0.8;
    int upright = figure_chars(label_size * ((double)longest + 1)) > 0.95 * slot;
    /* the labels' height in lines of text (at their 0.8 size; a glyph is
     * 0.62 of a line wide), then the axis's name under them */
    double label_lines = upright ? label_size * (0.75 * (double)longest + 0.7) : label_size * 2.5;
    double bottom = fmin(figure_lines(label_lines + 2.2), 0.55);
    double x0 = 0.4, x1 = (double)ncat + 0.6;
    struct legend lg = {0};
    /* the rate's diamonds in a colour no column has: orange beside the
     * one column's blue, black among several columns' colours */
    int ops_colour = nseries > 1 ? C_BLACK : C_ORANGE;
    compare_legend(&lg, s, groups, ng, nseries, draw_ops, same_ops, olo, ops_colour);
    /* the title, the legend's rows and the plot under them */
    int legend_columns = legend_outside_columns(&lg);
    int legend_rows = (lg.n + legend_columns - 1) / legend_columns;
    double top = 1 - figure_lines(3.4 + 1.45 * legend_rows);
    draw_axes(0.09, right, bottom, top, x0, x1, lo, hi, "bc", draw_ops ? "bnstv" : "bcnstv",
              NULL, "T∞ (°C)");
    plcol0(C_BLACK);
    char title[256];
    if (columns == 1 && nrows > 0)
        snprintf(title, sizeof title, "%s: T∞ by %s", rows[0].column, s->group_by ? s->group_by : "run");
    plmtex("t", 1.6 + 1.45 * legend_rows + 0.6, 0.5, 0.5,
           s->fig.title ? s->fig.title : columns == 1 && nrows > 0 ? title : "T∞ compared");
    /* what the categories are */
    plschr(0, 0.8);
    plmtex("b", (label_lines + 0.6) / 0.8 + 0.3, 0.5, 0.5,
           s->group_by ? s->group_by : "run");
    plschr(0, 1.0);
    if (lines)
        draw_baseline(s, groups[base].name, p->y[base], x0, x1, hi - lo, regression_line);
    draw_verdicts(s, groups, ng, cats, p->yhi, hi - lo);
    plcol0(C_BLACK);
    plschr(0, label_size);
    for (size_t c = 0; c < ncat; c++) {
        double pos = ((double)c + 1 - x0) / (x1 - x0);
        char label[LABEL_MAX + 8];
        shorten(cats[c] + skip, label, sizeof label);
        if (upright)
            plmtex("bv", 0.7, pos, 1.0, label);
        else
            plmtex("b", 1.5, pos, 0.5, label);
    }
    draw_counts(groups, ng, p, hi - lo);
    plschr(0, 1.0);
    draw_group_points(groups, ng, nseries, p);
    if (draw_ops)
        draw_ops_axis(ng, p, x0, x1, olo, ohi, ops_colour);
    legend_draw_outside_top(&lg);
    legend_free(&lg);
    figure_end();
}

int plot_compare(const struct plot_settings *s, char **paths, int npaths)
{
    tb_result *rows = NULL;
    size_t nrows = 0, ngroups = 0, ncat = 0, nseries = 0;
    struct group *groups = NULL;
    char **cats = NULL;
    char err[TB_ERRMAX];
    struct tb_grouping grouping;
    struct compare_points pts = {0};
    int status = TB_EXIT_OK;

    if ((status = plot_read_results(s, paths, npaths, &rows, &nrows)) == TB_EXIT_INPUT) {
        tb_results_free(rows, nrows);
        return status;
    }
    if (s->group_by && tb_grouping_init(&grouping, s->group_by, s->group_order, err, sizeof err) < 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        tb_results_free(rows, nrows);
        return TB_EXIT_INPUT;
    }
    int columns = distinct_columns(rows, nrows);
    /* a failed fit (reading's TB_EXIT_FIT) still draws the others */
    int collected = collect_groups(s->group_by ? &grouping : NULL, rows, nrows, columns,
                                   &groups, &ngroups);
    if (collected != TB_EXIT_OK) {
        status = collected;
        goto done;
    }
    /* The axis's categories are the runs (or the groups of --group-by),
     * each column a series of its own colour beside the others: a key
     * "CATEGORY: COLUMN" is drawn at CATEGORY.  Every group is drawn,
     * however many: none is dropped. */
    cats = category_names(groups, ngroups, &ncat, &nseries, s->group_by != NULL, columns);
    if (!cats || compare_points(s, groups, ngroups, nseries, &pts) < 0) {
        fprintf(stderr, "tb-plot: out of memory\n");
        status = TB_EXIT_OUTPUT;
        goto done;
    }
    if (s->ops && !pts.any_ops)
        fprintf(stderr, "tb-plot: note: the results have no operations per second to draw\n");
    if (s->baseline && baseline_group(s, groups, ngroups, cats) == ngroups) {
        fprintf(stderr, "tb-plot: --baseline: no group %s\n", s->baseline);
        status = TB_EXIT_INPUT;
        goto done;
    }
    draw_compare(s, rows, nrows, columns, groups, ngroups, cats, ncat, nseries, &pts);
done:
    free(pts.x);
    if (cats)
        free_names(cats, ncat);
    for (size_t g = 0; g < ngroups; g++) {
        free(groups[g].name);
        free(groups[g].t_inf);
        free(groups[g].ops);
    }
    free(groups);
    if (s->group_by)
        tb_grouping_free(&grouping);
    tb_results_free(rows, nrows);
    return status;
}
