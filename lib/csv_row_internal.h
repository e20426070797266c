/*
 * csv_row_internal.h -- the cells of one CSV row as libcsv hands them over, for
 * the readers of small CSV files (results, networks).  Private to
 * libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_CSV_ROW_INTERNAL_H
#define TB_CSV_ROW_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

struct csv_row {
    char **cells;
    size_t n, cap;
};

/* Append a copy of S (NULL: "") to ROW: 0, or -1 when memory runs out. */
int csv_row_add(struct csv_row *row, const char *s);

/* Cell I of ROW, or "" past its end. */
const char *csv_row_cell(const struct csv_row *row, int i);

/* Forget the cells (for the next row); release everything. */
void csv_row_reset(struct csv_row *row);
void csv_row_free(struct csv_row *row);

/* X as a field of a file a reader takes back: every digit (%.17g), empty
 * when not finite; and an estimate as its three fields "value,lo,hi". */
void csv_write_number(FILE *f, double x);
void csv_write_estimate(FILE *f, const double *value, const double *lo, const double *hi);

/* The cell index of each of the N NAMES in the header ROW into WHERE (-1
 * for a name it has not). */
void csv_row_fields(const struct csv_row *row, const char *const *names, int n, int *where);

/* A small CSV file (a network, a model) read row by row: lines starting
 * with '#' skipped, libcsv in strict mode, every row (the header first)
 * handed to ON_ROW in ROW, which it need not reset. */
struct csv_file {
    const char *name;           /* the file's name in messages */
    char *err;
    size_t errlen;
    size_t line;                /* of the row being read */
    int failed;
    struct csv_row row;
    int open_end;               /* a last row without its end of line is
                                   read (a file written by hand), not
                                   taken as cut short (one written by a tool) */
    void (*on_row)(struct csv_file *f, void *ctx);
    void *ctx;
};

/* "NAME:LINE: message" into ERR, for the first failure only. */
void csv_file_fail(struct csv_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The header row: the cell of each of the N NAMES into WHERE (-1 when
 * absent); 0, or -1 failing with "not a KIND file: no NAME field" when one
 * of the NREQ fields REQUIRED (indices into NAMES) is absent. */
int csv_file_header(struct csv_file *f, const char *const *names, int n, int *where,
                    const int *required, size_t nreq, const char *kind);

/* Fail unless every cell of the header row is one of the N NAMES (a file
 * tbkit writes: a field it does not know is a slip, not to be ignored).
 * 0, or -1 failed with "unknown field 'X'". */
int csv_file_known_fields(struct csv_file *f, const char *const *names, int n);

/* Fail unless X (NaN: not given) lies from LO to HI: "NAME X is not a
 * possible UNIT (LO to HI)".  0, or -1. */
int csv_file_in_range(struct csv_file *f, double x, double lo, double hi, const char *name,
                      const char *unit);

/* The cell of field FIELD (at WHERE, -1 when absent) as a number: NaN
 * when absent, or empty and not REQUIRED; fails with "NAME is not a
 * number" otherwise. */
double csv_file_number(struct csv_file *f, int where, const char *name, int required);

/* Read the file NAME.  0, or -1 with the message in ERR (it cannot be
 * opened, a malformed row, a last row cut short, or ON_ROW's failure). */
int csv_file_read(struct csv_file *f);

#endif
