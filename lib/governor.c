/*
 * governor.c -- the kernel's thermal governors step_wise and
 * power_allocator, one poll at a time, as Linux 6.8 runs them (or, for
 * the trips' hysteresis and step_wise, 6.10's or 6.18's rules): written
 * from their documented behaviour (Documentation/driver-api/thermal/
 * power_allocator.rst, sysfs-api.rst, the thermal sysfs ABI), in the
 * kernel's units and integer arithmetic so a simulated zone takes the
 * board's decisions, rounding included.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

#define FRAC_BITS 10                      /* the allocator's fixed point */
#define TEMP_INVALID (-274000L)           /* m°C: before the first reading */

enum trend { STABLE, RAISING, DROPPING };

#define ONE (1LL << FRAC_BITS)

/* X >> FRAC_BITS as the kernel's arithmetic shift gives it, floor(X / 2¹⁰),
 * written without shifting a negative value (undefined in C). */
static long long frac_to_int(long long x)
{
    return x >= 0 ? x / ONE : -((-x + ONE - 1) / ONE);
}

static long long mul_frac(long long a, long long b)
{
    return frac_to_int(a * b);
}

/* (X + D/2) / D: the allocator's rounding division */
static unsigned long long div_round(unsigned long long x, unsigned long long d)
{
    return (x + d / 2) / d;
}

/* The energy model's power of one CPU at operating point I, mW (stored
 * in µW, truncated to mW as cpufreq's cooling device reads it). */
static unsigned long opp_mw(const tb_cooling_device *d, size_t i)
{
    return (unsigned long)(d->opp[i].power_w * 1e6 + 0.5) / 1000;
}

static int max_state(const tb_cooling_device *d)
{
    return (int)d->nopp - 1;
}

/* The device's power at STATE, all its CPUs busy, mW. */
static unsigned long state2power(const tb_cooling_device *d, int state)
{
    return opp_mw(d, (size_t)(max_state(d) - state)) * (unsigned long)d->ncpus;
}

/* The deepest state whose operating point's power per busy CPU fits
 * GRANTED spread over LOAD (Σ per-CPU %): the fastest point that fits. */
static int power2state(const tb_cooling_device *d, unsigned long granted, int load)
{
    unsigned long norm = granted * 100 / (unsigned long)(load > 1 ? load : 1);
    for (int i = max_state(d); i >= 1; i--)
        if (opp_mw(d, (size_t)i) <= norm)
            return max_state(d) - i;
    return max_state(d);
}

/* Σ per-CPU load, % (each CPU's truncated, as the scheduler's is). */
static int load_percent(const tb_cooling_device *d, double load)
{
    double l = load < 0 ? 0 : load > 1 ? 1 : load;
    return d->ncpus * (int)(l * 100 + 1e-9);
}

void tb_zone_policy_default(tb_zone_policy *p, tb_governor_kind governor)
{
    memset(p, 0, sizeof *p);
    p->governor = governor;
    p->poll_passive_s = 0.1;
    p->poll_idle_s = 1;
    p->k_po = p->k_pu = p->k_i = p->k_d = -1;
}

static long to_mc(double c)
{
    return lround(c * 1000);
}

/* The allocator's constants the policy gives (>= 0), written through
 * sysfs, over those in use. */
static void use_written_constants(tb_governor *g)
{
    const tb_zone_policy *p = &g->policy;
    if (p->k_po >= 0)
        g->k_po = p->k_po;
    if (p->k_pu >= 0)
        g->k_pu = p->k_pu;
    if (p->k_i >= 0)
        g->k_i = p->k_i;
    if (p->k_d >= 0)
        g->k_d = p->k_d;
}

/* What the kernel would refuse of policy P: no trip, too many, trips
 * not rising, polling delays under 1 ms.  0, or -1 with ERR. */
static int check_policy(const tb_zone_policy *p, char *err, size_t errlen)
{
    if (p->ntrips < 1 || p->ntrips > TB_GOV_MAX_TRIPS) {
        snprintf(err, errlen, "a zone needs 1 to %d passive trips, not %zu", TB_GOV_MAX_TRIPS,
                 p->ntrips);
        return -1;
    }
    for (size_t k = 1; k < p->ntrips; k++)
        if (!(p->trip_c[k] > p->trip_c[k - 1])) {
            snprintf(err, errlen, "trips must rise: %g °C after %g °C", p->trip_c[k],
                     p->trip_c[k - 1]);
            return -1;
        }
    if (!(p->poll_passive_s >= 0.001) || !(p->poll_idle_s >= 0.001)) {
        snprintf(err, errlen, "polling delays of at least 1 ms (this governor polls)");
        return -1;
    }
    return 0;
}

int tb_governor_init(tb_governor *g, const tb_zone_policy *p, const tb_cooling_device *dev,
                     size_t ndev, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    if (check_policy(p, err, errlen) < 0)
        return -1;
    if (ndev < 1 || ndev > TB_GOV_MAX_DEVICES) {
        snprintf(err, errlen, "1 to %d cooling devices, not %zu", TB_GOV_MAX_DEVICES, ndev);
        return -1;
    }
    for (size_t a = 0; a < ndev; a++) {
        if (dev[a].nopp < 1 || dev[a].ncpus < 1) {
            snprintf(err, errlen, "cooling device %zu: no operating point or no CPU", a);
            return -1;
        }
        for (size_t i = 0; i < dev[a].nopp; i++)
            if (!(dev[a].opp[i].power_w > 0) || (i > 0 && !(dev[a].opp[i].khz > dev[a].opp[i - 1].khz))) {
                snprintf(err, errlen, "cooling device %zu: operating points by rising frequency, "
                         "each with a positive power", a);
                return -1;
            }
    }
    g->policy = *p;
    g->ndev = ndev;
    memcpy(g->dev, dev, ndev * sizeof *dev);
    g->temp_mc = TEMP_INVALID;
    for (size_t k = 0; k < TB_GOV_MAX_TRIPS; k++)
        for (size_t a = 0; a < TB_GOV_MAX_DEVICES; a++)
            g->target[k][a] = -1;
    return 0;
}

/* The allocator's sustainable power, mW: the policy's, else the kernel's
 * estimate, every device at its slowest point. */
static unsigned long sustainable_mw(const tb_zone_policy *p, const tb_cooling_device *dev,
                                    size_t ndev)
{
    if (p->sustainable_w > 0)
        return (unsigned long)llround(p->sustainable_w * 1000);
    unsigned long lowest = 0;
    for (size_t a = 0; a < ndev; a++)
        lowest += state2power(&dev[a], max_state(&dev[a]));
    return lowest;
}

/* The constants the kernel derives from SP mW (tb_ipa_constants_compute()),
 * each one policy P gives (written through sysfs) over its estimate.
 * 0, or -1 when they cannot be derived. */
static int constants_from(const tb_zone_policy *p, unsigned long sp, tb_ipa_constants *k)
{
    double on = p->ntrips > 1 ? p->trip_c[0] : NAN;
    if (p->ntrips < 1 ||   /* (+0.5: the mW count is floored) */
        tb_ipa_constants_compute((sp + 0.5) / 1000, p->trip_c[p->ntrips - 1], on, k) < 0)
        return -1;
    if (p->k_po >= 0)
        k->k_po = (unsigned)p->k_po;
    if (p->k_pu >= 0)
        k->k_pu = (unsigned)p->k_pu;
    if (p->k_i >= 0)
        k->k_i = (unsigned)p->k_i;
    return 0;
}

int tb_governor_constants(const tb_zone_policy *p, const tb_cooling_device *dev, size_t ndev,
                          tb_ipa_constants *k)
{
    return constants_from(p, sustainable_mw(p, dev, ndev), k);
}

int tb_governor_update(tb_governor *g, const tb_zone_policy *p, char *err, size_t errlen)
{
    if (check_policy(p, err, errlen) < 0)
        return -1;
    if (p->governor != g->policy.governor) {
        /* another governor bound: its own state from scratch, the devices
         * where the last one left them; the allocator, bound, estimates
         * its constants from the sustainable power over any written */
        tb_governor old = *g;
        tb_zone_policy bound = *p;
        if (bound.governor == TB_GOV_POWER_ALLOCATOR)
            bound.k_po = bound.k_pu = bound.k_i = -1;
        if (tb_governor_init(g, &bound, old.dev, old.ndev, err, errlen) < 0) {
            *g = old;
            return -1;
        }
        memcpy(g->state, old.state, sizeof g->state);
        g->temp_mc = old.temp_mc;
        g->passive = old.passive;   /* (the zone's count, not a governor's: the
                                     * allocator lets go what step_wise held) */
        memcpy(g->crossed, old.crossed, sizeof g->crossed);   /* (the core's) */
        return 0;
    }
    tb_zone_policy was = g->policy;
    g->policy = *p;
    if (p->sustainable_w != was.sustainable_w) {
        /* a new sustainable power: the allocator estimates its constants
         * again at its next poll, over any written before */
        g->policy.k_po = g->policy.k_pu = g->policy.k_i = -1;
        g->sustainable_mw = 0;
        return 0;
    }
    use_written_constants(g);
    return 0;
}

/* --- the core's trips (from 6.10) ------------------------------------------------ */

/* Each trip crossed up at its temperature and down below it less its
 * hysteresis, before the governor runs; the trips crossed (the zone
 * polls passively while a passive trip is). */
static int cross_trips(tb_governor *g)
{
    const tb_zone_policy *p = &g->policy;
    int n = 0;
    for (size_t k = 0; k < p->ntrips; k++) {
        if (!g->crossed[k] && g->temp_mc >= to_mc(p->trip_c[k]))
            g->crossed[k] = 1;
        else if (g->crossed[k] && g->temp_mc < to_mc(p->trip_c[k]) - to_mc(p->hyst_c[k]))
            g->crossed[k] = 0;
        n += g->crossed[k];
    }
    return n;
}

/* The temperature step_wise throttles against at trip K. */
static long trip_threshold(const tb_governor *g, size_t k)
{
    const tb_zone_policy *p = &g->policy;
    long t = to_mc(p->trip_c[k]);
    return p->rules != TB_RULES_6_8 && g->crossed[k] ? t - to_mc(p->hyst_c[k]) : t;
}

/* --- step_wise --------------------------------------------------------------------- */

/* An instance's next target (-1: none) at state CUR of TOP, by the trend
 * and whether the zone is at or above the trip's threshold. */
static int step_wise_target(tb_kernel_rules rules, int cur, int top, int old, int initialized,
                            int throttle, enum trend trend)
{
    int up = cur + 1 > top ? top : cur + 1;
    if (!initialized)
        return throttle ? up : -1;
    if (throttle && trend == RAISING)
        return up;
    if (throttle && trend == DROPPING && rules == TB_RULES_6_18) {
        int floor = top < 1 ? top : 1;   /* one down, but not to the lower state */
        return cur - 1 < floor ? floor : cur - 1 > top ? top : cur - 1;
    }
    if (!throttle && trend == DROPPING) {
        if (cur <= 0)
            return -1;
        return rules == TB_RULES_6_8 ? cur - 1 : 0;   /* (from 6.10: at once) */
    }
    return old;
}

/* One trip: each device's instance moves as step_wise_target() says;
 * then each device takes the deepest state its instances ask for. */
static void step_wise_trip(tb_governor *g, size_t k, enum trend trend)
{
    int throttle = g->temp_mc >= trip_threshold(g, k);
    for (size_t a = 0; a < g->ndev; a++) {
        int old = g->target[k][a];
        int new = step_wise_target(g->policy.rules, g->state[a], max_state(&g->dev[a]), old,
                                   g->initialized[k][a], throttle, trend);
        if (new == old && g->initialized[k][a])
            continue;
        if (g->policy.rules == TB_RULES_6_8 && old == -1 && new != -1)
            g->passive++;   /* (6.8: the governor counts the polling) */
        else if (g->policy.rules == TB_RULES_6_8 && old != -1 && new == -1)
            g->passive--;
        g->target[k][a] = new;
        g->initialized[k][a] = 1;
        int s = 0;
        for (size_t j = 0; j < g->policy.ntrips; j++)
            if (g->target[j][a] > s)
                s = g->target[j][a];
        g->state[a] = s;
    }
}

static void step_wise_poll(tb_governor *g)
{
    enum trend trend = g->temp_mc > g->last_temp_mc   ? RAISING
                       : g->temp_mc < g->last_temp_mc ? DROPPING
                                                      : STABLE;
    for (size_t k = 0; k < g->policy.ntrips; k++)
        step_wise_trip(g, k, trend);
}

/* --- power_allocator ----------------------------------------------------------------- */

/* The constants from sustainable power SP (mW) as the kernel derives
 * them (tb_ipa_constants_compute()), or those the policy gives, which
 * were written through sysfs once the zone started. */
static void estimate_constants(tb_governor *g, unsigned long sp)
{
    tb_ipa_constants k;
    if (constants_from(&g->policy, sp, &k) == 0) {
        g->k_po = (long)k.k_po;
        g->k_pu = (long)k.k_pu;
        g->k_i = (long)k.k_i;
    }
    g->k_d = 0;
    use_written_constants(g);
    g->sustainable_mw = sp;
}

/* The PID's budget, mW, within [0, MAX_MW]. */
static unsigned long pid_budget(tb_governor *g, unsigned long max_mw, tb_governor_trace *tr)
{
    const tb_zone_policy *p = &g->policy;
    long long e = (long long)(to_mc(p->trip_c[p->ntrips - 1]) - g->temp_mc) * ONE;
    long long pt = mul_frac(e < 0 ? g->k_po : g->k_pu, e);
    long long it = mul_frac(g->k_i, g->err_integral);
    if (e < (long long)to_mc(p->integral_cutoff_c) * ONE) {
        long long i2 = it + mul_frac(g->k_i, e);
        if (llabs(i2) < (long long)max_mw * ONE) {
            it = i2;
            g->err_integral += e;
        }
    }
    long long dterm = mul_frac(g->k_d, e - g->prev_err);
    dterm = dterm * ONE / (long long)llround(p->poll_passive_s * 1000);
    g->prev_err = (long)e;
    long long budget = (long long)g->sustainable_mw + frac_to_int(pt + it + dterm);
    if (budget < 0)
        budget = 0;
    if (budget > (long long)max_mw)
        budget = (long long)max_mw;
    if (tr) {
        tr->err_c = (double)e / (1 << FRAC_BITS) / 1000;
        tr->p_w = (double)pt / (1 << FRAC_BITS) / 1000;
        tr->i_w = (double)it / (1 << FRAC_BITS) / 1000;
        tr->d_w = (double)dterm / (1 << FRAC_BITS) / 1000;
    }
    return (unsigned long)budget;
}

/* Split BUDGET by weighted requested power, no device past its maximum;
 * what that leaves over goes once to the others by their headroom. */
static void divvy_up(const unsigned long *wreq, const unsigned long *max, size_t n,
                     unsigned long budget, unsigned long *granted)
{
    unsigned long long total = 0, surplus = 0, room_total = 0, room[TB_GOV_MAX_DEVICES];
    for (size_t a = 0; a < n; a++)
        total += wreq[a];
    if (total == 0)
        total = 1;
    for (size_t a = 0; a < n; a++) {
        unsigned long long g = div_round((unsigned long long)wreq[a] * budget, total);
        if (g > max[a]) {
            surplus += g - max[a];
            g = max[a];
        }
        granted[a] = (unsigned long)g;
        room[a] = max[a] - g;
        room_total += room[a];
    }
    if (surplus == 0 || room_total == 0)
        return;
    unsigned long long share = surplus < room_total ? surplus : room_total;
    for (size_t a = 0; a < n; a++)
        granted[a] += (unsigned long)div_round(room[a] * share, room_total);
}

static void allocator_poll(tb_governor *g, const double *load, tb_governor_trace *tr)
{
    const tb_zone_policy *p = &g->policy;
    unsigned long req[TB_GOV_MAX_DEVICES], wreq[TB_GOV_MAX_DEVICES], max[TB_GOV_MAX_DEVICES];
    unsigned long granted[TB_GOV_MAX_DEVICES], max_total = 0;
    int total_weight = 0;
    for (size_t a = 0; a < g->ndev; a++)
        total_weight += g->dev[a].weight;
    for (size_t a = 0; a < g->ndev; a++) {
        const tb_cooling_device *d = &g->dev[a];
        g->last_load[a] = load_percent(d, load[a]);
        req[a] = opp_mw(d, (size_t)(max_state(d) - g->state[a])) * (unsigned long)g->last_load[a] / 100;
        wreq[a] = (unsigned long)(total_weight ? d->weight : 1024) * req[a] >> FRAC_BITS;
        max[a] = state2power(d, 0);
        max_total += max[a];
        if (tr)
            tr->requested_w[a] = req[a] / 1000.0;
    }
    if (p->ntrips > 1 && g->temp_mc < to_mc(p->trip_c[0])) {
        /* below switch-on: the controller rests; on its first poll there
         * every device is let go to its fastest point */
        int update = g->passive != 0;
        g->passive = 0;
        g->err_integral = 0;
        g->prev_err = 0;
        for (size_t a = 0; a < g->ndev; a++)
            if (update)
                g->state[a] = 0;
        return;
    }
    g->passive = 1;
    unsigned long sp = sustainable_mw(p, g->dev, g->ndev);
    if (sp != g->sustainable_mw)
        estimate_constants(g, sp);
    unsigned long budget = pid_budget(g, max_total, tr);
    divvy_up(wreq, max, g->ndev, budget, granted);
    for (size_t a = 0; a < g->ndev; a++) {
        g->state[a] = power2state(&g->dev[a], granted[a], g->last_load[a]);
        if (tr)
            tr->granted_w[a] = granted[a] / 1000.0;
    }
    if (tr)
        tr->budget_w = budget / 1000.0;
}

void tb_governor_poll(tb_governor *g, double temp_c, const double *load, tb_governor_trace *tr)
{
    if (tr)
        memset(tr, 0, sizeof *tr);
    g->last_temp_mc = g->temp_mc;
    g->temp_mc = to_mc(temp_c);
    int crossed = g->policy.rules != TB_RULES_6_8 ? cross_trips(g) : 0;
    if (g->policy.governor == TB_GOV_STEP_WISE)
        step_wise_poll(g);
    else
        allocator_poll(g, load, tr);
    if (g->policy.rules != TB_RULES_6_8)
        g->passive = crossed;   /* (the core's count, not the governor's) */
    if (tr) {
        for (size_t a = 0; a < g->ndev; a++)
            tr->state[a] = g->state[a];
        tr->next_poll_s = g->passive ? g->policy.poll_passive_s : g->policy.poll_idle_s;
    }
}

double tb_cooling_power(const tb_cooling_device *dev, int state, double load, double *ops)
{
    int s = state < 0 ? 0 : state > max_state(dev) ? max_state(dev) : state;
    const tb_opp *o = &dev->opp[max_state(dev) - s];
    if (ops)
        *ops = o->ops_per_s * dev->ncpus * load;
    return o->power_w * dev->ncpus * load;
}
