/*
 * journal.c -- tb-series' journal (see journal.h for its lines).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL_NAME "tb-series.journal"

static int remember(char ***list, size_t *n, const char *text)
{
    char **more = realloc(*list, (*n + 1) * sizeof *more);
    if (!more)
        return -1;
    *list = more;
    if (!(more[*n] = strdup(text)))
        return -1;
    (*n)++;
    return 0;
}

static void drop(char **list, int *status, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], name)) {
            free(list[i]);
            list[i] = list[*n - 1];
            if (status)
                status[i] = status[*n - 1];
            (*n)--;
            return;
        }
}

/* The check of a line's words: FNV-1a, 32 bits. */
static uint32_t line_check(const char *text, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 16777619u;
    }
    return h;
}

/* LINE's words, when its check holds: their length, or -1. */
static ssize_t checked_words(const char *line)
{
    const char *tilde = strrchr(line, '~');
    unsigned check;
    int used = 0;
    if (!tilde || tilde == line || tilde[-1] != ' ' ||
        sscanf(tilde + 1, "%8x%n", &check, &used) != 1 || used != 8 || tilde[9] != '\0')
        return -1;
    size_t len = (size_t)(tilde - 1 - line);
    return line_check(line, len) == check ? (ssize_t)len : -1;
}

static int remember_saved(struct journal *j, const char *text, size_t line)
{
    size_t *more = realloc(j->saved_line, (j->nsaved + 1) * sizeof *more);
    if (!more)
        return -1;
    j->saved_line = more;
    more[j->nsaved] = line;
    return remember(&j->saved, &j->nsaved, text);
}

static void forget_saved(struct journal *j)
{
    for (size_t i = 0; i < j->nsaved; i++)
        free(j->saved[i]);
    j->nsaved = 0;
}

static void forget_all(struct journal *j)
{
    for (size_t i = 0; i < j->ndone; i++)
        free(j->done[i]);
    for (size_t i = 0; i < j->nsaved; i++)
        free(j->saved[i]);
    free(j->done);
    free(j->status);
    free(j->saved);
    free(j->saved_line);
    j->done = j->saved = NULL;
    j->status = NULL;
    j->saved_line = NULL;
    j->ndone = j->nsaved = 0;
    j->unsaved_start = 0;
}

/* One line, its check taken off, of the journal of plan HASH (OURS: -2
 * before the first line, then whether it is of HASH).  0, -1 when memory
 * ran out, -3 when the line is not one tb-series writes. */
static int replay_line(struct journal *j, char *line, size_t lineno, uint64_t hash, int *ours)
{
    unsigned long long h;
    char name[1024];
    int status, used = 0;
    if (*ours == -2) {
        if (sscanf(line, "tb-series journal 2 plan=%llx", &h) != 1)
            return -3;
        *ours = h == hash;
        return 0;
    }
    /* cpufreq as found is a fact of the machine, whatever the plan */
    if (!strncmp(line, "saved ", 6))
        return remember_saved(j, line + 6, lineno);
    if (!strcmp(line, "restored")) {
        forget_saved(j);
        j->unsaved_start = 0;
        return 0;
    }
    if (sscanf(line, "start %1023s%n", name, &used) == 1 && line[used] == '\0') {
        if (j->nsaved == 0 && j->unsaved_start == 0)
            j->unsaved_start = lineno;
        if (*ours)
            drop(j->done, j->status, &j->ndone, name);
        return 0;
    }
    if (sscanf(line, "done %1023s %d%n", name, &status, &used) == 2 && line[used] == '\0') {
        if (!*ours)
            return 0;
        drop(j->done, j->status, &j->ndone, name);
        int *more = realloc(j->status, (j->ndone + 1) * sizeof *more);
        if (!more)
            return -1;
        j->status = more;
        if (remember(&j->done, &j->ndone, name) < 0)
            return -1;
        j->status[j->ndone - 1] = status;
        return 0;
    }
    return -3;
}

/* Take the journal's lines in.  A last line without its end (the power
 * went in the middle of writing it) is not taken.  1 when the journal is
 * of HASH (or new), 0 when of another plan, -1 when memory ran out, -3
 * with ERR when a line is not as tb-series wrote it. */
static int replay(struct journal *j, FILE *f, uint64_t hash, char *err, size_t errlen)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int ours = -2, rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n')
            break;
        line[len - 1] = '\0';
        lineno++;
        ssize_t words = checked_words(line);
        if (words < 0) {
            rc = -3;
        } else {
            line[words] = '\0';
            rc = replay_line(j, line, lineno, hash, &ours);
        }
        if (rc == -3)
            snprintf(err, errlen, "%s:%zu: not a line as tb-series writes it (%s): edited or "
                     "damaged; nothing of the journal is used (--restart starts the series anew; "
                     "give cpufreq back by hand if a cut series left it changed)", j->path,
                     lineno, words < 0 ? "its check does not match" : "unknown");
    }
    free(line);
    return rc < 0 ? rc : ours == -2 ? 1 : ours;
}

int journal_open(struct journal *j, const char *dir, uint64_t hash, size_t nruns,
                 int restart, char *err, size_t errlen)
{
    memset(j, 0, sizeof *j);
    j->fd = -1;
    if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot make the directory: %s", dir, strerror(errno));
        return -1;
    }
    if (asprintf(&j->path, "%s/%s", dir, JOURNAL_NAME) < 0) {
        j->path = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    j->fd = open(j->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (j->fd < 0) {
        snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
        return -1;
    }
    if (flock(j->fd, LOCK_EX | LOCK_NB) < 0) {
        snprintf(err, errlen, "%s: %s", j->path, errno == EWOULDBLOCK
                 ? "another tb-series is running this series" : strerror(errno));
        return -1;
    }
    int dup_fd = dup(j->fd);
    FILE *f = dup_fd >= 0 ? fdopen(dup_fd, "r") : NULL;
    if (!f) {
        if (dup_fd >= 0)
            close(dup_fd);
        snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
        return -1;
    }
    rewind(f);
    int ours = replay(j, f, hash, err, errlen);
    fclose(f);
    if (ours == -1) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (ours == -3 && !restart)
        return -2;
    if (ours == -3) {   /* anew, and nothing of it kept, not even what it saved */
        forget_all(j);
        ours = 0;
    }
    struct stat st;
    if (fstat(j->fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
        return -1;
    }
    if (!ours && !restart) {
        snprintf(err, errlen, "%s: the journal of another plan (the plan changed since); "
                 "--restart to start this series anew", j->path);
        return -2;
    }
    j->fresh = st.st_size == 0 || !ours;
    if (!ours || st.st_size == 0 || restart) {
        /* anew: cpufreq settings saved and not given back stay saved */
        char **saved = j->saved;
        size_t nsaved = j->nsaved;
        j->saved = NULL;
        j->nsaved = 0;
        forget_all(j);
        j->fresh = 1;
        if (ftruncate(j->fd, 0) < 0 ||
            journal_write(j, "tb-series journal 2 plan=%016llx runs=%zu",
                          (unsigned long long)hash, nruns) < 0) {
            snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
            for (size_t i = 0; i < nsaved; i++)
                free(saved[i]);
            free(saved);
            return -1;
        }
        j->saved = saved;
        j->nsaved = nsaved;
        free(j->saved_line);   /* their lines are the new journal's now */
        j->saved_line = calloc(nsaved ? nsaved : 1, sizeof *j->saved_line);
        if (!j->saved_line) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < nsaved; i++)
            if ((j->saved_line[i] = i + 2, journal_write(j, "saved %s", saved[i]) < 0)) {
                snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
                return -1;
            }
    } else {
        /* after a cut last line, start on a line of our own */
        char last;
        if (pread(j->fd, &last, 1, st.st_size - 1) == 1 && last != '\n' &&
            write(j->fd, "\n", 1) != 1) {
            snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int journal_write(struct journal *j, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int m = snprintf(line + n, sizeof line - (size_t)n, " ~%08x\n", (unsigned)line_check(line, (size_t)n));
    if (m < 0 || (size_t)(n + m) >= sizeof line) {
        errno = ENAMETOOLONG;
        return -1;
    }
    n += m;
    /* one write(): O_APPEND puts it whole at the end */
    if (write(j->fd, line, (size_t)n) != n)
        return -1;
    return fsync(j->fd);
}

int journal_is_done(const struct journal *j, const char *name, int *status)
{
    for (size_t i = 0; i < j->ndone; i++)
        if (!strcmp(j->done[i], name)) {
            *status = j->status[i];
            return 1;
        }
    return 0;
}

void journal_forget_done(struct journal *j, const char *name)
{
    drop(j->done, j->status, &j->ndone, name);
}

void journal_close(struct journal *j)
{
    if (j->fd >= 0)
        close(j->fd);
    forget_all(j);
    free(j->path);
    memset(j, 0, sizeof *j);
    j->fd = -1;
}
