/*
 * run_length.c -- how long a run must be: the run-length analysis of
 * Sojka et al. (FedCSIS 2020), T∞ fitted to growing prefixes of a series.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

void tb_run_length_clear(tb_run_length *rl)
{
    if (!rl)
        return;
    free(rl->prefix);
    memset(rl, 0, sizeof *rl);
}

/* The prefix of S up to LENGTH s from its first point, fitted with OPT:
 * into P; whether it lies within TOL of T∞ by its interval. */
static void fit_prefix(const tb_series *s, const tb_fit_options *opt, double length,
                       double t_inf, double tol, tb_prefix *p)
{
    tb_series pre = *s;
    while (pre.n > 0 && pre.t[pre.n - 1] - pre.t[0] > length + 1e-9)
        pre.n--;
    memset(p, 0, sizeof *p);
    p->length = length;
    p->n = pre.n;
    p->t_inf = (tb_estimate){NAN, NAN, NAN};
    tb_fit f;
    char e[TB_ERRMAX];
    if (tb_fit_series_run(&pre, 1, opt, &f, e, sizeof e) < 0)
        return;
    p->ok = 1;
    p->t_inf = f.series[0].t_inf;
    p->flags = f.flags;
    /* Within: sound, and its whole interval inside T∞ ± tol -- not its
     * estimate alone, which a short prefix can hit by luck. */
    p->within = !(f.flags & (TB_FIT_DEGENERATE | TB_FIT_NO_CI)) &&
                p->t_inf.lo >= t_inf - tol && p->t_inf.hi <= t_inf + tol;
    tb_fit_clear(&f);
}

int tb_run_length_estimate(const tb_series *s, const tb_fit_options *opt_in,
                           double step, double tol, tb_run_length *rl,
                           char *err, size_t errlen)
{
    tb_fit_options opt = opt_in ? *opt_in : tb_fit_default_options();
    tb_fit full;

    memset(rl, 0, sizeof *rl);
    if (!(step > 0) || !(tol > 0)) {
        snprintf(err, errlen, "run length: step and tolerance must be positive");
        return -1;
    }
    if (tb_fit_series_run(s, 1, &opt, &full, err, errlen) < 0)
        return -1;
    /* Every prefix is fitted in the same τ range as the whole run, with
     * the HAC intervals (a bootstrap of every prefix would take long). */
    opt.tau_min = full.tau_min;
    opt.tau_max = full.tau_max;
    if (opt.ci == TB_CI_BOOTSTRAP)
        opt.ci = TB_CI_HAC;
    rl->t_inf = full.series[0].t_inf;
    rl->full_flags = full.flags;
    rl->settle = tb_fit_settle_time(&full, 0, tol);
    double duration = s->t[s->n - 1] - s->t[0], T = rl->t_inf.value;
    tb_fit_clear(&full);
    size_t count = (size_t)floor(duration / step + 1e-9);
    if (!(rl->prefix = calloc(count + 1, sizeof *rl->prefix))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t k = 1; k <= count + 1; k++) {
        double length = k <= count ? (double)k * step : duration;
        if (k == count + 1 && count > 0 && fabs(length - (double)count * step) < 1e-9)
            break;   /* the last multiple of the step was the whole run */
        fit_prefix(s, &opt, length, T, tol, &rl->prefix[rl->nprefix++]);
    }

    /* The shortest run: after the last prefix that is not within.  So that
     * it does not hang on the step, prefixes halfway between the steps are
     * fitted too (an excursion between two steps counts), and the last
     * step before the answer is searched sample by sample. */
    rl->shortest = NAN;
    if (rl->t_inf.lo < T - tol || rl->t_inf.hi > T + tol || (rl->full_flags & TB_FIT_DEGENERATE))
        return 0;   /* the whole run's own T∞ is not known within tol */
    double last_out = -1;   /* length of the last prefix not within */
    for (size_t k = 0; k < rl->nprefix; k++) {
        const tb_prefix *p = &rl->prefix[k];
        if (!p->within) {
            last_out = p->length;
            continue;
        }
        double before = k > 0 ? rl->prefix[k - 1].length : 0, mid = (before + p->length) / 2;
        tb_prefix half;
        if (k > 0 && rl->prefix[k - 1].within) {
            fit_prefix(s, &opt, mid, T, tol, &half);
            if (!half.within)
                last_out = mid;
        }
    }
    if (last_out >= duration)
        return 0;
    /* Sample by sample from the last prefix not within to the next one
     * that is: the first sample from which they all are. */
    size_t i = 0;
    while (i < s->n && s->t[i] - s->t[0] <= last_out + 1e-9)
        i++;
    double next_in = duration;
    for (size_t k = 0; k < rl->nprefix; k++)
        if (rl->prefix[k].length > last_out + 1e-9) {
            next_in = rl->prefix[k].length;
            break;
        }
    size_t first = i, end = i;
    while (end < s->n && s->t[end] - s->t[0] < next_in - 1e-9)
        end++;
    size_t stride = (end - i + 199) / 200;   /* at most 200 fits here */
    for (; i < end; i += stride ? stride : 1) {
        tb_prefix p;
        fit_prefix(s, &opt, s->t[i] - s->t[0], T, tol, &p);
        if (!p.within)
            first = i + (stride ? stride : 1);
    }
    rl->shortest = first < s->n ? s->t[first] - s->t[0] : duration;
    return 0;
}
