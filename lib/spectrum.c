/*
 * spectrum.c -- the time-constant spectrum of a Zth curve and its
 * cumulative structure function, after the network identification by
 * deconvolution of T3Ster and PyRth: Zth(t) = Σⱼ Rⱼ(1 − e^(−t/τⱼ)) on a
 * log-τ grid, the Rⱼ found by Tikhonov-regularised non-negative least
 * squares (Lawson and Hanson's active set), the regularisation chosen at
 * the corner of the L-curve (GSL), then the Cauer ladder of the
 * resulting Foster network: ΣC against ΣR from the heat source out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsl_errors.h"
#include "nnls_internal.h"
#include "tbfit.h"

/* The regularisation at the L-curve's corner for the unconstrained
 * problem (GSL), or NaN. */
static double lcurve_lambda(const gsl_matrix *A, const gsl_vector *b)
{
    enum { NPOINTS = 100 };
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(A->size1, A->size2);
    gsl_vector *reg = gsl_vector_alloc(NPOINTS), *rho = gsl_vector_alloc(NPOINTS),
               *eta = gsl_vector_alloc(NPOINTS);
    double lambda = NAN;
    size_t idx;
    if (w && reg && rho && eta && gsl_multifit_linear_svd(A, w) == GSL_SUCCESS &&
        gsl_multifit_linear_lcurve(b, reg, rho, eta, w) == GSL_SUCCESS &&
        gsl_multifit_linear_lcorner(rho, eta, &idx) == GSL_SUCCESS)
        lambda = gsl_vector_get(reg, idx);
    gsl_multifit_linear_free(w);
    gsl_vector_free(reg);
    gsl_vector_free(rho);
    gsl_vector_free(eta);
    return lambda;
}

/* SP's peaks: runs of stages with R, each summed, split at a valley
 * under a third of the run's top so far. */
static void find_peaks(tb_spectrum *sp)
{
    size_t p = sp->n;
    double total = sp->r_total;
    for (size_t j = 0; j < p && sp->npeaks < TB_SPECTRUM_MAX_PEAKS;) {
        if (!(sp->r[j] > 1e-6 * total)) {
            j++;
            continue;
        }
        double sum = 0, lsum = 0, top = 0;
        for (; j < p && sp->r[j] > 1e-6 * total; j++) {
            sum += sp->r[j];
            lsum += sp->r[j] * log(sp->tau[j]);
            top = fmax(top, sp->r[j]);
            if (j > 0 && j + 1 < p && sp->r[j] < sp->r[j - 1] && sp->r[j] < sp->r[j + 1] &&
                sp->r[j] < top / 3) {
                j++;
                break;
            }
        }
        sp->peak_r[sp->npeaks] = sum;
        sp->peak_tau[sp->npeaks++] = exp(lsum / sum);
    }
}

/* SP's structure function: the Cauer ladder of its stages, summed.  0,
 * or -1 when memory runs out. */
static int structure_function(tb_spectrum *sp)
{
    size_t p = sp->n, k = 0;
    double total = sp->r_total;
    double *tau = malloc(p * sizeof *tau), *gain = malloc(p * sizeof *gain);
    sp->cum_r = malloc(p * sizeof *sp->cum_r);
    sp->cum_c = malloc(p * sizeof *sp->cum_c);
    if (!tau || !gain || !sp->cum_r || !sp->cum_c) {
        free(tau);
        free(gain);
        return -1;
    }
    for (size_t j = 0; j < p; j++)
        if (sp->r[j] > 1e-9 * total) {
            tau[k] = sp->tau[j];
            gain[k++] = sp->r[j];
        }
    ssize_t stages = k ? tb_cauer_ladder(tau, gain, k, sp->cum_r, sp->cum_c) : -1;
    free(tau);
    free(gain);
    if (stages <= 0) {
        sp->flags |= TB_SPECTRUM_LADDER_INEXACT;
        return 0;
    }
    sp->nladder = (size_t)stages;
    for (size_t s = 1; s < sp->nladder; s++) {
        sp->cum_r[s] += sp->cum_r[s - 1];
        sp->cum_c[s] += sp->cum_c[s - 1];
    }
    /* a ladder that does not add up to the spectrum lost precision */
    if (fabs(sp->cum_r[sp->nladder - 1] / total - 1) > 0.01)
        sp->flags |= TB_SPECTRUM_LADDER_INEXACT;
    return 0;
}

int tb_thermal_spectrum(const tb_zth_point *z, size_t nz, double period, double duration,
                        int per_decade, tb_spectrum *sp, char *err, size_t errlen)
{
    fit_gsl_errors_off();
    memset(sp, 0, sizeof *sp);
    sp->lambda = NAN;
    if (!(period > 0) || !(duration > 2 * period) || per_decade < 1 || per_decade > 100) {
        snprintf(err, errlen, "no time-constant grid from a period of %g s over %g s", period,
                 duration);
        return -1;
    }
    /* τ from the sampling period to ten times the run: what the data can
     * say something of, and beyond, so that the slowest mode has room */
    double lo = period, hi = 10 * duration;
    size_t p = (size_t)ceil(log10(hi / lo) * per_decade) + 1, m = nz;
    if (m < p + 2) {
        snprintf(err, errlen, "%zu points of Zth are too few for a spectrum of %zu time "
                 "constants", m, p);
        return -1;
    }
    sp->n = p;
    sp->tau = malloc(p * sizeof *sp->tau);
    sp->r = calloc(p, sizeof *sp->r);
    gsl_matrix *A = gsl_matrix_alloc(m, p), *Aug = gsl_matrix_calloc(m + p, p);
    gsl_vector *b = gsl_vector_alloc(m), *baug = gsl_vector_calloc(m + p), *x = gsl_vector_alloc(p);
    int rc = -1;
    if (!sp->tau || !sp->r || !A || !Aug || !b || !baug || !x) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < p; j++)
        sp->tau[j] = lo * pow(10, (double)j / per_decade);
    /* each bin weighted by its points: the late bins average many */
    for (size_t i = 0; i < m; i++) {
        double w = sqrt((double)z[i].n);
        for (size_t j = 0; j < p; j++)
            gsl_matrix_set(A, i, j, w * -expm1(-z[i].t / sp->tau[j]));
        gsl_vector_set(b, i, w * z[i].data);
    }
    sp->lambda = lcurve_lambda(A, b);
    if (!isfinite(sp->lambda)) {
        snprintf(err, errlen, "the L-curve has no corner: no regularisation found");
        goto out;
    }
    gsl_matrix_view top = gsl_matrix_submatrix(Aug, 0, 0, m, p);
    gsl_matrix_memcpy(&top.matrix, A);
    for (size_t j = 0; j < p; j++)
        gsl_matrix_set(Aug, m + j, j, sp->lambda);
    gsl_vector_view btop = gsl_vector_subvector(baug, 0, m);
    gsl_vector_memcpy(&btop.vector, b);
    if (nnls_solve(Aug, baug, x) < 0) {
        snprintf(err, errlen, "the non-negative least squares failed");
        goto out;
    }
    double total = 0, outside = 0;
    sp->resolved_lo = 3 * period;
    sp->resolved_hi = duration / 3;
    for (size_t j = 0; j < p; j++) {
        sp->r[j] = gsl_vector_get(x, j);
        total += sp->r[j];
        if (sp->tau[j] < sp->resolved_lo || sp->tau[j] > sp->resolved_hi)
            outside += sp->r[j];
    }
    sp->r_total = total;
    find_peaks(sp);
    if (total > 0 && outside > 0.05 * total)
        sp->flags |= TB_SPECTRUM_UNRESOLVED;
    if (structure_function(sp) < 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    rc = 0;
out:
    gsl_matrix_free(A);
    gsl_matrix_free(Aug);
    gsl_vector_free(b);
    gsl_vector_free(baug);
    gsl_vector_free(x);
    if (rc < 0)
        tb_spectrum_clear(sp);
    return rc;
}

void tb_spectrum_clear(tb_spectrum *sp)
{
    if (!sp)
        return;
    free(sp->tau);
    free(sp->r);
    free(sp->cum_r);
    free(sp->cum_c);
    memset(sp, 0, sizeof *sp);
    sp->lambda = NAN;
}
