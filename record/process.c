/*
 * process.c -- start child processes in their own process group, read
 * their output by lines, stop them and everything they started.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "process.h"

/* Should we die without stopping the group ourselves (SIGKILL, a crash),
 * the guardian kills the whole process group, grandchildren included. */
static void kill_group(void *ctx)
{
    kill(-((struct process *)ctx)->pgid, SIGKILL);
}

int process_start(struct process *p, char *const *argv, char *err, size_t errlen)
{
    return process_start_joined(p, argv, -1, err, errlen);
}

int process_start_joined(struct process *p, char *const *argv, int join_fd, char *err,
                         size_t errlen)
{
    int out[2], report[2];

    memset(p, 0, sizeof *p);
    p->out_fd = -1;
    p->guard = (struct guardian){0, -1};
    if (pipe2(out, O_CLOEXEC) < 0)
        goto pipe_failed;
    if (pipe2(report, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        goto pipe_failed;
    }
    pid_t parent = getpid(), pid = fork();
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
        signal(SIGXFSZ, SIG_DFL);
        setpgid(0, 0);
        /* Should tb-record be killed outright (SIGKILL, a crash), take the
         * benchmark with it rather than leave it heating the board. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);   /* the parent died before the line above (it may be PID 1 itself) */
        /* into the control group before exec: its children are born in it
         * (a failure told as a negative errno) */
        int e = 0;
        if (join_fd >= 0 && write(join_fd, "0", 1) < 0)
            e = -errno;
        dup2(out[1], STDOUT_FILENO);
        if (e == 0) {
            execvp(argv[0], argv);
            e = errno;   /* tell the parent why, through the pipe exec would have closed */
        }
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
        if (e < 0)
            snprintf(err, errlen, "cannot move %s into its control group: %s", argv[0],
                     strerror(-e));
        else
            snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
        e = e < 0 ? -e : e;
        waitpid(pid, NULL, 0);
        close(out[0]);
        errno = e;
        return -1;
    }
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    p->pid = p->pgid = pid;
    p->out_fd = out[0];
    guardian_start(&p->guard, kill_group, p);
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

/* Reads a call makes at most: a benchmark that writes faster than its
 * lines are taken (yes(1): 300 MB/s and more) must not keep tb-record from
 * its sampling deadlines; what is left waits in the pipe, which slows the
 * writer, not the sampling. */
#define READS_A_CALL 16

int process_read(struct process *p, void (*line)(void *ctx, char *s), void *ctx)
{
    for (int reads = 0; reads < READS_A_CALL; reads++) {
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
    return 2;   /* more may be waiting: the next call takes it */
}

void process_drain(struct process *p, void (*line)(void *ctx, char *s), void *ctx)
{
    /* bounded: a writer that never stops is not waited for */
    for (int calls = 0; calls < 1024 && process_read(p, line, ctx) == 2; calls++)
        ;
}

/* waitpid() that also keeps the child's CPU time. */
static pid_t wait_child(struct process *p, int options)
{
    struct rusage ru;
    pid_t got = wait4(p->pid, &p->status, options, &ru);
    if (got == p->pid)
        p->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    return got;
}

int process_reap(struct process *p)
{
    if (p->pid <= 0)
        return 1;
    if (wait_child(p, WNOHANG) == p->pid) {
        p->pid = 0;
        return 1;
    }
    return 0;
}

void process_stop(struct process *p, int grace_ms)
{
    pid_t group = p->pgid;

    if (group <= 0) {
        guardian_release(&p->guard);
        return;
    }
    if (p->pid > 0) {
        kill(-group, SIGTERM);
        kill(-group, SIGCONT);   /* a group stopped outside its window takes the TERM */
        for (int waited = 0; waited < grace_ms && !process_reap(p); waited += 10)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill(-group, SIGKILL);   /* what is left, children included */
    if (p->pid > 0)
        wait_child(p, 0);
    p->pid = 0;
    p->pgid = 0;
    if (p->out_fd >= 0) {
        close(p->out_fd);
        p->out_fd = -1;
    }
    guardian_release(&p->guard);
}
