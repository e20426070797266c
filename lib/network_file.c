/*
 * network_file.c -- the network file (tb-fit --network, tb-sim --network):
 * a measured board's Foster stages as CSV, its one list of fields, its
 * writer and its reader (libcsv, as the other readers) side by side.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_row_internal.h"
#include "tbfit.h"

enum field {
    N_FILE, N_COLUMN, N_STAGE, N_R, N_R_LO, N_R_HI, N_C, N_C_LO, N_C_HI, N_TAU, N_STEP, N_IDLE,
    N_COUNT
};
static const char *const field_names[N_COUNT] = {
    "file", "column", "stage", "R_K_per_W", "R_lo", "R_hi", "C_J_per_K", "C_lo", "C_hi",
    "tau_s", "power_step_W", "idle_W",
};

static void csv_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
}

int tb_network_write_header(FILE *f)
{
    fputs("# tbkit thermal network: the Foster stages of a fitted run (R in K/W, C in J/K)\n", f);
    for (int i = 0; i < N_COUNT; i++)
        fprintf(f, "%s%s", i ? "," : "", field_names[i]);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

int tb_network_write(FILE *f, const char *file, const char *column, const tb_thermal *th,
                     const tb_fit *fit)
{
    for (size_t j = 0; j < th->n; j++) {
        tb_csv_write_string(f, file);
        fputc(',', f);
        tb_csv_write_string(f, column);
        fprintf(f, ",%zu,", j + 1);
        const tb_estimate *e[2] = {&th->foster_r[j], &th->foster_c[j]};
        for (int k = 0; k < 2; k++) {
            csv_number(f, e[k]->value);
            fputc(',', f);
            csv_number(f, e[k]->lo);
            fputc(',', f);
            csv_number(f, e[k]->hi);
            fputc(',', f);
        }
        csv_number(f, fit->tau[j].value);
        fputc(',', f);
        csv_number(f, th->power.step);
        fputc(',', f);
        csv_number(f, th->power.idle);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* --- the reader -------------------------------------------------------------- */

struct reader {
    const char *name, *want;     /* the file's name; the column asked, or NULL */
    char *err;
    size_t errlen, line;
    struct csv_row row;
    int where[N_COUNT];
    int header_done, failed;
    tb_network *net;
};

static void fail(struct reader *r, const char *fmt, const char *what)
{
    if (r->failed)
        return;
    r->failed = 1;
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(r->err, r->errlen, "%s:%zu: %s", r->name, r->line, msg);
}

static void on_cell(void *s, size_t len, void *data)
{
    struct reader *r = data;
    (void)len;
    if (!r->failed && csv_row_add(&r->row, s) < 0)
        fail(r, "%s", "out of memory");
}

static const char *cell(const struct reader *r, int f)
{
    return csv_row_cell(&r->row, r->where[f]);
}

/* Field F as a number: NaN when empty and not REQUIRED. */
static double number(struct reader *r, int f, int required)
{
    const char *s = cell(r, f);
    double x;
    if (!*s && !required)
        return NAN;
    if (tb_number_parse(s, strlen(s), &x) != TB_NUMBER_OK || !isfinite(x)) {
        fail(r, "%s is not a number", field_names[f]);
        return NAN;
    }
    return x;
}

static void on_row(int c, void *data)
{
    struct reader *r = data;
    tb_network *net = r->net;
    (void)c;
    if (r->failed)
        goto out;
    if (!r->header_done) {
        for (int f = 0; f < N_COUNT; f++) {
            r->where[f] = -1;
            for (size_t i = 0; i < r->row.n; i++)
                if (strcmp(r->row.cells[i], field_names[f]) == 0)
                    r->where[f] = (int)i;
        }
        static const int required[] = {N_COLUMN, N_STAGE, N_R, N_C};
        for (size_t k = 0; k < sizeof required / sizeof *required; k++)
            if (r->where[required[k]] < 0) {
                fail(r, "not a network file: no %s field", field_names[required[k]]);
                goto out;
            }
        r->header_done = 1;
        goto out;
    }
    const char *column = cell(r, N_COLUMN);
    if (r->want ? strcmp(column, r->want) != 0 : net->column && strcmp(column, net->column) != 0)
        goto out;   /* another column's network */
    if (!net->column && (!(net->column = strdup(column)) || !(net->file = strdup(cell(r, N_FILE))))) {
        fail(r, "%s", "out of memory");
        goto out;
    }
    double stage = number(r, N_STAGE, 1), R = number(r, N_R, 1), C = number(r, N_C, 1);
    if (r->failed)
        goto out;
    if (stage != (double)(net->n + 1) || net->n == TB_FIT_MAX_ORDER) {
        fail(r, "stage %s out of order (1, 2, ... up to 4)", cell(r, N_STAGE));
        goto out;
    }
    if (!(R > 0) || !(C > 0)) {
        fail(r, "%s", "a stage's R and C must be positive (a network that is not passive)");
        goto out;
    }
    net->r[net->n] = R;
    net->c[net->n] = C;
    net->n++;
    net->power_step = number(r, N_STEP, 0);
    net->idle = number(r, N_IDLE, 0);
out:
    csv_row_reset(&r->row);
}

int tb_network_read(const char *path, const char *column, tb_network *net, char *err,
                    size_t errlen)
{
    struct reader r = {.name = path, .want = column, .err = err, .errlen = errlen, .net = net};
    struct csv_parser p;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;

    memset(net, 0, sizeof *net);
    net->power_step = net->idle = NAN;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    csv_init(&p, CSV_STRICT | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    while (!r.failed && (len = getline(&line, &size, f)) >= 0) {
        r.line++;
        if (line[0] == '#')
            continue;
        if (line[len - 1] != '\n') {
            fail(&r, "%s", "the last row is cut short (no end of line)");
            break;
        }
        if (memchr(line, '\0', (size_t)len) ||
            (csv_parse(&p, line, (size_t)len, on_cell, on_row, &r) != (size_t)len && !r.failed))
            fail(&r, "%s", "malformed CSV");
    }
    if (!r.failed)
        csv_fini(&p, on_cell, on_row, &r);
    if (!r.failed && net->n == 0) {
        r.line = 0;
        if (column)
            snprintf(err, errlen, "%s: no network of column %s in it", path, column);
        else
            snprintf(err, errlen, "%s: no network in it", path);
        r.failed = 1;
    }
    csv_row_free(&r.row);
    csv_free(&p);
    free(line);
    fclose(f);
    if (r.failed)
        tb_network_clear(net);
    return r.failed ? -1 : 0;
}

void tb_network_clear(tb_network *net)
{
    if (!net)
        return;
    free(net->file);
    free(net->column);
    memset(net, 0, sizeof *net);
    net->power_step = net->idle = NAN;
}
