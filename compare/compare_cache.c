/*
 * compare_cache.c -- tb-compare's cache of fits: one results file a run,
 * named by a hash of the run's bytes, of every option that changes its fit
 * and of tbkit's version.  An entry is written whole (a temporary file of
 * its own, fsynced, renamed into place) and checked when read, so that
 * -j workers, concurrent tb-compare processes on one shared cache and a
 * killed job never give a wrong table: an entry that is not whole is
 * fitted again and replaced.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"

struct fnv {
    uint64_t h;
};

static void fnv_bytes(struct fnv *f, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        f->h = (f->h ^ b[i]) * 1099511628211ULL;
}

/* A field of the key: its text and a separator no text holds. */
static void fnv_field(struct fnv *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fnv_field(struct fnv *f, const char *fmt, ...)
{
    char *text;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fnv_bytes(f, "\x01oom", 4);   /* a key no entry has: never a stale hit */
        return;
    }
    fnv_bytes(f, text, (size_t)n + 1);   /* with its NUL */
    free(text);
}

int compare_cache_key(const struct compare_settings *s, const char *path, char *key, size_t size)
{
    struct fnv f = {14695981039346656037ULL};
    unsigned char buf[65536];
    size_t n;
    FILE *in = fopen(path, "rb");
    if (!in)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fnv_bytes(&f, buf, n);
    int bad = ferror(in);
    fclose(in);
    if (bad)
        return -1;
    /* Every option, whatever its length, and the version that fitted. */
    fnv_field(&f, "tbkit %s cache v4", PACKAGE_VERSION);
    fnv_field(&f, "%d|%d|%s|%.17g|%.17g|%.17g|%.17g|%.17g|%d|%d|%d|%lu",
              s->m.auto_order ? 0 : s->m.fit.order, s->m.auto_order,
              s->m.ambient ? s->m.ambient : "", s->m.from, s->m.to, s->m.fit.tau_min,
              s->m.fit.tau_max, s->m.fit.level, s->shared_tau, (int)s->m.fit.ci,
              s->m.fit.bootstrap, s->m.fit.seed);
    for (size_t k = 0; k < s->ncolumns; k++)
        fnv_field(&f, "c=%s", s->columns[k]);
    for (size_t k = 0; k < s->nwork; k++)
        fnv_field(&f, "w=%s", s->work[k]);
    if ((size_t)snprintf(key, size, "%s/%016llx.csv", s->cache, (unsigned long long)f.h) >= size)
        return -1;
    return 0;
}

int compare_cache_read(const char *key, tb_result **rows, size_t *n, char *err, size_t errlen)
{
    /* Not a link, not a FIFO (which would hang the read): a regular file. */
    int fd = open(key, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "not a regular file");
        return -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    *rows = NULL;
    *n = 0;
    int rc = tb_results_read_stream(f, key, rows, n, err, errlen);
    fclose(f);
    if (rc == 0 && *n == 0) {
        snprintf(err, errlen, "no fitted column in it");
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < *n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp((*rows)[i].column, (*rows)[j].column) == 0) {
                snprintf(err, errlen, "column %s twice", (*rows)[i].column);
                rc = -1;
                break;
            }
    if (rc < 0) {
        tb_results_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return -1;
    }
    return 1;
}

int compare_cache_write(const char *key, const tb_result *rows, size_t n, char *err, size_t errlen)
{
    size_t len = strlen(key);
    char *tmp = malloc(len + 8);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(tmp, key, len);
    memcpy(tmp + len, ".XXXXXX", 8);
    int fd = mkstemp(tmp);   /* a name of its own, made with O_EXCL */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return -1;
    }
    int bad = tb_results_write_header(f, TB_FIT_MAX_ORDER) < 0;
    for (size_t i = 0; !bad && i < n; i++)
        bad = tb_results_write(f, &rows[i], TB_FIT_MAX_ORDER) < 0;
    bad = bad || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int saved = errno;
    bad = fclose(f) != 0 || bad;
    if (!bad && rename(tmp, key) < 0) {
        saved = errno;
        bad = 1;
    }
    if (bad) {
        snprintf(err, errlen, "%s", strerror(saved ? saved : EIO));
        unlink(tmp);
    }
    free(tmp);
    return bad ? -1 : 0;
}
