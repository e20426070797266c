/*
 * work_pool.c -- a fixed set of threads taking the next item off a
 * counter: the items (whole runs) are few and long, so nothing finer is
 * needed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif

#include "work_pool.h"

#ifdef HAVE_OPENBLAS_SET_NUM_THREADS
void openblas_set_num_threads(int n);
#endif

static void *worker(void *arg)
{
    struct tb_work_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i == p->n)
            return NULL;
        p->work(p->ctx, i);
        pthread_mutex_lock(&p->lock);
        p->done[i] = 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
    }
}

int tb_work_pool_start(struct tb_work_pool *p, size_t n, int jobs,
                       void (*work)(void *ctx, size_t i), void *ctx)
{
    size_t want = jobs < 1 ? 1 : (size_t)jobs < n ? (size_t)jobs : n;
#ifdef M_TRIM_THRESHOLD
    /* A fit allocates and frees blocks of 8 to 40 bytes a point, again
     * and again; glibc would hand a worker's arena back to the kernel
     * after each, and map each block over 128 kB on its own, and fault
     * them all in again: a quarter of tb-fit's time at 3600 points, and
     * 88,000 page faults instead of 62,000 at a million. */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
    memset(p, 0, sizeof *p);
    p->work = work;
    p->ctx = ctx;
    p->n = n;
    p->done = calloc(n ? n : 1, 1);
    p->threads = calloc(want ? want : 1, sizeof *p->threads);
    if (!p->done || !p->threads || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p->done);
        free(p->threads);
        memset(p, 0, sizeof *p);
        return -1;
    }
    if (pthread_cond_init(&p->changed, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p->done);
        free(p->threads);
        memset(p, 0, sizeof *p);
        return -1;
    }
    for (size_t t = 0; t < want; t++)
        if (pthread_create(&p->threads[p->nthreads], NULL, worker, p) == 0)
            p->nthreads++;
    if (p->nthreads == 0)
        worker(p);
    return 0;
}

void tb_work_pool_wait(struct tb_work_pool *p, size_t i)
{
    pthread_mutex_lock(&p->lock);
    while (!p->done[i])
        pthread_cond_wait(&p->changed, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void tb_work_pool_finish(struct tb_work_pool *p)
{
    for (size_t t = 0; t < p->nthreads; t++)
        pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->changed);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p->done);
    memset(p, 0, sizeof *p);
}

void tb_work_pool_blas_single(void)
{
#ifdef HAVE_OPENBLAS_SET_NUM_THREADS
    /* left as it is, a followed run's fits spent a third of their time
     * in OpenBLAS threads spinning in sched_yield (perf) */
    openblas_set_num_threads(1);
#endif
}
