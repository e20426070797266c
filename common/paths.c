/*
 * paths.c -- the runs a host tool is given: files as they are, directories
 * searched for *.csv; and the tools' "PROG: message" lines.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths.h"

void tb_say(FILE *msg, const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(msg, "%s: ", prog);
    vfprintf(msg, fmt, ap);
    fputc('\n', msg);
    va_end(ap);
}

/* --- inputs ---------------------------------------------------------------- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_path(struct tb_paths *l, const char *p)
{
    char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!nv || !(nv[l->n] = strdup(p))) {
        if (nv)
            l->v = nv;
        return -1;
    }
    l->v = nv;
    l->n++;
    return 0;
}

/* The *.csv files below DIR, sorted. */
static int add_directory(struct tb_paths *l, const char *dir, const char *prog)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct tb_paths here = {0};
    int rc = 0;

    if (!d) {
        fprintf(stderr, "%s: %s: cannot read: %s\n", prog, dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d))) {
        char *p;
        struct stat st;
        if (e->d_name[0] == '.' || asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            continue;
        if (stat(p, &st) == 0 && (S_ISDIR(st.st_mode) || fnmatch("*.csv", e->d_name, 0) == 0))
            rc |= push_path(&here, p);
        free(p);
    }
    closedir(d);
    qsort(here.v, here.n, sizeof *here.v, compare_strings);
    for (size_t i = 0; i < here.n; i++) {
        struct stat st;
        if (stat(here.v[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc |= add_directory(l, here.v[i], prog);
        else
            rc |= push_path(l, here.v[i]);
    }
    tb_paths_free(&here);
    return rc;
}

int tb_paths_add(struct tb_paths *l, const char *arg, const char *prog)
{
    struct stat st;
    if (strcmp(arg, "-") != 0 && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *dir = strdup(arg);
        if (!dir)
            return -1;
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            dir[--len] = '\0';
        int rc = add_directory(l, dir, prog);
        free(dir);
        return rc;
    }
    return push_path(l, arg);
}

void tb_paths_free(struct tb_paths *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
