/*
 * ident_file.c -- the identified model's file (tb-ident -o, tb-sim
 * --model): one row per sensor, input and mode with the mode's τ and the
 * gain through it, as CSV; its one list of fields, its writer and its
 * reader (libcsv, as the other readers) side by side.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_row_internal.h"
#include "ident_internal.h"
#include "tbfit.h"

enum field { F_SENSOR, F_INPUT, F_MODE, F_TAU, F_TAU_LO, F_TAU_HI, F_GAIN, F_GAIN_LO, F_GAIN_HI,
             F_STEADY, F_STEADY_LO, F_STEADY_HI, F_REST, F_ABOVE, F_RMSE, F_AVERAGED, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "sensor", "input", "mode", "tau_s", "tau_lo", "tau_hi", "gain_K_per_W", "gain_lo", "gain_hi",
    "steady_K_per_W", "steady_lo", "steady_hi", "rest_C", "above_ambient", "rmse_C",
    "input_averaged",
};

int tb_ident_model_write(FILE *f, const tb_ident_model *m)
{
    fputs("# tbkit identified model: T_sensor = rest (+ T_ambient when above_ambient) + the sum "
          "over inputs and modes of gain * (the input through the mode of time constant tau); "
          "gains in K/W (per unit of the input), tau in s\n", f);
    for (int i = 0; i < F_COUNT; i++)
        fprintf(f, "%s%s", i ? "," : "", field_names[i]);
    fputc('\n', f);
    for (size_t i = 0; i < m->nsensors; i++)
        for (size_t u = 0; u < m->ninputs; u++)
            for (size_t j = 0; j < m->nmodes; j++) {
                const tb_estimate *g = &m->gain[(i * m->ninputs + u) * m->nmodes + j];
                tb_csv_write_string(f, m->sensors[i]);
                fputc(',', f);
                tb_csv_write_string(f, m->inputs[u]);
                fprintf(f, ",%zu,", j + 1);
                const tb_estimate *e[3] = {&m->tau[j], g, &m->steady[i * m->ninputs + u]};
                for (int k = 0; k < 3; k++) {
                    csv_write_estimate(f, &e[k]->value, &e[k]->lo, &e[k]->hi);
                    fputc(',', f);
                }
                csv_write_number(f, m->rest[i]);
                fprintf(f, ",%d,", m->above_ambient);
                csv_write_number(f, m->rmse[i]);
                fprintf(f, ",%d\n", (m->averaged >> u) & 1);
            }
    return ferror(f) ? -1 : 0;
}

/* --- the reader -------------------------------------------------------------- */

struct entry {
    size_t line;   /* in the file, for messages */
    size_t sensor, input, mode;
    double tau[3], gain[3], steady_value, steady[2], rest, above, rmse, averaged;
};

struct reader {
    int where[F_COUNT];
    int header_done;
    char *names[2][TB_IDENT_MAX_SENSORS];   /* sensors, inputs */
    size_t nnames[2];
    struct entry *e;
    size_t n, cap;
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

/* The index of NAME among the sensors (K 0) or inputs (K 1), added when
 * new; or SIZE_MAX when there are too many. */
static size_t name_index(struct reader *r, int k, const char *name)
{
    size_t max = k ? TB_IDENT_MAX_INPUTS : TB_IDENT_MAX_SENSORS;
    for (size_t i = 0; i < r->nnames[k]; i++)
        if (strcmp(r->names[k][i], name) == 0)
            return i;
    if (r->nnames[k] == max || !*name)
        return (size_t)-1;
    if (!(r->names[k][r->nnames[k]] = strdup(name)))
        return (size_t)-1;
    return r->nnames[k]++;
}

/* The bounds of the physically possible for a model's numbers: a board's
 * modes from a millisecond to a month, gains up to 10,000 K/W (a milliwatt
 * heating a sensor by 10 K), temperatures from absolute zero to 1000 °C.
 * Past them a number is a slip or an attack, and would give a peak of 300
 * digits or inf cells downstream. */
#define MODEL_TAU_MIN 1e-3
#define MODEL_TAU_MAX 3e6
#define MODEL_GAIN_MAX 1e4
#define MODEL_TEMP_MAX 1000.0

/* Whether E's numbers are possible; fails F (naming the field) when not. */
static int entry_possible(struct csv_file *f, const struct entry *e)
{
    int ok = 1;
    for (int k = 0; k < 3 && ok; k++)
        ok = csv_file_in_range(f, e->tau[k], MODEL_TAU_MIN, MODEL_TAU_MAX, field_names[F_TAU + k],
                               "time constant in s") == 0 &&
             csv_file_in_range(f, e->gain[k], -MODEL_GAIN_MAX, MODEL_GAIN_MAX,
                               field_names[F_GAIN + k], "gain in K/W") == 0;
    for (int k = 0; k < 2 && ok; k++)
        ok = csv_file_in_range(f, e->steady[k], -TB_IDENT_MAX_MODES * MODEL_GAIN_MAX,
                               TB_IDENT_MAX_MODES * MODEL_GAIN_MAX, field_names[F_STEADY_LO + k],
                               "gain in K/W") == 0;
    return ok && csv_file_in_range(f, e->rest, -273.15, MODEL_TEMP_MAX, "rest_C", "temperature in °C") == 0 &&
           csv_file_in_range(f, e->rmse, 0, MODEL_TEMP_MAX, "rmse_C", "error in °C") == 0;
}

static void on_row(struct csv_file *f, void *ctx)
{
    struct reader *r = ctx;
    if (!r->header_done) {
        static const int required[] = {F_SENSOR, F_INPUT, F_MODE, F_TAU, F_GAIN};
        if (csv_file_header(f, field_names, F_COUNT, r->where, required,
                            sizeof required / sizeof *required, "model") == 0 &&
            csv_file_known_fields(f, field_names, F_COUNT) == 0)
            r->header_done = 1;
        return;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct entry *e = realloc(r->e, cap * sizeof *e);
        if (!e) {
            csv_file_fail(f, "out of memory");
            return;
        }
        r->e = e;
        r->cap = cap;
    }
    struct entry *e = &r->e[r->n];
    e->line = f->line;
    e->sensor = name_index(r, 0, cell(f, r, F_SENSOR));
    e->input = name_index(r, 1, cell(f, r, F_INPUT));
    if (e->sensor == (size_t)-1 || e->input == (size_t)-1) {
        csv_file_fail(f, "an empty name, or more than %d sensors or %d inputs",
                      TB_IDENT_MAX_SENSORS, TB_IDENT_MAX_INPUTS);
        return;
    }
    double mode = number(f, r, F_MODE, 1);
    for (int k = 0; k < 3; k++) {
        e->tau[k] = number(f, r, F_TAU + k, k == 0);
        e->gain[k] = number(f, r, F_GAIN + k, k == 0);
    }
    e->steady_value = number(f, r, F_STEADY, 0);
    e->steady[0] = number(f, r, F_STEADY_LO, 0);
    e->steady[1] = number(f, r, F_STEADY_HI, 0);
    e->rest = number(f, r, F_REST, 0);
    e->above = number(f, r, F_ABOVE, 0);
    e->rmse = number(f, r, F_RMSE, 0);
    e->averaged = number(f, r, F_AVERAGED, 0);
    if (f->failed || !entry_possible(f, e))
        return;
    if (!(isnan(e->above) || e->above == 0 || e->above == 1))
        csv_file_fail(f, "above_ambient %s is not 0 or 1", cell(f, r, F_ABOVE));
    else if (!(isnan(e->averaged) || e->averaged == 0 || e->averaged == 1))
        csv_file_fail(f, "input_averaged %s is not 0 or 1", cell(f, r, F_AVERAGED));
    else if (!(mode >= 1 && mode <= TB_IDENT_MAX_MODES && mode == floor(mode)))
        csv_file_fail(f, "mode %s is not 1 to %d", cell(f, r, F_MODE), TB_IDENT_MAX_MODES);
    else if (!(e->tau[0] > 0))
        csv_file_fail(f, "tau_s %s is not positive", cell(f, r, F_TAU));
    else if (!(e->gain[0] >= 0))
        csv_file_fail(f, "gain_K_per_W %s is negative: heat only heats", cell(f, r, F_GAIN));
    else {
        e->mode = (size_t)mode - 1;
        r->n++;
    }
}

/* Every sensor × input × mode given (SEEN), the modes' τ ascending.  0,
 * or -1 with the message. */
static int check_modes(struct csv_file *f, const tb_ident_model *m, const char *seen)
{
    size_t ns = m->nsensors, nu = m->ninputs, nm = m->nmodes;
    for (size_t i = 0; i < ns; i++)
        for (size_t u = 0; u < nu; u++)
            for (size_t j = 0; j < nm; j++)
                if (!seen[(i * nu + u) * nm + j]) {
                    snprintf(f->err, f->errlen, "%s: no gain for sensor %s, input %s, mode %zu",
                             f->name, m->sensors[i], m->inputs[u], j + 1);
                    return -1;
                }
    for (size_t j = 1; j < nm; j++)
        if (!(m->tau[j].value > m->tau[j - 1].value)) {
            snprintf(f->err, f->errlen, "%s: the modes' time constants must rise (mode %zu: %g s "
                     "after %g s)", f->name, j + 1, m->tau[j].value, m->tau[j - 1].value);
            return -1;
        }
    return 0;
}

/* Each steady-state gain, the sum of its modes' gains.  steady_K_per_W,
 * where given, is that sum as the writer wrote it: another number is an
 * edit that says otherwise.  0, or -1 with the message. */
static int steady_gains(const struct reader *r, struct csv_file *f, tb_ident_model *m)
{
    size_t ns = m->nsensors, nu = m->ninputs, nm = m->nmodes;
    for (size_t i = 0; i < ns; i++)
        for (size_t u = 0; u < nu; u++) {
            double s = 0;
            for (size_t j = 0; j < nm; j++)
                s += m->gain[(i * nu + u) * nm + j].value;
            m->steady[i * nu + u].value = s;
        }
    for (size_t k = 0; k < r->n; k++) {
        const struct entry *e = &r->e[k];
        double s = m->steady[e->sensor * nu + e->input].value;
        if (!isnan(e->steady_value) && fabs(e->steady_value - s) > 1e-6 * fmax(1, fabs(s))) {
            snprintf(f->err, f->errlen, "%s:%zu: steady_K_per_W %g is not the sum of the gains of "
                     "sensor %s, input %s (%g)", f->name, e->line, e->steady_value,
                     m->sensors[e->sensor], m->inputs[e->input], s);
            return -1;
        }
    }
    return 0;
}

/* The rows into a model: every sensor × input × mode once, one τ per mode,
 * ascending.  0, or -1 with the message. */
static int assemble(struct reader *r, struct csv_file *f, tb_ident_model *m)
{
    size_t ns = r->nnames[0], nu = r->nnames[1], nm = 0;
    for (size_t k = 0; k < r->n; k++)
        if (r->e[k].mode + 1 > nm)
            nm = r->e[k].mode + 1;
    if (r->n == 0) {
        snprintf(f->err, f->errlen, "%s: no model in it", f->name);
        return -1;
    }
    if (ident_model_alloc(m, nu, ns, nm, (const char *const *)r->names[1],
                          (const char *const *)r->names[0]) < 0) {
        snprintf(f->err, f->errlen, "%s: out of memory", f->name);
        return -1;
    }
    char *seen = calloc(ns * nu * nm, 1);
    if (!seen) {
        snprintf(f->err, f->errlen, "%s: out of memory", f->name);
        return -1;
    }
    int rc = -1;
    double above = NAN;   /* the file's: every row that gives it, the same */
    const struct entry *first[TB_IDENT_MAX_SENSORS] = {0};   /* each sensor's first row */
    const struct entry *first_of_input[TB_IDENT_MAX_INPUTS] = {0};
    for (size_t k = 0; k < r->n; k++) {
        const struct entry *e = &r->e[k];
        size_t at = (e->sensor * nu + e->input) * nm + e->mode;
        if (seen[at]++) {
            snprintf(f->err, f->errlen, "%s:%zu: sensor %s, input %s, mode %zu given twice",
                     f->name, e->line, m->sensors[e->sensor], m->inputs[e->input], e->mode + 1);
            goto out;
        }
        if (isnan(m->tau[e->mode].value)) {
            m->tau[e->mode].value = e->tau[0];
            m->tau[e->mode].lo = e->tau[1];
            m->tau[e->mode].hi = e->tau[2];
        } else if (fabs(m->tau[e->mode].value - e->tau[0]) > 1e-9 * e->tau[0]) {
            snprintf(f->err, f->errlen, "%s:%zu: mode %zu has two time constants (%g and %g s); "
                     "the modes are shared", f->name, e->line, e->mode + 1,
                     m->tau[e->mode].value, e->tau[0]);
            goto out;
        }
        /* a sensor's rest and the file's above_ambient are on each of its
         * rows: they must agree */
        const struct entry *o = first[e->sensor];
        if (!o)
            first[e->sensor] = e;
        else if (!(o->rest == e->rest || (isnan(o->rest) && isnan(e->rest)))) {
            snprintf(f->err, f->errlen, "%s:%zu: sensor %s at rest at %g °C, and at %g °C on "
                     "line %zu", f->name, e->line, m->sensors[e->sensor], e->rest, o->rest,
                     o->line);
            goto out;
        }
        if (!isnan(e->above) && !isnan(above) && e->above != above) {
            snprintf(f->err, f->errlen, "%s:%zu: above_ambient %g, and %g on an earlier row",
                     f->name, e->line, e->above, above);
            goto out;
        }
        if (!isnan(e->above))
            above = e->above;
        /* an input's timing, the same on each of its rows */
        const struct entry *oi = first_of_input[e->input];
        if (!oi)
            first_of_input[e->input] = e;
        else if (!(oi->averaged == e->averaged || (isnan(oi->averaged) && isnan(e->averaged)))) {
            snprintf(f->err, f->errlen, "%s:%zu: input %s is input_averaged %g, and %g on line %zu",
                     f->name, e->line, m->inputs[e->input], e->averaged, oi->averaged, oi->line);
            goto out;
        }
        if (e->averaged == 1)
            m->averaged |= 1u << e->input;
        m->rest[e->sensor] = isnan(e->rest) ? 0 : e->rest;
        m->above_ambient = above == 1;
        m->rmse[e->sensor] = e->rmse;
        m->steady[e->sensor * nu + e->input].lo = e->steady[0];
        m->steady[e->sensor * nu + e->input].hi = e->steady[1];
        m->gain[at].value = e->gain[0];
        m->gain[at].lo = e->gain[1];
        m->gain[at].hi = e->gain[2];
    }
    rc = check_modes(f, m, seen) < 0 || steady_gains(r, f, m) < 0 ? -1 : 0;
out:
    free(seen);
    return rc;
}

int tb_ident_model_read(const char *path, tb_ident_model *m, char *err, size_t errlen)
{
    struct reader r = {.header_done = 0};
    struct csv_file cf = {.name = path, .err = err, .errlen = errlen, .on_row = on_row, .ctx = &r};

    memset(m, 0, sizeof *m);
    int rc = csv_file_read(&cf);
    if (rc == 0)
        rc = assemble(&r, &cf, m);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < r.nnames[k]; i++)
            free(r.names[k][i]);
    free(r.e);
    if (rc < 0)
        tb_ident_model_clear(m);
    return rc;
}
