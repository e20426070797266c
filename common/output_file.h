/*
 * output_file.h -- a file a tool writes, made whole or not at all: it is
 * written into a file of its own beside its path and renamed over it once
 * complete and synced, so that a failed run (a full disk, an error, a
 * signal) leaves the file there, or a link's target, as it was.  A path
 * that is a device, FIFO or socket (/dev/stdout, a named pipe) is written
 * as it is.  Part of
 * libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_OUTPUT_FILE_H
#define TB_OUTPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

struct tb_output_file {
    char *path;   /* where it goes */
    char *temp;   /* where it is written meanwhile */
    FILE *f;      /* write to this */
};

/* Whether PATH is written as it is rather than replaced: a device, a FIFO
 * or a socket (/dev/null, a named pipe), anything under /dev or /proc, and
 * a link into them (/dev/stdout, /dev/fd/N: the caller's file descriptors,
 * never to be replaced by a file).  (tb-record, which sees nothing of
 * libtbtools, has the same rule in record/csv_writer.c.) */
int tb_output_written_through(const char *path);

/* Start the file for PATH: 0, or -1 with "PATH: cannot write: why" in ERR. */
int tb_output_open(struct tb_output_file *o, const char *path, char *err, size_t errlen);

/* Put it in place: flushed, synced, renamed over PATH.  0, or -1 with
 * "PATH: write error: why" in ERR (and nothing put in place). */
int tb_output_commit(struct tb_output_file *o, char *err, size_t errlen);

/* Drop it: PATH is left as it was.  Safe on a zeroed or finished one. */
void tb_output_abort(struct tb_output_file *o);

#endif
