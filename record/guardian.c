/*
 * guardian.c -- a small process that cleans up after tb-record should it
 * die without doing so itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guardian.h"

void guardian_start(struct guardian *g, void (*on_orphan)(void *ctx), void *ctx)
{
    int fds[2];
    g->pid = 0;
    g->fd = -1;
    if (pipe2(fds, O_CLOEXEC) < 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        char c;
        ssize_t n;
        close(fds[1]);
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        while ((n = read(fds[0], &c, 1)) < 0 && errno == EINTR)
            ;
        if (n == 0)   /* closed without a word: we are gone */
            on_orphan(ctx);
        _exit(0);
    }
    close(fds[0]);
    g->pid = pid;
    g->fd = fds[1];
}

void guardian_release(struct guardian *g)
{
    if (g->pid <= 0)
        return;
    if (write(g->fd, "x", 1) < 0) {
        /* it is gone already */
    }
    close(g->fd);
    waitpid(g->pid, NULL, 0);
    g->pid = 0;
    g->fd = -1;
}
