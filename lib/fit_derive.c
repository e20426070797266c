/*
 * fit_derive.c -- intervals of quantities derived from a fit's
 * parameters (a thermal resistance, a capacitance, a time to a trip
 * point), propagated as the fit's own intervals were found: by the delta
 * method from its covariance, or over its bootstrap resamples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#include "gsl_errors.h"
#include "tbfit.h"

size_t tb_fit_theta(const tb_fit *fit, size_t i, double *theta)
{
    size_t n = (size_t)fit->order;
    theta[0] = fit->series[i].t_inf.value;
    for (size_t j = 0; j < n; j++) {
        theta[1 + j] = fit->series[i].k[j].value;
        theta[1 + n + j] = fit->tau[j].value;
    }
    return 2 * n + 1;
}

typedef double (*derived_fn)(const double *theta, double x, void *ctx);

/* Variance of G at θ by the delta method: ∇Gᵀ·Σ·∇G + (∂G/∂x)²·x_se²,
 * central differences with steps relative to each parameter. */
static double delta_variance(const tb_fit_series *fs, size_t d, double *theta, derived_fn g,
                             void *ctx, double x, double x_se)
{
    double grad[TB_FIT_MAX_PARAMS];
    for (size_t a = 0; a < d; a++) {
        double keep = theta[a], h = 1e-6 * fmax(fabs(keep), 1e-3);
        theta[a] = keep + h;
        double up = g(theta, x, ctx);
        theta[a] = keep - h;
        double down = g(theta, x, ctx);
        theta[a] = keep;
        grad[a] = (up - down) / (2 * h);
    }
    /* the larger of the two covariances' variances, as the fit's own */
    double var = 0, white = 0;
    for (size_t a = 0; a < d; a++)
        for (size_t b = 0; b < d; b++) {
            var += grad[a] * fs->cov[a * d + b] * grad[b];
            white += grad[a] * fs->cov_white[a * d + b] * grad[b];
        }
    var = fmax(var, white);
    if (x_se > 0) {
        double h = 1e-6 * fmax(fabs(x), 1e-3);
        double dx = (g(theta, x + h, ctx) - g(theta, x - h, ctx)) / (2 * h);
        var += dx * dx * x_se * x_se;
    }
    return var;
}

/* Percentile interval of G over the bootstrap resamples of series I. */
static int bootstrap_interval(const tb_fit *fit, size_t i, derived_fn g, void *ctx, double x,
                              double x_se, tb_estimate *e)
{
    size_t n = (size_t)fit->order, q = n + 1, nvals = fit->nseries * q + n, kept = 0;
    double *v = malloc(fit->nreplicates * sizeof *v);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = -1;

    if (!v || !rng)
        goto out;
    gsl_rng_set(rng, 1);
    for (size_t b = 0; b < fit->nreplicates; b++) {
        const double *rep = fit->replicates + b * nvals;
        double theta[TB_FIT_MAX_PARAMS];
        for (size_t a = 0; a < q; a++)
            theta[a] = rep[i * q + a];
        for (size_t j = 0; j < n; j++)
            theta[q + j] = rep[fit->nseries * q + j];
        double xs = x_se > 0 ? x + gsl_ran_gaussian(rng, x_se) : x;
        double y = g(theta, xs, ctx);
        if (isfinite(y))
            v[kept++] = y;
    }
    /* A quantity undefined in over a twentieth of the resamples has no
     * honest interval from the others. */
    if (kept < 10 || kept < fit->nreplicates - fit->nreplicates / 20)
        goto out;
    gsl_sort(v, 1, kept);
    e->lo = gsl_stats_quantile_from_sorted_data(v, 1, kept, 0.5 - fit->level / 2);
    e->hi = gsl_stats_quantile_from_sorted_data(v, 1, kept, 0.5 + fit->level / 2);
    rc = 0;
out:
    gsl_rng_free(rng);
    free(v);
    return rc;
}

int tb_fit_derive(const tb_fit *fit, size_t i, derived_fn g, void *ctx, double x, double x_se,
                  int positive, tb_estimate *e)
{
    double theta[TB_FIT_MAX_PARAMS];
    size_t d = tb_fit_theta(fit, i, theta);

    fit_gsl_errors_off();
    e->value = g(theta, x, ctx);
    e->lo = e->hi = NAN;
    if (!isfinite(e->value) || (positive && !(e->value > 0)) || (fit->flags & TB_FIT_NO_CI))
        return -1;
    if (fit->ci == TB_CI_BOOTSTRAP)
        return fit->replicates ? bootstrap_interval(fit, i, g, ctx, x, x_se, e) : -1;
    double var = delta_variance(&fit->series[i], d, theta, g, ctx, x, x_se);
    if (!(var >= 0) || !isfinite(var) || fit->dof == 0)
        return -1;
    double tq = gsl_cdf_tdist_Pinv(0.5 + fit->level / 2, (double)fit->dof);
    if (positive) {   /* symmetric in ln G, as τ's intervals are */
        double half = tq * sqrt(var) / e->value;
        e->lo = e->value * exp(-half);
        e->hi = e->value * exp(half);
    } else {
        double half = tq * sqrt(var);
        e->lo = e->value - half;
        e->hi = e->value + half;
    }
    return 0;
}
