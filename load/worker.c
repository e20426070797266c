/*
 * worker.c -- the threads that do the work.
 *
 * Each thread reads the schedule itself (a pure function of the time since
 * the start), so all switch on the same absolute deadlines without a
 * controller waking them.  On, the kernel runs in chunks of 10–40 µs
 * (sized as it goes), the clock read between chunks; the last chunk before
 * a deadline is cut to the time left, so a thread stops within a few µs of
 * it.  Off, the thread sleeps on a condition variable until the next
 * deadline (absolute, CLOCK_MONOTONIC) or the stop, whichever comes first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdlib.h>

#include "worker.h"

#define CHUNK_MIN 10e-6   /* s: a chunk grows below this */
#define CHUNK_MAX 40e-6   /* s: and shrinks above it */

int load_run_init(struct load_run *r)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&r->wake, &attr) == 0 ? 0 : -1;
    pthread_condattr_destroy(&attr);
    if (rc == 0 && pthread_cond_init(&r->ready_cv, NULL) != 0) {
        pthread_cond_destroy(&r->wake);
        rc = -1;
    }
    if (rc == 0 && pthread_mutex_init(&r->lock, NULL) != 0) {
        pthread_cond_destroy(&r->wake);
        pthread_cond_destroy(&r->ready_cv);
        rc = -1;
    }
    atomic_init(&r->stop, 0);
    return rc;
}

void load_run_destroy(struct load_run *r)
{
    pthread_cond_destroy(&r->wake);
    pthread_cond_destroy(&r->ready_cv);
    pthread_mutex_destroy(&r->lock);
}

double load_elapsed(const struct load_run *r)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - r->start.tv_sec) + (double)(now.tv_nsec - r->start.tv_nsec) * 1e-9;
}

struct timespec load_deadline(const struct load_run *r, double t)
{
    double whole = floor(t);
    struct timespec d = {r->start.tv_sec + (time_t)whole,
                         r->start.tv_nsec + (long)((t - whole) * 1e9)};
    if (d.tv_nsec >= 1000000000L) {
        d.tv_sec++;
        d.tv_nsec -= 1000000000L;
    }
    return d;
}

static int stopped(const struct load_run *r)
{
    return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

static void note_latency(double *samples, size_t *n, double late)
{
    if (samples && *n < LATENCY_SAMPLES)
        samples[(*n)++] = late;
}

static double thread_cpu_time(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run the kernel until the deadline UNTIL (s since the start) and EXTRA s
 * more, or the stop. */
static void run_until(struct worker *w, double deadline, double extra, uint64_t *iters,
                      double *chunk)
{
    struct load_run *r = w->run;
    double until = deadline + extra, t0 = load_elapsed(r);
    for (;;) {
        if (t0 >= until || stopped(r)) {
            if (!stopped(r) && isfinite(until))
                note_latency(w->late_off, &w->noff, t0 - deadline);
            return;
        }
        uint64_t n = *iters;
        if (*chunk > 0 && until - t0 < *chunk) {   /* the time left only */
            n = (uint64_t)((double)*iters * (until - t0) / *chunk);
            n = n ? n : 1;
        }
        uint64_t ops = r->kernel->run(&w->ctx, n);
        atomic_fetch_add_explicit(&w->ops, ops, memory_order_relaxed);
        double t1 = load_elapsed(r), dt = t1 - t0;
        if (n == *iters) {
            *chunk = dt;
            if (dt < CHUNK_MIN && *iters < (UINT64_C(1) << 40))
                *iters *= 2;
            else if (dt > CHUNK_MAX && *iters > 1)
                *iters /= 2;
        }
        t0 = t1;   /* one clock read a chunk */
    }
}

/* Sleep until UNTIL (s since the start) or the stop. */
static void sleep_until(struct worker *w, double until)
{
    struct load_run *r = w->run;
    struct timespec deadline = load_deadline(r, until);
    pthread_mutex_lock(&r->lock);
    while (!stopped(r)) {
        int rc = isfinite(until) ? pthread_cond_timedwait(&r->wake, &r->lock, &deadline)
                                 : pthread_cond_wait(&r->wake, &r->lock);
        if (rc == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&r->lock);
    if (!stopped(r) && isfinite(until))
        note_latency(w->late_on, &w->non, load_elapsed(r) - until);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct load_run *r = w->run;
    cpu_set_t set;

    /* Wake at the deadline, not up to 50 µs after it (the default slack). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) {
        w->failed = "cannot pin a thread to it";
        w->error = errno;
    } else if (r->realtime > 0 &&
               (w->error = pthread_setschedparam(pthread_self(), SCHED_FIFO,
                                                 &(struct sched_param){.sched_priority =
                                                                           r->realtime})) != 0) {
        w->failed = "cannot run it under SCHED_FIFO (--realtime needs root, CAP_SYS_NICE or an "
                    "rtprio limit)";
    } else if (kernel_ctx_init(&w->ctx, r->kernel, r->size, r->seed + w->index) < 0) {
        w->failed = "no memory for the kernel's buffer";
        w->error = ENOMEM;
    } else if (r->measure && (!(w->late_on = malloc(LATENCY_SAMPLES * sizeof *w->late_on)) ||
                              !(w->late_off = malloc(LATENCY_SAMPLES * sizeof *w->late_off)))) {
        w->failed = "no memory for the latency samples";
        w->error = ENOMEM;
    }
    pthread_mutex_lock(&r->lock);
    r->ready++;
    pthread_cond_signal(&r->ready_cv);
    while (!r->go)
        pthread_cond_wait(&r->wake, &r->lock);
    pthread_mutex_unlock(&r->lock);

    /* The CPU time a thread gets is not quite its on time: it wakes 30–150
     * µs after its deadline (the CPU leaving its idle state), and the
     * kernel charges it for the switches.  So each thread keeps the CPU
     * time it owes (asked on time less the CPU time it used, period after
     * period) and runs that much longer or shorter: the share comes out
     * as asked whatever the board.  What it owes is held within ±1 ms, so
     * that time taken by other programs is not paid back in a burst. */
    uint64_t iters = 1;
    double chunk = 0, owed = 0, on_from = 0, cpu_mark = thread_cpu_time();
    while (!w->failed && !stopped(r)) {
        double until, t = load_elapsed(r);
        if (schedule_on(r->schedule, w->index, t, &until)) {
            /* at most half into the off phase, so that a sleep always
             * comes between two on phases */
            double off_end = until;
            double gap = isfinite(until) && !schedule_on(r->schedule, w->index, until, &off_end)
                             ? off_end - until : 0;
            double extra = fmin(fmax(owed, -(until - t) / 2), gap / 2);
            run_until(w, until, extra, &iters, &chunk);
            if (!isfinite(until))
                continue;
            double cpu = thread_cpu_time();
            owed += (until - on_from) - (cpu - cpu_mark);
            owed = fmin(fmax(owed, -1e-3), 1e-3);
            cpu_mark = cpu;
            on_from = until;   /* where the next on phase starts if no sleep comes first */
            if (extra < 0 && gap > 0) {   /* stopped early: the rest of the phase is off */
                sleep_until(w, off_end);
                on_from = off_end;
            }
        } else {
            sleep_until(w, until);
            on_from = until;
        }
    }
    kernel_ctx_free(&w->ctx);
    return NULL;
}

void load_run_wait_ready(struct load_run *r, size_t n)
{
    pthread_mutex_lock(&r->lock);
    while (r->ready < n)
        pthread_cond_wait(&r->ready_cv, &r->lock);
    pthread_mutex_unlock(&r->lock);
}

void load_run_go(struct load_run *r)
{
    pthread_mutex_lock(&r->lock);
    clock_gettime(CLOCK_MONOTONIC, &r->start);
    r->go = 1;
    pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->lock);
}

int worker_start(struct worker *w)
{
    atomic_init(&w->ops, 0);
    return pthread_create(&w->thread, NULL, worker_main, w);
}
