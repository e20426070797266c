/*
 * tb-ident -- identify a thermal model from the inputs (power, or loads
 * as its proxies) to the sensors of recorded runs: shared time constants,
 * non-negative gains in K/W with intervals, state-space matrices; and
 * check it on runs it was not fitted to.  The work is libtbfit's
 * (tb_ident_fit, tb_ident_predict); this file parses, reads and prints.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exit_status.h"
#include "output.h"
#include "output_file.h"
#include "paths.h"
#include "tbfit.h"

enum format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

struct settings {
    const char **inputs, **sensors, **validate, **averaged;
    size_t ninputs, nsensors, nvalidate, naveraged;
    const char *ambient, *output, *model;
    double from, to, dt;
    tb_ident_options opt;
    enum format format;
    int strict;
};

static const char usage_text[] =
    "Usage: tb-ident [OPTION]... RUN.csv|DIR...\n"
    "Identify a thermal model from the inputs (power columns, or loads as\n"
    "their proxies) to the sensors of recorded runs: every sensor follows\n"
    "T = T_ambient + rest + sum of gain x (the input through a mode), the\n"
    "modes' time constants shared by all, the gains non-negative.  Reports\n"
    "the steady-state gain matrix (K/W) and the time constants with\n"
    "intervals, each sensor's rmse, and the state-space matrices; checks the\n"
    "model on held-out runs.  Directories are searched for *.csv.\n"
    "\n"
    "Columns:\n"
    "  -i, --input=COLUMN     an input: a power (W) or a load (util, %); may be\n"
    "                         repeated; at least one\n"
    "  -s, --sensor=COLUMN    a sensor: header, name, glob or number; may be\n"
    "                         repeated (default: every °C column but the\n"
    "                         ambient one and constant ones)\n"
    "      --averaged=COLUMN  an input whose value at a row is its mean over the\n"
    "                         interval before the row (a power tb-record derives\n"
    "                         from an energy counter), not a level set at the\n"
    "                         row; may be repeated\n"
    "  -a, --ambient=COLUMN   the ambient thermometer, taken off every sensor\n"
    "      --from=TIME        use each run from this time (90, 90s, 5min)\n"
    "      --to=TIME          use each run up to this time\n"
    "\n"
    "Model:\n"
    "  -m, --modes=N|auto     modes shared by every sensor and input, 1 to 4;\n"
    "                         auto (default): 1 to --max-modes, chosen by how\n"
    "                         well each run is predicted by the model of the\n"
    "                         others (one run: by AICc)\n"
    "      --max-modes=N      the most auto tries (default 3)\n"
    "      --tau-min=TIME     shortest τ searched (default: 2 sampling periods)\n"
    "      --tau-max=TIME     longest τ searched (default: 3x the longest run)\n"
    "      --level=P          confidence level of the intervals (default 0.95)\n"
    "      --model=FILE       use this model (tb-ident -o) instead of\n"
    "                         identifying one: with --validate\n"
    "\n"
    "Checks and output:\n"
    "      --validate=RUN     predict RUN (not fitted) from its inputs; report\n"
    "                         each sensor's rmse and worst error; may be\n"
    "                         repeated\n"
    "  -o, --output=FILE      write the model file (for tb-sim --model)\n"
    "  -f, --format=FORMAT    text (default), csv or json (json adds the\n"
    "                         continuous and discrete state space)\n"
    "      --dt=TIME          sample time of the discrete state space\n"
    "                         (default: the runs' median period)\n"
    "      --strict           a flagged model is an error (exit 1)\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 a held-out run is predicted far worse than the\n"
    "fit (or the model is flagged, with --strict), 2 usage or input error, 3\n"
    "output error or out of memory.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-ident", fmt, arg);
}

/* Append each of ARG's comma-separated names to *V. */
static int push_list(const char ***v, size_t *n, char *arg)
{
    for (char *save = NULL, *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (tb_cli_push(v, n, tok) < 0)
            return -1;
    return 0;
}

enum { O_FROM = 256, O_TO, O_MAX_MODES, O_TAU_MIN, O_TAU_MAX, O_LEVEL, O_MODEL, O_VALIDATE,
       O_DT, O_STRICT, O_AVERAGED };
static const struct option ident_options[] = {
    {"input", required_argument, NULL, 'i'}, {"sensor", required_argument, NULL, 's'},
    {"ambient", required_argument, NULL, 'a'}, {"from", required_argument, NULL, O_FROM},
    {"averaged", required_argument, NULL, O_AVERAGED},
    {"to", required_argument, NULL, O_TO}, {"modes", required_argument, NULL, 'm'},
    {"max-modes", required_argument, NULL, O_MAX_MODES},
    {"tau-min", required_argument, NULL, O_TAU_MIN},
    {"tau-max", required_argument, NULL, O_TAU_MAX},
    {"level", required_argument, NULL, O_LEVEL}, {"model", required_argument, NULL, O_MODEL},
    {"validate", required_argument, NULL, O_VALIDATE},
    {"output", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'f'},
    {"dt", required_argument, NULL, O_DT}, {"strict", no_argument, NULL, O_STRICT},
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* The model's options: its modes, τ range, level, and the state space's dt. */
static int model_option(int c, const char *arg, struct settings *s)
{
    double x;
    switch (c) {
    case 'm':
        if (strcmp(arg, "auto") == 0)
            s->opt.modes = 0;
        else if (tb_cli_number(arg, &x) < 0 || x != floor(x) || x < 1 || x > TB_IDENT_MAX_MODES)
            return usage_error("--modes wants 1 to 4 or auto, not '%s'", arg);
        else
            s->opt.modes = (int)x;
        break;
    case O_MAX_MODES:
        if (tb_cli_number(arg, &x) < 0 || x != floor(x) || x < 1 || x > TB_IDENT_MAX_MODES)
            return usage_error("--max-modes wants 1 to 4, not '%s'", arg);
        s->opt.max_modes = (int)x;
        break;
    case O_TAU_MIN:
    case O_TAU_MAX:
    case O_DT: {
        double *dst = c == O_TAU_MIN ? &s->opt.tau_min : c == O_TAU_MAX ? &s->opt.tau_max : &s->dt;
        if (tb_parse_duration(arg, dst) < 0 || !(*dst > 0))
            return usage_error("--tau-min, --tau-max and --dt want a positive time, not '%s'", arg);
        break;
    }
    case O_LEVEL:
        if (tb_cli_number(arg, &s->opt.level) < 0 || !(s->opt.level > 0 && s->opt.level < 1))
            return usage_error("--level wants a probability between 0 and 1, not '%s'", arg);
        break;
    }
    return -1;
}

/* -i, -s, --averaged (comma-separated names) and --validate: lists. */
static int list_option(int c, char *arg, struct settings *s)
{
    int rc = c == O_VALIDATE ? tb_cli_push(&s->validate, &s->nvalidate, arg)
             : c == 'i'      ? push_list(&s->inputs, &s->ninputs, arg)
             : c == 's'      ? push_list(&s->sensors, &s->nsensors, arg)
                             : push_list(&s->averaged, &s->naveraged, arg);
    if (rc < 0) {
        fputs("tb-ident: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    return -1;
}

/* Once all are read: what goes together. */
static int check_settings(int argc, char **argv, const struct settings *s)
{
    if (s->to > 0 && !(s->to > s->from))
        return usage_error("%s", "--to must come after --from");
    if (s->opt.tau_min > 0 && s->opt.tau_max > 0 && !(s->opt.tau_max > s->opt.tau_min))
        return usage_error("%s", "--tau-max must be above --tau-min");
    if (s->model) {
        if (s->ninputs || s->nsensors || s->naveraged)
            return usage_error("%s", "--model names its inputs, how they are timed, and its "
                               "sensors: no -i, -s or --averaged with it");
        if (!s->nvalidate)
            return usage_error("%s", "--model wants --validate RUN: the runs to predict");
        if (optind < argc)
            return usage_error("--model takes no runs to fit, only --validate: '%s'",
                               argv[optind]);
        return -1;
    }
    if (!s->ninputs)
        return usage_error("%s", "name the inputs: -i COLUMN (a power or load column)");
    if (optind == argc)
        return usage_error("%s", "no run given");
    return -1;
}

static int parse_arguments(int argc, char **argv, struct settings *s)
{
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":i:s:a:m:o:f:hV", ident_options, NULL)) != -1) {
        rc = -1;
        switch (c) {
        case 'i': case 's': case O_AVERAGED: case O_VALIDATE:
            rc = list_option(c, optarg, s);
            break;
        case 'm': case O_MAX_MODES: case O_TAU_MIN: case O_TAU_MAX: case O_DT: case O_LEVEL:
            rc = model_option(c, optarg, s);
            break;
        case 'a': s->ambient = optarg; break;
        case O_FROM:
        case O_TO:
            if (tb_parse_duration(optarg, c == O_FROM ? &s->from : &s->to) < 0)
                return usage_error("--from and --to want a time such as 90, 90s or 5min, not '%s'",
                                   optarg);
            break;
        case O_MODEL: s->model = optarg; break;
        case 'o': s->output = optarg; break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                s->format = FORMAT_TEXT;
            else if (strcmp(optarg, "csv") == 0)
                s->format = FORMAT_CSV;
            else if (strcmp(optarg, "json") == 0)
                s->format = FORMAT_JSON;
            else
                return usage_error("--format wants text, csv or json, not '%s'", optarg);
            break;
        case O_STRICT: s->strict = 1; break;
        case 'h':
            fputs(usage_text, stdout);
            exit(TB_EXIT_OK);
        case 'V':
            puts("tb-ident (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(TB_EXIT_OK);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return tb_cli_unknown_option("tb-ident", argv[optind - 1], ident_options);
        }
        if (rc >= 0)
            return rc;
    }
    return check_settings(argc, argv, s);
}

/* --- the runs --------------------------------------------------------------------- */

struct runs {
    tb_run **run;
    tb_ident_run *data;
    size_t n;
};

static void runs_free(struct runs *r)
{
    for (size_t k = 0; k < r->n; k++) {
        tb_ident_run_clear(&r->data[k]);
        tb_run_free(r->run[k]);
    }
    free(r->run);
    free(r->data);
    memset(r, 0, sizeof *r);
}

/* Read the N PATHS (each once: "-" is standard input).  0, or an exit
 * status. */
static int read_runs(char *const *paths, size_t n, struct runs *r)
{
    char err[TB_ERRMAX];
    r->run = calloc(n, sizeof *r->run);
    r->data = calloc(n, sizeof *r->data);
    if (!r->run || !r->data) {
        fputs("tb-ident: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    for (size_t k = 0; k < n; k++) {
        r->n = k + 1;
        if (!(r->run[k] = tb_run_read(paths[k], NULL, err, sizeof err))) {
            fprintf(stderr, "tb-ident: %s\n", err);
            return TB_EXIT_INPUT;
        }
    }
    return 0;
}

/* The runs' rows of the named columns.  0, or an exit status. */
static int extract_runs(struct runs *r, const struct settings *s, const char *const *inputs,
                        size_t ninputs, const char *const *sensors, size_t nsensors,
                        unsigned averaged)
{
    char err[TB_ERRMAX];
    for (size_t k = 0; k < r->n; k++)
        if (tb_ident_run_extract(r->run[k], inputs, ninputs, sensors, nsensors, s->ambient,
                                 averaged, s->from, s->to > 0 ? s->to : INFINITY, &r->data[k],
                                 err, sizeof err) < 0) {
            fprintf(stderr, "tb-ident: %s\n", err);
            return TB_EXIT_INPUT;
        }
    return 0;
}

/* Append a copy of S to *V: the names outlive the run they come from. */
static int push_copy(const char ***v, size_t *n, const char *s)
{
    char *c = strdup(s);
    if (!c || tb_cli_push(v, n, c) < 0) {
        free(c);
        return -1;
    }
    return 0;
}

static void free_names(const char **v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        free((char *)v[k]);
    free(v);
}

/* The sensors of the first run when -s named none: its default columns
 * (°C, not constant, not the ambient) that are not inputs; their names
 * into *NAMES.  0, or an exit status. */
static int default_sensors(const tb_run *run, const struct settings *s, const char ***names,
                           size_t *n)
{
    char err[TB_ERRMAX];
    size_t *idx = malloc(tb_run_ncolumns(run) * sizeof *idx), amb[1];
    ssize_t a = -1;
    if (!idx)
        return TB_EXIT_OUTPUT;
    if (s->ambient) {
        if (tb_run_select(run, s->ambient, amb, 1, err, sizeof err) < 0) {
            fprintf(stderr, "tb-ident: --ambient: %s\n", err);
            free(idx);
            return TB_EXIT_INPUT;
        }
        a = (ssize_t)amb[0];
    }
    size_t k = tb_default_columns(run, a, idx, NULL, NULL);
    for (size_t j = 0; j < k; j++) {
        const char *name = tb_run_column(run, idx[j])->name;
        int input = 0;
        for (size_t i = 0; i < s->ninputs; i++)
            input |= strcmp(s->inputs[i], name) == 0 ||
                     strcmp(s->inputs[i], tb_run_column(run, idx[j])->header) == 0;
        if (!input && push_copy(names, n, name) < 0) {
            free(idx);
            return TB_EXIT_OUTPUT;
        }
    }
    free(idx);
    if (*n == 0) {
        fprintf(stderr, "tb-ident: %s: no temperature column to identify; name sensors with -s\n",
                tb_run_source(run));
        return TB_EXIT_INPUT;
    }
    return 0;
}

/* The column names (without unit) that SPECS name in RUN, one each, for
 * the model's names.  0, or an exit status. */
static int column_names(const tb_run *run, const char *const *specs, size_t n, const char *role,
                        const char ***names, size_t *nnames)
{
    char err[TB_ERRMAX];
    for (size_t k = 0; k < n; k++) {
        size_t idx[TB_IDENT_MAX_SENSORS + 1];
        ssize_t m = tb_run_select(run, specs[k], idx, TB_IDENT_MAX_SENSORS + 1, err, sizeof err);
        if (m < 0) {
            fprintf(stderr, "tb-ident: %s %s: %s\n", role, specs[k], err);
            return TB_EXIT_INPUT;
        }
        /* a glob names several: each is one */
        for (ssize_t j = 0; j < m && j <= TB_IDENT_MAX_SENSORS; j++)
            if (push_copy(names, nnames, tb_run_column(run, idx[j])->name) < 0)
                return TB_EXIT_OUTPUT;
    }
    return 0;
}

/* The inputs that --averaged names (in RUN) as a mask over INPUTS into
 * *MASK.  0, or an exit status, said. */
static int averaged_inputs(const tb_run *run, const struct settings *s, const char *const *inputs,
                           size_t ninputs, unsigned *mask)
{
    const char **names = NULL;
    size_t n = 0;
    int st = column_names(run, s->averaged, s->naveraged, "--averaged", &names, &n);
    *mask = 0;
    for (size_t k = 0; !st && k < n; k++) {
        size_t u = 0;
        while (u < ninputs && strcmp(inputs[u], names[k]) != 0)
            u++;
        if (u == ninputs) {
            fprintf(stderr, "tb-ident: --averaged %s: not one of the inputs (-i)\n", names[k]);
            st = TB_EXIT_INPUT;
        } else {
            *mask |= 1u << u;
        }
    }
    free_names(names, n);
    return st;
}

/* The median sampling period over the runs, for the discrete model. */
static double median_period(const struct runs *r)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < r->n; i++)
        total += r->data[i].n;
    double *dt = malloc(total * sizeof *dt), med = 1;
    if (!dt)
        return med;
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 1; j < r->data[i].n; j++)
            dt[k++] = r->data[i].t[j] - r->data[i].t[j - 1];
    if (k)
        med = gsl_stats_median(dt, 1, k);
    free(dt);
    return med > 0 ? med : 1;
}

/* --- validation -------------------------------------------------------------------- */

struct check {
    const char *run;
    double rmse[TB_IDENT_MAX_SENSORS], worst[TB_IDENT_MAX_SENSORS];
};

/* Predict each held-out run; the worst ratio of held-out to fitted rmse
 * into *RATIO.  0, or an exit status. */
static int validate(const tb_ident_model *m, const struct runs *v, struct check *c,
                    double *ratio)
{
    char err[TB_ERRMAX];
    *ratio = 0;
    for (size_t k = 0; k < v->n; k++) {
        c[k].run = v->data[k].name;
        if (tb_ident_predict(m, &v->data[k], NULL, c[k].rmse, c[k].worst, err, sizeof err) < 0) {
            fprintf(stderr, "tb-ident: --validate: %s\n", err);
            return TB_EXIT_INPUT;
        }
        for (size_t i = 0; i < m->nsensors; i++)
            if (isfinite(m->rmse[i]) && m->rmse[i] > 0)
                *ratio = fmax(*ratio, c[k].rmse[i] / m->rmse[i]);
    }
    return 0;
}

/* --- reports --------------------------------------------------------------------------- */

static void print_estimate(const tb_estimate *e, const char *unit, int width)
{
    tb_estimate_text t;
    int d = tb_interval_decimals(e->value, e->lo, e->hi, 3);
    char buf[160];
    if (tb_format_estimate(&t, e->value, e->lo, e->hi, d, 0))
        snprintf(buf, sizeof buf, "%s [%s, %s]%s", t.value, t.lo, t.hi, unit);
    else if (e->value == 0)
        snprintf(buf, sizeof buf, "0 (at the bound)%s", unit);
    else
        snprintf(buf, sizeof buf, "%s%s", t.value, unit);
    tb_print_left(stdout, buf, (size_t)width);
}

static const char *choice_text(const tb_ident_model *m)
{
    switch (m->choice) {
    case TB_IDENT_HELD_OUT: return "chosen on held-out runs";
    case TB_IDENT_AICC: return "chosen by AICc (one run: no held-out check)";
    default: return "as given";
    }
}

/* The text report's first lines: what was fitted (FITTED) or read, how
 * the modes were chosen, the averaged inputs. */
static void text_header(const tb_ident_model *m, int fitted)
{
    size_t nu = m->ninputs, ns = m->nsensors, nm = m->nmodes;
    if (fitted) {
        printf("%zu run%s, %zu input%s, %zu sensor%s, %zu values\n", m->nruns,
               m->nruns == 1 ? "" : "s", nu, nu == 1 ? "" : "s", ns, ns == 1 ? "" : "s",
               m->npoints);
        printf("modes: %zu, %s", nm, choice_text(m));
        if (m->choice != TB_IDENT_GIVEN) {
            printf(" (%s:", m->choice == TB_IDENT_HELD_OUT ? "held-out rmse" : "AICc");
            for (int j = 0; j < m->tried; j++) {
                double v = m->choice == TB_IDENT_HELD_OUT ? m->held_out[j] : m->aicc[j];
                if (isfinite(v))
                    printf(" %d: %.4g%s", j + 1, v, m->choice == TB_IDENT_HELD_OUT ? " °C" : "");
            }
            putchar(')');
        }
        putchar('\n');
    } else {
        printf("model: %zu input%s, %zu sensor%s, %zu mode%s\n", nu, nu == 1 ? "" : "s", ns,
               ns == 1 ? "" : "s", nm, nm == 1 ? "" : "s");
    }
    if (m->averaged) {
        printf("averaged inputs (each row's value over the interval before it):");
        for (size_t u = 0; u < nu; u++)
            if ((m->averaged >> u) & 1)
                printf(" %s", m->inputs[u]);
        putchar('\n');
    }
}

/* Each flag, in words; for lack of fit, the sensors and what their
 * residuals suggest. */
static void text_flags(const tb_ident_model *m)
{
    size_t ns = m->nsensors;
    printf("\nflags:\n");
    for (unsigned f = 1; f <= TB_IDENT_FLAG_LAST; f <<= 1) {
        if (!(m->flags & f))
            continue;
        printf("  %s: %s", tb_ident_flag_name(f), tb_ident_flag_meaning(f));
        for (size_t i = 0, n = 0; f == TB_IDENT_LACK_OF_FIT && i < ns; i++)
            if (m->lack_of_fit[i])
                printf("%s%s", n++ ? ", " : "; in ", m->sensors[i]);
        putchar('\n');
        /* a sensor that lags the model, by how much */
        for (size_t i = 0; f == TB_IDENT_LACK_OF_FIT && i < ns; i++)
            /* beyond twice its interval's half-width: the lag test's
             * own four errors, not a lag any fit shows a little of */
            if (m->lack_of_fit[i] && m->lag[i].lo > 0 &&
                m->lag[i].value > 2 * (m->lag[i].value - m->lag[i].lo))
                printf("    %s lags the model by %.2f [%.2f, %.2f] s: a slow or filtered "
                       "sensor (or a delay the model has not)?\n", m->sensors[i],
                       m->lag[i].value, m->lag[i].lo, m->lag[i].hi);
        for (size_t i = 0; f == TB_IDENT_LACK_OF_FIT && i < ns; i++)
            if (m->lack_of_fit[i] && fabs(m->curvature_t[i]) > 4)
                printf("    %s rises %s than linearly with its inputs (t = %.1f): a leakage "
                       "power that grows with temperature, or a heat path that changes?\n",
                       m->sensors[i], m->curvature_t[i] > 0 ? "faster" : "slower",
                       m->curvature_t[i]);
    }
}

/* Each held-out run's rmse and worst error, sensor by sensor (names W
 * wide), beside the fit's. */
static void text_validation(const tb_ident_model *m, const struct check *c, size_t nc, size_t w)
{
    size_t ns = m->nsensors;
    printf("\nvalidation (predicted from the inputs; the offset and initial state fitted):\n");
    for (size_t k = 0; k < nc; k++)
        for (size_t i = 0; i < ns; i++) {
            printf("  %s  ", c[k].run);
            tb_print_left(stdout, m->sensors[i], w);
            printf("  rmse %.4f °C", c[k].rmse[i]);
            if (isfinite(m->rmse[i]) && m->rmse[i] > 0)
                printf(" (fit %.4f, %.2fx)", m->rmse[i], c[k].rmse[i] / m->rmse[i]);
            printf("  worst %.3f °C\n", c[k].worst[i]);
        }
}

static void print_text(const tb_ident_model *m, const struct check *c, size_t nc, double dt,
                       int fitted)
{
    size_t nu = m->ninputs, ns = m->nsensors, nm = m->nmodes;
    int pct = (int)lround(m->level * 100);
    text_header(m, fitted);
    printf("\ntime constants (%d %%):\n", pct);
    for (size_t j = 0; j < nm; j++) {
        printf("  τ%zu  ", j + 1);
        print_estimate(&m->tau[j], " s", 0);
        putchar('\n');
    }
    size_t w = 12;
    for (size_t i = 0; i < ns; i++)
        w = w > tb_display_width(m->sensors[i]) ? w : tb_display_width(m->sensors[i]);
    printf("\nsteady-state gains, K per unit of input (%d %%):\n  ", pct);
    tb_print_left(stdout, "sensor", w);
    for (size_t u = 0; u < nu; u++) {
        printf("  ");
        tb_print_left(stdout, m->inputs[u], 26);
    }
    printf("  rest °C%s   rmse °C\n", m->above_ambient ? " (+ambient)" : "");
    for (size_t i = 0; i < ns; i++) {
        printf("  ");
        tb_print_left(stdout, m->sensors[i], w);
        for (size_t u = 0; u < nu; u++) {
            printf("  ");
            print_estimate(&m->steady[i * nu + u], "", 26);
        }
        printf("  %7.3f%s   %7.4f\n", m->rest[i], m->above_ambient ? "           " : "",
               m->rmse[i]);
    }
    if (nm > 1) {
        printf("\ngains by mode (K per unit of input):\n");
        for (size_t i = 0; i < ns; i++)
            for (size_t u = 0; u < nu; u++) {
                printf("  ");
                tb_print_left(stdout, m->sensors[i], w);
                printf("  ");
                tb_print_left(stdout, m->inputs[u], 12);
                for (size_t j = 0; j < nm; j++) {
                    printf("  τ%zu ", j + 1);
                    print_estimate(&m->gain[(i * nu + u) * nm + j], "", j + 1 < nm ? 24 : 0);
                }
                putchar('\n');
            }
    }
    if (m->flags)
        text_flags(m);
    if (nc)
        text_validation(m, c, nc, w);
    printf("\nstate space: one state per input and mode; --format json gives A, B, C, D and "
           "their discrete form at dt = %g s\n", dt);
}

/* One row of the CSV report: QUANTITY, SENSOR and INPUT (NULL: empty),
 * MODE (0: none), the estimate E (or a value alone) and UNIT. */
static void csv_row(const char *quantity, const char *sensor, const char *input, size_t mode,
                    double value, double lo, double hi, const char *unit)
{
    printf("%s,", quantity);
    if (sensor)
        tb_csv_write_string(stdout, sensor);
    putchar(',');
    if (input)
        tb_csv_write_string(stdout, input);
    putchar(',');
    if (mode)
        printf("%zu", mode);
    putchar(',');
    tb_csv_number(stdout, value);
    putchar(',');
    tb_csv_number(stdout, lo);
    putchar(',');
    tb_csv_number(stdout, hi);
    printf(",%s\n", unit);
}

static void print_csv(const tb_ident_model *m, const struct check *c, size_t nc)
{
    size_t nu = m->ninputs, ns = m->nsensors, nm = m->nmodes;
    puts("quantity,sensor,input,mode,value,lo,hi,unit");
    for (size_t j = 0; j < nm; j++)
        csv_row("tau", NULL, NULL, j + 1, m->tau[j].value, m->tau[j].lo, m->tau[j].hi, "s");
    for (size_t i = 0; i < ns; i++) {
        const char *name = m->sensors[i];
        for (size_t u = 0; u < nu; u++) {
            for (size_t j = 0; j < nm; j++) {
                const tb_estimate *e = &m->gain[(i * nu + u) * nm + j];
                csv_row("gain", name, m->inputs[u], j + 1, e->value, e->lo, e->hi, "K/unit");
            }
            const tb_estimate *e = &m->steady[i * nu + u];
            csv_row("steady_gain", name, m->inputs[u], 0, e->value, e->lo, e->hi, "K/unit");
        }
        csv_row("rest", name, NULL, 0, m->rest[i], NAN, NAN,
                m->above_ambient ? "°C above ambient" : "°C");
        csv_row("rmse", name, NULL, 0, m->rmse[i], NAN, NAN, "°C");
        for (size_t k = 0; k < nc; k++) {
            csv_row("validation_rmse", name, c[k].run, 0, c[k].rmse[i], NAN, NAN, "°C");
            csv_row("validation_worst", name, c[k].run, 0, c[k].worst[i], NAN, NAN, "°C");
        }
    }
    for (unsigned f = 1; f <= TB_IDENT_FLAG_LAST; f <<= 1)
        if (m->flags & f)
            printf("flag,,,,%s,,,\n", tb_ident_flag_name(f));
    for (size_t i = 0; i < ns; i++)
        if (m->lack_of_fit[i]) {
            printf("flag,");
            tb_csv_write_string(stdout, m->sensors[i]);
            printf(",,,%s,,,\n", tb_ident_flag_name(TB_IDENT_LACK_OF_FIT));
        }
}

static void json_matrix(const char *name, const double *a, size_t rows, size_t cols)
{
    printf("    \"%s\": [", name);
    for (size_t r = 0; r < rows; r++) {
        printf("%s[", r ? ", " : "");
        for (size_t c = 0; c < cols; c++) {
            if (c)
                printf(", ");
            tb_json_number(stdout, a[r * cols + c]);
        }
        putchar(']');
    }
    printf("]");
}

/* N numbers as a JSON array. */
static void json_numbers(const double *v, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        printf(i ? ", " : "");
        tb_json_number(stdout, v[i]);
    }
    putchar(']');
}

/* N estimates as a JSON array. */
static void json_estimates(const tb_estimate *e, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        printf(i ? ", " : "");
        tb_json_estimate(stdout, &e[i]);
    }
    putchar(']');
}

/* N names as a JSON array. */
static void json_names(char *const *v, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        printf(i ? ", " : "");
        tb_json_string(stdout, v[i]);
    }
    putchar(']');
}

/* The model's continuous and discrete (at dt) state space. */
struct state_space {
    double *A, *B, *C, *D, *Phi, *Gam;
    size_t nx, nu, ns;
    double dt;
};

static void state_space_free(struct state_space *ss)
{
    free(ss->A), free(ss->B), free(ss->C), free(ss->D), free(ss->Phi), free(ss->Gam);
}

/* 0, or -1 when memory runs out. */
static int state_space_make(const tb_ident_model *m, double dt, struct state_space *ss)
{
    size_t nu = m->ninputs, ns = m->nsensors, nx = nu * m->nmodes;
    *ss = (struct state_space){.nx = nx, .nu = nu, .ns = ns, .dt = dt};
    ss->A = malloc(nx * nx * sizeof *ss->A);
    ss->B = malloc(nx * nu * sizeof *ss->B);
    ss->C = malloc(ns * nx * sizeof *ss->C);
    ss->D = malloc(ns * nu * sizeof *ss->D);
    ss->Phi = malloc(nx * nx * sizeof *ss->Phi);
    ss->Gam = malloc(nx * nu * sizeof *ss->Gam);
    if (!ss->A || !ss->B || !ss->C || !ss->D || !ss->Phi || !ss->Gam) {
        state_space_free(ss);
        return -1;
    }
    tb_ident_state_space(m, dt, ss->A, ss->B, ss->C, ss->D, ss->Phi, ss->Gam);
    return 0;
}

static void json_state_space(const struct state_space *ss)
{
    printf("  \"state_space\": {\n    \"note\": \"x' = A x + B u, y = C x + D u + rest "
           "(+ ambient); state u*modes + j is input u through mode j\",\n");
    json_matrix("A", ss->A, ss->nx, ss->nx);
    printf(",\n");
    json_matrix("B", ss->B, ss->nx, ss->nu);
    printf(",\n");
    json_matrix("C", ss->C, ss->ns, ss->nx);
    printf(",\n");
    json_matrix("D", ss->D, ss->ns, ss->nu);
    printf(",\n    \"dt\": %.17g,\n", ss->dt);
    json_matrix("Phi", ss->Phi, ss->nx, ss->nx);
    printf(",\n");
    json_matrix("Gamma", ss->Gam, ss->nx, ss->nu);
    printf("\n  }");
}

/* The gains by sensor, input and mode, as nested arrays. */
static void json_gains(const tb_ident_model *m)
{
    size_t nu = m->ninputs, ns = m->nsensors, nm = m->nmodes;
    printf("  \"steady_gain\": [");
    for (size_t i = 0; i < ns; i++) {
        printf(i ? ", " : "");
        json_estimates(&m->steady[i * nu], nu);
    }
    printf("],\n  \"gain\": [");
    for (size_t i = 0; i < ns; i++) {
        printf("%s[", i ? ", " : "");
        for (size_t u = 0; u < nu; u++) {
            printf(u ? ", " : "");
            json_estimates(&m->gain[(i * nu + u) * nm], nm);
        }
        putchar(']');
    }
    printf("],\n");
}

/* The lack-of-fit diagnostics and each held-out run's check. */
static void json_checks(const tb_ident_model *m, const struct check *c, size_t nc)
{
    size_t ns = m->nsensors;
    printf("  \"flags\": [");
    int first = 1;
    for (unsigned f = 1; f <= TB_IDENT_FLAG_LAST; f <<= 1)
        if (m->flags & f) {
            printf("%s\"%s\"", first ? "" : ", ", tb_ident_flag_name(f));
            first = 0;
        }
    printf("],\n  \"lag_s\": ");
    json_estimates(m->lag, ns);
    printf(",\n  \"curvature_t\": ");
    json_numbers(m->curvature_t, ns);
    printf(",\n  \"lack_of_fit\": [");
    for (size_t i = 0; i < ns; i++)
        printf("%s%s", i ? ", " : "", m->lack_of_fit[i] ? "true" : "false");
    printf("],\n  \"validation\": [");
    for (size_t k = 0; k < nc; k++) {
        printf("%s{\"run\": ", k ? ", " : "");
        tb_json_string(stdout, c[k].run);
        printf(", \"rmse_C\": ");
        json_numbers(c[k].rmse, ns);
        printf(", \"worst_C\": ");
        json_numbers(c[k].worst, ns);
        printf("}");
    }
    printf("],\n");
}

static int print_json(const tb_ident_model *m, const struct check *c, size_t nc, double dt)
{
    size_t nu = m->ninputs, ns = m->nsensors;
    struct state_space ss;
    if (state_space_make(m, dt, &ss) < 0)
        return -1;
    printf("{\n  \"inputs\": ");
    json_names(m->inputs, nu);
    printf(",\n  \"sensors\": ");
    json_names(m->sensors, ns);
    printf(",\n  \"modes\": %zu,\n  \"level\": %g,\n  \"choice\": \"%s\",\n  \"tau_s\": ", m->nmodes,
           m->level, m->choice == TB_IDENT_HELD_OUT ? "held_out"
                     : m->choice == TB_IDENT_AICC ? "aicc" : "given");
    json_estimates(m->tau, m->nmodes);
    printf(",\n");
    json_gains(m);
    printf("  \"rest_C\": ");
    json_numbers(m->rest, ns);
    printf(",\n  \"input_averaged\": [");
    for (size_t u = 0; u < nu; u++)
        printf("%s%s", u ? ", " : "", (m->averaged >> u) & 1 ? "true" : "false");
    printf("],\n  \"above_ambient\": %s,\n  \"rmse_C\": ", m->above_ambient ? "true" : "false");
    json_numbers(m->rmse, ns);
    printf(",\n");
    json_checks(m, c, nc);
    json_state_space(&ss);
    printf("\n}\n");
    state_space_free(&ss);
    return 0;
}

static int write_model(const char *path, const tb_ident_model *m)
{
    struct tb_output_file out = {0};
    char err[TB_ERRMAX];
    if (tb_output_open(&out, path, err, sizeof err) < 0 || tb_ident_model_write(out.f, m) < 0 ||
        tb_output_commit(&out, err, sizeof err) < 0) {
        tb_output_abort(&out);
        fprintf(stderr, "tb-ident: %s\n", err);
        return TB_EXIT_OUTPUT;
    }
    return 0;
}

/* The inputs' and sensors' names of a model identified here. */
struct names {
    const char **inputs, **sensors;
    size_t ninputs, nsensors;
};

/* The model of the runs FIT read from PATHS, into M, with the names it
 * uses into N.  0, or the exit status (said). */
static int identify(struct settings *s, const struct tb_paths *paths, struct runs *fit,
                    struct names *n, tb_ident_model *m)
{
    char err[TB_ERRMAX];
    int st;
    if (paths->n == 0) {
        fputs("tb-ident: no run found\n", stderr);
        return TB_EXIT_INPUT;
    }
    /* the names from the first run: the model's, and every run's */
    if ((st = read_runs(paths->v, paths->n, fit)) != 0)
        return st;
    st = column_names(fit->run[0], s->inputs, s->ninputs, "--input", &n->inputs, &n->ninputs);
    if (!st)
        st = s->nsensors ? column_names(fit->run[0], s->sensors, s->nsensors, "--sensor",
                                        &n->sensors, &n->nsensors)
                         : default_sensors(fit->run[0], s, &n->sensors, &n->nsensors);
    if (st)
        return st;
    if (n->ninputs > TB_IDENT_MAX_INPUTS || n->nsensors > TB_IDENT_MAX_SENSORS) {
        fprintf(stderr, "tb-ident: at most %d inputs and %d sensors (%zu and %zu named)\n",
                TB_IDENT_MAX_INPUTS, TB_IDENT_MAX_SENSORS, n->ninputs, n->nsensors);
        return TB_EXIT_INPUT;
    }
    unsigned averaged;
    if ((st = averaged_inputs(fit->run[0], s, n->inputs, n->ninputs, &averaged)) != 0 ||
        (st = extract_runs(fit, s, n->inputs, n->ninputs, n->sensors, n->nsensors, averaged)) != 0)
        return st;
    if (tb_ident_fit(fit->data, fit->n, n->inputs, n->ninputs, n->sensors, n->nsensors, &s->opt,
                     m, err, sizeof err) < 0) {
        fprintf(stderr, "tb-ident: %s\n", err);
        return TB_EXIT_INPUT;
    }
    m->averaged = averaged;
    return 0;
}

/* The held-out runs of VPATHS, read into HELD and predicted by M: each
 * one's check into *CHECKS (allocated).  0, or the exit status (said). */
static int check_held_out(const struct settings *s, const struct tb_paths *vpaths,
                          tb_ident_model *m, struct runs *held, struct check **checks)
{
    struct settings vs = *s;
    vs.ambient = m->above_ambient ? s->ambient : NULL;
    if (m->above_ambient && !s->ambient) {
        fputs("tb-ident: the model is above the ambient: name its column (--ambient) for "
              "--validate\n", stderr);
        return TB_EXIT_INPUT;
    }
    int st;
    if ((st = read_runs(vpaths->v, vpaths->n, held)) != 0 ||
        (st = extract_runs(held, &vs, (const char *const *)m->inputs, m->ninputs,
                           (const char *const *)m->sensors, m->nsensors, m->averaged)) != 0)
        return st;
    *checks = calloc(held->n, sizeof **checks);
    if (!*checks) {
        fputs("tb-ident: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    double ratio;
    if ((st = validate(m, held, *checks, &ratio)) != 0)
        return st;
    if (ratio > 1.5)
        m->flags |= TB_IDENT_NO_PREDICTION;
    return 0;
}

/* M and its checks in the format asked, and the model file.  The exit
 * status. */
static int print_model(const struct settings *s, tb_ident_model *m, const struct check *checks,
                       size_t nchecks, double dt)
{
    int st;
    if (s->format == FORMAT_JSON) {
        if (print_json(m, checks, nchecks, dt) < 0)
            return TB_EXIT_OUTPUT;
    } else if (s->format == FORMAT_CSV) {
        print_csv(m, checks, nchecks);
    } else {
        print_text(m, checks, nchecks, dt, !s->model);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tb-ident: standard output: write error: %s\n", strerror(errno));
        return TB_EXIT_OUTPUT;
    }
    if (s->output && (st = write_model(s->output, m)) != 0)
        return st;
    return (m->flags & TB_IDENT_NO_PREDICTION) || (s->strict && m->flags) ? TB_EXIT_FIT
                                                                          : TB_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct settings s = {.opt = tb_ident_default_options(), .to = 0};
    struct tb_paths paths = {0}, vpaths = {0};
    struct runs fit = {0}, held = {0};
    struct names n = {0};
    tb_ident_model m;
    struct check *checks = NULL;
    char err[TB_ERRMAX];
    int status = parse_arguments(argc, argv, &s), have_model = 0;
    memset(&m, 0, sizeof m);
    if (status >= 0)
        goto out;
    status = TB_EXIT_INPUT;
    for (int i = optind; i < argc; i++)
        if (tb_paths_add(&paths, argv[i], "tb-ident") < 0)
            goto out;
    for (size_t i = 0; i < s.nvalidate; i++)
        if (tb_paths_add(&vpaths, s.validate[i], "tb-ident") < 0)
            goto out;
    if (s.model) {
        if (tb_ident_model_read(s.model, &m, err, sizeof err) < 0) {
            fprintf(stderr, "tb-ident: --model: %s\n", err);
            goto out;
        }
        have_model = 1;
    } else {
        if ((status = identify(&s, &paths, &fit, &n, &m)) != 0)
            goto out;
        have_model = 1;
    }
    if (vpaths.n && (status = check_held_out(&s, &vpaths, &m, &held, &checks)) != 0)
        goto out;
    double dt = s.dt > 0 ? s.dt : fit.n ? median_period(&fit) : held.n ? median_period(&held) : 1;
    status = print_model(&s, &m, checks, held.n, dt);
out:
    runs_free(&fit);
    runs_free(&held);
    free(checks);
    free_names(n.inputs, n.ninputs);
    free_names(n.sensors, n.nsensors);
    if (have_model || s.model)
        tb_ident_model_clear(&m);
    tb_paths_free(&paths);
    tb_paths_free(&vpaths);
    free(s.inputs);
    free(s.sensors);
    free(s.validate);
    free(s.averaged);
    return status;
}
