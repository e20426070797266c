/*
 * work_pool.h -- items 0..N-1 worked on by up to JOBS threads, in order of
 * their index, while the caller waits for each item in turn (to print
 * results in input order as soon as they are ready).  What tb-fit -j and
 * tb-compare -j share.  Part of libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_WORK_POOL_H
#define TB_WORK_POOL_H

#include <pthread.h>
#include <stddef.h>

struct tb_work_pool {
    void (*work)(void *ctx, size_t i);
    void *ctx;
    size_t n, next;
    unsigned char *done;     /* [n] */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t *threads;
    size_t nthreads;
};

/* Start WORK(CTX, i) for every i < N on up to JOBS threads.  When no
 * thread can be had the work is done here, before returning: it is done
 * either way.  0, or -1 when memory runs out (nothing was started). */
int tb_work_pool_start(struct tb_work_pool *p, size_t n, int jobs,
                       void (*work)(void *ctx, size_t i), void *ctx);

/* Wait until item I is done. */
void tb_work_pool_wait(struct tb_work_pool *p, size_t i);

/* Wait for every item, then free the pool's threads and state. */
void tb_work_pool_finish(struct tb_work_pool *p);

/* Keep the BLAS to the calling thread (OpenBLAS's own pool, where GSL is
 * linked with it): the fits are the parallel work, and BLAS threads on
 * vectors of a few thousand only contend with them. */
void tb_work_pool_blas_single(void);

#endif
