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
    /* Every prefix is fitted in the same τ range as the whole run. */
    opt.tau_min = full.tau_min;
    opt.tau_max = full.tau_max;
    rl->t_inf = full.series[0].t_inf;
    rl->full_flags = full.flags;
    rl->settle = tb_fit_settle_time(&full, 0, tol);
    double duration = s->t[s->n - 1] - s->t[0];
    size_t count = (size_t)floor(duration / step + 1e-9);
    if (!(rl->prefix = calloc(count + 1, sizeof *rl->prefix))) {
        tb_fit_clear(&full);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t k = 1; k <= count + 1; k++) {
        double length = k <= count ? (double)k * step : duration;
        if (k == count + 1 && count > 0 && fabs(length - (double)count * step) < 1e-9)
            break;   /* the last multiple of the step was the whole run */
        tb_series p = *s;
        while (p.n > 0 && p.t[p.n - 1] - p.t[0] > length + 1e-9)
            p.n--;
        tb_prefix *pr = &rl->prefix[rl->nprefix++];
        pr->length = length;
        pr->n = p.n;
        tb_fit f;
        char e[TB_ERRMAX];
        if (tb_fit_series_run(&p, 1, &opt, &f, e, sizeof e) < 0) {
            pr->ok = 0;
            pr->t_inf = (tb_estimate){NAN, NAN, NAN};
            continue;
        }
        pr->ok = 1;
        pr->t_inf = f.series[0].t_inf;
        pr->flags = f.flags;
        tb_fit_clear(&f);
    }
    /* The shortest prefix from which every longer one is within tol. */
    rl->shortest = NAN;
    for (size_t k = rl->nprefix; k-- > 0;) {
        const tb_prefix *pr = &rl->prefix[k];
        int within = pr->ok && !(pr->flags & TB_FIT_DEGENERATE) &&
                     fabs(pr->t_inf.value - rl->t_inf.value) <= tol;
        rl->prefix[k].within = within;
        if (!within)
            break;
        rl->shortest = pr->length;
    }
    for (size_t k = 0; k < rl->nprefix; k++)
        rl->prefix[k].within = rl->prefix[k].ok &&
            !(rl->prefix[k].flags & TB_FIT_DEGENERATE) &&
            fabs(rl->prefix[k].t_inf.value - rl->t_inf.value) <= tol;
    tb_fit_clear(&full);
    return 0;
}
