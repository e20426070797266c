/*
 * sim_governor.c -- tb-sim's closed loop: a measured board under the
 * kernel's governor, as a run every tbkit tool reads, or several
 * strategies ranked by the work they sustain within their limit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"
#include "output_file.h"
#include "sim_governor.h"
#include "sim_model.h"

struct strategy {
    char name[128];
    tb_zone_policy policy;
    tb_loop_summary sum;
    double limit;
};

/* Device NAME's index in D, or -1 said (OPTION's). */
static ssize_t device_index(const struct governor_devices *d, const char *name, size_t len,
                           const char *option, const char *spec)
{
    for (size_t a = 0; a < d->n; a++)
        if (strlen(d->table[a].device) == len && strncmp(d->table[a].device, name, len) == 0)
            return (ssize_t)a;
    fprintf(stderr, "tb-sim: %s %s: the operating points have no device %.*s (they have", option,
            spec, (int)len, name);
    for (size_t a = 0; a < d->n; a++)
        fprintf(stderr, " %s", d->table[a].device);
    fputs(")\n", stderr);
    return -1;
}

int governor_read_devices(const struct governor_settings *g, struct governor_devices *d)
{
    char err[TB_ERRMAX];
    memset(d, 0, sizeof *d);
    ssize_t n = tb_opp_table_read_all(g->opp, d->table, TB_GOV_MAX_DEVICES, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "tb-sim: --opp: %s\n", err);
        return TB_EXIT_INPUT;
    }
    d->n = (size_t)n;
    for (size_t a = 0; a < d->n; a++)
        d->dev[a] = (tb_cooling_device){d->table[a].opp, d->table[a].n, d->table[a].cpus, 0};
    for (size_t k = 0; k < g->nweights; k++) {
        const char *eq = strchr(g->weight[k], '=');
        ssize_t a = device_index(d, g->weight[k], (size_t)(eq - g->weight[k]), "--weight", g->weight[k]);
        if (a < 0) {
            governor_devices_clear(d);
            return TB_EXIT_INPUT;
        }
        d->dev[a].weight = atoi(eq + 1);
    }
    return 0;
}

void governor_devices_clear(struct governor_devices *d)
{
    for (size_t a = 0; a < TB_GOV_MAX_DEVICES; a++)
        tb_opp_table_clear(&d->table[a]);
    d->n = 0;
}

int governor_parse_policy(const char *spec, tb_zone_policy *p, char *name, size_t namelen)
{
    char err[TB_ERRMAX];
    if (tb_zone_policy_parse(spec, p, name, namelen, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: --policy %s\n", err);
        return TB_EXIT_INPUT;
    }
    return 0;
}

int governor_start(const tb_zone_policy *p, const char *name, const struct governor_devices *d,
                   tb_governor *gov)
{
    char err[TB_ERRMAX];
    if (tb_governor_init(gov, p, d->dev, d->n, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: --policy %s: %s\n", name, err);
        return TB_EXIT_INPUT;
    }
    return 0;
}

/* Read the devices and the policies; start no loop.  0, or an exit status. */
static int prepare(const struct governor_settings *g, struct governor_devices *d, struct strategy *st)
{
    int status = governor_read_devices(g, d);
    for (size_t k = 0; k < g->npolicies && status == 0; k++) {
        status = governor_parse_policy(g->policy[k], &st[k].policy, st[k].name, sizeof st[k].name);
        st[k].limit = g->limit;
    }
    return status;
}

static int start(const struct strategy *st, const struct governor_devices *d, tb_governor *gov)
{
    return governor_start(&st->policy, st->name, d, gov);
}

/* Each device's input of BOARD's model into C->drive: --cpu-input
 * DEVICE=INPUT for each, or INPUT for one device, or the model's only
 * input.  0, or an exit status (said). */
static int model_drive(const struct governor_settings *g, const struct governor_devices *d,
                       tb_closed_loop *c)
{
    const tb_ident_model *m = c->model;
    int given[TB_GOV_MAX_DEVICES] = {0};
    for (size_t k = 0; k < g->ncpu_inputs; k++) {
        const char *spec = g->cpu_input[k], *eq = strchr(spec, '=');
        ssize_t a = eq ? device_index(d, spec, (size_t)(eq - spec), "--cpu-input", spec) : 0;
        ssize_t u = a < 0 ? -1 : sim_model_index("--cpu-input", eq ? eq + 1 : spec, m->inputs,
                                                  m->ninputs, "input");
        if (a < 0 || u < 0)
            return TB_EXIT_INPUT;
        if (!eq && d->n > 1) {
            fprintf(stderr, "tb-sim: --cpu-input %s: %zu devices: name each one's input "
                    "(--cpu-input %s=%s)\n", spec, d->n, d->table[0].device, spec);
            return TB_EXIT_INPUT;
        }
        c->drive[a] = (size_t)u;
        given[a] = 1;
    }
    for (size_t a = 0; a < d->n; a++) {
        if (given[a] || m->ninputs == 1)
            continue;   /* (the only input: 0) */
        fprintf(stderr, "tb-sim: device %s of --opp: name the model's input its power drives "
                "(--cpu-input %s%sINPUT; it has", d->table[a].device, d->n > 1 ? d->table[a].device : "",
                d->n > 1 ? "=" : "");
        for (size_t k = 0; k < m->ninputs; k++)
            fprintf(stderr, " %s", m->inputs[k]);
        fputs(")\n", stderr);
        return TB_EXIT_INPUT;
    }
    return 0;
}

/* BOARD with the rest of the loop from G's options. */
static void loop_of(const struct governor_settings *g, const tb_closed_loop *board,
                    double duration, double period, tb_closed_loop *c)
{
    *c = *board;
    c->idle_w = isnan(g->idle_w) ? 0 : g->idle_w;
    c->limit_c = g->limit;   /* (NaN for a run: its lowest trip) */
    for (size_t a = 0; a < TB_GOV_MAX_DEVICES; a++)
        c->load[a] = g->load;   /* (every device under the one workload) */
    c->schedule = g->scheduled ? &g->load_schedule : NULL;
    c->duration_s = duration;
    c->period_s = period;
}

/* --- one policy: a run ------------------------------------------------------------------- */

/* The zone's column: a model's sensor, or the network's one. */
static const char *zone_column(const tb_closed_loop *c)
{
    return c->model ? c->model->sensors[c->zone] : "CPU_0_temp";
}

struct run_writer {
    FILE *f;
    const tb_closed_loop *c;
    size_t ndev;
};

/* A model's run: every sensor, each device's state, every input, the
 * work and the ambient; a network's: its zone, each device's state, the
 * board's power and the work. */
static void write_header(FILE *f, const tb_closed_loop *c, size_t ndev)
{
    const tb_ident_model *m = c->model;
    char h[160];
    fputs("time/ms", f);
    for (size_t i = 0; i < (m ? m->nsensors : 1); i++) {
        snprintf(h, sizeof h, "%s/m°C", m ? m->sensors[i] : "CPU_0_temp");
        fputc(',', f);
        tb_csv_write_string(f, h);
    }
    for (size_t a = 0; a < ndev; a++)
        fprintf(f, ",cpufreq_cdev%zu/state", a);
    for (size_t k = 0; k < (m ? m->ninputs : 1); k++) {
        snprintf(h, sizeof h, "%s/W", m ? m->inputs[k] : "power");
        fputc(',', f);
        tb_csv_write_string(f, h);
    }
    fputs(",CPU0_work_done", f);
    fputs(m && m->above_ambient ? ",ambient/°C\n" : "\n", f);
}

static int write_sample(const tb_loop_sample *s, void *ctx)
{
    const struct run_writer *w = ctx;
    const tb_ident_model *m = w->c->model;
    FILE *f = w->f;
    fprintf(f, "%.3f", s->t * 1000);
    for (size_t i = 0; i < (m ? m->nsensors : 1); i++)
        fprintf(f, ",%.0f", (m ? s->sensor_c[i] : s->temp_c) * 1000);
    for (size_t a = 0; a < w->ndev; a++)
        fprintf(f, ",%d", s->state[a]);
    for (size_t k = 0; k < (m ? m->ninputs : 1); k++)
        fprintf(f, ",%.6g", m ? s->input[k] : s->power_w);
    fprintf(f, ",%.0f", floor(s->work));
    if (m && m->above_ambient)
        fprintf(f, ",%.3f", w->c->ambient_c);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

static void write_metas(FILE *f, const struct strategy *st, const struct governor_devices *d,
                        const tb_closed_loop *c, const char *const *metas, int nmetas)
{
    int have_kernel = 0;
    for (int i = 0; i < nmetas; i++) {
        const char *eq = strchr(metas[i], '=');
        fprintf(f, "# %.*s: %s\n", (int)(eq - metas[i]), metas[i], eq + 1);
        have_kernel |= strncmp(metas[i], "kernel=", 7) == 0;
    }
    if (!have_kernel)
        fputs("# kernel: simulated\n", f);
    const tb_zone_policy *p = &st->policy;
    const char *z = zone_column(c);
    fprintf(f, "# strategy: %s\n", st->name);
    fputs("# prediction: tb-sim closed loop\n", f);   /* (tb-plot tradeoff draws it apart) */
    for (size_t a = 0; c->model && a < d->n; a++)
        fprintf(f, "# board_model.cpufreq_cdev%zu: %s's power drives %s; the zone reads %s\n", a,
                d->table[a].device, c->model->inputs[c->drive[a]], z);
    fprintf(f, "# policy.%s: %s\n", z, p->governor == TB_GOV_STEP_WISE ? "step_wise" : "power_allocator");
    for (size_t k = 0; k < p->ntrips; k++)
        fprintf(f, "# trip.%s.%zu: passive %ld\n", z, k, lround(p->trip_c[k] * 1000));
    for (size_t k = 0; k < p->ntrips; k++)
        if (p->hyst_c[k] > 0)
            fprintf(f, "# trip_hyst.%s.%zu: %ld\n", z, k, lround(p->hyst_c[k] * 1000));
    static const char *const rules[] = {"6.8", "6.10", "6.18"};
    fprintf(f, "# kernel_rules.%s: Linux %s\n", z, rules[p->rules]);
    /* the allocator's constants in use, as tb-record copies them from a zone */
    tb_ipa_constants k;
    if (p->governor == TB_GOV_POWER_ALLOCATOR && tb_governor_constants(p, d->dev, d->n, &k) == 0)
        fprintf(f, "# sustainable_power.%s: %u\n# k_po.%s: %u\n# k_pu.%s: %u\n# k_i.%s: %u\n"
                "# k_d.%s: %ld\n", z, k.sustainable_mw, z, k.k_po, z, k.k_pu, z, k.k_i, z,
                p->k_d >= 0 ? p->k_d : 0);
    else if (p->sustainable_w > 0)
        fprintf(f, "# sustainable_power.%s: %ld\n", z, lround(p->sustainable_w * 1000));
    for (size_t a = 0; a < d->n; a++)
        fprintf(f, "# max_state.cpufreq_cdev%zu: %zu\n", a, d->table[a].n - 1);
}

static int write_loop_run(const tb_closed_loop *c, struct strategy *st,
                          const struct governor_devices *d, const char *output,
                          const char *const *metas, int nmetas)
{
    tb_governor gov;
    int status = start(st, d, &gov);
    if (status)
        return status;
    struct tb_output_file out;
    FILE *f = sim_run_begin(&out, output);
    if (!f)
        return TB_EXIT_OUTPUT;
    write_metas(f, st, d, c, metas, nmetas);
    write_header(f, c, d->n);
    struct run_writer w = {f, c, d->n};
    tb_closed_loop_run(c, &gov, write_sample, &w, &st->sum);
    return sim_run_end(&out, f);
}

/* --- several: ranked ------------------------------------------------------------------- */

/* Within the limit first, by sustained work; then the others by peak. */
static int by_merit(const void *a, const void *b)
{
    const struct strategy *x = a, *y = b;
    int xin = x->sum.peak_c <= x->limit, yin = y->sum.peak_c <= y->limit;
    if (xin != yin)
        return yin - xin;
    if (xin)
        return (x->sum.ops_sustained_per_s < y->sum.ops_sustained_per_s) -
               (x->sum.ops_sustained_per_s > y->sum.ops_sustained_per_s);
    return (x->sum.peak_c > y->sum.peak_c) - (x->sum.peak_c < y->sum.peak_c);
}

static int print_ranking(struct strategy *st, size_t n, double duration)
{
    qsort(st, n, sizeof *st, by_merit);
    int w = 8;
    for (size_t k = 0; k < n; k++)
        w = (int)fmax(w, (double)strlen(st[k].name));
    printf("strategies over %.0f s, ranked by the work sustained (the last third) with the peak "
           "within the limit\n", duration);
    printf("rank  %-*s  %9s  %8s  %8s  %9s  %14s  %10s\n", w, "strategy", "peak °C", "limit", "above s",
           "throttled", "sustained op/s", "energy J");
    for (size_t k = 0; k < n; k++) {
        const tb_loop_summary *s = &st[k].sum;
        int in = s->peak_c <= st[k].limit;
        char rank[24];
        snprintf(rank, sizeof rank, "%zu", k + 1);
        printf("%4s  %-*s  %9.2f  %8.1f  %8.1f  %8.0f%%  %14.4g  %10.4g%s\n", in ? rank : "-", w,
               st[k].name, s->peak_c, st[k].limit, s->above_limit_s, s->throttled_share * 100,
               s->ops_sustained_per_s, s->energy_j, in ? "" : "  over the limit");
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? TB_EXIT_OK : TB_EXIT_OUTPUT;
}

int governor_main(const struct governor_settings *g, const tb_closed_loop *board, double duration,
                  double period, const char *output, const char *const *metas, int nmetas)
{
    struct governor_devices d;
    struct strategy *st = calloc(g->npolicies, sizeof *st);
    if (!st) {
        fputs("tb-sim: out of memory\n", stderr);
        return TB_EXIT_OUTPUT;
    }
    int status = prepare(g, &d, st);
    tb_closed_loop c;
    loop_of(g, board, duration, period, &c);
    if (status == 0 && c.model)
        status = model_drive(g, &d, &c);
    if (status == 0 && g->npolicies == 1) {
        status = write_loop_run(&c, &st[0], &d, output, metas, nmetas);
    } else if (status == 0) {
        for (size_t k = 0; k < g->npolicies && status == 0; k++) {
            tb_governor gov;
            if ((status = start(&st[k], &d, &gov)) == 0)
                tb_closed_loop_run(&c, &gov, NULL, NULL, &st[k].sum);
        }
        if (status == 0)
            status = print_ranking(st, g->npolicies, duration);
    }
    governor_devices_clear(&d);
    free(st);
    return status;
}
