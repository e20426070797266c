/*
 * run_select.c -- find columns by header, name, glob or number.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"

static int is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static int column_matches(const tb_column *c, const char *spec, int glob)
{
    if (!glob)
        return strcmp(c->header, spec) == 0 || strcmp(c->name, spec) == 0;
    return fnmatch(spec, c->name, 0) == 0 || fnmatch(spec, c->header, 0) == 0;
}

/* "unknown column 'x' (did you mean y?); columns: time, CPU_0_temp, ..."
 * cut to fit; the likely slip first, where it is read. */
static void list_columns(const tb_run *run, const char *what, const char *spec,
                         char *err, size_t errlen)
{
    const char *near = NULL;
    const char **names = strpbrk(spec, "*?[") ? NULL : malloc(run->ncols * sizeof *names);
    for (size_t i = 0; names && i < run->ncols; i++)
        names[i] = run->cols[i].name;
    if (names)
        near = tb_closest_name(spec, names, run->ncols);
    size_t used = (size_t)snprintf(err, errlen, "%s: %s \"%s\"%s%s%s; columns:", run->source, what,
                                   spec, near ? " (did you mean " : "", near ? near : "",
                                   near ? "?)" : "");
    free(names);
    for (size_t i = 0; i < run->ncols && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, "%s %s",
                                 i ? "," : "", run->cols[i].name);
    if (used >= errlen && errlen > 4)
        strcpy(err + errlen - 4, "...");
}

ssize_t tb_run_select(const tb_run *run, const char *spec, size_t *idx,
                      size_t max, char *err, size_t errlen)
{
    size_t found = 0;

    if (is_number(spec)) {
        char *end;
        unsigned long k = strtoul(spec, &end, 10);
        if (k == 0 || k > run->ncols) {
            snprintf(err, errlen, "%s: no column %s: the run has columns 1 to %zu",
                     run->source, spec, run->ncols);
            return -1;
        }
        if (max > 0)
            idx[0] = k - 1;
        return 1;
    }

    /* An exact header or name wins over a glob, so that a name holding
     * "*" or "[" can still be asked for. */
    for (int glob = 0; glob < 2 && found == 0; glob++) {
        if (glob && !strpbrk(spec, "*?["))
            break;
        for (size_t i = 0; i < run->ncols; i++) {
            if (column_matches(&run->cols[i].pub, spec, glob)) {
                if (found < max)
                    idx[found] = i;
                found++;
            }
        }
    }
    if (found == 0) {
        list_columns(run, strpbrk(spec, "*?[") ? "no column matches"
                                               : "unknown column",
                     spec, err, errlen);
        return -1;
    }
    return (ssize_t)found;
}

ssize_t tb_run_select_all(const tb_run *run, const char *const *specs, size_t nspecs,
                          size_t *idx, char *err, size_t errlen)
{
    size_t ncols = run->ncols, n = 0;
    char *taken = calloc(ncols, 1);
    size_t *found = malloc(ncols * sizeof *found);
    ssize_t rc = -1;

    if (!taken || !found) {
        snprintf(err, errlen, "%s: out of memory", run->source);
        goto out;
    }
    for (size_t k = 0; k < nspecs; k++) {
        ssize_t m = tb_run_select(run, specs[k], found, ncols, err, errlen);
        if (m < 0)
            goto out;
        for (ssize_t j = 0; j < m; j++)
            taken[found[j]] = 1;
    }
    for (size_t i = 0; i < ncols; i++)
        if (taken[i])
            idx[n++] = i;
    rc = (ssize_t)n;
out:
    free(taken);
    free(found);
    return rc;
}
