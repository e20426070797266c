/*
 * compare_table.c -- tb-compare's statistics: the groups' values of each
 * metric (T∞, each τ, operations per second) per column, their means with
 * confidence intervals, Welch's t-test of every group against the baseline
 * with Holm's correction over all tests, and the verdicts the thresholds
 * give.  A τ is positive and spread on a log scale: its mean, interval and
 * test are taken on ln τ, as tb-fit's intervals are, so no interval holds
 * a negative time constant.  τᵢ of fits of different orders are different
 * quantities and are not compared.  A fit whose own analysis says not to
 * trust it (tb_result_sound()) is left out of every mean and test unless
 * --include-flagged, and a group left with too few sound fits is
 * inconclusive, never "no regression".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

const char *compare_metric_name(int m, char *buf, size_t size)
{
    return compare_metric_label(m, 0, buf, size);
}

const char *compare_metric_label(int m, int text, char *buf, size_t size)
{
    if (m == M_TINF)
        return text ? "T∞" : "T_inf";
    if (m == M_OPS)
        return text ? "operations/s" : "ops_per_s";
    if (m == M_SUSTAINED)
        return text ? "sustained operations/s" : "ops_sustained_per_s";
    if (m == M_PEAK)
        return text ? "peak" : "peak";
    if (m == M_ABOVE)
        return text ? "time above limit" : "above_limit_s";
    if (m == M_THROTTLED)
        return text ? "throttled share" : "throttled_share";
    snprintf(buf, size, text ? "τ%d" : "tau%d", m - M_TAU1 + 1);
    return buf;
}

/* The value of metric M in a fit result. */
static double metric_of(const tb_result *r, int m)
{
    if (m == M_TINF)
        return r->t_inf.value;
    switch (m) {
    case M_OPS: return r->ops_per_s;
    case M_SUSTAINED: return r->ops_sustained.value;
    case M_PEAK: return r->peak;
    case M_ABOVE: return r->above_limit_s;
    case M_THROTTLED: return r->throttled_share;
    default: return r->tau[m - M_TAU1].value;
    }
}

static struct compare_cell *cell_at(struct compare_table *t, size_t c, size_t g, int m)
{
    return &t->cells[(c * t->ngroups + g) * M_COUNT + (size_t)m];
}

const struct compare_cell *compare_cell_at(const struct compare_table *t, size_t c, size_t g,
                                           int m)
{
    return &t->cells[(c * t->ngroups + g) * M_COUNT + (size_t)m];
}

int compare_left_out(const struct compare_settings *s, const tb_result *r)
{
    return !s->include_flagged && !tb_result_sound(r, s->threshold);
}

static size_t index_of(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return i;
    return n;
}

/* The verdict of test K from its corrected p: regressions only where a
 * baseline or a threshold was asked for (S->regression); otherwise a
 * designed experiment's differences, which are neither good nor bad. */
static void give_verdict(const struct compare_settings *s, struct compare_table *t,
                         struct compare_test *k)
{
    double base = cell_at(t, k->column, t->baseline_of[k->group], k->metric)->mean;
    double rel = base != 0 ? k->w.diff / fabs(base) : NAN;
    k->verdict = "";
    if (!(k->p_adj < 1 - s->m.fit.level))
        return;
    if (!s->regression || k->metric == M_ABOVE || k->metric == M_THROTTLED) {
        /* (the time above the limit and the throttled share have no
         * threshold: told, never a regression of their own) */
        if (k->metric >= M_TAU1 && k->metric < M_OPS && !(fabs(rel) > s->tau_threshold))
            return;
        k->verdict = k->w.diff > 0 ? "higher" : "lower";
    } else if (k->metric == M_TINF || k->metric == M_PEAK) {
        if (k->w.diff > s->threshold)
            k->verdict = "regression", k->regression = 1;
        else if (k->w.diff < -s->threshold)
            k->verdict = "improvement";
    } else if (k->metric == M_OPS || k->metric == M_SUSTAINED) {
        if (rel < -s->ops_threshold)
            k->verdict = "regression", k->regression = 1;
        else if (rel > s->ops_threshold)
            k->verdict = "improvement";
    } else if (fabs(rel) > s->tau_threshold) {
        k->verdict = "changed", k->regression = 1;
    }
}

/* Every group against the baseline, metric by metric, by Welch's t-test;
 * Holm's correction over all the tests made, then the verdicts.  A T∞
 * that cannot be tested (too few sound fits on either side) is an
 * inconclusive test of its own.  0, or -1 when memory runs out. */
static int test_groups(const struct compare_settings *s, struct compare_table *t)
{
    size_t most = t->ncolumns * t->ngroups * M_COUNT;
    t->tests = calloc(most ? most : 1, sizeof *t->tests);
    double *p = malloc((most ? most : 1) * sizeof *p);
    size_t *made = malloc((most ? most : 1) * sizeof *made), nmade = 0;
    if (!t->tests || !p || !made) {
        free(p);
        free(made);
        return -1;
    }
    for (size_t c = 0; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            size_t base = t->baseline_of[g];
            if (g == base)
                continue;
            for (int m = 0; m < M_COUNT; m++) {
                struct compare_cell none = {0};   /* no baseline on its board */
                struct compare_cell *a = base == COMPARE_NO_BASELINE ? &none : cell_at(t, c, base, m);
                struct compare_cell *b = cell_at(t, c, g, m);
                struct compare_test *k = &t->tests[t->ntests];
                *k = (struct compare_test){.column = c, .group = g, .metric = m};
                if (a->n == 0 || tb_welch_test(a->x, a->n, b->x, b->n, s->m.fit.level, &k->w) < 0) {
                    if (m == M_TINF && (a->n < COMPARE_MIN_FITS || b->n < COMPARE_MIN_FITS)) {
                        k->inconclusive = 1;
                        k->verdict = "inconclusive";
                        k->w.diff = k->w.lo = k->w.hi = k->w.p = k->p_adj = NAN;
                        t->ntests++;
                    }
                    continue;
                }
                /* means equal to nine digits are equal: a rate of 120
                 * operations/s in every run differs by rounding alone */
                int tau = m >= M_TAU1 && m < M_OPS;   /* in ln τ: relative already */
                if (fabs(k->w.diff) <= 1e-9 * (tau ? 1 : fmax(fabs(a->mean), fabs(b->mean))))
                    k->w.p = 1;
                if (tau) {
                    /* tested on ln τ; told in s from the baseline's mean:
                     * the interval of exp(Δ ln τ) scaled by it */
                    double base = a->mean;
                    k->w.diff = base * expm1(k->w.diff);
                    k->w.lo = base * expm1(k->w.lo);
                    k->w.hi = base * expm1(k->w.hi);
                }
                made[nmade] = t->ntests++;
                p[nmade++] = k->w.p;
            }
        }
    }
    int rc = tb_holm_adjust(p, nmade, p);
    for (size_t i = 0; rc == 0 && i < nmade; i++) {
        t->tests[made[i]].p_adj = p[i];
        give_verdict(s, t, &t->tests[made[i]]);
    }
    free(p);
    free(made);
    return rc;
}

size_t compare_leading_keys(const char *group)
{
    const char *slash = strrchr(group, '/');
    return slash ? (size_t)(slash - group) : strlen(group);
}

/* Whether group G's last key is VALUE, with its leading keys' length
 * into *PREFIX: "imx8qm/6.1" is 6.1 of "imx8qm". */
static int last_key_is(const char *g, const char *value, size_t *prefix)
{
    size_t len = compare_leading_keys(g);
    if (!g[len] || strcmp(g + len + 1, value) != 0)
        return 0;
    *prefix = len;
    return 1;
}

/* Each group's baseline: --baseline's group (or the first) for all; or,
 * grouped by several keys and --baseline naming the last key's value
 * (--group-by meta:board,meta:kernel --baseline 6.1), each group's own
 * leading keys' group with that value: each board's kernels against that
 * board's 6.1.  0, or -1 with ERR. */
static int choose_baselines(const struct compare_settings *s, struct compare_table *t,
                            char *err, size_t errlen)
{
    if (!(t->baseline_of = malloc(t->ngroups * sizeof *t->baseline_of)))
        return snprintf(err, errlen, "out of memory"), -1;
    t->baseline = s->baseline ? index_of(t->groups, t->ngroups, s->baseline) : 0;
    for (size_t g = 0; g < t->ngroups; g++)
        t->baseline_of[g] = t->baseline;
    if (t->baseline < t->ngroups)
        return 0;
    size_t found = 0, len;
    for (size_t g = 0; g < t->ngroups; g++) {
        t->baseline_of[g] = COMPARE_NO_BASELINE;
        for (size_t b = 0; b < t->ngroups; b++)
            if (last_key_is(t->groups[b], s->baseline, &len) && compare_leading_keys(t->groups[g]) == len &&
                t->groups[g][len] == '/' && strncmp(t->groups[g], t->groups[b], len) == 0)
                t->baseline_of[g] = b;
        if (t->baseline_of[g] == g && found++ == 0)
            t->baseline = g;
    }
    const char *comma = strrchr(s->group_by, ',');
    if (found && comma &&
        asprintf(&t->baseline_label, "%s of each %.*s", s->baseline, (int)(comma - s->group_by),
                 s->group_by) >= 0)
        return 0;
    size_t used = (size_t)snprintf(err, errlen, "--baseline: no group %s; groups:", s->baseline);
    for (size_t g = 0; g < t->ngroups && used < errlen; g++)
        used += (size_t)snprintf(err + used, errlen - used, " %s", t->groups[g]);
    return -1;
}

const char *compare_baseline_label(const struct compare_table *t)
{
    return t->baseline_label ? t->baseline_label : t->groups[t->baseline];
}

const char *compare_baseline_name(const struct compare_table *t, size_t g)
{
    return t->baseline_of[g] == COMPARE_NO_BASELINE ? "none" : t->groups[t->baseline_of[g]];
}

int compare_table_build(const struct compare_settings *s, const struct compare_row *rows,
                        size_t n, struct compare_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->columns = calloc(n, sizeof *t->columns);
    t->groups = calloc(n, sizeof *t->groups);
    if (!t->columns || !t->groups)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        if (index_of(t->columns, t->ncolumns, rows[i].r.column) == t->ncolumns)
            t->columns[t->ncolumns++] = rows[i].r.column;
        if (index_of(t->groups, t->ngroups, rows[i].group) == t->ngroups)
            t->groups[t->ngroups++] = rows[i].group;
    }
    if (tb_grouping_sort(&s->grouping, t->groups, t->ngroups, err, errlen) < 0)
        return -1;
    if (choose_baselines(s, t, err, errlen) < 0)
        return -1;
    t->cells = calloc(t->ncolumns * t->ngroups * M_COUNT, sizeof *t->cells);
    t->order_lo = calloc(t->ncolumns, sizeof *t->order_lo);
    t->order_hi = calloc(t->ncolumns, sizeof *t->order_hi);
    t->left_out = calloc(n, sizeof *t->left_out);
    if (!t->cells || !t->order_lo || !t->order_hi || !t->left_out)
        goto oom;
    t->nfits = n;
    for (size_t i = 0; i < n; i++) {
        if (compare_left_out(s, &rows[i].r)) {
            t->left_out[t->nleft_out++] = &rows[i];
            continue;
        }
        size_t c = index_of(t->columns, t->ncolumns, rows[i].r.column);
        int o = rows[i].r.order;
        if (!t->order_lo[c] || o < t->order_lo[c])
            t->order_lo[c] = o;
        if (o > t->order_hi[c])
            t->order_hi[c] = o;
    }
    for (size_t i = 0, next = 0; i < n; i++) {
        /* the rows left out above, met again in the same order: what was
         * measured of their runs is taken, what was fitted is not */
        int left_out = next < t->nleft_out && t->left_out[next] == &rows[i];
        next += left_out;
        size_t c = index_of(t->columns, t->ncolumns, rows[i].r.column);
        size_t g = index_of(t->groups, t->ngroups, rows[i].group);
        int flagged = rows[i].r.flags && *rows[i].r.flags;
        /* a run with no limit (no trip, no cooling device, no --trip)
         * has no "under its limits" to compare */
        int limited = isfinite(rows[i].r.limit) || isfinite(rows[i].r.throttled_share);
        for (int m = 0; m < M_COUNT; m++) {
            if ((left_out && !COMPARE_MEASURED(m)) || (m > M_OPS && !limited))
                continue;
            double v = metric_of(&rows[i].r, m);
            struct compare_cell *cl = cell_at(t, c, g, m);
            int tau = m >= M_TAU1 && m < M_OPS;
            if (tau && t->order_lo[c] != t->order_hi[c])
                continue;   /* τ2 of two terms is not τ2 of three */
            if (tau)
                v = v > 0 ? log(v) : NAN;
            if (!isfinite(v))
                continue;
            if (!cl->x && !(cl->x = malloc(n * sizeof *cl->x)))
                goto oom;
            cl->x[cl->n++] = v;
            cl->nflagged += flagged && !COMPARE_MEASURED(m);
        }
    }
    for (size_t c = 0; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            for (int m = 0; m < M_COUNT; m++) {
                struct compare_cell *cl = cell_at(t, c, g, m);
                double half;
                cl->mean = tb_mean_ci(cl->x, cl->n, s->m.fit.level, &half);
                cl->lo = cl->mean - half;
                cl->hi = cl->mean + half;
                cl->sd = cl->n >= 2 ? gsl_stats_sd(cl->x, 1, cl->n) : NAN;
                if (m >= M_TAU1 && m < M_OPS && cl->n) {   /* back from ln τ: s */
                    cl->mean = exp(cl->mean);
                    cl->lo = exp(cl->lo);
                    cl->hi = exp(cl->hi);
                    cl->sd = NAN;
                    if (cl->n >= 2) {
                        double sum = 0, sum2 = 0;
                        for (size_t i = 0; i < cl->n; i++) {
                            sum += exp(cl->x[i]);
                            sum2 += exp(cl->x[i]) * exp(cl->x[i]);
                        }
                        cl->sd = sqrt(fmax(0, (sum2 - sum * sum / (double)cl->n) / (double)(cl->n - 1)));
                    }
                }
            }
        }
    }
    if (test_groups(s, t) < 0)
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

void compare_table_free(struct compare_table *t)
{
    for (size_t i = 0; t->cells && i < t->ncolumns * t->ngroups * M_COUNT; i++)
        free(t->cells[i].x);
    free(t->cells);
    free(t->tests);
    free(t->order_lo);
    free(t->order_hi);
    free(t->left_out);
    free(t->columns);
    free(t->groups);
    free(t->baseline_of);
    free(t->baseline_label);
}

const struct compare_test *compare_test_at(const struct compare_table *t, size_t c, size_t g,
                                           int m)
{
    for (size_t i = 0; i < t->ntests; i++)
        if (t->tests[i].column == c && t->tests[i].group == g && t->tests[i].metric == m)
            return &t->tests[i];
    return NULL;
}

int compare_regressed(const struct compare_table *t)
{
    return compare_first_regression(t) != NULL;
}

const struct compare_test *compare_first_regression(const struct compare_table *t)
{
    for (size_t i = 0; i < t->ntests; i++)
        if (t->tests[i].regression)
            return &t->tests[i];
    return NULL;
}

int compare_inconclusive(const struct compare_table *t)
{
    for (size_t i = 0; i < t->ntests; i++)
        if (t->tests[i].inconclusive)
            return 1;
    return 0;
}
