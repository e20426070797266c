/*
 * benchmark.h -- the benchmark process tb-record runs and listens to.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_BENCHMARK_H
#define TB_RECORD_BENCHMARK_H

#include <stddef.h>
#include <sys/types.h>

struct benchmark {
    pid_t pid;          /* 0 once reaped */
    pid_t pgid;         /* its process group, until stopped */
    int out_fd;         /* its standard output; -1 after end of file */
    int status;         /* wait status once reaped */
    char buf[4096];     /* a line not yet complete */
    size_t len;
};

/* Start ARGV[0] with ARGV in a process group of its own, its standard
 * output piped to us.  0, or -1 with a message in ERR and errno set to
 * why it could not be started (ENOENT: no such program). */
int benchmark_start(struct benchmark *b, char **argv, char *err, size_t errlen);

/* Read what is available and call LINE for each complete line (without
 * its newline).  Returns 0, or 1 at end of file. */
int benchmark_read(struct benchmark *b, void (*line)(void *ctx, char *s),
                   void *ctx);

/* Reap the benchmark if it has exited; 1 when it has, 0 if it runs. */
int benchmark_reap(struct benchmark *b);

/* Stop the benchmark and its children: SIGTERM, then SIGKILL after
 * GRACE_MS, and SIGKILL to what it left in its group.  Reaps it. */
void benchmark_stop(struct benchmark *b, int grace_ms);

#endif
