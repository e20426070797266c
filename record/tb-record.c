/*
 * tb-record -- run a benchmark and sample sensors on a fixed period into a
 * CSV file in the thermobench format.  Runs on the board: libc only.
 *
 * Sampling deadlines are absolute (start + k * period on CLOCK_MONOTONIC),
 * so the period never drifts; a deadline that has already passed when the
 * recorder wakes is counted as missed and reported, never silently made up.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchmark.h"
#include "csv_writer.h"
#include "options.h"
#include "sensor.h"

#define VALUE_MAX 64

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }
static void on_child(int sig) { (void)sig; }

struct recorder {
    const struct record_settings *s;
    struct sensor *sensors;
    size_t nsensors;
    char (*text)[VALUE_MAX];    /* one buffer per sensor */
    const char **values;
    struct csv_writer out;
    struct benchmark bench;
    int have_bench;
    int64_t t0_ns;
    int write_failed;
    FILE *echo;                 /* where other benchmark lines go */
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double elapsed_ms(const struct recorder *r, int64_t t)
{
    return (double)(t - r->t0_ns) / 1e6;
}

static void write_row(struct recorder *r, int64_t t, size_t from,
                      const char *const *values, size_t n)
{
    if (r->write_failed)
        return;
    if (csvw_row(&r->out, elapsed_ms(r, t), from, values, n) < 0) {
        fprintf(stderr, "tb-record: %s: write error: %s\n",
                r->out.path, strerror(errno));
        r->write_failed = 1;
    }
}

static void sample(struct recorder *r)
{
    int64_t t = now_ns();
    for (size_t i = 0; i < r->nsensors; i++) {
        struct sensor *sn = &r->sensors[i];
        int rc = sensor_read(sn, r->text[i], VALUE_MAX);
        if (rc < 0 && !sn->failing)
            fprintf(stderr, "tb-record: sensor %s: cannot read a number "
                    "(recording nan)\n", sn->path);
        else if (rc == 0 && sn->failing)
            fprintf(stderr, "tb-record: sensor %s: readable again\n", sn->path);
        sn->failing = rc < 0;
        r->values[i] = r->text[i];
    }
    write_row(r, t, 0, r->values, r->nsensors);
}

/* A line of the benchmark's output: KEY=VALUE of a --column, or passed on. */
static void on_benchmark_line(void *ctx, char *line)
{
    struct recorder *r = ctx;
    char *eq = strchr(line, '=');

    if (eq) {
        for (size_t k = 0; k < r->s->ncolumns; k++) {
            const char *key = r->s->columns[k];
            if (strlen(key) == (size_t)(eq - line) &&
                strncmp(line, key, (size_t)(eq - line)) == 0) {
                const char *value = eq + 1;
                write_row(r, now_ns(), r->nsensors + k, &value, 1);
                return;
            }
        }
    }
    fprintf(r->echo, "%s\n", line);
}

static char *output_path(const struct record_settings *s)
{
    char *path = NULL;
    const char *name = s->name;

    if (s->output)
        return strdup(s->output);
    if (!name && s->bench_argv) {
        name = strrchr(s->bench_argv[0], '/');
        name = name ? name + 1 : s->bench_argv[0];
    }
    if (asprintf(&path, "%s/%s.csv", s->output_dir, name ? name : "tb-record") < 0)
        return NULL;
    return path;
}

static void install_signals(sigset_t *unblocked)
{
    sigset_t block;
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_child;
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);   /* a closed output becomes a write error */

    /* Signals are taken only inside ppoll(), so none is lost between a
     * check and the wait. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, unblocked);
    sigdelset(unblocked, SIGINT);
    sigdelset(unblocked, SIGTERM);
    sigdelset(unblocked, SIGHUP);
    sigdelset(unblocked, SIGCHLD);
}

/* Sample until the time limit, the benchmark's end or a signal. */
static void record(struct recorder *r, const sigset_t *unblocked)
{
    const struct record_settings *s = r->s;
    int64_t period = (int64_t)(s->period_ms * 1e6);
    int64_t limit = s->time_limit_s > 0
                        ? r->t0_ns + (int64_t)(s->time_limit_s * 1e9) : INT64_MAX;
    int64_t k = 0, missed = 0;

    if (period < 1)
        period = 1;
    while (!r->write_failed && !stop_signal) {
        int64_t now = now_ns();
        int64_t deadline = r->t0_ns + k * period;
        if (now >= deadline && deadline <= limit) {
            sample(r);
            int64_t due = (now - r->t0_ns) / period;
            missed += due - k;
            k = due + 1;
            continue;
        }
        if (now >= limit)
            break;
        if (r->have_bench && benchmark_reap(&r->bench)) {
            while (benchmark_read(&r->bench, on_benchmark_line, r) == 0)
                ;
            break;
        }
        int64_t wake = deadline < limit ? deadline : limit;
        int64_t wait = wake - now;
        struct timespec timeout = {wait / 1000000000, wait % 1000000000};
        struct pollfd pfd = {.fd = r->have_bench ? r->bench.out_fd : -1,
                             .events = POLLIN};
        if (ppoll(&pfd, 1, &timeout, unblocked) > 0 && pfd.revents)
            benchmark_read(&r->bench, on_benchmark_line, r);
    }
    if (missed > 0)
        fprintf(stderr, "tb-record: %lld sampling deadline%s missed (the "
                "system was too busy to wake tb-record in time)\n",
                (long long)missed, missed == 1 ? "" : "s");
}

/* The benchmark's own status, as a shell would give it. */
static int benchmark_exit_status(const struct benchmark *b, const char *name)
{
    if (WIFEXITED(b->status) && WEXITSTATUS(b->status) != 0) {
        fprintf(stderr, "tb-record: benchmark %s exited with status %d\n",
                name, WEXITSTATUS(b->status));
        return WEXITSTATUS(b->status);
    }
    if (WIFSIGNALED(b->status)) {
        fprintf(stderr, "tb-record: benchmark %s was killed by signal %d\n",
                name, WTERMSIG(b->status));
        return 128 + WTERMSIG(b->status);
    }
    return RECORD_EXIT_OK;
}

int main(int argc, char **argv)
{
    struct record_settings s;
    struct recorder r = {.s = &s};
    char err[1024];
    char *path = NULL;
    const char **headers = NULL;
    sigset_t unblocked;
    int status = record_parse_arguments(argc, argv, &s);

    if (status >= 0) {
        record_settings_free(&s);
        return status;
    }
    status = RECORD_EXIT_FAILURE;
    install_signals(&unblocked);
    if (sensors_open(&s, &r.sensors, &r.nsensors, err, sizeof err) < 0) {
        fprintf(stderr, "tb-record: %s\n", err);
        goto out;
    }
    size_t ncols = r.nsensors + s.ncolumns;
    r.text = calloc(r.nsensors ? r.nsensors : 1, sizeof *r.text);
    r.values = calloc(ncols ? ncols : 1, sizeof *r.values);
    headers = calloc(ncols ? ncols : 1, sizeof *headers);
    if (!r.text || !r.values || !headers || !(path = output_path(&s))) {
        fputs("tb-record: out of memory\n", stderr);
        goto out;
    }
    for (size_t i = 0; i < r.nsensors; i++)
        headers[i] = r.sensors[i].header;
    for (size_t k = 0; k < s.ncolumns; k++)
        headers[r.nsensors + k] = s.columns[k];
    if (csvw_open(&r.out, path, err, sizeof err) < 0) {
        fprintf(stderr, "tb-record: %s\n", err);
        goto out;
    }
    r.echo = r.out.is_stdout ? stderr : stdout;
    if (csvw_preamble(&r.out, argc, argv, s.period_ms, headers, ncols) < 0) {
        fprintf(stderr, "tb-record: %s: write error: %s\n", path, strerror(errno));
        csvw_close(&r.out);
        goto out;
    }
    if (s.bench_argv) {
        if (benchmark_start(&r.bench, s.bench_argv, err, sizeof err) < 0) {
            fprintf(stderr, "tb-record: %s\n", err);
            status = errno == ENOENT ? RECORD_EXIT_NOT_FOUND : RECORD_EXIT_CANNOT_EXEC;
            csvw_close(&r.out);
            goto out;
        }
        r.have_bench = 1;
    }
    r.t0_ns = now_ns();
    record(&r, &unblocked);

    status = RECORD_EXIT_OK;
    if (r.have_bench) {
        int ended_by_itself = r.bench.pid == 0;
        benchmark_stop(&r.bench, 2000);
        if (ended_by_itself)
            status = benchmark_exit_status(&r.bench, s.bench_argv[0]);
    }
    if (csvw_close(&r.out) < 0 && !r.write_failed) {
        fprintf(stderr, "tb-record: %s: write error: %s\n", path, strerror(errno));
        r.write_failed = 1;
    }
    if (r.write_failed)
        status = RECORD_EXIT_FAILURE;
    else if (stop_signal)
        status = 128 + stop_signal;
out:
    sensors_close(r.sensors, r.nsensors);
    free(r.text);
    free(r.values);
    free(headers);
    free(path);
    record_settings_free(&s);
    return status;
}
