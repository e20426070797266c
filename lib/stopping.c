/*
 * stopping.c -- when a followed run's T∞ is known: tb-fit --follow --until.
 *
 * A rule checked again and again and stopped at its first success would
 * promise its level once per look and keep it for none.  So the looks are
 * few and fixed in advance (data times growing by a quarter, from 2
 * minutes to --max), and the promise is split evenly between them: each
 * look's interval is at 1 − (1 − level)/looks, and by Bonferroni the
 * interval of whichever look stops covers T∞ with at least the level
 * asked.  Not weighted toward the last look, though the runs that cannot
 * stop early end there: a look is known only when its interval is narrow,
 * and under strongly correlated noise the narrow ones are those whose
 * variance the fit underestimates.  With half the level for the last look
 * (97.5 %), 13 % of the runs of an AR(1) 0.95 noise were known against
 * 11 %, and 6 % stopped with an interval that missed against 4 %
 * (bench/stopping, 100 runs).  The looks are of the data's own
 * time, never the wall clock, so a recorded run fed at full speed stops
 * at the row it would stop at live.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>

#include "tbfit.h"

#define STOP_FIRST_LOOK 120.0   /* s: a heat sink's τ twice over */
#define STOP_LOOK_RATIO 1.25

int tb_stop_rule_init(tb_stop_rule *r, double tolerance, double max, double level)
{
    if (!(tolerance > 0) || !isfinite(tolerance) || !(max >= STOP_FIRST_LOOK) ||
        !isfinite(max) || !(level > 0 && level < 1))
        return -1;
    *r = (tb_stop_rule){.tolerance = tolerance, .max = max, .level = level, .looks = 1};
    for (double t = STOP_FIRST_LOOK; t * (1 + 1e-9) < max; t *= STOP_LOOK_RATIO)
        r->looks++;
    return 0;
}

double tb_stop_rule_time(const tb_stop_rule *r, size_t k)
{
    if (k >= r->looks)
        return INFINITY;
    if (k + 1 == r->looks)
        return r->max;
    return STOP_FIRST_LOOK * pow(STOP_LOOK_RATIO, (double)k);
}

double tb_stop_rule_level(const tb_stop_rule *r)
{
    return 1 - (1 - r->level) / (double)r->looks;
}

double tb_stop_half_width(const tb_fit *fit, size_t i)
{
    const tb_estimate *e = &fit->series[i].t_inf;
    if (!isfinite(e->lo) || !isfinite(e->hi))
        return INFINITY;
    return fmax(e->hi - e->value, e->value - e->lo);
}

/* A look's fit of series I has its whole interval within ±tolerance, at
 * the looks' level, and no flag. */
static int stop_within(const tb_stop_rule *r, const tb_fit *fit, size_t i)
{
    return fit && i < fit->nseries && fit->flags == 0 &&
           fabs(fit->level - tb_stop_rule_level(r)) < 1e-12 &&
           tb_stop_half_width(fit, i) <= r->tolerance;
}

enum tb_stop_verdict tb_stop_rule_judge(const tb_stop_rule *r, size_t k,
                                        const tb_fit *fit, size_t i)
{
    /* A flagged fit's interval may miss without saying so: never stop on
     * one (extrapolated, degenerate, lack of fit, no interval...).  Not
     * even on one that extrapolates by less than the tolerance: a mode
     * slower than the run hides just so (bench/stopping). */
    if (stop_within(r, fit, i))
        return TB_STOP_KNOWN;
    return k + 1 >= r->looks ? TB_STOP_NOT_KNOWN : TB_STOP_GO_ON;
}

void tb_stop_state_init(tb_stop_state *s)
{
    *s = (tb_stop_state){.known_at = NAN};
}

enum tb_stop_verdict tb_stop_rule_look(const tb_stop_rule *r, size_t k, double t,
                                       const tb_fit *fit, size_t i, tb_stop_state *s)
{
    if (!isnan(s->known_at))
        return TB_STOP_KNOWN;
    enum tb_stop_verdict v = tb_stop_rule_judge(r, k, fit, i);
    /* Known, and the look before (a quarter less data) was too, with each
     * T∞ within the other's interval.  One narrow interval alone may be
     * the noise's luck (a variance underestimated), and stopping at the
     * first would choose it: under AR(1) noise of 0.95, asking only that
     * the look before agree let 11 % of the runs stop with an interval
     * that missed.  An estimate that has moved by more than it claims to
     * know is still extrapolating (a mode it cannot see yet).  The look
     * before may not be flagged extrapolated, though two modes would then
     * stop a look sooner: under AR(1) 0.95 noise a mode of 18 min hides at
     * 20 min, a two-term fit clears its flag there, and 6-8 % of 200 runs
     * stopped at 19-23 min with an interval that missed (0.5-1 °C low;
     * bench/stopping). */
    int agree = 0;
    if (v == TB_STOP_KNOWN && s->has_before) {
        const tb_estimate *a = &s->before, *b = &fit->series[i].t_inf;
        agree = a->value >= b->lo && a->value <= b->hi && b->value >= a->lo &&
                b->value <= a->hi;
    }
    s->has_before = v == TB_STOP_KNOWN;
    if (s->has_before)
        s->before = fit->series[i].t_inf;
    if (agree) {
        s->known_at = t;
        s->known_look = k + 1;
        return TB_STOP_KNOWN;
    }
    return k + 1 >= r->looks ? TB_STOP_NOT_KNOWN : TB_STOP_GO_ON;
}

double tb_stop_time_needed(const tb_fit *fit, size_t i, double tolerance)
{
    double half = tb_stop_half_width(fit, i);
    double tau = fit->order >= 1 ? fit->tau[fit->order - 1].value : NAN;
    if (!isfinite(half) || !isfinite(tau) || !(tau > 0))
        return NAN;
    /* What is left to learn of T∞ is the slowest term's remainder, which
     * shrinks as e^(−t/τ): the interval with it, to a first guess, and
     * what is extrapolated, to the 3 rmse that clear its flag. */
    double need = half > tolerance ? tau * log(half / tolerance) : 0;
    double rest = fabs(fit->series[i].remaining);
    if ((fit->flags & TB_FIT_EXTRAPOLATED) && rest > 3 * fit->rmse && fit->rmse > 0)
        need = fmax(need, tau * log(rest / (3 * fit->rmse)));
    return need;
}
