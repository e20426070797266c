/*
 * compare_report.c -- tb-compare's table as text, CSV, JSON or markdown
 * (for a CI job's summary), and --plot through tb-plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "find_program.h"
#include "output.h"

const char *compare_metric_unit(int m)
{
    switch (m) {
    case M_TINF: case M_PEAK: return "°C";
    case M_OPS: case M_SUSTAINED: return "operations/s";
    case M_THROTTLED: return "";
    default: return "s";
    }
}

/* The decimals metric M falls back on where no interval says. */
static int fallback_decimals(int m)
{
    switch (m) {
    case M_TINF: case M_PEAK: case M_THROTTLED: return 2;
    case M_OPS: case M_SUSTAINED: return 0;
    default: return 1;
    }
}

/* Whether M's text heading names no unit: a rate says its own. */
static int unit_in_label(int m)
{
    return m == M_OPS || m == M_SUSTAINED || m == M_THROTTLED;
}

/* The decimals of metric M's column in column C: enough for the
 * narrowest interval of any group, so that the groups' values line up. */
static int column_decimals(const struct compare_table *t, size_t c, int m, int fallback)
{
    int d = -1;
    for (size_t g = 0; g < t->ngroups; g++) {
        const struct compare_cell *cl = compare_cell_at(t, c, g, m);
        if (cl->n && isfinite(cl->lo))
            d = fmax(d, tb_interval_decimals(cl->mean, cl->lo, cl->hi, fallback));
    }
    return d < 0 ? fallback : d;
}

/* "52.00 [51.97, 52.04]" of a group's cell; its mean alone for one run. */
static void cell_text(const struct compare_cell *cl, int d, char *out, size_t size)
{
    tb_estimate_text e;
    if (tb_format_estimate(&e, cl->mean, cl->lo, cl->hi, d, 0))
        snprintf(out, size, "%s [%s, %s]", e.value, e.lo, e.hi);
    else
        snprintf(out, size, "%s", cl->n ? e.value : "");
}

/* "+0.99 °C [+0.96, +1.02]": a group's change from the baseline. */
void compare_change_text(const struct compare_test *k, char *out, size_t size)
{
    tb_estimate_text e;
    if (k->inconclusive) {
        snprintf(out, size, "not tested");
        return;
    }
    int dig = tb_interval_decimals(k->w.diff, k->w.lo, k->w.hi,
                                   k->metric == M_TINF || k->metric == M_PEAK ? 2 : 0);
    tb_format_estimate(&e, k->w.diff, k->w.lo, k->w.hi, dig, 1);
    if (unit_in_label(k->metric))
        snprintf(out, size, "%s [%s, %s]", e.value, e.lo, e.hi);
    else
        snprintf(out, size, "%s %s [%s, %s]", e.value, compare_metric_unit(k->metric), e.lo, e.hi);
}

/* The report's last word, naming what it rests on: one group is not "no
 * regression" but nothing compared (and exit status 2); a group with too
 * few sound fits is inconclusive (exit status 4), never "no regression". */
static void verdict_line(const struct compare_settings *s, const struct compare_table *t,
                         char *out, size_t size)
{
    const struct compare_test *k = compare_first_regression(t);
    size_t used = 0;
    if (t->ngroups < 2) {
        snprintf(out, size, "nothing compared: one group");
        return;
    }
    if (k) {
        char buf[32], change[200];
        compare_change_text(k, change, sizeof change);
        size_t more = 0;
        for (size_t i = 0; i < t->ntests; i++)
            more += t->tests[i].regression && &t->tests[i] != k;
        used = (size_t)snprintf(out, size, "regression found: %s, %s, %s %s", t->groups[k->group],
                                t->columns[k->column], compare_metric_label(k->metric, 1, buf, sizeof buf),
                                change);
        if (more && used < size)
            used += (size_t)snprintf(out + used, size - used, " (and %zu more)", more);
    } else if (!compare_inconclusive(t)) {
        used = (size_t)snprintf(out, size, "%s", s->regression ? "no regression"
                                : "compared: differences from the first group, no regression asked "
                                  "for (--baseline or --threshold)");
    }
    for (size_t i = 0; i < t->ntests && used < size; i++) {
        const struct compare_test *q = &t->tests[i];
        if (q->inconclusive)
            used += (size_t)snprintf(out + used, size - used, "%sinconclusive: %s, %s (%zu and %zu "
                                     "sound fits; %d needed)", used ? "; " : "", t->groups[q->group],
                                     t->columns[q->column],
                                     t->baseline_of[q->group] == COMPARE_NO_BASELINE ? 0 :
                                     compare_cell_at(t, q->column, t->baseline_of[q->group], M_TINF)->n,
                                     compare_cell_at(t, q->column, q->group, M_TINF)->n,
                                     COMPARE_MIN_FITS);
    }
}

/* The fits no mean or verdict rests on, named (tb_left_out_text()). */
static void left_out_text(const struct compare_table *t, FILE *f)
{
    const tb_result **rows = t->nleft_out ? malloc(t->nleft_out * sizeof *rows) : NULL;
    if (!rows)
        return;
    for (size_t i = 0; i < t->nleft_out; i++)
        rows[i] = &t->left_out[i]->r;
    tb_left_out_text(f, rows, t->nleft_out, t->nfits);
    free(rows);
}

/* Column C's table: each group's runs and metrics (group names WG wide),
 * each metric as wide as its widest cell. */
static void text_table(const struct compare_table *t, size_t c, size_t wg)
{
    char buf[32], cell[160];
    int shown[M_COUNT], ns = 0, dec[M_COUNT];
    size_t width[M_COUNT];
    char head[M_COUNT][48];
    for (int m = 0; m < M_COUNT; m++) {
        if (!compare_cell_at(t, c, t->baseline, m)->n)
            continue;
        shown[ns] = m;
        dec[ns] = column_decimals(t, c, m, fallback_decimals(m));
        snprintf(head[ns], sizeof head[ns], unit_in_label(m) ? "%s" : "%s %s (interval)",
                 compare_metric_label(m, 1, buf, sizeof buf), compare_metric_unit(m));
        width[ns] = tb_display_width(head[ns]);
        for (size_t g = 0; g < t->ngroups; g++) {
            cell_text(compare_cell_at(t, c, g, m), dec[ns], cell, sizeof cell);
            if (tb_display_width(cell) > width[ns])
                width[ns] = tb_display_width(cell);
        }
        ns++;
    }
    printf("  ");
    tb_print_left(stdout, "group", wg);
    printf("  runs");
    for (int i = 0; i < ns; i++) {
        printf("  ");
        tb_print_left(stdout, head[i], i + 1 < ns || shown[i] == M_TINF ? width[i] : 0);
        if (shown[i] == M_TINF)
            printf("  %7s", "sd");
    }
    putchar('\n');
    for (size_t g = 0; g < t->ngroups; g++) {
        const struct compare_cell *tinf = compare_cell_at(t, c, g, M_TINF);
        printf("  ");
        tb_print_left(stdout, t->groups[g], wg);
        printf("  %4zu", tinf->n);
        for (int i = 0; i < ns; i++) {
            const struct compare_cell *cl = compare_cell_at(t, c, g, shown[i]);
            cell_text(cl, dec[i], cell, sizeof cell);
            printf("  ");
            tb_print_left(stdout, cell, i + 1 < ns || shown[i] == M_TINF ? width[i] : 0);
            if (shown[i] == M_TINF) {
                char sd[48] = "";
                if (isfinite(cl->sd))
                    tb_format_number(sd, sizeof sd, cl->sd, dec[i] + 1, 0);
                printf("  ");
                tb_print_right(stdout, sd, 7);
            }
        }
        if (tinf->nflagged)
            printf("  (%zu flagged)", tinf->nflagged);
        putchar('\n');
    }
}

/* Column C's tests against the baseline, a line each, and their verdicts. */
static void text_tests(const struct compare_settings *s, const struct compare_table *t, size_t c,
                       size_t wg)
{
    char buf[32];
    printf("  versus %s (Welch's t-test%s; Holm-corrected p, α = %g):\n", compare_baseline_label(t),
           t->order_lo[c] == t->order_hi[c] ? ", τ on a log scale" : "", 1 - s->m.fit.level);
    int any_here = 0;
    for (size_t i = 0; i < t->ntests; i++)
        any_here |= t->tests[i].column == c;
    if (!any_here)
        printf("    nothing to test: every group needs %d sound fits or more\n", COMPARE_MIN_FITS);
    size_t wl = 14, wc = 30;   /* as wide as the widest label and change */
    for (size_t i = 0; i < t->ntests; i++) {
        char change[200];
        if (t->tests[i].column != c)
            continue;
        compare_change_text(&t->tests[i], change, sizeof change);
        wl = fmax(wl, tb_display_width(compare_metric_label(t->tests[i].metric, 1, buf,
                                                            sizeof buf)) + 2);
        wc = fmax(wc, tb_display_width(change) + 2);
    }
    for (size_t i = 0; i < t->ntests; i++) {
        struct compare_test *k = &t->tests[i];
        if (k->column != c)
            continue;
        char change[200];
        compare_change_text(k, change, sizeof change);
        printf("    ");
        tb_print_left(stdout, t->groups[k->group], wg);
        printf("  ");
        tb_print_left(stdout, compare_metric_label(k->metric, 1, buf, sizeof buf), wl);
        tb_print_left(stdout, change, wc);
        if (k->inconclusive)
            printf("  INCONCLUSIVE: too few sound fits\n");
        else
            printf("  p %.2g%s%s\n", k->p_adj, *k->verdict ? "  " : "",
                   k->regression ? (strcmp(k->verdict, "changed") ? "REGRESSION" : "CHANGED")
                                 : k->verdict);
    }
}

static void print_text(const struct compare_settings *s, const struct compare_table *t, size_t nfailed)
{
    size_t wg = strlen("group");
    for (size_t g = 0; g < t->ngroups; g++)
        if (tb_display_width(t->groups[g]) > wg)
            wg = tb_display_width(t->groups[g]);
    for (size_t c = 0; c < t->ncolumns; c++) {
        printf("%s%s: groups by %s, %s %s\n", c ? "\n" : "", t->columns[c], s->group_by,
               s->regression ? "baseline" : "differences from", compare_baseline_label(t));
        if (t->order_lo[c] != t->order_hi[c])
            printf("  τ not compared: fits of orders %d to %d (their τᵢ are different time "
                   "constants; fit every run with one --order)\n", t->order_lo[c], t->order_hi[c]);
        text_table(t, c, wg);
        text_tests(s, t, c, wg);
    }
    char verdict[1024];
    verdict_line(s, t, verdict, sizeof verdict);
    if (compare_boards_text(s, t) < 0)
        fputs("tb-compare: out of memory: no summary across boards\n", stderr);
    putchar('\n');
    left_out_text(t, stdout);
    printf("%s", verdict);
    if (nfailed)
        printf(" (%zu fit%s failed and excluded)", nfailed, nfailed == 1 ? "" : "s");
    putchar('\n');
}

static void print_csv(const struct compare_table *t)
{
    char buf[32];
    puts("column,group,metric,runs,mean,lo,hi,sd,baseline,diff,diff_lo,diff_hi,p,p_holm,verdict");
    for (size_t c = 0; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            for (int m = 0; m < M_COUNT; m++) {
                const struct compare_cell *cl = compare_cell_at(t, c, g, m);
                if (!cl->n)
                    continue;
                const struct compare_test *k = compare_test_at(t, c, g, m);
                tb_csv_write_string(stdout, t->columns[c]);
                putchar(',');
                tb_csv_write_string(stdout, t->groups[g]);
                printf(",%s,%zu,%.10g,", compare_metric_name(m, buf, sizeof buf), cl->n, cl->mean);
                tb_csv_number(stdout, cl->lo);
                putchar(',');
                tb_csv_number(stdout, cl->hi);
                putchar(',');
                tb_csv_number(stdout, cl->sd);
                putchar(',');
                tb_csv_write_string(stdout, compare_baseline_name(t, g));
                if (k) {
                    double v[] = {k->w.diff, k->w.lo, k->w.hi, k->w.p, k->p_adj};
                    for (size_t j = 0; j < sizeof v / sizeof *v; j++) {
                        putchar(',');
                        tb_csv_number(stdout, v[j]);
                    }
                    printf(",%s\n", k->verdict);
                } else
                    printf(",,,,,,\n");
            }
        }
    }
}

static void print_json(const struct compare_settings *s, const struct compare_table *t, size_t nfailed)
{
    char buf[32];
    int any = compare_regressed(t);
    printf("{\"group_by\": ");
    tb_json_string(stdout, s->group_by);
    printf(", \"baseline\": ");
    tb_json_string(stdout, compare_baseline_label(t));
    printf(", \"level\": %g, \"correction\": \"holm\", \"mode\": \"%s\", \"regression\": %s, "
           "\"inconclusive\": %s, \"failed_fits\": %zu,\n", s->m.fit.level,
           s->regression ? "regression" : "comparison", any ? "true" : "false",
           compare_inconclusive(t) ? "true" : "false", nfailed);
    printf(" \"fits\": %zu, \"left_out\": [", t->nfits);
    for (size_t i = 0; i < t->nleft_out; i++) {
        const tb_result *r = &t->left_out[i]->r;
        printf("%s{\"file\": ", i ? ", " : "");
        tb_json_string(stdout, r->file);
        printf(", \"column\": ");
        tb_json_string(stdout, r->column);
        printf(", \"group\": ");
        tb_json_string(stdout, t->left_out[i]->group);
        printf(", \"flags\": [");
        for (const char *c = r->flags; *c;) {
            size_t len = strcspn(c, ";");
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), c);
            printf("%s", c == r->flags ? "" : ", ");
            tb_json_string(stdout, name);
            c += len + (c[len] == ';');
        }
        printf("]}");
    }
    printf("],\n");
    printf(" \"groups\": [");
    for (size_t c = 0, first = 1; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            for (int m = 0; m < M_COUNT; m++) {
                const struct compare_cell *cl = compare_cell_at(t, c, g, m);
                if (!cl->n)
                    continue;
                printf("%s\n  {\"column\": ", first ? "" : ",");
                first = 0;
                tb_json_string(stdout, t->columns[c]);
                printf(", \"group\": ");
                tb_json_string(stdout, t->groups[g]);
                printf(", \"metric\": \"%s\", \"runs\": %zu, \"mean\": ", compare_metric_name(m, buf, sizeof buf), cl->n);
                tb_json_number(stdout, cl->mean);
                printf(", \"lo\": ");
                tb_json_number(stdout, cl->lo);
                printf(", \"hi\": ");
                tb_json_number(stdout, cl->hi);
                printf(", \"sd\": ");
                tb_json_number(stdout, cl->sd);
                printf(", \"flagged\": %zu}", cl->nflagged);
            }
        }
    }
    printf("],\n \"comparisons\": [");
    for (size_t i = 0; i < t->ntests; i++) {
        struct compare_test *k = &t->tests[i];
        printf("%s\n  {\"column\": ", i ? "," : "");
        tb_json_string(stdout, t->columns[k->column]);
        printf(", \"group\": ");
        tb_json_string(stdout, t->groups[k->group]);
        printf(", \"metric\": \"%s\", \"diff\": ", compare_metric_name(k->metric, buf, sizeof buf));
        tb_json_number(stdout, k->w.diff);
        printf(", \"lo\": ");
        tb_json_number(stdout, k->w.lo);
        printf(", \"hi\": ");
        tb_json_number(stdout, k->w.hi);
        printf(", \"p\": ");
        tb_json_number(stdout, k->w.p);
        printf(", \"p_holm\": ");
        tb_json_number(stdout, k->p_adj);
        printf(", \"verdict\": ");
        tb_json_string(stdout, k->verdict);
        putchar('}');
    }
    putchar(']');
    if (compare_boards_json(t) < 0)
        fputs("tb-compare: out of memory: no summary across boards\n", stderr);
    printf("}\n");
}

static void print_markdown(const struct compare_settings *s, const struct compare_table *t, size_t nfailed)
{
    char buf[32], verdict[1024];
    verdict_line(s, t, verdict, sizeof verdict);
    printf("**tb-compare: %s** (groups by `%s`, %s `%s`, Welch's t-test, Holm-corrected, "
           "α = %g%s)\n\n", verdict, s->group_by, s->regression ? "baseline" : "versus",
           compare_baseline_label(t), 1 - s->m.fit.level,
           nfailed ? ", some fits failed and were excluded" : "");
    if (t->nleft_out) {
        left_out_text(t, stdout);
        putchar('\n');
    }
    if (compare_boards_markdown(s, t) < 0)
        fputs("tb-compare: out of memory: no summary across boards\n", stderr);
    for (size_t c = 0; c < t->ncolumns; c++) {
        printf("#### %s\n\n| group | runs | T∞ (°C) | sd |", t->columns[c]);
        for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
            if (compare_cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                printf(" τ%d (s) |", j + 1);
        printf("\n|---|---|---|---|");
        for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
            if (compare_cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                printf("---|");
        putchar('\n');
        for (size_t g = 0; g < t->ngroups; g++) {
            char cell[160], sd[48] = "";
            const struct compare_cell *ti = compare_cell_at(t, c, g, M_TINF);
            int d = column_decimals(t, c, M_TINF, 2);
            cell_text(ti, d, cell, sizeof cell);
            if (isfinite(ti->sd))
                tb_format_number(sd, sizeof sd, ti->sd, d + 1, 0);
            printf("| %s | %zu | %s | %s |", t->groups[g], ti->n, cell, sd);
            for (int j = 0; j < TB_FIT_MAX_ORDER; j++) {
                if (!compare_cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                    continue;
                cell_text(compare_cell_at(t, c, g, M_TAU1 + j), column_decimals(t, c, M_TAU1 + j, 1),
                          cell, sizeof cell);
                printf(" %s |", cell);
            }
            putchar('\n');
        }
        printf("\n| versus %s | metric | change | p (Holm) | verdict |\n|---|---|---|---|---|\n",
               compare_baseline_label(t));
        for (size_t i = 0; i < t->ntests; i++) {
            struct compare_test *k = &t->tests[i];
            if (k->column != c)
                continue;
            char change[200];
            compare_change_text(k, change, sizeof change);
            printf("| %s | %s | %s | %.2g | %s |\n", t->groups[k->group],
                   compare_metric_label(k->metric, 1, buf, sizeof buf), change, k->p_adj,
                   *k->verdict ? k->verdict : "–");
        }
        putchar('\n');
    }
}

/* The first column's rows as tb-fit results, for tb-plot compare with the
 * same --group-by and --group-order, which draws the figure: one plotting
 * program, and one way of grouping and ordering (grouping.c). */
int compare_plot(const struct compare_settings *s, const struct compare_row *rows, size_t n,
                 const struct compare_table *t)
{
    /* A private folder: no name another user could plant or guess. */
    const char *tmpdir = getenv("TMPDIR");
    char dir[PATH_MAX], results[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/tb-compare.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "tb-compare: --plot: a temporary folder in %s: %s\n",
                tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
        return TB_EXIT_INPUT;
    }
    snprintf(results, sizeof results, "%s/results.csv", dir);
    FILE *f = fopen(results, "wx");
    if (!f) {
        fprintf(stderr, "tb-compare: --plot: %s: %s\n", results, strerror(errno));
        rmdir(dir);
        return TB_EXIT_INPUT;
    }
    tb_results_write_header(f, TB_FIT_MAX_ORDER);
    for (size_t g = 0; g < t->ngroups; g++) {
        for (size_t i = 0; i < n; i++) {
            const tb_result *r = &rows[i].r;
            if (strcmp(rows[i].group, t->groups[g]) || strcmp(r->column, t->columns[0]))
                continue;
            tb_results_write(f, r, TB_FIT_MAX_ORDER);
        }
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "tb-compare: --plot: %s: %s\n", results, strerror(errno));
        remove(results);
        rmdir(dir);
        return TB_EXIT_INPUT;
    }
    char *tool = tb_find_program("tb-plot", "plot");
    if (!tool) {
        fprintf(stderr, "tb-compare: --plot: tb-plot is neither beside tb-compare nor on PATH\n");
        remove(results);
        rmdir(dir);
        return TB_EXIT_INPUT;
    }
    char title[256];
    snprintf(title, sizeof title, "%s: T∞ by %s (%s %s)", t->columns[0], s->group_by,
             s->regression ? "baseline" : "versus", t->groups[t->baseline]);
    /* the baseline, the threshold and the verdicts of T∞ drawn with it */
    char threshold[64], baseline[PATH_MAX + 16];
    snprintf(threshold, sizeof threshold, "--threshold=%.17g", s->threshold);
    snprintf(baseline, sizeof baseline, "--baseline=%s", t->groups[t->baseline]);
    char **verdicts = calloc(t->ntests + 1, sizeof *verdicts);
    size_t nv = 0;
    for (size_t i = 0; verdicts && i < t->ntests; i++) {
        const struct compare_test *k = &t->tests[i];
        if (k->column == 0 && k->metric == M_TINF && *k->verdict &&
            asprintf(&verdicts[nv], "--verdict=%s=%s", t->groups[k->group], k->verdict) >= 0)
            nv++;
    }
    const char *argv[32 + 64];
    size_t na = 0;
    const char *fixed[] = {tool, "compare", results, "--group-by", s->group_by, "--ops", "--title", title,
                           "-o", s->plot, baseline, threshold};
    /* a threshold only where regressions were asked for */
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed - !s->regression; i++)
        argv[na++] = fixed[i];
    if (s->group_order) {
        argv[na++] = "--group-order";
        argv[na++] = s->group_order;
    }
    for (size_t i = 0; i < nv && na < sizeof argv / sizeof *argv - 1; i++)
        argv[na++] = verdicts[i];
    argv[na] = NULL;
    int status = TB_EXIT_INPUT;
    if (tb_run_program((char *const *)argv, NULL, NULL, "tb-compare: --plot") == 0)
        status = TB_EXIT_OK;
    else
        fprintf(stderr, "tb-compare: --plot %s: tb-plot failed\n", s->plot);
    remove(results);
    rmdir(dir);
    free(tool);
    for (size_t i = 0; i < nv; i++)
        free(verdicts[i]);
    free(verdicts);
    return status;
}

void compare_report(const struct compare_settings *s, const struct compare_table *t,
                    size_t nfailed, const struct compare_row *rows, size_t n)
{
    if (s->format != COMPARE_TEXT && s->format != COMPARE_MARKDOWN && t->nleft_out) {
        fputs("tb-compare: ", stderr);   /* said where the output is for a program */
        left_out_text(t, stderr);
    }
    switch (s->format) {
    case COMPARE_TEXT: print_text(s, t, nfailed); break;
    case COMPARE_CSV: print_csv(t); break;
    case COMPARE_JSON: print_json(s, t, nfailed); break;
    case COMPARE_MARKDOWN: print_markdown(s, t, nfailed); break;
    case COMPARE_CI:
        if (compare_report_ci(s, t, rows, n) < 0 && !ferror(stdout))
            fputs("tb-compare: out of memory\n", stderr);   /* a write error: said at exit */
        break;
    }
}
