/*
 * process.c -- start child processes in their own process group, read
 * their output by lines, stop them and everything they started.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "process.h"

int process_start(struct process *p, char *const *argv, char *err, size_t errlen)
{
    int out[2], report[2];

    memset(p, 0, sizeof *p);
    p->out_fd = -1;
    if (pipe2(out, O_CLOEXEC) < 0)
        goto pipe_failed;
    if (pipe2(report, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        goto pipe_failed;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out[0]);
        close(out[1]);
        close(report[0]);
        close(report[1]);
        snprintf(err, errlen, "fork: %s", strerror(e));
        errno = e;
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
    p->pid = p->pgid = pid;
    p->out_fd = out[0];
    return 0;

pipe_failed:
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
}

int process_start_shell(struct process *p, const char *cmd, char *err, size_t errlen)
{
    char *const argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return process_start(p, argv, err, errlen);
}

int process_read(struct process *p, void (*line)(void *ctx, char *s), void *ctx)
{
    for (;;) {
        if (p->out_fd < 0)
            return 1;
        ssize_t n = read(p->out_fd, p->buf + p->len, sizeof p->buf - 1 - p->len);
        if (n < 0)
            return errno == EINTR || errno == EAGAIN ? 0 : (close(p->out_fd), p->out_fd = -1, 1);
        if (n == 0) {
            if (p->len > 0 && line) {   /* a last line without newline */
                p->buf[p->len] = '\0';
                line(ctx, p->buf);
                p->len = 0;
            }
            close(p->out_fd);
            p->out_fd = -1;
            return 1;
        }
        p->len += (size_t)n;
        char *start = p->buf, *nl;
        while ((nl = memchr(start, '\n', (size_t)(p->buf + p->len - start)))) {
            *nl = '\0';
            if (line)
                line(ctx, start);
            start = nl + 1;
        }
        p->len -= (size_t)(start - p->buf);
        memmove(p->buf, start, p->len);
        if (p->len == sizeof p->buf - 1) {  /* an overlong line: pass it on in parts */
            p->buf[p->len] = '\0';
            if (line)
                line(ctx, p->buf);
            p->len = 0;
        }
    }
}

int process_reap(struct process *p)
{
    if (p->pid <= 0)
        return 1;
    if (waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
        p->pid = 0;
        return 1;
    }
    return 0;
}

void process_stop(struct process *p, int grace_ms)
{
    pid_t group = p->pgid;

    if (group <= 0)
        return;
    if (p->pid > 0) {
        kill(-group, SIGTERM);
        for (int waited = 0; waited < grace_ms && !process_reap(p); waited += 10)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill(-group, SIGKILL);   /* what is left, children included */
    if (p->pid > 0)
        waitpid(p->pid, &p->status, 0);
    p->pid = 0;
    p->pgid = 0;
    if (p->out_fd >= 0) {
        close(p->out_fd);
        p->out_fd = -1;
    }
}

int process_run(const char *cmd, void (*line)(void *ctx, char *s), void *ctx)
{
    struct process p;
    char err[256];

    if (process_start_shell(&p, cmd, err, sizeof err) < 0)
        return -1;
    while (process_read(&p, line, ctx) == 0) {
        struct pollfd pfd = {.fd = p.out_fd, .events = POLLIN};
        poll(&pfd, 1, 1000);
    }
    waitpid(p.pid, &p.status, 0);
    kill(-p.pgid, SIGKILL);   /* anything it left running */
    return p.status;
}
