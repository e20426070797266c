/*
 * ci_report.c -- a list of tests in the formats CI systems and kernel-CI
 * dashboards read (ci_report.h): JUnit XML, TAP 13, KCIDB v5.3, LAVA's
 * lava-test-case calls and SQUAD's metrics.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci_report.h"
#include "output.h"

enum tb_ci_format tb_ci_format_named(const char *name)
{
    static const char *const names[] = {"junit", "tap", "kcidb", "lava", "squad"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return (enum tb_ci_format)(TB_CI_JUNIT + i);
    return TB_CI_NONE;
}

/* --- the list ------------------------------------------------------------- */

#define TEST_STRINGS (8 + 2 * TB_CI_MAX_PROPERTIES)

/* The strings of T, each as the address of the pointer that holds it,
 * into V: their count. */
static size_t test_strings(tb_ci_test *t, const char **v[TEST_STRINGS])
{
    size_t n = 0;
    const char **fixed[] = {&t->group, &t->column, &t->metric, &t->key, &t->unit,
                            &t->reason, &t->summary, &t->compatible};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        v[n++] = fixed[i];
    for (size_t i = 0; i < t->nproperties; i++) {
        v[n++] = &t->property[i].name;
        v[n++] = &t->property[i].text;
    }
    return n;
}

/* Room for N more tests in L: 0, or -1 out of memory. */
static int list_reserve(tb_ci_list *l, size_t n)
{
    if (l->n + n <= l->cap)
        return 0;
    size_t cap = l->cap ? 2 * l->cap : 64;
    while (cap < l->n + n)
        cap *= 2;
    tb_ci_test *v = realloc(l->v, cap * sizeof *v);
    if (!v)
        return -1;
    l->v = v;
    char **text = realloc(l->text, cap * sizeof *text);
    if (!text)
        return -1;
    l->text = text;
    l->cap = cap;
    return 0;
}

int tb_ci_list_add(tb_ci_list *l, const tb_ci_test *t)
{
    if (list_reserve(l, 1) < 0)
        return -1;
    tb_ci_test *c = &l->v[l->n];
    *c = *t;
    if (c->nproperties > TB_CI_MAX_PROPERTIES)
        c->nproperties = TB_CI_MAX_PROPERTIES;
    const char **s[TEST_STRINGS];
    size_t ns = test_strings(c, s), size = 1;
    for (size_t i = 0; i < ns; i++)
        size += *s[i] ? strlen(*s[i]) + 1 : 0;
    char *block = malloc(size), *at = block;
    if (!block)
        return -1;
    for (size_t i = 0; i < ns; i++) {   /* the copy's pointers into BLOCK */
        if (!*s[i])
            continue;
        size_t len = strlen(*s[i]) + 1;
        memcpy(at, *s[i], len);
        *s[i] = at;
        at += len;
    }
    l->text[l->n++] = block;
    return 0;
}

int tb_ci_list_move(tb_ci_list *to, tb_ci_list *from)
{
    if (from->n == 0) {   /* memcpy may not be given an empty list's NULL */
        tb_ci_list_free(from);
        return 0;
    }
    if (list_reserve(to, from->n) < 0)
        return -1;
    memcpy(to->v + to->n, from->v, from->n * sizeof *from->v);
    memcpy(to->text + to->n, from->text, from->n * sizeof *from->text);
    to->n += from->n;
    from->n = 0;   /* its strings are TO's now */
    tb_ci_list_free(from);
    return 0;
}

void tb_ci_list_free(tb_ci_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->text[i]);
    free(l->text);
    free(l->v);
    *l = (tb_ci_list){0};
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* --- JUnit XML ---------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    tb_markup_text(f, s, SIZE_MAX);
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
static void junit_properties(FILE *f, const tb_ci_test *k, size_t n)
{
    fputs("    <properties>\n", f);
    for (size_t i = 0; i < n; i++) {
        xml_number_property(f, k[i].metric, "value", k[i].value);
        for (size_t p = 0; p < k[i].nproperties; p++) {
            const tb_ci_property *q = &k[i].property[p];
            if (q->text)
                xml_property(f, k[i].metric, q->name, q->text);
            else
                xml_number_property(f, k[i].metric, q->name, q->value);
        }
        if (k[i].unit && *k[i].unit)
            xml_property(f, k[i].metric, "unit", k[i].unit);
    }
    fputs("    </properties>\n", f);
}

static int same_suite(const tb_ci_test *a, const tb_ci_test *b)
{
    return strcmp(a->group, b->group) == 0 && strcmp(a->column, b->column) == 0;
}

static void junit_testcase(FILE *f, const tb_ci_test *k)
{
    fputs("    <testcase classname=\"thermal.", f);
    xml_text(f, k->column);
    fputs("\" name=\"", f);
    xml_text(f, k->group);
    fputc(' ', f);
    xml_text(f, k->metric);
    fputs("\">\n", f);
    if (k->status == TB_CI_FAIL || k->status == TB_CI_ERROR) {
        fprintf(f, "      <%s type=\"", k->status == TB_CI_FAIL ? "failure" : "error");
        xml_text(f, or_empty(k->reason));
        fputs("\" message=\"", f);
        xml_text(f, k->summary);
        fputs("\"/>\n", f);
    }
    fputs("      <system-out>", f);
    xml_text(f, k->summary);
    fputs("</system-out>\n    </testcase>\n", f);
}

/* JUnit XML (the xUnit plugin's junit-10.xsd): a testsuite per group and
 * column, its numbers as properties, a testcase per quantity. */
static void print_junit(FILE *f, const char *tool, const tb_ci_list *l)
{
    size_t failures = 0, errors = 0;
    for (size_t i = 0; i < l->n; i++) {
        failures += l->v[i].status == TB_CI_FAIL;
        errors += l->v[i].status == TB_CI_ERROR;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
    xml_text(f, tool);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", l->n, failures, errors);
    for (size_t i = 0; i < l->n;) {
        size_t j = i, fl = 0, e = 0;
        for (; j < l->n && same_suite(&l->v[j], &l->v[i]); j++) {
            fl += l->v[j].status == TB_CI_FAIL;
            e += l->v[j].status == TB_CI_ERROR;
        }
        fputs("  <testsuite name=\"", f);
        xml_text(f, l->v[i].group);
        fputc('/', f);
        xml_text(f, l->v[i].column);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", j - i, fl, e);
        junit_properties(f, l->v + i, j - i);
        for (size_t m = i; m < j; m++)
            junit_testcase(f, &l->v[m]);
        fputs("  </testsuite>\n", f);
        i = j;
    }
    fputs("</testsuites>\n", f);
}

/* --- TAP ------------------------------------------------------------------ */

static void yaml_string(FILE *f, const char *key, const char *value)
{
    fprintf(f, "  %s: ", key);
    tb_json_string(f, value);   /* a JSON string is a YAML flow scalar */
    fputc('\n', f);
}

static void yaml_number(FILE *f, const char *key, double x)
{
    if (isfinite(x))
        fprintf(f, "  %s: %.10g\n", key, x);
}

/* S in a test point's description: '#' would start a directive, a line
 * break would end the line. */
static void tap_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '#' || *s == '\\')
            fputc('\\', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
}

/* TAP version 13, which TAP 14's and KTAP's parsers read too (and Perl's
 * TAP::Parser, which knows no later one): a test point per test, "not ok"
 * for a failure and an error, its numbers in a YAML block. */
static void print_tap(FILE *f, const tb_ci_list *l)
{
    fprintf(f, "TAP version 13\n1..%zu\n", l->n);
    for (size_t i = 0; i < l->n; i++) {
        const tb_ci_test *k = &l->v[i];
        int bad = k->status == TB_CI_FAIL || k->status == TB_CI_ERROR;
        fprintf(f, "%s %zu - ", bad ? "not ok" : "ok", i + 1);
        tap_text(f, k->group);
        fputc(' ', f);
        tap_text(f, k->column);
        fputc(' ', f);
        tap_text(f, k->metric);
        fputs("\n  ---\n", f);
        yaml_string(f, "message", k->summary);
        yaml_string(f, "group", k->group);
        yaml_string(f, "column", k->column);
        yaml_string(f, "metric", k->metric);
        if (k->unit && *k->unit)
            yaml_string(f, "unit", k->unit);
        yaml_number(f, "value", k->value);
        for (size_t p = 0; p < k->nproperties; p++) {
            if (k->property[p].text)
                yaml_string(f, k->property[p].name, k->property[p].text);
            else
                yaml_number(f, k->property[p].name, k->property[p].value);
        }
        if (bad)
            yaml_string(f, k->status == TB_CI_FAIL ? "failure" : "error", or_empty(k->reason));
        fputs("  ...\n", f);
    }
}

/* --- KCIDB v5 ------------------------------------------------------------ */

/* S as a level of a KCIDB path: '.' (a level's end) as '_'. */
static void kcidb_path_part(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '.' || *s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ? '_' : *s, f);
}

/* The compatible strings, space-separated in the run's metadata, as a
 * JSON array. */
static void kcidb_compatible(FILE *f, const char *p)
{
    fputs(", \"environment\": {\"compatible\": [", f);
    for (int first = 1; *p; first = 0) {
        char one[1024];
        size_t len = strcspn(p, " ");
        snprintf(one, sizeof one, "%.*s", (int)len, p);
        fputs(first ? "" : ", ", f);
        tb_json_string(f, one);   /* metadata: any text */
        p += len + strspn(p + len, " ");
    }
    fputs("]}", f);
}

static void kcidb_test(FILE *f, const tb_ci_test *k)
{
    static const char *const status[] = {"DONE", "PASS", "FAIL", "ERROR"};
    char id[1024];
    snprintf(id, sizeof id, "tbkit:%s:thermal.%s.%s", k->group, k->key, k->column);
    fputs("  {\"id\": ", f);
    tb_json_string(f, id);
    snprintf(id, sizeof id, "tbkit:%s", k->group);
    fputs(", \"build_id\": ", f);
    tb_json_string(f, id);
    fprintf(f, ", \"origin\": \"tbkit\", \"path\": \"thermal.");
    kcidb_path_part(f, k->key);
    fputc('.', f);
    kcidb_path_part(f, k->column);
    fprintf(f, "\", \"status\": \"%s\"", status[k->status]);
    if (isfinite(k->value)) {
        fprintf(f, ", \"number\": {\"value\": %.10g", k->value);
        if (k->unit && *k->unit) {
            fputs(", \"unit\": ", f);
            tb_json_string(f, k->unit);
        }
        fputc('}', f);
    }
    fputs(", \"comment\": ", f);
    tb_json_string(f, k->summary);
    if (k->compatible && *k->compatible)
        kcidb_compatible(f, k->compatible);
    fputs(", \"misc\": {\"group\": ", f);
    tb_json_string(f, k->group);
    fputs(", \"column\": ", f);
    tb_json_string(f, k->column);
    for (size_t p = 0; p < k->nproperties; p++) {
        const tb_ci_property *q = &k->property[p];
        if (!q->text && !isfinite(q->value))
            continue;
        fputs(", ", f);
        tb_json_string(f, q->name);
        fputs(": ", f);
        if (q->text)
            tb_json_string(f, q->text);
        else
            fprintf(f, "%.10g", q->value);
    }
    if (k->reason && (k->status == TB_CI_FAIL || k->status == TB_CI_ERROR)) {
        fputs(", \"reason\": ", f);
        tb_json_string(f, k->reason);
    }
    fputs("}}", f);
}

/* KCIDB v5.3 I/O: the tests, each of the build its group names
 * ("tbkit:GROUP"), with the board's compatible strings where known.  A
 * submitter supplies the builds and checkouts. */
static void print_kcidb(FILE *f, const tb_ci_list *l)
{
    fputs("{\"version\": {\"major\": 5, \"minor\": 3}, \"tests\": [\n", f);
    for (size_t i = 0; i < l->n; i++) {
        kcidb_test(f, &l->v[i]);
        fputs(i + 1 < l->n ? ",\n" : "\n", f);
    }
    fputs("]}\n", f);
}

/* --- LAVA ----------------------------------------------------------------- */

/* S as a LAVA test case name: its letters, digits and "-_." kept, the rest
 * as '_' (LAVA takes no others, and the helper writes it unquoted). */
static void lava_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(isalnum(c) && c < 0x80 ? c : strchr("-_.", c) && c ? c : '_', f);
    }
}

/* S on a shell comment's line: a line break in it made a space. */
static void comment_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* UNIT in ASCII, as the helper writes it unquoted: "°C" as C; NULL when
 * it has none or none can be said so. */
static const char *lava_unit(const char *unit)
{
    if (!unit || !*unit)
        return NULL;
    if (strcmp(unit, "°C") == 0)
        return "C";
    if (strcmp(unit, "operations/s") == 0)
        return "ops/s";
    for (const char *p = unit; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("/_-%", *p))
            return NULL;
    return unit;
}

/* A shell script for a LAVA test shell: a lava-test-case call per test,
 * named COLUMN.METRIC.GROUP, its result pass, fail or (an error) unknown,
 * with its measurement and units. */
static void print_lava(FILE *f, const char *tool, const char *about, const tb_ci_list *l)
{
    static const char *const result[] = {"pass", "pass", "fail", "unknown"};
    fprintf(f, "#!/bin/sh\n# %s's results as LAVA test cases", tool);
    if (about && *about) {
        fputs(", ", f);
        comment_text(f, about);
    }
    fputs(":\n# run in a LAVA test shell, where lava-test-case is on PATH.\n", f);
    for (size_t i = 0; i < l->n; i++) {
        const tb_ci_test *k = &l->v[i];
        fputs("# ", f);
        comment_text(f, k->summary);
        fputs("\nlava-test-case ", f);
        lava_name(f, k->column);
        fputc('.', f);
        lava_name(f, k->metric);
        fputc('.', f);
        lava_name(f, k->group);
        fprintf(f, " --result %s", result[k->status]);
        if (isfinite(k->value)) {
            const char *unit = lava_unit(k->unit);
            fprintf(f, " --measurement %.10g", k->value);
            if (unit)
                fprintf(f, " --units %s", unit);
        }
        fputc('\n', f);
    }
}

/* --- SQUAD ---------------------------------------------------------------- */

/* SQUAD's metrics file: {"SUITE/NAME": {"value": X, "unit": U}}, the suite
 * thermal/GROUP/COLUMN (SQUAD splits the name at its last '/').  A number
 * that cannot be trusted (an error) is left out: a metric has no flag. */
static void print_squad(FILE *f, const tb_ci_list *l)
{
    int first = 1;
    fputc('{', f);
    for (size_t i = 0; i < l->n; i++) {
        const tb_ci_test *k = &l->v[i];
        if (k->status == TB_CI_ERROR || !isfinite(k->value))
            continue;
        char name[1024];
        snprintf(name, sizeof name, "thermal/%s/%s/%s", k->group, k->column, k->key);
        fputs(first ? "\n  " : ",\n  ", f);
        tb_json_string(f, name);
        fprintf(f, ": {\"value\": %.10g", k->value);
        if (k->unit && *k->unit) {
            fputs(", \"unit\": ", f);
            tb_json_string(f, k->unit);
        }
        fputc('}', f);
        first = 0;
    }
    fputs(first ? "}\n" : "\n}\n", f);
}

int tb_ci_write(FILE *f, enum tb_ci_format format, const char *tool, const char *about,
                const tb_ci_list *l)
{
    switch (format) {
    case TB_CI_JUNIT: print_junit(f, tool, l); break;
    case TB_CI_TAP: print_tap(f, l); break;
    case TB_CI_KCIDB: print_kcidb(f, l); break;
    case TB_CI_LAVA: print_lava(f, tool, about, l); break;
    case TB_CI_SQUAD: print_squad(f, l); break;
    case TB_CI_NONE: break;
    }
    return ferror(f) ? -1 : 0;
}
