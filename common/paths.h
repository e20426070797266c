/*
 * paths.h -- the runs a host tool is given (files, "-", directories searched
 * for *.csv) and its "PROG: message" lines.  Part of libtbtools, the host
 * programs' shared code; not of libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_PATHS_H
#define TB_PATHS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Input paths: files as given, directories searched for *.csv; each file
 * and directory once, by device and inode. */
struct tb_paths {
    char **v;
    size_t n;
    struct tb_seen { dev_t dev; ino_t ino; } *seen;
    size_t nseen;
};

/* Add ARG: a file (or "-"), or the *.csv files below a directory, sorted.
 * A file or directory met again (given twice, or a link back into a tree
 * being searched) is left out, with a note: nothing is counted twice and
 * no link loop is followed.  0, or -1 with a message (PROG: ...) on
 * standard error. */
int tb_paths_add(struct tb_paths *l, const char *arg, const char *prog);
void tb_paths_free(struct tb_paths *l);

/* The length of the directory part the N NAMES share ("runs/5.4/run1"
 * and "runs/6.1/run1" share "runs/"), so that they can be shown without
 * it; 0 for fewer than two. */
size_t tb_common_dir(char *const *names, size_t n);

/* "PROG: message" as a line of MSG. */
void tb_say(FILE *msg, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
