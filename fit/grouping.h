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
    const char *how;   /* "dir", "meta:KEY" or "re:REGEX" */
    regex_t re;
    int have_re;
};

/* Check HOW and compile its regex: 0, or -1 with a message in ERR. */
int tb_grouping_init(struct tb_grouping *g, const char *how, char *err, size_t errlen);
void tb_grouping_free(struct tb_grouping *g);

/* The group of the run at FILE (RUN when it is read already; meta:KEY
 * reads FILE otherwise), to free(); NULL with a message in ERR when the
 * path does not match or the run has no such metadata. */
char *tb_grouping_of(const struct tb_grouping *g, const char *file, const tb_run *run,
                     char *err, size_t errlen);

#endif
