/*
 * benchmark.c -- run the benchmark, read its KEY=VALUE lines, stop it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchmark.h"

int benchmark_start(struct benchmark *b, char **argv, char *err, size_t errlen)
{
    int out[2], report[2];

    memset(b, 0, sizeof *b);
    b->out_fd = -1;
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        setpgid(0, 0);
        dup2(out[1], STDOUT_FILENO);
        execvp(argv[0], argv);
        /* Tell the parent why, through the pipe exec would have closed. */
        int e = errno;
        if (write(report[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    setpgid(pid, pid);  /* also here: no race with our first kill() */
    close(out[1]);
    close(report[1]);
    int e;
    ssize_t n;
    while ((n = read(report[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(report[0]);
    if (n == sizeof e) {
        snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
        waitpid(pid, NULL, 0);
        close(out[0]);
        errno = e;
        return -1;
    }
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    b->pid = b->pgid = pid;
    b->out_fd = out[0];
    return 0;
}

int benchmark_read(struct benchmark *b, void (*line)(void *ctx, char *s), void *ctx)
{
    for (;;) {
        if (b->out_fd < 0)
            return 1;
        ssize_t n = read(b->out_fd, b->buf + b->len, sizeof b->buf - 1 - b->len);
        if (n < 0)
            return errno == EINTR ? 0 : (errno == EAGAIN ? 0 : 1);
        if (n == 0) {
            if (b->len > 0) {       /* a last line without newline */
                b->buf[b->len] = '\0';
                line(ctx, b->buf);
                b->len = 0;
            }
            close(b->out_fd);
            b->out_fd = -1;
            return 1;
        }
        b->len += (size_t)n;
        char *start = b->buf, *nl;
        while ((nl = memchr(start, '\n', (size_t)(b->buf + b->len - start)))) {
            *nl = '\0';
            line(ctx, start);
            start = nl + 1;
        }
        b->len -= (size_t)(start - b->buf);
        memmove(b->buf, start, b->len);
        if (b->len == sizeof b->buf - 1) {  /* an overlong line: pass it on in parts */
            b->buf[b->len] = '\0';
            line(ctx, b->buf);
            b->len = 0;
        }
    }
}

int benchmark_reap(struct benchmark *b)
{
    if (b->pid <= 0)
        return 1;
    if (waitpid(b->pid, &b->status, WNOHANG) == b->pid) {
        b->pid = 0;
        return 1;
    }
    return 0;
}

void benchmark_stop(struct benchmark *b, int grace_ms)
{
    pid_t group = b->pgid;

    if (group <= 0)
        return;
    if (b->pid > 0) {
        kill(-group, SIGTERM);
        for (int waited = 0; waited < grace_ms && !benchmark_reap(b); waited += 10)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill(-group, SIGKILL);   /* what is left, children included */
    if (b->pid > 0)
        waitpid(b->pid, &b->status, 0);
    b->pid = 0;
    b->pgid = 0;
}
