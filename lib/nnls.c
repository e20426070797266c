/*
 * nnls.c -- non-negative least squares by Lawson and Hanson's active set
 * (Solving Least Squares Problems, 1974, ch. 23): the thermal spectrum's
 * resistances and an identified model's gains, which heat only heats.
 * One active-set loop; the subproblem on the passive variables is solved
 * by QR of the design matrix, or by Cholesky of its normal equations.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>

#include "nnls_internal.h"

#define NNLS_TOL 1e-12

struct problem {
    const gsl_matrix *A, *G;     /* one of them */
    const gsl_vector *b, *c;
    const char *free_var;
    size_t p;
    double scale;                /* of the gradient, for its tolerance */
};

/* The unconstrained least squares on the K variables of SET, into Z
 * (zero elsewhere).  0, or -1. */
static int subset_solve(const struct problem *pr, const size_t *set, size_t k, gsl_vector *z)
{
    gsl_vector_set_zero(z);
    if (k == 0)
        return 0;
    gsl_vector *x = gsl_vector_alloc(k), *tau = NULL, *res = NULL, *rhs = NULL;
    gsl_matrix *S = NULL;
    int rc = -1;
    if (!x)
        goto out;
    if (pr->A) {
        size_t m = pr->A->size1;
        S = gsl_matrix_alloc(m, k);
        tau = gsl_vector_alloc(k);
        res = gsl_vector_alloc(m);
        if (!S || !tau || !res)
            goto out;
        for (size_t j = 0; j < k; j++) {
            gsl_vector_const_view col = gsl_matrix_const_column(pr->A, set[j]);
            gsl_matrix_set_col(S, j, &col.vector);
        }
        if (gsl_linalg_QR_decomp(S, tau) != GSL_SUCCESS ||
            gsl_linalg_QR_lssolve(S, tau, pr->b, x, res) != GSL_SUCCESS)
            goto out;
    } else {
        S = gsl_matrix_alloc(k, k);
        rhs = gsl_vector_alloc(k);
        if (!S || !rhs)
            goto out;
        for (size_t i = 0; i < k; i++) {
            for (size_t j = 0; j < k; j++)
                gsl_matrix_set(S, i, j, gsl_matrix_get(pr->G, set[i], set[j]));
            gsl_vector_set(rhs, i, gsl_vector_get(pr->c, set[i]));
        }
        /* a whisker of ridge keeps Cholesky going on nearly dependent
         * columns (two modes that merge), far below the data's scale */
        for (size_t i = 0; i < k; i++)
            gsl_matrix_set(S, i, i, gsl_matrix_get(S, i, i) * (1 + 1e-12) + 1e-300);
        if (gsl_linalg_cholesky_decomp1(S) != GSL_SUCCESS ||
            gsl_linalg_cholesky_solve(S, rhs, x) != GSL_SUCCESS)
            goto out;
    }
    for (size_t j = 0; j < k; j++)
        gsl_vector_set(z, set[j], gsl_vector_get(x, j));
    rc = 0;
out:
    gsl_vector_free(x);
    gsl_vector_free(tau);
    gsl_vector_free(res);
    gsl_vector_free(rhs);
    gsl_matrix_free(S);
    return rc;
}

/* W = −½∇‖Ax − b‖²: Aᵀ(b − Ax), or c − Gx. */
static void gradient(const struct problem *pr, const gsl_vector *x, gsl_vector *w, gsl_vector *r)
{
    if (pr->A) {
        gsl_vector_memcpy(r, pr->b);
        gsl_blas_dgemv(CblasNoTrans, -1.0, pr->A, x, 1.0, r);
        gsl_blas_dgemv(CblasTrans, 1.0, pr->A, r, 0.0, w);
    } else {
        gsl_vector_memcpy(w, pr->c);
        gsl_blas_dsymv(CblasUpper, -1.0, pr->G, x, 1.0, w);
    }
}

static int is_free(const struct problem *pr, size_t j)
{
    return pr->free_var && pr->free_var[j];
}

static int active_set(const struct problem *pr, gsl_vector *x)
{
    size_t p = pr->p, np = 0;
    size_t *set = malloc(p * sizeof *set);
    char *passive = calloc(p, 1);
    gsl_vector *w = gsl_vector_alloc(p), *z = gsl_vector_alloc(p);
    gsl_vector *r = pr->A ? gsl_vector_alloc(pr->A->size1) : NULL;
    int rc = -1;

    if (!set || !passive || !w || !z || (pr->A && !r))
        goto out;
    /* the free variables start passive and stay so */
    for (size_t j = 0; j < p; j++)
        if (is_free(pr, j)) {
            passive[j] = 1;
            set[np++] = j;
        }
    if (subset_solve(pr, set, np, x) < 0)
        goto out;
    for (size_t outer = 0; outer < 3 * p + 3; outer++) {
        /* the most promising bound variable */
        gradient(pr, x, w, r);
        size_t t = p;
        double best = NNLS_TOL * pr->scale;
        for (size_t j = 0; j < p; j++)
            if (!passive[j] && gsl_vector_get(w, j) > best) {
                best = gsl_vector_get(w, j);
                t = j;
            }
        if (t == p)
            break;   /* the Kuhn–Tucker conditions hold */
        passive[t] = 1;
        for (size_t inner = 0; inner < 3 * p + 3; inner++) {
            np = 0;
            for (size_t j = 0; j < p; j++)
                if (passive[j])
                    set[np++] = j;
            if (subset_solve(pr, set, np, z) < 0)
                goto out;
            double alpha = 1;
            int feasible = 1;
            for (size_t k = 0; k < np; k++) {
                size_t j = set[k];
                double zj = gsl_vector_get(z, j), xj = gsl_vector_get(x, j);
                if (!is_free(pr, j) && zj <= 0) {
                    feasible = 0;
                    alpha = fmin(alpha, xj / (xj - zj));
                }
            }
            if (feasible) {
                gsl_vector_memcpy(x, z);
                break;
            }
            /* back towards x until a bound variable reaches 0 */
            for (size_t k = 0; k < np; k++) {
                size_t j = set[k];
                double xj = gsl_vector_get(x, j);
                xj += alpha * (gsl_vector_get(z, j) - xj);
                if (!is_free(pr, j) && xj <= NNLS_TOL) {
                    xj = 0;
                    passive[j] = 0;
                }
                gsl_vector_set(x, j, xj);
            }
        }
    }
    rc = 0;
out:
    free(set);
    free(passive);
    gsl_vector_free(w);
    gsl_vector_free(z);
    gsl_vector_free(r);
    return rc;
}

int nnls_solve(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x)
{
    struct problem pr = {.A = A, .b = b, .p = A->size2};
    pr.scale = gsl_blas_dnrm2(b);
    gsl_vector_set_zero(x);
    return active_set(&pr, x);
}

int nnls_gram(const gsl_matrix *G, const gsl_vector *c, const char *free_var, gsl_vector *x)
{
    struct problem pr = {.G = G, .c = c, .free_var = free_var, .p = G->size1};
    /* ‖Aᵀb‖ sets the gradient's scale as ‖b‖ does on the design matrix */
    pr.scale = gsl_blas_dnrm2(c) + 1e-300;
    gsl_vector_set_zero(x);
    return active_set(&pr, x);
}
