/*
 * fit_bootstrap.c -- confidence intervals by moving-block bootstrap.
 *
 * Residuals of real runs are autocorrelated (slow drifts, 0.1 °C
 * quantisation), so intervals from the covariance, which assume
 * independent errors, come out too narrow.  Resampling whole blocks of
 * residuals keeps their correlation: each replicate is the fitted curve
 * plus residual blocks drawn at random, refitted from the optimum.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"

/* A block covers the noise's correlation: as long as the HAC's Bartlett
 * window (Andrews' AR(1) plug-in, which sees the correlation the fit has
 * not absorbed), at least 1.5·m^(1/3) (the usual rate), at most a quarter
 * of the series.  The lag where the residuals' autocorrelation falls under
 * 0.1 was some 3× too short under AR(1) noise of 0.9. */
static size_t block_length(const gsl_vector *r)
{
    size_t m = r->size;
    size_t L = (size_t)ceil(1.5 * cbrt((double)m)), hac = fit_hac_lags(r) + 1;
    if (hac > L)
        L = hac;
    if (L > m / 4)
        L = m / 4 > 0 ? m / 4 : 1;
    return L;
}

static void percentile_interval(double *x, size_t n, double level, tb_estimate *e)
{
    gsl_sort(x, 1, n);
    e->lo = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.5 - level / 2);
    e->hi = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.5 + level / 2);
}

/* One resample into YSTAR: FITTED plus blocks of RESID drawn with
 * replacement, each series' own block length (BLOCK), or, for series
 * sampled together, the same blocks for all of them (ALIGNED, its
 * length: the longest). */
static void resample(const struct vp *vp, gsl_rng *rng, size_t aligned, const size_t *block,
                     const double *fitted, const double *resid, double *ystar)
{
    size_t ns = vp->ns, off = 0;
    for (size_t k = 0; k < (aligned ? 1 : ns); k++) {
        size_t m = vp->s[k].m, L = aligned ? aligned : block[k];
        for (size_t i = 0; i < m;) {
            size_t start = (size_t)gsl_rng_uniform_int(rng, m - L + 1);
            for (size_t l = 0; l < L && i < m; l++, i++)
                for (size_t j = 0; j < (aligned ? ns : 1); j++)
                    ystar[off + j * m + i] = fitted[off + j * m + i] + resid[off + j * m + start + l];
        }
        off += m;
    }
}

/* Each T∞, k and τ of FIT its percentile interval at LEVEL from the DONE
 * resamples of VALS (NS series of Q values, then the N τ, a row each).  0,
 * or -1 when memory runs out. */
static int take_percentiles(tb_fit *fit, const double *vals, size_t done, size_t ns, size_t q,
                            size_t n, double level)
{
    size_t nvals = ns * q + n;
    double *col = malloc(done * sizeof *col);
    if (!col)
        return -1;
    for (size_t p = 0; p < nvals; p++) {
        for (size_t b = 0; b < done; b++)
            col[b] = vals[b * nvals + p];
        tb_estimate *e = p >= ns * q ? &fit->tau[p - ns * q]
                         : p % q == 0 ? &fit->series[p / q].t_inf
                                      : &fit->series[p / q].k[p % q - 1];
        percentile_interval(col, done, level, e);
    }
    free(col);
    return 0;
}

int fit_bootstrap(struct vp *vp, const tb_series *s, tb_fit *fit,
                  const tb_fit_options *opt)
{
    size_t ns = vp->ns, n = vp->n, q = vp->q, N = (size_t)opt->bootstrap;
    size_t nvals = ns * q + n, done = 0;
    double *ystar = malloc(vp->mtot * sizeof *ystar);
    double *vals = malloc(N * nvals * sizeof *vals);
    double *fitted = malloc(vp->mtot * sizeof *fitted);
    double *resid = malloc(vp->mtot * sizeof *resid);
    size_t *block = malloc(ns * sizeof *block);
    tb_series *bs = malloc(ns * sizeof *bs);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    struct vp *bvp = NULL;
    int rc = -1;

    if (!ystar || !vals || !fitted || !resid || !block || !bs || !rng)
        goto out;
    gsl_rng_set(rng, opt->seed);
    size_t off = 0;
    for (size_t k = 0; k < ns; k++) {
        const struct vp_series *vs = &vp->s[k];
        for (size_t i = 0; i < vs->m; i++) {
            resid[off + i] = gsl_vector_get(vs->r, i);
            fitted[off + i] = vs->y[i] - resid[off + i];
        }
        block[k] = block_length(vs->r);
        fit->ci_lags = block[k] > fit->ci_lags ? block[k] : fit->ci_lags;
        bs[k] = (tb_series){s[k].t, ystar + off, s[k].n};
        off += vs->m;
    }
    if (!(bvp = vp_alloc(bs, ns, (int)n)))
        goto out;
    bvp->theta_lo = vp->theta_lo;
    bvp->theta_hi = vp->theta_hi;

    double tau0[TB_FIT_MAX_ORDER];
    for (size_t j = 0; j < n; j++)
        tau0[j] = fit->tau[j].value;
    /* Series sampled together are resampled together, block for block,
     * so that noise common to them stays common; with the longest block. */
    int aligned = ns > 1 && fit_series_aligned(s, ns);
    size_t longest = 0;
    for (size_t k = 0; k < ns; k++)
        longest = block[k] > longest ? block[k] : longest;
    for (size_t b = 0; b < N; b++) {
        resample(vp, rng, aligned ? longest : 0, block, fitted, resid, ystar);
        double tau[TB_FIT_MAX_ORDER], rss;
        int converged;
        bvp->solved = 0;
        if (vp_refine(bvp, tau0, tau, &rss, &converged) != 0 || !isfinite(rss)) {
            fit->ci_failed++;   /* left out, and reported */
            continue;
        }
        /* τ sorted, and each series' kᵢ in the same order */
        size_t order[TB_FIT_MAX_ORDER];
        gsl_sort_index(order, tau, 1, n);
        double *v = vals + done * nvals;
        for (size_t k = 0; k < ns; k++) {
            v[k * q] = gsl_vector_get(bvp->s[k].c, 0);
            for (size_t j = 0; j < n; j++)
                v[k * q + 1 + j] = gsl_vector_get(bvp->s[k].c, order[j] + 1);
        }
        for (size_t j = 0; j < n; j++)
            v[ns * q + j] = tau[order[j]];
        done++;
    }
    if (done < 10)
        goto out;
    if (take_percentiles(fit, vals, done, ns, q, n, opt->level) < 0)
        goto out;
    /* kept: quantities derived from the fit take their intervals from the
     * same resamples (tb_fit_derive()) */
    fit->replicates = vals;
    fit->nreplicates = done;
    vals = NULL;
    rc = 0;
out:
    vp_free(bvp);
    gsl_rng_free(rng);
    free(bs);
    free(block);
    free(resid);
    free(fitted);
    free(vals);
    free(ystar);
    return rc;
}
