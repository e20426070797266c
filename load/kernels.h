/*
 * kernels.h -- tb-load's workloads: tight loops with a fixed amount of
 * work per call, so that operations per second compare across boards.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_LOAD_KERNELS_H
#define TB_LOAD_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* One thread's state for its kernel: the memory kernels' buffer. */
struct kernel_ctx {
    unsigned char *buf;   /* size bytes, or NULL for the arithmetic kernels */
    size_t size;
    size_t pos;           /* where the next block starts */
    size_t chase;         /* mem-chase: the current node */
};

struct kernel {
    const char *name;
    const char *what;       /* one line for --list */
    int memory;             /* needs a buffer of --size bytes */
    /* Do ITERS units of work; returns the operations done. */
    uint64_t (*run)(struct kernel_ctx *ctx, uint64_t iters);
};

/* The kernel named NAME, or NULL. */
const struct kernel *kernel_find(const char *name);

/* Every kernel, in --list order; *N gets their number. */
const struct kernel *kernel_all(size_t *n);

/* Prepare CTX for K: a buffer of SIZE bytes (rounded down to a multiple
 * of 8 KiB, at least 8 KiB), touched by the calling
 * thread (so that it lies in its CPU's memory), and for mem-chase a random
 * cyclic order of its cache lines from SEED.  0, or -1 when memory runs
 * out. */
int kernel_ctx_init(struct kernel_ctx *ctx, const struct kernel *k, size_t size,
                    uint64_t seed);
void kernel_ctx_free(struct kernel_ctx *ctx);

#endif
