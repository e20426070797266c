/*
 * progress.c -- a progress line on a terminal (progress.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void tb_progress_start(struct tb_progress *p, const char *tool, const char *what, size_t total)
{
    *p = (struct tb_progress){
        .on = total > 1 && isatty(STDERR_FILENO), .tool = tool, .what = what,
        .total = total, .t0 = now_s(), .last = -1,
    };
}

void tb_progress_show(struct tb_progress *p, size_t done)
{
    if (!p->on)
        return;
    double t = now_s();
    if (done < p->total && t - p->last < 0.1)
        return;
    p->last = t;
    double elapsed = t - p->t0, rate = elapsed > 0 ? (double)done / elapsed : 0;
    fprintf(stderr, "\r\033[K%s: %zu/%zu %s", p->tool, done, p->total, p->what);
    if (done > 0 && done < p->total && elapsed >= 1) {
        long left = lround((double)(p->total - done) / rate);
        fprintf(stderr, ", %.3g a second, about ", rate);
        if (left >= 3600)
            fprintf(stderr, "%ld h %ld min left", left / 3600, left % 3600 / 60);
        else if (left >= 60)
            fprintf(stderr, "%ld min %ld s left", left / 60, left % 60);
        else
            fprintf(stderr, "%ld s left", left);
    }
    fflush(stderr);
    p->drawn = 1;
}

void tb_progress_clear(struct tb_progress *p)
{
    if (!p->on || !p->drawn)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = 0;
}
