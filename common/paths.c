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
#include "tbfit.h"

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

/* A directory's runs in natural order, as groups are: 5.4 before 5.10,
 * run2 before run10. */
static int compare_strings(const void *a, const void *b)
{
    return tb_natural_compare(*(char *const *)a, *(char *const *)b);
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

/* Whether ST's file was met before; records it when not.  -1 when memory
 * runs out. */
static int seen_before(struct tb_paths *l, const struct stat *st)
{
    for (size_t i = 0; i < l->nseen; i++)
        if (l->seen[i].dev == st->st_dev && l->seen[i].ino == st->st_ino)
            return 1;
    struct tb_seen *ns = realloc(l->seen, (l->nseen + 1) * sizeof *ns);
    if (!ns)
        return -1;
    l->seen = ns;
    l->seen[l->nseen++] = (struct tb_seen){st->st_dev, st->st_ino};
    return 0;
}

/* Add the file P unless it was met already (said so). */
static int add_file(struct tb_paths *l, const char *p, const char *prog)
{
    struct stat st;
    if (strcmp(p, "-") != 0 && stat(p, &st) == 0) {
        int seen = seen_before(l, &st);
        if (seen < 0)
            return -1;
        if (seen) {
            fprintf(stderr, "%s: note: %s: met again (given twice, or through a link): counted once\n",
                    prog, p);
            return 0;
        }
    }
    return push_path(l, p);
}

/* The *.csv files below DIR, sorted; DIR itself once. */
static int add_directory(struct tb_paths *l, const char *dir, const char *prog)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct tb_paths here = {0};
    int rc = 0;

    struct stat dst;
    if (!d) {
        fprintf(stderr, "%s: %s: cannot read: %s\n", prog, dir, strerror(errno));
        return -1;
    }
    if (fstat(dirfd(d), &dst) == 0) {
        int seen = seen_before(l, &dst);
        if (seen != 0) {
            closedir(d);
            if (seen > 0)
                fprintf(stderr, "%s: note: %s: a directory met again (a link back into the "
                        "tree?): searched once\n", prog, dir);
            return seen < 0 ? -1 : 0;
        }
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
    if (here.n > 1)   /* an empty directory has no array to give qsort */
        qsort(here.v, here.n, sizeof *here.v, compare_strings);
    for (size_t i = 0; i < here.n; i++) {
        struct stat st;
        if (stat(here.v[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc |= add_directory(l, here.v[i], prog);
        else
            rc |= add_file(l, here.v[i], prog);
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
    return add_file(l, arg, prog);
}

void tb_paths_free(struct tb_paths *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->seen);
    l->v = NULL;
    l->n = 0;
    l->seen = NULL;
    l->nseen = 0;
}

size_t tb_common_dir(char *const *names, size_t n)
{
    if (n < 2)
        return 0;
    size_t len = strlen(names[0]);
    for (size_t g = 1; g < n; g++) {
        size_t k = 0;
        while (k < len && names[g][k] == names[0][k])
            k++;
        len = k;
    }
    while (len > 0 && names[0][len - 1] != '/')
        len--;
    return len;
}
