/*
 * csv_writer.c -- the run file in the thermobench format.
 *
 * Rows go through stdio's buffer and are written out at least once a
 * second: a power cut loses at most a second, and at a 1 ms period the
 * recorder makes one write() a second instead of a thousand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "csv_writer.h"

/* Whole rows kept before a write(2): at least once a second they go out. */
#define OUT_SIZE (1 << 16)

/* Whether PATH is written as it is rather than replaced: a device, a FIFO
 * or a socket (/dev/null, a named pipe), anything under /dev or /proc, and
 * a link into them (/dev/stdout, /dev/fd/N: the file descriptors of the
 * caller, which must never be replaced by a file).  The same rule as
 * libtbtools' tb_output_written_through(), which the recorder cannot link. */
static int written_through(const char *path)
{
    struct stat st;
    char target[4096];
    if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
        return 1;
    if (lstat(path, &st) < 0)
        return 0;
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            if (!strncmp(target, "/dev/", 5) || !strncmp(target, "/proc/", 6))
                return 1;
        }
        if (stat(path, &st) < 0)
            return 0;
    }
    return !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode);
}

int csvw_open(struct csv_writer *w, const char *path, int unbuffered, int fsync,
              char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    w->unbuffered = unbuffered;
    w->fsync = fsync;
    w->fd = -1;
    if (!(w->out = malloc(OUT_SIZE))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (strcmp(path, "-") == 0) {
        w->fd = STDOUT_FILENO;
        w->is_stdout = 1;
        return 0;
    }
    if (written_through(path)) {
        if ((w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
            snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
            csvw_discard(w);
            return -1;
        }
        w->is_special = 1;
        return 0;
    }
    if (asprintf(&w->temp, "%s.XXXXXX", path) < 0) {
        w->temp = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->fd = mkostemp(w->temp, O_CLOEXEC);   /* not inherited by the benchmark */
    if (w->fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(w->temp);
        w->temp = NULL;
        csvw_discard(w);
        return -1;
    }
    mode_t mask = umask(0);   /* a new file's mode, not mkstemp's 0600 */
    umask(mask);
    fchmod(w->fd, 0666 & ~mask);
    return 0;
}

int csvw_publish(struct csv_writer *w, char *err, size_t errlen)
{
    struct stat st;
    if (!w->temp)
        return 0;   /* standard output, or a special file written as it is */
    if (rename(w->temp, w->path) < 0 || fstat(w->fd, &st) < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", w->path, strerror(errno));
        return -1;
    }
    w->dev = st.st_dev;
    w->ino = st.st_ino;
    free(w->temp);
    w->temp = NULL;
    return 0;
}

void csvw_discard(struct csv_writer *w)
{
    if (w->fd >= 0 && !w->is_stdout)
        close(w->fd);
    w->fd = -1;
    free(w->out);
    w->out = NULL;
    if (w->temp)
        unlink(w->temp);
    free(w->temp);
    w->temp = NULL;
    free(w->row);
    w->row = NULL;
}

int csvw_still_there(const struct csv_writer *w)
{
    struct stat st;
    if (w->is_stdout || w->is_special)
        return 1;
    return stat(w->path, &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino;
}

static int append(struct csv_writer *w, const char *s, size_t n)
{
    if (w->len + n + 1 > w->cap) {
        size_t cap = (w->len + n + 1) * 2;
        char *r = realloc(w->row, cap);
        if (!r)
            return -1;
        w->row = r;
        w->cap = cap;
    }
    memcpy(w->row + w->len, s, n);
    w->len += n;
    return 0;
}

/* A cell, quoted when it holds a comma, a quote or a line break. */
static int append_cell(struct csv_writer *w, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return append(w, s, strlen(s));
    if (append(w, "\"", 1) < 0)
        return -1;
    for (; *s; s++)
        if ((*s == '"' && append(w, "\"", 1) < 0) || append(w, s, 1) < 0)
            return -1;
    return append(w, "\"", 1);
}

/* Write LEN bytes of whole rows; 0, or -1 (errno). */
static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The row built, ended, into the output buffer.  The buffer holds whole
 * rows only and goes out with one write(2) of whole rows, so that a
 * recorder killed at any moment (SIGKILL) leaves only whole lines: stdio
 * flushed its buffer wherever it filled, inside a row. */
static int put_line(struct csv_writer *w)
{
    if (append(w, "\n", 1) < 0)
        return -1;
    size_t len = w->len;
    w->len = 0;
    if (w->outlen + len > OUT_SIZE) {
        if (write_all(w->fd, w->out, w->outlen) < 0)
            return -1;
        w->outlen = 0;
    }
    if (len > OUT_SIZE)   /* a row longer than the buffer: on its own */
        return write_all(w->fd, w->row, len);
    memcpy(w->out + w->outlen, w->row, len);
    w->outlen += len;
    return 0;
}

int csvw_flush(struct csv_writer *w, int64_t now_ns)
{
    w->last_flush_ns = now_ns;
    if (w->outlen > 0 && write_all(w->fd, w->out, w->outlen) < 0)
        return -1;
    w->outlen = 0;
    /* A pipe or a terminal cannot be synced, and needs not be. */
    if (w->fsync && fsync(w->fd) != 0 && errno != EINVAL && errno != EROFS)
        return -1;
    return 0;
}

/* Whether thermobench writes A unquoted: letters, digits and /.,_-@,
 * and = past the first argument.  The same rule gives the same line 1. */
static int plain_arg(const char *a, int first)
{
    if (!*a)
        return 0;   /* thermobench drops it; '' keeps it */
    for (; *a; a++) {
        char c = *a;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("/.,_-@", c) || (c == '=' && !first)))
            return 0;
    }
    return 1;
}

/* The command line as a shell would take it back, on one line whatever
 * it holds: an argument with a control character (a newline would end
 * line 1 and leave the run unreadable) in $'...', with \n, \r, \t and
 * \ooo for them. */
static int append_quoted_arg(struct csv_writer *w, const char *a, int first)
{
    int control = 0;
    for (const unsigned char *c = (const unsigned char *)a; *c; c++)
        control |= *c < 0x20 || *c == 0x7f;
    if (control) {
        if (append(w, "$'", 2) < 0)
            return -1;
        for (const unsigned char *c = (const unsigned char *)a; *c; c++) {
            char esc[8];
            int n = *c == '\n' ? snprintf(esc, sizeof esc, "\\n")
                  : *c == '\r' ? snprintf(esc, sizeof esc, "\\r")
                  : *c == '\t' ? snprintf(esc, sizeof esc, "\\t")
                  : *c < 0x20 || *c == 0x7f ? snprintf(esc, sizeof esc, "\\%03o", *c)
                  : *c == '\'' || *c == '\\' ? snprintf(esc, sizeof esc, "\\%c", *c)
                  : snprintf(esc, sizeof esc, "%c", *c);
            if (append(w, esc, (size_t)n) < 0)
                return -1;
        }
        return append(w, "'", 1);
    }
    if (plain_arg(a, first))
        return append(w, a, strlen(a));
    if (append(w, "'", 1) < 0)
        return -1;
    for (; *a; a++) {
        if (*a == '\'' ? append(w, "'\\''", 4) < 0 : append(w, a, 1) < 0)
            return -1;
    }
    return append(w, "'", 1);
}

/* The value --meta gives KEY (its last one), or NULL. */
static const char *meta_given(char *const *metas, size_t n, const char *key)
{
    const char *v = NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i < n; i++)
        if (strncmp(metas[i], key, klen) == 0 && metas[i][klen] == '=')
            v = metas[i] + klen + 1;
    return v;
}

static int append_meta(struct csv_writer *w, const char *key, size_t klen, const char *value)
{
    return append(w, "# ", 2) < 0 || append(w, key, klen) < 0 || append(w, ": ", 2) < 0 ||
           append(w, value, strlen(value)) < 0 || put_line(w) < 0 ? -1 : 0;
}

int csvw_preamble(struct csv_writer *w, int argc, char **argv, int no_meta,
                  double period_ms, char *const *metas, size_t nmetas,
                  const char *const *headers, size_t ncols)
{
    char when[64], line[512];
    time_t now = time(NULL);
    struct tm tm;
    struct utsname u;

    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", localtime_r(&now, &tm));
    snprintf(line, sizeof line, "# Started at: %s, Version: %s %s, Generated by:",
             when, PACKAGE_NAME, PACKAGE_VERSION);
    if (append(w, line, strlen(line)) < 0)
        return -1;
    for (int i = 0; i < argc; i++)
        if (append(w, " ", 1) < 0 || append_quoted_arg(w, argv[i], i == 0) < 0)
            return -1;
    if (put_line(w) < 0)
        return -1;
    if (!no_meta) {
        /* --meta KEY=VALUE replaces a key of tb-record's own (kernel=6.1-rc3
         * on a kernel that says otherwise; period_ms is refused before),
         * and a key given twice is written once, its last value: one line
         * per key, always */
        char period[32];
        const char *const own[] = {"host", "kernel", "machine", "period_ms"};
        const char *value[4] = {NULL, NULL, NULL, period};
        snprintf(period, sizeof period, "%g", period_ms);
        if (uname(&u) == 0) {
            value[0] = u.nodename;
            value[1] = u.release;
            value[2] = u.machine;
        }
        for (size_t k = 0; k < 4; k++) {
            const char *v = meta_given(metas, nmetas, own[k]);
            if ((v || value[k]) && append_meta(w, own[k], strlen(own[k]), v ? v : value[k]) < 0)
                return -1;
        }
        for (size_t i = 0; i < nmetas; i++) {
            const char *eq = strchr(metas[i], '=');
            size_t klen = (size_t)(eq - metas[i]);
            int later = 0, is_own = 0;
            for (size_t j = i + 1; j < nmetas; j++)
                later |= strncmp(metas[j], metas[i], klen + 1) == 0;
            for (size_t k = 0; k < 4; k++)
                is_own |= strlen(own[k]) == klen && strncmp(own[k], metas[i], klen) == 0;
            if (!later && !is_own && append_meta(w, metas[i], klen, eq + 1) < 0)
                return -1;
        }
    }
    w->ncols = ncols;
    if (append(w, "time/ms", 7) < 0)
        return -1;
    for (size_t i = 0; i < ncols; i++)
        if (append(w, ",", 1) < 0 || append_cell(w, headers[w->order ? w->order[i] : i]) < 0)
            return -1;
    if (put_line(w) < 0)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return csvw_flush(w, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

int csvw_row(struct csv_writer *w, int64_t now_ns, int64_t t_ns, const char *const *cells)
{
    char t[64];
    size_t last = w->ncols;   /* every cell of every row, as thermobench writes them */
    /* Three decimals of ms, whatever the run's length (thermobench's %g
     * lost precision past 100 s); integer formatting costs a third of
     * what %.3f of a double does, at every row. */
    int64_t us = (t_ns + 500) / 1000;
    if (us < 0)
        us = 0;
    /* digits from the end: ms, a point, then three of µs */
    char *e = t + sizeof t, *p = e;
    uint64_t v = (uint64_t)us;
    for (int k = 0; k < 3; k++, v /= 10)
        *--p = (char)('0' + v % 10);
    *--p = '.';
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    if (append(w, p, (size_t)(e - p)) < 0)
        return -1;
    for (size_t i = 0; i < last; i++) {
        const char *cell = cells[w->order ? w->order[i] : i];
        if (append(w, ",", 1) < 0)
            return -1;
        if (cell && *cell && append_cell(w, cell) < 0)
            return -1;
    }
    if (put_line(w) < 0)
        return -1;
    if (w->unbuffered || now_ns - w->last_flush_ns >= 1000000000)
        return csvw_flush(w, now_ns);
    return 0;
}

int csvw_close(struct csv_writer *w)
{
    int rc = 0;
    if (w->fd >= 0)
        rc = csvw_flush(w, 0);
    free(w->row);
    w->row = NULL;
    free(w->out);
    w->out = NULL;
    if (w->fd >= 0 && !w->is_stdout && close(w->fd) != 0)
        rc = -1;
    w->fd = -1;
    return rc;
}
