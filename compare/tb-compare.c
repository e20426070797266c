/*
 * tb-compare -- did T∞, a time constant or the work rate move between
 * groups of runs (kernel versions, configurations, board revisions),
 * beyond noise?  Fits runs as tb-fit does (or takes tb-fit's CSV results),
 * groups them, compares each group with a baseline by Welch's t-test with
 * Holm's correction, and says so with its exit status.
 *
 * This file is the command line; compare_inputs.c turns the inputs into
 * rows, compare_table.c tests the groups, compare_report.c prints them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "exit_status.h"
#include "paths.h"
#include "work_pool.h"

static const char usage_text[] =
    "Usage: tb-compare [OPTION]... INPUT...\n"
    "Compare T∞, the time constants and operations per second between groups of\n"
    "runs (kernel versions, say) and tell whether any moved beyond noise.  An\n"
    "INPUT is a run, a directory of runs, or a tb-fit --format csv result file.\n"
    "\n"
    "Groups:\n"
    "  -g, --group-by=HOW     meta:KEY (the runs' \"# KEY: value\"), dir (the run's\n"
    "                         directory; the default) or re:REGEX (its first group\n"
    "                         in the run's path); several meta:KEY and dir joined\n"
    "                         by commas group by all (meta:bench,meta:freq)\n"
    "      --group-order=G1,G2,...  the groups' order (default: natural, 5.4 <\n"
    "                         5.10 < 6.1)\n"
    "  -b, --baseline=GROUP   compare with this group and look for regressions\n"
    "                         (default: differences from the first group); by\n"
    "                         several keys, a value of the last: each group\n"
    "                         against its own (meta:board,meta:kernel and 6.1:\n"
    "                         each board's kernels against that board's 6.1)\n"
    "\n"
    "Verdicts (any of these, or --baseline, asks for regressions: hotter,\n"
    "slower or a τ moved; without, groups only differ, higher or lower):\n"
    "      --threshold=DEG    a hotter T∞ is a regression from DEG °C (default 0.5)\n"
    "      --tau-threshold=P% a τ that moved by P % (default 10%)\n"
    "      --ops-threshold=P% fewer operations per second by P % (default 2%)\n"
    "      --level=P          confidence level (default 0.95; α = 1 − P)\n"
    "      --include-flagged  keep flagged fits in the means and tests, marked\n"
    "                         (by default they are left out and named)\n"
    "      --strict           a run that cannot be fitted is an error\n"
    "\n"
    "Fitting (as tb-fit):\n"
    "  -n, --order=N|auto     terms of the model, 1 to 4, or auto (the default:\n"
    "                         1 to 3, as the data support)\n"
    "  -c, --column=SPEC      fit this column; may be repeated (default: every\n"
    "                         °C column but the ambient one)\n"
    "  -a, --ambient=COLUMN|TEMP  subtract this column (or temperature, 23C)\n"
    "                         before fitting\n"
    "      --from=TIME        fit from this time of the run (90, 5min, 1h);\n"
    "                         default: start-up samples left out, as tb-fit\n"
    "      --to=TIME          fit up to this time of the run\n"
    "      --tau-min=TIME     shortest τ searched\n"
    "      --tau-max=TIME     longest τ searched\n"
    "      --labels=L1,...    names of the terms (for tb-fit's output; ignored)\n"
    "      --shared-tau       fit a run's columns together with common τ\n"
    "      --work=COLUMN      operations per second from this counter\n"
    "      --cache=DIR        keep each run's fit in DIR, keyed by the run's\n"
    "                         content and the fitting options\n"
    "  -j, --jobs=N           fit N inputs at a time (default 1)\n"
    "\n"
    "Output:\n"
    "  -f, --format=FORMAT    text (default), csv, json or markdown; for CI, junit\n"
    "                         (JUnit XML), tap (TAP 13), kcidb (KCIDB v5 tests),\n"
    "                         lava (lava-test-case calls, a shell script) or\n"
    "                         squad (SQUAD metrics)\n"
    "      --plot=FILE        draw the first column's groups with tb-plot compare\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 no regression (or compared), 1 a regression, 2 usage or input\n"
    "error, 3 output error or out of memory, 4 inconclusive: a group has too few\n"
    "sound fits.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-compare", fmt, arg);
}

/* "10%" or "10" -> 0.10 */
static int parse_percent(const char *s, double *x)
{
    char buf[64];
    size_t len = strlen(s);
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len + 1);
    if (buf[len - 1] == '%')
        buf[len - 1] = '\0';
    if (tb_cli_number(buf, x) < 0 || !(*x > 0))
        return -1;
    *x /= 100;
    return 0;
}

enum {
    OPT_GROUP_ORDER = 256, OPT_THRESHOLD, OPT_TAU_THRESHOLD, OPT_OPS_THRESHOLD,
    OPT_STRICT, OPT_SHARED_TAU, OPT_WORK, OPT_CACHE, OPT_PLOT, OPT_INCLUDE_FLAGGED,
};
static const struct option own_options[] = {
    {"group-by", required_argument, NULL, 'g'},
    {"group-order", required_argument, NULL, OPT_GROUP_ORDER},
    {"baseline", required_argument, NULL, 'b'},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"tau-threshold", required_argument, NULL, OPT_TAU_THRESHOLD},
    {"ops-threshold", required_argument, NULL, OPT_OPS_THRESHOLD},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"include-flagged", no_argument, NULL, OPT_INCLUDE_FLAGGED},
    {"column", required_argument, NULL, 'c'},
    {"shared-tau", no_argument, NULL, OPT_SHARED_TAU},
    {"work", required_argument, NULL, OPT_WORK},
    {"cache", required_argument, NULL, OPT_CACHE},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"jobs", required_argument, NULL, 'j'},
    {"format", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int parse_options(int argc, char **argv, struct compare_settings *s, const struct option *options)
{
    char err[TB_ERRMAX];
    int c, rc;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":g:b:n:a:c:j:f:hV", options, NULL)) != -1) {
        if ((rc = tb_model_option(c, optarg, &s->m, err, sizeof err)) != 0) {
            if (rc < 0) {
                return usage_error("%s", err);
            }
            continue;
        }
        switch (c) {
        case 'g':
            s->group_by = optarg;
            break;
        case OPT_GROUP_ORDER: s->group_order = optarg; break;
        case 'b': s->baseline = optarg; s->regression = 1; break;
        case OPT_INCLUDE_FLAGGED: s->include_flagged = 1; break;
        case OPT_THRESHOLD:
            s->regression = 1;
            if (tb_cli_number(optarg, &s->threshold) < 0 || s->threshold < 0) {
                return usage_error("--threshold wants a number of °C, not '%s'", optarg);
            }
            break;
        case OPT_TAU_THRESHOLD:
            s->regression = 1;
            if (parse_percent(optarg, &s->tau_threshold) < 0) {
                return usage_error("--tau-threshold wants a percentage such as 10%%, not '%s'", optarg);
            }
            break;
        case OPT_OPS_THRESHOLD:
            s->regression = 1;
            if (parse_percent(optarg, &s->ops_threshold) < 0) {
                return usage_error("--ops-threshold wants a percentage such as 2%%, not '%s'", optarg);
            }
            break;
        case OPT_STRICT: s->strict = 1; break;
        case 'c':
            if (tb_cli_push(&s->columns, &s->ncolumns, optarg) < 0)
                return usage_error("%s", "out of memory");
            break;
        case OPT_SHARED_TAU: s->shared_tau = 1; break;
        case OPT_WORK:
            if (tb_cli_push(&s->work, &s->nwork, optarg) < 0)
                return usage_error("%s", "out of memory");
            break;
        case OPT_CACHE: s->cache = optarg; break;
        case OPT_PLOT: s->plot = optarg; break;
        case 'j':
            if (tb_cli_jobs(optarg, &s->jobs, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case 'f': {
            static const char *const names[] = {"text", "csv", "json", "markdown"};
            size_t f = 0;
            while (f < sizeof names / sizeof *names && strcmp(optarg, names[f]) != 0)
                f++;
            s->ci = tb_ci_format_named(optarg);
            if (f == sizeof names / sizeof *names && s->ci == TB_CI_NONE)
                return usage_error("--format wants text, csv, json, markdown, junit, tap, kcidb, "
                                   "lava or squad, not '%s'", optarg);
            s->format = s->ci != TB_CI_NONE ? COMPARE_CI : (enum compare_format)f;
            break;
        }
        case 'h':
            fputs(usage_text, stdout);
            exit(TB_EXIT_OK);
        case 'V':
            puts("tb-compare (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(TB_EXIT_OK);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return tb_cli_unknown_option("tb-compare", argv[optind - 1], options);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "no input given");
    if (tb_model_check(&s->m, err, sizeof err) < 0)
        return usage_error("%s", err);
    if (tb_grouping_init(&s->grouping, s->group_by, s->group_order, err, sizeof err) < 0)
        return usage_error("%s", err);
    return -1;
}

/* The tool's options and the model options, for parse_options(). */
static int parse_arguments(int argc, char **argv, struct compare_settings *s)
{
    struct option *options = tb_cli_options(own_options);
    if (!options)
        return usage_error("%s", "out of memory");
    int rc = parse_options(argc, argv, s, options);
    free(options);
    return rc;
}

static void settings_free(struct compare_settings *s)
{
    free(s->columns);
    free(s->work);
    tb_grouping_free(&s->grouping);
    tb_model_settings_free(&s->m);
}

/* The inputs named, into PATHS.  An input named that is not there is a
 * mistake (a typo in a nightly job), not a run to leave out: nothing is
 * compared.  TB_EXIT_OK, or TB_EXIT_INPUT (said). */
static int collect_paths(int argc, char **argv, struct tb_paths *paths)
{
    int status = TB_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        if (strcmp(argv[i], "-") != 0 && access(argv[i], R_OK) != 0) {
            fprintf(stderr, "tb-compare: %s: %s\n", argv[i], strerror(errno));
            status = TB_EXIT_INPUT;
        } else if (tb_paths_add(paths, argv[i], "tb-compare") < 0) {
            status = TB_EXIT_INPUT;
        }
    }
    return status;
}

/* --cache DIR made if it is not there.  0, or -1 (said). */
static int make_cache(const struct compare_settings *s)
{
    struct stat st;
    if (s->cache && ((mkdir(s->cache, 0777) < 0 && errno != EEXIST) ||
                     (stat(s->cache, &st) == 0 && !S_ISDIR(st.st_mode) && (errno = ENOTDIR)))) {
        fprintf(stderr, "tb-compare: --cache %s: %s\n", s->cache, strerror(errno));
        return -1;
    }
    return 0;
}

/* The inputs' messages in input order, and the rows of every input in one
 * array (*ROWS, NULL when memory ran out); the worst status of the inputs
 * into *STATUS. */
static struct compare_row *gather_rows(const struct compare_settings *s, struct compare_input *in,
                                       size_t n, size_t *nrows, size_t *nfailed, int *status)
{
    size_t ungrouped = 0;
    *nrows = *nfailed = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].msglen)
            fputs(in[i].msg, stderr);
        /* a mistyped key fails every run alike: three said, the rest counted */
        if (in[i].group_error && ungrouped++ < 3)
            fprintf(stderr, "tb-compare: %s\n", in[i].group_error);
        if (in[i].status > *status)
            *status = in[i].status;
        *nrows += in[i].nrows;
        *nfailed += in[i].failed;
    }
    if (ungrouped > 3)
        fprintf(stderr, "tb-compare: ... and %zu more input%s that --group-by %s cannot group either\n",
                ungrouped - 3, ungrouped - 3 == 1 ? "" : "s", s->group_by);
    struct compare_row *rows = malloc((*nrows ? *nrows : 1) * sizeof *rows);
    for (size_t i = 0, k = 0; rows && i < n; i++)
        for (size_t j = 0; j < in[i].nrows; j++)
            rows[k++] = in[i].rows[j];
    return rows;
}

/* The table of ROWS by group, reported, drawn, and its verdict: the exit
 * status.  INPUTS names the inputs in a message. */
static int compare_rows(const struct compare_settings *s, struct compare_row *rows, size_t nrows,
                        size_t nfailed, const char *inputs)
{
    struct compare_table t;
    char err[TB_ERRMAX];
    int status = TB_EXIT_OK;
    if (!rows || nrows == 0) {
        fprintf(stderr, "tb-compare: nothing to compare: no run was fitted in %s\n", inputs);
        return TB_EXIT_INPUT;
    }
    if (compare_table_build(s, rows, nrows, &t, err, sizeof err) < 0) {
        fprintf(stderr, "tb-compare: %s\n", err);
        compare_table_free(&t);
        return TB_EXIT_INPUT;
    }
    if (t.ngroups < 2) {
        fprintf(stderr, "tb-compare: only one group (%s) by --group-by %s in %s: nothing to "
                "compare it with\n", t.groups[0], s->group_by, inputs);
        status = TB_EXIT_INPUT;
    }
    for (size_t c = 0; c < t.ncolumns; c++)   /* said whatever the format */
        if (t.order_lo[c] != t.order_hi[c])
            fprintf(stderr, "tb-compare: %s: fits of orders %d to %d: their τ are not compared "
                    "(fit every run with one --order)\n", t.columns[c], t.order_lo[c], t.order_hi[c]);
    compare_report(s, &t, nfailed, rows, nrows);
    if (compare_regressed(&t))
        status = TB_EXIT_FIT;
    else if (compare_inconclusive(&t) && status == TB_EXIT_OK)
        status = TB_EXIT_INCONCLUSIVE;
    /* A figure that cannot be drawn is said, but never hides the verdict:
     * a regression still exits 1. */
    if (s->plot && compare_plot(s, rows, nrows, &t) != TB_EXIT_OK && status == TB_EXIT_OK)
        status = TB_EXIT_INPUT;
    compare_table_free(&t);
    return status;
}

/* The inputs, and their rows wherever they are (ROWS, or IN's own when
 * they were not gathered). */
static void inputs_free(struct compare_input *in, size_t n, struct compare_row *rows, size_t nrows)
{
    for (size_t i = 0; i < n; i++) {
        if (!rows)
            for (size_t j = 0; j < in[i].nrows; j++)
                compare_row_clear(&in[i].rows[j]);
        free(in[i].rows);
        free(in[i].msg);
        free(in[i].group_error);
    }
    for (size_t i = 0; rows && i < nrows; i++)
        compare_row_clear(&rows[i]);
    free(rows);
    free(in);
}

/* The runs of PATHS read, fitted and compared.  The exit status. */
static int compare_paths(const struct compare_settings *s, const struct tb_paths *paths,
                         int status, const char *inputs)
{
    struct compare_input *in = calloc(paths->n ? paths->n : 1, sizeof *in);
    if (!in) {
        fputs("tb-compare: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    for (size_t i = 0; i < paths->n; i++)
        in[i].path = paths->v[i];
    if (compare_read_inputs(s, in, paths->n) < 0) {
        fputs("tb-compare: out of memory\n", stderr);
        free(in);
        return TB_EXIT_INPUT;
    }
    size_t nrows, nfailed;
    struct compare_row *rows = gather_rows(s, in, paths->n, &nrows, &nfailed, &status);
    if (nfailed && s->strict) {
        fprintf(stderr, "tb-compare: %zu fit%s failed and --strict is given\n", nfailed,
                nfailed == 1 ? "" : "s");
        status = TB_EXIT_INPUT;
    }
    if (status == TB_EXIT_OK)
        status = compare_rows(s, rows, nrows, nfailed, inputs);
    inputs_free(in, paths->n, rows, nrows);
    return status;
}

int main(int argc, char **argv)
{
    struct compare_settings s = {
        .group_by = "dir", .threshold = 0.5, .tau_threshold = 0.10, .ops_threshold = 0.02,
        .format = COMPARE_TEXT, .jobs = 1,
    };
    struct tb_paths paths = {0};

    tb_model_settings_init(&s.m);
    int status = parse_arguments(argc, argv, &s);
    if (status >= 0) {
        settings_free(&s);
        return status;
    }
    tb_work_pool_blas_single();
    status = collect_paths(argc, argv, &paths);
    if (make_cache(&s) < 0) {
        status = TB_EXIT_INPUT;
    } else {
        /* which inputs, for a message about all of them: one named as given */
        char inputs[512];
        if (argc - optind == 1)
            snprintf(inputs, sizeof inputs, "%s", argv[optind]);
        else
            snprintf(inputs, sizeof inputs, "the %d inputs given", argc - optind);
        status = compare_paths(&s, &paths, status, inputs);
    }
    tb_paths_free(&paths);
    settings_free(&s);
    return tb_cli_stdout_status("tb-compare", status);
}
