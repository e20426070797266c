/*
 * network_file.c -- the network file (tb-fit --network, tb-sim --network):
 * a measured board's Foster stages as CSV, its one list of fields, its
 * writer and its reader (libcsv, as the other readers) side by side.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

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
            csv_write_estimate(f, &e[k]->value, &e[k]->lo, &e[k]->hi);
            fputc(',', f);
        }
        csv_write_number(f, fit->tau[j].value);
        fputc(',', f);
        csv_write_number(f, th->power.step);
        fputc(',', f);
        csv_write_number(f, th->power.idle);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* --- the reader -------------------------------------------------------------- */

struct reader {
    const char *want;            /* the column asked, or NULL */
    int where[N_COUNT];
    int header_done;
    tb_network *net;
};

static const char *cell(const struct csv_file *f, const struct reader *r, int field)
{
    return csv_row_cell(&f->row, r->where[field]);
}

/* Field F as a number: NaN when absent, or empty and not REQUIRED. */
static double number(struct csv_file *f, const struct reader *r, int field, int required)
{
    return csv_file_number(f, r->where[field], field_names[field], required);
}

static void on_row(struct csv_file *f, void *ctx)
{
    struct reader *r = ctx;
    tb_network *net = r->net;
    if (!r->header_done) {
        static const int required[] = {N_COLUMN, N_STAGE, N_R, N_C};
        if (csv_file_header(f, field_names, N_COUNT, r->where, required,
                            sizeof required / sizeof *required, "network") == 0 &&
            csv_file_known_fields(f, field_names, N_COUNT) == 0)
            r->header_done = 1;
        return;
    }
    const char *column = cell(f, r, N_COLUMN);
    if (r->want ? strcmp(column, r->want) != 0 : net->column && strcmp(column, net->column) != 0)
        return;   /* another column's network */
    if (!net->column &&
        (!(net->column = strdup(column)) || !(net->file = strdup(cell(f, r, N_FILE))))) {
        csv_file_fail(f, "out of memory");
        return;
    }
    double stage = number(f, r, N_STAGE, 1), R = number(f, r, N_R, 1), C = number(f, r, N_C, 1);
    if (f->failed)
        return;
    if (stage != (double)(net->n + 1) || net->n == TB_FIT_MAX_ORDER) {
        csv_file_fail(f, "stage %s out of order (1, 2, ... up to 4)", cell(f, r, N_STAGE));
        return;
    }
    if (!(R > 0) || !(C > 0)) {
        csv_file_fail(f, "a stage's R and C must be positive (a network that is not passive)");
        return;
    }
    /* the physically possible, as for a model's gains and modes: R up to
     * 10,000 K/W, τ = RC from a millisecond to a month, steps up to 10 kW */
    double step = number(f, r, N_STEP, 0), idle = number(f, r, N_IDLE, 0);
    if (f->failed || csv_file_in_range(f, R, 1e-9, 1e4, "R_K_per_W", "thermal resistance in K/W") < 0 ||
        csv_file_in_range(f, R * C, 1e-3, 3e6, "R*C", "time constant in s") < 0 ||
        csv_file_in_range(f, step, -1e4, 1e4, field_names[N_STEP], "power in W") < 0 ||
        csv_file_in_range(f, idle, -1e4, 1e4, field_names[N_IDLE], "power in W") < 0)
        return;
    net->r[net->n] = R;
    net->c[net->n] = C;
    net->n++;
    net->power_step = number(f, r, N_STEP, 0);
    net->idle = number(f, r, N_IDLE, 0);
}

int tb_network_read(const char *path, const char *column, tb_network *net, char *err,
                    size_t errlen)
{
    struct reader r = {.want = column, .net = net};
    struct csv_file cf = {.name = path, .err = err, .errlen = errlen, .on_row = on_row, .ctx = &r};

    memset(net, 0, sizeof *net);
    net->power_step = net->idle = NAN;
    int rc = csv_file_read(&cf);
    if (rc == 0 && net->n == 0) {
        if (column)
            snprintf(err, errlen, "%s: no network of column %s in it", path, column);
        else
            snprintf(err, errlen, "%s: no network in it", path);
        rc = -1;
    }
    if (rc < 0)
        tb_network_clear(net);
    return rc;
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
