/*
 * progress.h -- a progress line for long work (many runs, bootstrap
 * intervals): "tb-fit: 120/4000 runs, 35 a second, about 1 min 50 s left",
 * redrawn in place on a terminal, and nothing at all when standard error
 * is not one (a log, a pipe, CI).  Part of libtbtools.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_PROGRESS_H
#define TB_PROGRESS_H

#include <stddef.h>

struct tb_progress {
    int on;             /* standard error is a terminal, and there is work */
    const char *tool;
    const char *what;   /* "runs" */
    size_t total;
    double t0;          /* when the work started, s */
    double last;        /* when the line was last drawn */
    int drawn;          /* a line is on the screen */
};

/* Start counting TOTAL items of WHAT for TOOL; on only when standard error
 * is a terminal and TOTAL is above 1. */
void tb_progress_start(struct tb_progress *p, const char *tool, const char *what, size_t total);

/* DONE of the total are done: redraw the line (at most ten times a second). */
void tb_progress_show(struct tb_progress *p, size_t done);

/* Take the line off the screen, before other output goes there. */
void tb_progress_clear(struct tb_progress *p);

#endif
