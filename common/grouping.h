/*
 * grouping.h -- which group a run belongs to, as tb-compare and tb-plot
 * compare define it (--group-by): its directory, a "# KEY: value"
 * metadata line, or a regular expression's first group in its path.
 * Part of libtbtools, not of libtbfit's API.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_GROUPING_H
#define TB_GROUPING_H

#include <regex.h>
#include <stddef.h>

#include "tbfit.h"

struct tb_grouping {
    const char *how;   /* "dir", "meta:KEY" or "re:REGEX"; or several of
                          dir and meta:KEY, joined by commas */
    char *parts_buf;   /* HOW split at its commas into: */
    const char **parts;
    size_t nparts;
    regex_t re;
    int have_re;
    char *order_buf;   /* --group-order, split into: */
    const char **order;
    size_t norder;
};

/* Check HOW and compile its regex; ORDER (--group-order "G1,G2,...", or
 * NULL) names the groups that come first.  0, or -1 with a message in ERR. */
int tb_grouping_init(struct tb_grouping *g, const char *how, const char *order,
                     char *err, size_t errlen);
void tb_grouping_free(struct tb_grouping *g);

/* Sort the N group NAMES: --group-order's first, in its order, then the
 * rest in natural order (5.4 < 5.10 < 6.1).  0, or -1 with a message in
 * ERR when --group-order names a group that is not there. */
int tb_grouping_sort(const struct tb_grouping *g, char **names, size_t n,
                     char *err, size_t errlen);

/* The group of the run at FILE, to free(); NULL with a message in ERR
 * when the path does not match or the run has no such metadata.  meta:KEY
 * is looked up in RUN when it is read already, else in RESULT's metadata
 * when it carries them (a results file of format 2), else in FILE, read
 * for it.  With several keys, their values joined by '/' ("fp64-div/50"). */
char *tb_grouping_of(const struct tb_grouping *g, const char *file, const tb_run *run,
                     const tb_result *result, char *err, size_t errlen);

#endif
