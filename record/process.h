/*
 * process.h -- the processes tb-record runs: the benchmark, --exec
 * helpers (and sensors files' !SPEC lines) and the fan command.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_PROCESS_H
#define TB_RECORD_PROCESS_H

#include <stddef.h>
#include <sys/types.h>

#include "guardian.h"

struct process {
    pid_t pid;          /* 0 once reaped */
    pid_t pgid;         /* its process group, until stopped */
    struct guardian guard;   /* kills the group should we die first */
    int out_fd;         /* its standard output; -1 after end of file */
    int status;         /* wait status once reaped */
    double cpu_s;       /* its CPU time (user + system) once reaped */
    char buf[4096];     /* a line not yet complete */
    size_t len;
};

/* Start ARGV[0] with ARGV in a process group of its own, its standard
 * output piped to us (non-blocking).  0, or -1 with a message in ERR and
 * errno set to why it could not be started (ENOENT: no such program). */
int process_start(struct process *p, char *const *argv, char *err, size_t errlen);

/* As process_start(), the process moved into a control group first by
 * writing "0" to JOIN_FD (its cgroup.procs; -1: none). */
int process_start_joined(struct process *p, char *const *argv, int join_fd, char *err,
                         size_t errlen);

/* As process_start() for "/bin/sh -c CMD". */
int process_start_shell(struct process *p, const char *cmd, char *err, size_t errlen);

/* Read what is available (64 KiB at most a call) and call LINE (unless
 * NULL) for each complete line, without its newline.  Returns 0 when all
 * was read, 2 when more may wait, 1 at end of file. */
int process_read(struct process *p, void (*line)(void *ctx, char *s), void *ctx);

/* As process_read() until all that waits is read (64 MiB at most), for
 * the lines a process left as it ended. */
void process_drain(struct process *p, void (*line)(void *ctx, char *s), void *ctx);

/* Reap the process if it has exited; 1 when it has, 0 if it runs. */
int process_reap(struct process *p);

/* Stop the process and its children: SIGTERM, then SIGKILL after
 * GRACE_MS, and SIGKILL to what it left in its group.  Reaps it, and
 * releases its guardian. */
void process_stop(struct process *p, int grace_ms);

#endif
