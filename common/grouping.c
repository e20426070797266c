/*
 * grouping.c -- the group of a run, by directory, metadata or path regex.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grouping.h"

static int split_order(struct tb_grouping *g, const char *order, char *err, size_t errlen)
{
    if (!(g->order_buf = strdup(order)))
        goto oom;
    for (char *save = NULL, *t = strtok_r(g->order_buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        const char **no = realloc(g->order, (g->norder + 1) * sizeof *no);
        if (!no)
            goto oom;
        g->order = no;
        g->order[g->norder++] = t;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int tb_grouping_init(struct tb_grouping *g, const char *how, const char *order,
                     char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->how = how;
    if (order && split_order(g, order, err, errlen) < 0)
        return -1;
    if (strncmp(how, "re:", 3) != 0) {
        /* one key or several: dir and meta:KEY, joined by commas */
        size_t n = 1;
        for (const char *c = how; *c; c++)
            n += *c == ',';
        g->parts_buf = strdup(how);
        g->parts = calloc(n, sizeof *g->parts);
        if (!g->parts_buf || !g->parts) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        char *save = NULL;
        for (char *part = strtok_r(g->parts_buf, ",", &save); part; part = strtok_r(NULL, ",", &save))
            g->parts[g->nparts++] = part;
        for (size_t k = 0; k < g->nparts; k++)
            if (strcmp(g->parts[k], "dir") != 0 &&
                !(strncmp(g->parts[k], "meta:", 5) == 0 && g->parts[k][5]))
                g->nparts = 0;
        if (g->nparts > 0 && g->nparts == n)
            return 0;
    }
    if (strncmp(how, "re:", 3) != 0) {
        snprintf(err, errlen, "--group-by wants meta:KEY, dir or re:REGEX (or several of meta:KEY "
                 "and dir, joined by commas), not '%s'", how);
        return -1;
    }
    int rc = regcomp(&g->re, how + 3, REG_EXTENDED);
    if (rc != 0) {
        char why[256];
        regerror(rc, &g->re, why, sizeof why);
        snprintf(err, errlen, "--group-by: %s: %s", how + 3, why);
        return -1;
    }
    g->have_re = 1;
    return 0;
}

void tb_grouping_free(struct tb_grouping *g)
{
    if (g->have_re)
        regfree(&g->re);
    g->have_re = 0;
    free(g->order);
    free(g->order_buf);
    free(g->parts);
    free(g->parts_buf);
    g->parts = NULL;
    g->parts_buf = NULL;
    g->nparts = 0;
    g->order = NULL;
    g->order_buf = NULL;
    g->norder = 0;
}

static int natural(const void *a, const void *b)
{
    return tb_natural_compare(*(char *const *)a, *(char *const *)b);
}

int tb_grouping_sort(const struct tb_grouping *g, char **names, size_t n,
                     char *err, size_t errlen)
{
    qsort(names, n, sizeof *names, natural);
    for (size_t k = g->norder; k-- > 0;) {   /* the last named first: it ends up after */
        size_t i = 0;
        while (i < n && strcmp(names[i], g->order[k]) != 0)
            i++;
        if (i == n) {
            snprintf(err, errlen, "--group-order: no group %s", g->order[k]);
            return -1;
        }
        char *moved = names[i];
        memmove(names + 1, names, i * sizeof *names);
        names[0] = moved;
    }
    return 0;
}

/* The group of FILE by one key HOW (dir or meta:KEY): see tb_grouping_of(). */
static char *group_by_key(const char *how, const char *file, const tb_run *run,
                          const tb_result *result, char *err, size_t errlen)
{
    if (strcmp(how, "dir") == 0) {
        char *copy = strdup(file);
        char *group = copy ? strdup(basename(dirname(copy))) : NULL;
        free(copy);
        if (!group)
            snprintf(err, errlen, "out of memory");
        return group;
    }
    const char *key = how + 5;
    if (!run) {   /* the metadata the results file keeps */
        char *group = tb_result_meta(result, key);
        if (!group)
            snprintf(err, errlen, "%s: no \"# %s:\" line to group by", file, key);
        return group;
    }
    const char *v = tb_run_meta(run, key);
    char *group = v ? strdup(v) : NULL;
    if (!v) {   /* the keys it has, and the one KEY is likely a slip for */
        size_t n = tb_run_nmeta(run), used;
        const char **keys = malloc((n ? n : 1) * sizeof *keys);
        for (size_t i = 0; keys && i < n; i++)
            keys[i] = tb_run_meta_key(run, i);
        const char *near = keys ? tb_closest_name(key, keys, n) : NULL;
        used = (size_t)snprintf(err, errlen, "%s: no \"# %s:\" line to group by%s%s%s; %s", file, key,
                                near ? " (did you mean meta:" : "", near ? near : "", near ? "?)" : "",
                                n ? "its keys:" : "it has no metadata lines");
        for (size_t i = 0; keys && i < n && used < errlen; i++)
            used += (size_t)snprintf(err + used, errlen - used, "%s %s", i ? "," : "", keys[i]);
        free(keys);
    }
    return group;
}

char *tb_grouping_of(const struct tb_grouping *g, const char *file, const tb_run *run,
                     const tb_result *result, char *err, size_t errlen)
{
    if (g->have_re) {
        regmatch_t m[2];
        if (regexec(&g->re, file, 2, m, 0) == 0 && m[1].rm_so >= 0)
            return strndup(file + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
        snprintf(err, errlen, "%s: the path does not match --group-by %s", file, g->how);
        return NULL;
    }
    tb_run *own = NULL;
    int need_run = 0;
    for (size_t k = 0; k < g->nparts; k++)
        need_run |= strcmp(g->parts[k], "dir") != 0;
    if (result && result->meta)
        need_run = 0;   /* its metadata came with it */
    if (!run && need_run) {
        if (!(own = tb_run_read(file, NULL, err, errlen)))
            return NULL;   /* the reader's message says which file and why */
        run = own;
    }
    /* each key's value, joined by '/' */
    char *joined = NULL;
    for (size_t k = 0; k < g->nparts; k++) {
        char *one = group_by_key(g->parts[k], file, run, result, err, errlen), *more = NULL;
        if (!one || asprintf(&more, "%s%s%s", joined ? joined : "", joined ? "/" : "", one) < 0) {
            if (one)
                snprintf(err, errlen, "out of memory");
            free(one);
            free(joined);
            tb_run_free(own);
            return NULL;
        }
        free(one);
        free(joined);
        joined = more;
    }
    tb_run_free(own);
    return joined;
}
