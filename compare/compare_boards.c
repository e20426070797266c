/*
 * compare_boards.c -- the summary across boards of a farm's comparison:
 * grouped by several keys with a baseline of each (--group-by
 * meta:board,meta:kernel --baseline 6.1), a line (or a row) a board
 * saying whether it regressed, by how much and with what interval, so
 * that a CI comment over ten boards reads in ten lines, not in the
 * hundred of the tables.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "output.h"

/* One board: the leading keys its groups share ("rpi4"), and what its
 * groups' tests against its own baseline found. */
struct board {
    char *name;                       /* its groups' leading keys */
    size_t len;
    size_t base;                      /* its baseline group, or
                                         COMPARE_NO_BASELINE */
    size_t ngroups;                   /* groups compared with it */
    size_t nregressed, nchanged, ninconclusive;
    const struct compare_test *largest;   /* its largest T∞ change tested */
};

/* Whether GROUP is of board X. */
static int on_board(const struct board *x, const char *group)
{
    return compare_leading_keys(group) == x->len && strncmp(x->name, group, x->len) == 0;
}

static void boards_free(struct board *b, size_t nb)
{
    for (size_t i = 0; b && i < nb; i++)
        free(b[i].name);
    free(b);
}

static struct board *board_of(struct board *b, size_t nb, const char *group)
{
    for (size_t i = 0; i < nb; i++)
        if (on_board(&b[i], group))
            return &b[i];
    return NULL;
}

/* The boards of T in the groups' order, into B (T->ngroups long); their
 * number, or (size_t)-1 out of memory (boards_free() B either way). */
static size_t collect_boards(const struct compare_table *t, struct board *b)
{
    size_t nb = 0;
    for (size_t g = 0; g < t->ngroups; g++) {
        struct board *x = board_of(b, nb, t->groups[g]);
        if (!x) {
            size_t len = compare_leading_keys(t->groups[g]);
            x = &b[nb++];
            *x = (struct board){.name = strndup(t->groups[g], len), .len = len,
                                .base = COMPARE_NO_BASELINE};
            if (!x->name)
                return (size_t)-1;
        }
        if (t->baseline_of[g] == g)
            x->base = g;
        else
            x->ngroups++;
    }
    for (size_t i = 0; i < t->ntests; i++) {
        const struct compare_test *k = &t->tests[i];
        struct board *x = board_of(b, nb, t->groups[k->group]);
        x->ninconclusive += k->inconclusive;
        x->nregressed += k->regression && strcmp(k->verdict, "regression") == 0;
        x->nchanged += k->regression && strcmp(k->verdict, "changed") == 0;
        if (k->metric == M_TINF && !k->inconclusive &&
            (!x->largest || fabs(k->w.diff) > fabs(x->largest->w.diff)))
            x->largest = k;
    }
    return nb;
}

static const char *board_verdict(const struct board *x)
{
    return x->nregressed ? "regression" : x->nchanged ? "changed"
         : x->ninconclusive || x->base == COMPARE_NO_BASELINE ? "inconclusive" : "no regression";
}

/* "6.6: CPU_0_temp T∞ +0.80 °C [+0.78, +0.82]": test K named by its
 * group's last key, as a board's line says it; without the metric's name
 * with BARE. */
static void print_test(FILE *f, const struct compare_table *t, const struct compare_test *k, int bare)
{
    char buf[32], change[200];
    const char *g = t->groups[k->group];
    size_t len = compare_leading_keys(g);
    fprintf(f, "%s: %s ", g + len + (g[len] == '/'), t->columns[k->column]);
    if (k->inconclusive) {
        size_t base = t->baseline_of[k->group];
        fprintf(f, "not tested (%zu and %zu sound fits; %d needed)",
                base == COMPARE_NO_BASELINE ? 0 : compare_cell_at(t, k->column, base, M_TINF)->n,
                compare_cell_at(t, k->column, k->group, M_TINF)->n, COMPARE_MIN_FITS);
        return;
    }
    compare_change_text(k, change, sizeof change);
    if (!bare)
        fprintf(f, "%s ", compare_metric_label(k->metric, 1, buf, sizeof buf));
    fputs(change, f);
}

/* What board X's line says after its verdict: each regression or change
 * and each test that could not be made; else its largest T∞ change. */
static void print_details(FILE *f, const struct compare_settings *s, const struct compare_table *t,
                          const struct board *x)
{
    int any = 0;
    if (x->base == COMPARE_NO_BASELINE) {
        fprintf(f, "no %s to compare with", s->baseline);
        return;
    }
    for (size_t i = 0; i < t->ntests; i++) {
        const struct compare_test *k = &t->tests[i];
        if ((k->regression || k->inconclusive) && on_board(x, t->groups[k->group])) {
            fputs(any++ ? "; " : "", f);
            print_test(f, t, k, 0);
        }
    }
    if (!any && x->largest) {
        fputs("largest T∞ change ", f);
        print_test(f, t, x->largest, 1);
    }
}

/* The leading keys of --group-by, for a heading: "meta:board" of
 * "meta:board,meta:kernel". */
static int keys_len(const struct compare_settings *s)
{
    const char *comma = strrchr(s->group_by, ',');
    return comma ? (int)(comma - s->group_by) : (int)strlen(s->group_by);
}

/* The boards of T, or NULL with *NB 0: one baseline for all groups (no
 * boards to summarise), or out of memory (*NB 1). */
static struct board *boards(const struct compare_table *t, size_t *nb)
{
    struct board *b = NULL;
    *nb = 0;
    if (t->baseline_label && !(b = calloc(t->ngroups, sizeof *b)))
        *nb = 1;
    if (b && (*nb = collect_boards(t, b)) == (size_t)-1) {
        boards_free(b, t->ngroups);
        b = NULL;
        *nb = 1;
    }
    return b;
}

int compare_boards_text(const struct compare_settings *s, const struct compare_table *t)
{
    size_t nb, wb = 0;
    struct board *b = boards(t, &nb);
    if (!b)
        return nb ? -1 : 0;
    for (size_t i = 0; i < nb; i++)
        if (tb_display_width(b[i].name) > wb)
            wb = tb_display_width(b[i].name);
    printf("\nacross %.*s, each against its own %s:\n", keys_len(s), s->group_by, s->baseline);
    for (size_t i = 0; i < nb; i++) {
        const char *v = board_verdict(&b[i]);
        printf("  ");
        tb_print_left(stdout, b[i].name, wb);
        printf("  ");
        tb_print_left(stdout, strcmp(v, "regression") == 0 ? "REGRESSION" : strcmp(v, "changed") == 0 ? "CHANGED"
                              : strcmp(v, "inconclusive") == 0 ? "INCONCLUSIVE" : v, 13);
        printf("  ");
        print_details(stdout, s, t, &b[i]);
        putchar('\n');
    }
    boards_free(b, nb);
    return 0;
}

int compare_boards_markdown(const struct compare_settings *s, const struct compare_table *t)
{
    size_t nb;
    struct board *b = boards(t, &nb);
    if (!b)
        return nb ? -1 : 0;
    printf("| %.*s | compared with its %s | verdict | what |\n|---|---|---|---|\n", keys_len(s),
           s->group_by, s->baseline);
    for (size_t i = 0; i < nb; i++) {
        const char *v = board_verdict(&b[i]);
        printf("| %s |", b[i].name);
        for (size_t g = 0, n = 0; g < t->ngroups; g++)   /* its groups' last keys */
            if (g != b[i].base && on_board(&b[i], t->groups[g]))
                printf("%s%s", n++ ? ", " : " ", t->groups[g] + b[i].len + 1);
        printf(" | %s%s%s | ", strcmp(v, "no regression") ? "**" : "", v,
               strcmp(v, "no regression") ? "**" : "");
        print_details(stdout, s, t, &b[i]);
        puts(" |");
    }
    putchar('\n');
    boards_free(b, nb);
    return 0;
}

int compare_boards_json(const struct compare_table *t)
{
    size_t nb;
    struct board *b = boards(t, &nb);
    if (!b)
        return nb ? -1 : 0;
    printf(",\n \"boards\": [");
    for (size_t i = 0; i < nb; i++) {
        printf("%s\n  {\"board\": ", i ? "," : "");
        tb_json_string(stdout, b[i].name);
        printf(", \"baseline\": ");
        if (b[i].base == COMPARE_NO_BASELINE)
            printf("null");
        else
            tb_json_string(stdout, t->groups[b[i].base]);
        printf(", \"groups\": %zu, \"verdict\": \"%s\", \"regressions\": %zu, \"changed\": %zu, "
               "\"inconclusive\": %zu, \"largest_tinf_change\": ", b[i].ngroups, board_verdict(&b[i]),
               b[i].nregressed, b[i].nchanged, b[i].ninconclusive);
        const struct compare_test *k = b[i].largest;
        if (!k) {
            printf("null}");
            continue;
        }
        printf("{\"group\": ");
        tb_json_string(stdout, t->groups[k->group]);
        printf(", \"column\": ");
        tb_json_string(stdout, t->columns[k->column]);
        printf(", \"diff\": ");
        tb_json_number(stdout, k->w.diff);
        printf(", \"lo\": ");
        tb_json_number(stdout, k->w.lo);
        printf(", \"hi\": ");
        tb_json_number(stdout, k->w.hi);
        printf("}}");
    }
    putchar(']');
    boards_free(b, nb);
    return 0;
}
