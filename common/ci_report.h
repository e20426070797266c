/*
 * ci_report.h -- results in the formats CI systems and kernel-CI
 * dashboards read: JUnit XML, TAP 13, KCIDB v5, LAVA's lava-test-case
 * calls and SQUAD's metrics.  tb-fit and tb-compare each turn their
 * results into a list of tests (one per group × column × quantity); this
 * writes the list.  Part of libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_CI_REPORT_H
#define TB_CI_REPORT_H

#include <stdio.h>

enum tb_ci_format { TB_CI_NONE, TB_CI_JUNIT, TB_CI_TAP, TB_CI_KCIDB, TB_CI_LAVA, TB_CI_SQUAD };

/* The CI format NAME names ("junit", "tap", "kcidb", "lava", "squad"),
 * or TB_CI_NONE. */
enum tb_ci_format tb_ci_format_named(const char *name);

/* A test's outcome: a measurement without a verdict (DONE), a verdict
 * (PASS, FAIL), or a number that cannot be trusted or compared (ERROR:
 * a flagged or failed fit, too few sound fits). */
enum tb_ci_status { TB_CI_DONE, TB_CI_PASS, TB_CI_FAIL, TB_CI_ERROR };

/* A number (TEXT NULL) or a text the test reports besides its value. */
typedef struct tb_ci_property {
    const char *name;
    double value;
    const char *text;
} tb_ci_property;

#define TB_CI_MAX_PROPERTIES 12

typedef struct tb_ci_test {
    const char *group;        /* what was tested: a group of runs, a run */
    const char *column;
    const char *metric;       /* the quantity as named in test names: T_inf */
    const char *key;          /* ... in KCIDB paths and SQUAD names: tinf */
    const char *unit;         /* "°C", "s", "K/W", "W", "ops/s", or "" */
    double value;             /* the measurement; NaN: none */
    enum tb_ci_status status;
    const char *reason;       /* of a FAIL or an ERROR: "regression" */
    const char *summary;      /* the test in words */
    const char *compatible;   /* the board's device-tree compatible strings,
                                 space-separated; NULL: unknown */
    tb_ci_property property[TB_CI_MAX_PROPERTIES];
    size_t nproperties;
} tb_ci_test;

/* The tests of a report, each copied with its strings. */
typedef struct tb_ci_list {
    tb_ci_test *v;
    char **text;              /* each test's strings, in one block */
    size_t n, cap;
} tb_ci_list;

/* Append a copy of T (every string copied); 0, or -1 out of memory. */
int tb_ci_list_add(tb_ci_list *l, const tb_ci_test *t);

/* Move every test of FROM to the end of TO, in order, leaving FROM empty
 * (its strings are not copied again); 0, or -1 out of memory (FROM then
 * as it was). */
int tb_ci_list_move(tb_ci_list *to, tb_ci_list *from);
void tb_ci_list_free(tb_ci_list *l);

/* The tests of L in FORMAT, as TOOL's ("tb-fit"); ABOUT, for the LAVA
 * script's comment, says what they are ("grouped by meta:kernel").
 * 0, or -1 when F could not be written. */
int tb_ci_write(FILE *f, enum tb_ci_format format, const char *tool, const char *about,
                const tb_ci_list *l);

#endif
