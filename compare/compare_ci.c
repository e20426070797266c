/*
 * compare_ci.c -- tb-compare's table as a list of tests for the formats
 * CI systems and kernel-CI dashboards read (ci_report.h).
 *
 * Each is a list of tests, one per group × column × metric measured: a
 * group tested against the baseline passes or fails by its verdict (a
 * regression fails; too few sound fits is an error, never a pass); the
 * baseline's own cells, and every cell when no regression was asked for,
 * are measurements without a verdict.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci_report.h"
#include "compare.h"
#include "output.h"

/* One test of the list: a cell, its test against the baseline or NULL. */
struct ci_test {
    size_t column, group;
    int metric;
    const struct compare_cell *cell;
    const struct compare_test *test;
};

static enum tb_ci_status ci_status(const struct compare_settings *s, const struct ci_test *k)
{
    if (!k->test)
        return TB_CI_DONE;
    if (k->test->inconclusive)
        return TB_CI_ERROR;
    if (k->test->regression)
        return TB_CI_FAIL;
    return s->regression ? TB_CI_PASS : TB_CI_DONE;
}

/* What a test says in words: "52.10 [51.95, 52.25] °C, 3 runs; +0.80
 * [+0.62, +0.98] against 5.4, p 0.0012: regression". */
static void ci_summary(const struct compare_table *t, const struct ci_test *k, char *out,
                       size_t size)
{
    char mean[32], lo[32], hi[32];
    const char *unit = compare_metric_unit(k->metric);
    int d = isfinite(k->cell->lo) ? tb_interval_decimals(k->cell->mean, k->cell->lo, k->cell->hi, 2) : 2;
    tb_format_number(mean, sizeof mean, k->cell->mean, d, 0);
    size_t used;
    if (isfinite(k->cell->lo) && isfinite(k->cell->hi)) {
        tb_format_number(lo, sizeof lo, k->cell->lo, d, 0);
        tb_format_number(hi, sizeof hi, k->cell->hi, d, 0);
        used = (size_t)snprintf(out, size, "%s [%s, %s]%s%s, %zu run%s", mean, lo, hi, *unit ? " " : "",
                                unit, k->cell->n, k->cell->n == 1 ? "" : "s");
    } else if (k->cell->n) {
        used = (size_t)snprintf(out, size, "%s%s%s, %zu run%s", mean, *unit ? " " : "", unit,
                                k->cell->n, k->cell->n == 1 ? "" : "s");
    } else {
        used = (size_t)snprintf(out, size, "no sound fit");
    }
    if (!k->test || used >= size)
        return;
    if (k->test->inconclusive) {
        snprintf(out + used, size - used, "; inconclusive against %s: too few sound fits",
                 compare_baseline_name(t, k->group));
        return;
    }
    const tb_welch_result *w = &k->test->w;
    int dd = tb_interval_decimals(w->diff, w->lo, w->hi, 2);
    tb_format_number(mean, sizeof mean, w->diff, dd, 1);
    tb_format_number(lo, sizeof lo, w->lo, dd, 1);
    tb_format_number(hi, sizeof hi, w->hi, dd, 1);
    snprintf(out + used, size - used, "; %s [%s, %s] against %s, p %.2g%s%s", mean, lo, hi,
             compare_baseline_name(t, k->group), k->test->p_adj, *k->test->verdict ? ": " : "",
             k->test->verdict);
}

/* The device tree's compatible strings the runs of each group say, where
 * they all say the same (else NULL), into COMPAT[group] (free() each):
 * read once, not once a test. */
static void group_compatibles(const struct compare_row *rows, size_t nrows,
                              const struct compare_table *t, char **compat)
{
    int *mixed = calloc(t->ngroups, sizeof *mixed);
    for (size_t g = 0; g < t->ngroups; g++)
        compat[g] = NULL;
    for (size_t i = 0; mixed && i < nrows; i++) {
        size_t g = 0;
        while (g < t->ngroups && (!rows[i].group || strcmp(rows[i].group, t->groups[g]) != 0))
            g++;
        if (g == t->ngroups || mixed[g])
            continue;
        char *c = tb_result_meta(&rows[i].r, "compatible");
        if (!c || !*c || (compat[g] && strcmp(c, compat[g]) != 0)) {
            free(c);
            free(compat[g]);
            compat[g] = NULL;
            mixed[g] = 1;
        } else if (compat[g]) {
            free(c);
        } else {
            compat[g] = c;
        }
    }
    free(mixed);
}

/* The numbers of test K besides its mean, into P: their count. */
static size_t ci_properties(const struct compare_table *t, const struct ci_test *k,
                            tb_ci_property *p)
{
    size_t n = 0;
    p[n++] = (tb_ci_property){"lo", k->cell->lo, NULL};
    p[n++] = (tb_ci_property){"hi", k->cell->hi, NULL};
    p[n++] = (tb_ci_property){"runs", (double)k->cell->n, NULL};
    if (!k->test)
        return n;
    p[n++] = (tb_ci_property){"baseline", NAN, compare_baseline_name(t, k->group)};
    if (k->test->inconclusive) {
        p[n++] = (tb_ci_property){"verdict", NAN, "inconclusive"};
        return n;
    }
    p[n++] = (tb_ci_property){"diff", k->test->w.diff, NULL};
    p[n++] = (tb_ci_property){"diff_lo", k->test->w.lo, NULL};
    p[n++] = (tb_ci_property){"diff_hi", k->test->w.hi, NULL};
    p[n++] = (tb_ci_property){"p_holm", k->test->p_adj, NULL};
    if (*k->test->verdict)
        p[n++] = (tb_ci_property){"verdict", NAN, k->test->verdict};
    return n;
}

/* Test K as the CI writer's: named COLUMN METRIC of GROUP, the metric's
 * path key "tinf" for T∞. */
static int ci_add(tb_ci_list *l, const struct compare_settings *s, const struct compare_table *t,
                  const struct ci_test *k, const char *compatible)
{
    char name[32], summary[512];
    const char *metric = compare_metric_name(k->metric, name, sizeof name);
    enum tb_ci_status st = ci_status(s, k);
    ci_summary(t, k, summary, sizeof summary);
    tb_ci_test c = {
        .group = t->groups[k->group], .column = t->columns[k->column],
        .metric = metric, .key = k->metric == M_TINF ? "tinf" : metric,
        .unit = compare_metric_unit(k->metric),
        .value = k->cell->n ? k->cell->mean : NAN,
        .status = st,
        .reason = st == TB_CI_FAIL ? k->test->verdict : st == TB_CI_ERROR ? "inconclusive" : NULL,
        .summary = summary, .compatible = compatible,
    };
    c.nproperties = ci_properties(t, k, c.property);
    return tb_ci_list_add(l, &c);
}

/* Every cell measured (or untestable), in the table's order, into L:
 * 0, or -1 out of memory. */
static int ci_add_cells(tb_ci_list *l, const struct compare_settings *s,
                        const struct compare_table *t, char *const *compat)
{
    for (size_t c = 0; c < t->ncolumns; c++)
        for (size_t g = 0; g < t->ngroups; g++)
            for (int m = 0; m < M_COUNT; m++) {
                struct ci_test k = {c, g, m, compare_cell_at(t, c, g, m), compare_test_at(t, c, g, m)};
                if ((k.cell->n || (k.test && k.test->inconclusive)) &&
                    ci_add(l, s, t, &k, compat[g]) < 0)
                    return -1;
            }
    return 0;
}

int compare_report_ci(const struct compare_settings *s, const struct compare_table *t,
                      const struct compare_row *rows, size_t nrows)
{
    char **compat = calloc(t->ngroups ? t->ngroups : 1, sizeof *compat);
    tb_ci_list l = {0};
    int rc = -1;
    if (compat) {
        group_compatibles(rows, nrows, t, compat);
        rc = ci_add_cells(&l, s, t, compat);
    }
    if (rc == 0) {
        char about[512];
        snprintf(about, sizeof about, "grouped by %s and compared with %s", s->group_by,
                 compare_baseline_label(t));
        rc = tb_ci_write(stdout, s->ci, "tb-compare", about, &l);
    }
    for (size_t g = 0; compat && g < t->ngroups; g++)
        free(compat[g]);
    free(compat);
    tb_ci_list_free(&l);
    return rc;
}
