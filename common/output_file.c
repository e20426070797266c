/*
 * output_file.c -- a file written whole or not at all (output_file.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"

int tb_output_written_through(const char *path)
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

int tb_output_open(struct tb_output_file *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (tb_output_written_through(path)) {
        if (!(o->path = strdup(path)) || !(o->f = fopen(path, "w"))) {
            snprintf(err, errlen, "%s: cannot write: %s", path, o->path ? strerror(errno) : "out of memory");
            tb_output_abort(o);
            return -1;
        }
        return 0;
    }
    if (!(o->path = strdup(path)) || asprintf(&o->temp, "%s.XXXXXX", path) < 0) {
        o->temp = NULL;
        snprintf(err, errlen, "out of memory");
        tb_output_abort(o);
        return -1;
    }
    int fd = mkstemp(o->temp);   /* beside PATH, so that the rename stays on its file system */
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        free(o->temp);
        o->temp = NULL;
        tb_output_abort(o);
        return -1;
    }
    mode_t mask = umask(0);   /* a new file's mode, not mkstemp's 0600 */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    if (!(o->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        tb_output_abort(o);
        return -1;
    }
    return 0;
}

int tb_output_commit(struct tb_output_file *o, char *err, size_t errlen)
{
    /* a special file (a pipe) cannot be synced, and needs not be */
    int bad = fflush(o->f) != 0 || ferror(o->f) ||
              (o->temp && fsync(fileno(o->f)) != 0);
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && o->temp && rename(o->temp, o->path) < 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        snprintf(err, errlen, "%s: write error: %s", o->path, strerror(e));
        tb_output_abort(o);
        return -1;
    }
    free(o->temp);
    free(o->path);
    o->temp = o->path = NULL;
    return 0;
}

void tb_output_abort(struct tb_output_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->temp)
        unlink(o->temp);
    free(o->temp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
