/*
 * worker.h -- one thread per CPU, pinned to it, running the kernel while
 * the schedule says on and sleeping (never spinning) while it says off.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_LOAD_WORKER_H
#define TB_LOAD_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "kernels.h"
#include "schedule.h"

/* What the workers share: set up before they start, then read only, but
 * for the stop. */
struct load_run {
    const struct kernel *kernel;
    const struct schedule *schedule;
    size_t size;                 /* a memory kernel's buffer */
    uint64_t seed;
    struct timespec start;       /* CLOCK_MONOTONIC at t = 0 */
    pthread_mutex_t lock;
    pthread_cond_t wake;         /* broadcast at the go and the stop; on CLOCK_MONOTONIC */
    pthread_cond_t ready_cv;     /* a worker is ready */
    size_t ready;                /* workers pinned, their buffers touched */
    int go;                      /* start is set (or the stop) */
    atomic_int stop;
    int measure;                 /* keep switching latencies (-v) */
    int realtime;                /* SCHED_FIFO priority of the workers; 0: none */
};

#define LATENCY_SAMPLES 16384

struct worker {
    pthread_t thread;
    int cpu;                     /* the CPU it is pinned to */
    size_t index;                /* its place in --cpus */
    struct load_run *run;
    struct kernel_ctx ctx;
    _Atomic uint64_t ops;        /* operations done so far */
    const char *failed;          /* what could not be done, or NULL */
    int error;                   /* its errno */
    /* -v: how late it started (on) and stopped (off) after a deadline, s */
    double *late_on, *late_off;
    size_t non, noff;
};

int load_run_init(struct load_run *r);
void load_run_destroy(struct load_run *r);

/* Seconds since R's start. */
double load_elapsed(const struct load_run *r);

/* The absolute CLOCK_MONOTONIC time T s after R's start. */
struct timespec load_deadline(const struct load_run *r, double t);

/* Wait until N workers are ready (pinned, buffers touched, or failed). */
void load_run_wait_ready(struct load_run *r, size_t n);

/* Set the start (t = 0) and let the workers go. */
void load_run_go(struct load_run *r);

/* Start W's thread (pinned, its buffer touched, then ready to go);
 * 0, or an errno. */
int worker_start(struct worker *w);

#endif
