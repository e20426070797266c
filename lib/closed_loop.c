/*
 * closed_loop.c -- a board's temperature under the kernel's governor: the
 * zone's modes stepped exactly from one event (a poll, a sample) to the
 * next, the power constant between them; and the policy spec that names a
 * strategy ("power_allocator trips=60,70 sustainable=2W").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

/* --- the policy spec ------------------------------------------------------------------ */

static int parse_trips(const char *v, tb_zone_policy *p)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", v);
    p->ntrips = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (p->ntrips == TB_GOV_MAX_TRIPS || tb_quantity_or_number_parse(t, "°C", &p->trip_c[p->ntrips]) < 0)
            return -1;
        p->ntrips++;
    }
    return p->ntrips > 0 ? 0 : -1;
}

/* One hysteresis for every trip, or one each (in order). */
static int parse_hyst(const char *v, tb_zone_policy *p, size_t *nhyst)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", v);
    *nhyst = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double h;
        if (*nhyst == TB_GOV_MAX_TRIPS || tb_quantity_or_number_parse(t, "°C", &h) < 0 ||
            !(h >= 0 && h <= 100))
            return -1;
        p->hyst_c[(*nhyst)++] = h;
    }
    return *nhyst > 0 ? 0 : -1;
}

/* "6.8", "6.12": the rules of that mainline release. */
static int parse_kernel(const char *v, tb_zone_policy *p)
{
    int major, minor, used = 0;
    if (sscanf(v, "%d.%d%n", &major, &minor, &used) != 2 || v[used] || major < 2 || minor < 0)
        return -1;
    long n = major * 1000L + minor;
    p->rules = n >= 6018 ? TB_RULES_6_18 : n >= 6010 ? TB_RULES_6_10 : TB_RULES_6_8;
    return 0;
}

static int parse_constant(const char *v, long *k)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < 0 || x > 100000000)
        return -1;
    *k = x;
    return 0;
}

/* One KEY=VALUE word of a policy into P (*NHYST: the hysteresis values
 * given): 0, or -1. */
static int policy_word(const char *key, const char *v, tb_zone_policy *p, size_t *nhyst)
{
    if (strcmp(key, "trips") == 0)
        return parse_trips(v, p);
    if (strcmp(key, "hyst") == 0)
        return parse_hyst(v, p, nhyst);
    if (strcmp(key, "kernel") == 0)
        return parse_kernel(v, p);
    if (strcmp(key, "sustainable") == 0)
        return tb_quantity_or_number_parse(v, "W", &p->sustainable_w) < 0 || !(p->sustainable_w > 0) ? -1 : 0;
    if (strcmp(key, "cutoff") == 0)
        return tb_quantity_or_number_parse(v, "°C", &p->integral_cutoff_c);
    if (strcmp(key, "passive") == 0)
        return tb_parse_duration(v, &p->poll_passive_s) < 0 || !(p->poll_passive_s >= 0.001) ? -1 : 0;
    if (strcmp(key, "idle") == 0)
        return tb_parse_duration(v, &p->poll_idle_s) < 0 || !(p->poll_idle_s >= 0.001) ? -1 : 0;
    static const char *const ks[] = {"k_po", "k_pu", "k_i", "k_d"};
    long *kv[] = {&p->k_po, &p->k_pu, &p->k_i, &p->k_d};
    for (int i = 0; i < 4; i++)
        if (strcmp(key, ks[i]) == 0)
            return parse_constant(v, kv[i]);
    return -1;
}

int tb_zone_policy_parse(const char *spec, tb_zone_policy *p, char *name, size_t namelen,
                         char *err, size_t errlen)
{
    char buf[1024], *save = NULL;
    const char *colon = strchr(spec, ':'), *body = spec;
    if (colon && colon > spec && !memchr(spec, ' ', (size_t)(colon - spec)) &&
        !memchr(spec, '=', (size_t)(colon - spec))) {
        snprintf(name, namelen, "%.*s", (int)(colon - spec), spec);
        body = colon + 1;
    } else {
        snprintf(name, namelen, "%s", spec);
    }
    snprintf(buf, sizeof buf, "%s", body);
    char *w = strtok_r(buf, " \t", &save);
    if (!w || (strcmp(w, "step_wise") != 0 && strcmp(w, "power_allocator") != 0)) {
        snprintf(err, errlen, "\"%s\": a policy starts with its governor, step_wise or power_allocator",
                 spec);
        return -1;
    }
    tb_zone_policy_default(p, strcmp(w, "step_wise") == 0 ? TB_GOV_STEP_WISE : TB_GOV_POWER_ALLOCATOR);
    size_t nhyst = 0;
    while ((w = strtok_r(NULL, " \t", &save))) {
        char *eq = strchr(w, '=');
        if (eq)
            *eq = '\0';
        if (!eq || policy_word(w, eq + 1, p, &nhyst) < 0) {
            if (eq)
                *eq = '=';
            snprintf(err, errlen, "\"%s\": '%s' is not one of trips=DEG,..., sustainable=W, "
                     "k_po=, k_pu=, k_i=, k_d= (raw, 1024 = 1), cutoff=DEG, passive=TIME, idle=TIME, "
                     "hyst=DEG,..., kernel=X.Y", spec, w);
            return -1;
        }
    }
    if (p->ntrips == 0) {
        snprintf(err, errlen, "\"%s\": no trips= (the zone's passive trips, rising)", spec);
        return -1;
    }
    if (nhyst != 0 && nhyst != 1 && nhyst != p->ntrips) {
        snprintf(err, errlen, "\"%s\": hyst= gives %zu values for %zu trips (one for all, or one each)",
                 spec, nhyst, p->ntrips);
        return -1;
    }
    for (size_t k = 1; nhyst == 1 && k < p->ntrips; k++)
        p->hyst_c[k] = p->hyst_c[0];
    return 0;
}

/* --- the loop ------------------------------------------------------------------------- */

int tb_load_schedule_parse(const char *spec, tb_schedule *s, char *err, size_t errlen)
{
    char *names[] = {"load"};
    tb_ident_model m = {.ninputs = 1, .inputs = names};
    if (tb_schedule_parse(spec, &m, s, err, errlen) < 0)
        return -1;
    for (size_t w = 0; w < s->nwindows; w++)
        if (!(s->input[w][0] >= 0 && s->input[w][0] <= 1)) {
            snprintf(err, errlen, "schedule '%s': window %zu: load=%g is not a busy share from 0 to 1",
                     spec, w + 1, s->input[w][0]);
            return -1;
        }
    return 0;
}

/* --- the loop ------------------------------------------------------------------------ */

struct loop {
    double x[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES];   /* each mode's rise, K (a
                                                            model's: each input's) */
    double y[TB_IDENT_MAX_SENSORS];    /* a model's sensors, °C */
    double u[TB_IDENT_MAX_INPUTS];     /* a model's inputs */
    double dev_power[TB_GOV_MAX_DEVICES];   /* each device's, above idle */
    double load[TB_GOV_MAX_DEVICES];   /* each device's busy share now */
    double busy, busy_at_poll, t_poll; /* ∫ load dt (device 0's), at the last poll */
    double t, temp, power, work, ops_rate;
    tb_loop_summary *sum;
    double weighted_temp, throttled_s, sustained_work;
};

static double zone_temp(const tb_closed_loop *c, struct loop *l)
{
    if (c->model) {
        tb_ident_output(c->model, l->x, c->ambient_c, l->y);
        return l->y[c->zone];
    }
    double y = c->ambient_c;
    for (size_t i = 0; i < c->modes.n; i++)
        y += l->x[i];
    return y;
}

/* Each mode exactly over DT, the power held. */
static void board_advance(const tb_closed_loop *c, struct loop *l, double dt)
{
    if (c->model)
        tb_ident_advance(c->model, l->x, l->u, dt);
    else
        tb_modes_step(&c->modes, l->x, l->power, dt);
}

/* The board's power and work rate at the devices' states now. */
static void board_power(const tb_closed_loop *c, const tb_governor *g, struct loop *l)
{
    l->power = c->idle_w;
    l->ops_rate = 0;
    for (size_t a = 0; a < g->ndev; a++) {
        double ops;
        l->power += l->dev_power[a] = tb_cooling_power(&g->dev[a], g->state[a], l->load[a], &ops);
        l->ops_rate += ops;
    }
    if (!c->model)
        return;
    for (size_t k = 0; k < c->model->ninputs; k++)
        l->u[k] = c->held ? c->held[k] : 0;
    l->u[c->drive[0]] += c->idle_w;
    for (size_t a = 0; a < g->ndev; a++)
        l->u[c->drive[a]] += l->dev_power[a];
}

/* Step the board DT on from L->t (the caller then sets L->t, without
 * drift): each mode exactly, the power held; the time above the limit
 * from the temperature's two ends (linear between). */
static void advance(const tb_closed_loop *c, const tb_governor *g, struct loop *l, double dt)
{
    double before = l->temp;
    board_advance(c, l, dt);
    l->temp = zone_temp(c, l);
    double lim = l->sum->limit_c, after = l->temp;
    if (before >= lim && after >= lim)
        l->sum->above_limit_s += dt;
    else if (before >= lim || after >= lim)
        l->sum->above_limit_s += dt * (fmax(before, after) - lim) / fabs(after - before);
    l->weighted_temp += dt * (before + after) / 2;
    l->busy += l->load[0] * dt;
    l->sum->energy_j += l->power * dt;
    l->work += l->ops_rate * dt;
    for (size_t a = 0; a < g->ndev; a++)
        if (g->state[a] > 0) {
            l->throttled_s += dt;
            break;
        }
    double third = c->duration_s * 2 / 3;
    if (l->t + dt > third)
        l->sustained_work += l->ops_rate * (l->t + dt - fmax(l->t, third));
    l->sum->peak_c = fmax(l->sum->peak_c, l->temp);
}

static int emit(const tb_closed_loop *c, const tb_governor *g, const struct loop *l,
                int (*on_sample)(const tb_loop_sample *, void *), void *ctx)
{
    if (!on_sample)
        return 0;
    tb_loop_sample s = {.t = l->t, .temp_c = l->temp, .power_w = l->power, .work = l->work,
                        .sensor_c = c->model ? l->y : NULL, .input = c->model ? l->u : NULL};
    for (size_t a = 0; a < g->ndev; a++)
        s.state[a] = g->state[a];
    return on_sample(&s, ctx);
}

/* The devices' busy share at L->t from C's schedule; the time of its next
 * change (∞ without one). */
static double schedule_load(const tb_closed_loop *c, const tb_governor *g, struct loop *l)
{
    if (!c->schedule)
        return INFINITY;
    double u[TB_IDENT_MAX_INPUTS];
    double next = tb_schedule_inputs(c->schedule, 1, l->t, u);
    for (size_t a = 0; a < g->ndev; a++)
        l->load[a] = u[0];
    return next;
}

/* The load a poll at L->t sees: the mean since the last poll (with a
 * schedule), else the load held. */
static void poll_load(const tb_closed_loop *c, const tb_governor *g, struct loop *l, double *seen)
{
    double dt = l->t - l->t_poll;
    for (size_t a = 0; a < g->ndev; a++)
        seen[a] = c->schedule && dt > 0 ? (l->busy - l->busy_at_poll) / dt : l->load[a];
    l->busy_at_poll = l->busy;
    l->t_poll = l->t;
}

int tb_closed_loop_run(const tb_closed_loop *c, tb_governor *g,
                       int (*on_sample)(const tb_loop_sample *, void *), void *ctx,
                       tb_loop_summary *sum)
{
    struct loop l = {.sum = sum};
    memset(sum, 0, sizeof *sum);
    if (!(c->period_s > 0) || !(c->duration_s > 0))
        return -1;   /* (no event would move the loop on) */
    if (c->model && (c->zone >= c->model->nsensors || c->model->ninputs > TB_IDENT_MAX_INPUTS ||
                     c->model->nmodes > TB_IDENT_MAX_MODES || c->model->nsensors > TB_IDENT_MAX_SENSORS))
        return -1;
    for (size_t a = 0; c->model && a < g->ndev; a++)
        if (c->drive[a] >= c->model->ninputs)
            return -1;
    memcpy(l.load, c->load, sizeof l.load);
    sum->limit_c = isnan(c->limit_c) ? g->policy.trip_c[0] : c->limit_c;
    l.temp = sum->peak_c = zone_temp(c, &l);
    double next_poll = 0, next_sample = 0;
    /* events by count, not by sums of floats: the k-th sample at k·period */
    size_t nsample = 0;
    int rc = 0;
    while (rc == 0) {
        double next_change = schedule_load(c, g, &l);
        if (l.t >= next_poll - 1e-9) {
            tb_governor_trace tr;
            double seen[TB_GOV_MAX_DEVICES];
            poll_load(c, g, &l, seen);
            tb_governor_poll(g, l.temp, seen, &tr);
            sum->polls++;
            next_poll = l.t + tr.next_poll_s;
        }
        board_power(c, g, &l);
        if (l.t >= next_sample - 1e-9) {
            rc = emit(c, g, &l, on_sample, ctx);
            next_sample = (double)++nsample * c->period_s;
        }
        if (l.t >= c->duration_s - 1e-9)
            break;
        double to = fmin(fmin(next_poll, next_sample), fmin(next_change, c->duration_s));
        advance(c, g, &l, to - l.t);
        l.t = to;   /* (no drift from the sum of steps) */
    }
    double d = l.t > 0 ? l.t : 1;
    sum->mean_c = l.weighted_temp / d;
    sum->throttled_share = l.throttled_s / d;
    sum->ops_per_s = l.work / d;
    sum->ops_sustained_per_s = l.sustained_work / (d / 3);
    return rc;
}
