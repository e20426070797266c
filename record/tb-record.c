/*
 * tb-record -- run a benchmark and sample sensors on a fixed period into a
 * CSV file in the thermobench format.  Runs on the board: libc only.
 *
 * Sampling deadlines are absolute (start + k·period on CLOCK_MONOTONIC),
 * so the period never drifts; a deadline that has already passed when the
 * recorder wakes is sampled late, at its true time, and counted.  Between
 * deadlines one ppoll() waits on the benchmark's and the helpers' output,
 * on a timerfd armed at the next deadline, and on the signals, which are
 * blocked everywhere else so that none is lost between a check and the
 * wait.  A timerfd, not ppoll()'s own timeout: the kernel lets a poll
 * timeout slip by 0.1 % of its length (1 ms on a 1 s period), a timer not
 * at all.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_load.h"
#include "board_info.h"
#include "csv_writer.h"
#include "options.h"
#include "freezer.h"
#include "process.h"
#include "sensor.h"

#define VALUE_MAX 64

static volatile sig_atomic_t stop_signal, stop_count;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
    stop_count++;
}
/* A child changed state: only then is the benchmark reaped (a wait4() a
 * sample was most of an idle loop's system calls).  Set at the start, so
 * that the first pass looks. */
static volatile sig_atomic_t child_event = 1;
static void on_child(int sig)
{
    (void)sig;
    child_event = 1;
}

/* A helper run with --exec, and where its lines go. */
struct helper {
    const struct exec_spec *spec;
    struct process proc;
    size_t first_col;       /* its columns are first_col .. + spec->ncols */
    int running;
};

/* A value kept for a later row, in a buffer that is kept too: in steady
 * state no value costs an allocation. */
struct held {
    char *text;
    size_t cap;
    int set;
};

/* Keep VALUE in H; 0, or -1 when there is no memory for it. */
static int held_put(struct held *h, const char *value)
{
    size_t n = strlen(value) + 1;
    if (n > h->cap) {
        size_t cap = n < 64 ? 64 : n;
        char *t = realloc(h->text, cap);
        if (!t)
            return -1;
        h->text = t;
        h->cap = cap;
    }
    memcpy(h->text, value, n);
    h->set = 1;
    return 0;
}

/* The temperatures the progress line and the summary show. */
#define SUMMARY_SENSORS 3

struct recorder {
    const struct record_settings *s;
    struct sensor *sensors;
    size_t nsensors;
    struct cpu_load cpu;
    int have_cpu;
    struct helper *helpers;
    size_t nhelpers;
    struct pollfd *pfd;         /* the timer, the benchmark, each helper */
    void **pfd_owner;

    const char **headers;   /* every column after time */
    size_t *order;          /* --compat: the file's order of the columns */
    char **owned_headers;   /* the ones built here */
    size_t ncols;
    size_t col_cpu, col_bench, col_stdout, col_exec, col_running, col_window;

    char (*text)[VALUE_MAX];    /* a value buffer per column */
    const char **cells;         /* the row being written */
    struct held *pending;       /* @COL values waiting for a sample row */
    struct held *event;         /* values read together, for one row */
    int64_t event_t;            /* when the first of them came */
    int have_event;

    struct csv_writer out;
    struct process bench;
    int have_bench;
    int cooling;            /* --cooldown: the benchmark has ended */
    int bench_ended;        /* it ended by itself (before the cool-down) */
    int timer_fd;
    int64_t armed;              /* when timer_fd fires next */
    int64_t t0_ns;
    int write_failed;
    int reader_gone;            /* -O -'s reader closed it: nothing more to write */
    FILE *echo;                 /* where other benchmark lines go */
    uint64_t rng;
    long long samples, missed, rows;
    int progress;
    int progress_shown;         /* a progress line is on the terminal, unended */
    int echo_is_terminal;       /* benchmark lines go to the progress line's terminal */
    double first_celsius[SUMMARY_SENSORS];   /* the first sample's, for the summary */
    int64_t sensors_checked;    /* when the sensors' paths were last checked */
    int64_t win_next;           /* --window: the next edge; 0: no window */
    struct freezer freezer;     /* --window: how the benchmark is stopped */
    int win_open;
    long long win_edges, win_missed;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double celsius_of(const struct sensor *sn, const char *text);

static void write_cells(struct recorder *r, int64_t t)
{
    if (r->write_failed)
        return;
    if (csvw_row(&r->out, t, t - r->t0_ns, r->cells) < 0) {
        r->reader_gone = errno == EPIPE && r->out.is_stdout;   /* (its answer is known) */
        if (!r->reader_gone)
            fprintf(stderr, "tb-record: %s: write error: %s\n", r->out.path, strerror(errno));
        r->write_failed = 1;
    }
    r->rows++;
}

/* A row at time T with only column COL filled. */
static void write_event_at(struct recorder *r, size_t col, const char *value, int64_t t)
{
    memset(r->cells, 0, r->ncols * sizeof *r->cells);
    r->cells[col] = value;
    write_cells(r, t);
}

/* A row with only column COL filled: a value the benchmark or a helper
 * printed. */
static void write_event(struct recorder *r, size_t col, const char *value)
{
    write_event_at(r, col, value, now_ns());
}

static void report_sensor(struct sensor *sn, int rc)
{
    if (rc < 0 && !sn->failing && sn->read_errno)
        fprintf(stderr, "tb-record: sensor %s: cannot read: %s (recording nan)\n", sn->path,
                strerror(sn->read_errno));
    else if (rc < 0 && !sn->failing && sn->too_long)
        fprintf(stderr, "tb-record: sensor %s: a value of %d bytes or more, not a sensor's "
                "(recording nan)\n", sn->path, VALUE_MAX - 1);
    else if (rc < 0 && !sn->failing)
        fprintf(stderr, "tb-record: sensor %s: cannot read a number (recording nan)\n", sn->path);
    else if (rc == 0 && sn->failing)
        fprintf(stderr, "tb-record: sensor %s: readable again\n", sn->path);
    sn->failing = rc < 0;
}

/* Once a second: every sensor's path still leads to the file read, so
 * that a file deleted or replaced is never sampled stale. */
static void check_sensors(struct recorder *r, int64_t t)
{
    if (t - r->sensors_checked < 1000000000)
        return;
    r->sensors_checked = t;
    for (size_t i = 0; i < r->nsensors; i++) {
        struct sensor *sn = &r->sensors[i];
        switch (sensor_check(sn)) {
        case SENSOR_GONE:
            fprintf(stderr, "tb-record: sensor %s: removed (recording nan until it is back)\n", sn->path);
            sn->failing = 1;   /* said here, not again by the read */
            break;
        case SENSOR_REPLACED:
            fprintf(stderr, "tb-record: sensor %s: replaced by another file: reading that\n", sn->path);
            break;
        case SENSOR_BACK:   /* said by the read: "readable again" */
            break;
        }
    }
}

static void sample(struct recorder *r)
{
    int64_t t = now_ns();
    check_sensors(r, t);
    memset(r->cells, 0, r->ncols * sizeof *r->cells);
    for (size_t i = 0; i < r->nsensors; i++) {
        report_sensor(&r->sensors[i], sensor_read(&r->sensors[i], t, r->text[i], VALUE_MAX));
        r->cells[i] = r->text[i];
    }
    if (r->have_cpu) {
        cpu_load_sample(&r->cpu);
        for (size_t i = 0; i < r->cpu.ncpu; i++)
            r->cells[r->col_cpu + i] = r->cpu.text[i];
    }
    int any = r->col_bench > 0;   /* sampled columns, or values riding along */
    for (size_t c = r->col_exec; c < r->ncols; c++) {
        if (r->pending[c].set) {
            r->cells[c] = r->pending[c].text;   /* whole, however long */
            any = 1;
        }
    }
    if (any)
        write_cells(r, t);
    for (size_t c = r->col_exec; c < r->ncols; c++)
        r->pending[c].set = 0;
    if (r->samples++ == 0)
        for (size_t i = 0; i < r->nsensors && i < SUMMARY_SENSORS; i++)
            r->first_celsius[i] = celsius_of(&r->sensors[i], r->text[i]);
}

/* @COL values no sample row took: each gets a row, nothing is dropped. */
static void write_pending(struct recorder *r)
{
    for (size_t c = r->col_exec; c < r->ncols; c++) {
        if (r->pending[c].set) {
            write_event(r, c, r->pending[c].text);
            r->pending[c].set = 0;
        }
    }
}

/* The row of values that came in one read (see event_put()), written. */
static void event_flush(struct recorder *r)
{
    if (!r->have_event)
        return;
    for (size_t c = 0; c < r->ncols; c++)
        r->cells[c] = r->event[c].set ? r->event[c].text : NULL;
    write_cells(r, r->event_t);
    for (size_t c = 0; c < r->ncols; c++)
        r->event[c].set = 0;
    r->have_event = 0;
}

/* VALUE for column COL, from the benchmark or a helper: values that come
 * in one read share a row until a column repeats, as thermobench writes
 * them (printf 'a=1\nb=2\n' is one row). */
static void event_put(struct recorder *r, size_t col, const char *value)
{
    if (r->event[col].set)
        event_flush(r);
    if (!r->have_event)
        r->event_t = now_ns();
    if (held_put(&r->event[col], value) < 0) {   /* no memory to hold it: a row of its own */
        event_flush(r);
        write_event(r, col, value);
        return;
    }
    r->have_event = 1;
}

/* A line of the benchmark's output: KEY=VALUE of a --column, or passed on
 * (to the stdout column with -l). */
static void on_benchmark_line(void *ctx, char *line)
{
    struct recorder *r = ctx;
    char *eq = strchr(line, '=');

    if (eq) {
        for (size_t k = 0; k < r->s->ncolumns; k++) {
            const char *key = r->s->columns[k];
            if (strlen(key) == (size_t)(eq - line) && strncmp(line, key, (size_t)(eq - line)) == 0) {
                event_put(r, r->col_bench + k, eq + 1);
                return;
            }
        }
    }
    if (r->s->stdout_column) {
        event_put(r, r->col_stdout, line);
    } else if (!r->s->compat) {   /* thermobench drops them */
        /* the benchmark's line in place of the progress line, which the
         * next second draws again under it, not mixed into it */
        if (r->progress_shown && r->echo_is_terminal) {
            fputs("\r\033[K", stderr);
            r->progress_shown = 0;
        }
        fprintf(r->echo, "%s\n", line);
        if (r->echo_is_terminal)
            fflush(r->echo);
    }
}

struct helper_ctx {
    struct recorder *r;
    struct helper *h;
};

static void put_helper_value(struct recorder *r, size_t col, int keep_last, const char *value)
{
    if (!keep_last) {
        event_put(r, col, value);
        return;
    }
    if (held_put(&r->pending[col], value) < 0) {   /* no memory to hold it: a row of its own */
        r->pending[col].set = 0;
        write_event(r, col, value);
    }
}

static void on_helper_line(void *ctx, char *line)
{
    struct helper_ctx *x = ctx;
    const struct exec_spec *spec = x->h->spec;
    char *eq = strchr(line, '=');

    for (size_t k = 0; eq && k < spec->ncols; k++) {
        const struct exec_column *c = &spec->cols[k];
        if (c->is_key && strlen(c->name) == (size_t)(eq - line) &&
            strncmp(line, c->name, (size_t)(eq - line)) == 0) {
            put_helper_value(x->r, x->h->first_col + k, c->keep_last, eq + 1);
            return;
        }
    }
    for (size_t k = 0; k < spec->ncols; k++) {
        if (!spec->cols[k].is_key) {
            put_helper_value(x->r, x->h->first_col + k, spec->cols[k].keep_last, line);
            return;
        }
    }
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
    sa.sa_flags = SA_NOCLDSTOP;   /* a benchmark stopped outside its window is no news */
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);   /* a closed output becomes a write error */
    signal(SIGXFSZ, SIG_IGN);   /* so does a file size limit (EFBIG) */

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

/* xorshift64*: a random offset per period for --randomize. */
static double uniform(struct recorder *r)
{
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return (double)((r->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int64_t deadline(struct recorder *r, int64_t k, int64_t period)
{
    int64_t d = r->t0_ns + k * period;
    return r->s->randomize ? d + (int64_t)(uniform(r) * (double)period) : d;
}

/* Temperature of the first sensor in °C, for --wait and the progress. */
/* A temperature sensor's TEXT in °C (the kernel's are in m°C). */
static double celsius_of(const struct sensor *sn, const char *text)
{
    if (!text[0])
        return NAN;
    double v = strtod(text, NULL);
    const char *slash = strchr(sn->header, '/');
    return slash && strcmp(slash + 1, "°C") == 0 ? v : v / 1000;
}

static double sensor_celsius(struct sensor *sn, int64_t t)
{
    char buf[VALUE_MAX];
    if (sensor_read(sn, t, buf, sizeof buf) < 0)
        return NAN;
    return celsius_of(sn, buf);
}

static void show_progress(struct recorder *r, int64_t t, int final)
{
    if (!r->progress)
        return;
    double elapsed = (double)(t - r->t0_ns) / 1e9;
    fprintf(stderr, "\rtb-record: %.1f", elapsed);
    if (r->s->time_limit_s > 0)
        fprintf(stderr, "/%g", r->s->time_limit_s);
    fprintf(stderr, " s, %lld rows", r->rows);
    for (size_t i = 0; i < r->nsensors && i < SUMMARY_SENSORS; i++)
        if (r->sensors[i].kind == SENSOR_FILE && strstr(r->sensors[i].header, "°C"))
            fprintf(stderr, ", %.*s %.1f °C", (int)strcspn(r->sensors[i].header, "/"),
                    r->sensors[i].header, celsius_of(&r->sensors[i], r->text[i]));
    fputs(final ? "\r\033[K" : "\033[K", stderr);   /* the summary takes its place at the end */
    r->progress_shown = !final;
}

/* The run in one line at its end, on a terminal or not (a log of
 * tb-series, CI): the file, its length and rows, the first temperatures
 * from where to where, and how the benchmark ended. */
static void run_summary(const struct recorder *r, double seconds, const char *benchmark)
{
    fprintf(stderr, "tb-record: %s: %.1f s, %lld row%s", r->out.is_stdout ? "standard output" : r->out.path,
            seconds, r->rows, r->rows == 1 ? "" : "s");
    for (size_t i = 0; r->samples > 0 && i < r->nsensors && i < SUMMARY_SENSORS; i++)
        if (r->sensors[i].kind == SENSOR_FILE && strstr(r->sensors[i].header, "°C"))
            fprintf(stderr, "; %.*s %.1f to %.1f °C", (int)strcspn(r->sensors[i].header, "/"),
                    r->sensors[i].header, r->first_celsius[i], celsius_of(&r->sensors[i], r->text[i]));
    if (benchmark)
        fprintf(stderr, "; %s", benchmark);
    fputc('\n', stderr);
}

/* Poll the benchmark's and the helpers' output until WAKE (or a signal). */
static void wait_for_output(struct recorder *r, int64_t wake, const sigset_t *unblocked)
{
    struct pollfd *pfd = r->pfd;
    void **owner = r->pfd_owner;
    nfds_t n = 0;

    if (wake != r->armed) {
        struct itimerspec at = {.it_value = {wake / 1000000000, wake % 1000000000}};
        if (wake <= 0)
            at.it_value = (struct timespec){0, 1};   /* 0 would disarm it */
        timerfd_settime(r->timer_fd, TFD_TIMER_ABSTIME, &at, NULL);
        r->armed = wake;
    }
    pfd[n] = (struct pollfd){.fd = r->timer_fd, .events = POLLIN};
    owner[n++] = r;

    if (r->have_bench && r->bench.out_fd >= 0) {
        pfd[n] = (struct pollfd){.fd = r->bench.out_fd, .events = POLLIN};
        owner[n++] = NULL;
    }
    for (size_t h = 0; h < r->nhelpers; h++) {
        if (r->helpers[h].proc.out_fd >= 0) {
            pfd[n] = (struct pollfd){.fd = r->helpers[h].proc.out_fd, .events = POLLIN};
            owner[n++] = &r->helpers[h];
        }
    }
    if (ppoll(pfd, n, NULL, unblocked) <= 0)
        return;
    for (nfds_t i = 1; i < n; i++) {
        if (!pfd[i].revents)
            continue;
        if (!owner[i]) {
            process_read(&r->bench, on_benchmark_line, r);
        } else {
            struct helper_ctx x = {r, owner[i]};
            process_read(&x.h->proc, on_helper_line, &x);
        }
        event_flush(r);   /* what one read brought is one row */
    }
}

/* Edges of --window up to time T since the first frame's start: the
 * opening of frames 1..k and the closing of frames 0..k (when past). */
static int64_t window_edges_upto(const struct recorder *r, int64_t t)
{
    int64_t frame = (int64_t)(r->s->window_frame_ms * 1e6), on = (int64_t)(r->s->window_on_ms * 1e6);
    int64_t k = t / frame;
    return 2 * k + (t - k * frame >= on);
}

/* --window: at NOW (an edge is due), open or close the window as the
 * frame's phase says: the benchmark's group continued or stopped, and a
 * row with the window column at the time it was.  Edges a busy machine
 * let pass unseen are counted as missed, and the state caught up. */
static void window_edge(struct recorder *r, int64_t now)
{
    int64_t frame = (int64_t)(r->s->window_frame_ms * 1e6), on = (int64_t)(r->s->window_on_ms * 1e6);
    int64_t t = now - r->t0_ns, k = t / frame;
    int open = t - k * frame < on;
    long long due = window_edges_upto(r, t) - window_edges_upto(r, r->win_next - r->t0_ns - 1);
    if (r->bench.pid <= 0) {   /* it ended: nothing to stop or continue */
        r->win_next = 0;
        return;
    }
    if (open != r->win_open) {
        freezer_set(&r->freezer, r->bench.pgid, !open);
        r->win_open = open;
        r->win_edges++;
        write_event_at(r, r->col_window, open ? "1" : "0", now);   /* when it was decided */
        due--;
    }
    r->win_missed += due > 0 ? due : 0;
    r->win_next = r->t0_ns + (open ? k * frame + on : (k + 1) * frame);
}

/* --cooldown: the benchmark ends here (stopped if it still runs), and the
 * row that says so is written at the moment it did; that moment, which
 * the cool-down counts from (a benchmark may take up to 2 s to stop). */
static int64_t start_cooldown(struct recorder *r)
{
    r->cooling = 1;
    r->bench_ended = r->bench.pid == 0;
    process_drain(&r->bench, on_benchmark_line, r);
    event_flush(r);
    freezer_set(&r->freezer, r->bench.pgid, 0);   /* a frozen group takes no TERM */
    process_stop(&r->bench, 2000);
    int64_t end = now_ns();
    write_event_at(r, r->col_running, "0", end);
    return end;
}

/* Sample until the time limit, the benchmark's end or a signal (and with
 * --cooldown, the cool-down's end after it). */
static void record(struct recorder *r, const sigset_t *unblocked)
{
    const struct record_settings *s = r->s;
    int64_t period = (int64_t)(s->period_ms * 1e6);
    int64_t limit = s->time_limit_s > 0 ? r->t0_ns + (int64_t)(s->time_limit_s * 1e9)
                                        : INT64_MAX;
    int64_t k = 0, next = deadline(r, 0, period), last_progress = 0;

    if (period < 1)
        period = 1;
    /* the last deadline within --time: those past it are none, not missed */
    int64_t last_due = limit == INT64_MAX ? INT64_MAX : (limit - r->t0_ns) / period;
    if (s->randomize)
        next = r->t0_ns;   /* the first sample at the start, as without */
    while (!r->write_failed && !stop_signal) {
        int64_t now = now_ns();
        if (r->win_next && !r->cooling && now >= r->win_next && now < limit) {
            window_edge(r, now);
            continue;
        }
        if (now >= next && next <= limit) {
            sample(r);
            int64_t due = (now - r->t0_ns) / period;
            if (due > last_due)
                due = last_due;
            r->missed += due - k;
            k = due + 1;
            next = deadline(r, k, period);
            if (now - last_progress >= 1000000000) {
                show_progress(r, now, 0);
                last_progress = now;
            }
            continue;
        }
        int reaped = 0;
        if (child_event && !r->cooling && r->have_bench) {
            child_event = 0;   /* before the reap: a later one is not missed */
            reaped = process_reap(&r->bench);
        }
        if (reaped) {   /* what it wrote before it ended; a child of it may
                           hold the pipe open, so no waiting for its end */
            process_drain(&r->bench, on_benchmark_line, r);
            event_flush(r);
        }
        if ((now >= limit || reaped) && s->cooldown_s > 0 && !r->cooling) {
            limit = start_cooldown(r) + (int64_t)(s->cooldown_s * 1e9);
            last_due = (limit - r->t0_ns) / period;
            continue;
        }
        if (now >= limit || reaped)
            break;
        int64_t wake = next < limit ? next : limit;
        if (r->win_next && !r->cooling && r->win_next < wake)
            wake = r->win_next;
        wait_for_output(r, wake, unblocked);
    }
    show_progress(r, now_ns(), 1);
}

/* --exec helpers: stopped, or with -E waited for while their output is
 * still recorded. */
static void stop_helpers(struct recorder *r, const sigset_t *unblocked)
{
    if (r->s->exec_wait) {
        for (;;) {
            int running = 0;
            for (size_t h = 0; h < r->nhelpers; h++)
                running |= !process_reap(&r->helpers[h].proc) || r->helpers[h].proc.out_fd >= 0;
            if (!running || stop_signal || r->write_failed)
                break;
            wait_for_output(r, now_ns() + 100000000, unblocked);
        }
    }
    for (size_t h = 0; h < r->nhelpers; h++) {
        struct helper_ctx x = {r, &r->helpers[h]};
        process_drain(&r->helpers[h].proc, on_helper_line, &x);   /* what is there */
        event_flush(r);
        process_stop(&r->helpers[h].proc, 1000);
    }
}

static int benchmark_exit_status(const struct process *b, const char *name)
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

#define FAN_TIMEOUT_NS 10000000000LL

/* Run "FAN_CMD SPEED" to its end, at most 10 s: a fan command that hangs
 * is stopped, and the signals that stop tb-record are heard meanwhile. */
static void fan_set(const struct record_settings *s, double speed, const sigset_t *unblocked)
{
    char *cmd = NULL, err[256];
    struct process p;
    if (!s->fan_cmd || asprintf(&cmd, "%s %g", s->fan_cmd, speed) < 0)
        return;
    if (process_start_shell(&p, cmd, err, sizeof err) < 0) {
        fprintf(stderr, "tb-record: warning: fan command '%s': %s\n", cmd, err);
        free(cmd);
        return;
    }
    /* a signal that came before (the fan is set off as tb-record stops) does
     * not cut it short; one that comes while it runs does */
    int64_t give_up = now_ns() + FAN_TIMEOUT_NS;
    sig_atomic_t signals_before = stop_count;
    int ended = 0;
    while (!(ended = process_reap(&p)) && stop_count == signals_before && now_ns() < give_up) {
        struct pollfd pfd = {.fd = p.out_fd, .events = POLLIN};
        struct timespec t = {0, 20000000};
        ppoll(&pfd, p.out_fd >= 0, &t, unblocked);
        process_read(&p, NULL, NULL);   /* its output is not ours to keep */
    }
    if (!ended)
        fprintf(stderr, "tb-record: warning: fan command '%s' %s: stopped\n", cmd,
                stop_count != signals_before ? "still ran at the signal" : "did not end in 10 s");
    process_stop(&p, 500);
    if (ended && p.status != 0)
        fprintf(stderr, "tb-record: warning: fan command '%s' failed\n", cmd);
    free(cmd);
}

/* --wait: 0 once the first sensor is cool enough, -1 on timeout or signal. */
static int wait_until_cool(struct recorder *r, const sigset_t *unblocked)
{
    const struct record_settings *s = r->s;
    int64_t start = now_ns(), timeout = (int64_t)(s->wait_timeout_s * 1e9);
    double temp = NAN;

    fan_set(s, 1, unblocked);
    while (!stop_signal) {
        temp = sensor_celsius(&r->sensors[0], now_ns());
        if (r->progress || s->verbose)
            fprintf(stderr, "\rtb-record: waiting for %s to cool to %g °C: %.1f °C   ",
                    r->sensors[0].header, s->wait_temp, temp);
        if (temp <= s->wait_temp) {
            if (r->progress || s->verbose)
                fputc('\n', stderr);
            return 0;
        }
        if (now_ns() - start >= timeout)
            break;
        struct timespec t = {1, 0};
        if (s->period_ms < 1000)
            t = (struct timespec){0, (long)(s->period_ms * 1e6)};
        ppoll(NULL, 0, &t, unblocked);
    }
    if (!stop_signal)
        fprintf(stderr, "\ntb-record: %s is still %.1f °C after %g s of waiting for %g °C\n",
                r->sensors[0].header, temp, s->wait_timeout_s, s->wait_temp);
    return -1;
}

/* SCHED_DEADLINE has no glibc wrapper. */
struct sched_attr_v0 {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

static void use_sched_deadline(const struct record_settings *s)
{
#ifdef SYS_sched_setattr
    uint64_t period = (uint64_t)(s->period_ms * 1e6);
    uint64_t runtime = (uint64_t)((double)period * s->sched_deadline / 100);
    struct sched_attr_v0 attr = {
        .size = sizeof attr, .sched_policy = 6 /* SCHED_DEADLINE */,
        .sched_flags = 1 /* SCHED_FLAG_RESET_ON_FORK */,
        .sched_runtime = runtime < 1024 ? 1024 : runtime,
        .sched_deadline = period, .sched_period = period,
    };
    if (syscall(SYS_sched_setattr, 0, &attr, 0) == 0) {
        if (s->verbose)
            fprintf(stderr, "tb-record: sampling under SCHED_DEADLINE, %g %% of the period\n",
                    s->sched_deadline);
        return;
    }
    fprintf(stderr, "tb-record: warning: SCHED_DEADLINE: %s; sampling at normal priority\n",
            strerror(errno));
#else
    (void)s;
    fprintf(stderr, "tb-record: warning: SCHED_DEADLINE is not known here\n");
#endif
}

/* --- set-up ---------------------------------------------------------------- */

/* Whether NAME can be run, as execvp() looks for it: 0, or ENOENT or
 * EACCES.  Checked before the fan is switched or the file made, so that
 * a typo costs nothing. */
static int command_missing(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? 0 : errno == ENOENT ? ENOENT : EACCES;
    const char *path = getenv("PATH");
    int found_denied = 0;
    if (!path || !*path)
        path = "/usr/local/bin:/bin:/usr/bin";
    for (const char *p = path; ; p += strcspn(p, ":") + 1) {
        size_t len = strcspn(p, ":");
        char full[4096];
        if (snprintf(full, sizeof full, "%.*s%s%s", (int)len, len ? p : ".", "/", name) < (int)sizeof full) {
            struct stat st;
            if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
                if (access(full, X_OK) == 0)
                    return 0;
                found_denied = 1;
            }
        }
        if (!p[len])
            break;
    }
    return found_denied ? EACCES : ENOENT;
}

/* Why the word taken for the benchmark may not be one: the argument of an
 * option written apart (-F 0.5) or a sensor's NAME left unquoted. */
static const char *benchmark_hint(char **argv, char **bench)
{
    ptrdiff_t i = bench - argv;
    const char *prev = i >= 1 ? argv[i - 1] : "", *prev2 = i >= 2 ? argv[i - 2] : "";
    if (strcmp(prev, "-F") == 0 || strcmp(prev, "--fan-on") == 0)
        return " (-F takes its speed attached: -F0.5 or --fan-on=0.5)";
    if (strcmp(prev2, "-S") == 0 || strcmp(prev2, "--sensor") == 0 ||
        (strncmp(prev, "-S", 2) == 0 && prev[2]) || strncmp(prev, "--sensor=", 9) == 0)
        return " (a sensor's NAME? quote its spec: -S \"FILE NAME UNIT\")";
    return "";
}

static int add_header(struct recorder *r, char *owned, const char *name)
{
    const char **nh = realloc(r->headers, (r->ncols + 1) * sizeof *nh);
    if (nh)
        r->headers = nh;
    char **no = nh ? realloc(r->owned_headers, (r->ncols + 1) * sizeof *no) : NULL;
    if (!no) {
        free(owned);
        return -1;
    }
    r->owned_headers = no;
    no[r->ncols] = owned;   /* NULL when the name belongs to someone else */
    nh[r->ncols++] = owned ? owned : name;
    return 0;
}

/* --compat: the file's columns in the order the command line gave them,
 * as thermobench adds them; the sensors found without being named, the
 * cool-down and window columns after those. */
static int order_as_given(struct recorder *r)
{
    const struct record_settings *s = r->s;
    size_t n = 0, *order = malloc((r->ncols ? r->ncols : 1) * sizeof *order);
    char *placed = calloc(r->ncols ? r->ncols : 1, 1);

    if (!order || !placed) {
        free(order);
        free(placed);
        return -1;
    }
    for (size_t g = 0; g < s->ngiven; g++) {
        size_t first = 0, count = 1;
        const struct given_column *gc = &s->given[g];
        switch (gc->kind) {
        case GIVEN_SENSOR: first = gc->index; break;
        case GIVEN_CPU_LOADS: first = r->col_cpu; count = r->have_cpu ? r->cpu.ncpu : 0; break;
        case GIVEN_KEY: first = r->col_bench + gc->index; break;
        case GIVEN_STDOUT: first = r->col_stdout; break;
        case GIVEN_EXEC: first = r->helpers[gc->index].first_col; count = s->execs[gc->index].ncols; break;
        }
        for (size_t c = first; c < first + count && c < r->ncols; c++)
            if (!placed[c]++)
                order[n++] = c;
    }
    for (size_t c = 0; c < r->ncols; c++)
        if (!placed[c])
            order[n++] = c;
    free(placed);
    r->order = order;
    return 0;
}

/* Every column, in the cells' order: sensors, CPU loads, benchmark keys,
 * stdout, helpers (the file's order too, unless --compat). */
static int build_columns(struct recorder *r, char *err, size_t errlen)
{
    const struct record_settings *s = r->s;

    for (size_t i = 0; i < r->nsensors; i++)
        if (add_header(r, NULL, r->sensors[i].header) < 0)
            goto oom;
    r->col_cpu = r->ncols;
    for (size_t i = 0; r->have_cpu && i < r->cpu.ncpu; i++) {
        char *h = NULL;
        if (asprintf(&h, "CPU%zu_load/%%", i) < 0 || add_header(r, h, NULL) < 0)
            goto oom;
    }
    r->col_bench = r->ncols;
    for (size_t k = 0; k < s->ncolumns; k++)
        if (add_header(r, NULL, s->columns[k]) < 0)
            goto oom;
    r->col_stdout = r->ncols;
    if (s->stdout_column && add_header(r, NULL, "stdout") < 0)
        goto oom;
    r->col_exec = r->ncols;
    if (s->nexecs && !(r->helpers = calloc(s->nexecs, sizeof *r->helpers)))
        goto oom;
    for (size_t h = 0; h < s->nexecs; h++) {
        r->helpers[h].spec = &s->execs[h];
        r->helpers[h].first_col = r->ncols;
        r->helpers[h].proc.out_fd = -1;
        r->helpers[h].proc.guard = (struct guardian){0, -1};
        r->nhelpers++;
        for (size_t k = 0; k < s->execs[h].ncols; k++)
            if (add_header(r, NULL, s->execs[h].cols[k].name) < 0)
                goto oom;
    }
    /* the end of the load, for the cooling curve after it */
    r->col_running = r->ncols;
    if (s->cooldown_s > 0 && add_header(r, NULL, "benchmark_running") < 0)
        goto oom;
    /* the edges of the benchmark's window */
    r->col_window = r->ncols;
    if (s->window_frame_ms > 0 && add_header(r, NULL, "window") < 0)
        goto oom;
    /* every helper polled, however many a sensors file starts */
    r->pfd = calloc(2 + r->nhelpers, sizeof *r->pfd);
    r->pfd_owner = calloc(2 + r->nhelpers, sizeof *r->pfd_owner);
    if (!r->pfd || !r->pfd_owner)
        goto oom;
    r->text = calloc(r->ncols ? r->ncols : 1, sizeof *r->text);
    r->cells = calloc(r->ncols ? r->ncols : 1, sizeof *r->cells);
    r->pending = calloc(r->ncols ? r->ncols : 1, sizeof *r->pending);
    r->event = calloc(r->ncols ? r->ncols : 1, sizeof *r->event);
    if (!r->text || !r->cells || !r->pending || !r->event)
        goto oom;
    if (s->compat && order_as_given(r) < 0)
        goto oom;
    /* Two columns of one name would make the run unreadable. */
    for (size_t i = 0; i < r->ncols; i++) {
        size_t ni = strcspn(r->headers[i], "/");
        for (size_t j = 0; j < i; j++) {
            if (strcspn(r->headers[j], "/") == ni && strncmp(r->headers[i], r->headers[j], ni) == 0) {
                snprintf(err, errlen, "two columns would be named %.*s", (int)ni, r->headers[i]);
                return -1;
            }
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static void recorder_free(struct recorder *r)
{
    freezer_close(&r->freezer);   /* what left the benchmark's group is stopped too */
    sensors_close(r->sensors, r->nsensors);
    if (r->have_cpu)
        cpu_load_close(&r->cpu);
    free(r->helpers);
    free(r->order);
    free(r->pfd);
    free(r->pfd_owner);
    for (size_t i = 0; r->owned_headers && i < r->ncols; i++)
        free(r->owned_headers[i]);
    free(r->owned_headers);
    free(r->headers);
    for (size_t i = 0; r->pending && i < r->ncols; i++)
        free(r->pending[i].text);
    free(r->pending);
    for (size_t i = 0; r->event && i < r->ncols; i++)
        free(r->event[i].text);
    free(r->event);
    free(r->text);
    free(r->cells);
}

/* Peak resident memory in KiB: VmHWM, since getrusage()'s ru_maxrss
 * carries the peak of the process that exec'ed us (a shell's 2 MiB). */
static long peak_rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* The board's identity (board_info.c) before the metadata given, so that
 * --meta board=... given by hand replaces what the board says. */
static int add_board_meta(struct record_settings *s)
{
    struct board_info b;
    if (board_info_read(&b, s->sysfs_root) < 0)
        return -1;
    char **all = malloc((b.n + s->nmetas + 1) * sizeof *all);
    if (!all) {
        board_info_free(&b);
        return -1;
    }
    memcpy(all, b.kv, b.n * sizeof *all);
    if (s->nmetas)
        memcpy(all + b.n, s->metas, s->nmetas * sizeof *all);
    free(s->metas);
    s->metas = all;
    s->nmetas += b.n;
    return 0;
}

/* "# window: 30ms/100ms", the schedule the window column's edges follow,
 * and "# window_freeze: cgroup2", how the benchmark was stopped outside. */
static int add_window_meta(struct record_settings *s, const struct freezer *f)
{
    char **more = realloc(s->metas, (s->nmetas + 2) * sizeof *more);
    if (!more)
        return -1;
    s->metas = more;
    if (asprintf(&more[s->nmetas], "window=%gms/%gms", s->window_on_ms, s->window_frame_ms) < 0)
        return -1;
    s->nmetas++;
    if (asprintf(&more[s->nmetas], "window_freeze=%s", freezer_way_name(f->way)) < 0)
        return -1;
    s->nmetas++;
    return 0;
}

/* --window's way of stopping the benchmark (--freeze): 0, or -1 with ERR
 * when the way asked for cannot be had.  Falling back to signals is said:
 * what leaves the benchmark's process group then runs on. */
static int open_freezer(struct recorder *r, const struct record_settings *s, char *err,
                        size_t errlen)
{
    char why[600];
    if (freezer_open(&r->freezer, (enum freezer_way)s->window_freeze, why, sizeof why) < 0) {
        snprintf(err, errlen, "--freeze %s: %s", freezer_way_name((enum freezer_way)s->window_freeze),
                 why);
        return -1;
    }
    if (r->freezer.why[0] && s->verbose)
        fprintf(stderr, "tb-record: --window stops the benchmark's process group by signals "
                "(%s)\n", r->freezer.why);
    return 0;
}

static void verbose_summary(const struct recorder *r, double seconds)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    fprintf(stderr, "tb-record: %lld samples and %lld rows in %.1f s; %lld deadlines missed; "
            "%.3f ms CPU in all, %.1f µs per sample; peak RSS %ld KiB\n", r->samples, r->rows,
            seconds, r->missed, cpu * 1e3, r->samples ? cpu / (double)r->samples * 1e6 : 0.0,
            peak_rss_kib());
    if (r->have_bench)
        fprintf(stderr, "tb-record: the benchmark used %.3f s of CPU time (%.1f %% of one CPU)\n",
                r->bench.cpu_s, seconds > 0 ? r->bench.cpu_s / seconds * 100 : 0.0);
    if (r->s->window_frame_ms > 0)
        fprintf(stderr, "tb-record: window %gms/%gms: %lld edges, %lld missed\n", r->s->window_on_ms,
                r->s->window_frame_ms, r->win_edges, r->win_missed);
}

/* The recorder's timer, sensors, CPU load and columns.  0, or -1 with
 * ERR. */
static int open_recorder(struct recorder *r, struct record_settings *s, char *err, size_t errlen)
{
    r->rng = (uint64_t)now_ns() | 1;
    prctl(PR_SET_TIMERSLACK, 1UL);   /* wake at the deadline, not up to 50 µs after */
    if ((r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0) {
        snprintf(err, errlen, "timerfd: %s", strerror(errno));
        return -1;
    }
    r->armed = -1;
    r->progress = isatty(STDERR_FILENO) && !s->verbose;
    if (sensors_open(s, &r->sensors, &r->nsensors, err, errlen) < 0)
        return -1;
    if (s->cpu_usage) {
        if (cpu_load_open(&r->cpu, s, err, errlen) < 0)
            return -1;
        r->have_cpu = 1;
    }
    if (build_columns(r, err, errlen) < 0)
        return -1;
    if (r->ncols == 0 && !s->bench_argv) {
        snprintf(err, errlen, "nothing to record: no sensor, column or benchmark");
        return -1;
    }
    if (s->verbose)
        for (size_t i = 0; i < r->ncols; i++)
            fprintf(stderr, "tb-record: column %zu: %s%s%s\n", i + 2, r->headers[i],
                    i < r->nsensors ? " from " : "", i < r->nsensors ? r->sensors[i].path : "");
    return 0;
}

/* A start that failed undone: the benchmark and the first HELPERS helpers
 * stopped, the file not put in place. */
static void start_undone(struct recorder *r, size_t helpers)
{
    if (r->have_bench)
        process_stop(&r->bench, 2000);
    for (size_t h = 0; h < helpers; h++)
        process_stop(&r->helpers[h].proc, 1000);
    csvw_discard(&r->out);
}

/* The run's file opened and its preamble written, the helpers, the fan
 * and the benchmark started, the file put in place (PATH).  0; -1 with
 * ERR to say; or the status to exit with, said already. */
static int start_run(struct recorder *r, struct record_settings *s, const char *path, int argc,
                     char **argv, sigset_t *unblocked, char *err, size_t errlen)
{
    struct stat before;
    int replacing = strcmp(path, "-") != 0 && stat(path, &before) == 0 && S_ISREG(before.st_mode);
    if (csvw_open(&r->out, path, s->unbuffered, s->fsync, err, errlen) < 0)
        return -1;
    r->echo = r->out.is_stdout ? stderr : stdout;
    r->echo_is_terminal = r->progress && isatty(fileno(r->echo));
    r->out.order = r->order;
    if (csvw_preamble(&r->out, argc, argv, s->no_meta, s->period_ms, s->metas, s->nmetas,
                      r->headers, r->ncols) < 0) {
        int gone = errno == EPIPE && r->out.is_stdout;
        snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
        csvw_discard(&r->out);
        if (!gone)
            return -1;
        fputs("tb-record: the reader of standard output closed it before the run began\n", stderr);
        return RECORD_EXIT_READER_GONE;
    }
    for (size_t h = 0; h < r->nhelpers; h++) {
        if (process_start_shell(&r->helpers[h].proc, r->helpers[h].spec->cmd, err, errlen) < 0) {
            start_undone(r, h);
            return -1;
        }
    }
    if (s->fan_cmd)
        fan_set(s, s->fan_on >= 0 ? s->fan_on : 0, unblocked);
    if (s->bench_argv && !stop_signal) {   /* no benchmark started after a signal */
        if (process_start_joined(&r->bench, s->bench_argv, freezer_join_fd(&r->freezer), err,
                                 errlen) < 0) {
            fprintf(stderr, "tb-record: %s\n", err);
            int status = errno == ENOENT ? RECORD_EXIT_NOT_FOUND : RECORD_EXIT_CANNOT_EXEC;
            start_undone(r, r->nhelpers);   /* the file there before is left as it was */
            return status;
        }
        r->have_bench = 1;
    }
    /* The run's file takes its place now that there is a run to record
     * (none when a signal came before the benchmark could start). */
    if ((s->bench_argv && !r->have_bench) || csvw_publish(&r->out, err, errlen) < 0) {
        start_undone(r, r->nhelpers);
        return stop_signal ? 128 + stop_signal : -1;
    }
    if (replacing)   /* an earlier run's file is gone now: said, not silent */
        fprintf(stderr, "tb-record: note: %s existed and is replaced by this run\n", path);
    return 0;
}

/* After the run: the benchmark stopped (or its status taken), the helpers
 * and the fan, the file closed and checked, the summary.  The status to
 * exit with; FAILURE for a failure of tb-record's own. */
static int finish_run(struct recorder *r, struct record_settings *s, const char *path,
                      sigset_t *unblocked, int failure)
{
    int status = RECORD_EXIT_OK;
    const char *benchmark = NULL;
    if (r->have_bench) {
        int ended_by_itself = r->cooling ? r->bench_ended : r->bench.pid == 0;
        process_drain(&r->bench, on_benchmark_line, r);   /* what is there */
        event_flush(r);
        if (r->win_next || r->freezer.frozen)
            freezer_set(&r->freezer, r->bench.pgid, 0);
        process_stop(&r->bench, 2000);
        if (ended_by_itself)
            status = benchmark_exit_status(&r->bench, s->bench_argv[0]);
        benchmark = !ended_by_itself ? "the benchmark stopped at the run's end"
                    : status == RECORD_EXIT_OK ? "the benchmark ended by itself"
                                               : "the benchmark failed (said above)";
    }
    stop_helpers(r, unblocked);
    write_pending(r);
    if (s->fan_cmd && s->fan_on > 0)
        fan_set(s, 0, unblocked);
    if (s->verbose)
        verbose_summary(r, (double)(now_ns() - r->t0_ns) / 1e9);
    else if (r->missed > 0)
        fprintf(stderr, "tb-record: %lld sampling deadline%s missed (sampled late, at their "
                "true time): the system was too busy\n", r->missed, r->missed == 1 ? "" : "s");
    if (csvw_close(&r->out) < 0 && !r->write_failed) {
        r->reader_gone = errno == EPIPE && r->out.is_stdout;
        if (!r->reader_gone)
            fprintf(stderr, "tb-record: %s: write error: %s\n", path, strerror(errno));
        r->write_failed = 1;
    }
    if (!r->write_failed && !csvw_still_there(&r->out)) {
        fprintf(stderr, "tb-record: %s: removed or replaced during the run (its directory "
                "too?): the rows recorded are lost\n", path);
        r->write_failed = 1;
    }
    if (r->reader_gone) {
        fprintf(stderr, "tb-record: the reader of standard output closed it: %s, nothing more "
                "written\n", r->have_bench ? "the benchmark stopped" : "the run ended");
        return RECORD_EXIT_READER_GONE;
    }
    if (r->write_failed)
        status = failure;
    else if (stop_signal)
        status = 128 + stop_signal;
    if (!r->write_failed && !s->verbose && !s->compat)
        run_summary(r, (double)(now_ns() - r->t0_ns) / 1e9,
                    stop_signal ? "stopped by a signal" : benchmark);
    return status;
}

int main(int argc, char **argv)
{
    struct record_settings s;
    struct recorder r = {.s = &s};
    char err[1024];
    char *path = NULL;
    sigset_t unblocked;
    int status = record_parse_arguments(argc, argv, &s);

    if (status >= 0) {
        record_settings_free(&s);
        return status;
    }
    if (s.bench_argv && !s.list_sensors) {
        int why = command_missing(s.bench_argv[0]);
        if (why) {
            fprintf(stderr, "tb-record: cannot run %s: %s%s\n", s.bench_argv[0], strerror(why),
                    benchmark_hint(argv, s.bench_argv));
            record_settings_free(&s);
            return why == ENOENT ? RECORD_EXIT_NOT_FOUND : RECORD_EXIT_CANNOT_EXEC;
        }
    }
    if (s.list_sensors) {
        size_t found = sensors_list(&s, stdout);
        if (!found)   /* a board without them, or the wrong --sysfs-root */
            fprintf(stderr, "tb-record: no sensor found under %s (thermal zones, hwmon, cpufreq, "
                    "RAPL)\n", s.sysfs_root ? s.sysfs_root : "/sys");
        record_settings_free(&s);
        return fflush(stdout) == 0 && found ? RECORD_EXIT_OK : RECORD_EXIT_FAILURE;
    }
    /* a failure of tb-record's own: thermobench's 1, or 125 (not a
     * status a benchmark is likely to give) */
    const int failure = s.compat ? RECORD_EXIT_TB_FAILURE : RECORD_EXIT_FAILURE;
    status = failure;
    install_signals(&unblocked);
    if (open_recorder(&r, &s, err, sizeof err) < 0)
        goto fail;
    if (!(path = output_path(&s))) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    if (!isnan(s.wait_temp)) {
        if (r.nsensors == 0) {
            snprintf(err, sizeof err, "--wait needs a sensor file to read");
            goto fail;
        }
        if (wait_until_cool(&r, &unblocked) < 0) {
            status = stop_signal ? 128 + stop_signal : failure;
            goto out;
        }
    }
    /* the trip points the zones had, for tb-fit --trip zone */
    if (!s.no_meta && (add_board_meta(&s) < 0 ||
                       sensors_zone_metas(r.sensors, r.nsensors, &s.metas, &s.nmetas) < 0)) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    if (s.window_frame_ms > 0 && open_freezer(&r, &s, err, sizeof err) < 0)
        goto fail;
    if (!s.no_meta && s.window_frame_ms > 0 && add_window_meta(&s, &r.freezer) < 0) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    int started = start_run(&r, &s, path, argc, argv, &unblocked, err, sizeof err);
    if (started < 0)
        goto fail;
    if (started > 0) {
        status = started;
        goto out;
    }
    if (s.sched_deadline > 0)
        use_sched_deadline(&s);
    r.t0_ns = now_ns();
    if (s.cooldown_s > 0)
        write_event(&r, r.col_running, "1");
    if (s.window_frame_ms > 0 && r.have_bench) {
        r.win_open = 1;   /* the first frame opens as the benchmark starts */
        write_event(&r, r.col_window, "1");
        r.win_next = r.t0_ns + (int64_t)(s.window_on_ms * 1e6);
    }
    record(&r, &unblocked);

    status = finish_run(&r, &s, path, &unblocked, failure);
    goto out;
fail:
    fprintf(stderr, "tb-record: %s\n", err);
out:
    if (r.timer_fd > 0)
        close(r.timer_fd);
    recorder_free(&r);
    free(path);
    record_settings_free(&s);
    return status;
}
