/*
 * tb-plot -- PLplot figures of runs, fits, run-length estimates and
 * comparisons, drawn from libtbfit's reader and fit engine, so that a figure
 * shows exactly what tb-fit reports.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grouping.h"
#include "plot.h"

static const char usage_text[] =
    "Usage: tb-plot fit RUN.csv [OPTION]... -o FIGURE\n"
    "       tb-plot raw RUN.csv -c COLUMN... [OPTION]... -o FIGURE\n"
    "       tb-plot runlength RUN.csv [-c COLUMN] [OPTION]... -o FIGURE\n"
    "       tb-plot compare RESULTS.csv|RUN|DIR... [OPTION]... -o FIGURE\n"
    "       tb-plot zth RUN.csv --power=COLUMN|POWER [OPTION]... -o FIGURE\n"
    "       tb-plot spectrum RUN.csv --power=COLUMN|POWER [OPTION]... -o FIGURE\n"
    "       tb-plot sweep RESULTS.csv|RUN|DIR... --x=meta:KEY [OPTION]... -o FIGURE\n"
    "       tb-plot tradeoff RESULTS.csv|RUN|DIR... [--x=peak|above] [OPTION]... -o FIGURE\n"
    "       tb-plot ident RUN.csv --model=FILE [--ambient=COLUMN] [OPTION]... -o FIGURE\n"
    "Draw a figure of a run: its fit with components and residuals, its raw\n"
    "series, its run-length analysis, its thermal impedance Zth(t) under a\n"
    "power step or its time-constant spectrum and structure function; or\n"
    "compare the T∞ of runs (fitted here) or of tb-fit results; or draw a\n"
    "sweep: T∞ (or a τ...) against a variable of the runs' metadata; or the\n"
    "trade-off of thermal-management strategies: each group's work rate over\n"
    "the last third against its peak temperature (or time above the limit),\n"
    "with the trip drawn; or an\n"
    "identified model (tb-ident -o) against a run: each sensor measured and\n"
    "predicted from the inputs, with residuals, and the gain matrix.\n"
    "The figure's format follows its extension: .png, .svg or .pdf.\n"
    "\n"
    "Figure:\n"
    "  -o, --output=FILE      the figure to write (required)\n"
    "      --size=WxH[UNIT]   its page in pixels at 80 a cm, or in cm, mm or in\n"
    "                         (default 16x10cm, a 1280x800 PNG; taller for more\n"
    "                         panels)\n"
    "      --title=TEXT       its title (default: the run and column)\n"
    "\n"
    "Data and model (as for tb-fit):\n"
    "  -c, --column=SPEC      a column: header, name, glob or number; may be\n"
    "                         repeated (fit: default every °C column but the\n"
    "                         ambient one)\n"
    "  -n, --order=N|auto     terms of the model, 1 to 4, or auto (the default:\n"
    "                         1 to 3, as the data support)\n"
    "  -a, --ambient=COLUMN|TEMP  subtract this column (or temperature, 23C)\n"
    "                         before fitting\n"
    "      --from=TIME        from this time of the run (90, 90s, 5min, 1h);\n"
    "                         default: start-up samples left out, as tb-fit\n"
    "      --to=TIME          up to this time of the run\n"
    "      --tau-min=TIME     shortest τ searched\n"
    "      --tau-max=TIME     longest τ searched\n"
    "      --level=P          confidence level (default 0.95)\n"
    "      --labels=L1,...    names of the terms, fastest first\n"
    "      --overlay          fit: all columns in one panel\n"
    "      --tolerance=DEG    runlength: tolerance in °C (default 0.5)\n"
    "      --step=TIME        runlength: growth of the prefixes (default 60s)\n"
    "      --group-by=HOW     compare, tradeoff: dir (the run's directory), meta:KEY (its\n"
    "                         \"# KEY: value\" line) or re:REGEX (its first group\n"
    "                         in the run's path), or several meta:KEY and dir\n"
    "                         joined by commas, as tb-compare groups runs\n"
    "      --group-order=G1,G2,...  compare: these groups first, the others\n"
    "                         after in natural order (5.4 < 5.10 < 6.1)\n"
    "      --ops              compare: operations per second on a second axis\n"
    "      --baseline=GROUP   compare: the group drawn as the baseline (default\n"
    "                         the first)\n"
    "      --threshold=DELTA  compare: the line DELTA °C above the baseline\n"
    "                         beyond which a warming is a regression (none\n"
    "                         unless given); the most an extrapolated fit may\n"
    "                         extrapolate in a mean (default 0.5)\n"
    "      --include-flagged  compare --group-by, sweep: flagged fits in the\n"
    "                         groups' means too (by default left out, named)\n"
    "      --verdict=GROUP=WORD  compare: write WORD above GROUP (tb-compare\n"
    "                         --plot gives its verdicts); may be repeated\n"
    "      --x=meta:KEY       sweep: the x axis, a number in the runs' \"# KEY:\"\n"
    "                         lines (frequencies such as 1.2GHz in MHz)\n"
    "      --x=peak|above     tradeoff: the x axis, the peak temperature (the\n"
    "                         default) or the time above the limit\n"
    "      --limit=TEMP       tradeoff: the limit (such as 60C) drawn and of the\n"
    "                         time above it (default each run's lowest passive trip)\n"
    "      --by=HOW           sweep: a line per group, HOW as --group-by\n"
    "      --y=WHAT           sweep: tinf (default), tau1 to tau4, ops, or\n"
    "                         mean:COLUMN (its mean over each run)\n"
    "      --power=COLUMN|POWER  zth, spectrum: the power step, from a power column or\n"
    "                         given (2.5W), as tb-fit --power\n"
    "      --idle-power=POWER zth, spectrum: the idle power, when the run has no\n"
    "                         idle part\n"
    "      --model=FILE       ident: the model (tb-ident -o) to draw against the\n"
    "                         run; --ambient names the run's ambient column\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 a fit failed (the data are drawn and the figure\n"
    "says so), 2 usage or input error, 3 the figure could not be written or\n"
    "memory ran out.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-plot", fmt, arg);
}

tb_analysis *plot_analyse(const struct plot_settings *s, const tb_run *run, int run_length)
{
    tb_analysis_options o = tb_model_analysis_options(&s->m);
    char err[TB_ERRMAX];

    o.columns = s->columns;
    o.ncolumns = s->ncolumns;
    o.tolerance = s->tolerance;
    o.run_length = run_length;
    o.step = s->step;
    o.power = s->power;
    o.power_step = s->power_step;
    o.idle_power = s->idle_power;
    o.limit = s->limit;
    o.spectrum = s->spectrum;
    tb_analysis *a = tb_analyse_runs(&run, 1, &o, err, sizeof err);
    if (s->progress && (!a || tb_analysis_nmessages(a) > 0 || tb_analysis_status(a) != TB_EXIT_OK))
        tb_progress_clear(s->progress);
    if (!a) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return NULL;
    }
    for (size_t i = 0; i < tb_analysis_nmessages(a); i++)
        fprintf(stderr, "tb-plot: %s\n", tb_analysis_message(a, i));
    /* What tb-fit's report says of a suspect fit, the figure's user hears
     * too. */
    for (size_t i = 0; i < tb_analysis_ncolumns(a); i++) {
        const tb_analysed_column *c = tb_analysis_column(a, i);
        unsigned flags = c->run_length ? c->run_length->full_flags : c->fit ? c->fit->flags : 0;
        char text[256];
        if (!flags || s->measured_only)
            continue;
        if (s->progress)
            tb_progress_clear(s->progress);
        fprintf(stderr, "tb-plot: note: %s: %s: the fit is flagged: %s", c->source,
                c->column->name, tb_fit_flags_text(flags, text, sizeof text));
        if (flags & TB_FIT_THROTTLED)
            fprintf(stderr, " (%s changed from %.0f s)", c->throttled_by, c->throttled_since);
        fputc('\n', stderr);
    }
    return a;
}

enum {
    OPT_SIZE = 256, OPT_TITLE, OPT_OVERLAY, OPT_TOLERANCE, OPT_STEP, OPT_GROUP_BY, OPT_GROUP_ORDER, OPT_OPS,
    OPT_POWER, OPT_IDLE_POWER, OPT_X, OPT_Y, OPT_BASELINE, OPT_THRESHOLD, OPT_VERDICT, OPT_MODEL,
    OPT_INCLUDE_FLAGGED, OPT_LIMIT,
};
static const struct option own_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"size", required_argument, NULL, OPT_SIZE},
    {"title", required_argument, NULL, OPT_TITLE},
    {"column", required_argument, NULL, 'c'},
    {"overlay", no_argument, NULL, OPT_OVERLAY},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"step", required_argument, NULL, OPT_STEP},
    {"group-by", required_argument, NULL, OPT_GROUP_BY},
    {"group-order", required_argument, NULL, OPT_GROUP_ORDER},
    {"ops", no_argument, NULL, OPT_OPS},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"include-flagged", no_argument, NULL, OPT_INCLUDE_FLAGGED},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"verdict", required_argument, NULL, OPT_VERDICT},
    {"power", required_argument, NULL, OPT_POWER},
    {"idle-power", required_argument, NULL, OPT_IDLE_POWER},
    {"model", required_argument, NULL, OPT_MODEL},
    {"x", required_argument, NULL, OPT_X},
    {"by", required_argument, NULL, OPT_GROUP_BY},
    {"y", required_argument, NULL, OPT_Y},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* The figures of many runs' results: compare, sweep, tradeoff. */
static int results_option(int c, const char *arg, struct plot_settings *s)
{
    switch (c) {
    case OPT_GROUP_BY: {
        struct tb_grouping g;
        char why[512];
        int bad = tb_grouping_init(&g, arg, NULL, why, sizeof why) < 0;
        tb_grouping_free(&g);
        if (bad)
            return usage_error("%s", why);
        s->group_by = arg;
        break;
    }
    case OPT_GROUP_ORDER: s->group_order = arg; break;
    case OPT_X:
        if (strcmp(arg, "peak") == 0 || strcmp(arg, "above") == 0) {
            s->tradeoff_x = arg;
            break;
        }
        if (strncmp(arg, "meta:", 5) != 0 || !arg[5] || strchr(arg, ','))
            return usage_error("--x wants meta:KEY, one key (sweep), or peak or above "
                               "(tradeoff), not '%s'", arg);
        s->sweep_x = arg;
        break;
    case OPT_Y:
        if (strcmp(arg, "tinf") && strcmp(arg, "ops") &&
            !(strncmp(arg, "tau", 3) == 0 && arg[3] >= '1' && arg[3] <= '4' && !arg[4]) &&
            !(strncmp(arg, "mean:", 5) == 0 && arg[5]))
            return usage_error("--y wants tinf, tau1 to tau4, ops or mean:COLUMN, not '%s'", arg);
        s->sweep_y = arg;
        break;
    case OPT_OPS: s->ops = 1; break;
    case OPT_BASELINE: s->baseline = arg; break;
    case OPT_INCLUDE_FLAGGED: s->include_flagged = 1; break;
    case OPT_LIMIT:
        if (tb_cli_quantity_or_number(arg, "C", &s->limit) < 0 || !isfinite(s->limit))
            return usage_error("--limit wants a temperature, such as 60C, not '%s'", arg);
        break;
    case OPT_THRESHOLD:
        if (tb_cli_number(arg, &s->threshold) < 0 || !(s->threshold >= 0))
            return usage_error("--threshold wants °C, not '%s'", arg);
        break;
    case OPT_VERDICT:
        if (!strchr(arg, '=') || arg[0] == '=')
            return usage_error("--verdict wants GROUP=WORD, not '%s'", arg);
        if (tb_cli_push(&s->verdicts, &s->nverdicts, arg) < 0)
            return usage_error("%s", "out of memory");
        break;
    }
    return -1;
}

static int parse_options(int argc, char **argv, struct plot_settings *s, const struct option *options)
{
    char err[TB_ERRMAX];
    int c, rc;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:c:n:a:hV", options, NULL)) != -1) {
        if ((rc = tb_model_option(c, optarg, &s->m, err, sizeof err)) != 0) {
            if (rc < 0) {
                return usage_error("%s", err);
            }
            continue;
        }
        switch (c) {
        case 'o': s->fig.path = optarg; break;
        case OPT_SIZE:
            if (figure_parse_size(optarg, &s->fig, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case OPT_TITLE: s->fig.title = optarg; break;
        case OPT_MODEL: s->model = optarg; break;
        case 'c':
            if (tb_cli_push(&s->columns, &s->ncolumns, optarg) < 0)
                return usage_error("%s", "out of memory");
            break;
        case OPT_OVERLAY: s->overlay = 1; break;
        case OPT_TOLERANCE:
            if (tb_cli_tolerance(optarg, &s->tolerance, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case OPT_STEP:
            if (tb_cli_step(optarg, &s->step, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case OPT_GROUP_BY: case OPT_GROUP_ORDER: case OPT_X: case OPT_Y: case OPT_OPS:
        case OPT_BASELINE: case OPT_INCLUDE_FLAGGED: case OPT_LIMIT: case OPT_THRESHOLD:
        case OPT_VERDICT:
            if ((rc = results_option(c, optarg, s)) >= 0)
                return rc;
            break;
        case OPT_POWER:
            if (tb_cli_power_option(optarg, &s->power, &s->power_step, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case OPT_IDLE_POWER:
            if (tb_cli_idle_power(optarg, &s->idle_power, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(TB_EXIT_OK);
        case 'V':
            puts("tb-plot (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(TB_EXIT_OK);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return tb_cli_unknown_option("tb-plot", argv[optind - 1], options);
        }
    }
    if (!s->fig.path)
        return usage_error("%s", "no figure to write: give -o FILE (.png, .svg or .pdf)");
    if (tb_model_check(&s->m, err, sizeof err) < 0)
        return usage_error("%s", err);
    return -1;
}

/* The tool's options and the model options, for parse_options(). */
static int parse_arguments(int argc, char **argv, struct plot_settings *s)
{
    struct option *options = tb_cli_options(own_options);
    if (!options)
        return usage_error("%s", "out of memory");
    int rc = parse_options(argc, argv, s, options);
    free(options);
    return rc;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What figure WHAT wants of its NARGS arguments (from ARGV[FIRST]) and
 * options.  -1, or the exit status (said). */
static int check_figure(const struct plot_settings *s, const char *what, char **argv, int first,
                        int nargs)
{
    char err[TB_ERRMAX];
    int status;
    int tradeoff = strcmp(what, "tradeoff") == 0;
    int many = strcmp(what, "compare") == 0 || strcmp(what, "sweep") == 0 || tradeoff;
    int thermal = strcmp(what, "zth") == 0 || strcmp(what, "spectrum") == 0;
    if (nargs < 1)
        return usage_error("%s", many ? "no results given" : "no run given");
    if (!many && nargs > 1)
        return usage_error("one run at a time, not '%s' too", argv[first + 1]);
    if (!many && is_directory(argv[first])) {
        fprintf(stderr, "tb-plot: %s: a directory: %s draws one run (compare, sweep and tradeoff take "
                "directories)\n", argv[first], what);
        return TB_EXIT_INPUT;
    }
    if (strcmp(what, "raw") == 0 && s->ncolumns == 0)
        return usage_error("%s", "raw wants the columns to draw: -c PATTERN...");
    if (strcmp(what, "sweep") == 0 && !s->sweep_x)
        return usage_error("%s", "sweep wants its x axis: --x meta:KEY");
    if (strcmp(what, "sweep") != 0 && (s->sweep_x || s->sweep_y))
        return usage_error("%s", tradeoff ? "tradeoff's --x is peak or above"
                                          : "--x meta:KEY, --by and --y are for the sweep figure");
    if (!tradeoff && !isnan(s->limit))
        return usage_error("%s", "--limit is for the tradeoff figure");
    if (!tradeoff && s->tradeoff_x)
        return usage_error("--x %s is for the tradeoff figure", s->tradeoff_x);
    if ((strcmp(what, "ident") == 0) != (s->model != NULL))
        return usage_error("%s", s->model ? "--model is for the ident figure"
                                          : "ident wants the model: --model FILE");
    if (thermal && !s->power && isnan(s->power_step))
        return usage_error("%s wants the power step: --power COLUMN|POWER", what);
    if (!thermal && (s->power || !isnan(s->power_step) || !isnan(s->idle_power)))
        return usage_error("%s", "--power and --idle-power are for the zth and spectrum figures");
    if ((status = figure_check_output(s->fig.path, err, sizeof err)) != 0) {
        fprintf(stderr, "tb-plot: %s\n", err);
        return status;
    }
    return -1;
}

int main(int argc, char **argv)
{
    struct plot_settings s = {.tolerance = 0.5, .step = 60,
                              .power_step = NAN, .idle_power = NAN, .threshold = NAN,
                              .limit = NAN};

    tb_model_settings_init(&s.m);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_text, stdout);
        return TB_EXIT_OK;
    }
    if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        puts("tb-plot (" PACKAGE_NAME ") " PACKAGE_VERSION);
        return TB_EXIT_OK;
    }
    if (argc < 2)
        return usage_error("%s", "no figure named: fit, raw, runlength, compare, zth, spectrum, sweep, tradeoff or ident");
    const char *what = argv[1];
    static const char *const figures[] = {"fit", "raw", "runlength", "compare", "zth", "spectrum", "sweep",
                                          "tradeoff", "ident"};
    size_t nfig = sizeof figures / sizeof *figures, fig = 0;
    while (fig < nfig && strcmp(what, figures[fig]) != 0)
        fig++;
    if (fig == nfig) {
        const char *near = tb_closest_name(what, figures, nfig);
        if (near)
            return tb_cli_usage_error("tb-plot", "unknown figure '%s' (did you mean %s?): fit, raw, "
                                      "runlength, compare, zth, spectrum, sweep, tradeoff or ident", what, near);
        return usage_error("unknown figure '%s': fit, raw, runlength, compare, zth, spectrum, sweep, "
                           "tradeoff or ident", what);
    }
    int tradeoff = strcmp(what, "tradeoff") == 0;
    int status = parse_arguments(argc - 1, argv + 1, &s);
    int first = optind + 1, nargs = argc - first;
    int thermal = strcmp(what, "zth") == 0 || strcmp(what, "spectrum") == 0;
    s.spectrum = strcmp(what, "spectrum") == 0;
    if (status < 0)
        status = check_figure(&s, what, argv, first, nargs);
    if (status >= 0) {
        free(s.columns);
        free(s.verdicts);
        tb_model_settings_free(&s.m);
        return status;
    }

    if (strcmp(what, "fit") == 0)
        status = plot_fit(&s, argv[first]);
    else if (strcmp(what, "raw") == 0)
        status = plot_raw(&s, argv[first]);
    else if (strcmp(what, "runlength") == 0)
        status = plot_runlength(&s, argv[first]);
    else if (thermal)
        status = plot_thermal(&s, argv[first], strcmp(what, "spectrum") == 0);
    else if (strcmp(what, "sweep") == 0)
        status = plot_sweep(&s, argv + first, nargs);
    else if (tradeoff) {
        s.measured_only = 1;   /* (a strategy's runs throttle: their fits are flagged) */
        status = plot_tradeoff(&s, argv + first, nargs);
    }
    else if (strcmp(what, "ident") == 0)
        status = plot_ident(&s, argv[first]);
    else
        status = plot_compare(&s, argv + first, nargs);
    status = figure_finish(status);
    free(s.columns);
    free(s.verdicts);
    tb_model_settings_free(&s.m);
    return status;
}
