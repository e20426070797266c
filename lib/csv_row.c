/*
 * csv_row.c -- the cells of one CSV row (see csv_row_internal.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "csv_row_internal.h"

int csv_row_add(struct csv_row *row, const char *s)
{
    if (row->n == row->cap) {
        size_t cap = row->cap ? 2 * row->cap : 32;
        char **nc = realloc(row->cells, cap * sizeof *nc);
        if (!nc)
            return -1;
        row->cells = nc;
        row->cap = cap;
    }
    char *cell = strdup(s ? s : "");
    if (!cell)
        return -1;
    row->cells[row->n++] = cell;
    return 0;
}

const char *csv_row_cell(const struct csv_row *row, int i)
{
    return i >= 0 && (size_t)i < row->n ? row->cells[i] : "";
}

void csv_row_reset(struct csv_row *row)
{
    for (size_t i = 0; i < row->n; i++)
        free(row->cells[i]);
    row->n = 0;
}

void csv_row_free(struct csv_row *row)
{
    csv_row_reset(row);
    free(row->cells);
    row->cells = NULL;
    row->cap = 0;
}
