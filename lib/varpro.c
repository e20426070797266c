/*
 * varpro.c -- fit T∞ + Σ kᵢ·exp(−t/τᵢ) by variable projection.
 *
 * For given τ the model is linear in T∞ and kᵢ, so those come from a
 * linear least-squares solve (a thin QR) and only τ is searched: the
 * residual r(τ) = P⊥(τ)·y of that solve is what GSL's trust-region solver
 * minimises, over θ = ln τ mapped into the search range by a sine so that
 * no step can leave it.  The Jacobian is Golub and Pereyra's:
 *
 *     ∂r/∂θⱼ = −P⊥·(∂A/∂θⱼ)·c − (A⁺)ᵀ·(∂A/∂θⱼ)ᵀ·r.
 *
 * The thin QR is Gram–Schmidt applied twice (CGS2) with BLAS, which for
 * A's q ≤ 5 columns is as accurate as Householder (Giraud et al., 2005)
 * and gives Q₁ itself: every projection P⊥·v = v − Q₁·(Q₁ᵀ·v) is then two
 * matrix-vector products over contiguous rows, where applying Householder
 * reflectors costs twice that in level-1 calls.  That halves a fit's time.
 *
 * The search starts from the best points of a log-spaced τ grid, screened
 * cheaply through normal equations on a subsample; that is what finds the
 * global optimum where a single start (all τ equal, say) ends on a line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"

/* Grid points per order: enough for the basins of the optimum, few enough
 * that the combinations stay cheap (C(20,3) = 1140 at order 3). */
static const size_t grid_points[TB_FIT_MAX_ORDER + 1] = {0, 32, 28, 20, 14};
#define SCREEN_POINTS 256   /* points per series used by the grid screen */
#define STARTS 3            /* grid combinations refined */

/* Tolerances of the trust-region search over u (≈ ln τ).  LM converges
 * only linearly here (by about 1/3 an iteration: the residuals of a real
 * run are not small), so each tenfold of precision costs two iterations.
 * Steps under 1e-5 leave τ within about 1e-5 of the optimum, far inside
 * any interval, and the RSS within 1e-9 of its minimum. */
#define MAX_ITERATIONS 200
#define XTOL 1e-5
#define GTOL 1e-6
#define FTOL 1e-12

/* --- the workspace ---------------------------------------------------- */

void vp_free(struct vp *vp)
{
    if (!vp)
        return;
    for (size_t k = 0; k < vp->ns; k++) {
        struct vp_series *s = &vp->s[k];
        free(s->t);
        free(s->a);
        gsl_matrix_free(s->qt);
        gsl_matrix_free(s->R);
        gsl_vector_free(s->c);
        gsl_vector_free(s->r);
        gsl_vector_free(s->work);
        gsl_vector_free(s->d);
    }
    free(vp->s);
    free(vp);
}

struct vp *vp_alloc(const tb_series *series, size_t ns, int order)
{
    struct vp *vp = calloc(1, sizeof *vp);
    if (!vp || !(vp->s = calloc(ns, sizeof *vp->s))) {
        free(vp);
        return NULL;
    }
    vp->ns = ns;
    vp->n = (size_t)order;
    vp->q = vp->n + 1;
    for (size_t k = 0; k < ns; k++) {
        struct vp_series *s = &vp->s[k];
        size_t m = series[k].n;
        s->m = m;
        s->y = series[k].y;
        s->t = malloc(m * sizeof *s->t);
        s->a = malloc(m * vp->q * sizeof *s->a);
        s->qt = gsl_matrix_alloc(vp->q, m);
        s->R = gsl_matrix_calloc(vp->q, vp->q);
        s->c = gsl_vector_alloc(vp->q);
        s->r = gsl_vector_alloc(m);
        s->work = gsl_vector_alloc(m);
        s->d = gsl_vector_alloc(m);
        if (!s->t || !s->a || !s->qt || !s->R || !s->c || !s->r || !s->work || !s->d) {
            vp->ns = k + 1;
            vp_free(vp);
            return NULL;
        }
        s->e = s->a + m;
        for (size_t i = 0; i < m; i++)
            s->a[i] = 1;
        for (size_t i = 0; i < m; i++)
            s->t[i] = series[k].t[i] - series[k].t[0];
        vp->mtot += m;
    }
    return vp;
}

/* --- the projected residual --------------------------------------------- */

/* The thin QR of the q × m matrix AT = Aᵀ by CGS2: Q₁ᵀ into QT, R into R.
 * GSL_ESING when a column of A depends on the others (two τ equal). */
static int thin_qr(const double *at, size_t q, size_t m, gsl_matrix *qt, gsl_matrix *R)
{
    double h[TB_FIT_MAX_ORDER + 1];

    gsl_matrix_set_zero(R);
    for (size_t j = 0; j < q; j++) {
        gsl_vector_view v = gsl_matrix_row(qt, j);
        gsl_vector_const_view aj = gsl_vector_const_view_array(at + j * m, m);
        double norm_a, norm;
        gsl_vector_memcpy(&v.vector, &aj.vector);
        gsl_blas_ddot(&v.vector, &v.vector, &norm_a);
        for (int pass = 0; pass < 2 && j > 0; pass++) {
            gsl_matrix_view Q = gsl_matrix_submatrix(qt, 0, 0, j, m);
            gsl_vector_view hv = gsl_vector_view_array(h, j);
            gsl_blas_dgemv(CblasNoTrans, 1.0, &Q.matrix, &v.vector, 0.0, &hv.vector);
            gsl_blas_dgemv(CblasTrans, -1.0, &Q.matrix, &hv.vector, 1.0, &v.vector);
            for (size_t i = 0; i < j; i++)
                *gsl_matrix_ptr(R, i, j) += h[i];
        }
        gsl_blas_ddot(&v.vector, &v.vector, &norm);
        if (!(norm > 1e-26 * norm_a))
            return GSL_ESING;
        norm = sqrt(norm);
        gsl_matrix_set(R, j, j, norm);
        gsl_vector_scale(&v.vector, 1 / norm);
    }
    return GSL_SUCCESS;
}

/* Solve the linear part for TAU: per series, the thin QR of
 * A = [1, e₁ … eₙ], the coefficients c = (T∞, k₁ … kₙ) = R⁻¹·Q₁ᵀ·y and
 * the residual r = y − Q₁·Q₁ᵀ·y. */
int vp_solve(struct vp *vp, const double *tau)
{
    size_t n = vp->n, q = vp->q;

    for (size_t k = 0; k < vp->ns; k++) {
        struct vp_series *s = &vp->s[k];
        for (size_t j = 0; j < n; j++) {
            double rate = 1 / tau[j];
            double *e = s->e + j * s->m;
            for (size_t i = 0; i < s->m; i++)
                e[i] = exp(-s->t[i] * rate);
        }
        int status = thin_qr(s->a, q, s->m, s->qt, s->R);
        if (status != GSL_SUCCESS)
            return status;
        gsl_vector_const_view y = gsl_vector_const_view_array(s->y, s->m);
        gsl_blas_dgemv(CblasNoTrans, 1.0, s->qt, &y.vector, 0.0, s->c);
        gsl_vector_memcpy(s->r, &y.vector);
        gsl_blas_dgemv(CblasTrans, -1.0, s->qt, s->c, 1.0, s->r);
        gsl_blas_dtrsv(CblasUpper, CblasNoTrans, CblasNonUnit, s->R, s->c);
    }
    memcpy(vp->tau, tau, n * sizeof *tau);
    vp->solved = 1;
    return GSL_SUCCESS;
}

double vp_rss(const struct vp *vp)
{
    double rss = 0;
    for (size_t k = 0; k < vp->ns; k++) {
        double d;
        gsl_blas_ddot(vp->s[k].r, vp->s[k].r, &d);
        rss += d;
    }
    return rss;
}

/* θ = ln τ from the unbounded search variable u, and dθ/du. */
static double theta_of(const struct vp *vp, double u, double *dtheta)
{
    double half = (vp->theta_hi - vp->theta_lo) / 2;
    if (dtheta)
        *dtheta = half * cos(u);
    return vp->theta_lo + half * (1 + sin(u));
}

static double u_of(const struct vp *vp, double theta)
{
    double x = 2 * (theta - vp->theta_lo) / (vp->theta_hi - vp->theta_lo) - 1;
    return asin(x < -1 ? -1 : x > 1 ? 1 : x);
}

static int solve_at(struct vp *vp, const gsl_vector *u)
{
    double tau[TB_FIT_MAX_ORDER];
    int same = vp->solved;
    for (size_t j = 0; j < vp->n; j++) {
        tau[j] = exp(theta_of(vp, gsl_vector_get(u, j), NULL));
        same = same && tau[j] == vp->tau[j];
    }
    return same ? GSL_SUCCESS : vp_solve(vp, tau);
}

static int residual_f(const gsl_vector *u, void *params, gsl_vector *f)
{
    struct vp *vp = params;
    int status = solve_at(vp, u);
    if (status != GSL_SUCCESS)
        return status;
    size_t row = 0;
    for (size_t k = 0; k < vp->ns; k++) {
        const struct vp_series *s = &vp->s[k];
        for (size_t i = 0; i < s->m; i++)
            gsl_vector_set(f, row++, gsl_vector_get(s->r, i));
    }
    return GSL_SUCCESS;
}

static int residual_df(const gsl_vector *u, void *params, gsl_matrix *J)
{
    struct vp *vp = params;
    size_t n = vp->n, q = vp->q;
    int status = solve_at(vp, u);
    if (status != GSL_SUCCESS)
        return status;

    size_t row0 = 0;
    for (size_t k = 0; k < vp->ns; k++) {
        struct vp_series *s = &vp->s[k];
        double h[TB_FIT_MAX_ORDER + 1];
        gsl_vector_view hv = gsl_vector_view_array(h, q);
        for (size_t j = 0; j < n; j++) {
            double dtheta, cj = gsl_vector_get(s->c, j + 1);
            double rate = 1 / vp->tau[j], w;
            const double *e = s->e + j * s->m;
            double *d = s->d->data;
            theta_of(vp, gsl_vector_get(u, j), &dtheta);

            /* d = (t/τⱼ)·eⱼ, the column j of ∂A/∂θⱼ */
            for (size_t i = 0; i < s->m; i++)
                d[i] = s->t[i] * rate * e[i];
            gsl_blas_ddot(s->d, s->r, &w);

            /* work = P⊥·(∂A/∂θⱼ)·c = cⱼ·(d − Q₁·Q₁ᵀ·d) */
            gsl_vector_memcpy(s->work, s->d);
            gsl_blas_dgemv(CblasNoTrans, 1.0, s->qt, s->d, 0.0, &hv.vector);
            gsl_blas_dgemv(CblasTrans, -1.0, s->qt, &hv.vector, 1.0, s->work);
            gsl_vector_scale(s->work, cj);

            /* + (A⁺)ᵀ·(∂A/∂θⱼ)ᵀ·r = Q₁·R⁻ᵀ·(w·unit j+1) */
            memset(h, 0, sizeof h);
            h[j + 1] = w;
            gsl_blas_dtrsv(CblasUpper, CblasTrans, CblasNonUnit, s->R, &hv.vector);
            gsl_blas_dgemv(CblasTrans, 1.0, s->qt, &hv.vector, 1.0, s->work);

            for (size_t i = 0; i < s->m; i++)
                gsl_matrix_set(J, row0 + i, j, -gsl_vector_get(s->work, i) * dtheta);
        }
        row0 += s->m;
    }
    return GSL_SUCCESS;
}

/* --- the grid screen ---------------------------------------------------- */

struct screen_series {
    gsl_matrix *gram;   /* [1, E_1..E_G]ᵀ·[1, E_1..E_G] on the subsample */
    gsl_vector *rhs;    /* [1, E]ᵀ·(y − ȳ) */
    double yy;          /* Σ (y − ȳ)² */
};

static int screen_prepare(const struct vp *vp, const double *grid, size_t G,
                          struct screen_series *ss)
{
    for (size_t k = 0; k < vp->ns; k++) {
        const struct vp_series *s = &vp->s[k];
        size_t m = s->m < SCREEN_POINTS ? s->m : SCREEN_POINTS;
        gsl_matrix *M = gsl_matrix_alloc(m, G + 1);
        gsl_vector *yc = gsl_vector_alloc(m);
        ss[k].gram = gsl_matrix_alloc(G + 1, G + 1);
        ss[k].rhs = gsl_vector_alloc(G + 1);
        if (!M || !yc || !ss[k].gram || !ss[k].rhs) {
            gsl_matrix_free(M);
            gsl_vector_free(yc);
            return -1;
        }
        double mean = 0;
        for (size_t i = 0; i < m; i++) {
            size_t src = m == s->m ? i : (size_t)((double)i * (double)(s->m - 1) / (double)(m - 1));
            gsl_matrix_set(M, i, 0, 1);
            for (size_t g = 0; g < G; g++)
                gsl_matrix_set(M, i, g + 1, exp(-s->t[src] / grid[g]));
            gsl_vector_set(yc, i, s->y[src]);
            mean += s->y[src];
        }
        gsl_vector_add_constant(yc, -mean / (double)m);
        gsl_blas_dsyrk(CblasUpper, CblasTrans, 1.0, M, 0.0, ss[k].gram);
        gsl_blas_dgemv(CblasTrans, 1.0, M, yc, 0.0, ss[k].rhs);
        gsl_blas_ddot(yc, yc, &ss[k].yy);
        gsl_matrix_free(M);
        gsl_vector_free(yc);
    }
    return 0;
}

/* RSS of the grid combination IDX, from the normal equations. */
static double screen_rss(const struct vp *vp, const struct screen_series *ss,
                         const size_t *idx)
{
    size_t q = vp->q;
    double a[(TB_FIT_MAX_ORDER + 1) * (TB_FIT_MAX_ORDER + 1)], b[TB_FIT_MAX_ORDER + 1];
    double x[TB_FIT_MAX_ORDER + 1], rss = 0;
    size_t col[TB_FIT_MAX_ORDER + 1];

    col[0] = 0;
    for (size_t j = 0; j < vp->n; j++)
        col[j + 1] = idx[j] + 1;
    for (size_t k = 0; k < vp->ns; k++) {
        for (size_t i = 0; i < q; i++) {
            b[i] = gsl_vector_get(ss[k].rhs, col[i]);
            for (size_t j = 0; j < q; j++) {
                size_t r = col[i] < col[j] ? col[i] : col[j];
                size_t c = col[i] < col[j] ? col[j] : col[i];
                a[i * q + j] = gsl_matrix_get(ss[k].gram, r, c);
            }
        }
        gsl_matrix_view A = gsl_matrix_view_array(a, q, q);
        gsl_vector_view B = gsl_vector_view_array(b, q);
        gsl_vector_view X = gsl_vector_view_array(x, q);
        if (gsl_linalg_cholesky_decomp1(&A.matrix) != GSL_SUCCESS ||
            gsl_linalg_cholesky_solve(&A.matrix, &B.vector, &X.vector) != GSL_SUCCESS)
            return INFINITY;
        double bx;
        gsl_blas_ddot(&B.vector, &X.vector, &bx);
        rss += ss[k].yy - bx;
    }
    return rss;
}

/* The STARTS best combinations of n grid points, ascending, into BEST. */
static size_t screen(const struct vp *vp, const double *grid, size_t G,
                     size_t best[][TB_FIT_MAX_ORDER])
{
    size_t n = vp->n, found = 0, idx[TB_FIT_MAX_ORDER];
    double best_rss[STARTS];
    struct screen_series *ss = calloc(vp->ns, sizeof *ss);

    if (!ss)
        return 0;
    if (screen_prepare(vp, grid, G, ss) == 0) {
        for (size_t j = 0; j < n; j++)
            idx[j] = j;
        for (;;) {
            double rss = screen_rss(vp, ss, idx);
            /* insert into the sorted list of the best */
            size_t pos = found < STARTS ? found : STARTS;
            while (pos > 0 && best_rss[pos - 1] > rss)
                pos--;
            if (pos < STARTS && isfinite(rss)) {
                size_t last = found < STARTS ? found : STARTS - 1;
                for (size_t p = last; p > pos; p--) {
                    best_rss[p] = best_rss[p - 1];
                    memcpy(best[p], best[p - 1], sizeof best[p]);
                }
                best_rss[pos] = rss;
                memcpy(best[pos], idx, sizeof idx);
                if (found < STARTS)
                    found++;
            }
            /* next combination idx[0] < idx[1] < … < idx[n-1] < G */
            size_t j = n;
            while (j > 0 && idx[j - 1] == G - n + j - 1)
                j--;
            if (j == 0)
                break;
            idx[j - 1]++;
            for (size_t l = j; l < n; l++)
                idx[l] = idx[l - 1] + 1;
        }
    }
    for (size_t k = 0; k < vp->ns; k++) {
        gsl_matrix_free(ss[k].gram);
        gsl_vector_free(ss[k].rhs);
    }
    free(ss);
    return found;
}

/* --- the search ------------------------------------------------------------ */

/* Refine from TAU0 with GSL's trust-region solver; on success TAU holds the
 * optimum (unsorted), *RSS its value, *CONVERGED whether it converged. */
int vp_refine(struct vp *vp, const double *tau0, double *tau, double *rss,
              int *converged)
{
    size_t n = vp->n;
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf = {
        .f = residual_f, .df = residual_df, .fvv = NULL,
        .n = vp->mtot, .p = n, .params = vp,
    };
    params.trs = gsl_multifit_nlinear_trs_lm;
    params.scale = gsl_multifit_nlinear_scale_more;
    /* J has at most 4 columns: the normal equations (n × n) are far cheaper
     * than a QR of the m × n J, and the modified Cholesky factorisation
     * stays defined when two τ merge and JᵀJ turns singular. */
    params.solver = gsl_multifit_nlinear_solver_mcholesky;

    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, vp->mtot, n);
    gsl_vector *u = gsl_vector_alloc(n);
    if (!w || !u) {
        gsl_multifit_nlinear_free(w);
        gsl_vector_free(u);
        return GSL_ENOMEM;
    }
    for (size_t j = 0; j < n; j++)
        gsl_vector_set(u, j, u_of(vp, log(tau0[j])));

    int info = 0;
    int status = gsl_multifit_nlinear_init(u, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(MAX_ITERATIONS, XTOL, GTOL, FTOL,
                                             NULL, NULL, &info, w);
    /* "No progress" is a minimum the solver cannot improve on. */
    if (status == GSL_ENOPROG)
        status = GSL_SUCCESS;
    *converged = status == GSL_SUCCESS;
    if (status == GSL_SUCCESS || status == GSL_EMAXITER) {
        const gsl_vector *x = gsl_multifit_nlinear_position(w);
        for (size_t j = 0; j < n; j++)
            tau[j] = exp(theta_of(vp, gsl_vector_get(x, j), NULL));
        status = vp_solve(vp, tau);
        *rss = vp_rss(vp);
    }
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(u);
    return status;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether start K is a grid neighbour of an earlier one: it would only
 * climb down into the same basin. */
static int near_earlier_start(size_t starts[][TB_FIT_MAX_ORDER], size_t k, size_t n)
{
    for (size_t e = 0; e < k; e++) {
        int near = 1;
        for (size_t j = 0; j < n; j++)
            near &= starts[k][j] + 1 >= starts[e][j] && starts[e][j] + 1 >= starts[k][j];
        if (near)
            return 1;
    }
    return 0;
}

/* The global search: the grid screen, then a refinement from each of its
 * best points.  TAU gets the best τ, sorted; the workspace is left solved
 * at it.  Returns 0, or -1 when no start could be refined. */
int vp_search(struct vp *vp, double tau_min, double tau_max, double *tau,
              int *converged)
{
    size_t G = grid_points[vp->n], n = vp->n;
    double grid[64], best_rss = INFINITY, best_tau[TB_FIT_MAX_ORDER];
    size_t starts[STARTS][TB_FIT_MAX_ORDER];
    int best_converged = 0;

    vp->theta_lo = log(tau_min);
    vp->theta_hi = log(tau_max);
    for (size_t g = 0; g < G; g++)
        grid[g] = exp(vp->theta_lo + (vp->theta_hi - vp->theta_lo) * ((double)g + 0.5) / (double)G);
    size_t nstarts = screen(vp, grid, G, starts);

    for (size_t k = 0; k < nstarts; k++) {
        double tau0[TB_FIT_MAX_ORDER], t[TB_FIT_MAX_ORDER], rss;
        int conv;
        if (near_earlier_start(starts, k, n))
            continue;
        for (size_t j = 0; j < n; j++)
            tau0[j] = grid[starts[k][j]];
        if (vp_refine(vp, tau0, t, &rss, &conv) != GSL_SUCCESS || !isfinite(rss))
            continue;
        if (rss < best_rss) {
            best_rss = rss;
            best_converged = conv;
            memcpy(best_tau, t, sizeof t);
        }
    }
    if (!isfinite(best_rss))
        return -1;
    qsort(best_tau, n, sizeof *best_tau, compare_double);
    memcpy(tau, best_tau, n * sizeof *tau);
    *converged = best_converged;
    return vp_solve(vp, tau) == GSL_SUCCESS ? 0 : -1;
}
