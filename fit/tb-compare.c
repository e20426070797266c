/*
 * tb-compare -- did T∞, a time constant or the work rate move between
 * groups of runs (kernel versions, configurations, board revisions),
 * beyond noise?  Fits runs as tb-fit does (or takes tb-fit's CSV results),
 * groups them, compares each group with a baseline by Welch's t-test with
 * Holm's correction, and says so with its exit status.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_statistics_double.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "fit_job.h"
#include "output.h"
#include "report.h"
#include "tbfit.h"

enum exit_status { EXIT_SAME = 0, EXIT_REGRESSION = 1, EXIT_INPUT = 2 };
enum format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_MARKDOWN };

#ifdef HAVE_OPENBLAS_SET_NUM_THREADS
void openblas_set_num_threads(int n);
#endif

struct settings {
    struct tb_model_settings m;
    const char **columns;
    size_t ncolumns;
    const char **work;
    size_t nwork;
    int shared_tau;
    const char *group_by;          /* "dir", "meta:KEY" or "re:REGEX" */
    regex_t re;
    char *group_order_buf;
    const char **group_order;
    size_t ngroup_order;
    const char *baseline;
    double threshold, tau_threshold, ops_threshold;
    enum format format;
    int strict;
    const char *cache;
    int jobs;
    const char *plot;              /* --plot FILE */
    const char *argv0;
};

/* A fitted column with the group of its run. */
struct row {
    tb_result r;
    char *group;
};

/* What one input gave: rows, and the fits that failed. */
struct input {
    const char *path;
    struct row *rows;
    size_t nrows;
    char *msg;          /* its messages, printed in input order */
    size_t msglen;
    int status;
    size_t failed;
};

static const char usage_text[] =
    "Usage: tb-compare [OPTION]... INPUT...\n"
    "Compare T∞, the time constants and operations per second between groups of\n"
    "runs (kernel versions, say) and tell whether any moved beyond noise.  An\n"
    "INPUT is a run, a directory of runs, or a tb-fit --format csv result file.\n"
    "\n"
    "Groups:\n"
    "  -g, --group-by=HOW     meta:KEY (the runs' \"# KEY: value\"), dir (the run's\n"
    "                         directory; the default) or re:REGEX (its first group\n"
    "                         in the run's path)\n"
    "      --group-order=G1,G2,...  the groups' order (default: natural, 5.4 <\n"
    "                         5.10 < 6.1)\n"
    "  -b, --baseline=GROUP   compare with this group (default: the first)\n"
    "\n"
    "Verdicts:\n"
    "      --threshold=DEG    a hotter T∞ is a regression from DEG °C (default 0.5)\n"
    "      --tau-threshold=P% a τ that moved by P % (default 10%)\n"
    "      --ops-threshold=P% fewer operations per second by P % (default 2%)\n"
    "      --level=P          confidence level (default 0.95; α = 1 − P)\n"
    "      --strict           a run that cannot be fitted is an error\n"
    "\n"
    "Fitting (as tb-fit):\n"
    "  -n, --order=N|auto     terms of the model, 1 to 4 (default 3)\n"
    "  -c, --column=SPEC      fit this column; may be repeated (default: every\n"
    "                         °C column but the ambient one)\n"
    "      --ambient=COLUMN   subtract this column before fitting\n"
    "      --from=TIME        fit from this time of the run (90, 5min, 1h)\n"
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
    "  -f, --format=FORMAT    text (default), csv, json or markdown\n"
    "      --plot=FILE        draw the first column's groups with tb-plot compare\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 no regression, 1 a regression, 2 usage or input error.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-compare", fmt, arg);
}

static int push(const char ***v, size_t *n, const char *s)
{
    const char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nv[(*n)++] = s;
    *v = nv;
    return 0;
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
    OPT_STRICT, OPT_SHARED_TAU, OPT_WORK, OPT_CACHE, OPT_PLOT,
};
static const struct option own_options[] = {
    {"group-by", required_argument, NULL, 'g'},
    {"group-order", required_argument, NULL, OPT_GROUP_ORDER},
    {"baseline", required_argument, NULL, 'b'},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"tau-threshold", required_argument, NULL, OPT_TAU_THRESHOLD},
    {"ops-threshold", required_argument, NULL, OPT_OPS_THRESHOLD},
    {"strict", no_argument, NULL, OPT_STRICT},
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

static int parse_options(int argc, char **argv, struct settings *s, const struct option *options)
{
    char err[TB_ERRMAX];
    int c, rc;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":g:b:n:c:j:f:hV", options, NULL)) != -1) {
        if ((rc = tb_model_option(c, optarg, &s->m, err, sizeof err)) != 0) {
            if (rc < 0) {
                return usage_error("%s", err);
            }
            continue;
        }
        switch (c) {
        case 'g':
            if (strcmp(optarg, "dir") != 0 && strncmp(optarg, "re:", 3) != 0 &&
                !(strncmp(optarg, "meta:", 5) == 0 && optarg[5])) {
                return usage_error("--group-by wants meta:KEY, dir or re:REGEX, not '%s'", optarg);
            }
            s->group_by = optarg;
            break;
        case OPT_GROUP_ORDER:
            free(s->group_order_buf);
            free(s->group_order);
            s->group_order = NULL;
            s->ngroup_order = 0;
            if (!(s->group_order_buf = strdup(optarg)))
                return usage_error("%s", "out of memory");
            for (char *save = NULL, *t = strtok_r(s->group_order_buf, ",", &save); t;
                 t = strtok_r(NULL, ",", &save))
                if (push(&s->group_order, &s->ngroup_order, t) < 0)
                    return usage_error("%s", "out of memory");
            break;
        case 'b': s->baseline = optarg; break;
        case OPT_THRESHOLD:
            if (tb_cli_number(optarg, &s->threshold) < 0 || s->threshold < 0) {
                return usage_error("--threshold wants a number of °C, not '%s'", optarg);
            }
            break;
        case OPT_TAU_THRESHOLD:
            if (parse_percent(optarg, &s->tau_threshold) < 0) {
                return usage_error("--tau-threshold wants a percentage such as 10%%, not '%s'", optarg);
            }
            break;
        case OPT_OPS_THRESHOLD:
            if (parse_percent(optarg, &s->ops_threshold) < 0) {
                return usage_error("--ops-threshold wants a percentage such as 2%%, not '%s'", optarg);
            }
            break;
        case OPT_STRICT: s->strict = 1; break;
        case 'c':
            if (push(&s->columns, &s->ncolumns, optarg) < 0)
                return usage_error("%s", "out of memory");
            break;
        case OPT_SHARED_TAU: s->shared_tau = 1; break;
        case OPT_WORK:
            if (push(&s->work, &s->nwork, optarg) < 0)
                return usage_error("%s", "out of memory");
            break;
        case OPT_CACHE: s->cache = optarg; break;
        case OPT_PLOT: s->plot = optarg; break;
        case 'j':
            if (tb_cli_jobs(optarg, &s->jobs, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                s->format = FORMAT_TEXT;
            else if (strcmp(optarg, "csv") == 0)
                s->format = FORMAT_CSV;
            else if (strcmp(optarg, "json") == 0)
                s->format = FORMAT_JSON;
            else if (strcmp(optarg, "markdown") == 0)
                s->format = FORMAT_MARKDOWN;
            else {
                return usage_error("--format wants text, csv, json or markdown, not '%s'", optarg);
            }
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(EXIT_SAME);
        case 'V':
            puts("tb-compare (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(EXIT_SAME);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "no input given");
    if (tb_model_check(&s->m, err, sizeof err) < 0)
        return usage_error("%s", err);
    if (strncmp(s->group_by, "re:", 3) == 0) {
        int rc2 = regcomp(&s->re, s->group_by + 3, REG_EXTENDED);
        if (rc2 != 0) {
            regerror(rc2, &s->re, err, sizeof err);
            return usage_error("--group-by: %s", err);
        }
    }
    return -1;
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

/* --- from inputs to rows ------------------------------------------------------ */

/* The group of the run at FILE (RUN when it is read already). */
static char *group_of(const struct settings *s, const char *file, const tb_run *run,
                      char *err, size_t errlen)
{
    if (strcmp(s->group_by, "dir") == 0) {
        char *copy = strdup(file);
        char *g = copy ? strdup(basename(dirname(copy))) : NULL;
        free(copy);
        return g;
    }
    if (strncmp(s->group_by, "re:", 3) == 0) {
        regmatch_t m[2];
        if (regexec(&s->re, file, 2, m, 0) == 0 && m[1].rm_so >= 0)
            return strndup(file + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
        snprintf(err, errlen, "%s: the path does not match --group-by %s", file, s->group_by);
        return NULL;
    }
    const char *key = s->group_by + 5;
    tb_run *own = NULL;
    if (!run) {
        if (!(own = tb_run_read(file, NULL, err, errlen)))
            return NULL;   /* the reader's message says which file and why */
        run = own;
    }
    const char *v = tb_run_meta(run, key);
    char *g = v ? strdup(v) : NULL;
    if (!v)
        snprintf(err, errlen, "%s: no \"# %s:\" line to group by", file, key);
    tb_run_free(own);
    return g;
}

/* FNV-1a of the run's bytes and of the options that change its fit. */
static int cache_key(const struct settings *s, const char *path, char *key, size_t size)
{
    uint64_t h = 14695981039346656037ULL;
    unsigned char buf[65536];
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ULL;
    fclose(f);
    char opts[4096];
    int len = snprintf(opts, sizeof opts, "v1|%d|%d|%s|%.17g|%.17g|%.17g|%.17g|%.17g|%d|%d|%lu",
                       s->m.auto_order ? 0 : s->m.fit.order, s->m.auto_order,
                       s->m.ambient ? s->m.ambient : "", s->m.from, s->m.to, s->m.fit.tau_min,
                       s->m.fit.tau_max, s->m.fit.level, s->shared_tau, s->m.fit.bootstrap,
                       s->m.fit.seed);
    for (size_t k = 0; k < s->ncolumns && len > 0 && (size_t)len < sizeof opts; k++)
        len += snprintf(opts + len, sizeof opts - (size_t)len, "|c=%s", s->columns[k]);
    for (size_t k = 0; k < s->nwork && len > 0 && (size_t)len < sizeof opts; k++)
        len += snprintf(opts + len, sizeof opts - (size_t)len, "|w=%s", s->work[k]);
    for (const char *p = opts; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    snprintf(key, size, "%s/%016llx.csv", s->cache, (unsigned long long)h);
    return 0;
}

static void result_clear(tb_result *r)
{
    free(r->file);
    free(r->column);
    free(r->flags);
}

static int add_row(struct input *in, const tb_result *r, char *group)
{
    struct row *nr = realloc(in->rows, (in->nrows + 1) * sizeof *nr);
    if (!nr)
        return -1;
    in->rows = nr;
    nr[in->nrows++] = (struct row){*r, group};
    return 0;
}

/* A fit as a result row, as tb-fit --format csv would give it. */
static int fit_to_result(const struct tb_prepared *p, const tb_fit *fit, size_t series,
                         tb_result *r)
{
    char flags[256];
    const tb_fit_series *fs = &fit->series[series];
    memset(r, 0, sizeof *r);
    r->file = strdup(p->file);
    r->column = strdup(tb_run_column(p->run, p->column)->name);
    r->flags = strdup(tb_report_flags(fit->flags, flags, sizeof flags));
    r->order = fit->order;
    r->points = fs->n;
    r->t_inf = fs->t_inf;
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
        r->tau[j] = j < fit->order ? fit->tau[j] : (tb_estimate){NAN, NAN, NAN};
    r->rmse = fit->rmse;
    r->ops_per_s = p->ops;
    return r->file && r->column && r->flags ? 0 : -1;
}

static void say(struct input *in, FILE *msg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(struct input *in, FILE *msg, const char *fmt, ...)
{
    char line[2 * TB_ERRMAX];
    va_list ap;
    (void)in;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    tb_say(msg, "tb-compare", "%s", line);
}

/* Fit the run at IN->path (or take its fit from the cache). */
static void fit_run(const struct settings *s, struct input *in, FILE *msg)
{
    struct tb_job_request req = {
        .prog = "tb-compare", .m = &s->m, .columns = s->columns, .ncolumns = s->ncolumns,
        .work = s->work, .nwork = s->nwork,
    };
    char key[4096], err[TB_ERRMAX];
    int cached = s->cache && cache_key(s, in->path, key, sizeof key) == 0;

    if (cached && access(key, R_OK) == 0) {
        tb_result *rows = NULL;
        size_t n = 0;
        if (tb_results_read(key, &rows, &n, err, sizeof err) == 0) {
            char *group = group_of(s, in->path, NULL, err, sizeof err);
            for (size_t i = 0; i < n; i++) {
                char *g = group ? strdup(group) : NULL;
                free(rows[i].file);
                rows[i].file = strdup(in->path);
                if (!g || add_row(in, &rows[i], g) < 0) {
                    free(g);
                    say(in, msg, "%s", group ? "out of memory" : err);
                    in->status = EXIT_INPUT;
                    for (size_t k = i; k < n; k++)
                        result_clear(&rows[k]);
                    free(rows);
                    free(group);
                    return;
                }
            }
            free(rows);
            free(group);
            return;
        }
        say(in, msg, "warning: cache %s: %s: fitting again", key, err);
        tb_results_free(rows, n);
    }

    struct tb_job_data d;
    /* A run that cannot be read or lacks a column is left out, and said so,
     * like one that cannot be fitted: the others are still compared. */
    if (tb_job_prepare(&req, &in->path, 1, msg, &d) != TB_EXIT_OK || d.n == 0) {
        say(in, msg, "excluded: %s", in->path);
        in->failed++;
        if (d.n == 0) {
            tb_job_free(&d);
            return;
        }
    }
    char *group = group_of(s, in->path, d.runs[0], err, sizeof err);
    if (!group) {
        say(in, msg, "%s", err);
        in->status = EXIT_INPUT;
        tb_job_free(&d);
        return;
    }
    FILE *cache = NULL;
    char tmp[4200];
    if (cached) {
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", key, (long)getpid());
        if ((cache = fopen(tmp, "w")))
            tb_report_csv_header(cache, TB_FIT_MAX_ORDER);
    }
    size_t groups = s->shared_tau ? 1 : d.n;
    for (size_t gi = 0; gi < groups; gi++) {
        tb_fit fit;
        const struct tb_prepared *p = s->shared_tau ? d.p : &d.p[gi];
        size_t np = s->shared_tau ? d.n : 1;
        if (tb_job_fit(&req, p, np, &fit, err, sizeof err) < 0) {
            say(in, msg, "excluded: %s: %s: %s", in->path,
                s->shared_tau ? "shared-τ fit" : tb_run_column(p->run, p->column)->name, err);
            in->failed++;
            if (cache) {   /* a failed fit is not cached: it is tried again */
                fclose(cache);
                remove(tmp);
                cache = NULL;
            }
            continue;
        }
        for (size_t k = 0; k < np; k++) {
            tb_result r;
            char *g = strdup(group);
            if (!g || fit_to_result(&p[k], &fit, k, &r) < 0 || add_row(in, &r, g) < 0) {
                free(g);
                say(in, msg, "out of memory");
                in->status = EXIT_INPUT;
                continue;
            }
            if (cache) {
                tb_fit_report rep = {
                    .file = p[k].file, .column = r.column, .fit = &fit, .series = k,
                    .settle = NAN, .tolerance = 0.5, .ops_per_s = p[k].ops,
                    .throttled_since = NAN, .level = s->m.fit.level, .ci_method = "covariance",
                };
                tb_report_fit(cache, TB_FORMAT_CSV, &rep, TB_FIT_MAX_ORDER, 0);
            }
        }
        tb_fit_clear(&fit);
    }
    if (cache) {
        if (fclose(cache) == 0)
            rename(tmp, key);   /* whole or not at all: no half-written entry */
        else
            remove(tmp);
    }
    free(group);
    tb_job_free(&d);
}

static void read_input(const struct settings *s, struct input *in)
{
    FILE *msg = open_memstream(&in->msg, &in->msglen);
    char err[TB_ERRMAX];

    if (!msg) {
        in->status = EXIT_INPUT;
        return;
    }
    if (strcmp(in->path, "-") != 0 && tb_results_is_results_file(in->path)) {
        tb_result *rows = NULL;
        size_t n = 0;
        if (tb_results_read(in->path, &rows, &n, err, sizeof err) < 0) {
            say(in, msg, "%s", err);
            in->status = EXIT_INPUT;
        }
        for (size_t i = 0; i < n; i++) {
            char *g = group_of(s, rows[i].file, NULL, err, sizeof err);
            if (!g || add_row(in, &rows[i], g) < 0) {
                say(in, msg, "%s", g ? "out of memory" : err);
                in->status = EXIT_INPUT;
                free(g);
                result_clear(&rows[i]);
            }
        }
        free(rows);
    } else {
        fit_run(s, in, msg);
    }
    fclose(msg);
}

struct pool {
    const struct settings *s;
    struct input *in;
    size_t n, next;
    pthread_mutex_t lock;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i == p->n)
            return NULL;
        read_input(p->s, &p->in[i]);
    }
}

/* --- statistics ----------------------------------------------------------------- */

enum metric { M_TINF, M_TAU1, M_OPS = M_TAU1 + TB_FIT_MAX_ORDER, M_COUNT };

static const char *metric_name(int m, char *buf, size_t size)
{
    if (m == M_TINF)
        return "T_inf";
    if (m == M_OPS)
        return "ops_per_s";
    snprintf(buf, size, "tau%d", m - M_TAU1 + 1);
    return buf;
}

static double metric_of(const tb_result *r, int m)
{
    if (m == M_TINF)
        return r->t_inf.value;
    if (m == M_OPS)
        return r->ops_per_s;
    return r->tau[m - M_TAU1].value;
}

struct cell {             /* one metric of one group of one column */
    size_t n;
    double mean, half, sd;
    double *x;
};

struct comparison {
    size_t column, group;
    int metric;
    tb_welch_result w;
    double p_adj;
    const char *verdict;  /* "regression", "improvement", "changed", "" */
    int regression;
};

struct table {
    char **columns;
    size_t ncolumns;
    char **groups;
    size_t ngroups;
    size_t baseline;
    struct cell *cells;   /* [column][group][metric] */
    struct comparison *cmp;
    size_t ncmp;
};

static struct cell *cell_at(struct table *t, size_t c, size_t g, int m)
{
    return &t->cells[(c * t->ngroups + g) * M_COUNT + (size_t)m];
}

static size_t index_of(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return i;
    return n;
}

static int compare_groups(const void *a, const void *b)
{
    return tb_natural_compare(*(char *const *)a, *(char *const *)b);
}

/* Columns and groups in order, each metric's values, the comparisons with
 * the baseline and Holm's correction over all of them.  0, or -1. */
static int build_table(const struct settings *s, struct row *rows, size_t n, struct table *t,
                       char *err, size_t errlen)
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
    qsort(t->groups, t->ngroups, sizeof *t->groups, compare_groups);
    /* --group-order first, the rest after in natural order */
    for (size_t k = s->ngroup_order; k-- > 0;) {
        size_t g = index_of(t->groups, t->ngroups, s->group_order[k]);
        if (g == t->ngroups) {
            snprintf(err, errlen, "--group-order: no group %s", s->group_order[k]);
            return -1;
        }
        char *moved = t->groups[g];
        memmove(t->groups + 1, t->groups, g * sizeof *t->groups);
        t->groups[0] = moved;
    }
    t->baseline = s->baseline ? index_of(t->groups, t->ngroups, s->baseline) : 0;
    if (t->baseline == t->ngroups) {
        size_t used = (size_t)snprintf(err, errlen, "--baseline: no group %s; groups:", s->baseline);
        for (size_t g = 0; g < t->ngroups && used < errlen; g++)
            used += (size_t)snprintf(err + used, errlen - used, " %s", t->groups[g]);
        return -1;
    }
    t->cells = calloc(t->ncolumns * t->ngroups * M_COUNT, sizeof *t->cells);
    if (!t->cells)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        size_t c = index_of(t->columns, t->ncolumns, rows[i].r.column);
        size_t g = index_of(t->groups, t->ngroups, rows[i].group);
        for (int m = 0; m < M_COUNT; m++) {
            double v = metric_of(&rows[i].r, m);
            struct cell *cl = cell_at(t, c, g, m);
            if (!isfinite(v))
                continue;
            if (!cl->x && !(cl->x = malloc(n * sizeof *cl->x)))
                goto oom;
            cl->x[cl->n++] = v;
        }
    }
    for (size_t c = 0; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            for (int m = 0; m < M_COUNT; m++) {
                struct cell *cl = cell_at(t, c, g, m);
                cl->mean = tb_mean_ci(cl->x, cl->n, s->m.fit.level, &cl->half);
                cl->sd = cl->n >= 2 ? gsl_stats_sd(cl->x, 1, cl->n) : NAN;
            }
        }
    }
    t->cmp = calloc(t->ncolumns * t->ngroups * M_COUNT, sizeof *t->cmp);
    double *p = malloc(t->ncolumns * t->ngroups * M_COUNT * sizeof *p);
    if (!t->cmp || !p) {
        free(p);
        goto oom;
    }
    for (size_t c = 0; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            if (g == t->baseline)
                continue;
            for (int m = 0; m < M_COUNT; m++) {
                struct cell *a = cell_at(t, c, t->baseline, m), *b = cell_at(t, c, g, m);
                struct comparison *k = &t->cmp[t->ncmp];
                if (tb_welch_test(a->x, a->n, b->x, b->n, s->m.fit.level, &k->w) < 0)
                    continue;
                k->column = c;
                k->group = g;
                k->metric = m;
                p[t->ncmp++] = k->w.p;
            }
        }
    }
    tb_holm_adjust(p, t->ncmp, p);
    double alpha = 1 - s->m.fit.level;
    for (size_t i = 0; i < t->ncmp; i++) {
        struct comparison *k = &t->cmp[i];
        double base = cell_at(t, k->column, t->baseline, k->metric)->mean;
        double rel = base != 0 ? k->w.diff / fabs(base) : NAN;
        k->p_adj = p[i];
        k->verdict = "";
        if (!(k->p_adj < alpha))
            continue;
        if (k->metric == M_TINF) {
            if (k->w.diff > s->threshold)
                k->verdict = "regression", k->regression = 1;
            else if (k->w.diff < -s->threshold)
                k->verdict = "improvement";
        } else if (k->metric == M_OPS) {
            if (rel < -s->ops_threshold)
                k->verdict = "regression", k->regression = 1;
            else if (rel > s->ops_threshold)
                k->verdict = "improvement";
        } else if (fabs(rel) > s->tau_threshold) {
            k->verdict = "changed", k->regression = 1;
        }
    }
    free(p);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static void table_free(struct table *t)
{
    for (size_t i = 0; t->cells && i < t->ncolumns * t->ngroups * M_COUNT; i++)
        free(t->cells[i].x);
    free(t->cells);
    free(t->cmp);
    free(t->columns);
    free(t->groups);
}

/* --- output ------------------------------------------------------------------------ */

static const char *unit_of(int m)
{
    return m == M_TINF ? "°C" : m == M_OPS ? "operations/s" : "s";
}

/* "[lo, hi]", or blanks of the same width for a group of one run. */
static void print_interval(const struct cell *c, int digits, int width)
{
    if (isfinite(c->half))
        printf("[%*.*f, %*.*f]", width, digits, c->mean - c->half, width, digits, c->mean + c->half);
    else
        printf("%*s", 2 * width + 4, "");
}

static void print_text(const struct settings *s, struct table *t, size_t nfailed)
{
    char buf[32];
    size_t wg = strlen("group");
    for (size_t g = 0; g < t->ngroups; g++)
        if (tb_display_width(t->groups[g]) > wg)
            wg = tb_display_width(t->groups[g]);
    for (size_t c = 0; c < t->ncolumns; c++) {
        printf("%s%s: groups by %s, baseline %s\n", c ? "\n" : "", t->columns[c], s->group_by,
               t->groups[t->baseline]);
        printf("  ");
        tb_print_left(stdout, "group", wg);
        printf("  runs  %-24s %7s", "T∞ °C  (interval)", "sd");
        for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
            if (cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                printf("  τ%d s (interval)      ", j + 1);
        if (cell_at(t, c, t->baseline, M_OPS)->n)
            printf("  operations/s");
        putchar('\n');
        for (size_t g = 0; g < t->ngroups; g++) {
            struct cell *ti = cell_at(t, c, g, M_TINF);
            printf("  ");
            tb_print_left(stdout, t->groups[g], wg);
            printf("  %4zu  %6.2f ", ti->n, ti->mean);
            print_interval(ti, 2, 6);
            printf(" %7.3f", ti->sd);
            for (int j = 0; j < TB_FIT_MAX_ORDER; j++) {
                if (!cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                    continue;
                struct cell *tc = cell_at(t, c, g, M_TAU1 + j);
                printf("  %6.1f ", tc->mean);
                print_interval(tc, 1, 6);
            }
            struct cell *oc = cell_at(t, c, g, M_OPS);
            if (cell_at(t, c, t->baseline, M_OPS)->n)
                printf("  %.6g", oc->mean);
            putchar('\n');
        }
        printf("  versus %s (Welch's t-test, Holm-corrected p, α = %g):\n", t->groups[t->baseline],
               1 - s->m.fit.level);
        int any_here = 0;
        for (size_t i = 0; i < t->ncmp; i++)
            any_here |= t->cmp[i].column == c;
        if (!any_here)
            printf("    nothing to test: every group needs two runs or more\n");
        for (size_t i = 0; i < t->ncmp; i++) {
            struct comparison *k = &t->cmp[i];
            if (k->column != c)
                continue;
            printf("    ");
            tb_print_left(stdout, t->groups[k->group], wg);
            int dig = k->metric == M_TINF ? 2 : k->metric == M_OPS ? 4 : 1;
            printf("  %-9s %+9.*f %s [%+.*f, %+.*f]  p %.2g%s%s\n",
                   metric_name(k->metric, buf, sizeof buf), dig, k->w.diff, unit_of(k->metric), dig,
                   k->w.lo, dig, k->w.hi, k->p_adj, *k->verdict ? "  " : "",
                   *k->verdict ? (k->regression ? (strcmp(k->verdict, "changed") ? "REGRESSION" : "CHANGED")
                                                : "improvement")
                               : "");
        }
    }
    int any = 0;
    for (size_t i = 0; i < t->ncmp; i++)
        any |= t->cmp[i].regression;
    printf("\n%s", any ? "regression found" : "no regression");
    if (nfailed)
        printf(" (%zu fit%s failed and excluded)", nfailed, nfailed == 1 ? "" : "s");
    putchar('\n');
}

static void print_csv(struct table *t)
{
    char buf[32];
    puts("column,group,metric,runs,mean,lo,hi,sd,baseline,diff,diff_lo,diff_hi,p,p_holm,verdict");
    for (size_t c = 0; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            for (int m = 0; m < M_COUNT; m++) {
                struct cell *cl = cell_at(t, c, g, m);
                if (!cl->n)
                    continue;
                struct comparison *k = NULL;
                for (size_t i = 0; i < t->ncmp; i++)
                    if (t->cmp[i].column == c && t->cmp[i].group == g && t->cmp[i].metric == m)
                        k = &t->cmp[i];
                tb_csv_string(stdout, t->columns[c]);
                putchar(',');
                tb_csv_string(stdout, t->groups[g]);
                printf(",%s,%zu,%.10g,%.10g,%.10g,", metric_name(m, buf, sizeof buf), cl->n, cl->mean,
                       cl->mean - cl->half, cl->mean + cl->half);
                tb_csv_number(stdout, cl->sd);
                putchar(',');
                tb_csv_string(stdout, t->groups[t->baseline]);
                if (k)
                    printf(",%.10g,%.10g,%.10g,%.6g,%.6g,%s\n", k->w.diff, k->w.lo, k->w.hi, k->w.p,
                           k->p_adj, k->verdict);
                else
                    printf(",,,,,,\n");
            }
        }
    }
}

static void print_json(const struct settings *s, struct table *t, size_t nfailed)
{
    char buf[32];
    int any = 0;
    for (size_t i = 0; i < t->ncmp; i++)
        any |= t->cmp[i].regression;
    printf("{\"group_by\": ");
    tb_json_string(stdout, s->group_by);
    printf(", \"baseline\": ");
    tb_json_string(stdout, t->groups[t->baseline]);
    printf(", \"level\": %g, \"correction\": \"holm\", \"regression\": %s, \"failed_fits\": %zu,\n",
           s->m.fit.level, any ? "true" : "false", nfailed);
    printf(" \"groups\": [");
    for (size_t c = 0, first = 1; c < t->ncolumns; c++) {
        for (size_t g = 0; g < t->ngroups; g++) {
            for (int m = 0; m < M_COUNT; m++) {
                struct cell *cl = cell_at(t, c, g, m);
                if (!cl->n)
                    continue;
                printf("%s\n  {\"column\": ", first ? "" : ",");
                first = 0;
                tb_json_string(stdout, t->columns[c]);
                printf(", \"group\": ");
                tb_json_string(stdout, t->groups[g]);
                printf(", \"metric\": \"%s\", \"runs\": %zu, \"mean\": ", metric_name(m, buf, sizeof buf), cl->n);
                tb_json_number(stdout, cl->mean);
                printf(", \"lo\": ");
                tb_json_number(stdout, cl->mean - cl->half);
                printf(", \"hi\": ");
                tb_json_number(stdout, cl->mean + cl->half);
                printf(", \"sd\": ");
                tb_json_number(stdout, cl->sd);
                putchar('}');
            }
        }
    }
    printf("],\n \"comparisons\": [");
    for (size_t i = 0; i < t->ncmp; i++) {
        struct comparison *k = &t->cmp[i];
        printf("%s\n  {\"column\": ", i ? "," : "");
        tb_json_string(stdout, t->columns[k->column]);
        printf(", \"group\": ");
        tb_json_string(stdout, t->groups[k->group]);
        printf(", \"metric\": \"%s\", \"diff\": ", metric_name(k->metric, buf, sizeof buf));
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
    printf("]}\n");
}

static void print_markdown(const struct settings *s, struct table *t, size_t nfailed)
{
    char buf[32];
    int any = 0;
    for (size_t i = 0; i < t->ncmp; i++)
        any |= t->cmp[i].regression;
    printf("**tb-compare: %s** (groups by `%s`, baseline `%s`, Welch's t-test, Holm-corrected, "
           "α = %g%s)\n\n", any ? "regression found" : "no regression", s->group_by,
           t->groups[t->baseline], 1 - s->m.fit.level,
           nfailed ? ", some fits failed and were excluded" : "");
    for (size_t c = 0; c < t->ncolumns; c++) {
        printf("#### %s\n\n| group | runs | T∞ (°C) | sd |", t->columns[c]);
        for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
            if (cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                printf(" τ%d (s) |", j + 1);
        printf("\n|---|---|---|---|");
        for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
            if (cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                printf("---|");
        putchar('\n');
        for (size_t g = 0; g < t->ngroups; g++) {
            struct cell *ti = cell_at(t, c, g, M_TINF);
            printf("| %s | %zu | %.2f ± %.2f | %.3f |", t->groups[g], ti->n, ti->mean, ti->half, ti->sd);
            for (int j = 0; j < TB_FIT_MAX_ORDER; j++) {
                if (!cell_at(t, c, t->baseline, M_TAU1 + j)->n)
                    continue;
                struct cell *tc = cell_at(t, c, g, M_TAU1 + j);
                printf(" %.1f ± %.1f |", tc->mean, tc->half);
            }
            putchar('\n');
        }
        printf("\n| versus %s | metric | change | p (Holm) | verdict |\n|---|---|---|---|---|\n",
               t->groups[t->baseline]);
        for (size_t i = 0; i < t->ncmp; i++) {
            struct comparison *k = &t->cmp[i];
            if (k->column != c)
                continue;
            printf("| %s | %s | %+.4g %s [%+.3g, %+.3g] | %.2g | %s |\n", t->groups[k->group],
                   metric_name(k->metric, buf, sizeof buf), k->w.diff, unit_of(k->metric), k->w.lo,
                   k->w.hi, k->p_adj, *k->verdict ? k->verdict : "–");
        }
        putchar('\n');
    }
}

/* The first column's rows as tb-fit results filed under their group, for
 * tb-plot compare --group-by dir, which draws the figure. */
static int draw_plot(const struct settings *s, struct row *rows, size_t n, struct table *t)
{
    char results[] = "/tmp/tb-compare-plot.XXXXXX";
    int fd = mkstemp(results);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "tb-compare: --plot: a temporary file: %s\n", strerror(errno));
        return EXIT_INPUT;
    }
    fputs("file,column,T_inf,T_inf_lo,T_inf_hi,ops_per_s\n", f);
    for (size_t g = 0; g < t->ngroups; g++) {
        for (size_t i = 0; i < n; i++) {
            const tb_result *r = &rows[i].r;
            if (strcmp(rows[i].group, t->groups[g]) || strcmp(r->column, t->columns[0]))
                continue;
            char *copy = strdup(r->file), *key = NULL;
            if (!copy || asprintf(&key, "%s/%s", t->groups[g], basename(copy)) < 0)
                key = NULL;
            tb_csv_string(f, key ? key : "?");
            fputc(',', f);
            tb_csv_string(f, r->column);
            fprintf(f, ",%.17g,%.17g,%.17g,", r->t_inf.value, r->t_inf.lo, r->t_inf.hi);
            tb_csv_number(f, r->ops_per_s);
            fputc('\n', f);
            free(key);
            free(copy);
        }
    }
    if (fclose(f) != 0) {
        remove(results);
        fprintf(stderr, "tb-compare: --plot: %s\n", strerror(errno));
        return EXIT_INPUT;
    }
    /* tb-plot beside us (installed), in the build tree (libtool runs us
     * from fit/.libs), else on PATH */
    char *self = strdup(s->argv0), *here = self ? dirname(self) : ".", *tool = NULL;
    const char *candidates[] = {"%s/tb-plot", "%s/../plot/tb-plot", "%s/../../plot/tb-plot"};
    for (size_t i = 0; i < 3 && !tool; i++) {
        char *c = NULL;
        if (asprintf(&c, candidates[i], here) >= 0 && access(c, X_OK) == 0)
            tool = c;
        else
            free(c);
    }
    char title[256];
    snprintf(title, sizeof title, "%s: T∞ by %s (baseline %s)", t->columns[0], s->group_by,
             t->groups[t->baseline]);
    char *const argv[] = {tool ? tool : "tb-plot", "compare", results, "--group-by", "dir",
                          "--ops", "--title", title, "-o", (char *)s->plot, NULL};
    int status = EXIT_INPUT;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "tb-compare: --plot: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int ws;
    if (pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
        status = EXIT_SAME;
    else
        fprintf(stderr, "tb-compare: --plot %s: tb-plot failed\n", s->plot);
    remove(results);
    free(tool);
    free(self);
    return status;
}

int main(int argc, char **argv)
{
    struct settings s = {
        .group_by = "dir", .threshold = 0.5, .tau_threshold = 0.10, .ops_threshold = 0.02,
        .format = FORMAT_TEXT, .jobs = 1, .argv0 = argv[0],
    };
    struct tb_paths paths = {0};
    char err[TB_ERRMAX];

    tb_model_settings_init(&s.m);
    int status = parse_arguments(argc, argv, &s);
    if (status >= 0) {
        free(s.columns);
        free(s.work);
        free(s.group_order);
        free(s.group_order_buf);
        tb_model_settings_free(&s.m);
        return status;
    }
#ifdef HAVE_OPENBLAS_SET_NUM_THREADS
    openblas_set_num_threads(1);
#endif
    status = EXIT_SAME;
    for (int i = optind; i < argc; i++)
        if (tb_paths_add(&paths, argv[i], "tb-compare") < 0)
            status = EXIT_INPUT;
    if (s.cache && mkdir(s.cache, 0777) < 0 && errno != EEXIST) {
        fprintf(stderr, "tb-compare: --cache %s: %s\n", s.cache, strerror(errno));
        return EXIT_INPUT;
    }

    struct input *in = calloc(paths.n ? paths.n : 1, sizeof *in);
    if (!in) {
        fputs("tb-compare: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    for (size_t i = 0; i < paths.n; i++)
        in[i].path = paths.v[i];
    struct pool pool = {.s = &s, .in = in, .n = paths.n};
    pthread_mutex_init(&pool.lock, NULL);
    size_t nthreads = (size_t)s.jobs < paths.n ? (size_t)s.jobs : paths.n;
    pthread_t *threads = calloc(nthreads ? nthreads : 1, sizeof *threads);
    size_t started = 0;
    for (size_t t = 0; threads && t < nthreads; t++)
        if (pthread_create(&threads[t], NULL, worker, &pool) == 0)
            started++;
    if (started == 0)
        worker(&pool);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);

    size_t nrows = 0, nfailed = 0;
    for (size_t i = 0; i < paths.n; i++) {
        if (in[i].msglen)
            fputs(in[i].msg, stderr);
        if (in[i].status > status)
            status = in[i].status;
        nrows += in[i].nrows;
        nfailed += in[i].failed;
    }
    struct row *rows = malloc((nrows ? nrows : 1) * sizeof *rows);
    for (size_t i = 0, k = 0; rows && i < paths.n; i++)
        for (size_t j = 0; j < in[i].nrows; j++)
            rows[k++] = in[i].rows[j];
    if (nfailed && s.strict) {
        fprintf(stderr, "tb-compare: %zu fit%s failed and --strict is given\n", nfailed,
                nfailed == 1 ? "" : "s");
        status = EXIT_INPUT;
    }
    struct table t;
    if (status == EXIT_SAME) {
        if (!rows || nrows == 0) {
            fprintf(stderr, "tb-compare: nothing to compare: no run was fitted\n");
            status = EXIT_INPUT;
        } else if (build_table(&s, rows, nrows, &t, err, sizeof err) < 0) {
            fprintf(stderr, "tb-compare: %s\n", err);
            status = EXIT_INPUT;
            table_free(&t);
        } else {
            if (t.ngroups < 2)
                fprintf(stderr, "tb-compare: warning: only one group (%s): nothing to compare it with\n",
                        t.groups[0]);
            switch (s.format) {
            case FORMAT_TEXT: print_text(&s, &t, nfailed); break;
            case FORMAT_CSV: print_csv(&t); break;
            case FORMAT_JSON: print_json(&s, &t, nfailed); break;
            case FORMAT_MARKDOWN: print_markdown(&s, &t, nfailed); break;
            }
            for (size_t i = 0; i < t.ncmp; i++)
                if (t.cmp[i].regression)
                    status = EXIT_REGRESSION;
            if (s.plot && draw_plot(&s, rows, nrows, &t) != EXIT_SAME)
                status = EXIT_INPUT;
            table_free(&t);
        }
    }
    for (size_t i = 0; i < nrows && rows; i++) {
        result_clear(&rows[i].r);
        free(rows[i].group);
    }
    for (size_t i = 0; i < paths.n; i++) {
        free(in[i].rows);
        free(in[i].msg);
    }
    free(rows);
    free(in);
    tb_paths_free(&paths);
    free(s.columns);
    free(s.work);
    free(s.group_order);
    free(s.group_order_buf);
    if (strncmp(s.group_by, "re:", 3) == 0)
        regfree(&s.re);
    tb_model_settings_free(&s.m);
    if (fflush(stdout) != 0) {
        perror("tb-compare: write error");
        return EXIT_INPUT;
    }
    return status;
}
