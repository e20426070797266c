/*
 * tb-load -- the workloads that heat a board: a kernel on one pinned
 * thread per CPU, always on or in duty cycles (a constant load, a profile
 * over time, or a random on/off sequence), with each CPU's work done
 * printed as CPU<n>_work_done=<ops> lines for tb-record -c.
 *
 * The main thread only prints: the counters every --report ms and a util=
 * line when the load level changes, on absolute deadlines; the workers
 * switch by themselves (worker.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "schedule.h"
#include "worker.h"

static void list_kernels(void)
{
    size_t n;
    const struct kernel *k = kernel_all(&n);
    for (size_t i = 0; i < n; i++)
        printf("%-16s %s\n", k[i].name, k[i].what);
}

/* The schedule the options ask for; 0, or an exit status. */
static int make_schedule(const struct load_settings *s, struct schedule *sched)
{
    char err[1024];
    *sched = (struct schedule){.util = s->util, .seed = s->seed};
    if (s->profile && schedule_read_profile(sched, s->profile, s->ncpus, err, sizeof err) < 0) {
        fprintf(stderr, "tb-load: %s\n", err);
        return LOAD_EXIT_USAGE;
    }
    if (s->prbs_ms > 0)
        sched->bit = s->prbs_ms / 1000;
    /* A level between 0 and 100 needs a period to be a share of. */
    sched->period = s->period_ms > 0 ? s->period_ms / 1000 : 0.1;
    return 0;
}

static void print_counters(const struct worker *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("CPU%d_work_done=%" PRIu64 "\n", w[i].cpu,
               atomic_load_explicit(&w[i].ops, memory_order_relaxed));
}

/* Print the load levels that changed since LEVEL (NaN: never printed) at
 * T; returns when the next may change. */
static double print_levels(const struct schedule *sched, const struct worker *w, size_t n,
                           const char *name, double *level, double t)
{
    double next = INFINITY;
    size_t per_cpu = sched->per_step > 1 ? n : 1;
    for (size_t i = 0; i < per_cpu; i++) {
        double when, now = schedule_level(sched, i, t, &when);
        next = when < next ? when : next;
        if (now == level[i])
            continue;
        level[i] = now;
        if (per_cpu > 1)
            printf("CPU%d_util=%g\n", w[i].cpu, now);
        else
            printf("%s=%g\n", name, now);
    }
    return next;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* -v: how late the threads switched after their deadlines, and their rates. */
static void print_summary(const struct worker *w, size_t n, double elapsed)
{
    for (int on = 1; on >= 0; on--) {
        size_t total = 0, k = 0;
        for (size_t i = 0; i < n; i++)
            total += on ? w[i].non : w[i].noff;
        double *all = total ? malloc(total * sizeof *all) : NULL;
        if (!all)
            continue;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < (on ? w[i].non : w[i].noff); j++)
                all[k++] = on ? w[i].late_on[j] : w[i].late_off[j];
        qsort(all, total, sizeof *all, compare_double);
        fprintf(stderr, "tb-load: %s after the deadline: median %.1f µs, p99 %.1f µs, max %.1f µs "
                "(%zu switches)\n", on ? "running" : "stopped", all[total / 2] * 1e6,
                all[(size_t)((double)(total - 1) * 0.99)] * 1e6, all[total - 1] * 1e6, total);
        free(all);
    }
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "tb-load: CPU%d: %.4g operations/s\n", w[i].cpu,
                (double)atomic_load(&w[i].ops) / elapsed);
}

/* Print until the time is up or one of SIGNALS (blocked) comes; 0, or an
 * exit status.  Waiting for the signals themselves, not a flag a handler
 * sets, leaves no moment where one could come unseen before a sleep. */
static int print_until_done(const struct load_settings *s, const struct schedule *sched,
                            struct load_run *run, struct worker *w, const sigset_t *signals)
{
    size_t n = s->ncpus;
    double *level = malloc(n * sizeof *level), report = s->report_ms / 1000;
    double next_report = 0, next_level = 0, end = s->time_s > 0 ? s->time_s : INFINITY;
    if (!level)
        return LOAD_EXIT_FAILURE;
    for (size_t i = 0; i < n; i++)
        level[i] = NAN;
    for (;;) {
        double t = load_elapsed(run);
        if (t >= end)
            break;
        if (t >= next_level)
            next_level = print_levels(sched, w, n, s->util_name, level, t);
        if (t >= next_report) {
            print_counters(w, n);
            next_report = report * (floor(t / report) + 1);   /* missed ones are skipped */
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "tb-load: standard output: %s\n", strerror(errno));
            free(level);
            return LOAD_EXIT_FAILURE;
        }
        /* the deadlines are absolute; only the wait to the next is relative */
        double wait = fmin(fmin(next_report, next_level), end) - load_elapsed(run);
        if (wait <= 0)
            continue;
        struct timespec left = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
        if (sigtimedwait(signals, NULL, &left) > 0)
            break;
    }
    free(level);
    return 0;
}

int main(int argc, char **argv)
{
    struct load_settings s;
    struct schedule sched;
    struct load_run run = {0};
    int rc = load_parse_arguments(argc, argv, &s);
    if (rc >= 0) {
        load_settings_free(&s);
        return rc;
    }
    if (s.list) {
        list_kernels();
        load_settings_free(&s);
        return LOAD_EXIT_OK;
    }
    if ((rc = make_schedule(&s, &sched)) != 0) {
        schedule_free(&sched);
        load_settings_free(&s);
        return rc;
    }

    /* SIGINT and SIGTERM stay blocked in every thread: the main thread
     * waits for them (print_until_done) and stops the others. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    struct worker *w = calloc(s.ncpus, sizeof *w);
    run.kernel = s.kernel;
    run.schedule = &sched;
    run.size = s.size;
    run.seed = s.seed;
    run.measure = s.verbose;
    run.realtime = s.realtime;
    if (!w || load_run_init(&run) < 0) {
        fprintf(stderr, "tb-load: out of memory\n");
        free(w);
        schedule_free(&sched);
        load_settings_free(&s);
        return LOAD_EXIT_FAILURE;
    }
    size_t started = 0;
    rc = 0;
    for (; started < s.ncpus; started++) {
        w[started] = (struct worker){.cpu = s.cpus[started], .index = started, .run = &run};
        int e = worker_start(&w[started]);
        if (e != 0) {
            fprintf(stderr, "tb-load: CPU %d: cannot start a thread: %s\n", s.cpus[started],
                    strerror(e));
            atomic_store(&run.stop, 1);
            rc = LOAD_EXIT_FAILURE;
            break;
        }
    }
    load_run_wait_ready(&run, started);
    for (size_t i = 0; i < started; i++)
        if (w[i].failed) {
            fprintf(stderr, "tb-load: CPU %d: %s: %s\n", w[i].cpu, w[i].failed, strerror(w[i].error));
            atomic_store(&run.stop, 1);
            rc = LOAD_EXIT_FAILURE;
        }
    load_run_go(&run);
    if (s.verbose && rc == 0)
        fprintf(stderr, "tb-load: %s on %zu CPU%s, load %s, period %g ms\n", s.kernel->name,
                s.ncpus, s.ncpus > 1 ? "s" : "",
                s.profile ? s.profile : s.prbs_ms > 0 ? "random on/off" : "constant",
                sched.period * 1000);

    if (rc == 0)
        rc = print_until_done(&s, &sched, &run, w, &stop_signals);
    double elapsed = load_elapsed(&run);
    pthread_mutex_lock(&run.lock);
    atomic_store(&run.stop, 1);
    pthread_cond_broadcast(&run.wake);
    pthread_mutex_unlock(&run.lock);
    for (size_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    if (rc == 0) {
        print_counters(w, s.ncpus);
        if (fflush(stdout) != 0) {
            fprintf(stderr, "tb-load: standard output: %s\n", strerror(errno));
            rc = LOAD_EXIT_FAILURE;
        }
        if (s.verbose)
            print_summary(w, s.ncpus, elapsed);
    }
    for (size_t i = 0; i < started; i++) {
        free(w[i].late_on);
        free(w[i].late_off);
    }
    free(w);
    load_run_destroy(&run);
    schedule_free(&sched);
    load_settings_free(&s);
    return rc;
}
