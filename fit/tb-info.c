/*
 * tb-info -- summarise recorded runs before fitting them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paths.h"
#include "exit_status.h"
#include "output.h"
#include "tbfit.h"


enum format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

struct settings {
    enum format format;
    tb_read_options read;
    const char **columns;   /* -c specs, NULL-terminated; NULL for all */
    size_t ncolumns;
    int metrics;            /* --metrics */
    int opp_table;          /* --opp-table */
    const char *by;         /* --by KEY (default freq) */
    const char *device;     /* --device NAME (default cpu) */
    int cpus;               /* --cpus */
    double idle_w;          /* --idle-power; NaN */
};

static const char usage_text[] =
    "Usage: tb-info [OPTION]... RUN.csv...\n"
    "Summarise runs recorded in the thermobench CSV format: metadata, then\n"
    "one line per column with its unit, points, missing values, first and\n"
    "last time, minimum, mean, maximum and median sampling period.\n"
    "A RUN of - reads standard input.\n"
    "\n"
    "  -c, --column=SPEC  only these columns: a header, a name, a glob or a\n"
    "                     1-based number; may be repeated\n"
    "      --csv          one CSV row per column, for scripts\n"
    "      --json         a JSON array with one object per run, for scripts\n"
    "      --metrics      also how the run did under its thermal limits: each\n"
    "                     temperature's peak, mean and time above each trip\n"
    "                     point, each cooling device's share of time throttled\n"
    "                     and mean state, each power's mean and energy, the\n"
    "                     work rate overall and over the last third (95 %\n"
    "                     intervals) and per joule (text or --json)\n"
    "      --opp-table    the runs of a frequency sweep as an operating-point\n"
    "                     table (CSV, for tb-sim --opp): per frequency the\n"
    "                     mean power above --idle-power and work rate, with\n"
    "                     95 % intervals; needs --cpus and --idle-power\n"
    "      --by=KEY       the metadata line that names each run's frequency\n"
    "                     in kHz (default freq: tb-series' sweep variable)\n"
    "      --cpus=N       the CPUs the frequency applies to, all busy\n"
    "      --idle-power=W the board's power with them idle\n"
    "      --device=NAME  the table's device name (default cpu)\n"
    "      --raw-units    keep values and units as written (no conversion of\n"
    "                     ms to s, m°C to °C, kHz to Hz, µW to W, µJ to J)\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 2 usage error, or a run could not be read or a\n"
    "column was not found (the other runs are still shown), 3 output error or\n"
    "out of memory.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-info", fmt, arg);
}

static int parse_arguments(int argc, char **argv, struct settings *s)
{
    enum { OPT_CSV = 256, OPT_JSON, OPT_RAW_UNITS, OPT_METRICS, OPT_OPP, OPT_BY, OPT_CPUS, OPT_IDLE,
           OPT_DEVICE };
    static const struct option options[] = {
        {"column", required_argument, NULL, 'c'},
        {"csv", no_argument, NULL, OPT_CSV},
        {"json", no_argument, NULL, OPT_JSON},
        {"raw-units", no_argument, NULL, OPT_RAW_UNITS},
        {"metrics", no_argument, NULL, OPT_METRICS},
        {"opp-table", no_argument, NULL, OPT_OPP},
        {"by", required_argument, NULL, OPT_BY},
        {"cpus", required_argument, NULL, OPT_CPUS},
        {"idle-power", required_argument, NULL, OPT_IDLE},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:hV", options, NULL)) != -1) {
        switch (c) {
        case 'c': {
            const char **nc = realloc(s->columns, (s->ncolumns + 2) * sizeof *nc);
            if (!nc) {
                fputs("tb-info: out of memory\n", stderr);
                return TB_EXIT_OUTPUT;
            }
            s->columns = nc;
            nc[s->ncolumns++] = optarg;
            nc[s->ncolumns] = NULL;
            break;
        }
        case OPT_CSV: s->format = FORMAT_CSV; break;
        case OPT_JSON: s->format = FORMAT_JSON; break;
        case OPT_RAW_UNITS: s->read.normalise_units = 0; break;
        case OPT_METRICS: s->metrics = 1; break;
        case OPT_OPP: s->opp_table = 1; break;
        case OPT_BY: s->by = optarg; break;
        case OPT_DEVICE: s->device = optarg; break;
        case OPT_CPUS: {
            double x;
            if (tb_cli_number(optarg, &x) < 0 || x != floor(x) || x < 1 || x > 1024)
                return usage_error("--cpus wants a count from 1 to 1024, not '%s'", optarg);
            s->cpus = (int)x;
            break;
        }
        case OPT_IDLE:
            if (tb_cli_quantity_or_number(optarg, "W", &s->idle_w) < 0 || !(s->idle_w >= 0))
                return usage_error("--idle-power wants a power (2.1, 2100mW), not '%s'", optarg);
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(TB_EXIT_OK);
        case 'V':
            puts("tb-info (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(TB_EXIT_OK);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return tb_cli_unknown_option("tb-info", argv[optind - 1], options);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "no run given");
    if (s->metrics && (s->format == FORMAT_CSV || !s->read.normalise_units))
        return usage_error("%s", "--metrics: in text or --json, with the units converted");
    if (s->opp_table && (s->metrics || s->format != FORMAT_TEXT || !s->read.normalise_units || s->columns))
        return usage_error("%s", "--opp-table writes its own CSV: no --metrics, --csv, --json, "
                           "--raw-units or -c");
    if (s->opp_table && (!s->cpus || isnan(s->idle_w)))
        return usage_error("%s", "--opp-table needs --cpus and --idle-power");
    if (!s->opp_table && (s->by || s->device || s->cpus || !isnan(s->idle_w)))
        return usage_error("%s", "--by, --cpus, --idle-power and --device are --opp-table's");
    return TB_EXIT_OK;
}

/* The columns to show, in file order; NULL with a message on error. */
static size_t *chosen_columns(const tb_run *run, const struct settings *s,
                              size_t *count)
{
    size_t ncols = tb_run_ncolumns(run), n = 0;
    char err[TB_ERRMAX];
    size_t *idx = malloc(ncols * sizeof *idx);

    if (!idx) {
        fprintf(stderr, "tb-info: out of memory\n");
        goto fail;
    }
    if (!s->columns) {
        for (size_t i = 0; i < ncols; i++)
            idx[n++] = i;
    } else {
        ssize_t m = tb_run_select_all(run, s->columns, s->ncolumns, idx, err, sizeof err);
        if (m < 0) {
            fprintf(stderr, "tb-info: %s\n", err);
            goto fail;
        }
        n = (size_t)m;
    }
    *count = n;
    return idx;
fail:
    free(idx);
    return NULL;
}

/* Times with fixed decimals so columns line up; values with %g. */
static void print_number(double x, int is_time)
{
    if (isnan(x))
        printf(" %11s", "-");
    else if (is_time)
        printf(" %11.3f", x);
    else
        printf(" %11.6g", x);
}

static void print_text(const tb_run *run, const size_t *idx, size_t n,
                       const tb_column_summary *sum, int first)
{
    size_t wname = strlen("column"), wunit = strlen("unit"), wraw = strlen("raw");

    if (!first)
        putchar('\n');
    printf("file:     %s\n", tb_run_source(run));
    if (tb_run_started(run))
        printf("started:  %s\n", tb_run_started(run));
    if (tb_run_version(run))
        printf("version:  %s\n", tb_run_version(run));
    if (tb_run_command(run))
        printf("command:  %s\n", tb_run_command(run));
    for (size_t i = 0; i < tb_run_nmeta(run); i++) {
        char key[64];
        snprintf(key, sizeof key, "%s:", tb_run_meta_key(run, i));
        tb_print_left(stdout, key, 9);
        printf(" %s\n", tb_run_meta_value(run, i));
    }
    for (size_t i = 0; i < tb_run_ncomments(run); i++)
        printf("comment:  %s\n", tb_run_comment(run, i));
    printf("rows:     %zu\n", tb_run_rows(run));
    printf("columns:  %zu\n\n", tb_run_ncolumns(run));

    for (size_t k = 0; k < n; k++) {
        const tb_column *c = tb_run_column(run, idx[k]);
        if (tb_display_width(c->name) > wname)
            wname = tb_display_width(c->name);
        if (tb_display_width(c->unit) > wunit)
            wunit = tb_display_width(c->unit);
        if (tb_display_width(c->raw_unit) > wraw)
            wraw = tb_display_width(c->raw_unit);
    }
    const char *tunit = tb_run_column(run, 0)->unit;
    char first_h[32], last_h[32], period_h[32];
    snprintf(first_h, sizeof first_h, "first/%s", *tunit ? tunit : "s");
    snprintf(last_h, sizeof last_h, "last/%s", *tunit ? tunit : "s");
    snprintf(period_h, sizeof period_h, "period/%s", *tunit ? tunit : "s");

    printf("%3s  ", "#");
    tb_print_left(stdout, "column", wname + 2);
    tb_print_left(stdout, "unit", wunit + 2);
    tb_print_left(stdout, "raw", wraw);
    printf(" %8s %8s %11s %11s %11s %11s %11s %11s\n", "points", "missing",
           first_h, last_h, "min", "mean", "max", period_h);
    for (size_t k = 0; k < n; k++) {
        const tb_column *c = tb_run_column(run, idx[k]);
        const tb_column_summary *s = &sum[k];
        /* a frequency in MHz or GHz, as a person reads it */
        double f;
        const char *unit = tb_display_unit(c->unit, s->max, &f);
        printf("%3zu  ", idx[k] + 1);
        tb_print_left(stdout, c->name, wname + 2);
        tb_print_left(stdout, *unit ? unit : "-", wunit + 2);
        tb_print_left(stdout, *c->raw_unit ? c->raw_unit : "-", wraw);
        printf(" %8zu %8zu", s->n, s->n_missing);
        int is_time = idx[k] == 0;
        print_number(s->t_first, 1);
        print_number(s->t_last, 1);
        print_number(s->min * f, is_time);
        print_number(s->mean * f, is_time);
        print_number(s->max * f, is_time);
        print_number(s->median_period, 1);
        putchar('\n');
    }
}

static void print_csv(const tb_run *run, const size_t *idx, size_t n,
                      const tb_column_summary *sum, int first)
{
    if (first)
        puts("file,column,name,header,unit,raw_unit,points,missing,"
             "first,last,min,mean,max,median_period");
    for (size_t k = 0; k < n; k++) {
        const tb_column *c = tb_run_column(run, idx[k]);
        const tb_column_summary *s = &sum[k];
        tb_csv_write_string(stdout, tb_run_source(run));
        printf(",%zu,", idx[k] + 1);
        tb_csv_write_string(stdout, c->name);
        putchar(',');
        tb_csv_write_string(stdout, c->header);
        putchar(',');
        tb_csv_write_string(stdout, c->unit);
        putchar(',');
        tb_csv_write_string(stdout, c->raw_unit);
        printf(",%zu,%zu", s->n, s->n_missing);
        const double x[] = {s->t_first, s->t_last, s->min, s->mean, s->max,
                            s->median_period};
        for (size_t j = 0; j < sizeof x / sizeof x[0]; j++) {
            putchar(',');
            tb_csv_number(stdout, x[j]);
        }
        putchar('\n');
    }
}

/* Metadata as an object; a key that repeats gets an array of its values. */
static void print_json_metadata(const tb_run *run)
{
    size_t nmeta = tb_run_nmeta(run);
    int any = 0;

    fputs("\"metadata\": {", stdout);
    for (size_t i = 0; i < nmeta; i++) {
        const char *key = tb_run_meta_key(run, i);
        size_t seen = 0, count = 0;
        for (size_t j = 0; j < nmeta; j++) {
            if (strcmp(tb_run_meta_key(run, j), key) != 0)
                continue;
            if (j < i)
                seen++;
            else
                count++;
        }
        if (seen)
            continue;
        fputs(any++ ? ", " : "", stdout);
        tb_json_string(stdout, key);
        fputs(": ", stdout);
        if (count > 1)
            putchar('[');
        for (size_t j = i, k = 0; j < nmeta; j++) {
            if (strcmp(tb_run_meta_key(run, j), key) == 0) {
                fputs(k++ ? ", " : "", stdout);
                tb_json_string(stdout, tb_run_meta_value(run, j));
            }
        }
        if (count > 1)
            putchar(']');
    }
    fputs("},\n", stdout);
}

static void print_json_strings(const char *key, const tb_run *run,
                               size_t (*count)(const tb_run *),
                               const char *(*item)(const tb_run *, size_t))
{
    printf("  \"%s\": [", key);
    for (size_t i = 0; i < count(run); i++) {
        fputs(i ? ", " : "", stdout);
        tb_json_string(stdout, item(run, i));
    }
    fputs("],\n", stdout);
}

/* A rate with its interval where it has one. */
static void print_rate(const tb_estimate *e)
{
    printf("%.6g", e->value);
    if (isfinite(e->lo) && isfinite(e->hi))
        printf(" [%.6g, %.6g]", e->lo, e->hi);
}

/* --metrics, in words. */
static void print_metrics_text(const tb_run *run, const tb_run_metrics *m)
{
    printf("under its thermal limits, %.1f to %.1f s (each sample held until the next):\n",
           m->from, m->to);
    for (size_t i = 0; i < m->nsensors; i++) {
        const tb_sensor_metrics *s = &m->sensors[i];
        printf("  %s: peak %.2f °C, mean %.2f °C", tb_run_column(run, s->column)->name, s->peak,
               s->mean);
        for (size_t j = 0; j < s->ntrips; j++)
            printf("%s %.1f s above %s %g °C", j ? "," : ";", s->above_s[j], s->trip_type[j],
                   s->trip[j]);
        putchar('\n');
    }
    for (size_t i = 0; i < m->ncooling; i++) {
        const tb_cooling_metrics *c = &m->cooling[i];
        printf("  %s: throttled %.1f %% of the time, mean state %.2f",
               tb_run_column(run, c->column)->name, 100 * c->throttled_share, c->mean_state);
        if (isfinite(c->max_state))
            printf(" of %g", c->max_state);
        putchar('\n');
    }
    for (size_t i = 0; i < m->npower; i++)
        printf("  %s: mean %.4g W, %.4g J\n", tb_run_column(run, m->power[i].column)->name,
               m->power[i].mean_w, m->power[i].energy_j);
    if (isfinite(m->ops.value)) {
        fputs("  work: ", stdout);
        print_rate(&m->ops);
        fputs(" operations/s; over the last third ", stdout);
        print_rate(&m->ops_sustained);
        fputs(" operations/s", stdout);
        if (isfinite(m->ops_per_j))
            printf("; %.4g operations/J", m->ops_per_j);
        putchar('\n');
    }
}

/* --metrics, as the "metrics" member of a run's JSON object. */
static void print_metrics_json(const tb_run *run, const tb_run_metrics *m)
{
    printf(",\n  \"metrics\": {\"from\": ");
    tb_json_number(stdout, m->from);
    tb_json_field(stdout, "to", m->to);
    fputs(",\n   \"sensors\": [", stdout);
    for (size_t i = 0; i < m->nsensors; i++) {
        const tb_sensor_metrics *s = &m->sensors[i];
        fputs(i ? ", {\"column\": " : "{\"column\": ", stdout);
        tb_json_string(stdout, tb_run_column(run, s->column)->name);
        tb_json_field(stdout, "peak", s->peak);
        tb_json_field(stdout, "mean", s->mean);
        fputs(", \"trips\": [", stdout);
        for (size_t j = 0; j < s->ntrips; j++) {
            fputs(j ? ", {\"type\": " : "{\"type\": ", stdout);
            tb_json_string(stdout, s->trip_type[j]);
            tb_json_field(stdout, "temp", s->trip[j]);
            tb_json_field(stdout, "above_s", s->above_s[j]);
            fputc('}', stdout);
        }
        fputs("]}", stdout);
    }
    fputs("],\n   \"cooling\": [", stdout);
    for (size_t i = 0; i < m->ncooling; i++) {
        const tb_cooling_metrics *c = &m->cooling[i];
        fputs(i ? ", {\"column\": " : "{\"column\": ", stdout);
        tb_json_string(stdout, tb_run_column(run, c->column)->name);
        tb_json_field(stdout, "throttled_share", c->throttled_share);
        tb_json_field(stdout, "mean_state", c->mean_state);
        tb_json_field(stdout, "max_state", c->max_state);
        fputc('}', stdout);
    }
    fputs("],\n   \"power\": [", stdout);
    for (size_t i = 0; i < m->npower; i++) {
        fputs(i ? ", {\"column\": " : "{\"column\": ", stdout);
        tb_json_string(stdout, tb_run_column(run, m->power[i].column)->name);
        tb_json_field(stdout, "mean_W", m->power[i].mean_w);
        tb_json_field(stdout, "energy_J", m->power[i].energy_j);
        fputc('}', stdout);
    }
    fputs("],\n   \"ops_per_s\": ", stdout);
    tb_json_estimate(stdout, &m->ops);
    fputs(", \"ops_per_s_sustained\": ", stdout);
    tb_json_estimate(stdout, &m->ops_sustained);
    tb_json_field(stdout, "ops_per_J", m->ops_per_j);
    fputc('}', stdout);
}

static void print_json(const tb_run *run, const size_t *idx, size_t n,
                       const tb_column_summary *sum, int first, const tb_run_metrics *m)
{
    time_t start;

    fputs(first ? "[\n {\n" : ",\n {\n", stdout);
    fputs("  \"file\": ", stdout);
    tb_json_string(stdout, tb_run_source(run));
    fputs(",\n  \"started\": ", stdout);
    tb_json_string(stdout, tb_run_started(run));
    fputs(",\n  \"start_time\": ", stdout);
    if (tb_run_start_time(run, &start) == 0)
        printf("%lld", (long long)start);
    else
        fputs("null", stdout);
    fputs(",\n  \"version\": ", stdout);
    tb_json_string(stdout, tb_run_version(run));
    fputs(",\n  \"command\": ", stdout);
    tb_json_string(stdout, tb_run_command(run));
    fputs(",\n  ", stdout);
    print_json_metadata(run);
    print_json_strings("comments", run, tb_run_ncomments, tb_run_comment);
    print_json_strings("warnings", run, tb_run_nwarnings, tb_run_warning);
    printf("  \"rows\": %zu,\n  \"columns\": [\n", tb_run_rows(run));
    for (size_t k = 0; k < n; k++) {
        const tb_column *c = tb_run_column(run, idx[k]);
        const tb_column_summary *s = &sum[k];
        printf("   {\"index\": %zu, \"name\": ", idx[k] + 1);
        tb_json_string(stdout, c->name);
        fputs(", \"header\": ", stdout);
        tb_json_string(stdout, c->header);
        fputs(", \"unit\": ", stdout);
        tb_json_string(stdout, c->unit);
        fputs(", \"raw_unit\": ", stdout);
        tb_json_string(stdout, c->raw_unit);
        printf(", \"points\": %zu, \"missing\": %zu", s->n, s->n_missing);
        const char *names[] = {"first", "last", "min", "mean", "max",
                               "median_period"};
        const double x[] = {s->t_first, s->t_last, s->min, s->mean, s->max,
                            s->median_period};
        for (size_t j = 0; j < sizeof x / sizeof x[0]; j++) {
            printf(", \"%s\": ", names[j]);
            tb_json_number(stdout, x[j]);
        }
        printf("}%s\n", k + 1 < n ? "," : "");
    }
    fputs("  ]", stdout);
    if (m)
        print_metrics_json(run, m);
    fputs("\n }", stdout);
}

static int show_run(const char *path, const struct settings *s, int first)
{
    char err[TB_ERRMAX];
    tb_run *run = tb_run_read(path, &s->read, err, sizeof err);
    size_t n = 0, *idx;
    tb_column_summary *sum = NULL;
    tb_run_metrics m = {0};
    int status = TB_EXIT_INPUT;

    if (!run) {
        fprintf(stderr, "tb-info: %s\n", err);
        return TB_EXIT_INPUT;
    }
    for (size_t i = 0; i < tb_run_nwarnings(run); i++)
        fprintf(stderr, "tb-info: warning: %s\n", tb_run_warning(run, i));
    if (!(idx = chosen_columns(run, s, &n)))
        goto out;
    status = TB_EXIT_OUTPUT;   /* memory, from here on */
    if (!(sum = malloc((n ? n : 1) * sizeof *sum)))
        goto out;
    for (size_t k = 0; k < n; k++)
        if (tb_column_summarise(tb_run_column(run, idx[k]), &sum[k]) < 0)
            goto out;
    int mrc = s->metrics ? tb_run_metrics_compute(run, -INFINITY, INFINITY, 0.95, NULL, 0, &m, err,
                                                  sizeof err) : 0;
    if (mrc == -1) {
        fprintf(stderr, "tb-info: --metrics: %s\n", err);
        status = TB_EXIT_INPUT;
        goto out;
    }
    if (mrc < 0)
        goto out;   /* out of memory, said below */
    if (s->format == FORMAT_CSV)
        print_csv(run, idx, n, sum, first);
    else if (s->format == FORMAT_JSON)
        print_json(run, idx, n, sum, first, s->metrics ? &m : NULL);
    else {
        print_text(run, idx, n, sum, first);
        if (s->metrics)
            print_metrics_text(run, &m);
    }
    status = TB_EXIT_OK;
out:
    tb_run_metrics_clear(&m);
    if (status == TB_EXIT_OUTPUT)
        fprintf(stderr, "tb-info: %s: out of memory\n", path);
    free(sum);
    free(idx);
    tb_run_free(run);
    return status;
}

/* --opp-table: the runs of PATHS as one table, on standard output. */
static int write_opp_table(const struct settings *s, const struct tb_paths *paths)
{
    char err[TB_ERRMAX];
    tb_run **runs = calloc(paths->n ? paths->n : 1, sizeof *runs);
    tb_opp_table t;
    int status = TB_EXIT_OK;
    if (!runs) {
        fputs("tb-info: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    for (size_t i = 0; i < paths->n && status == TB_EXIT_OK; i++)
        if (!(runs[i] = tb_run_read(paths->v[i], &s->read, err, sizeof err))) {
            fprintf(stderr, "tb-info: %s\n", err);
            status = TB_EXIT_INPUT;
        }
    if (status == TB_EXIT_OK) {
        if (tb_opp_table_from_runs((const tb_run *const *)runs, paths->n, s->by ? s->by : "freq",
                                   s->device ? s->device : "cpu", s->cpus, s->idle_w, 0.95, &t, err,
                                   sizeof err) < 0) {
            fprintf(stderr, "tb-info: --opp-table: %s\n", err);
            status = TB_EXIT_INPUT;
        } else {
            tb_opp_table_write_header(stdout);
            tb_opp_table_write(stdout, &t);
            tb_opp_table_clear(&t);
        }
    }
    for (size_t i = 0; i < paths->n; i++)
        tb_run_free(runs[i]);
    free(runs);
    return status;
}

int main(int argc, char **argv)
{
    struct settings s = {.format = FORMAT_TEXT, .read = tb_read_default_options(), .idle_w = NAN};
    int status = parse_arguments(argc, argv, &s);
    int shown = 0;

    if (status != TB_EXIT_OK)
        return status;
    /* a directory is its runs, as tb-fit takes it */
    struct tb_paths paths = {0};
    for (int i = optind; i < argc; i++)
        if (tb_paths_add(&paths, argv[i], "tb-info") < 0)
            status = TB_EXIT_INPUT;
    if (paths.n == 0 && status == TB_EXIT_OK) {
        fprintf(stderr, "tb-info: no run found in the inputs given\n");
        status = TB_EXIT_INPUT;
    }
    if (s.opp_table && status == TB_EXIT_OK)
        status = write_opp_table(&s, &paths);
    for (size_t i = 0; i < paths.n && !s.opp_table; i++) {
        int rc = show_run(paths.v[i], &s, shown == 0);
        if (rc == TB_EXIT_OK)
            shown++;
        else
            status = rc;
    }
    tb_paths_free(&paths);
    if (s.format == FORMAT_JSON)
        fputs(shown ? "\n]\n" : "[]\n", stdout);
    free(s.columns);
    return tb_cli_stdout_status("tb-info", status);
}
