/*
 * nnls_internal.h -- non-negative least squares (Lawson and Hanson's
 * active set), on a design matrix or on its normal equations, with
 * variables that may be marked free of the bound.  Private to libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_NNLS_INTERNAL_H
#define TB_NNLS_INTERNAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/* min ‖Ax − b‖ subject to x ≥ 0, A with more rows than columns.  0, or
 * -1 when memory runs out or a subproblem is singular. */
int nnls_solve(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x);

/* The same problem given by its normal equations G = AᵀA and c = Aᵀb:
 * the work no longer grows with the rows.  FREE (NULL: none) marks the
 * variables without the bound (x ≥ 0 for the others).  0, or -1. */
int nnls_gram(const gsl_matrix *G, const gsl_vector *c, const char *free_var, gsl_vector *x);

#endif
