/*
 * test-analysis.c -- the run→fit pipeline (tb_analyse_*) and the results
 * file (its writer and reader) on the simulated run with known truth and
 * on small runs aimed at one behaviour each.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "tbfit.h"

static char err[TB_ERRMAX];
static char dir[] = "/tmp/tbkit-test-analysis.XXXXXX";

/* The path of a file NAME in the test's folder holding TEXT. */
static const char *file_with(const char *name, const char *text)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

static const tb_analysed_column *column_named(const tb_analysis *a, const char *name)
{
    for (size_t i = 0; i < tb_analysis_ncolumns(a); i++)
        if (strcmp(tb_analysis_column(a, i)->column->name, name) == 0)
            return tb_analysis_column(a, i);
    return NULL;
}

static int has_message(const tb_analysis *a, const char *part)
{
    for (size_t i = 0; i < tb_analysis_nmessages(a); i++)
        if (strstr(tb_analysis_message(a, i), part))
            return 1;
    return 0;
}

/* The simulated hour: T∞ 55 and 53, τ 40, 300, 1100 s, 250 operations/s. */
static void test_simulated(const char *sim)
{
    tb_analysis_options o = tb_analysis_default_options();
    tb_analysis *a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    if (!ok(a != NULL, "the simulated run is analysed"))
        return;
    ok(tb_analysis_status(a) == TB_STATUS_OK, "status OK");
    ok(tb_analysis_ncolumns(a) == 2, "its two °C columns, not the ambient");
    ok(tb_analysis_nmessages(a) == 0, "no message");
    const tb_analysed_column *c = column_named(a, "CPU_0_temp");
    if (!ok(c && c->fit, "CPU_0_temp is fitted")) {
        tb_analysis_free(a);
        return;
    }
    const tb_estimate *t = &c->fit->series[c->series].t_inf;
    ok(t->lo <= 55 && 55 <= t->hi, "T∞ interval [%.3f, %.3f] holds the truth 55", t->lo, t->hi);
    is_near(c->fit->tau[0].value, 40, 2, "τ1 near 40 s");
    is_near(c->fit->tau[2].value, 1100, 80, "τ3 near 1100 s");
    is_near(c->ops_per_s, 250, 1e-3, "250 operations/s from CPU0_work_done");
    ok(isnan(c->throttled_since) && !(c->fit->flags & TB_FIT_THROTTLED), "not throttled");
    ok(c->settle > 0 && isfinite(c->settle), "a settle time (%.0f s)", c->settle);
    ok(c->n == 3601 && c->t[0] == 0 && fabs(c->t[3600] - 3600) < 0.01, "the window is the whole run");

    /* The same as fitting the extracted series directly. */
    const tb_run *run = tb_analysis_run(a, 0);
    tb_fit direct;
    tb_series s = {c->t, c->y, c->n};
    if (ok(tb_fit_series_run(&s, 1, &o.fit, &direct, err, sizeof err) == 0, "a direct fit")) {
        ok(direct.series[0].t_inf.value == t->value && direct.tau[1].value == c->fit->tau[1].value,
           "the analysis's fit is the fit engine's, to the bit");
        tb_fit_clear(&direct);
    }
    ok(c->run == run && strcmp(c->source, sim) == 0, "the column knows its run and file");

    /* Results: written and read back, every field the same. */
    tb_result r, *back = NULL;
    size_t n = 0;
    const char *path = file_with("results.csv", "");
    FILE *f = fopen(path, "w");
    ok(tb_result_from_column(c, &r) == 0, "a result row from the column");
    ok(f && tb_results_write_header(f, 3) == 0 && tb_results_write(f, &r, 3) == 0, "written");
    if (f)
        fclose(f);
    ok(tb_results_is_results_file(path), "recognised as a results file");
    ok(!tb_results_is_results_file(sim), "a run is not");
    if (ok(tb_results_read(path, &back, &n, err, sizeof err) == 0 && n == 1, "read back")) {
        int same = strcmp(back->file, r.file) == 0 && strcmp(back->column, r.column) == 0 &&
                   strcmp(back->flags, r.flags) == 0 && back->order == r.order &&
                   back->points == r.points && back->duration == r.duration &&
                   back->rss == r.rss && back->rmse == r.rmse && back->settle == r.settle &&
                   back->ops_per_s == r.ops_per_s && back->t_inf.value == r.t_inf.value &&
                   back->t_inf.lo == r.t_inf.lo && back->t_inf.hi == r.t_inf.hi;
        for (int j = 0; j < 3; j++)
            same = same && back->k[j].value == r.k[j].value && back->k[j].hi == r.k[j].hi &&
                   back->tau[j].value == r.tau[j].value && back->tau[j].lo == r.tau[j].lo;
        ok(same, "every field the same, to the bit");
        ok(isnan(back->k[3].value) && isnan(back->tau[3].value), "a term the fit has not is NaN");
    }
    tb_results_free(back, n);
    back = NULL;
    n = 0;

    /* A file name with a comma, quotes and a line end comes back whole. */
    free(r.file);
    r.file = strdup("runs/a,b \"q\"\nc.csv");
    f = fopen(path, "w");
    ok(f && r.file && tb_results_write_header(f, 3) == 0 && tb_results_write(f, &r, 3) == 0,
       "a row with an awkward file name written");
    if (f)
        fclose(f);
    ok(tb_results_read(path, &back, &n, err, sizeof err) == 0 && n == 1 &&
       strcmp(back->file, r.file) == 0, "and read back as it was %s", n ? "" : err);
    tb_results_free(back, n);
    back = NULL;
    n = 0;

    /* Format 2's own fields: the unit, the interval's method and level,
     * the metadata (with ; = % in a value), and a failed fit's row. */
    ok(strcmp(r.unit, "°C") == 0 && strcmp(r.ci_method, "hac") == 0 && r.ci_level == 0.95 &&
       !r.failed && !r.error, "a fit's row: unit °C, hac at 0.95, not failed");
    free(r.meta);
    r.meta = strdup("kernel=6.1;note=a%3Bb%3Dc%25d");
    tb_result bad = {.file = strdup("gone.csv"), .column = strdup("x"), .unit = strdup("W"),
                     .failed = 1, .error = strdup("3 points are too few"), .flags = strdup(""),
                     .t_inf = {NAN, NAN, NAN}, .duration = NAN, .rss = NAN, .rmse = NAN,
                     .settle = NAN, .ops_per_s = NAN, .ci_level = NAN};
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
        bad.k[j] = bad.tau[j] = (tb_estimate){NAN, NAN, NAN};
    f = fopen(path, "w");
    ok(f && r.meta && tb_results_write_header(f, 1) == 0 && tb_results_write(f, &r, 1) == 0 &&
       tb_results_write(f, &bad, 1) == 0, "a fit's row and a failed fit's row written");
    if (f)
        fclose(f);
    if (ok(tb_results_read(path, &back, &n, err, sizeof err) == 0 && n == 2, "both read back %s",
           n == 2 ? "" : err)) {
        char *kernel = tb_result_meta(&back[0], "kernel"), *note = tb_result_meta(&back[0], "note");
        char *none = tb_result_meta(&back[0], "nothing");
        ok(kernel && strcmp(kernel, "6.1") == 0 && note && strcmp(note, "a;b=c%d") == 0 && !none,
           "the metadata comes back by key, ; = %% decoded");
        free(kernel);
        free(note);
        ok(back[0].order == r.order && back[0].tau[2].value == r.tau[2].value &&
           isnan(back[0].tau[3].value), "written with --order 1's header, the 3-term fit is whole");
        ok(back[1].failed && strcmp(back[1].error, "3 points are too few") == 0 &&
           strcmp(back[1].unit, "W") == 0 && isnan(back[1].t_inf.value),
           "the failed fit: failed, its error, its unit, no T∞");
    }
    tb_results_free(back, n);
    tb_result_clear(&bad);
    tb_result_clear(&r);
    tb_analysis_free(a);

    /* The field writer itself. */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        tb_csv_write_string(m, "plain");
        fputc('|', m);
        tb_csv_write_string(m, "a,b");
        fputc('|', m);
        tb_csv_write_string(m, "say \"hi\"");
        fputc('|', m);
        tb_csv_write_string(m, NULL);
        fclose(m);
    }
    ok(text && strcmp(text, "plain|\"a,b\"|\"say \"\"hi\"\"\"|") == 0,
       "CSV fields quoted where they must be: %s", text ? text : "(none)");
    free(text);

    /* Shared τ: one fit serves both columns. */
    o.shared_tau = 1;
    a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    if (ok(a && tb_analysis_ncolumns(a) == 2, "shared τ: two columns")) {
        const tb_analysed_column *c0 = tb_analysis_column(a, 0), *c1 = tb_analysis_column(a, 1);
        ok(c0->fit && c0->fit == c1->fit && c0->series == 0 && c1->series == 1,
           "one fit, a series each");
        const tb_estimate *g = &c1->fit->series[1].t_inf;
        ok(g->lo <= 53 && 53 <= g->hi, "GPU_0_temp's T∞ interval holds 53");
    }
    tb_analysis_free(a);
}

static const char throttled_run[] =
    "time/ms,CPU_0_temp/m°C,freq/kHz\n";

/* A run whose frequency drops at 150 s. */
static const char *make_throttled(void)
{
    static char text[65536];
    size_t len = snprintf(text, sizeof text, "%s", throttled_run);
    for (int i = 0; i <= 300; i++)
        len += snprintf(text + len, sizeof text - len, "%d,%.0f,%d\n", i * 1000,
                        1000 * (50 - 10 * exp(-i / 40.0)) + (i % 3) * 20, i < 150 ? 1200000 : 600000);
    return file_with("throttled.csv", text);
}

static void test_throttled(void)
{
    const char *path = make_throttled();
    tb_analysis_options o = tb_analysis_default_options();
    o.fit.order = 1;
    o.run_length = 1;
    tb_analysis *a = tb_analyse_paths(&path, 1, &o, err, sizeof err);
    const tb_analysed_column *c = a ? tb_analysis_column(a, 0) : NULL;
    if (ok(c && c->fit, "a throttled run is fitted")) {
        ok(c->fit->flags & TB_FIT_THROTTLED, "and flagged throttled by the analysis");
        is_near(c->throttled_since, 150, 1e-9, "since 150 s");
        is_string(c->throttled_by, "freq", "by freq");
        ok(c->run_length && (c->run_length->full_flags & TB_FIT_THROTTLED),
           "its run length is flagged too");
    }
    tb_analysis_free(a);
}

static void test_problems(const char *sim)
{
    tb_analysis_options o = tb_analysis_default_options();
    tb_analysis *a;

    o.ambient = "NO_SUCH";
    a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    ok(a && tb_analysis_status(a) == TB_STATUS_INPUT, "an unknown ambient: an input error");
    ok(a && tb_analysis_ncolumns(a) == 0, "and nothing of the run is fitted");
    ok(a && has_message(a, "ambient column: ") && has_message(a, "unknown column \"NO_SUCH\""), "the message names it");
    tb_analysis_free(a);

    o = tb_analysis_default_options();
    const char *work[] = {"NO_SUCH"};
    o.work = work;
    o.nwork = 1;
    a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    ok(a && tb_analysis_status(a) == TB_STATUS_INPUT && tb_analysis_ncolumns(a) == 0,
       "an unknown work counter: an input error, the run left out whole");
    tb_analysis_free(a);

    /* The run length at the order the whole run supports (the default,
     * automatic order): three terms for the hour of three. */
    o = tb_analysis_default_options();
    o.run_length = 1;
    const char *cpu0[] = {"CPU_0_temp"};
    o.columns = cpu0;
    o.ncolumns = 1;
    a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    const tb_analysed_column *rl = a ? tb_analysis_column(a, 0) : NULL;
    ok(rl && rl->fit && rl->fit->order == 3 && rl->run_length &&
       fabs(rl->run_length->t_inf.value - rl->fit->series[0].t_inf.value) < 1e-6,
       "run length with the automatic order: at the order of the whole run (3)");
    tb_analysis_free(a);
    o.shared_tau = 1;
    a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    ok(a == NULL && strstr(err, "shared"), "run length with shared τ: refused");
    tb_analysis_free(a);

    o = tb_analysis_default_options();
    o.from = 100;
    o.to = 50;
    a = tb_analyse_paths(&sim, 1, &o, err, sizeof err);
    ok(a == NULL && strstr(err, "window"), "an empty window: refused");

    /* A named column with no values: said, the other still fitted. */
    const char *nan_run = file_with("nan.csv", "time/ms,a/m°C,b/m°C\n0,1000,nan\n1000,2000,nan\n"
                                               "2000,4000,nan\n3000,5000,nan\n4000,5500,nan\n");
    const char *cols[] = {"a", "b"};
    o = tb_analysis_default_options();
    o.fit.order = 1;
    o.columns = cols;
    o.ncolumns = 2;
    a = tb_analyse_paths(&nan_run, 1, &o, err, sizeof err);
    ok(a && tb_analysis_status(a) == TB_STATUS_INPUT && tb_analysis_ncolumns(a) == 1 &&
       column_named(a, "a") && has_message(a, "column b has no values"),
       "a column with no values is said; the other is fitted");
    tb_analysis_free(a);

    /* A file that cannot be read, beside one that can. */
    const char *paths[] = {file_with("missing-dir/none.csv", ""), sim};
    a = tb_analyse_paths(paths, 2, NULL, err, sizeof err);
    ok(a && tb_analysis_status(a) == TB_STATUS_INPUT && tb_analysis_run(a, 0) == NULL &&
       tb_analysis_run(a, 1) != NULL && tb_analysis_ncolumns(a) == 2,
       "an unreadable file: an input error, the other analysed");
    ok(a && has_message(a, "none.csv"), "the message names the file");
    tb_analysis_free(a);

    /* A fit that fails: the column is there, with why. */
    const char *flat = file_with("flat.csv", "time/ms,a/m°C\n0,1000\n1000,1000\n2000,1000\n"
                                             "3000,1000\n4000,1000\n5000,1000\n");
    o = tb_analysis_default_options();
    o.fit.order = 1;
    o.columns = cols;
    o.ncolumns = 1;
    a = tb_analyse_paths(&flat, 1, &o, err, sizeof err);
    const tb_analysed_column *c = a ? tb_analysis_column(a, 0) : NULL;
    ok(c && !c->fit && c->error && strstr(c->error, "constant") &&
       tb_analysis_status(a) == TB_STATUS_FIT, "a failed fit: no fit, its error, status FIT");
    ok(a && has_message(a, "a: fit failed: "), "and a message");
    tb_analysis_free(a);
}

/* thermobench's two start-up rows, 3 ms apart before the 1 s sampling. */
static void test_startup(const char *top)
{
    char t1[4096];
    snprintf(t1, sizeof t1, "%s/datasets/imx8-membench-t1-15min.csv", top);
    const char *path = t1, *cols[] = {"CPU_0_temp"};
    tb_analysis_options o = tb_analysis_default_options();
    o.fit.order = 2;
    o.columns = cols;
    o.ncolumns = 1;
    tb_analysis *a = tb_analyse_paths(&path, 1, &o, err, sizeof err);
    const tb_analysed_column *c = a ? tb_analysis_column(a, 0) : NULL;
    ok(c && tb_startup_samples(c->column) == 2, "a real run: 2 start-up samples");
    ok(c && c->startup == 2 && c->n == c->column->n - 2 && c->t[0] > 0.99,
       "left out by default: the window starts at the regular sampling (%.3f s)", c ? c->t[0] : NAN);
    ok(a && has_message(a, "the first 2 samples of a column (up to 0.00299 s) come before its "
                           "regular sampling and are left out; --from 0 keeps them"), "and said so");
    tb_analysis_free(a);
    o.from = 0;
    a = tb_analyse_paths(&path, 1, &o, err, sizeof err);
    c = a ? tb_analysis_column(a, 0) : NULL;
    /* (the run's one message is the reader's, on its kHz labelled Hz) */
    ok(c && c->startup == 0 && c->n == c->column->n && tb_analysis_nmessages(a) == 1 &&
       has_message(a, "labelled Hz"), "from 0: every sample, nothing said of them");
    tb_analysis_free(a);
    const char *regular = file_with("regular.csv", "time/ms,a/m°C\n0,1000\n1000,2000\n2000,3000\n"
                                                   "3000,3500\n4000,3800\n5000,4000\n6000,4100\n"
                                                   "7000,4150\n8000,4170\n");
    tb_run *run = tb_run_read(regular, NULL, err, sizeof err);
    ok(run && tb_startup_samples(tb_run_column(run, 1)) == 0, "a run sampled regularly from its first row: none");
    tb_run_free(run);
}

static void test_results_file(void)
{
    tb_result *rows = NULL;
    size_t n = 0;
    const char *cut = file_with("cut.csv", "file,column,T_inf,T_inf_lo,T_inf_hi\nr.csv,a,55.98,55,56\n"
                                           "r2.csv,a,5");
    ok(tb_results_read(cut, &rows, &n, err, sizeof err) < 0, "a cut last row is refused");
    ok(strstr(err, ":3: the last row is cut short") != NULL, "with its line: %s", err);
    tb_results_free(rows, n);
    const char *other = file_with("other.csv", "file,column,T_inf,T_inf_lo,T_inf_hi,colour\n");
    ok(!tb_results_is_results_file(other), "a field the results file has not: not one");
    const char *lacking = file_with("lacking.csv", "file,column,T_inf\n");
    ok(!tb_results_is_results_file(lacking), "a required field missing: not one");
    char flags[256];
    is_string(tb_fit_flags_text(TB_FIT_THROTTLED | TB_FIT_TAU_MERGED, flags, sizeof flags),
              "tau_merged;throttled", "flags as text, in the order of their bits");

    /* Which rows a mean may rest on: a 15-minute run of τ 50 and 300 s
     * extrapolates by Σ k·exp(−d/τ) = 6·e⁻³ ≈ 0.30 °C, a 60-second one by
     * about 9 °C. */
    tb_result r = {.order = 2, .duration = 900, .flags = (char *)"",
                   .k = {{-6, -6.1, -5.9}, {-6, -6.1, -5.9}}, .tau = {{50, 49, 51}, {300, 290, 310}}};
    double x = tb_result_extrapolation(&r);
    ok(fabs(x - 6 * (exp(-18) + exp(-3))) < 1e-12, "the extrapolation from the terms: %g °C", x);
    ok(tb_result_sound(&r, 0.5), "no flag: sound");
    r.flags = (char *)"extrapolated";
    ok(tb_result_sound(&r, 0.5), "extrapolated by 0.30 °C, within 0.5: sound");
    ok(!tb_result_sound(&r, 0.2), "... not within 0.2");
    r.duration = 60;
    ok(!tb_result_sound(&r, 0.5), "a minute's run, extrapolated by %.1f °C: not sound",
       tb_result_extrapolation(&r));
    r.duration = 900;
    r.flags = (char *)"extrapolated;lack_of_fit";
    ok(!tb_result_sound(&r, 0.5), "any other flag: not sound");
    r.flags = (char *)"";
    r.failed = 1;
    ok(!tb_result_sound(&r, 0.5), "a failed fit: not sound");
}

/* A progress callback's count of calls, and the last DONE it heard. */
struct heard {
    size_t calls, last, total;
};

static void hear(void *ctx, size_t done, size_t total)
{
    struct heard *h = ctx;
    h->calls++;
    if (done > h->last)
        h->last = done;
    h->total = total;
}

/* .jobs: the two real runs and a run too short to fit, three columns at a
 * time, give what one at a time gives, messages in the same order. */
static void test_jobs(const char *top)
{
    char t1[4096], t2[4096];
    snprintf(t1, sizeof t1, "%s/datasets/imx8-membench-t1-15min.csv", top);
    snprintf(t2, sizeof t2, "%s/datasets/imx8-membench-t2-15min.csv", top);
    const char *paths[] = {t1, file_with("short.csv", "time/ms,CPU_0_temp/°C\n0,40\n1000,41\n2000,41.5\n"), t2};
    tb_analysis *a[2];
    struct heard h[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        tb_analysis_options o = tb_analysis_default_options();
        o.jobs = k ? 3 : 1;
        o.progress = hear;
        o.progress_ctx = &h[k];
        a[k] = tb_analyse_paths(paths, 3, &o, err, sizeof err);
    }
    if (!ok(a[0] && a[1], "three runs analysed one and three columns at a time"))
        goto out;
    size_t n = tb_analysis_ncolumns(a[0]);
    ok(n == tb_analysis_ncolumns(a[1]) && n == 11, "the same %zu columns", n);
    int same = tb_analysis_status(a[0]) == tb_analysis_status(a[1]);
    for (size_t i = 0; same && i < n; i++) {
        const tb_analysed_column *c0 = tb_analysis_column(a[0], i), *c1 = tb_analysis_column(a[1], i);
        same = strcmp(c0->column->name, c1->column->name) == 0 && !c0->fit == !c1->fit &&
               (!c0->fit || (c0->fit->order == c1->fit->order && c0->fit->flags == c1->fit->flags &&
                             c0->fit->series[0].t_inf.value == c1->fit->series[0].t_inf.value));
    }
    ok(same, "each column's order, flags and T∞, and the status, the same");
    same = tb_analysis_nmessages(a[0]) == tb_analysis_nmessages(a[1]) &&
           tb_analysis_nmessages(a[0]) > 0;
    for (size_t i = 0; same && i < tb_analysis_nmessages(a[0]); i++)
        same = strcmp(tb_analysis_message(a[0], i), tb_analysis_message(a[1], i)) == 0;
    ok(same && has_message(a[1], "too few"),
       "the same messages (the short run's failed fit), in the same order");
    ok(h[1].calls == n && h[1].last == n && h[1].total == n,
       "progress told after each of the %zu fits, up to all of them (%zu calls)", n, h[1].calls);
out:
    tb_analysis_free(a[0]);
    tb_analysis_free(a[1]);
}

int main(void)
{
    const char *top = getenv("top_srcdir");
    char sim[4096];
    snprintf(sim, sizeof sim, "%s/datasets/sim-imx8-60min.csv", top ? top : ".");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    is_string(tb_version(), PACKAGE_VERSION, "tb_version() is the package's");
    double p[3] = {0.01, 0.04, 0.03};
    ok(tb_holm_adjust(p, 3, p) == 0 && fabs(p[0] - 0.03) < 1e-15, "Holm's adjustment");
    test_simulated(sim);
    test_throttled();
    test_problems(sim);
    test_results_file();
    test_startup(top ? top : ".");
    test_jobs(top ? top : ".");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return tap_done();
}
