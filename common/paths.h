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

/* Input paths: files as given, directories searched for *.csv. */
struct tb_paths {
    char **v;
    size_t n;
};

/* Add ARG: a file (or "-"), or the *.csv files below a directory, sorted.
 * 0, or -1 with a message (PROG: ...) on standard error. */
int tb_paths_add(struct tb_paths *l, const char *arg, const char *prog);
void tb_paths_free(struct tb_paths *l);

/* "PROG: message" as a line of MSG. */
void tb_say(FILE *msg, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
