/*
 * tb-fit -- fit the thermal model T(t) = T∞ + Σ kᵢ·exp(−t/τᵢ) to recorded
 * runs and report T∞ and the time constants with confidence intervals.
 *
 * A thin front end: options into settings, one job per input file (or one
 * job for all of them with --shared-tau), jobs run by -j worker threads,
 * each writing its report into memory so that output comes in input order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exit_status.h"
#include "follow.h"
#include "output_file.h"
#include "progress.h"
#include "paths.h"
#include "report.h"
#include "tbfit.h"
#include "work_pool.h"

struct settings {
    struct tb_model_settings m;   /* -n, --ambient, --from, --to, τ range, level, labels */
    const char **columns;
    size_t ncolumns;
    const char **work;
    size_t nwork;
    int shared_tau;
    int strict;
    int run_length;
    double tolerance;
    double step;
    enum tb_format format;
    enum tb_ci_format ci;         /* -f junit|tap|kcidb|lava|squad; else NONE */
    double limit;                 /* --limit: °C T∞ must be shown below; NaN */
    int jobs;
    size_t max_points;            /* --max-points: block means a column; 0 all */
    /* the thermal network */
    const char *power;            /* a column, or NULL with power_step */
    double power_step, idle_power, trip, max_ambient, at_power, switch_on;
    int trip_zone;                /* --trip zone */
    int cooling;                  /* --cooling */
    double load_end;              /* --cooling=TIME; NaN */
    const char *zth;              /* --zth FILE */
    const char *network;          /* --network FILE */
    const char *spectrum;         /* --spectrum FILE */
    const char *dts;              /* --dts FILE */
    struct follow_settings follow;/* --follow: its path, or NULL */
};

/* The files written beside the report (--zth, --network, --spectrum):
 * each job writes its rows into memory, printed in input order. */
enum side { SIDE_ZTH, SIDE_NETWORK, SIDE_SPECTRUM, SIDE_DTS, NSIDES };
static const char *const side_option[NSIDES] = {"--zth", "--network", "--spectrum", "--dts"};

struct job {
    const char **paths;     /* the files of this job */
    size_t npaths;
    char *out;              /* its report, written in memory */
    size_t outlen;
    char *msg;              /* its messages for stderr */
    size_t msglen;
    char *side[NSIDES];     /* its rows of each side file */
    size_t sidelen[NSIDES];
    tb_ci_list ci;          /* its tests, with a CI format */
    int status;
    int items;
};

static const char usage_text[] =
    "Usage: tb-fit [OPTION]... RUN.csv|DIR...\n"
    "Fit T(t) = T∞ + Σ kᵢ·exp(−t/τᵢ) to temperature columns of recorded runs\n"
    "and report T∞ and the time constants τᵢ with confidence intervals.\n"
    "Directories are searched for *.csv; - reads standard input.\n"
    "\n"
    "Model and data:\n"
    "  -n, --order=N|auto     terms of the model, 1 to 4, or auto (the default):\n"
    "                         1 to 3, the order of least AICc among the fits\n"
    "                         the data support\n"
    "  -c, --column=SPEC      fit this column: header, name, glob or 1-based\n"
    "                         number; may be repeated (default: every °C column\n"
    "                         but the ambient one and constant ones)\n"
    "  -a, --ambient=COLUMN|TEMP  subtract this column, interpolated, or this\n"
    "                         temperature (23C), before fitting\n"
    "      --from=TIME        fit from this time of the run (90, 90s, 5min, 1h);\n"
    "                         default: from its regular sampling, start-up\n"
    "                         samples left out (--from 0 keeps them)\n"
    "      --to=TIME          fit up to this time of the run\n"
    "      --shared-tau       one fit of all columns (and files) with common τ\n"
    "      --work=COLUMN      operations per second from this cumulative counter\n"
    "                         (default: the *_work_done columns); may be repeated\n"
    "      --tau-min=TIME     shortest τ searched (default: the sampling period)\n"
    "      --tau-max=TIME     longest τ searched (default: 10x the duration)\n"
    "      --labels=L1,L2,... names of the terms, fastest first (default for\n"
    "                         order 3: heat sink,board,testbed)\n"
    "      --max-points=N     fit at most N block means of each column (means\n"
    "                         of equal spans of time), for runs sampled fast\n"
    "                         (default: every point)\n"
    "\n"
    "Uncertainty and checks:\n"
    "      --level=P          confidence level of the intervals (default 0.95)\n"
    "      --ci=METHOD        hac (default): a covariance that holds under\n"
    "                         autocorrelated noise (Newey-West, Andrews' lags);\n"
    "                         covariance: assumes independent errors (too narrow\n"
    "                         on real runs); bootstrap[=N]: a moving-block\n"
    "                         bootstrap of N resamples (default 200)\n"
    "      --seed=N           seed of the bootstrap (default 1)\n"
    "      --strict           a flagged fit is an error (exit 1)\n"
    "\n"
    "Thermal network (with a power):\n"
    "      --power=COLUMN|POWER  the power step: from this power column (the load's\n"
    "                         mean less the idle part's before or after the\n"
    "                         window), or given (2.5W, 2500mW); reports R_th in\n"
    "                         K/W, the Foster and Cauer networks\n"
    "      --idle-power=POWER the idle power, when the run has no idle part\n"
    "      --trip=TEMP|zone   the sustainable power below this trip point (85,\n"
    "                         85C; zone: the highest passive one tb-record wrote\n"
    "                         for the column), the time to reach it and a\n"
    "                         device-tree value\n"
    "      --max-ambient=TEMP the worst ambient of the trip (needs --ambient)\n"
    "      --at-power=POWER   the power of the time to trip (default: the run's)\n"
    "      --switch-on=TEMP   the governor's switch-on trip, for its constants\n"
    "                         (with --trip zone: the zone's lowest passive one)\n"
    "      --zth=FILE         write Zth(t), measured and model, on a log time grid\n"
    "      --network=FILE     write the Foster stages, for tb-sim --network\n"
    "      --spectrum=FILE    write the time-constant spectrum and the cumulative\n"
    "                         structure function (and report the spectrum's peaks)\n"
    "      --dts=FILE         write a device-tree thermal zone (thermal-zones):\n"
    "                         sustainable-power, the trips, polling, a cooling map\n"
    "                         (needs --trip and --switch-on, or --trip zone)\n"
    "\n"
    "Cooling curve:\n"
    "      --cooling[=TIME]   fit each column's heating (to the load's end) and\n"
    "                         cooling (after it) together, with shared τ; the\n"
    "                         end from the run's benchmark_running column\n"
    "                         (tb-record --cooldown) or TIME\n"
    "\n"
    "Following a run as it is written:\n"
    "      --follow=FILE|-    read a growing run (as tail -f does, read again\n"
    "                         from its start when replaced; until SIGINT or\n"
    "                         SIGTERM) or standard input (to its end) and fit\n"
    "                         it as it grows; on a terminal, a display of each\n"
    "                         column's T∞, τ and flags; otherwise a line per\n"
    "                         update; at the end, the final fit\n"
    "      --every=TIME       an update each TIME of the run's data (default 1min)\n"
    "      --until=DEG        stop once every column's T∞ is known to ±DEG:\n"
    "                         looks at fixed data times (2min, x1.25 each, up\n"
    "                         to --max), the level shared between them, never\n"
    "                         on a flagged fit\n"
    "      --max=TIME         with --until: stop here, T∞ not known (exit 1)\n"
    "                         (default 1h)\n"
    "  -o, --output=FILE      keep every row read in FILE, whole rows: a run\n"
    "                         file for the other tools\n"
    "\n"
    "Run length:\n"
    "      --run-length       fit growing prefixes of the run and report from\n"
    "                         which length T∞ stays within the tolerance\n"
    "      --tolerance=DEG    tolerance in °C (default 0.5); also for the\n"
    "                         settling time\n"
    "      --step=TIME        growth of the prefixes (default 60s)\n"
    "\n"
    "Output:\n"
    "  -f, --format=FORMAT    text (default), csv or json; for CI, junit (JUnit\n"
    "                         XML), tap (TAP 13), kcidb (KCIDB v5 tests), lava\n"
    "                         (lava-test-case calls, a shell script) or squad\n"
    "                         (SQUAD metrics): a test per column and quantity\n"
    "      --limit=TEMP       in the CI formats, T∞ passes where its whole\n"
    "                         interval lies below TEMP (85, 85C), fails where\n"
    "                         not (exit 1); also the limit of the time above it\n"
    "  -j, --jobs=N           fit N files at a time (default 1)\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 all fits good, 1 a fit failed (or was flagged, with\n"
    "--strict, or its T∞ was not shown below --limit), 2 usage or input error,\n"
    "3 output error or out of memory.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-fit", fmt, arg);
}

enum {
    OPT_SHARED_TAU = 256, OPT_WORK, OPT_CI, OPT_SEED, OPT_STRICT, OPT_RUN_LENGTH,
    OPT_TOLERANCE, OPT_STEP, OPT_POWER, OPT_IDLE_POWER, OPT_TRIP, OPT_MAX_AMBIENT, OPT_AT_POWER,
    OPT_SWITCH_ON, OPT_ZTH, OPT_NETWORK, OPT_COOLING, OPT_SPECTRUM, OPT_DTS,
    OPT_FOLLOW, OPT_EVERY, OPT_UNTIL, OPT_MAX, OPT_LIMIT, OPT_MAX_POINTS,
};
static const struct option own_options[] = {
    {"column", required_argument, NULL, 'c'},
    {"shared-tau", no_argument, NULL, OPT_SHARED_TAU},
    {"work", required_argument, NULL, OPT_WORK},
    {"ci", required_argument, NULL, OPT_CI},
    {"seed", required_argument, NULL, OPT_SEED},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"run-length", no_argument, NULL, OPT_RUN_LENGTH},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"step", required_argument, NULL, OPT_STEP},
    {"power", required_argument, NULL, OPT_POWER},
    {"idle-power", required_argument, NULL, OPT_IDLE_POWER},
    {"trip", required_argument, NULL, OPT_TRIP},
    {"max-ambient", required_argument, NULL, OPT_MAX_AMBIENT},
    {"at-power", required_argument, NULL, OPT_AT_POWER},
    {"switch-on", required_argument, NULL, OPT_SWITCH_ON},
    {"zth", required_argument, NULL, OPT_ZTH},
    {"network", required_argument, NULL, OPT_NETWORK},
    {"cooling", optional_argument, NULL, OPT_COOLING},
    {"spectrum", required_argument, NULL, OPT_SPECTRUM},
    {"dts", required_argument, NULL, OPT_DTS},
    {"follow", required_argument, NULL, OPT_FOLLOW},
    {"every", required_argument, NULL, OPT_EVERY},
    {"max-points", required_argument, NULL, OPT_MAX_POINTS},
    {"until", required_argument, NULL, OPT_UNTIL},
    {"max", required_argument, NULL, OPT_MAX},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"jobs", required_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* --follow's options: what goes with it, and its defaults. */
static int check_follow(int argc, char **argv, struct settings *s)
{
    char err[TB_ERRMAX];
    if (optind < argc)
        return usage_error("--follow reads one run, not '%s' too", argv[optind]);
    if (tb_model_check(&s->m, err, sizeof err) < 0)
        return usage_error("%s", err);
    if (s->ci != TB_CI_NONE)
        return usage_error("%s", "--follow reports as text, csv or json: the CI formats are for "
                           "recorded runs");
    if (s->run_length || s->shared_tau || s->cooling || s->power || !isnan(s->power_step) ||
        isfinite(s->m.to))
        return usage_error("%s", "--follow fits one run as it grows: not with --run-length, "
                           "--shared-tau, --cooling, --power or --to");
    if (!isnan(s->follow.max) && isnan(s->follow.until))
        return usage_error("%s", "--max goes with --until");
    if (isnan(s->follow.every))
        s->follow.every = 60;
    if (isnan(s->follow.max))
        s->follow.max = 3600;
    s->follow.format = s->format;
    s->follow.level = s->m.fit.level;
    return -1;
}

/* --power and what it derives: R_th, Zth, networks, trips, a DT zone. */
static int power_option(int c, const char *arg, struct settings *s)
{
    char err[TB_ERRMAX];
    switch (c) {
    case OPT_POWER:
        if (tb_cli_power_option(arg, &s->power, &s->power_step, err, sizeof err) < 0)
            return usage_error("%s", err);
        break;
    case OPT_IDLE_POWER:
        if (tb_cli_idle_power(arg, &s->idle_power, err, sizeof err) < 0)
            return usage_error("%s", err);
        break;
    case OPT_AT_POWER:
        if (tb_cli_quantity_or_number(arg, "W", &s->at_power) < 0 || !(s->at_power > 0))
            return usage_error("--at-power wants a positive power, such as 4W, not '%s'", arg);
        break;
    case OPT_TRIP:
        s->trip_zone = strcmp(arg, "zone") == 0;
        s->trip = NAN;
        if (!s->trip_zone && tb_cli_quantity_or_number(arg, "C", &s->trip) < 0)
            return usage_error("--trip wants a temperature, such as 85C, or zone, not '%s'", arg);
        break;
    case OPT_MAX_AMBIENT:
        if (tb_cli_quantity_or_number(arg, "C", &s->max_ambient) < 0)
            return usage_error("--max-ambient wants a temperature, such as 45C, not '%s'", arg);
        break;
    case OPT_SWITCH_ON:
        if (tb_cli_quantity_or_number(arg, "C", &s->switch_on) < 0)
            return usage_error("--switch-on wants a temperature, such as 65C, not '%s'", arg);
        break;
    case OPT_ZTH: s->zth = arg; break;
    case OPT_NETWORK: s->network = arg; break;
    case OPT_SPECTRUM: s->spectrum = arg; break;
    case OPT_DTS: s->dts = arg; break;
    }
    return -1;
}

/* --follow and what goes with it. */
static int follow_option(int c, const char *arg, struct settings *s)
{
    switch (c) {
    case OPT_FOLLOW: s->follow.path = arg; break;
    case 'o': s->follow.keep = arg; break;
    case OPT_EVERY:
        if (tb_parse_duration(arg, &s->follow.every) < 0 || !(s->follow.every > 0))
            return usage_error("--every wants a positive time, such as 30s, not '%s'", arg);
        break;
    case OPT_UNTIL:
        if (tb_cli_quantity_or_number(arg, "C", &s->follow.until) < 0 || !(s->follow.until > 0))
            return usage_error("--until wants a positive tolerance in °C, such as 0.5, "
                               "not '%s'", arg);
        break;
    case OPT_MAX:
        if (tb_parse_duration(arg, &s->follow.max) < 0 || !(s->follow.max >= 120) ||
            !isfinite(s->follow.max))
            return usage_error("--max wants a time of at least 2min, not '%s'", arg);
        break;
    }
    return -1;
}

/* --ci: hac, covariance, bootstrap or bootstrap=N. */
static int ci_option(const char *arg, struct settings *s)
{
    double x;
    if (strcmp(arg, "hac") == 0) {
        s->m.fit.ci = TB_CI_HAC;
    } else if (strcmp(arg, "covariance") == 0) {
        s->m.fit.ci = TB_CI_PLAIN;
    } else if (strcmp(arg, "bootstrap") == 0) {
        s->m.fit.ci = TB_CI_BOOTSTRAP;
        s->m.fit.bootstrap = 200;
    } else if (strncmp(arg, "bootstrap=", 10) == 0 && tb_cli_number(arg + 10, &x) == 0 &&
               x == floor(x) && x >= 20 && x <= 100000) {
        s->m.fit.ci = TB_CI_BOOTSTRAP;
        s->m.fit.bootstrap = (int)x;
    } else {
        return usage_error("--ci wants hac, covariance, bootstrap or bootstrap=N "
                           "(N from 20 to 100000), not '%s'", arg);
    }
    return -1;
}

/* -f: a report format, or a CI format written at the end. */
static int format_option(const char *arg, struct settings *s)
{
    s->ci = tb_ci_format_named(arg);
    if (strcmp(arg, "text") == 0 || s->ci != TB_CI_NONE)
        s->format = TB_FORMAT_TEXT;
    else if (strcmp(arg, "csv") == 0)
        s->format = TB_FORMAT_CSV;
    else if (strcmp(arg, "json") == 0)
        s->format = TB_FORMAT_JSON;
    else
        return usage_error("--format wants text, csv, json, junit, tap, kcidb, lava or "
                           "squad, not '%s'", arg);
    return -1;
}

#define NOT_AN_OPTION (-2)   /* fit_option(): not one of tb-fit's */

/* The fit's own options: columns, --work, intervals, run length, limits.
 * -1 when taken, NOT_AN_OPTION, or the exit status of a usage error. */
static int fit_option(int c, const char *arg, struct settings *s)
{
    char err[TB_ERRMAX];
    double x;
    switch (c) {
    case 'c':
        if (tb_cli_push(&s->columns, &s->ncolumns, arg) < 0)
            return usage_error("%s", "out of memory");
        break;
    case OPT_WORK:
        if (tb_cli_push(&s->work, &s->nwork, arg) < 0)
            return usage_error("%s", "out of memory");
        break;
    case OPT_SHARED_TAU: s->shared_tau = 1; break;
    case OPT_COOLING:
        s->cooling = 1;
        if (arg && (tb_parse_duration(arg, &s->load_end) < 0 || !(s->load_end > 0)))
            return usage_error("--cooling wants the load's end as a positive time, not '%s'", arg);
        break;
    case OPT_CI: return ci_option(arg, s);
    case OPT_SEED:
        if (tb_cli_number(arg, &x) < 0 || x < 0 || x != floor(x))
            return usage_error("--seed wants a whole number, not '%s'", arg);
        s->m.fit.seed = (unsigned long)x;
        break;
    case OPT_STRICT: s->strict = 1; break;
    case OPT_RUN_LENGTH: s->run_length = 1; break;
    case OPT_TOLERANCE:
        if (tb_cli_tolerance(arg, &s->tolerance, err, sizeof err) < 0)
            return usage_error("%s", err);
        break;
    case OPT_STEP:
        if (tb_cli_step(arg, &s->step, err, sizeof err) < 0)
            return usage_error("%s", err);
        break;
    case OPT_MAX_POINTS:
        /* fewer than a few hundred means would blur a heat sink's τ */
        if (tb_cli_number(arg, &x) < 0 || x != floor(x) || x < 100 || x > 1e9)
            return usage_error("--max-points wants a whole number from 100 up, not '%s'", arg);
        s->max_points = (size_t)x;
        break;
    case OPT_LIMIT:
        if (tb_cli_quantity_or_number(arg, "C", &s->limit) < 0 || !isfinite(s->limit))
            return usage_error("--limit wants a temperature, such as 85C, not '%s'", arg);
        break;
    case 'f': return format_option(arg, s);
    case 'j':
        if (tb_cli_jobs(arg, &s->jobs, err, sizeof err) < 0)
            return usage_error("%s", err);
        break;
    default:
        return NOT_AN_OPTION;
    }
    return -1;
}

/* --power's derived options: each needs what it derives from. */
static int check_power(const struct settings *s)
{
    int power = s->power || !isnan(s->power_step);
    int trip = !isnan(s->trip) || s->trip_zone;
    if (!power && (s->zth || s->network || s->spectrum || !isnan(s->idle_power) || trip))
        return usage_error("%s", "--zth, --network, --spectrum, --idle-power and --trip need --power");
    if (!trip && (!isnan(s->max_ambient) || !isnan(s->at_power) || !isnan(s->switch_on)))
        return usage_error("%s", "--max-ambient, --at-power and --switch-on need --trip");
    if (trip && s->m.ambient && isnan(s->max_ambient))
        return usage_error("%s", "--trip with --ambient needs --max-ambient: the worst ambient");
    if (!isnan(s->max_ambient) && !s->m.ambient)
        return usage_error("%s", "--max-ambient needs the run's own ambient: --ambient COLUMN|TEMP");
    if (!isnan(s->switch_on) && !isnan(s->trip) && !(s->switch_on < s->trip))
        return usage_error("%s", "--switch-on must be below --trip");
    if (s->dts && !(s->trip_zone || (!isnan(s->trip) && !isnan(s->switch_on))))
        return usage_error("%s", "--dts writes the power allocator's two trips: it needs --trip "
                           "and --switch-on (or --trip zone)");
    return -1;
}

/* A recorded run's options, once all are read: what goes together. */
static int check_fixed(int argc, struct settings *s)
{
    char err[TB_ERRMAX];
    if (s->follow.keep || !isnan(s->follow.until) || !isnan(s->follow.every) ||
        !isnan(s->follow.max))
        return usage_error("%s", "-o, --every, --until and --max go with --follow");
    if (optind >= argc)
        return usage_error("%s", "no run given");
    if (tb_model_check(&s->m, err, sizeof err) < 0)
        return usage_error("%s", err);
    if (s->ci != TB_CI_NONE && s->run_length)
        return usage_error("%s", "--run-length reports as text, csv or json: the CI formats "
                           "report fits");
    if (!isnan(s->limit) && s->m.ambient)
        return usage_error("%s", "--limit is a temperature T∞ is held below: not with --ambient, "
                           "which makes T∞ a rise");
    if (s->run_length && s->shared_tau)
        return usage_error("%s", "--run-length works on one column at a time, not with --shared-tau");
    if ((s->power || !isnan(s->power_step)) && s->run_length)
        return usage_error("%s", "--power and --run-length: one of them");
    if (s->cooling && s->run_length)
        return usage_error("%s", "--cooling and --run-length: one of them");
    return check_power(s);
}

static int parse_options(int argc, char **argv, struct settings *s, const struct option *options)
{
    char err[TB_ERRMAX];
    int c, rc;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:a:c:f:j:o:hV", options, NULL)) != -1) {
        if ((rc = tb_model_option(c, optarg, &s->m, err, sizeof err)) != 0) {
            if (rc < 0)
                return usage_error("%s", err);
            continue;
        }
        switch (c) {
        case OPT_POWER: case OPT_IDLE_POWER: case OPT_AT_POWER: case OPT_TRIP:
        case OPT_MAX_AMBIENT: case OPT_SWITCH_ON: case OPT_ZTH: case OPT_NETWORK:
        case OPT_SPECTRUM: case OPT_DTS:
            rc = power_option(c, optarg, s);
            break;
        case OPT_FOLLOW: case 'o': case OPT_EVERY: case OPT_UNTIL: case OPT_MAX:
            rc = follow_option(c, optarg, s);
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(TB_EXIT_OK);
        case 'V':
            puts("tb-fit (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(TB_EXIT_OK);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            rc = fit_option(c, optarg, s);
            break;
        }
        if (rc == NOT_AN_OPTION)
            return tb_cli_unknown_option("tb-fit", argv[optind - 1], options);
        if (rc >= 0)
            return rc;
    }
    return s->follow.path ? check_follow(argc, argv, s) : check_fixed(argc, s);
}

/* The tool's options and the model options, for parse_options(). */
static int parse_arguments(int argc, char **argv, struct settings *s)
{
    struct option *options = tb_cli_options(own_options);
    if (!options)
        return usage_error("%s", "out of memory");
    int rc = parse_options(argc, argv, s, options);
    free(options);
    return rc;
}

/* --- one job ---------------------------------------------------------------- */

static void say(FILE *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Messages of a job go to its own buffer, printed in input order. */
static void say(FILE *msg, const char *fmt, ...)
{
    char line[2 * TB_ERRMAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    tb_say(msg, "tb-fit", "%s", line);
}

static int worst_status(int a, int b)
{
    return a > b ? a : b;
}

static tb_analysis_options analysis_options(const struct settings *s)
{
    tb_analysis_options o = tb_model_analysis_options(&s->m);
    o.columns = s->columns;
    o.ncolumns = s->ncolumns;
    o.work = s->work;
    o.nwork = s->nwork;
    o.shared_tau = s->shared_tau;
    o.max_points = s->max_points;
    o.tolerance = s->tolerance;
    o.run_length = s->run_length;
    o.step = s->step;
    o.power = s->power;
    o.power_step = s->power_step;
    o.idle_power = s->idle_power;
    o.trip = s->trip;
    o.max_ambient = s->max_ambient;
    o.at_power = s->at_power;
    o.trip_zone = s->trip_zone;
    o.cooling = s->cooling;
    o.spectrum = s->spectrum != NULL;
    o.load_end = s->load_end;
    o.switch_on = s->switch_on;
    o.limit = s->limit;
    return o;
}

/* How column C is presented, by the settings S; LABELS holds the terms'
 * names. */
static tb_fit_report fit_report_of(const struct settings *s, const tb_analysed_column *c,
                                   const char *labels[TB_FIT_MAX_ORDER])
{
    return (tb_fit_report){
        .c = c, .tolerance = s->tolerance, .ambient = s->m.ambient,
        .labels = c->fit ? tb_model_labels(&s->m, c->fit, c->series, labels) : NULL,
        .level = s->m.fit.level, .auto_order = s->m.auto_order, .power = s->power,
    };
}

/* The report of column C (its fit, or its run length), or with a CI
 * format its tests into CI; 0, or -1 when it could not be written. */
static int report_column(FILE *out, tb_ci_list *ci, const struct settings *s,
                         const tb_analysed_column *c)
{
    const char *labels[TB_FIT_MAX_ORDER];
    tb_fit_report r = fit_report_of(s, c, labels);
    int rc;
    if (s->ci != TB_CI_NONE)
        return tb_report_fit_ci(ci, &r, s->limit);
    if (s->run_length) {
        tb_report_run_length(out, s->format, c->source, c->column->name, c->run_length,
                             s->tolerance, s->m.fit.level, 0);
        rc = ferror(out) ? -1 : 0;
    } else {
        rc = tb_report_fit(out, s->format, &r,
                           s->m.auto_order ? TB_FIT_MAX_ORDER : s->m.fit.order, 0);
    }
    if (s->format == TB_FORMAT_TEXT)
        fputc('\n', out);
    return rc;
}

/* --follow's final fit: every column of A as tb-fit prints it. */
static int report_analysis(void *ctx, FILE *out, const tb_analysis *a)
{
    const struct settings *s = ctx;
    int rc = 0, first = 1;
    if (s->format == TB_FORMAT_CSV)
        rc = tb_results_write_header(out, s->m.auto_order ? TB_FIT_MAX_ORDER : s->m.fit.order);
    else if (s->format == TB_FORMAT_JSON)
        fputs("[", out);
    for (size_t i = 0; i < tb_analysis_ncolumns(a); i++) {
        const tb_analysed_column *c = tb_analysis_column(a, i);
        if (!c->fit)
            continue;   /* its error is among the analysis' messages */
        struct settings one = *s;
        one.m.fit.level = c->fit->level;
        if (s->format == TB_FORMAT_JSON) {
            const char *labels[TB_FIT_MAX_ORDER];
            tb_fit_report r = fit_report_of(&one, c, labels);
            rc |= tb_report_fit(out, s->format, &r, s->m.auto_order ? TB_FIT_MAX_ORDER
                                                                      : s->m.fit.order, first);
            first = 0;
        } else {
            rc |= report_column(out, NULL, &one, c);
        }
    }
    if (s->format == TB_FORMAT_JSON)
        fputs("\n]\n", out);
    return rc || ferror(out) ? -1 : 0;
}

static int check_strict(const struct settings *s, const tb_fit *fit, FILE *msg,
                        const char *file, const char *column)
{
    char flags[256];
    if (!s->strict || !fit->flags)
        return TB_EXIT_OK;
    say(msg, "%s: %s: the fit is flagged (%s) and --strict is given", file, column,
        tb_fit_flags_text(fit->flags, flags, sizeof flags));
    return TB_EXIT_FIT;
}

/* The Zth rows of column C (--zth): file,column,t_s,points,data,model. */
static int write_zth(FILE *f, const tb_analysed_column *c)
{
    tb_zth_point *z;
    ssize_t n = tb_thermal_zth(c->fit, c->series, c->t, c->y, c->n, c->thermal->power.step, 20, &z);
    if (n < 0)
        return -1;
    for (ssize_t i = 0; i < n; i++) {
        tb_csv_write_string(f, c->source);
        fputc(',', f);
        tb_csv_write_string(f, c->column->name);
        fprintf(f, ",%.17g,%zu,%.17g,%.17g\n", z[i].t, z[i].n, z[i].data, z[i].model);
    }
    free(z);
    return 0;
}

/* The spectrum rows of column C (--spectrum): file,column,kind,x,y, the
 * spectrum's (τ s, R K/W) and the structure function's (ΣR, ΣC). */
static void write_spectrum(FILE *f, const tb_analysed_column *c)
{
    const tb_spectrum *sp = c->spectrum;
    for (size_t k = 0; k < sp->n + sp->nladder; k++) {
        tb_csv_write_string(f, c->source);
        fputc(',', f);
        tb_csv_write_string(f, c->column->name);
        if (k < sp->n)
            fprintf(f, ",spectrum,%.17g,%.17g\n", sp->tau[k], sp->r[k]);
        else
            fprintf(f, ",structure,%.17g,%.17g\n", sp->cum_r[k - sp->n], sp->cum_c[k - sp->n]);
    }
}

/* The analysis of a job's files, reported into memory. */
static void run_job(const struct settings *s, struct job *job)
{
    FILE *out = open_memstream(&job->out, &job->outlen);
    FILE *msg = open_memstream(&job->msg, &job->msglen);
    const char *paths[NSIDES] = {s->zth, s->network, s->spectrum, s->dts};
    FILE *side[NSIDES] = {NULL};
    int side_failed = 0;
    for (int k = 0; k < NSIDES; k++)
        if (paths[k] && !(side[k] = open_memstream(&job->side[k], &job->sidelen[k])))
            side_failed = 1;
    tb_analysis_options o = analysis_options(s);
    char err[TB_ERRMAX];
    tb_analysis *a = NULL;

    if (!out || !msg || side_failed) {
        job->status = TB_EXIT_OUTPUT;
        goto done;
    }
    if (!(a = tb_analyse_paths((const char *const *)job->paths, job->npaths, &o, err,
                               sizeof err))) {
        say(msg, "%s", err);
        job->status = TB_EXIT_OUTPUT;
        goto done;
    }
    for (size_t i = 0; i < tb_analysis_nmessages(a); i++)
        say(msg, "%s", tb_analysis_message(a, i));
    job->status = tb_analysis_status(a);
    for (size_t i = 0; i < tb_analysis_ncolumns(a); i++) {
        const tb_analysed_column *c = tb_analysis_column(a, i);
        if (!c->fit && !s->run_length && (s->format != TB_FORMAT_TEXT || s->ci != TB_CI_NONE)) {
            /* a row that says it failed: "failed" is not "absent" */
            if (report_column(out, &job->ci, s, c) < 0) {
                say(msg, "out of memory");
                job->status = worst_status(job->status, TB_EXIT_OUTPUT);
            }
            job->items++;
            continue;   /* its failure is among the messages too */
        }
        if (!c->fit || (s->run_length && !c->run_length))
            continue;   /* its failure is among the messages */
        if (report_column(out, &job->ci, s, c) < 0) {
            say(msg, "out of memory");
            job->status = worst_status(job->status, TB_EXIT_OUTPUT);
        }
        job->items++;
        if (side[SIDE_SPECTRUM] && c->spectrum)
            write_spectrum(side[SIDE_SPECTRUM], c);
        if (side[SIDE_DTS] && c->sustainable && tb_dts_write_zone(side[SIDE_DTS], c, err, sizeof err) < 0)
            say(msg, "--dts: %s", err);   /* (no zone: the file counts no row of it) */
        if ((side[SIDE_ZTH] && c->thermal && write_zth(side[SIDE_ZTH], c) < 0) ||
            (side[SIDE_NETWORK] && c->thermal &&
             tb_network_write(side[SIDE_NETWORK], c->source, c->column->name, c->thermal, c->fit) < 0)) {
            say(msg, "out of memory");
            job->status = worst_status(job->status, TB_EXIT_OUTPUT);
        }
        if (s->run_length)
            continue;
        if (s->shared_tau && i == 0)
            job->status = worst_status(job->status,
                                       check_strict(s, c->fit, msg, "shared-τ fit", "all columns"));
        else if (!s->shared_tau)
            job->status = worst_status(job->status,
                                       check_strict(s, c->fit, msg, c->source, c->column->name));
    }
done:
    tb_analysis_free(a);
    if (out)
        fclose(out);
    if (msg)
        fclose(msg);
    for (int k = 0; k < NSIDES; k++)
        if (side[k])
            fclose(side[k]);
}

/* --- the side files ---------------------------------------------------------- */

static const char *side_path(const struct settings *s, int k)
{
    const char *paths[NSIDES] = {s->zth, s->network, s->spectrum, s->dts};
    return paths[k];
}

/* Drop the side files: those there before are left as they were. */
static void abort_sides(struct tb_output_file *side)
{
    for (int k = 0; k < NSIDES; k++)
        tb_output_abort(&side[k]);
}

/* Start the side files asked for, each with its header, each written
 * whole or not at all (output_file.h); 0, or -1 said (none left). */
static int open_sides(const struct settings *s, struct tb_output_file *side)
{
    char err[TB_ERRMAX];
    for (int k = 0; k < NSIDES; k++) {
        const char *path = side_path(s, k);
        if (!path)
            continue;
        if (tb_output_open(&side[k], path, err, sizeof err) < 0) {
            fprintf(stderr, "tb-fit: %s %s\n", side_option[k], err);
            abort_sides(side);
            return -1;
        }
        if (k == SIDE_ZTH)
            fputs("file,column,t_s,points,zth_data_K_per_W,zth_model_K_per_W\n", side[k].f);
        else if (k == SIDE_NETWORK)
            tb_network_write_header(side[k].f);
        else if (k == SIDE_DTS)
            tb_dts_write_begin(side[k].f);
        else
            fputs("file,column,kind,x,y\n", side[k].f);
    }
    return 0;
}

/* Put them in place: the exit status, said when one could not be written
 * (TB_EXIT_OUTPUT).  A side file no fit gave a row to is not written (a
 * file of a header alone would pass for an answer): said, the one there
 * before kept, and TB_EXIT_FIT. */
static int commit_sides(struct tb_output_file *side, const size_t *rows)
{
    char err[TB_ERRMAX];
    int rc = TB_EXIT_OK;
    for (int k = 0; k < NSIDES; k++) {
        if (k == SIDE_DTS && side[k].f && rows[k] > 1) {
            fprintf(stderr, "tb-fit: --dts %s: not written: its zones are one board's, from one "
                    "run, not %zu\n", side[k].path, rows[k]);
            tb_output_abort(&side[k]);
            rc = worst_status(rc, TB_EXIT_INPUT);
            continue;
        }
        if (side[k].f && rows[k] == 0) {
            fprintf(stderr, "tb-fit: %s %s: not written: no fit gave it a row\n", side_option[k],
                    side[k].path);
            tb_output_abort(&side[k]);
            rc = worst_status(rc, TB_EXIT_FIT);
        } else if (side[k].f && ((k == SIDE_DTS && tb_dts_write_end(side[k].f) < 0) ||
                                 tb_output_commit(&side[k], err, sizeof err) < 0)) {
            fprintf(stderr, "tb-fit: %s %s\n", side_option[k], err);
            rc = TB_EXIT_OUTPUT;
        }
    }
    return rc;
}

/* --- the CI formats ---------------------------------------------------------- */

/* Move JOB's tests to the end of ALL: the exit status they call for (a
 * T∞ not shown below --limit fails), TB_EXIT_OUTPUT (said, *FAILED set)
 * when memory ran out. */
static int take_tests(tb_ci_list *all, tb_ci_list *job, int *failed)
{
    int rc = TB_EXIT_OK;
    for (size_t i = 0; i < job->n; i++)
        if (job->v[i].status == TB_CI_FAIL)
            rc = worst_status(rc, TB_EXIT_FIT);
    if (!*failed && tb_ci_list_move(all, job) < 0) {
        fputs("tb-fit: out of memory\n", stderr);
        *failed = 1;
    }
    tb_ci_list_free(job);
    return *failed ? TB_EXIT_OUTPUT : rc;
}

/* --- workers ---------------------------------------------------------------- */

struct work {
    const struct settings *s;
    struct job *jobs;
};

static void work_on_job(void *ctx, size_t i)
{
    struct work *w = ctx;
    run_job(w->s, &w->jobs[i]);
}

static void settings_free(struct settings *s)
{
    free(s->columns);
    free(s->work);
    tb_model_settings_free(&s->m);
}

/* The header a report format needs before its first item. */
static void print_header(const struct settings *s)
{
    if (s->format == TB_FORMAT_CSV) {
        if (s->run_length)
            tb_report_run_length_csv_header(stdout);
        else
            tb_results_write_header(stdout, s->m.auto_order ? TB_FIT_MAX_ORDER : s->m.fit.order);
    } else if (s->format == TB_FORMAT_JSON) {
        fputs("[\n", stdout);
    }
}

/* JOB's report to standard output, its messages to standard error, its
 * rows to the side files (SIDE_ROWS counts the jobs that wrote each). */
static void print_job(const struct settings *s, struct job *job, struct tb_output_file *side,
                      size_t *side_rows, int *any_item)
{
    if (job->outlen > 0) {
        /* JSON objects after the first need a comma, which only the
         * printing order knows. */
        const char *text = job->out;
        if (s->format == TB_FORMAT_JSON && !*any_item)
            text += 1;   /* drop the comma of ",\n {" */
        if (s->format == TB_FORMAT_JSON && !*any_item && text[0] == '\n')
            text += 1;
        fputs(text, stdout);
        *any_item = 1;
    }
    fflush(stdout);
    if (job->msglen > 0)
        fputs(job->msg, stderr);
    for (int k = 0; k < NSIDES; k++) {
        if (side[k].f && job->sidelen[k] > 0) {
            fwrite(job->side[k], 1, job->sidelen[k], side[k].f);
            side_rows[k]++;
        }
        free(job->side[k]);
    }
    free(job->out);
    free(job->msg);
}

/* Print each job's report as soon as it and all before it are done; on
 * a terminal, a progress line between them.  The worst exit status. */
static int print_reports(const struct settings *s, struct job *jobs, size_t njobs,
                         struct tb_work_pool *pool, struct tb_output_file *side)
{
    int status = TB_EXIT_OK, any_item = 0, ci_failed = 0;
    size_t side_rows[NSIDES] = {0};
    tb_ci_list tests = {0};   /* with a CI format: every job's, in order */
    struct tb_progress progress;

    print_header(s);
    tb_progress_start(&progress, "tb-fit", "runs", njobs);
    for (size_t i = 0; i < njobs; i++) {
        tb_work_pool_wait(pool, i);
        tb_progress_clear(&progress);
        print_job(s, &jobs[i], side, side_rows, &any_item);
        status = worst_status(status, jobs[i].status);
        status = worst_status(status, take_tests(&tests, &jobs[i].ci, &ci_failed));
        tb_progress_show(&progress, i + 1);
    }
    tb_progress_clear(&progress);
    tb_work_pool_finish(pool);
    if (s->format == TB_FORMAT_JSON)
        fputs(any_item ? "\n]\n" : "]\n", stdout);
    if (s->ci != TB_CI_NONE && !ci_failed)
        tb_ci_write(stdout, s->ci, "tb-fit", NULL, &tests);
    tb_ci_list_free(&tests);
    return worst_status(status, commit_sides(side, side_rows));
}

/* The recorded runs PATHS, a job each (one for --shared-tau), fitted -j
 * at a time.  The worst exit status. */
static int fit_runs(const struct settings *s, const struct tb_paths *paths)
{
    struct tb_output_file side[NSIDES] = {{0}};
    if (open_sides(s, side) < 0)
        return TB_EXIT_OUTPUT;
    size_t njobs = s->shared_tau ? 1 : paths->n;
    struct job *jobs = calloc(njobs, sizeof *jobs);
    struct work work = {.s = s, .jobs = jobs};
    struct tb_work_pool pool;
    for (size_t i = 0; jobs && i < njobs; i++) {
        jobs[i].paths = (const char **)(s->shared_tau ? paths->v : &paths->v[i]);
        jobs[i].npaths = s->shared_tau ? paths->n : 1;
    }
    /* The jobs write their reports to memory: the header can follow. */
    if (!jobs || tb_work_pool_start(&pool, njobs, s->jobs, work_on_job, &work) < 0) {
        fputs("tb-fit: out of memory\n", stderr);
        abort_sides(side);
        free(jobs);
        return TB_EXIT_OUTPUT;
    }
    int status = print_reports(s, jobs, njobs, &pool, side);
    free(jobs);
    return status;
}

int main(int argc, char **argv)
{
    struct settings s = {.tolerance = 0.5, .step = 60, .format = TB_FORMAT_TEXT, .jobs = 1,
                         .power_step = NAN, .idle_power = NAN, .trip = NAN, .max_ambient = NAN,
                         .at_power = NAN, .switch_on = NAN, .load_end = NAN, .limit = NAN,
                         .follow = {.every = NAN, .until = NAN, .max = NAN}};
    struct tb_paths paths = {0};
    tb_model_settings_init(&s.m);
    int status = parse_arguments(argc, argv, &s);

    if (status >= 0) {
        settings_free(&s);
        return status;
    }
    tb_work_pool_blas_single();   /* a followed run's fits too */
    if (s.follow.path) {
        tb_analysis_options o = analysis_options(&s);
        o.jobs = s.jobs;   /* one run: its columns fitted -j at a time */
        status = follow_run(&s.follow, &o, report_analysis, &s);
    } else {
        status = TB_EXIT_OK;
        for (int i = optind; i < argc; i++)
            if (tb_paths_add(&paths, argv[i], "tb-fit") < 0)
                status = TB_EXIT_INPUT;
        if (paths.n == 0) {
            fprintf(stderr, "tb-fit: no run found in the inputs given\n");
            status = TB_EXIT_INPUT;
        } else {
            status = worst_status(status, fit_runs(&s, &paths));
        }
        tb_paths_free(&paths);
    }
    settings_free(&s);
    return tb_cli_stdout_status("tb-fit", status);
}
