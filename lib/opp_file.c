/*
 * opp_file.c -- the operating-point table (tb-sim's --opp): a cooling
 * device's power and work rate at each frequency, as CSV; its one list of
 * fields, its writer and its reader (libcsv) side by side.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_row_internal.h"
#include "tbfit.h"

enum field { O_DEVICE, O_CPUS, O_KHZ, O_P, O_P_LO, O_P_HI, O_OPS, O_OPS_LO, O_OPS_HI, O_RUNS, O_COUNT };
static const char *const field_names[O_COUNT] = {
    "device", "cpus", "khz", "power_W", "power_lo", "power_hi", "ops_per_s", "ops_lo", "ops_hi", "runs",
};

int tb_opp_table_write_header(FILE *f)
{
    fputs("# tbkit operating points: a cooling device's CPUs all busy at each frequency, the power "
          "they draw above idle (W) and their work rate (operations/s)\n", f);
    for (int i = 0; i < O_COUNT; i++)
        fprintf(f, "%s%s", i ? "," : "", field_names[i]);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

int tb_opp_table_write(FILE *f, const tb_opp_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        tb_csv_write_string(f, t->device ? t->device : "cpu");
        fprintf(f, ",%d,%.0f,", t->cpus, t->opp[i].khz);
        csv_write_estimate(f, &t->power[i].value, &t->power[i].lo, &t->power[i].hi);
        fputc(',', f);
        csv_write_estimate(f, &t->ops[i].value, &t->ops[i].lo, &t->ops[i].hi);
        fputc(',', f);
        csv_write_number(f, t->runs[i]);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

struct reader {
    const char *want;    /* the one device read, or NULL: each in turn */
    int where[O_COUNT];
    int header_done;
    tb_opp_table *t;     /* room for MAX devices' tables, N of them read */
    size_t max, n;
};

/* The table of DEVICE's rows: one read, a new one, or NULL (skipped). */
static tb_opp_table *table_of(struct csv_file *f, struct reader *r, const char *device)
{
    if (r->want && strcmp(device, r->want) != 0)
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->t[i].device, device) == 0)
            return &r->t[i];
    if (r->n == r->max) {
        if (r->max > 1)   /* (one table wanted: the first device's) */
            csv_file_fail(f, "device %s: at most %zu devices", device, r->max);
        return NULL;
    }
    tb_opp_table *t = &r->t[r->n];
    if (!(t->device = strdup(device))) {
        csv_file_fail(f, "out of memory");
        return NULL;
    }
    r->n++;
    return t;
}

static double number(struct csv_file *f, const struct reader *r, int field, int required)
{
    return csv_file_number(f, r->where[field], field_names[field], required);
}

static void on_row(struct csv_file *f, void *ctx)
{
    struct reader *r = ctx;
    if (!r->header_done) {
        static const int required[] = {O_CPUS, O_KHZ, O_P, O_OPS};
        if (csv_file_header(f, field_names, O_COUNT, r->where, required,
                            sizeof required / sizeof *required, "operating-point") == 0 &&
            csv_file_known_fields(f, field_names, O_COUNT) == 0)
            r->header_done = 1;
        return;
    }
    tb_opp_table *t = table_of(f, r, csv_row_cell(&f->row, r->where[O_DEVICE]));
    if (!t)
        return;   /* another device's table */
    double cpus = number(f, r, O_CPUS, 1), khz = number(f, r, O_KHZ, 1);
    tb_estimate p = {number(f, r, O_P, 1), number(f, r, O_P_LO, 0), number(f, r, O_P_HI, 0)};
    tb_estimate o = {number(f, r, O_OPS, 1), number(f, r, O_OPS_LO, 0), number(f, r, O_OPS_HI, 0)};
    double runs = number(f, r, O_RUNS, 0);
    if (f->failed || csv_file_in_range(f, cpus, 1, 1024, "cpus", "CPU count") < 0 ||
        csv_file_in_range(f, khz, 1, 1e8, "khz", "frequency in kHz") < 0 ||
        csv_file_in_range(f, p.value, 1e-6, 1e4, "power_W", "power in W") < 0 ||
        csv_file_in_range(f, o.value, 0, 1e18, "ops_per_s", "work rate") < 0)
        return;
    if (cpus != floor(cpus) || (t->n > 0 && (int)cpus != t->cpus)) {
        csv_file_fail(f, "cpus %g: a device's rows all name its one CPU count", cpus);
        return;
    }
    if (t->n == TB_OPP_MAX || (t->n > 0 && !(khz > t->opp[t->n - 1].khz))) {
        csv_file_fail(f, "khz %g: a row per frequency, rising (up to %d)", khz, TB_OPP_MAX);
        return;
    }
    t->cpus = (int)cpus;
    t->opp[t->n] = (tb_opp){khz, p.value / cpus, o.value / cpus};
    t->power[t->n] = p;
    t->ops[t->n] = o;
    t->runs[t->n] = runs;
    t->n++;
}

int tb_opp_table_read(const char *path, const char *device, tb_opp_table *t, char *err,
                      size_t errlen)
{
    struct reader r = {.want = device, .t = t, .max = 1};
    struct csv_file cf = {.name = path, .err = err, .errlen = errlen, .on_row = on_row, .ctx = &r};
    memset(t, 0, sizeof *t);
    int rc = csv_file_read(&cf);
    if (rc == 0 && t->n == 0) {
        snprintf(err, errlen, "%s: no operating point%s%s in it", path, device ? " of device " : "",
                 device ? device : "");
        rc = -1;
    }
    if (rc < 0)
        tb_opp_table_clear(t);
    return rc;
}

ssize_t tb_opp_table_read_all(const char *path, tb_opp_table *t, size_t max, char *err,
                              size_t errlen)
{
    struct reader r = {.t = t, .max = max};
    struct csv_file cf = {.name = path, .err = err, .errlen = errlen, .on_row = on_row, .ctx = &r};
    memset(t, 0, max * sizeof *t);
    int rc = csv_file_read(&cf);
    if (rc == 0 && r.n == 0) {
        snprintf(err, errlen, "%s: no operating point in it", path);
        rc = -1;
    }
    if (rc < 0) {
        for (size_t i = 0; i < max; i++)
            tb_opp_table_clear(&t[i]);
        return -1;
    }
    return (ssize_t)r.n;
}

void tb_opp_table_clear(tb_opp_table *t)
{
    if (!t)
        return;
    free(t->device);
    memset(t, 0, sizeof *t);
}
