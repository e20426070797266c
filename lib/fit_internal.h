/*
 * fit_internal.h -- the variable-projection workspace shared by the fit,
 * its uncertainty and its bootstrap.  Private to libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_FIT_INTERNAL_H
#define TB_FIT_INTERNAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "tbfit.h"

struct vp_series {
    double *t;          /* times from the series' first point */
    const double *y;    /* the data, or y_fixed when T∞ is held */
    const double *y_data;
    double *y_fixed;    /* y − T∞ while vp_hold_t_inf() holds T∞ */
    int held;           /* T∞ held: A = [e₁ … eₙ], c₀ the held T∞ */
    size_t m;
    double *a;          /* Aᵀ, q rows of m: ones, then exp(−t/τⱼ) */
    double *e;          /* a + m: the exponentials, term after term */
    gsl_matrix *qt;     /* Q₁ᵀ (q × m) of the thin QR A = Q₁·R */
    gsl_matrix *R;      /* q × q, upper triangular */
    gsl_vector *c;      /* T∞, k₁ … kₙ */
    gsl_vector *r;      /* y − A·c */
    gsl_vector *work, *d;
};

struct vp {
    size_t ns, n, q, mtot;   /* series, order, n + 1, all points */
    struct vp_series *s;
    double theta_lo, theta_hi;
    double tau[TB_FIT_MAX_ORDER];   /* where the workspace was solved */
    int solved;
    int quick;   /* a comparison only: one final refinement, fewer iterations */
};

/* Two τ closer than this factor are one (TB_FIT_TAU_MERGED). */
#define FIT_MERGED_RATIO 1.5

struct vp *vp_alloc(const tb_series *series, size_t ns, int order);
void vp_free(struct vp *vp);
int vp_solve(struct vp *vp, const double *tau);
double vp_rss(const struct vp *vp);

/* Hold series K's T∞ at T_INF (NaN: free it again) for a profile: the
 * solves that follow fit only k and τ to y − T_INF.  0, or -1 when memory
 * runs out. */
int vp_hold_t_inf(struct vp *vp, size_t k, double t_inf);
int vp_refine(struct vp *vp, const double *tau0, double *tau, double *rss,
              int *converged);
int vp_search(struct vp *vp, double tau_min, double tau_max, double *tau,
              int *converged);

/* The lags of the HAC covariance's Bartlett window for a series of
 * residuals R: Andrews' (1991) AR(1) plug-in bandwidth. */
size_t fit_hac_lags(const gsl_vector *r);

/* An autoregressive filter of noise, to prewhiten its scores with: the
 * order p (0: none), φ₁ … φₚ, and the recolouring 1/(1 − Σφⱼ)². */
#define FIT_AR_MAX 16
struct fit_ar {
    size_t p;
    double phi[FIT_AR_MAX];
    double gain;
};

/* The Yule–Walker AR filter of order 0 to PMAX with the least AIC for
 * noise of autocovariances C[0 … FIT_AR_MAX] over M points. */
void fit_ar_choose(const double *c, size_t m, size_t pmax, struct fit_ar *ar);

/* Point I of X (every STRIDE-th double) whitened by AR: xᵢ − Σⱼ φⱼ·xᵢ₋ⱼ,
 * the points before the first taken as 0. */
double fit_ar_whiten(const struct fit_ar *ar, const double *x, size_t i, size_t stride);

/* Score G (P values), the SEEN-th of its sequence, prewhitened by AR into
 * GW: gᵢ − Σⱼ φⱼ·gᵢ₋ⱼ, the scores before the first taken as 0; PAST, a
 * ring of FIT_AR_MAX · P doubles, keeps the last ones (G is stored in it). */
void fit_ar_whiten_score(const struct fit_ar *ar, const double *g, size_t seen, size_t P,
                         double *past, double *gw);

/* The Newey–West sum over a sequence of scores gᵢ (P values each):
 * Σᵢ gᵢgᵢᵀ + Σₗ wₗ Σᵢ (gᵢgᵢ₋ₗᵀ + gᵢ₋ₗgᵢᵀ) with Bartlett weights
 * wₗ = 1 − l/(L+1), added into S.  Σₗ wₗ gᵢ₋ₗ is kept as two running sums
 * (of gᵢ₋ₗ and of l·gᵢ₋ₗ), so a score costs O(P²), not O(L·P²). */
struct newey_west {
    size_t P, L, i;
    double *A, *B, *h, *ring;   /* Σ gᵢ₋ₗ, Σ (L+1−l)·gᵢ₋ₗ, Σ wₗ gᵢ₋ₗ; the last L */
};

/* Start a sum of scores of P values with L lags (free(nw->A) at the
 * end): 0, or -1. */
int newey_west_start(struct newey_west *nw, size_t P, size_t L);

/* Add the score G (P values) into S, its products scaled by F: the upper
 * triangle only, until newey_west_finish(). */
void newey_west_add(struct newey_west *nw, const double *g, gsl_matrix *S, double f);

/* Forget the scores so far (a new sequence, independent of the last). */
void newey_west_restart(struct newey_west *nw);

/* The lower triangle of S from its upper one. */
void newey_west_finish(gsl_matrix *S);

/* Whether the NS series S were sampled together (one run's columns, row
 * for row): their noise at one instant may then be partly one noise,
 * which the intervals must not count once per series. */
int fit_series_aligned(const tb_series *s, size_t ns);

/* Intervals by moving-block bootstrap around the solved workspace VP
 * (solved at FIT's τ); fills FIT's lo/hi.  0, or -1. */
int fit_bootstrap(struct vp *vp, const tb_series *s, tb_fit *fit,
                  const tb_fit_options *opt);

#endif
