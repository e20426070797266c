/*
 * kernels.c -- tb-load's workloads.
 *
 * An arithmetic kernel runs eight independent chains of its operation (so
 * that it is bound by the unit's throughput, not one result's latency),
 * two operations per chain and iteration: 16 operations an iteration, 16
 * per lane for the SIMD ones.  Its operands come from volatile variables,
 * so the compiler can neither fold them (a division by a known constant
 * would become a multiplication) nor compute a chain in closed form, and
 * an empty asm statement per chain keeps each value in a register without
 * letting the compiler reason about it.  The values stay bounded: x + a
 * then x + (−a); x·a then x·(1/a); x = a/x twice, which swings between x
 * and a/x; x = x·a + b with |a| < 1.  The SIMD kernels are the same source
 * on GCC vectors of 16 bytes: SSE2 on x86-64, NEON on aarch64.  There is
 * no SIMD integer division on either, so no simd-int*-div.
 *
 * The memory kernels walk a buffer of --size bytes a 4 KiB block a call:
 * sequential read, write or copy (one operation = one byte), or chase a
 * random cycle of its 64-byte lines (one operation = one dependent load,
 * the memory's latency).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"

#define BLOCK 4096   /* bytes a memory kernel handles per iteration */
#define LINE 64      /* bytes per mem-chase node: one cache line */
#define CHASE_STEPS 64

/* --- keeping the compiler honest ------------------------------------------ */

#define KEEP_INT(v) __asm__ volatile("" : "+r"(v))
#if defined(__x86_64__) || defined(__i386__)
#define KEEP_VEC(v) __asm__ volatile("" : "+x"(v))
#elif defined(__aarch64__)
#define KEEP_VEC(v) __asm__ volatile("" : "+w"(v))
#else
#define KEEP_VEC(v) __asm__ volatile("" : "+m"(v))
#endif

static uint64_t opaque_int(uint64_t v)
{
    volatile uint64_t x = v;
    return x;
}

static double opaque_fp(double v)
{
    volatile double x = v;
    return x;
}

typedef uint32_t v4u32 __attribute__((vector_size(16)));
typedef uint64_t v2u64 __attribute__((vector_size(16)));
typedef float v4f32 __attribute__((vector_size(16)));
typedef double v2f64 __attribute__((vector_size(16)));

/* KERNEL(NAME, T, E, LANES, KEEP, OPAQUE, X0, A, B, OP1, OP2): the
 * function NAME over type T (of LANES elements of type E) doing x = OP1
 * then x = OP2 per chain and iteration, with a = A and b = B hidden from
 * the compiler, the chains starting from X0, X0 + 1, ... X0 + 7.  (Its
 * arguments are expanded first, so that A, B and OP1, OP2 may come as
 * pairs.) */
#define CHAIN(x, OP1, OP2, KEEP) x = OP1(x); KEEP(x); x = OP2(x); KEEP(x);
#define KERNEL(...) KERNEL_(__VA_ARGS__)
#define KERNEL_(NAME, T, E, LANES, KEEP, OPAQUE, X0, A, B, OP1, OP2)               \
    static uint64_t NAME(struct kernel_ctx *ctx, uint64_t iters)                  \
    {                                                                              \
        const T a = (T){0} + (E)OPAQUE(A), b = (T){0} + (E)OPAQUE(B);              \
        T x0 = (T){0} + (E)OPAQUE(X0), x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;      \
        T x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;                      \
        (void)ctx;                                                                 \
        (void)a;                                                                   \
        (void)b;                                                                   \
        for (uint64_t i = 0; i < iters; i++) {                                     \
            CHAIN(x0, OP1, OP2, KEEP) CHAIN(x1, OP1, OP2, KEEP)                    \
            CHAIN(x2, OP1, OP2, KEEP) CHAIN(x3, OP1, OP2, KEEP)                    \
            CHAIN(x4, OP1, OP2, KEEP) CHAIN(x5, OP1, OP2, KEEP)                    \
            CHAIN(x6, OP1, OP2, KEEP) CHAIN(x7, OP1, OP2, KEEP)                    \
        }                                                                          \
        T all = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;                             \
        KEEP(all);                                                                 \
        return iters * 16 * (LANES);                                               \
    }

/* The four operations, each for the types below: add and mul pair a with
 * its inverse b, div swings x between x and a/x, madd contracts (|a| < 1
 * for floating point; integers wrap). */
#define ADD_A(x) ((x) + a)
#define ADD_B(x) ((x) + b)
#define MUL_A(x) ((x) * a)
#define MUL_B(x) ((x) * b)
#define DIV_A(x) (a / (x))
#define MADD_AB(x) ((x) * a + b)
#define ADD ADD_A, ADD_B
#define MUL MUL_A, MUL_B
#define DIV DIV_A, DIV_A
#define MADD MADD_AB, MADD_AB
#define I32_ADD 12345, (uint32_t)-12345
#define I32_MUL 0x9e3779b9u, 0x144cbc89u   /* odd, each other's inverse mod 2³² */
#define I32_DIV 0xfffffff1u, 0
#define I32_MADD 0x9e3779b9u, 12345
#define I64_ADD 12345, (uint64_t)-12345
#define I64_MUL 0x9e3779b97f4a7c15u, 0xf1de83e19937733du   /* inverses mod 2⁶⁴ */
#define I64_DIV 0xfffffffffffffff1u, 0
#define I64_MADD 0x9e3779b97f4a7c15u, 12345
#define FP_ADD 0.375, -0.375
#define FP_MUL 1.0001, 1 / 1.0001
#define FP_DIV 2.0, 0
#define FP_MADD 0.5, 1.0

/* The integer division chains start at 3: a/x stays within [1, a]. */
KERNEL(int32_add, uint32_t, uint32_t, 1, KEEP_INT, opaque_int, 1, I32_ADD, ADD)
KERNEL(int32_mul, uint32_t, uint32_t, 1, KEEP_INT, opaque_int, 1, I32_MUL, MUL)
KERNEL(int32_div, uint32_t, uint32_t, 1, KEEP_INT, opaque_int, 3, I32_DIV, DIV)
KERNEL(int32_madd, uint32_t, uint32_t, 1, KEEP_INT, opaque_int, 1, I32_MADD, MADD)
KERNEL(int64_add, uint64_t, uint64_t, 1, KEEP_INT, opaque_int, 1, I64_ADD, ADD)
KERNEL(int64_mul, uint64_t, uint64_t, 1, KEEP_INT, opaque_int, 1, I64_MUL, MUL)
KERNEL(int64_div, uint64_t, uint64_t, 1, KEEP_INT, opaque_int, 3, I64_DIV, DIV)
KERNEL(int64_madd, uint64_t, uint64_t, 1, KEEP_INT, opaque_int, 1, I64_MADD, MADD)
KERNEL(fp32_add, float, float, 1, KEEP_VEC, opaque_fp, 1, FP_ADD, ADD)
KERNEL(fp32_mul, float, float, 1, KEEP_VEC, opaque_fp, 1, FP_MUL, MUL)
KERNEL(fp32_div, float, float, 1, KEEP_VEC, opaque_fp, 1.25, FP_DIV, DIV)
KERNEL(fp32_madd, float, float, 1, KEEP_VEC, opaque_fp, 1, FP_MADD, MADD)
KERNEL(fp64_add, double, double, 1, KEEP_VEC, opaque_fp, 1, FP_ADD, ADD)
KERNEL(fp64_mul, double, double, 1, KEEP_VEC, opaque_fp, 1, FP_MUL, MUL)
KERNEL(fp64_div, double, double, 1, KEEP_VEC, opaque_fp, 1.25, FP_DIV, DIV)
KERNEL(fp64_madd, double, double, 1, KEEP_VEC, opaque_fp, 1, FP_MADD, MADD)
KERNEL(simd_int32_add, v4u32, uint32_t, 4, KEEP_VEC, opaque_int, 1, I32_ADD, ADD)
KERNEL(simd_int32_mul, v4u32, uint32_t, 4, KEEP_VEC, opaque_int, 1, I32_MUL, MUL)
KERNEL(simd_int32_madd, v4u32, uint32_t, 4, KEEP_VEC, opaque_int, 1, I32_MADD, MADD)
KERNEL(simd_int64_add, v2u64, uint64_t, 2, KEEP_VEC, opaque_int, 1, I64_ADD, ADD)
KERNEL(simd_int64_mul, v2u64, uint64_t, 2, KEEP_VEC, opaque_int, 1, I64_MUL, MUL)
KERNEL(simd_int64_madd, v2u64, uint64_t, 2, KEEP_VEC, opaque_int, 1, I64_MADD, MADD)
KERNEL(simd_fp32_add, v4f32, float, 4, KEEP_VEC, opaque_fp, 1, FP_ADD, ADD)
KERNEL(simd_fp32_mul, v4f32, float, 4, KEEP_VEC, opaque_fp, 1, FP_MUL, MUL)
KERNEL(simd_fp32_div, v4f32, float, 4, KEEP_VEC, opaque_fp, 1.25, FP_DIV, DIV)
KERNEL(simd_fp32_madd, v4f32, float, 4, KEEP_VEC, opaque_fp, 1, FP_MADD, MADD)
KERNEL(simd_fp64_add, v2f64, double, 2, KEEP_VEC, opaque_fp, 1, FP_ADD, ADD)
KERNEL(simd_fp64_mul, v2f64, double, 2, KEEP_VEC, opaque_fp, 1, FP_MUL, MUL)
KERNEL(simd_fp64_div, v2f64, double, 2, KEEP_VEC, opaque_fp, 1.25, FP_DIV, DIV)
KERNEL(simd_fp64_madd, v2f64, double, 2, KEEP_VEC, opaque_fp, 1, FP_MADD, MADD)

/* --- memory ------------------------------------------------------------------ */

static uint64_t mem_read(struct kernel_ctx *ctx, uint64_t iters)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (uint64_t it = 0; it < iters; it++) {
        const uint64_t *w = (const uint64_t *)(ctx->buf + ctx->pos);
        for (size_t i = 0; i < BLOCK / 8; i += 4) {
            s0 += w[i];
            s1 += w[i + 1];
            s2 += w[i + 2];
            s3 += w[i + 3];
        }
        ctx->pos = (ctx->pos + BLOCK) % ctx->size;
    }
    uint64_t all = s0 + s1 + s2 + s3;
    KEEP_INT(all);
    return iters * BLOCK;
}

static uint64_t mem_write(struct kernel_ctx *ctx, uint64_t iters)
{
    for (uint64_t it = 0; it < iters; it++) {
        uint64_t *w = (uint64_t *)(ctx->buf + ctx->pos);
        for (size_t i = 0; i < BLOCK / 8; i++)
            w[i] = it + i;
        ctx->pos = (ctx->pos + BLOCK) % ctx->size;
    }
    return iters * BLOCK;
}

/* From the buffer's first half to its second. */
static uint64_t mem_copy(struct kernel_ctx *ctx, uint64_t iters)
{
    size_t half = ctx->size / 2;
    for (uint64_t it = 0; it < iters; it++) {
        memcpy(ctx->buf + half + ctx->pos, ctx->buf + ctx->pos, BLOCK);
        ctx->pos = (ctx->pos + BLOCK) % half;
    }
    return iters * BLOCK;
}

static uint64_t mem_chase(struct kernel_ctx *ctx, uint64_t iters)
{
    size_t node = ctx->chase;
    for (uint64_t it = 0; it < iters; it++)
        for (int i = 0; i < CHASE_STEPS; i++)
            node = *(const size_t *)(ctx->buf + node * LINE);
    ctx->chase = node;
    return iters * CHASE_STEPS;
}

/* A millisecond's sleep an iteration: the baseline. */
static uint64_t idle(struct kernel_ctx *ctx, uint64_t iters)
{
    (void)ctx;
    for (uint64_t it = 0; it < iters; it++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return iters;
}

/* --- the table ------------------------------------------------------------- */

#define ARITH(name, fn, what) {name, what, 0, fn}
static const struct kernel kernels[] = {
    ARITH("int32-add", int32_add, "32-bit integer additions"),
    ARITH("int32-mul", int32_mul, "32-bit integer multiplications"),
    ARITH("int32-div", int32_div, "32-bit integer divisions"),
    ARITH("int32-madd", int32_madd, "32-bit integer multiply-adds (a·x + b)"),
    ARITH("int64-add", int64_add, "64-bit integer additions"),
    ARITH("int64-mul", int64_mul, "64-bit integer multiplications"),
    ARITH("int64-div", int64_div, "64-bit integer divisions"),
    ARITH("int64-madd", int64_madd, "64-bit integer multiply-adds (a·x + b)"),
    ARITH("fp32-add", fp32_add, "single-precision additions"),
    ARITH("fp32-mul", fp32_mul, "single-precision multiplications"),
    ARITH("fp32-div", fp32_div, "single-precision divisions"),
    ARITH("fp32-madd", fp32_madd, "single-precision multiply-adds (a·x + b)"),
    ARITH("fp64-add", fp64_add, "double-precision additions"),
    ARITH("fp64-mul", fp64_mul, "double-precision multiplications"),
    ARITH("fp64-div", fp64_div, "double-precision divisions"),
    ARITH("fp64-madd", fp64_madd, "double-precision multiply-adds (a·x + b)"),
    ARITH("simd-int32-add", simd_int32_add, "32-bit integer additions, 4 lanes"),
    ARITH("simd-int32-mul", simd_int32_mul, "32-bit integer multiplications, 4 lanes"),
    ARITH("simd-int32-madd", simd_int32_madd, "32-bit integer multiply-adds, 4 lanes"),
    ARITH("simd-int64-add", simd_int64_add, "64-bit integer additions, 2 lanes"),
    ARITH("simd-int64-mul", simd_int64_mul, "64-bit integer multiplications, 2 lanes"),
    ARITH("simd-int64-madd", simd_int64_madd, "64-bit integer multiply-adds, 2 lanes"),
    ARITH("simd-fp32-add", simd_fp32_add, "single-precision additions, 4 lanes"),
    ARITH("simd-fp32-mul", simd_fp32_mul, "single-precision multiplications, 4 lanes"),
    ARITH("simd-fp32-div", simd_fp32_div, "single-precision divisions, 4 lanes"),
    ARITH("simd-fp32-madd", simd_fp32_madd, "single-precision multiply-adds, 4 lanes"),
    ARITH("simd-fp64-add", simd_fp64_add, "double-precision additions, 2 lanes"),
    ARITH("simd-fp64-mul", simd_fp64_mul, "double-precision multiplications, 2 lanes"),
    ARITH("simd-fp64-div", simd_fp64_div, "double-precision divisions, 2 lanes"),
    ARITH("simd-fp64-madd", simd_fp64_madd, "double-precision multiply-adds, 2 lanes"),
    {"mem-read", "sequential reads over --size bytes; an operation is a byte", 1, mem_read},
    {"mem-write", "sequential writes over --size bytes; an operation is a byte", 1, mem_write},
    {"mem-copy", "copies from one half of --size bytes to the other; a byte", 1, mem_copy},
    {"mem-chase", "dependent loads along a random cycle over --size bytes", 1,
     mem_chase},
    {"idle", "sleeps (a baseline); an operation is a millisecond", 0, idle},
};

const struct kernel *kernel_all(size_t *n)
{
    *n = sizeof kernels / sizeof kernels[0];
    return kernels;
}

const struct kernel *kernel_find(const char *name)
{
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

/* xorshift64*: the random cycle of mem-chase, reproducible from a seed. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1du;
}

int kernel_ctx_init(struct kernel_ctx *ctx, const struct kernel *k, size_t size,
                    uint64_t seed)
{
    *ctx = (struct kernel_ctx){0};
    if (!k->memory)
        return 0;
    size -= size % (2 * BLOCK);   /* whole blocks, in either half for mem-copy */
    ctx->size = size;
    ctx->buf = malloc(size);
    if (!ctx->buf)
        return -1;
    memset(ctx->buf, 1, size);   /* touched here, on this thread's CPU */
    if (k->run == mem_chase) {
        /* Sattolo's shuffle of the identity gives a single cycle through
         * every line: next[i] = σ(i). */
        size_t n = size / LINE;
        uint64_t state = seed ? seed : 1;
        for (size_t i = 0; i < n; i++)
            *(size_t *)(ctx->buf + i * LINE) = i;
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)(next_random(&state) % i);
            size_t *a = (size_t *)(ctx->buf + i * LINE), *b = (size_t *)(ctx->buf + j * LINE);
            size_t t = *a;
            *a = *b;
            *b = t;
        }
    }
    return 0;
}

void kernel_ctx_free(struct kernel_ctx *ctx)
{
    free(ctx->buf);
    ctx->buf = NULL;
}
