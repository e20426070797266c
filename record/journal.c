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

static void forget_all(struct journal *j)
{
    for (size_t i = 0; i < j->ndone; i++)
        free(j->done[i]);
    for (size_t i = 0; i < j->nsaved; i++)
        free(j->saved[i]);
    free(j->done);
    free(j->status);
    free(j->saved);
    j->done = j->saved = NULL;
    j->status = NULL;
    j->ndone = j->nsaved = 0;
}

/* Take the journal's lines in.  A last line without its end (the power
 * went in the middle of writing it) is not taken.  1 when the journal is
 * of HASH (or new), 0 when of another plan, -1 when memory ran out. */
static int replay(struct journal *j, FILE *f, uint64_t hash)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int ours = -2, rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n')
            break;
        line[len - 1] = '\0';
        unsigned long long h;
        char name[1024];
        int status;
        /* cpufreq as found is a fact of the machine, whatever the plan */
        if (ours == -2) {
            ours = sscanf(line, "tb-series journal 1 plan=%llx", &h) == 1 && h == hash;
        } else if (!strncmp(line, "saved ", 6)) {
            rc = remember(&j->saved, &j->nsaved, line + 6);
        } else if (!strcmp(line, "restored")) {
            for (size_t i = 0; i < j->nsaved; i++)
                free(j->saved[i]);
            j->nsaved = 0;
        } else if (!ours) {
            continue;
        } else if (sscanf(line, "start %1023s", name) == 1) {
            drop(j->done, j->status, &j->ndone, name);
        } else if (sscanf(line, "done %1023s %d", name, &status) == 2) {
            drop(j->done, j->status, &j->ndone, name);
            int *more = realloc(j->status, (j->ndone + 1) * sizeof *more);
            if (!more || remember(&j->done, &j->ndone, name) < 0)
                rc = -1;
            if (more) {
                j->status = more;
                if (rc == 0)
                    j->status[j->ndone - 1] = status;
            }
        }
    }
    free(line);
    return rc < 0 ? -1 : ours == -2 ? 1 : ours;
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
    int ours = replay(j, f, hash);
    fclose(f);
    if (ours < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
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
            journal_write(j, "tb-series journal 1 plan=%016llx runs=%zu",
                          (unsigned long long)hash, nruns) < 0) {
            snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
            for (size_t i = 0; i < nsaved; i++)
                free(saved[i]);
            free(saved);
            return -1;
        }
        j->saved = saved;
        j->nsaved = nsaved;
        for (size_t i = 0; i < nsaved; i++)
            if (journal_write(j, "saved %s", saved[i]) < 0) {
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
    line[n++] = '\n';
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

void journal_close(struct journal *j)
{
    if (j->fd >= 0)
        close(j->fd);
    forget_all(j);
    free(j->path);
    memset(j, 0, sizeof *j);
    j->fd = -1;
}
