/*
 * analysis.c -- the pipeline from runs to fitted columns that tb-fit,
 * tb-plot and tb-compare share: choose the columns, cut the window,
 * subtract the ambient, work out operations per second and throttling,
 * fit, then the settle time and the run length.  Messages are collected
 * for the caller, never printed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tbfit.h"

/* A column as it is prepared and fitted; the public part comes first. */
struct column {
    tb_analysed_column pub;
    double *t, *y;
    tb_run_length rl;
    const tb_column *power;      /* the run's power column, or NULL */
    const tb_column *ambient;    /* the ambient column subtracted, or NULL */
    tb_thermal thermal;
    tb_sustainable sustainable;
    tb_spectrum spectrum;
    tb_fit step_fit;             /* of its step response (network_fit()) */
    const char *failed;          /* what failed of it ("fit"), to be said */
    char *error;
};

struct tb_analysis {
    tb_run **owned;              /* runs read by tb_analyse_paths() */
    const tb_run **runs;
    size_t nruns;
    struct column *cols;
    size_t ncols;
    tb_run_metrics *metrics;     /* one per run (none: zeroed) */
    tb_fit *fits;                /* one per column, or one shared */
    size_t nfits;
    char **msgs;
    size_t nmsgs;
    int status;
    int out_of_memory;
};

tb_analysis_options tb_analysis_default_options(void)
{
    return (tb_analysis_options){
        .fit = tb_fit_default_options(),
        .auto_order = 1,
        .from = NAN,
        .to = INFINITY,
        .tolerance = 0.5,
        .step = 60,
        .ambient_temp = NAN,
        .power_step = NAN,
        .idle_power = NAN,
        .trip = NAN,
        .limit = NAN,
        .max_ambient = NAN,
        .at_power = NAN,
        .switch_on = NAN,
        .load_end = NAN,
    };
}

static void raise_status(tb_analysis *a, int status)
{
    if (status > a->status)
        a->status = status;
}

static void say(tb_analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(tb_analysis *a, const char *fmt, ...)
{
    char *line;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&line, fmt, ap);
    va_end(ap);
    char **nm = rc < 0 ? NULL : realloc(a->msgs, (a->nmsgs + 1) * sizeof *nm);
    if (!nm) {
        if (rc >= 0)
            free(line);
        a->out_of_memory = 1;
        return;
    }
    a->msgs = nm;
    a->msgs[a->nmsgs++] = line;
}

/* The window's start for what has no start-up samples of its own. */
static double from_of(const tb_analysis_options *o)
{
    return isnan(o->from) ? 0 : o->from;
}

/* The power options against each other; 0, or -1 with ERR. */
static int check_power_options(const tb_analysis_options *o, char *err, size_t errlen)
{
    int power = o->power || !isnan(o->power_step);
    int relative = o->ambient || !isnan(o->ambient_temp);
    const char *e = NULL;

    if (o->ambient && !isnan(o->ambient_temp))
        e = "an ambient column and an ambient temperature: one of them";
    else if (!isnan(o->ambient_temp) && !isfinite(o->ambient_temp))
        e = "the ambient temperature must be finite";
    else if (o->power && !isnan(o->power_step))
        e = "a power column and a power step given: one of them";
    else if (!isnan(o->power_step) && !(o->power_step > 0 && isfinite(o->power_step)))
        e = "the power step must be a positive number of W";
    else if (!isnan(o->idle_power) && !(o->idle_power >= 0 && isfinite(o->idle_power)))
        e = "the idle power must be a number of W, 0 or more";
    else if (!power && (!isnan(o->idle_power) || !isnan(o->trip) || o->trip_zone))
        e = "an idle power or a trip point needs the power: a power column or step";
    else if (o->trip_zone && !isnan(o->trip))
        e = "a trip point given and the zone's: one of them";
    else if (!isnan(o->trip) && !isfinite(o->trip))
        e = "the trip point must be finite";
    else if (isnan(o->trip) && !o->trip_zone &&
             (!isnan(o->max_ambient) || !isnan(o->at_power) || !isnan(o->switch_on)))
        e = "a worst ambient, a power for the time to trip or a switch-on needs a trip point";
    else if ((!isnan(o->trip) || o->trip_zone) && relative && isnan(o->max_ambient))
        e = "with an ambient subtracted, the trip point needs the worst ambient it is for";
    else if (!isnan(o->max_ambient) && !relative)
        e = "the worst ambient needs the run's own: an ambient column or temperature";
    else if (!isnan(o->at_power) && !(o->at_power > 0 && isfinite(o->at_power)))
        e = "the power of the time to trip must be a positive number of W";
    if (e)
        snprintf(err, errlen, "%s", e);
    return e ? -1 : 0;
}

static int check_options(const tb_analysis_options *o, char *err, size_t errlen)
{
    if ((!isnan(o->from) && !(o->from >= 0)) || !(o->to > (isnan(o->from) ? 0 : o->from))) {
        snprintf(err, errlen, "the window (from %g to %g s) holds no time", o->from, o->to);
        return -1;
    }
    if ((o->ncolumns && !o->columns) || (o->nwork && !o->work)) {
        snprintf(err, errlen, "a count of column specs without the specs");
        return -1;
    }
    if (o->cooling && o->run_length) {
        snprintf(err, errlen, "the run length and the cooling part: one of them");
        return -1;
    }
    if (!isnan(o->load_end) && !(o->load_end > 0 && isfinite(o->load_end))) {
        snprintf(err, errlen, "the load's end must be a positive time, not %g", o->load_end);
        return -1;
    }
    if (o->run_length && o->shared_tau) {
        snprintf(err, errlen, "the run length works on one column at a time, not with shared τ");
        return -1;
    }
    if (o->run_length && !(o->step > 0)) {
        snprintf(err, errlen, "the run length's step must be positive, not %g", o->step);
        return -1;
    }
    if (!(o->tolerance > 0)) {
        snprintf(err, errlen, "the tolerance must be positive, not %g", o->tolerance);
        return -1;
    }
    return check_power_options(o, err, errlen);
}

/* --- preparing the columns of one run -------------------------------------- */

static void note_skipped(void *ctx, const tb_column *c, const char *why)
{
    struct { tb_analysis *a; const char *file; } *x = ctx;
    say(x->a, "note: %s: %s %s: not fitted", x->file, c->name, why);
}

/* The columns of RUN to fit into IDX (room for every column); how many. */
static size_t choose_columns(tb_analysis *a, const tb_analysis_options *o, const tb_run *run,
                             ssize_t ambient, size_t *idx)
{
    const char *file = tb_run_source(run);
    char err[TB_ERRMAX];
    size_t n = 0;

    if (o->ncolumns > 0) {
        ssize_t m = tb_run_select_all(run, o->columns, o->ncolumns, idx, err, sizeof err);
        if (m < 0) {
            say(a, "%s", err);
            raise_status(a, TB_STATUS_INPUT);
            return 0;
        }
        for (size_t k = 0; k < (size_t)m; k++) {
            const tb_column *c = tb_run_column(run, idx[k]);
            if (idx[k] == 0)
                continue;   /* time is the x axis, not a series */
            if (strcmp(c->unit, "°C") != 0)
                say(a, "warning: %s: column %s is in %s, not °C: fitted all the same", file,
                    c->name, *c->unit ? c->unit : "no unit");
            idx[n++] = idx[k];
        }
        if (n == 0)
            say(a, "%s: no column to fit: the time column cannot be fitted", file);
    } else {
        struct { tb_analysis *a; const char *file; } x = {a, file};
        n = tb_default_columns(run, ambient, idx, note_skipped, &x);
        if (n == 0)
            say(a, "%s: no temperature (°C) column to fit; name one with -c", file);
    }
    if (n == 0)
        raise_status(a, TB_STATUS_INPUT);
    return n;
}

/* The metrics of run R over [FROM, TO] into the analysis, its work rate
 * from the --work columns if any (a spec that names no column is an input
 * error); a run whose window holds too few points has none (its columns
 * have no fit either). */
static const tb_run_metrics *run_metrics(tb_analysis *a, size_t r, const tb_analysis_options *o,
                                         double from, double to)
{
    const tb_run *run = a->runs[r];
    char err[TB_ERRMAX];
    size_t *work = NULL, nwork = 0;
    if (o->nwork > 0) {
        if (!(work = malloc(tb_run_ncolumns(run) * sizeof *work))) {
            a->out_of_memory = 1;
            return NULL;
        }
        ssize_t m = tb_run_select_all(run, o->work, o->nwork, work, err, sizeof err);
        if (m < 0) {
            say(a, "work counter: %s", err);
            raise_status(a, TB_STATUS_INPUT);
        }
        nwork = m > 0 ? (size_t)m : 0;
    }
    int rc = tb_run_metrics_compute(run, from, to, o->fit.level, work, nwork, &a->metrics[r], err,
                                    sizeof err);
    free(work);
    if (rc == -2)
        a->out_of_memory = 1;
    return rc == 0 ? &a->metrics[r] : NULL;
}

/* Column K's entry in M, NULL when it has none (not in °C). */
static const tb_sensor_metrics *sensor_of(const tb_run_metrics *m, size_t k)
{
    for (size_t i = 0; m && i < m->nsensors; i++)
        if (m->sensors[i].column == k)
            return &m->sensors[i];
    return NULL;
}

static struct column *add_column(tb_analysis *a)
{
    struct column *nc = realloc(a->cols, (a->ncols + 1) * sizeof *nc);
    if (!nc) {
        a->out_of_memory = 1;
        return NULL;
    }
    a->cols = nc;
    memset(&nc[a->ncols], 0, sizeof *nc);
    return &nc[a->ncols];
}

/* The column of RUN that SPEC (an option's, WHAT: "ambient") names, or
 * -1 said (an input error). */
static ssize_t named_column(tb_analysis *a, const tb_run *run, const char *spec, const char *what)
{
    char err[TB_ERRMAX];
    size_t i;
    if (tb_run_select(run, spec, &i, 1, err, sizeof err) < 0) {
        say(a, "%s column: %s", what, err);
        raise_status(a, TB_STATUS_INPUT);
        return -1;
    }
    return (ssize_t)i;
}

/* The limit column C is held under (.limit, --trip, else its zone's
 * lowest passive trip) and the time it spent above it within [FROM, TO]. */
static void limit_of(const tb_analysis_options *o, tb_analysed_column *c, double from, double to)
{
    c->limit = isfinite(o->limit) ? o->limit : isfinite(o->trip) ? o->trip
             : c->sensor ? tb_sensor_metrics_limit(c->sensor) : NAN;
    c->above_limit_s = isfinite(c->limit) ? tb_time_above(c->column, from, to, c->limit) : NAN;
}

/* What the columns of one run share when they are added to fit. */
struct run_context {
    const tb_run *run;
    const char *file;
    const tb_column *power, *ambient;
    const tb_run_metrics *metrics;
    double load_end, load_to;     /* the load's end; the load's window's */
    double throttled_since;
    const char *throttled_by;
};

/* Add column C (index INDEX of the run) to fit, from FROM after its
 * STARTUP samples: one part, or with the cooling two, up to the load's
 * end and after; a column is fitted whole or not at all. */
static void add_run_column(tb_analysis *a, const tb_analysis_options *o,
                           const struct run_context *ctx, size_t index, const tb_column *c,
                           size_t startup, double from)
{
    char err[TB_ERRMAX];
    int parts = o->cooling ? 2 : 1, added = 0;
    for (int part = 0; part < parts; part++) {
        double lo = part ? ctx->load_end : from;
        double hi = o->cooling && !part ? fmin(o->to, ctx->load_end) : o->to;
        double *t, *y;
        size_t n;
        double offset = isnan(o->ambient_temp) ? 0 : o->ambient_temp;
        if (tb_series_extract_bins(c, lo, hi, ctx->ambient, offset, o->max_points, &t, &y, &n,
                                   err, sizeof err) < 0) {
            /* The run's other columns are still fitted: this one is said. */
            say(a, "%s: %s%s", ctx->file,
                parts > 1 ? (part ? "the cooling part: " : "the heating part: ") : "", err);
            raise_status(a, TB_STATUS_INPUT);
            break;
        }
        struct column *col = add_column(a);
        if (!col) {
            free(t);
            free(y);
            break;
        }
        const tb_run_metrics *m = ctx->metrics;
        col->t = t;
        col->y = y;
        col->power = ctx->power;
        col->ambient = ctx->ambient;
        col->pub = (tb_analysed_column){
            .run = ctx->run, .source = ctx->file, .index = index, .column = c,
            .t = t, .y = y, .n = n, .startup = part ? 0 : startup,
            .ops_per_s = m ? m->ops.value : NAN,
            .ops = m ? m->ops : (tb_estimate){NAN, NAN, NAN},
            .ops_sustained = m ? m->ops_sustained : (tb_estimate){NAN, NAN, NAN},
            .metrics = m, .sensor = sensor_of(m, index),
            .throttled_since = ctx->throttled_since, .throttled_by = ctx->throttled_by,
            .settle = NAN, .part = parts > 1 ? (part ? "cooling" : "heating") : NULL,
        };
        limit_of(o, &col->pub, m ? m->from : from_of(o), m ? m->to : ctx->load_to);
        a->ncols++;
        added++;
    }
    if (added == 1 && parts == 2) {
        a->ncols--;
        free(a->cols[a->ncols].t);
        free(a->cols[a->ncols].y);
    }
}

/* Add the columns of run R to fit, their windows cut.  A run whose options
 * do not fit it (an ambient, column or work counter it lacks) adds none:
 * half a run would be compared as if it were whole. */
static void prepare_run(tb_analysis *a, const tb_analysis_options *o, size_t r)
{
    struct run_context ctx = {.run = a->runs[r], .file = tb_run_source(a->runs[r]),
                          .load_end = o->load_end};
    const tb_run *run = ctx.run;
    int before = a->status;

    a->status = TB_STATUS_OK;
    for (size_t w = 0; w < tb_run_nwarnings(run); w++)
        say(a, "warning: %s", tb_run_warning(run, w));
    ssize_t ambient = o->ambient ? named_column(a, run, o->ambient, "ambient") : -1;
    ssize_t power_idx = o->power ? named_column(a, run, o->power, "power") : -1;
    ctx.power = power_idx >= 0 ? tb_run_column(run, (size_t)power_idx) : NULL;
    size_t *idx = malloc(tb_run_ncolumns(run) * sizeof *idx);
    if (!idx) {
        a->out_of_memory = 1;
        raise_status(a, before);
        return;
    }
    if (o->cooling && isnan(ctx.load_end) && tb_run_load_end(run, &ctx.load_end) < 0) {
        say(a, "%s: no end of the load to cool from: no benchmark_running column with a 0 "
            "(tb-record --cooldown writes one); give the load's end", ctx.file);
        raise_status(a, TB_STATUS_INPUT);
    }
    size_t ncol = a->status == TB_STATUS_OK ? choose_columns(a, o, run, ambient, idx) : 0;
    /* the load's window: with --cooling its heating part */
    ctx.load_to = o->cooling ? fmin(o->to, ctx.load_end) : o->to;
    ctx.metrics = a->status == TB_STATUS_OK ? run_metrics(a, r, o, from_of(o), ctx.load_to) : NULL;
    /* the power falls at the load's end: it is the cooling, not throttling */
    int throttled = tb_throttle_check(run, from_of(o), ctx.load_to, &ctx.throttled_since,
                                      &ctx.throttled_by);
    if (throttled < 0)
        a->out_of_memory = 1;
    if (throttled != 1) {
        ctx.throttled_since = NAN;
        ctx.throttled_by = NULL;
    }
    ctx.ambient = ambient >= 0 ? tb_run_column(run, (size_t)ambient) : NULL;
    if (a->status != TB_STATUS_OK)
        ncol = 0;
    size_t most_startup = 0;
    double startup_until = 0;
    for (size_t k = 0; k < ncol; k++) {
        const tb_column *c = tb_run_column(run, idx[k]);
        double from = from_of(o);
        size_t startup = isnan(o->from) ? tb_startup_samples(c) : 0;
        if (startup > 0) {
            from = c->t[startup];
            if (startup > most_startup || (startup == most_startup && c->t[startup - 1] > startup_until)) {
                most_startup = startup;
                startup_until = c->t[startup - 1];
            }
        }
        add_run_column(a, o, &ctx, idx[k], c, startup, from);
    }
    free(idx);
    if (most_startup > 0)
        say(a, "note: %s: the first %zu samples of a column (up to %.3g s) come before its "
            "regular sampling and are left out; --from 0 keeps them", ctx.file, most_startup,
            startup_until);
    raise_status(a, before);
}

/* --- fitting ----------------------------------------------------------------- */

/* Fit the N columns COLS together into FIT; 0, or -1 with ERR. */
static int fit_columns(const tb_analysis_options *o, struct column *cols, size_t n, tb_fit *fit,
                       char *err, size_t errlen)
{
    tb_series *s = malloc(n * sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        s[i] = (tb_series){cols[i].t, cols[i].y, cols[i].pub.n};
    int rc = o->auto_order ? tb_fit_series_auto(s, n, &o->fit, fit, err, errlen)
                           : tb_fit_series_run(s, n, &o->fit, fit, err, errlen);
    /* Is the order part of the uncertainty?  The next order says (the
     * automatic order has compared it already). */
    if (rc == 0 && !o->auto_order && tb_fit_check_order(s, n, &o->fit, fit) < 0) {
        tb_fit_clear(fit);
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    free(s);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (isfinite(cols[i].pub.throttled_since))
            fit->flags |= TB_FIT_THROTTLED;
    return rc;
}

static void fail_column(tb_analysis *a, struct column *c, const char *what, const char *err)
{
    say(a, "%s: %s: %s failed: %s", c->pub.source, c->pub.column->name, what, err);
    if (!c->error)
        c->error = strdup(err);
    c->pub.error = c->error;
    raise_status(a, TB_STATUS_FIT);
}

/* A fit that lacks fit, of a run with an ambient column that drifted (by
 * over 3 rmse) and was not subtracted: say that --ambient exists. */
static void suggest_ambient(tb_analysis *a, const tb_analysis_options *o, const struct column *c)
{
    if (o->ambient || !c->pub.fit || !(c->pub.fit->flags & TB_FIT_LACK_OF_FIT))
        return;
    for (size_t i = 1; i < tb_run_ncolumns(c->pub.run); i++) {
        const tb_column *amb = tb_run_column(c->pub.run, i);
        tb_column_summary sum;
        if (!strcasestr(amb->name, "ambient") || amb->n == 0 || tb_column_summarise(amb, &sum) < 0)
            continue;
        if (sum.max - sum.min > 3 * c->pub.fit->rmse) {   /* a room that drifted */
            say(a, "note: %s: %s: the model does not hold and the run has an ambient "
                "column: --ambient %s subtracts the room's drift", c->pub.source,
                c->pub.column->name, amb->name);
            return;
        }
    }
}

/* Fit column I (with its cooling part) and its run length.  Runs on any
 * of the workers: it says nothing, it leaves what failed in the column
 * (fit_columns_said() says it, in order, once all are done). */
static void fit_one(tb_analysis *a, const tb_analysis_options *o, size_t i)
{
    char err[TB_ERRMAX];
    size_t per = o->cooling ? 2 : 1;
    struct column *c = &a->cols[i];

    if (fit_columns(o, c, per, &a->fits[i], err, sizeof err) < 0) {
        for (size_t p = 0; p < per; p++) {
            c[p].failed = "fit";
            c[p].error = strdup(err);
        }
        return;
    }
    for (size_t p = 0; p < per; p++) {
        c[p].pub.fit = &a->fits[i];
        c[p].pub.series = p;
        c[p].pub.settle = tb_fit_settle_time(&a->fits[i], p, o->tolerance);
    }
    if (!o->run_length)
        return;
    /* the prefixes at the order the whole run supports */
    tb_series s = {c->t, c->y, c->pub.n};
    tb_fit_options rl_fit = o->fit;
    rl_fit.order = a->fits[i].order;
    if (tb_run_length_estimate(&s, &rl_fit, o->step, o->tolerance, &c->rl, err,
                               sizeof err) < 0) {
        c->failed = "run length";
        c->error = strdup(err);
        return;
    }
    if (isfinite(c->pub.throttled_since))
        c->rl.full_flags |= TB_FIT_THROTTLED;
    c->pub.run_length = &c->rl;
}

/* The columns handed out to the workers of fit_parallel(), one at a time:
 * a fit takes from milliseconds to seconds, so nothing finer is needed. */
struct fit_queue {
    tb_analysis *a;
    const tb_analysis_options *o;
    size_t next, done, per;
    pthread_mutex_t lock;
};

static void *fit_worker(void *arg)
{
    struct fit_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next;
        q->next += q->per;
        pthread_mutex_unlock(&q->lock);
        if (i >= q->a->ncols)
            return NULL;
        fit_one(q->a, q->o, i);
        pthread_mutex_lock(&q->lock);
        q->done += q->per;
        if (q->o->progress)
            q->o->progress(q->o->progress_ctx, q->done, q->a->ncols);
        pthread_mutex_unlock(&q->lock);
    }
}

/* Every column fitted by up to O->jobs threads (this one among them). */
static void fit_parallel(tb_analysis *a, const tb_analysis_options *o)
{
    struct fit_queue q = {.a = a, .o = o, .per = o->cooling ? 2 : 1};
    size_t want = o->jobs > 1 ? (size_t)o->jobs - 1 : 0, started = 0;
    pthread_t *threads = want ? calloc(want, sizeof *threads) : NULL;

    pthread_mutex_init(&q.lock, NULL);
    for (size_t t = 0; threads && t < want && t * q.per < a->ncols; t++)
        if (pthread_create(&threads[started], NULL, fit_worker, &q) == 0)
            started++;
    fit_worker(&q);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_mutex_destroy(&q.lock);
    free(threads);
}

static void fit_all(tb_analysis *a, const tb_analysis_options *o)
{
    char err[TB_ERRMAX];
    size_t nfits = o->shared_tau ? (a->ncols > 0) : a->ncols;

    if (nfits == 0)
        return;
    if (!(a->fits = calloc(nfits, sizeof *a->fits))) {
        a->out_of_memory = 1;
        return;
    }
    a->nfits = nfits;
    if (o->shared_tau) {
        if (fit_columns(o, a->cols, a->ncols, &a->fits[0], err, sizeof err) < 0) {
            /* which columns, of which files: the first few, then a count */
            char which[512] = "";
            size_t used = 0;
            for (size_t i = 0; i < a->ncols && i < 3 && used < sizeof which; i++)
                used += (size_t)snprintf(which + used, sizeof which - used, "%s%s: %s",
                                         i ? ", " : "", a->cols[i].pub.source,
                                         a->cols[i].pub.column->name);
            say(a, "the shared-τ fit of %s%s failed: %s", which,
                a->ncols > 3 ? " and the others" : "", err);
            raise_status(a, TB_STATUS_FIT);
            for (size_t i = 0; i < a->ncols; i++) {
                a->cols[i].error = strdup(err);
                a->cols[i].pub.error = a->cols[i].error;
            }
            return;
        }
        for (size_t i = 0; i < a->ncols; i++) {
            a->cols[i].pub.fit = &a->fits[0];
            a->cols[i].pub.series = i;
            a->cols[i].pub.settle = tb_fit_settle_time(&a->fits[0], i, o->tolerance);
        }
        return;
    }
    fit_parallel(a, o);
    /* what failed, and hints, in the order of the columns */
    for (size_t i = 0; i < a->ncols; i++) {
        struct column *c = &a->cols[i];
        if (c->failed)
            fail_column(a, c, c->failed, c->error ? c->error : "out of memory");
        else if (c->pub.fit && c->pub.series == 0)
            suggest_ambient(a, o, c);
    }
}

/* --- thermal networks -------------------------------------------------------- */

/* The time-constant spectrum of column C's Zth; 0, or -1 said. */
static int column_spectrum(tb_analysis *a, struct column *c)
{
    const tb_analysed_column *p = &c->pub;
    char err[TB_ERRMAX];
    tb_zth_point *z;
    if (c->thermal.power.step < 0)
        return 0;   /* a cooling part's: its heating part has it */
    ssize_t nz = tb_thermal_zth(p->fit, p->series, p->t, p->y, p->n, c->thermal.power.step, 20, &z);
    if (nz < 0) {
        a->out_of_memory = 1;
        return -1;
    }
    int rc = tb_thermal_spectrum(z, (size_t)nz, p->fit->median_period, p->t[p->n - 1] - p->t[0],
                                 10, &c->spectrum, err, sizeof err);
    free(z);
    if (rc < 0) {
        fail_column(a, c, "the spectrum", err);
        return -1;
    }
    c->pub.spectrum = &c->spectrum;
    return 0;
}

/* One pass of network_fit(): C->step_fit from the curve less Y, what the
 * power's departure from its step did (tb_power_departure_response());
 * Y then holds the curve fitted.  0, or -1 with a message in ERR. */
static int step_response_pass(const tb_analysis_options *o, struct column *c, double *y,
                              int last, char *err, size_t errlen)
{
    const tb_analysed_column *p = &c->pub;
    tb_fit_options opt = o->fit;
    tb_series s = {p->t, y, p->n};
    tb_fit next;

    for (size_t m = 0; m < p->n; m++)
        y[m] = p->y[m] - y[m];
    /* its own order: a departure the run's fit needed a term for (a
     * spike's, a droop's) is gone from it */
    opt.order = p->fit->order;
    if ((o->auto_order ? tb_fit_series_auto(&s, 1, &opt, &next, err, errlen)
                       : tb_fit_series_run(&s, 1, &opt, &next, err, errlen)) < 0)
        return -1;
    if (last && !o->auto_order && tb_fit_check_order(&s, 1, &opt, &next) < 0) {
        tb_fit_clear(&next);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    next.flags |= p->fit->flags & TB_FIT_THROTTLED;
    tb_fit_clear(&c->step_fit);
    c->step_fit = next;
    return 0;
}

/* The fit column C's network is read from, its series into *SERIES.  With
 * a power column and a fit of its own, that of the step response: the
 * curve less what the power's departure from a clean step PS did through
 * the modes of the fit before (three passes, each fitted again as the
 * run's fit was: at its own order when the order is automatic, else at
 * the run's, the last checked against the next order), as a network
 * describes the response to a step.  PS->shape_r_th
 * gets how far that moved R_th.  Else (or where that response nowhere
 * reaches a twentieth of the fit's rmse) the run's own fit.  NULL when a
 * pass fails, with a message in ERR. */
static const tb_fit *network_fit(const tb_analysis_options *o, struct column *c,
                                 tb_power_step *ps, size_t *series, char *err, size_t errlen)
{
    const tb_analysed_column *p = &c->pub;
    *series = p->series;
    if (!c->power || p->fit->nseries != 1 || !(ps->step > 0) || ps->held > 0)
        return p->fit;
    double *y = malloc(p->n * sizeof *y);
    if (!y) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* a power that is a step to within a twentieth of the noise's effect
     * leaves the run's own fit as it is */
    double most = 0;
    tb_power_departure_response(p->fit, p->series, ps, c->power, p->t, p->n, y);
    for (size_t m = 0; m < p->n; m++)
        most = fmax(most, fabs(y[m]));
    if (!(most > 0.05 * p->fit->rmse)) {
        free(y);
        return p->fit;
    }
    /* Y holds the response through the run's own fit: the first pass's */
    const tb_fit *from = p->fit;
    for (int pass = 0; pass < 3 && from; pass++) {
        if (pass > 0)
            tb_power_departure_response(from, 0, ps, c->power, p->t, p->n, y);
        from = step_response_pass(o, c, y, pass == 2, err, errlen) < 0 ? NULL : &c->step_fit;
    }
    free(y);
    if (!from)
        return NULL;
    *series = 0;
    /* R_th = −Σkⱼ/ΔP of each fit, over each one's own terms */
    ps->shape_r_th = 0;
    for (int j = 0; j < p->fit->order; j++)
        ps->shape_r_th += p->fit->series[0].k[j].value / ps->step;
    for (int j = 0; j < from->order; j++)
        ps->shape_r_th -= from->series[0].k[j].value / ps->step;
    return from;
}

/* The network of each fitted column under the power step, and its
 * sustainable power when a trip point is given. */
static void thermal_all(tb_analysis *a, const tb_analysis_options *o)
{
    int relative = o->ambient || !isnan(o->ambient_temp);
    char err[TB_ERRMAX];

    for (size_t i = 0; i < a->ncols; i++) {
        struct column *c = &a->cols[i];
        const tb_analysed_column *p = &c->pub;
        tb_power_step ps;
        if (!p->fit)
            continue;
        /* the cooling part steps down by the heating part's step */
        const tb_analysed_column *load =
            p->part && strcmp(p->part, "cooling") == 0 ? &(c - 1)->pub : p;
        if (c->power) {
            if (tb_power_step_measure(c->power, load->t[0], load->t[load->n - 1], o->idle_power,
                                      &ps, err, sizeof err) < 0) {
                say(a, "%s: %s: %s", p->source, p->column->name, err);
                raise_status(a, TB_STATUS_INPUT);
                continue;
            }
        } else {
            ps = (tb_power_step){.step = o->power_step, .load = o->idle_power + o->power_step,
                                 .idle = o->idle_power};
        }
        /* from the step up, which the heating part starts with */
        if (load != p)
            ps = (tb_power_step){.step = -ps.step, .se = ps.se, .load = ps.idle, .idle = NAN,
                                 .departure = ps.departure, .not_step = ps.not_step,
                                 .held = p->t[0] - load->t[0]};
        size_t series;
        const tb_fit *fit = network_fit(o, c, &ps, &series, err, sizeof err);
        if (!fit || tb_thermal_from_fit(fit, series, &ps, relative, &c->thermal, err,
                                        sizeof err) < 0) {
            fail_column(a, c, "the thermal network", err);
            continue;
        }
        c->pub.thermal = &c->thermal;
        if (o->spectrum)
            column_spectrum(a, c);   /* a failure is said; the rest goes on */
        /* A cooling curve rests on the heating before it starting from
         * rest (its stages are read for how long the load lasted). */
        if (load == p) {
            tb_thermal_check_start(fit, series, p->column, c->ambient, -INFINITY, p->t[0],
                                   &c->thermal);
        } else {
            c->thermal.flags |= (c - 1)->thermal.flags & TB_THERMAL_NOT_AT_REST;
            c->thermal.start_drift = (c - 1)->thermal.start_drift;
            c->thermal.start_drift_lo = (c - 1)->thermal.start_drift_lo;
            c->thermal.start_drift_hi = (c - 1)->thermal.start_drift_hi;
        }
        if (load != p)
            continue;   /* the sustainable power is the heating part's */
        double trip = o->trip, switch_on = o->switch_on;
        if (o->trip_zone && tb_run_trip_points(p->run, p->column->name, &trip, &switch_on) < 0) {
            say(a, "%s: %s: no passive trip point of its zone in the run's metadata "
                "(tb-record writes them as # trip.%s.N): give the trip point", p->source,
                p->column->name, p->column->name);
            raise_status(a, TB_STATUS_INPUT);
            continue;
        }
        if (isnan(trip))
            continue;
        if (tb_thermal_sustainable(fit, series, &c->thermal, trip,
                                   relative ? o->max_ambient : 0, o->at_power, &c->sustainable,
                                   err, sizeof err) < 0) {
            fail_column(a, c, "the sustainable power", err);
            continue;
        }
        c->sustainable.switch_on = o->trip_zone && !isnan(o->switch_on) ? o->switch_on : switch_on;
        c->pub.sustainable = &c->sustainable;
    }
}

/* --- the analysis -------------------------------------------------------------- */

static tb_analysis *analyse(tb_analysis *a, const tb_analysis_options *opt, char *err,
                            size_t errlen)
{
    tb_analysis_options o = opt ? *opt : tb_analysis_default_options();

    for (size_t r = 0; r < a->nruns; r++)
        if (a->runs[r])
            prepare_run(a, &o, r);
    if (!a->out_of_memory)
        fit_all(a, &o);
    if (!a->out_of_memory && (o.power || !isnan(o.power_step)))
        thermal_all(a, &o);
    if (a->out_of_memory) {
        snprintf(err, errlen, "out of memory");
        tb_analysis_free(a);
        return NULL;
    }
    return a;
}

/* An empty analysis of N runs (and room to own them when OWN), its
 * options checked; NULL with ERR. */
static tb_analysis *new_analysis(size_t n, int own, const tb_analysis_options *opt,
                                 char *err, size_t errlen)
{
    tb_analysis *a = calloc(1, sizeof *a);
    if (!a || !(a->runs = calloc(n ? n : 1, sizeof *a->runs)) ||
        !(a->metrics = calloc(n ? n : 1, sizeof *a->metrics)) ||
        (own && !(a->owned = calloc(n ? n : 1, sizeof *a->owned)))) {
        tb_analysis_free(a);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (opt && check_options(opt, err, errlen) < 0) {
        tb_analysis_free(a);
        return NULL;
    }
    a->nruns = n;
    return a;
}

tb_analysis *tb_analyse_runs(const tb_run *const *runs, size_t nruns,
                             const tb_analysis_options *opt, char *err, size_t errlen)
{
    tb_analysis *a = new_analysis(nruns, 0, opt, err, errlen);
    if (!a)
        return NULL;
    memcpy(a->runs, runs, nruns * sizeof *runs);
    return analyse(a, opt, err, errlen);
}

tb_analysis *tb_analyse_paths(const char *const *paths, size_t npaths,
                              const tb_analysis_options *opt, char *err, size_t errlen)
{
    tb_analysis *a = new_analysis(npaths, 1, opt, err, errlen);
    char e[TB_ERRMAX];

    if (!a)
        return NULL;
    for (size_t p = 0; p < npaths; p++) {
        if (!(a->owned[p] = tb_run_read(paths[p], NULL, e, sizeof e))) {
            say(a, "%s", e);
            raise_status(a, TB_STATUS_INPUT);
        }
        a->runs[p] = a->owned[p];
    }
    return analyse(a, opt, err, errlen);
}

void tb_analysis_free(tb_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->ncols; i++) {
        free(a->cols[i].t);
        free(a->cols[i].y);
        free(a->cols[i].error);
        tb_run_length_clear(&a->cols[i].rl);
        tb_spectrum_clear(&a->cols[i].spectrum);
        tb_fit_clear(&a->cols[i].step_fit);
    }
    free(a->cols);
    for (size_t i = 0; i < a->nfits; i++)
        tb_fit_clear(&a->fits[i]);
    free(a->fits);
    for (size_t i = 0; i < a->nmsgs; i++)
        free(a->msgs[i]);
    free(a->msgs);
    if (a->owned)
        for (size_t r = 0; r < a->nruns; r++)
            tb_run_free(a->owned[r]);
    free(a->owned);
    for (size_t r = 0; a->metrics && r < a->nruns; r++)
        tb_run_metrics_clear(&a->metrics[r]);
    free(a->metrics);
    free(a->runs);
    free(a);
}

int tb_analysis_status(const tb_analysis *a) { return a->status; }
size_t tb_analysis_ncolumns(const tb_analysis *a) { return a->ncols; }
size_t tb_analysis_nruns(const tb_analysis *a) { return a->nruns; }
size_t tb_analysis_nmessages(const tb_analysis *a) { return a->nmsgs; }

const tb_analysed_column *tb_analysis_column(const tb_analysis *a, size_t i)
{
    return i < a->ncols ? &a->cols[i].pub : NULL;
}

const tb_run *tb_analysis_run(const tb_analysis *a, size_t i)
{
    return i < a->nruns ? a->runs[i] : NULL;
}

const char *tb_analysis_message(const tb_analysis *a, size_t i)
{
    return i < a->nmsgs ? a->msgs[i] : NULL;
}
