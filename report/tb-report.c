/*
 * tb-report -- an experiment's runs as one self-contained HTML page: the
 * runs and their metadata, each column's fit with its flags in words, the
 * run length, the groups compared with their verdicts, the figures, and
 * every warning the tools gave.
 *
 * The fits and run lengths are libtbfit's analysis (as tb-fit's); the
 * comparison is tb-compare's, run on those fits; the figures are
 * tb-plot's.  One answer everywhere: the page only gathers them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "exit_status.h"
#include "find_program.h"
#include "output.h"
#include "output_file.h"
#include "paths.h"
#include "progress.h"
#include "work_pool.h"
#include "tbfit.h"

static const char usage_text[] =
    "Usage: tb-report [OPTION]... -o DIR RUN|DIR...\n"
    "Write DIR/index.html: one self-contained page of an experiment's runs\n"
    "(their metadata, each column's fit and run length, the groups compared\n"
    "with their verdicts, the figures, the warnings), and the figures as\n"
    "PNG files in DIR/figures.\n"
    "\n"
    "  -o, --output=DIR        the report's folder (made if need be)\n"
    "  -c, --column=SPEC       the columns to fit (default: the temperatures);\n"
    "                          may be repeated\n"
    "  -g, --group-by=HOW      compare groups of runs: dir, meta:KEY or\n"
    "                          re:REGEX, as tb-compare(1)\n"
    "  -b, --baseline=GROUP    the group the others are compared with, for\n"
    "                          regressions (default: differences from the first)\n"
    "      --threshold=DELTA   °C of T∞ that is a regression (default 0.5); asks\n"
    "                          for regressions too\n"
    "      --include-flagged   keep flagged fits in the comparison's means and\n"
    "                          verdicts, marked (by default left out, named)\n"
    "      --tolerance=DELTA   °C of the run length (default 0.5)\n"
    "      --title=TEXT        the page's title\n"
    "      --max-figures=N     figures of the first N runs (default 12)\n"
    "  -j, --jobs=N            fit N columns and draw N figures at a time\n"
    "                          (default 1)\n"
    "  -n, --order=N|auto      terms of the model, 1 to 4, or auto (the default:\n"
    "                          1 to 3, as the data support)\n"
    "  -a, --ambient=COLUMN    subtract an ambient column first\n"
    "      --from, --to, --tau-min, --tau-max, --level, --labels\n"
    "                          as tb-fit(1)\n"
    "  -h, --help              show this help and exit\n"
    "  -V, --version           show the version and exit\n"
    "\n"
    "Exit status: 0 the report is written; 1 it is written and a fit failed\n"
    "or a regression was found; 2 usage or input error; 3 output error; 4 it is\n"
    "written and the comparison is inconclusive (a group has too few sound fits).\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-report", fmt, arg);
}

enum { OPT_THRESHOLD = 256, OPT_TOLERANCE, OPT_TITLE, OPT_MAX_FIGURES, OPT_INCLUDE_FLAGGED };

static const struct option own_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"column", required_argument, NULL, 'c'},
    {"group-by", required_argument, NULL, 'g'},
    {"baseline", required_argument, NULL, 'b'},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"include-flagged", no_argument, NULL, OPT_INCLUDE_FLAGGED},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"title", required_argument, NULL, OPT_TITLE},
    {"max-figures", required_argument, NULL, OPT_MAX_FIGURES},
    {"jobs", required_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

struct settings {
    const char *dir;
    const char **columns;
    size_t ncolumns;
    const char *group_by, *baseline, *title;
    const char *threshold;
    int include_flagged;       /* flagged fits in the comparison's means */
    double tolerance;
    long max_figures;
    int jobs;                  /* -j: fits and figures at a time */
    struct tb_model_settings m;
    const char **model_args;   /* the model options as given, for tb-plot */
    size_t nmodel_args;
};

/* The long name of option VAL in OPTS. */
static const char *option_name(const struct option *opts, int val)
{
    for (; opts->name; opts++)
        if (opts->val == val)
            return opts->name;
    return "?";
}

static int parse_arguments(int argc, char **argv, struct settings *s, const struct option *options)
{
    char err[TB_ERRMAX];
    int c;
    double x;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:c:g:b:n:a:j:hV", options, NULL)) != -1) {
        int m = tb_model_option(c, optarg, &s->m, err, sizeof err);
        if (m < 0)
            return usage_error("%s", err);
        if (m > 0) {   /* kept as given, for tb-plot's figures */
            char *a = NULL;
            if (asprintf(&a, "--%s=%s", option_name(options, c), optarg) < 0 ||
                tb_cli_push(&s->model_args, &s->nmodel_args, a) < 0)
                return usage_error("%s", "out of memory");
            continue;
        }
        switch (c) {
        case 'o': s->dir = optarg; break;
        case 'c':
            if (tb_cli_push(&s->columns, &s->ncolumns, optarg) < 0)
                return usage_error("%s", "out of memory");
            break;
        case 'g': s->group_by = optarg; break;
        case 'b': s->baseline = optarg; break;
        case OPT_INCLUDE_FLAGGED: s->include_flagged = 1; break;
        case OPT_THRESHOLD:
            if (tb_cli_number(optarg, &x) < 0 || !(x >= 0))
                return usage_error("--threshold wants °C, not '%s'", optarg);
            s->threshold = optarg;
            break;
        case OPT_TOLERANCE:
            if (tb_cli_number(optarg, &s->tolerance) < 0 || !(s->tolerance > 0))
                return usage_error("--tolerance wants a positive °C, not '%s'", optarg);
            break;
        case OPT_TITLE: s->title = optarg; break;
        case 'j':
            if (tb_cli_jobs(optarg, &s->jobs, err, sizeof err) < 0)
                return usage_error("%s", err);
            break;
        case OPT_MAX_FIGURES:
            if (tb_cli_number(optarg, &x) < 0 || !(x >= 0 && x <= 10000) || x != floor(x))
                return usage_error("--max-figures wants a count from 0 to 10000, not '%s'", optarg);
            s->max_figures = (long)x;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return TB_EXIT_OK;
        case 'V':
            printf("tb-report (%s) %s\n", PACKAGE_NAME, tb_version());
            return TB_EXIT_OK;
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return tb_cli_unknown_option("tb-report", argv[optind - 1], options);
        }
    }
    if (tb_model_check(&s->m, err, sizeof err) < 0)
        return usage_error("%s", err);
    if (!s->dir)
        return usage_error("%s", "no report folder: -o DIR");
    if (optind >= argc)
        return usage_error("%s", "no run given");
    if (s->baseline && !s->group_by)
        return usage_error("%s", "--baseline needs --group-by");
    return -1;
}

/* --- HTML ----------------------------------------------------------------------- */

static void html(FILE *f, const char *s)
{
    tb_markup_text(f, s, SIZE_MAX);
}

/* "52.68 [52.62, 52.73]" in the text reports' one numeric style ("%+"
 * with SIGN); a dash when there is no value. */
static void html_interval(FILE *f, double value, double lo, double hi, int fallback, int sign)
{
    tb_estimate_text t;
    if (!isfinite(value)) {
        fputs("–", f);
        return;
    }
    if (tb_format_estimate(&t, value, lo, hi, tb_interval_decimals(value, lo, hi, fallback), sign))
        fprintf(f, "<span class=iv>%s <span class=ci>[%s, %s]</span></span>", t.value, t.lo, t.hi);
    else
        fprintf(f, "%s <span class=ci>[interval unknown]</span>", t.value);
}

static void html_estimate(FILE *f, const tb_estimate *e, int fallback)
{
    html_interval(f, e->value, e->lo, e->hi, fallback, 0);
}

/* Every flag of FLAGS ("a;b") in words. */
static void html_flags(FILE *f, const char *flags)
{
    if (!flags || !*flags) {
        fputs("<td class=ok>sound</td>", f);
        return;
    }
    fputs("<td class=flag>", f);
    char *copy = strdup(flags), *save = NULL;
    for (char *t = copy ? strtok_r(copy, ";", &save) : NULL; t; t = strtok_r(NULL, ";", &save)) {
        const char *words = NULL;
        for (unsigned bit = 1; bit && bit <= TB_FIT_FLAG_LAST; bit <<= 1)
            if (tb_fit_flag_name(bit) && strcmp(tb_fit_flag_name(bit), t) == 0)
                words = tb_fit_flag_meaning(bit);
        fputs("<b>", f);
        html(f, t);
        fputs("</b>", f);
        if (words) {
            fputs(": ", f);
            html(f, words);
        }
        fputs("<br>", f);
    }
    free(copy);
    fputs("</td>", f);
}

/* The PNG at PATH inlined as a data: URI, so that the page stands alone. */
static int html_image(FILE *f, const char *path, const char *alt)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    FILE *in = fopen(path, "rb");
    if (!in)
        return -1;
    fputs("<img alt=\"", f);
    html(f, alt);
    fputs("\" src=\"data:image/png;base64,", f);
    unsigned char b[3];
    size_t n;
    while ((n = fread(b, 1, 3, in)) > 0) {
        unsigned v = (unsigned)b[0] << 16 | (n > 1 ? (unsigned)b[1] << 8 : 0) | (n > 2 ? b[2] : 0);
        fputc(b64[v >> 18 & 63], f);
        fputc(b64[v >> 12 & 63], f);
        fputc(n > 1 ? b64[v >> 6 & 63] : '=', f);
        fputc(n > 2 ? b64[v & 63] : '=', f);
    }
    int bad = ferror(in);
    fclose(in);
    fputs("\">", f);
    return bad ? -1 : 0;
}

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
    ".meta{color:#555}table{border-collapse:collapse;margin:.5em 0 1em;font-size:13px}"
    "th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}"
    ".wide{overflow-x:auto}th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".ci{color:#666}.ok{color:#186a1c}.flag{color:#8a4b00}.bad{color:#b00020;font-weight:bold}"
    ".verdict{font-size:1.2em;padding:.5em 1em;border-radius:4px;display:inline-block}"
    ".verdict.bad{background:#fde8ea}.verdict.ok{background:#e8f5e9}"
    ".warn{color:#8a4b00;font-weight:bold}.verdict.warn{background:#fff4e0}ul.verdicts b{font-weight:bold}"
    "td.num,.iv{white-space:nowrap}"
    "figure{margin:1em 0;break-inside:avoid;page-break-inside:avoid}figure img{max-width:100%;"
    "border:1px solid #eee}figcaption{color:#555}ul.msg li{font-family:monospace;font-size:12px}"
    "@page{margin:15mm}"   /* the paper's own size: A4 or Letter alike */
    "@media print{body{margin:0;max-width:none;font-size:11px}h2{break-after:avoid}"
    "table{break-inside:auto}thead{display:table-header-group}tr{break-inside:avoid}"
    ".wide{overflow:visible}}";

/* --- the other tools ------------------------------------------------------------ */

/* Run ARGV, its standard output into OUT (NULL: /dev/null) and its
 * standard error appended to ERRS; its exit status, or -1. */
static int run_tool(char *const *argv, const char *out, const char *errs)
{
    return tb_run_program(argv, out ? out : "/dev/null", errs, "tb-report");
}

/* tb-compare's CSV rows (column,group,metric,runs,mean,lo,hi,sd,baseline,
 * diff,diff_lo,diff_hi,p,p_holm,verdict), as strings. */
struct table {
    char ***rows;
    size_t nrows, ncells;
    char **cur;
    size_t ncur;
};

static void on_cell(void *s, size_t len, void *data)
{
    struct table *t = data;
    char **nc = realloc(t->cur, (t->ncur + 1) * sizeof *nc);
    if (!nc)
        return;
    t->cur = nc;
    nc[t->ncur++] = strndup(s ? s : "", s ? len : 0);
}

static void on_row(int c, void *data)
{
    struct table *t = data;
    (void)c;
    char ***nr = realloc(t->rows, (t->nrows + 1) * sizeof *nr);
    char **row = calloc(16, sizeof *row);
    if (nr && row) {
        t->rows = nr;
        for (size_t i = 0; i < t->ncur && i < 16; i++)
            row[i] = t->cur[i];
        for (size_t i = 16; i < t->ncur; i++)
            free(t->cur[i]);
        nr[t->nrows++] = row;
    } else {
        free(row);
        for (size_t i = 0; i < t->ncur; i++)
            free(t->cur[i]);
    }
    free(t->cur);
    t->cur = NULL;
    t->ncur = 0;
}

static int table_read(const char *path, struct table *t)
{
    FILE *f = fopen(path, "r");
    struct csv_parser p;
    char buf[4096];
    size_t n;
    if (!f || csv_init(&p, CSV_APPEND_NULL) != 0) {
        if (f)
            fclose(f);
        return -1;
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        csv_parse(&p, buf, n, on_cell, on_row, t);
    csv_fini(&p, on_cell, on_row, t);
    csv_free(&p);
    fclose(f);
    return 0;
}

static void table_free(struct table *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < 16; j++)
            free(t->rows[i][j]);
        free(t->rows[i]);
    }
    free(t->rows);
}

static const char *cell(char **row, int i)
{
    return row[i] ? row[i] : "";
}

/* --- the report ----------------------------------------------------------------- */

struct report {
    const struct settings *s;
    tb_analysis *a;
    tb_result *rows;          /* each analysed column, as tb-fit's results */
    size_t nrows;
    char tmp[PATH_MAX];       /* a private folder for the tools' outputs */
    char figdir[PATH_MAX];
    char errs[PATH_MAX + 16]; /* the tools' standard error, gathered */
    struct table cmp;
    int have_cmp, regression, inconclusive, failed;
    char **figs, **captions;  /* PNG paths and what they show */
    size_t nfigs;
    size_t cmp_fig;           /* the comparison's figure in FIGS, or NFIGS */
    size_t tradeoff_fig;      /* the strategies' trade-off figure, or NFIGS */
    int limited;              /* runs under thermal limits: a trip or a
                                 cooling device (strategies to compare) */
    size_t skip;              /* the directory all runs share, not repeated in the tables */
};

/* PATH without the directory all the runs share. */
static const char *shown_path(const struct report *r, const char *path)
{
    const tb_run *first = tb_analysis_run(r->a, 0);
    if (r->skip && first && strncmp(path, tb_run_source(first), r->skip) == 0)
        return path + r->skip;
    return path;
}

static void add_figure(struct report *r, const char *path, const char *caption)
{
    char **nf = realloc(r->figs, (r->nfigs + 1) * sizeof *nf);
    char **nc = nf ? realloc(r->captions, (r->nfigs + 1) * sizeof *nc) : NULL;
    if (nf)
        r->figs = nf;
    if (nc)
        r->captions = nc;
    if (nf && nc) {
        nf[r->nfigs] = strdup(path);
        nc[r->nfigs] = strdup(caption);
        r->nfigs++;
    }
}

/* tb-plot FIGURE RUN [-c COLUMN] [model options] -o PNG; 0 when drawn. */
static int plot_run(struct report *r, const char *tool, const char *figure, const char *run,
                    const char *column, const char *png)
{
    const char *argv[64];
    size_t n = 0;
    argv[n++] = tool;
    argv[n++] = figure;
    argv[n++] = run;
    if (column) {
        argv[n++] = "-c";
        argv[n++] = column;
    }
    for (size_t i = 0; i < r->s->nmodel_args && n < 60; i++)
        argv[n++] = r->s->model_args[i];
    argv[n++] = "-o";
    argv[n++] = png;
    argv[n] = NULL;
    int st = run_tool((char *const *)argv, NULL, r->errs);
    return st == 0 || st == 1 ? 0 : -1;   /* 1: drawn, the fit flagged or failed */
}

/* The tool NAME (in the build tree's SUBDIR), or NULL with WITHOUT said
 * among the page's messages. */
static char *find_tool(struct report *r, const char *name, const char *subdir, const char *without)
{
    char *tool = tb_find_program(name, subdir);
    FILE *e = tool ? NULL : fopen(r->errs, "a");
    if (e) {
        fprintf(e, "tb-report: %s is neither beside tb-report nor on PATH: %s\n", name, without);
        fclose(e);
    }
    return tool;
}

/* One run's two figures, drawn by one of the -j workers. */
struct run_figures {
    size_t row;               /* its first column in R->rows */
    char png[2][PATH_MAX + 64];
    int drawn[2];             /* the fit, the run length */
};

struct figure_work {
    struct report *r;
    const char *tool;
    struct run_figures *runs;
};

static void draw_run_figures(void *ctx, size_t i)
{
    struct figure_work *w = ctx;
    struct run_figures *f = &w->runs[i];
    const tb_result *row = &w->r->rows[f->row];
    snprintf(f->png[0], sizeof f->png[0], "%s/fit-%zu.png", w->r->figdir, i + 1);
    f->drawn[0] = plot_run(w->r, w->tool, "fit", row->file, row->column, f->png[0]) == 0;
    if (row->failed)
        return;
    snprintf(f->png[1], sizeof f->png[1], "%s/runlength-%zu.png", w->r->figdir, i + 1);
    f->drawn[1] = plot_run(w->r, w->tool, "runlength", row->file, row->column, f->png[1]) == 0;
}

/* The fit and run length of each of the first --max-figures runs' first
 * column, -j at a time, added in the runs' order. */
static void make_run_figures(struct report *r, const char *tool)
{
    size_t n = 0, max = (size_t)r->s->max_figures;
    struct run_figures *runs = calloc(max < r->nrows ? max : r->nrows, sizeof *runs);
    for (size_t i = 0; runs && i < r->nrows && n < max; i++)
        if (i == 0 || strcmp(r->rows[i].file, r->rows[i - 1].file) != 0)
            runs[n++].row = i;   /* one run's first column */
    struct figure_work w = {.r = r, .tool = tool, .runs = runs};
    struct tb_work_pool pool;
    if (n == 0 || tb_work_pool_start(&pool, n, r->s->jobs, draw_run_figures, &w) < 0) {
        free(runs);
        return;
    }
    struct tb_progress progress;
    tb_progress_start(&progress, "tb-report", "figures", n);
    for (size_t i = 0; i < n; i++) {
        tb_work_pool_wait(&pool, i);
        const tb_result *row = &r->rows[runs[i].row];
        char caption[PATH_MAX + 128];
        snprintf(caption, sizeof caption, "%s: %s, the fit and its residuals", row->file,
                 row->column);
        if (runs[i].drawn[0])
            add_figure(r, runs[i].png[0], caption);
        snprintf(caption, sizeof caption, "%s: %s, T∞ of the run's first minutes: how long a "
                 "run must be", row->file, row->column);
        if (runs[i].drawn[1])
            add_figure(r, runs[i].png[1], caption);
        tb_progress_show(&progress, i + 1);
    }
    tb_progress_clear(&progress);
    tb_work_pool_finish(&pool);
    free(runs);
}

/* The strategies' trade-off (tb-plot tradeoff) of groups of runs under
 * thermal limits. */
static void make_tradeoff_figure(struct report *r, const char *tool, const char *results)
{
    char png[PATH_MAX + 64], caption[512];
    snprintf(png, sizeof png, "%s/tradeoff.png", r->figdir);
    const char *argv[] = {tool, "tradeoff", results, "--group-by", r->s->group_by, "-o", png, NULL};
    snprintf(caption, sizeof caption, "Work rate over the last third against the peak "
             "temperature of each group, by %s, with intervals both ways", r->s->group_by);
    int st = run_tool((char *const *)argv, NULL, r->errs);
    if (st == 0 || st == 1) {
        r->tradeoff_fig = r->nfigs;
        add_figure(r, png, caption);
    }
}

/* The figures: the runs', then the groups compared. */
static void make_figures(struct report *r, const char *results)
{
    char *tool = find_tool(r, "tb-plot", "plot", "no figures");
    if (!tool)
        return;
    make_run_figures(r, tool);
    if (r->s->group_by && r->limited)
        make_tradeoff_figure(r, tool, results);
    if (r->have_cmp) {
        char png[PATH_MAX + 64], caption[512];
        snprintf(png, sizeof png, "%s/compare.png", r->figdir);
        /* with tb-compare's baseline, threshold and verdicts of T∞ */
        const char *argv[64];
        char *own[40];
        size_t n = 0, nown = 0;
        const char *fixed[] = {tool, "compare", results, "--group-by", r->s->group_by, "--ops", "-o", png};
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
            argv[n++] = fixed[i];
        /* the regression line where tb-compare looked for regressions (a
         * baseline or a threshold given; its default threshold is 0.5) */
        if ((r->s->threshold || r->s->baseline) &&
            asprintf(&own[nown], "--threshold=%s", r->s->threshold ? r->s->threshold : "0.5") >= 0)
            argv[n++] = own[nown++];
        if (r->s->include_flagged)
            argv[n++] = "--include-flagged";
        for (size_t i = 1; i < r->cmp.nrows && nown < 40; i++) {
            char **row = r->cmp.rows[i];
            if (i == 1 && asprintf(&own[nown], "--baseline=%s", cell(row, 8)) >= 0)
                argv[n++] = own[nown++];
            if (strcmp(cell(row, 2), "T_inf") == 0 && *cell(row, 14) && nown < 40 &&
                asprintf(&own[nown], "--verdict=%s=%s", cell(row, 1), cell(row, 14)) >= 0)
                argv[n++] = own[nown++];
        }
        argv[n] = NULL;
        snprintf(caption, sizeof caption, "T∞ of each run and group, by %s, with intervals",
                 r->s->group_by);
        int st = run_tool((char *const *)argv, NULL, r->errs);
        if (st == 0 || st == 1) {
            r->cmp_fig = r->nfigs;
            add_figure(r, png, caption);
        }
        for (size_t i = 0; i < nown; i++)
            free(own[i]);
    }
    free(tool);
}

/* tb-compare on the fits, by --group-by: its table and verdicts. */
static void compare_groups(struct report *r, const char *results)
{
    char *tool = find_tool(r, "tb-compare", "compare", "no comparison");
    char out[PATH_MAX + 32];
    if (!tool)
        return;
    snprintf(out, sizeof out, "%s/compare.csv", r->tmp);
    const char *argv[16];
    size_t n = 0;
    argv[n++] = tool;
    argv[n++] = "-f";
    argv[n++] = "csv";
    argv[n++] = "--group-by";
    argv[n++] = r->s->group_by;
    if (r->s->baseline) {
        argv[n++] = "--baseline";
        argv[n++] = r->s->baseline;
    }
    if (r->s->threshold) {
        argv[n++] = "--threshold";
        argv[n++] = r->s->threshold;
    }
    if (r->s->include_flagged)
        argv[n++] = "--include-flagged";
    argv[n++] = results;
    argv[n] = NULL;
    int st = run_tool((char *const *)argv, out, r->errs);
    if ((st == TB_EXIT_OK || st == TB_EXIT_FIT || st == TB_EXIT_INCONCLUSIVE) &&
        table_read(out, &r->cmp) == 0) {
        r->have_cmp = 1;
        r->regression = st == TB_EXIT_FIT;
        r->inconclusive = st == TB_EXIT_INCONCLUSIVE;
    }
    free(tool);
}

static void write_runs(FILE *f, const struct report *r)
{
    size_t nruns = tb_analysis_nruns(r->a);
    /* one column per metadata key any run has, in order of appearance */
    const char *keys[64];
    size_t nkeys = 0;
    for (size_t i = 0; i < nruns; i++) {
        const tb_run *run = tb_analysis_run(r->a, i);
        for (size_t k = 0; run && k < tb_run_nmeta(run) && nkeys < 64; k++) {
            const char *key = tb_run_meta_key(run, k);
            size_t j = 0;
            while (j < nkeys && strcmp(keys[j], key) != 0)
                j++;
            if (j == nkeys && strncmp(key, "truth", 5) != 0 && strncmp(key, "trip.", 5) != 0)
                keys[nkeys++] = key;
        }
    }
    fprintf(f, "<section id=runs><h2>Runs</h2><p>%zu run%s", nruns, nruns == 1 ? "" : "s");
    if (r->skip) {
        fputs(" in <code>", f);
        tb_markup_text(f, tb_run_source(tb_analysis_run(r->a, 0)), r->skip);
        fputs("</code>, named below without it", f);
    }
    fputs(".</p><div class=wide><table><thead><tr><th>run</th><th>started</th>", f);
    for (size_t j = 0; j < nkeys; j++) {
        fputs("<th>", f);
        html(f, keys[j]);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n", f);
    for (size_t i = 0; i < nruns; i++) {
        const tb_run *run = tb_analysis_run(r->a, i);
        if (!run)
            continue;
        fputs("<tr><td>", f);
        html(f, shown_path(r, tb_run_source(run)));
        fputs("</td><td>", f);
        html(f, tb_run_started(run) ? tb_run_started(run) : "");
        fputs("</td>", f);
        for (size_t j = 0; j < nkeys; j++) {
            fputs("<td>", f);
            html(f, tb_run_meta(run, keys[j]));
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div></section>\n", f);
}

static void write_fits(FILE *f, const struct report *r)
{
    int order = 0, ops = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        if (r->rows[i].order > order)
            order = r->rows[i].order;
        ops |= isfinite(r->rows[i].ops_per_s);
    }
    fputs("<section id=fits><h2>Fits</h2><p>T(t) = T∞ + Σ k<sub>i</sub>·exp(−t/τ<sub>i</sub>), each "
          "estimate with its interval, written with the digits the interval carries.</p>\n", f);
    fputs("<table><thead><tr><th>run</th><th>column</th><th>T∞</th>", f);
    for (int j = 0; j < order; j++)
        fprintf(f, "<th>τ%d (s)</th>", j + 1);
    fputs("<th>rmse</th><th>run length</th>", f);
    if (ops)
        fputs("<th>work rate (operations/s)</th>", f);
    fputs("<th>flags</th></tr></thead>\n", f);
    for (size_t i = 0; i < r->nrows; i++) {
        const tb_result *x = &r->rows[i];
        const tb_analysed_column *c = tb_analysis_column(r->a, i);
        fputs("<tr><td>", f);
        html(f, shown_path(r, x->file));
        fputs("</td><td>", f);
        html(f, x->column);
        fputs("</td>", f);
        if (x->failed) {
            fprintf(f, "<td class=bad colspan=%d>the fit failed: ", order + 3 + ops);
            html(f, x->error);
            fputs("</td><td></td></tr>\n", f);
            continue;
        }
        fputs("<td class=num>", f);
        html_estimate(f, &x->t_inf, 2);
        fputs(" ", f);
        html(f, x->unit);
        fputs("</td>", f);
        for (int j = 0; j < order; j++) {
            fputs("<td class=num>", f);
            if (j < x->order)
                html_estimate(f, &x->tau[j], 1);
            fputs("</td>", f);
        }
        fprintf(f, "<td class=num>%.3g</td><td>", x->rmse);
        if (c && c->run_length && isfinite(c->run_length->shortest)) {
            if (c->run_length->shortest >= x->duration * 0.999)
                fputs("<span class=flag>the whole run: no shorter one holds T∞</span>", f);
            else
                fprintf(f, "%.0f s (%.1f min)", c->run_length->shortest, c->run_length->shortest / 60);
        } else if (c && c->run_length) {
            fputs("<span class=flag>not found: a longer run</span>", f);
        } else {
            fputs("–", f);
        }
        fputs("</td>", f);
        if (ops) {
            fputs("<td class=num>", f);
            if (x->ops_hi - x->ops_lo <= 1e-9 * fabs(x->ops_per_s))   /* as steady as a clock */
                fprintf(f, "%.6g <span class=ci>(the same in every tenth)</span>", x->ops_per_s);
            else
                html_interval(f, x->ops_per_s, x->ops_lo, x->ops_hi, 6, 0);
            fputs("</td>", f);
        }
        html_flags(f, x->flags);
        fputs("</tr>\n", f);
    }
    fprintf(f, "</table><p class=meta>Run length: the shortest prefix from which T∞'s interval stays "
               "within ±%g °C of the whole run's.</p></section>\n", r->s->tolerance);
}

/* Figure I of R with its caption; 0, or -1 when it cannot be read. */
static int write_figure(FILE *f, const struct report *r, size_t i)
{
    fputs("<figure>", f);
    if (html_image(f, r->figs[i], r->captions[i]) < 0)
        return -1;
    fputs("<figcaption>", f);
    html(f, r->captions[i]);
    fputs("</figcaption></figure>\n", f);
    return 0;
}

/* The quantity of a tb-compare CSV metric in words into WORDS, and its
 * unit ("" for a rate or a share, which say their own). */
static const char *metric_words(const char *metric, char *words, size_t size)
{
    static const struct { const char *metric, *words, *unit; } known[] = {
        {"T_inf", "T∞", "°C"},
        {"ops_per_s", "operations/s", ""},
        {"ops_sustained_per_s", "operations/s, last third", ""},
        {"peak", "peak", "°C"},
        {"above_limit_s", "time above the limit", "s"},
        {"throttled_share", "throttled share", ""},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(metric, known[i].metric) == 0) {
            snprintf(words, size, "%s", known[i].words);
            return known[i].unit;
        }
    snprintf(words, size, "τ%s", strncmp(metric, "tau", 3) == 0 ? metric + 3 : metric);
    return "s";
}

static int write_comparison(FILE *f, const struct report *r)
{
    if (!r->s->group_by)
        return 0;
    fputs("<section id=comparison><h2>Comparison</h2>", f);
    if (!r->have_cmp) {
        fputs("<p class=bad>The groups could not be compared: see the messages below.</p></section>\n", f);
        return 0;
    }
    if (r->cmp_fig < r->nfigs && write_figure(f, r, r->cmp_fig) < 0)
        return -1;
    fputs("<p>Each group against the first (or the baseline): Welch's t-test, Holm-corrected; "
          "flagged fits left out; a regression is significant <i>and</i> beyond its threshold "
          "(tb-compare(1)).</p>\n", f);
    fputs("<table><thead><tr><th>column</th><th>group</th><th>quantity</th><th>runs</th><th>mean</th>"
          "<th>change from the baseline</th><th>p (Holm)</th><th>verdict</th></tr></thead>\n", f);
    for (size_t i = 1; i < r->cmp.nrows; i++) {
        char **row = r->cmp.rows[i];
        const char *metric = cell(row, 2), *verdict = cell(row, 14);
        char words[64], name[80];
        const char *unit = metric_words(metric, words, sizeof words);
        snprintf(name, sizeof name, *unit ? "%s (%s)" : "%s", words, unit);
        tb_estimate mean = {atof(cell(row, 4)), *cell(row, 5) ? atof(cell(row, 5)) : NAN,
                            *cell(row, 6) ? atof(cell(row, 6)) : NAN};
        int ops = strncmp(metric, "ops_", 4) == 0;
        fputs("<tr><td>", f);
        html(f, cell(row, 0));
        fputs("</td><td>", f);
        html(f, cell(row, 1));
        fprintf(f, "</td><td>%s</td><td class=num>", name);
        html(f, cell(row, 3));
        fputs("</td><td class=num>", f);
        html_estimate(f, &mean, ops ? 0 : 2);
        fputs("</td><td class=num>", f);
        if (*cell(row, 9)) {
            html_interval(f, atof(cell(row, 9)), atof(cell(row, 10)), atof(cell(row, 11)), ops ? 0 : 2, 1);
        } else {
            fputs(strcmp(cell(row, 1), cell(row, 8)) == 0 ? "baseline" : "–", f);
        }
        fputs("</td><td class=num>", f);
        if (*cell(row, 13))
            fprintf(f, "%.2g", atof(cell(row, 13)));
        fprintf(f, "</td><td class=%s>", strcmp(verdict, "regression") == 0 ||
                                             strcmp(verdict, "changed") == 0 ? "bad"
                                         : strcmp(verdict, "inconclusive") == 0 ? "warn" : "ok");
        html(f, verdict);
        fputs("</td></tr>\n", f);
    }
    fputs("</table></section>\n", f);
    return 0;
}

/* The strategies' section, for groups of runs under thermal limits: the
 * trade-off that decides between them. */
static int write_strategies(FILE *f, const struct report *r)
{
    if (!r->s->group_by || !r->limited)
        return 0;
    fputs("<section id=strategies><h2>Strategies under their limits</h2>", f);
    fputs("<p>What each group of runs did under its thermal limits, measured, not fitted: the "
          "work rate it kept over the run's last third against the peak temperature it reached, "
          "each the mean of its runs with its interval in both directions; the dashed line is "
          "the limit (the zone's lowest passive trip). The best strategy is the highest point "
          "left of the limit. The comparison above tests the peak, the time above the limit, "
          "the throttled share and the sustained work rate between the groups.</p>\n", f);
    if (r->tradeoff_fig < r->nfigs) {
        if (write_figure(f, r, r->tradeoff_fig) < 0)
            return -1;
    } else {
        fputs("<p class=warn>No trade-off figure: the runs need a work counter (see the "
              "messages below).</p>", f);
    }
    fputs("</section>\n", f);
    return 0;
}

/* The summary's verdicts, first on the page: the overall word, then each
 * verdict naming its group, column and change with its interval, and the
 * fits no verdict rests on (as tb-compare said them). */
static void write_verdicts(FILE *f, const struct report *r)
{
    int asked = r->s->baseline || r->s->threshold;   /* regressions asked for */
    const char *word = !asked ? "Compared: differences from the first group (no --baseline "
                                "or --threshold, so no regression verdicts)"
                       : r->regression ? "Regression found"
                       : r->inconclusive ? "Inconclusive: a group has too few sound fits"
                       : "No regression";
    fprintf(f, "<p class=\"verdict %s\">%s</p>", r->regression ? "bad" : r->inconclusive ? "warn" : "ok",
            word);
    int any = 0;
    for (size_t i = 1; i < r->cmp.nrows; i++) {
        char **row = r->cmp.rows[i];
        const char *verdict = cell(row, 14);
        char words[64];
        if (!*verdict)
            continue;
        int bad = strcmp(verdict, "regression") == 0 || strcmp(verdict, "changed") == 0;
        fprintf(f, "%s<li class=%s><b>", any++ ? "" : "<ul class=verdicts>",
                bad ? "bad" : strcmp(verdict, "inconclusive") == 0 ? "warn" : "ok");
        html(f, verdict);
        fputs("</b>: ", f);
        html(f, cell(row, 1));
        fputs(", ", f);
        html(f, cell(row, 0));
        const char *unit = metric_words(cell(row, 2), words, sizeof words);
        fprintf(f, ", %s ", words);
        if (*cell(row, 9)) {
            int ops = strncmp(cell(row, 2), "ops_", 4) == 0;
            html_interval(f, atof(cell(row, 9)), atof(cell(row, 10)), atof(cell(row, 11)), ops ? 0 : 2, 1);
            fprintf(f, "%s%s from ", *unit ? " " : "", unit);
            html(f, cell(row, 8));
        } else {
            fputs("not tested: too few sound fits", f);
        }
        fputs("</li>\n", f);
    }
    if (any)
        fputs("</ul>", f);
    /* tb-compare's word on the fits it left out */
    FILE *e = fopen(r->errs, "r");
    char *line = NULL;
    size_t size = 0;
    while (e && getline(&line, &size, e) >= 0)
        if (strncmp(line, "tb-compare: ", 12) == 0 && strstr(line, " fits left out, flagged")) {
            fputs("<p class=warn>", f);
            html(f, line + 12);
            fputs("</p>", f);
            break;
        }
    free(line);
    if (e)
        fclose(e);
}

/* LINE less the tool that said it ("tb-plot: "), which tells nothing of
 * the cause: what two tools say alike is one message. */
static const char *message_cause(const char *line)
{
    if (strncmp(line, "tb-", 3) == 0) {
        const char *colon = strstr(line, ": ");
        if (colon && (size_t)(colon - line) < 16)
            return colon + 2;
    }
    return line;
}

/* The tools' messages gathered in R->errs, each cause once: the analysis
 * said it already, or another tool (every figure rereads its run and
 * says the run's warnings again).  A NULL-ended array to free, or NULL. */
static char **unique_messages(const struct report *r)
{
    FILE *e = fopen(r->errs, "r");
    char *line = NULL, **v = NULL;
    size_t size = 0, n = 0;
    while (e && getline(&line, &size, e) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        const char *cause = message_cause(line);
        int seen = 0;
        for (size_t i = 0; !seen && i < tb_analysis_nmessages(r->a); i++)
            seen = strcmp(tb_analysis_message(r->a, i), cause) == 0;
        for (size_t i = 0; !seen && i < n; i++)
            seen = strcmp(message_cause(v[i]), cause) == 0;
        char **nv = seen ? v : realloc(v, (n + 2) * sizeof *nv);
        if (!nv)
            break;
        v = nv;
        if (!seen && (v[n] = strdup(line)))
            v[++n] = NULL;
    }
    free(line);
    if (e)
        fclose(e);
    return v;
}

static void free_messages(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void write_messages(FILE *f, const struct report *r)
{
    size_t n = tb_analysis_nmessages(r->a);
    fputs("<section id=messages><h2>Warnings and notes</h2>", f);
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        fputs(any++ ? "<li>" : "<ul class=msg><li>", f);
        html(f, tb_analysis_message(r->a, i));
        fputs("</li>\n", f);
    }
    char **tools = unique_messages(r);
    for (size_t i = 0; tools && tools[i]; i++) {
        fputs(any++ ? "<li>" : "<ul class=msg><li>", f);
        html(f, tools[i]);
        fputs("</li>\n", f);
    }
    free_messages(tools);
    fputs(any ? "</ul>" : "<p class=ok>None: every run was read and fitted without a word.</p>", f);
    fputs("</section>\n", f);
}

static int write_page(FILE *f, struct report *r, int argc, char **argv)
{
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M %z", localtime_r(&now, &tm));
    size_t flagged = 0;
    for (size_t i = 0; i < r->nrows; i++)
        flagged += !r->rows[i].failed && r->rows[i].flags && *r->rows[i].flags;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n<title>", f);
    html(f, r->s->title ? r->s->title : "tbkit report");
    fprintf(f, "</title>\n<meta name=viewport content=\"width=device-width\">\n<style>%s</style>"
               "</head>\n<body>\n<h1>", style);
    html(f, r->s->title ? r->s->title : "tbkit report");
    fprintf(f, "</h1>\n<p class=meta>Made by tb-report (tbkit %s) on %s: tb-report", tb_version(), when);
    for (int i = 1; i < argc; i++) {
        fputc(' ', f);
        html(f, argv[i]);
    }
    fputs("</p>\n<section id=summary><h2>Summary</h2>", f);
    if (r->s->group_by && r->have_cmp)
        write_verdicts(f, r);
    fprintf(f, "<p>%zu run%s, %zu column%s fitted: %zu sound, %zu flagged, %d failed.</p></section>\n",
            tb_analysis_nruns(r->a), tb_analysis_nruns(r->a) == 1 ? "" : "s", r->nrows,
            r->nrows == 1 ? "" : "s", r->nrows - flagged - (size_t)r->failed, flagged, r->failed);
    /* the comparison before the runs: it is what the page is for */
    if (write_comparison(f, r) < 0 || write_strategies(f, r) < 0)
        return -1;
    write_runs(f, r);
    write_fits(f, r);
    fputs("<section id=figures><h2>Figures</h2>\n", f);
    for (size_t i = 0; i < r->nfigs; i++)
        if (i != r->cmp_fig && i != r->tradeoff_fig && write_figure(f, r, i) < 0)
            return -1;
    if (!r->nfigs)
        fputs("<p>No figure (see the messages).</p>", f);
    if (tb_analysis_nruns(r->a) > (size_t)r->s->max_figures)
        fprintf(f, "<p class=meta>The figures of the first %ld runs (--max-figures).</p>",
                r->s->max_figures);
    fputs("</section>\n", f);
    write_messages(f, r);
    /* for a browser's test, and for a reader's: every figure loaded? */
    fputs("<script>addEventListener('load',function(){var i=document.images,n=0;"
          "for(var k=0;k<i.length;k++)if(i[k].complete&&i[k].naturalWidth>0)n++;"
          "document.body.setAttribute('data-figures',n+'/'+i.length)})</script>\n"
          "</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}

/* The analysis's word after each fit, for the progress line. */
static void show_fitting(void *ctx, size_t done, size_t total)
{
    struct tb_progress *p = ctx;
    p->total = total;
    tb_progress_show(p, done);
}

static int make_dir(const char *path)
{
    return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* The report's folder, its figures', and a private one for the tools.
 * -1, or TB_EXIT_OUTPUT (said). */
static int make_folders(struct report *r)
{
    const char *dir = r->s->dir, *tmpdir = getenv("TMPDIR");
    snprintf(r->figdir, sizeof r->figdir, "%s/figures", dir);
    snprintf(r->tmp, sizeof r->tmp, "%s/tb-report.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (make_dir(dir) < 0 || make_dir(r->figdir) < 0 || !mkdtemp(r->tmp)) {
        fprintf(stderr, "tb-report: %s: %s\n", make_dir(dir) < 0 ? dir : r->tmp, strerror(errno));
        r->tmp[0] = '\0';
        return TB_EXIT_OUTPUT;
    }
    snprintf(r->errs, sizeof r->errs, "%s/messages", r->tmp);
    return -1;
}

/* The fits and run lengths of PATHS, as tb-fit makes them.  -1, or the
 * exit status (said). */
static int analyse_runs(struct report *r, const struct tb_paths *paths)
{
    const struct settings *s = r->s;
    char err[TB_ERRMAX];
    tb_analysis_options o = tb_model_analysis_options(&s->m);
    o.columns = s->columns;
    o.ncolumns = s->ncolumns;
    o.tolerance = s->tolerance;
    o.run_length = 1;
    o.jobs = s->jobs;
    /* many runs take a while to fit: a progress line on a terminal */
    struct tb_progress fitting;
    tb_progress_start(&fitting, "tb-report", "columns fitted", 1000);
    o.progress = show_fitting;
    o.progress_ctx = &fitting;
    r->a = tb_analyse_paths((const char *const *)paths->v, paths->n, &o, err, sizeof err);
    tb_progress_clear(&fitting);
    if (!r->a) {
        fprintf(stderr, "tb-report: %s\n", err);
        return TB_EXIT_INPUT;
    }
    for (size_t i = 0; i < tb_analysis_nmessages(r->a); i++)
        fprintf(stderr, "tb-report: %s\n", tb_analysis_message(r->a, i));
    r->skip = tb_common_dir(paths->v, paths->n);
    if (tb_analysis_ncolumns(r->a) == 0) {
        fprintf(stderr, "tb-report: nothing to fit in the inputs given\n");
        return TB_EXIT_INPUT;
    }
    return -1;
}

/* Each analysed column as tb-fit's results, in R's rows and in the
 * private folder's results.csv (RESULTS) for the tools.  -1, or
 * TB_EXIT_OUTPUT (said). */
static int write_results(struct report *r, char *results, size_t size)
{
    size_t ncols = tb_analysis_ncolumns(r->a);
    r->rows = calloc(ncols, sizeof *r->rows);
    snprintf(results, size, "%s/results.csv", r->tmp);
    FILE *rf = r->rows ? fopen(results, "w") : NULL;
    if (!rf || tb_results_write_header(rf, TB_FIT_MAX_ORDER) < 0) {
        fprintf(stderr, "tb-report: %s: %s\n", results, strerror(errno));
        if (rf)
            fclose(rf);
        return TB_EXIT_OUTPUT;
    }
    for (size_t i = 0; i < ncols; i++) {
        tb_result *row = &r->rows[r->nrows];
        if (tb_result_from_column(tb_analysis_column(r->a, i), row) < 0)
            continue;
        r->failed += row->failed;
        r->limited |= isfinite(row->limit) || isfinite(row->throttled_share);
        tb_results_write(rf, row, TB_FIT_MAX_ORDER);
        r->nrows++;
    }
    if (fclose(rf) != 0) {
        fprintf(stderr, "tb-report: %s: %s\n", results, strerror(errno));
        return TB_EXIT_OUTPUT;
    }
    return -1;
}

/* index.html, then what the tools said and a summary line.  The exit
 * status. */
static int write_report(struct report *r, int argc, char **argv)
{
    char page[PATH_MAX + 16], err[TB_ERRMAX];
    snprintf(page, sizeof page, "%s/index.html", r->s->dir);
    struct tb_output_file out = {0};
    if (tb_output_open(&out, page, err, sizeof err) < 0) {
        fprintf(stderr, "tb-report: %s\n", err);
        return TB_EXIT_OUTPUT;
    }
    if (write_page(out.f, r, argc, argv) < 0 || tb_output_commit(&out, err, sizeof err) < 0) {
        tb_output_abort(&out);
        fprintf(stderr, "tb-report: %s: cannot write it\n", page);
        return TB_EXIT_OUTPUT;
    }
    /* the tools' own messages, said here too, each cause once */
    char **tools = unique_messages(r);
    for (size_t i = 0; tools && tools[i]; i++)
        fprintf(stderr, "%s\n", tools[i]);
    free_messages(tools);
    fprintf(stderr, "tb-report: %s: %zu runs, %zu fits, %zu figures%s\n", page, tb_analysis_nruns(r->a),
            r->nrows, r->nfigs, r->regression ? "; a regression" : r->inconclusive ? "; inconclusive" : "");
    /* a run that could not be read is an input error, said above; a
     * comparison asked for and not made (a --group-by key no run has),
     * an input error, as tb-compare's own */
    int compare_failed = r->s->group_by && !r->have_cmp;
    return tb_analysis_status(r->a) > TB_EXIT_FIT ? tb_analysis_status(r->a)
           : compare_failed ? TB_EXIT_INPUT
           : r->failed || r->regression ? TB_EXIT_FIT
           : r->inconclusive ? TB_EXIT_INCONCLUSIVE : TB_EXIT_OK;
}

/* R's private folder and what the tools left in it, its figures, tables
 * and fits. */
static void report_free(struct report *r)
{
    if (r->tmp[0]) {
        char path[PATH_MAX + 32];
        const char *names[] = {"results.csv", "compare.csv", "messages"};
        for (size_t i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", r->tmp, names[i]);
            remove(path);
        }
        rmdir(r->tmp);
    }
    for (size_t i = 0; i < r->nfigs; i++) {
        free(r->figs[i]);
        free(r->captions[i]);
    }
    free(r->figs);
    free(r->captions);
    table_free(&r->cmp);
    tb_results_free(r->rows, r->nrows);
    tb_analysis_free(r->a);
}

static void settings_free(struct settings *s)
{
    for (size_t i = 0; i < s->nmodel_args; i++)
        free((char *)s->model_args[i]);
    free(s->model_args);
    free(s->columns);
    tb_model_settings_free(&s->m);
}

/* The runs of PATHS, fitted, compared, drawn and reported.  The exit
 * status. */
static int make_report(struct report *r, const struct tb_paths *paths, int argc, char **argv)
{
    char results[PATH_MAX + 32];
    int status = make_folders(r);
    if (status < 0)
        status = analyse_runs(r, paths);
    if (status < 0)
        status = write_results(r, results, sizeof results);
    if (status >= 0)
        return status;
    if (r->s->group_by)
        compare_groups(r, results);
    make_figures(r, results);
    return write_report(r, argc, argv);
}

int main(int argc, char **argv)
{
    struct settings s = {.tolerance = 0.5, .max_figures = 12, .jobs = 1};
    struct report r = {.s = &s, .cmp_fig = SIZE_MAX, .tradeoff_fig = SIZE_MAX};
    struct tb_paths paths = {0};
    tb_model_settings_init(&s.m);
    struct option *options = tb_cli_options(own_options);
    int status = options ? parse_arguments(argc, argv, &s, options) : TB_EXIT_OUTPUT;
    free(options);
    if (status < 0) {
        status = TB_EXIT_OK;
        for (int i = optind; i < argc; i++)
            if (tb_paths_add(&paths, argv[i], "tb-report") < 0)
                status = TB_EXIT_INPUT;
        if (status == TB_EXIT_OK && paths.n == 0) {
            fprintf(stderr, "tb-report: no run found in the inputs given\n");
            status = TB_EXIT_INPUT;
        }
        if (status == TB_EXIT_OK)
            status = make_report(&r, &paths, argc, argv);
    }
    report_free(&r);
    tb_paths_free(&paths);
    settings_free(&s);
    if (fflush(stdout) != 0)
        status = TB_EXIT_OUTPUT;
    return status;
}
