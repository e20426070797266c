/*
 * compare_ci.c -- tb-compare's table in the formats CI systems and
 * kernel-CI dashboards read: JUnit XML, TAP 13, KCIDB v5 and LAVA's
 * lava-test-case calls.
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

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "output.h"

/* One test of the list: a cell, its test against the baseline or NULL. */
struct ci_test {
    size_t column, group;
    int metric;
    const struct compare_cell *cell;
    const struct compare_test *test;
};

enum ci_status { CI_DONE, CI_PASS, CI_FAIL, CI_ERROR };

static enum ci_status ci_status(const struct compare_settings *s, const struct ci_test *k)
{
    if (!k->test)
        return CI_DONE;
    if (k->test->inconclusive)
        return CI_ERROR;
    if (k->test->regression)
        return CI_FAIL;
    return s->regression ? CI_PASS : CI_DONE;
}

/* Every cell measured, in the table's order, into *OUT (free()): the
 * count, or 0 (with *OUT NULL) when there is none or memory runs out. */
static size_t ci_tests(const struct compare_table *t, struct ci_test **out)
{
    size_t n = 0;
    *out = malloc(t->ncolumns * t->ngroups * M_COUNT * sizeof **out);
    if (!*out)
        return 0;
    for (size_t c = 0; c < t->ncolumns; c++)
        for (size_t g = 0; g < t->ngroups; g++)
            for (int m = 0; m < M_COUNT; m++) {
                const struct compare_cell *cl = compare_cell_at(t, c, g, m);
                const struct compare_test *k = compare_test_at(t, c, g, m);
                if (cl->n || (k && k->inconclusive))
                    (*out)[n++] = (struct ci_test){c, g, m, cl, k};
            }
    return n;
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

/* --- JUnit XML ---------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}

static void xml_property(FILE *f, const char *prefix, const char *name, const char *value)
{
    fputs("      <property name=\"", f);
    xml_text(f, prefix);
    fputc('.', f);
    xml_text(f, name);
    fputs("\" value=\"", f);
    xml_text(f, value);
    fputs("\"/>\n", f);
}

static void xml_number_property(FILE *f, const char *prefix, const char *name, double x)
{
    char v[40];
    if (!isfinite(x))
        return;
    snprintf(v, sizeof v, "%.10g", x);
    xml_property(f, prefix, name, v);
}

/* A testsuite's properties: each of its tests' numbers, by metric. */
static void junit_properties(const struct compare_table *t, const struct ci_test *k, size_t n)
{
    char buf[32];
    puts("    <properties>");
    for (size_t i = 0; i < n; i++) {
        const char *name = compare_metric_name(k[i].metric, buf, sizeof buf);
        const char *unit = compare_metric_unit(k[i].metric);
        xml_number_property(stdout, name, "mean", k[i].cell->n ? k[i].cell->mean : NAN);
        xml_number_property(stdout, name, "lo", k[i].cell->lo);
        xml_number_property(stdout, name, "hi", k[i].cell->hi);
        xml_number_property(stdout, name, "runs", (double)k[i].cell->n);
        if (*unit)
            xml_property(stdout, name, "unit", unit);
        if (k[i].test && !k[i].test->inconclusive) {
            xml_property(stdout, name, "baseline", compare_baseline_name(t, k[i].group));
            xml_number_property(stdout, name, "diff", k[i].test->w.diff);
            xml_number_property(stdout, name, "diff_lo", k[i].test->w.lo);
            xml_number_property(stdout, name, "diff_hi", k[i].test->w.hi);
            xml_number_property(stdout, name, "p_holm", k[i].test->p_adj);
            if (*k[i].test->verdict)
                xml_property(stdout, name, "verdict", k[i].test->verdict);
        }
    }
    puts("    </properties>");
}

/* JUnit XML (the xUnit plugin's junit-10.xsd): a testsuite per group and
 * column, its numbers as properties, a testcase per metric. */
static void print_junit(const struct compare_settings *s, const struct compare_table *t,
                        const struct ci_test *k, size_t n)
{
    size_t failures = 0, errors = 0;
    for (size_t i = 0; i < n; i++) {
        failures += ci_status(s, &k[i]) == CI_FAIL;
        errors += ci_status(s, &k[i]) == CI_ERROR;
    }
    printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<testsuites name=\"tb-compare\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
           n, failures, errors);
    for (size_t i = 0; i < n;) {
        size_t j = i, f = 0, e = 0;
        while (j < n && k[j].column == k[i].column && k[j].group == k[i].group) {
            f += ci_status(s, &k[j]) == CI_FAIL;
            e += ci_status(s, &k[j]) == CI_ERROR;
            j++;
        }
        fputs("  <testsuite name=\"", stdout);
        xml_text(stdout, t->groups[k[i].group]);
        fputc('/', stdout);
        xml_text(stdout, t->columns[k[i].column]);
        printf("\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", j - i, f, e);
        junit_properties(t, k + i, j - i);
        for (size_t m = i; m < j; m++) {
            char buf[32], summary[512];
            const char *name = compare_metric_name(k[m].metric, buf, sizeof buf);
            ci_summary(t, &k[m], summary, sizeof summary);
            fputs("    <testcase classname=\"thermal.", stdout);
            xml_text(stdout, t->columns[k[m].column]);
            fputs("\" name=\"", stdout);
            xml_text(stdout, t->groups[k[m].group]);
            printf(" %s\">\n", name);
            enum ci_status st = ci_status(s, &k[m]);
            if (st == CI_FAIL || st == CI_ERROR) {
                printf("      <%s type=\"%s\" message=\"", st == CI_FAIL ? "failure" : "error",
                       st == CI_FAIL ? k[m].test->verdict : "inconclusive");
                xml_text(stdout, summary);
                printf("\"/>\n");
            }
            fputs("      <system-out>", stdout);
            xml_text(stdout, summary);
            puts("</system-out>\n    </testcase>");
        }
        puts("  </testsuite>");
        i = j;
    }
    puts("</testsuites>");
}

/* --- TAP ------------------------------------------------------------------ */

static void yaml_string(const char *key, const char *value)
{
    printf("  %s: ", key);
    tb_json_string(stdout, value);   /* a JSON string is a YAML flow scalar */
    putchar('\n');
}

static void yaml_number(const char *key, double x)
{
    if (isfinite(x))
        printf("  %s: %.10g\n", key, x);
}

/* TAP version 13, which TAP 14's and KTAP's parsers read too (and Perl's
 * TAP::Parser, which knows no later one): a test point per test, "not ok"
 * for a regression and for too few sound fits, its numbers in a YAML
 * block. */
static void print_tap(const struct compare_settings *s, const struct compare_table *t,
                      const struct ci_test *k, size_t n)
{
    printf("TAP version 13\n1..%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        char buf[32], summary[512];
        const char *name = compare_metric_name(k[i].metric, buf, sizeof buf);
        const char *unit = compare_metric_unit(k[i].metric);
        ci_summary(t, &k[i], summary, sizeof summary);
        enum ci_status st = ci_status(s, &k[i]);
        /* '#' would start a directive in a description: none in ours */
        printf("%s %zu - %s %s %s\n", st == CI_FAIL || st == CI_ERROR ? "not ok" : "ok", i + 1,
               t->groups[k[i].group], t->columns[k[i].column], name);
        puts("  ---");
        yaml_string("message", summary);
        yaml_string("group", t->groups[k[i].group]);
        yaml_string("column", t->columns[k[i].column]);
        yaml_string("metric", name);
        if (*unit)
            yaml_string("unit", unit);
        printf("  runs: %zu\n", k[i].cell->n);
        if (k[i].cell->n)
            yaml_number("mean", k[i].cell->mean);
        yaml_number("lo", k[i].cell->lo);
        yaml_number("hi", k[i].cell->hi);
        if (k[i].test) {
            yaml_string("baseline", compare_baseline_name(t, k[i].group));
            if (!k[i].test->inconclusive) {
                yaml_number("diff", k[i].test->w.diff);
                yaml_number("diff_lo", k[i].test->w.lo);
                yaml_number("diff_hi", k[i].test->w.hi);
                yaml_number("p_holm", k[i].test->p_adj);
            }
            yaml_string("verdict", k[i].test->inconclusive ? "inconclusive" : k[i].test->verdict);
        }
        puts("  ...");
    }
}

/* --- KCIDB v5 ------------------------------------------------------------ */

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

/* S with every '.' (a level of a KCIDB path) as '_'. */
static void kcidb_path_part(const char *s)
{
    for (; *s; s++)
        putchar(*s == '.' || (unsigned char)*s < 0x20 ? '_' : *s);
}

/* The path's metric: "tinf", "tau1", "ops_per_s". */
static const char *kcidb_metric(int m, char *buf, size_t size)
{
    return m == M_TINF ? "tinf" : compare_metric_name(m, buf, size);
}

static void kcidb_test(const struct compare_settings *s, const struct compare_table *t,
                       const struct ci_test *k, const char *compatible)
{
    static const char *const status[] = {"DONE", "PASS", "FAIL", "ERROR"};
    char buf[32], summary[512];
    const char *metric = kcidb_metric(k->metric, buf, sizeof buf);
    const char *unit = compare_metric_unit(k->metric);
    ci_summary(t, k, summary, sizeof summary);
    printf("  {\"id\": ");
    char id[600];
    snprintf(id, sizeof id, "tbkit:%s:thermal.%s.%s", t->groups[k->group], metric,
             t->columns[k->column]);
    tb_json_string(stdout, id);
    printf(", \"build_id\": ");
    snprintf(id, sizeof id, "tbkit:%s", t->groups[k->group]);
    tb_json_string(stdout, id);
    printf(", \"origin\": \"tbkit\", \"path\": \"thermal.%s.", metric);
    kcidb_path_part(t->columns[k->column]);
    printf("\", \"status\": \"%s\"", status[ci_status(s, k)]);
    if (k->cell->n && isfinite(k->cell->mean)) {
        printf(", \"number\": {\"value\": %.10g", k->cell->mean);
        if (*unit)
            printf(", \"unit\": \"%s\"", unit);
        putchar('}');
    }
    printf(", \"comment\": ");
    tb_json_string(stdout, summary);
    if (compatible) {   /* its strings, space-separated in the run's metadata */
        printf(", \"environment\": {\"compatible\": [");
        const char *p = compatible;
        for (int first = 1; *p; first = 0) {
            char one[1024];
            size_t len = strcspn(p, " ");
            snprintf(one, sizeof one, "%.*s", (int)len, p);
            printf("%s", first ? "" : ", ");
            tb_json_string(stdout, one);   /* metadata: any text */
            p += len + strspn(p + len, " ");
        }
        printf("]}");
    }
    printf(", \"misc\": {\"group\": ");
    tb_json_string(stdout, t->groups[k->group]);
    printf(", \"column\": ");
    tb_json_string(stdout, t->columns[k->column]);
    printf(", \"runs\": %zu", k->cell->n);
    if (isfinite(k->cell->lo) && isfinite(k->cell->hi))
        printf(", \"lo\": %.10g, \"hi\": %.10g", k->cell->lo, k->cell->hi);
    if (k->test && !k->test->inconclusive)
        printf(", \"diff\": %.10g, \"diff_lo\": %.10g, \"diff_hi\": %.10g, \"p_holm\": %.4g",
               k->test->w.diff, k->test->w.lo, k->test->w.hi, k->test->p_adj);
    printf("}}");
}

/* KCIDB v5.3 I/O: the tests, each of the build its group names
 * ("tbkit:GROUP"), with the board's compatible strings where its runs
 * say them.  A submitter supplies the builds and checkouts. */
static void print_kcidb(const struct compare_settings *s, const struct compare_table *t,
                        const struct ci_test *k, size_t n, const struct compare_row *rows,
                        size_t nrows)
{
    char **compat = calloc(t->ngroups, sizeof *compat);   /* none without memory */
    if (compat)
        group_compatibles(rows, nrows, t, compat);
    printf("{\"version\": {\"major\": 5, \"minor\": 3}, \"tests\": [\n");
    for (size_t i = 0; i < n; i++) {
        kcidb_test(s, t, &k[i], compat ? compat[k[i].group] : NULL);
        printf("%s\n", i + 1 < n ? "," : "");
    }
    printf("]}\n");
    for (size_t g = 0; compat && g < t->ngroups; g++)
        free(compat[g]);
    free(compat);
}

/* --- LAVA ----------------------------------------------------------------- */

/* S as a LAVA test case name: its letters, digits and "-_." kept, the rest
 * as '_' (LAVA takes no others, and the helper writes it unquoted). */
static void lava_name(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        putchar(isalnum(c) && c < 0x80 ? c : strchr("-_.", c) && c ? c : '_');
    }
}

/* S on a shell comment's line: a line break in it made a space. */
static void comment_text(const char *s)
{
    for (; *s; s++)
        putchar(*s == '\n' || *s == '\r' ? ' ' : *s);
}

/* A shell script for a LAVA test shell: a lava-test-case call per test,
 * named COLUMN.METRIC.GROUP, its result pass, fail or (too few sound
 * fits) unknown, with its measurement and ASCII units (the helper writes
 * them unquoted: "°C" as C). */
static void print_lava(const struct compare_settings *s, const struct compare_table *t,
                       const struct ci_test *k, size_t n)
{
    static const char *const result[] = {"pass", "pass", "fail", "unknown"};
    printf("#!/bin/sh\n# tb-compare's verdicts as LAVA test cases, grouped by ");
    comment_text(s->group_by);
    printf(" and compared with ");
    comment_text(compare_baseline_label(t));
    printf(":\n# run in a LAVA test shell, where lava-test-case is on PATH.\n");
    for (size_t i = 0; i < n; i++) {
        char buf[32], summary[512];
        const char *name = compare_metric_name(k[i].metric, buf, sizeof buf);
        ci_summary(t, &k[i], summary, sizeof summary);
        printf("# ");
        comment_text(summary);
        printf("\nlava-test-case ");
        lava_name(t->columns[k[i].column]);
        printf(".%s.", name);
        lava_name(t->groups[k[i].group]);
        printf(" --result %s", result[ci_status(s, &k[i])]);
        if (k[i].cell->n && isfinite(k[i].cell->mean)) {
            int m = k[i].metric;
            const char *unit = m == M_TINF || m == M_PEAK ? "C"
                               : m == M_OPS || m == M_SUSTAINED ? "ops/s"
                               : m == M_THROTTLED ? NULL : "s";
            printf(" --measurement %.10g", k[i].cell->mean);
            if (unit)
                printf(" --units %s", unit);
        }
        putchar('\n');
    }
}

void compare_report_ci(const struct compare_settings *s, const struct compare_table *t,
                       const struct compare_row *rows, size_t nrows)
{
    struct ci_test *k;
    size_t n = ci_tests(t, &k);
    switch (s->format) {
    case COMPARE_JUNIT: print_junit(s, t, k, n); break;
    case COMPARE_TAP: print_tap(s, t, k, n); break;
    case COMPARE_KCIDB: print_kcidb(s, t, k, n, rows, nrows); break;
    case COMPARE_LAVA: print_lava(s, t, k, n); break;
    default: break;
    }
    free(k);
}
