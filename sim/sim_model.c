/*
 * sim_model.c -- tb-sim driving an identified model (tb-ident's model
 * file): input profiles, a run of every sensor, and schedules' periodic
 * steady states ranked by their peak.  The model's step and its periodic
 * solution are libtbfit's (tb_ident_advance, tb_ident_periodic).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exit_status.h"
#include "output_file.h"
#include "sim_model.h"

/* --- input profiles ----------------------------------------------------- */

double sim_ar_noise(double last, double ar, double sd, gsl_rng *rng)
{
    if (isnan(last))   /* the first: drawn from the stationary distribution */
        return gsl_ran_gaussian(rng, sd);
    return ar * last + gsl_ran_gaussian(rng, sd) * sqrt(1 - ar * ar);
}

int sim_read_profile_csv(const char *path, double **t, double **v, size_t *n, char *err,
                         size_t errlen)
{
    tb_profile p;
    *t = *v = NULL;
    *n = 0;
    if (tb_profile_read(path, &p, err, errlen) < 0)
        return -1;
    if (p.ncols != 1) {
        snprintf(err, errlen, "%s: %zu columns after the time: a profile is \"time_s,value\"",
                 path, p.ncols);
        tb_profile_free(&p);
        return -1;
    }
    *t = p.t;
    *v = p.v;
    *n = p.n;
    p.t = p.v = NULL;
    tb_profile_free(&p);
    return 0;
}

int input_profile_parse(struct input_profile *p, const char *spec, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->spec = spec;
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec) {
        snprintf(err, errlen, "--input wants NAME=PROFILE (VALUE, prbs:LOW,HIGH,BIT or csv:FILE), "
                 "not '%s'", spec);
        return -1;
    }
    const char *prof = eq + 1;
    if (strncmp(prof, "csv:", 4) == 0) {
        p->kind = PROFILE_CSV;
        return sim_read_profile_csv(prof + 4, &p->t, &p->v, &p->n, err, errlen);
    }
    if (strncmp(prof, "prbs:", 5) == 0) {
        char buf[128];
        double bit;
        snprintf(buf, sizeof buf, "%s", prof + 5);
        char *c1 = strchr(buf, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (c1)
            *c1 = '\0';
        if (c2)
            *c2 = '\0';
        if (!c2 || tb_cli_quantity_or_number(buf, "W", &p->low) < 0 ||
            tb_cli_quantity_or_number(c1 + 1, "W", &p->high) < 0 ||
            tb_parse_duration(c2 + 1, &bit) < 0 || !(bit > 0)) {
            snprintf(err, errlen, "--input %s: prbs wants LOW,HIGH,BIT (prbs:0.5,4,30s)", spec);
            return -1;
        }
        p->kind = PROFILE_PRBS;
        p->bit = bit;
    } else {
        p->kind = PROFILE_CONSTANT;
        if (tb_cli_quantity_or_number(prof, "W", &p->value) < 0) {
            snprintf(err, errlen, "--input %s: '%s' is not a value, prbs:LOW,HIGH,BIT or "
                     "csv:FILE", spec, prof);
            return -1;
        }
    }
    if (!(fabs(p->value) <= TB_POWER_MAX && fabs(p->low) <= TB_POWER_MAX &&
          fabs(p->high) <= TB_POWER_MAX)) {
        snprintf(err, errlen, "--input %s: beyond ±%g W", spec, TB_POWER_MAX);
        return -1;
    }
    return 0;
}

void input_profile_free(struct input_profile *p)
{
    free(p->t);
    free(p->v);
    p->t = p->v = NULL;
}

void model_settings_free(struct model_settings *ms)
{
    for (size_t k = 0; k < ms->nprofiles; k++) {
        input_profile_free(&ms->profile[k]);
        if (ms->owned_specs)
            free((char *)ms->profile[k].spec);
    }
    ms->nprofiles = 0;
}

/* Bit K of a random sequence: a hash of SEED and K (splitmix64), so that
 * any bit is had at once. */
static int random_bit(uint64_t seed, uint64_t k)
{
    uint64_t z = seed + (k + 1) * 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (int)(z >> 63);
}

/* Profile P's value at T, and the time of its next change into *NEXT. */
static double profile_value(const struct input_profile *p, double t, double *next)
{
    switch (p->kind) {
    case PROFILE_PRBS: {
        double k = floor(t / p->bit);
        *next = (k + 1) * p->bit;
        return random_bit(p->seed, (uint64_t)k) ? p->high : p->low;
    }
    case PROFILE_CSV: {
        size_t i = 0;
        while (i < p->n && p->t[i] <= t)
            i++;
        *next = i < p->n ? p->t[i] : INFINITY;
        return i == 0 ? 0 : p->v[i - 1];
    }
    default:
        *next = INFINITY;
        return p->value;
    }
}

int leakage_parse(struct model_settings *ms, const char *spec, char *err, size_t errlen)
{
    const char *c1 = strchr(spec, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    char w[64];
    if (!c1 || !c2 || c1 == spec || (size_t)(c2 - c1 - 1) >= sizeof w) {
        snprintf(err, errlen, "--leakage wants NAME,W,PER_K (cpu,0.4W,0.06), not '%s'", spec);
        return -1;
    }
    memcpy(w, c1 + 1, (size_t)(c2 - c1 - 1));
    w[c2 - c1 - 1] = '\0';
    char *end;
    double per_k = strtod(c2 + 1, &end);
    if (tb_cli_quantity_or_number(w, "W", &ms->leak_w) < 0 || !(ms->leak_w >= 0) ||
        ms->leak_w > 1e4 || end == c2 + 1 || *end || !(per_k >= 0 && per_k <= 1)) {
        snprintf(err, errlen, "--leakage %s: wants a power of 0 to 10 kW and a growth of 0 to "
                 "1 per K", spec);
        return -1;
    }
    ms->leak_per_k = per_k;
    ms->leakage = spec;
    return 0;
}

/* --leakage's NAME an input of M. */
static int leakage_bind(struct model_settings *ms, const tb_ident_model *m, char *err,
                        size_t errlen)
{
    size_t len = (size_t)(strchr(ms->leakage, ',') - ms->leakage), u = 0;
    while (u < m->ninputs &&
           !(strlen(m->inputs[u]) == len && strncmp(m->inputs[u], ms->leakage, len) == 0))
        u++;
    if (u == m->ninputs) {
        snprintf(err, errlen, "--leakage %s: the model has no input %.*s", ms->leakage,
                 (int)len, ms->leakage);
        return -1;
    }
    ms->leak_input = u;
    return 0;
}

int model_bind(struct model_settings *ms, const tb_ident_model *m, unsigned long seed,
               char *err, size_t errlen)
{
    if (ms->leakage && leakage_bind(ms, m, err, errlen) < 0)
        return -1;
    for (size_t k = 0; k < ms->nprofiles; k++) {
        struct input_profile *p = &ms->profile[k];
        size_t len = (size_t)(strchr(p->spec, '=') - p->spec), u = 0;
        while (u < m->ninputs && !(strlen(m->inputs[u]) == len &&
                                   strncmp(m->inputs[u], p->spec, len) == 0))
            u++;
        if (u == m->ninputs) {
            snprintf(err, errlen, "--input %s: the model has no input %.*s (it has", p->spec,
                     (int)len, p->spec);
            for (size_t v = 0; v < m->ninputs; v++)
                snprintf(err + strlen(err), errlen - strlen(err), " %s", m->inputs[v]);
            snprintf(err + strlen(err), errlen - strlen(err), ")");
            return -1;
        }
        for (size_t j = 0; j < k; j++)
            if (ms->profile[j].input == u) {
                snprintf(err, errlen, "--input %s: input %s given twice", p->spec, m->inputs[u]);
                return -1;
            }
        p->input = u;
        p->seed = (uint64_t)seed * 1000003u + u;
    }
    return 0;
}

/* The inputs at T (0 for one without a profile) into U; the time of the
 * next change of any. */
static double inputs_at(const struct model_settings *ms, const tb_ident_model *m,
                        const tb_schedule *s, double t, double *u)
{
    if (s)
        return tb_schedule_inputs(s, m->ninputs, t, u);
    double next = INFINITY, nk;
    memset(u, 0, m->ninputs * sizeof *u);
    for (size_t k = 0; k < ms->nprofiles; k++) {
        u[ms->profile[k].input] = profile_value(&ms->profile[k], t, &nk);
        next = fmin(next, nk);
    }
    return next;
}

/* --- the run file -------------------------------------------------------------- */

FILE *sim_run_begin(struct tb_output_file *out, const char *path)
{
    char err[TB_ERRMAX];
    memset(out, 0, sizeof *out);
    /* a file is written whole, then put in place (output_file.h) */
    if (path && strcmp(path, "-") && tb_output_open(out, path, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: %s\n", err);
        return NULL;
    }
    FILE *f = out->f ? out->f : stdout;
    fprintf(f, "# Started at: 2026-01-01 00:00:00 +0000, Version: %s %s, Generated by: tb-sim\n",
            PACKAGE_NAME, PACKAGE_VERSION);
    return f;
}

int sim_run_end(struct tb_output_file *out, FILE *f)
{
    char err[TB_ERRMAX];
    int to_file = out->f != NULL;
    if (to_file ? tb_output_commit(out, err, sizeof err) < 0 : fflush(f) != 0 || ferror(f)) {
        if (to_file)
            fprintf(stderr, "tb-sim: %s\n", err);
        else
            fprintf(stderr, "tb-sim: -: write error: %s\n", strerror(errno));
        tb_output_abort(out);
        return TB_EXIT_OUTPUT;
    }
    return TB_EXIT_OK;
}

/* --- a run --------------------------------------------------------------------- */

int model_write_run(const struct model_settings *ms, const tb_ident_model *m,
                    const tb_schedule *s, const struct run_settings *rs, gsl_rng *rng)
{
    struct tb_output_file out;
    size_t nu = m->ninputs, ns = m->nsensors;
    double x[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES] = {0}, y[TB_IDENT_MAX_SENSORS];
    double noise[TB_IDENT_MAX_SENSORS], u[TB_IDENT_MAX_INPUTS], mean[TB_IDENT_MAX_INPUTS];
    for (size_t i = 0; i < TB_IDENT_MAX_SENSORS; i++)
        noise[i] = NAN;   /* no reading yet: see sim_ar_noise() */

    FILE *f = sim_run_begin(&out, rs->output);
    if (!f)
        return TB_EXIT_OUTPUT;
    fprintf(f, "# kernel: simulated\n# seed: %lu\n# truth_model: %s\n", rs->seed, ms->path);
    fprintf(f, "# truth_tau:");
    for (size_t j = 0; j < m->nmodes; j++)
        fprintf(f, "%s%.10g", j ? "," : " ", m->tau[j].value);
    fprintf(f, "\n# inputs: %s\n", s ? s->name : "profiles");
    fputs("time/ms", f);
    for (size_t k = 0; k < nu; k++) {   /* powers: the model's gains are K/W */
        char h[160];
        snprintf(h, sizeof h, "%s/W", m->inputs[k]);
        fputc(',', f);
        tb_csv_write_string(f, h);
    }
    for (size_t i = 0; i < ns; i++) {
        char h[160];
        snprintf(h, sizeof h, "%s/m°C", m->sensors[i]);
        fputc(',', f);
        tb_csv_write_string(f, h);
    }
    if (m->above_ambient)
        fputs(",ambient/°C", f);
    fputc('\n', f);
    size_t steps = (size_t)floor(rs->duration / rs->period + 1e-9);
    double rest[TB_IDENT_MAX_SENSORS];
    tb_ident_output(m, x, rs->ambient, rest);
    for (size_t row = 0; row <= steps; row++) {
        double t = (double)row * rs->period, end = t + rs->period, rise = 0;
        tb_ident_output(m, x, rs->ambient, y);
        for (size_t i = 0; i < ns; i++)
            rise = fmax(rise, y[i] - rest[i]);
        /* to the next row through every change of the inputs, each
         * input's mean over the step kept for its column */
        memset(mean, 0, sizeof mean);
        for (double at = t; at < end;) {
            double next = fmin(end, inputs_at(ms, m, s, at, u));
            if (!(next > at))
                next = end;   /* a change within rounding of now */
            for (size_t k = 0; k < nu; k++)
                mean[k] += u[k] * (next - at) / rs->period;
            /* a leakage no column records, as when the input is a
             * commanded power */
            if (ms->leakage)   /* a runaway held at the largest power */
                u[ms->leak_input] += fmin(ms->leak_w * exp(ms->leak_per_k * rise), TB_POWER_MAX);
            tb_ident_advance(m, x, u, next - at);
            at = next;
        }
        fprintf(f, "%.3f", t * 1000);
        for (size_t k = 0; k < nu; k++)
            fprintf(f, ",%.6g", mean[k]);
        for (size_t i = 0; i < ns; i++) {
            noise[i] = sim_ar_noise(noise[i], rs->ar, rs->noise, rng);
            double v = y[i] + noise[i];
            if (rs->quantum > 0)
                v = round(v / rs->quantum) * rs->quantum;
            fprintf(f, ",%.0f", v * 1000);
        }
        if (m->above_ambient)
            fprintf(f, ",%.3f", rs->ambient);
        fputc('\n', f);
    }
    return sim_run_end(&out, f);
}

/* --- schedules ranked ----------------------------------------------------------------- */

struct ranked {
    size_t schedule, hottest;
    double peak;
};

static int by_peak(const void *a, const void *b)
{
    double x = ((const struct ranked *)a)->peak, y = ((const struct ranked *)b)->peak;
    return (x > y) - (x < y);
}

int model_print_steady(const struct model_settings *ms, const tb_ident_model *m,
                       const tb_schedule *s, size_t n, double ambient)
{
    tb_periodic *p = calloc(n, sizeof *p);
    struct ranked *r = calloc(n, sizeof *r);
    if (!p || !r) {
        free(p);
        free(r);
        fputs("tb-sim: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    double settle = 0;
    for (size_t k = 0; k < n; k++) {
        tb_ident_periodic(m, &s[k], ambient, &p[k]);
        settle = fmax(settle, p[k].settle);
        r[k].schedule = k;
        for (size_t i = 0; i < m->nsensors; i++)
            if (i == 0 || p[k].peak[i] > r[k].peak) {
                r[k].peak = p[k].peak[i];
                r[k].hottest = i;
            }
    }
    qsort(r, n, sizeof *r, by_peak);
    printf("periodic steady state of %s", ms->path);
    if (m->above_ambient)
        printf(" at %g °C ambient", ambient);
    printf(" (reached within 1 %% after %.0f s from rest)\n", settle);
    printf("%-4s  %-20s  %-16s  %8s  %8s  %8s", "rank", "schedule", "hottest", "peak °C",
           "at ms", "mean °C");
    if (isfinite(ms->trip))
        printf("  margin K to %g °C", ms->trip);
    putchar('\n');
    for (size_t k = 0; k < n; k++) {
        const tb_periodic *q = &p[r[k].schedule];
        size_t i = r[k].hottest;
        printf("%-4zu  %-20s  %-16s  %8.3f  %8.1f  %8.3f", k + 1, s[r[k].schedule].name,
               m->sensors[i], q->peak[i], q->peak_at[i] * 1000, q->mean[i]);
        if (isfinite(ms->trip))
            printf("  %+8.3f%s", ms->trip - q->peak[i], q->peak[i] >= ms->trip ? " TRIPS" : "");
        putchar('\n');
    }
    printf("\n%-20s  %-16s  %8s  %8s  %9s\n", "schedule", "sensor", "peak °C", "mean °C",
           "trough °C");
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < m->nsensors; i++)
            printf("%-20s  %-16s  %8.3f  %8.3f  %9.3f\n", s[r[k].schedule].name, m->sensors[i],
                   p[r[k].schedule].peak[i], p[r[k].schedule].mean[i],
                   p[r[k].schedule].trough[i]);
    free(p);
    free(r);
    return fflush(stdout) == 0 && !ferror(stdout) ? TB_EXIT_OK : TB_EXIT_OUTPUT;
}

/* --- a profile of every input in one file ------------------------------------- */

int model_read_inputs_csv(struct model_settings *ms, const char *path, char *err, size_t errlen)
{
    tb_profile p;
    int rc = -1;
    if (ms->nprofiles) {
        snprintf(err, errlen, "--inputs-csv and --input both set the inputs: give one");
        return -1;
    }
    if (tb_profile_read(path, &p, err, errlen) < 0)
        return -1;
    if (!p.time_name || strcmp(p.time_name, "time_s") != 0) {
        snprintf(err, errlen, "%s: the header is time_s,NAME,... (one name per input)", path);
        goto out;
    }
    if (p.ncols > TB_IDENT_MAX_INPUTS) {
        snprintf(err, errlen, "%s: more than %d inputs", path, TB_IDENT_MAX_INPUTS);
        goto out;
    }
    /* each column an input=csv profile, bound to the model by its name */
    for (size_t k = 0; k < p.ncols; k++) {
        struct input_profile *q = &ms->profile[k];
        memset(q, 0, sizeof *q);
        q->kind = PROFILE_CSV;
        q->t = malloc(p.n * sizeof *q->t);
        q->v = malloc(p.n * sizeof *q->v);
        char *spec = malloc(strlen(p.names[k]) + 2);
        q->spec = spec;
        ms->nprofiles = k + 1;
        ms->owned_specs = 1;
        if (!q->t || !q->v || !spec) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        sprintf(spec, "%s=", p.names[k]);
        for (size_t i = 0; i < p.n; i++) {
            q->t[i] = p.t[i];
            q->v[i] = p.v[i * p.ncols + k];
        }
        q->n = p.n;
    }
    rc = 0;
out:
    tb_profile_free(&p);
    return rc;
}

/* --- names ------------------------------------------------------------------- */

ssize_t sim_model_index(const char *option, const char *name, char *const *names, size_t n,
                          const char *what)
{
    if (!name && n == 1)
        return 0;
    for (size_t k = 0; name && k < n; k++)
        if (strcmp(names[k], name) == 0)
            return (ssize_t)k;
    if (name)
        fprintf(stderr, "tb-sim: %s %s: the model has no %s %s (it has", option, name, what, name);
    else
        fprintf(stderr, "tb-sim: the model has %zu %ss: name the one meant with %s (it has", n,
                what, option);
    for (size_t k = 0; k < n; k++)
        fprintf(stderr, " %s", names[k]);
    fputs(")\n", stderr);
    return -1;
}
