/*
 * closest_name.c -- "did you mean": the known name nearest to a mistyped
 * one, for the messages about an unknown column, option or figure.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

/* Edits (insert, delete, replace, swap of neighbours) from A to B, or
 * LIMIT + 1 once it is clear there are more than LIMIT. */
static size_t edits(const char *a, const char *b, size_t limit)
{
    size_t na = strlen(a), nb = strlen(b);
    if ((na > nb ? na - nb : nb - na) > limit)
        return limit + 1;
    size_t *row = malloc(3 * (nb + 1) * sizeof *row);
    if (!row)
        return limit + 1;
    size_t *prev2 = row, *prev = row + nb + 1, *cur = row + 2 * (nb + 1);
    for (size_t j = 0; j <= nb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = prev[j - 1] + cost;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
            if (v < best)
                best = v;
        }
        if (best > limit) {
            free(row);
            return limit + 1;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[nb];
    free(row);
    return d;
}

const char *tb_closest_name(const char *word, const char *const *names, size_t n)
{
    /* a slip, not another word: a third of its letters at most */
    size_t len = strlen(word), limit = len < 3 ? 0 : len < 6 ? 1 : len / 3;
    const char *best = NULL;
    size_t best_d = limit + 1;
    int tie = 0;
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || strcmp(names[i], word) == 0)
            continue;
        size_t d = edits(word, names[i], limit);
        if (d < best_d) {
            best = names[i];
            best_d = d;
            tie = 0;
        } else if (d == best_d && best && strcmp(best, names[i]) != 0) {
            tie = 1;
        }
    }
    return best && best_d <= limit && !tie ? best : NULL;
}
