/*
 * guardian.h -- a small process that cleans up after tb-record should it
 * die without doing so itself (SIGKILL, a crash).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_GUARDIAN_H
#define TB_GUARDIAN_H

#include <sys/types.h>

struct guardian {
    pid_t pid;   /* 0 when there is none */
    int fd;      /* our end of its pipe, or -1 */
};

/* Fork a guardian that waits on a pipe from us and, should the pipe close
 * without a word (we died), calls ON_ORPHAN(CTX) -- on its own copy of our
 * memory, as it was at the fork -- and exits.  It ignores SIGINT, SIGHUP
 * and SIGTERM (they reach us, who clean up ourselves) and takes no signal
 * mask of ours.  Without a pipe or a fork, G has no guardian: pid 0. */
void guardian_start(struct guardian *g, void (*on_orphan)(void *ctx), void *ctx);

/* Tell G's guardian all is done, and reap it; nothing without one. */
void guardian_release(struct guardian *g);

#endif
