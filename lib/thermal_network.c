/*
 * thermal_network.c -- Foster and Cauer RC networks as modes of the
 * exponential model, and their exact step-by-step simulation.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsl_errors.h"
#include "tbfit.h"

static int check(const double *r, const double *c, size_t n)
{
    if (n < 1 || n > TB_FIT_MAX_ORDER)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!(r[i] > 0) || !(c[i] > 0) || !isfinite(r[i]) || !isfinite(c[i]))
            return -1;
    return 0;
}

/* Modes in ascending τ. */
static void sort_modes(tb_modes *m)
{
    size_t order[TB_FIT_MAX_ORDER];
    tb_modes copy = *m;
    gsl_sort_index(order, copy.tau, 1, m->n);
    for (size_t i = 0; i < m->n; i++) {
        m->tau[i] = copy.tau[order[i]];
        m->gain[i] = copy.gain[order[i]];
    }
}

int tb_modes_from_foster(const double *r, const double *c, size_t n, tb_modes *m)
{
    if (check(r, c, n) < 0)
        return -1;
    memset(m, 0, sizeof *m);
    m->n = n;
    for (size_t i = 0; i < n; i++) {
        m->tau[i] = r[i] * c[i];
        m->gain[i] = r[i];
    }
    sort_modes(m);
    return 0;
}

int tb_modes_from_cauer(const double *r, const double *c, size_t n, tb_modes *m)
{
    fit_gsl_errors_off();
    if (check(r, c, n) < 0)
        return -1;
    /* G: conductances of the ladder; M = C^-½ G C^-½ is symmetric. */
    gsl_matrix *M = gsl_matrix_calloc(n, n), *V = gsl_matrix_alloc(n, n);
    gsl_vector *lambda = gsl_vector_alloc(n);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(n);
    int rc = -1;
    if (!M || !V || !lambda || !w)
        goto out;
    for (size_t i = 0; i < n; i++) {
        double g_down = 1 / r[i];                       /* node i to i+1 (or ambient) */
        double g_up = i > 0 ? 1 / r[i - 1] : 0;         /* node i-1 to i */
        gsl_matrix_set(M, i, i, (g_up + g_down) / c[i]);
        if (i + 1 < n) {
            double off = -g_down / sqrt(c[i] * c[i + 1]);
            gsl_matrix_set(M, i, i + 1, off);
            gsl_matrix_set(M, i + 1, i, off);
        }
    }
    if (gsl_eigen_symmv(M, lambda, V, w) != 0)
        goto out;
    memset(m, 0, sizeof *m);
    m->n = n;
    for (size_t i = 0; i < n; i++) {
        double l = gsl_vector_get(lambda, i), v1 = gsl_matrix_get(V, 0, i);
        m->tau[i] = 1 / l;
        m->gain[i] = v1 * v1 / (l * c[0]);
    }
    sort_modes(m);
    rc = 0;
out:
    gsl_eigen_symmv_free(w);
    gsl_vector_free(lambda);
    gsl_matrix_free(V);
    gsl_matrix_free(M);
    return rc;
}

void tb_modes_step(const tb_modes *m, double *state, double p, double dt)
{
    for (size_t i = 0; i < m->n; i++) {
        double a = exp(-dt / m->tau[i]);
        state[i] = state[i] * a + m->gain[i] * p * (1 - a);
    }
}

ssize_t tb_cauer_ladder(const double *tau, const double *gain, size_t n, double *r, double *c)
{
    double *lambda = malloc(n * sizeof *lambda), *alpha = malloc(n * sizeof *alpha);
    double *beta = malloc(n * sizeof *beta), *w = malloc(n * sizeof *w);
    double *q = malloc(n * n * sizeof *q), sum = 0, scale = 0;   /* q: row k is qₖ */
    ssize_t stages = -1;
    size_t k;

    if (n < 1 || !lambda || !alpha || !beta || !w || !q)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (!(tau[i] > 0) || !(gain[i] > 0) || !isfinite(tau[i]) || !isfinite(gain[i]))
            goto out;
        lambda[i] = 1 / tau[i];
        sum += gain[i] * lambda[i];
        scale = fmax(scale, lambda[i]);
    }
    /* The ladder's matrix C^-½ G C^-½ has the rates λᵢ as eigenvalues and
     * first components vᵢ with vᵢ² = gᵢλᵢC₁ (see tb_modes_from_cauer()):
     * Σ vᵢ² = 1 gives C₁, and Lanczos from v on diag(λ) gives the matrix. */
    double c1 = 1 / sum;
    for (size_t i = 0; i < n; i++)
        q[i] = sqrt(gain[i] * lambda[i] * c1);
    for (k = 0; k < n; k++) {
        const double *qk = q + k * n;
        alpha[k] = 0;
        for (size_t i = 0; i < n; i++)
            alpha[k] += qk[i] * lambda[i] * qk[i];
        if (k + 1 == n)
            break;
        for (size_t i = 0; i < n; i++)
            w[i] = lambda[i] * qk[i];
        /* full reorthogonalisation, twice */
        for (int pass = 0; pass < 2; pass++)
            for (size_t j = 0; j <= k; j++) {
                double d = 0;
                for (size_t i = 0; i < n; i++)
                    d += w[i] * q[j * n + i];
                for (size_t i = 0; i < n; i++)
                    w[i] -= d * q[j * n + i];
            }
        double norm = 0;
        for (size_t i = 0; i < n; i++)
            norm += w[i] * w[i];
        beta[k] = sqrt(norm);
        /* the Krylov space is exhausted (equal τ, or stages the start
         * vector barely reaches): the ladder has k + 1 stages */
        if (!(beta[k] > 1e-10 * scale))
            break;
        for (size_t i = 0; i < n; i++)
            q[(k + 1) * n + i] = w[i] / beta[k];
    }
    size_t nst = k < n ? k + 1 : n;
    /* Read the ladder off the tridiagonal matrix: the diagonal is
     * (1/Rₖ₋₁ + 1/Rₖ)/Cₖ, the off-diagonal (1/Rₖ)/√(CₖCₖ₊₁). */
    double g_up = 0;
    c[0] = c1;
    for (k = 0; k < nst; k++) {
        double g_down = alpha[k] * c[k] - g_up;
        if (!(g_down > 0) || !isfinite(g_down))
            goto out;
        r[k] = 1 / g_down;
        if (k + 1 < nst)
            c[k + 1] = g_down * g_down / (beta[k] * beta[k] * c[k]);
        g_up = g_down;
    }
    stages = (ssize_t)nst;
out:
    free(lambda);
    free(alpha);
    free(beta);
    free(w);
    free(q);
    return stages;
}

int tb_cauer_from_modes(const tb_modes *m, double *r, double *c)
{
    if (m->n < 1 || m->n > TB_FIT_MAX_ORDER)
        return -1;
    /* as many stages as modes, or the modes were not distinct */
    return tb_cauer_ladder(m->tau, m->gain, m->n, r, c) == (ssize_t)m->n ? 0 : -1;
}
