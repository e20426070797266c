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

#endif
