/*
 * csv_writer.h -- the run file in the thermobench format.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_CSV_WRITER_H
#define TB_RECORD_CSV_WRITER_H

#include <stdio.h>

struct csv_writer {
    FILE *f;
    const char *path;
    int is_stdout;
    char *row;          /* the row being built */
    size_t len, cap;
    size_t ncols;       /* columns after time */
};

/* Open PATH ("-": standard output); 0, or -1 with a message in ERR. */
int csvw_open(struct csv_writer *w, const char *path, char *err, size_t errlen);

/* The "# Started at" line, "# key: value" metadata (host, kernel,
 * machine, period_ms) and the header. */
int csvw_preamble(struct csv_writer *w, int argc, char **argv, double period_ms,
                  const char *const *headers, size_t ncols);

/* Write one row: the time in ms and VALUES[i] for the columns FROM to
 * FROM + N - 1 (NULL leaves a cell empty); trailing empty cells are left
 * out, as thermobench does.  Each row is flushed, so a killed recorder
 * loses nothing it has sampled.  0, or -1 (errno says why). */
int csvw_row(struct csv_writer *w, double t_ms, size_t from,
             const char *const *values, size_t n);

/* Close; 0, or -1 when data could not be written (errno says why). */
int csvw_close(struct csv_writer *w);

#endif
