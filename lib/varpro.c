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
#define STARTS 8            /* basins of the screen refined, lowest first */

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
        free(s->y_fixed);
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
        s->y = s->y_data = series[k].y;
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

/* E = exp(−t·RATE) at the series' times, in a fraction of the time of
 * exp() a point (it was a fifth of a fit's): each from the one before,
 * times exp(−Δ·RATE) for the interval Δ between them, which exp() gives
 * once for a run's period (or again where the period changes, as in the
 * thinned copy of a run or across a gap) and its Taylor series corrects
 * for the jitter δ where |δ·RATE| < 1e-3 (the error of its five terms
 * under 1e-21).  Every 32nd point is exp() itself, so the products'
 * rounding stays under 1e-14. */
static void exp_column(const struct vp_series *s, double rate, double *e)
{
    double period = NAN, q = 0;   /* the interval exp() was last taken of, and its exp */
    for (size_t i = 0; i < s->m; i++) {
        if (i % 32 == 0 || !(e[i - 1] > 1e-290)) {   /* no denormals to crawl through */
            e[i] = exp(-s->t[i] * rate);
            continue;
        }
        double dt = s->t[i] - s->t[i - 1], x = (dt - period) * rate;
        if (!(fabs(x) < 1e-3)) {
            period = dt;
            q = exp(-dt * rate);
            x = 0;
        }
        /* the factor apart, so that only one product waits on e[i − 1] */
        double f = q * (1 - x * (1 - x / 2 * (1 - x / 3 * (1 - x / 4 * (1 - x / 5)))));
        e[i] = e[i - 1] * f;
    }
}

/* Solve the linear part for TAU: per series, the thin QR of
 * A = [1, e₁ … eₙ] (without the 1 while T∞ is held), the coefficients
 * c = (T∞, k₁ … kₙ) = R⁻¹·Q₁ᵀ·y and the residual r = y − Q₁·Q₁ᵀ·y. */
int vp_solve(struct vp *vp, const double *tau)
{
    size_t n = vp->n;

    for (size_t k = 0; k < vp->ns; k++) {
        struct vp_series *s = &vp->s[k];
        size_t off = s->held ? 1 : 0, q = vp->q - off;
        for (size_t j = 0; j < n; j++) {
            exp_column(s, 1 / tau[j], s->e + j * s->m);
        }
        gsl_matrix_view qt = gsl_matrix_submatrix(s->qt, 0, 0, q, s->m);
        gsl_matrix_view R = gsl_matrix_submatrix(s->R, 0, 0, q, q);
        gsl_vector_view c = gsl_vector_subvector(s->c, off, q);
        int status = thin_qr(s->a + off * s->m, q, s->m, &qt.matrix, &R.matrix);
        if (status != GSL_SUCCESS)
            return status;
        gsl_vector_const_view y = gsl_vector_const_view_array(s->y, s->m);
        gsl_blas_dgemv(CblasNoTrans, 1.0, &qt.matrix, &y.vector, 0.0, &c.vector);
        gsl_vector_memcpy(s->r, &y.vector);
        gsl_blas_dgemv(CblasTrans, -1.0, &qt.matrix, &c.vector, 1.0, s->r);
        gsl_blas_dtrsv(CblasUpper, CblasNoTrans, CblasNonUnit, &R.matrix, &c.vector);
    }
    memcpy(vp->tau, tau, n * sizeof *tau);
    vp->solved = 1;
    return GSL_SUCCESS;
}

int vp_hold_t_inf(struct vp *vp, size_t k, double t_inf)
{
    struct vp_series *s = &vp->s[k];
    vp->solved = 0;
    if (isnan(t_inf)) {
        s->held = 0;
        s->y = s->y_data;
        return 0;
    }
    if (!s->y_fixed && !(s->y_fixed = malloc(s->m * sizeof *s->y_fixed)))
        return -1;
    for (size_t i = 0; i < s->m; i++)
        s->y_fixed[i] = s->y_data[i] - t_inf;
    s->y = s->y_fixed;
    s->held = 1;
    gsl_vector_set(s->c, 0, t_inf);
    return 0;
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
    size_t n = vp->n;
    int status = solve_at(vp, u);
    if (status != GSL_SUCCESS)
        return status;

    size_t row0 = 0;
    for (size_t k = 0; k < vp->ns; k++) {
        struct vp_series *s = &vp->s[k];
        size_t off = s->held ? 1 : 0, q = vp->q - off;   /* held: no column of ones */
        double h[TB_FIT_MAX_ORDER + 1];
        gsl_vector_view hv = gsl_vector_view_array(h, q);
        gsl_matrix_view qt = gsl_matrix_submatrix(s->qt, 0, 0, q, s->m);
        gsl_matrix_view R = gsl_matrix_submatrix(s->R, 0, 0, q, q);
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
            gsl_blas_dgemv(CblasNoTrans, 1.0, &qt.matrix, s->d, 0.0, &hv.vector);
            gsl_blas_dgemv(CblasTrans, -1.0, &qt.matrix, &hv.vector, 1.0, s->work);
            gsl_vector_scale(s->work, cj);

            /* + (A⁺)ᵀ·(∂A/∂θⱼ)ᵀ·r = Q₁·R⁻ᵀ·(w·unit j+1) */
            memset(h, 0, sizeof h);
            h[j + 1 - off] = w;
            gsl_blas_dtrsv(CblasUpper, CblasTrans, CblasNonUnit, &R.matrix, &hv.vector);
            gsl_blas_dgemv(CblasTrans, 1.0, &qt.matrix, &hv.vector, 1.0, s->work);

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

/* Next combination IDX[0] < IDX[1] < … < IDX[N-1] < G; 0 after the last. */
static int next_combination(size_t *idx, size_t n, size_t G)
{
    size_t j = n;
    while (j > 0 && idx[j - 1] == G - n + j - 1)
        j--;
    if (j == 0)
        return 0;
    idx[j - 1]++;
    for (size_t l = j; l < n; l++)
        idx[l] = idx[l - 1] + 1;
    return 1;
}

static size_t table_index(const size_t *idx, size_t n, size_t G)
{
    size_t r = 0;
    for (size_t j = 0; j < n; j++)
        r = r * G + idx[j];
    return r;
}

/* Whether combination IDX is a basin of the screened RSS in TABLE: no
 * neighbour (one τ a grid step away, the others kept) lies lower; of equal
 * ones, the first in index order counts. */
static int is_basin(const double *table, const size_t *idx, size_t n, size_t G)
{
    size_t here = table_index(idx, n, G), nb[TB_FIT_MAX_ORDER];
    double rss = table[here];
    for (size_t j = 0; j < n; j++) {
        for (int d = -1; d <= 1; d += 2) {
            memcpy(nb, idx, n * sizeof *nb);
            if ((d < 0 && nb[j] == 0) || (d > 0 && nb[j] + 1 >= G))
                continue;
            nb[j] = d < 0 ? nb[j] - 1 : nb[j] + 1;
            if ((j > 0 && nb[j] <= nb[j - 1]) || (j + 1 < n && nb[j] >= nb[j + 1]))
                continue;
            size_t there = table_index(nb, n, G);
            if (table[there] < rss || (table[there] == rss && there < here))
                return 0;
        }
    }
    return 1;
}

/* The grid screen: the RSS of every combination of n grid points, then
 * the STARTS lowest basins (distinct local minima of it), best first, into
 * BEST.  Neighbouring cells of one basin would only climb down to the same
 * optimum; distinct basins reach the distinct optima, ordinary ones inside
 * the range and those on its bounds. */
static size_t screen(const struct vp *vp, const double *grid, size_t G,
                     size_t best[][TB_FIT_MAX_ORDER])
{
    size_t n = vp->n, found = 0, idx[TB_FIT_MAX_ORDER], cells = 1;
    double best_rss[STARTS];
    struct screen_series *ss = calloc(vp->ns, sizeof *ss);

    for (size_t j = 0; j < n; j++)
        cells *= G;
    double *table = malloc(cells * sizeof *table);
    if (!ss || !table || screen_prepare(vp, grid, G, ss) < 0)
        goto out;
    for (size_t c = 0; c < cells; c++)
        table[c] = INFINITY;
    for (size_t j = 0; j < n; j++)
        idx[j] = j;
    do {
        double rss = screen_rss(vp, ss, idx);
        table[table_index(idx, n, G)] = isfinite(rss) ? rss : INFINITY;
    } while (next_combination(idx, n, G));
    for (size_t j = 0; j < n; j++)
        idx[j] = j;
    do {
        double rss = table[table_index(idx, n, G)];
        if (!isfinite(rss) || !is_basin(table, idx, n, G))
            continue;
        /* insert into the sorted list of the lowest basins */
        size_t pos = found < STARTS ? found : STARTS;
        while (pos > 0 && best_rss[pos - 1] > rss)
            pos--;
        if (pos >= STARTS)
            continue;
        size_t last = found < STARTS ? found : STARTS - 1;
        for (size_t p = last; p > pos; p--) {
            best_rss[p] = best_rss[p - 1];
            memcpy(best[p], best[p - 1], sizeof best[p]);
        }
        best_rss[pos] = rss;
        memcpy(best[pos], idx, sizeof idx);
        if (found < STARTS)
            found++;
    } while (next_combination(idx, n, G));
out:
    for (size_t k = 0; ss && k < vp->ns; k++) {
        gsl_matrix_free(ss[k].gram);
        gsl_vector_free(ss[k].rhs);
    }
    free(ss);
    free(table);
    return found;
}

/* --- the search ------------------------------------------------------------ */

/* Refine from TAU0 with GSL's trust-region solver, at most MAX_ITER
 * iterations to steps under XTOL; on success TAU holds the optimum
 * (unsorted), *RSS its value, *CONVERGED whether it converged. */
static int refine(struct vp *vp, const double *tau0, double *tau, double *rss,
                  int *converged, size_t max_iter, double xtol)
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
        status = gsl_multifit_nlinear_driver(max_iter, xtol, GTOL, FTOL,
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

int vp_refine(struct vp *vp, const double *tau0, double *tau, double *rss,
              int *converged)
{
    return refine(vp, tau0, tau, rss, converged, MAX_ITERATIONS, XTOL);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The coarse stage: every basin refined on a thinned copy of the series
 * (its first COARSE_HEAD points, where a short τ shows, then evenly spaced
 * ones up to COARSE_POINTS) to a loose tolerance.  Only the FINAL lowest
 * distinct optima it finds are refined on every point: a basin costs a
 * fraction of a full refinement, and every basin is still explored. */
#define COARSE_HEAD 48
#define COARSE_POINTS 480
#define COARSE_ITERATIONS 40
#define COARSE_XTOL 1e-3
#define FINAL 3

/* A quick search (vp->quick: the next order, fitted only to be compared
 * with the chosen one) refines only the lowest coarse optimum in full,
 * and stops after QUICK_ITERATIONS where it has got to: a sound extra
 * term converges in 3–20, while a redundant one crawls along the valley
 * of two merging τ, which was 80 % of tb-fit's time at order 3.  Where it
 * stops, its RSS is above the optimum's, so the comparison can only
 * understate what the next order gains, never invent a gain.  A lowest
 * coarse optimum with merged τ is not refined at all: merged, the next
 * order never counts (see tb_fit_check_order()). */
#define QUICK_ITERATIONS 40

/* A thinned copy of the series S (NS of them) into T and Y (caller frees
 * T[k]); 0, or -1 when memory runs out. */
static int thin_series(const struct vp *vp, tb_series *out)
{
    for (size_t k = 0; k < vp->ns; k++) {
        const struct vp_series *s = &vp->s[k];
        size_t m = s->m <= COARSE_POINTS ? s->m : COARSE_POINTS;
        double *buf = malloc(2 * m * sizeof *buf);
        if (!buf)
            return -1;
        out[k] = (tb_series){buf, buf + m, m};
        for (size_t i = 0; i < m; i++) {
            size_t src = i;
            if (m < s->m && i >= COARSE_HEAD)   /* evenly over the rest */
                src = COARSE_HEAD + (size_t)((double)(i - COARSE_HEAD) *
                                             (double)(s->m - 1 - COARSE_HEAD) /
                                             (double)(m - 1 - COARSE_HEAD));
            buf[i] = s->t[src];
            buf[m + i] = s->y[src];
        }
    }
    return 0;
}

/* Whether two of the sorted τ are merged (TB_FIT_TAU_MERGED). */
static int tau_merged(const double *tau, size_t n)
{
    for (size_t j = 1; j < n; j++)
        if (tau[j] < FIT_MERGED_RATIO * tau[j - 1])
            return 1;
    return 0;
}

/* Whether the sorted τ vectors A and B are one optimum (within 2 % each). */
static int same_optimum(const double *a, const double *b, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (fabs(log(a[j] / b[j])) > 0.02)
            return 0;
    return 1;
}

/* A term slower than the run acts as a drift, and its optimum lies on the
 * range's top, where the grid's cells (half a step inside) and the coarse
 * stage rarely lead: the search's best TAU (sorted) without its fastest
 * term and with one on the top, refined in full, replaces TAU when lower.
 * Started on the top (u = π/2, where dθ/du = 0) the term stays there
 * while the others settle; started inside, the solver's steps carry it
 * through the bound and into another valley. */
static void try_top(struct vp *vp, double *tau, double *best_rss, int *best_converged)
{
    size_t n = vp->n;
    double top = exp(vp->theta_hi), start[TB_FIT_MAX_ORDER], t[TB_FIT_MAX_ORDER], rss;
    int conv;
    if (tau[n - 1] > top * 0.9)
        return;   /* there already */
    memcpy(start, tau + 1, (n - 1) * sizeof *start);
    start[n - 1] = top;   /* u = π/2: held there unless the others pull it down */
    if (refine(vp, start, t, &rss, &conv, MAX_ITERATIONS, XTOL) != GSL_SUCCESS ||
        !(rss < *best_rss))
        return;
    qsort(t, n, sizeof *t, compare_double);
    memcpy(tau, t, n * sizeof *t);
    *best_rss = rss;
    *best_converged = conv;
}

/* The coarse stage: each of the NSTARTS starts of the GRID screen
 * refined on a thinned copy of the run, the distinct optima into CAND
 * (their RSS into CAND_RSS, *NCAND of them).  One basin has nothing to
 * choose between: no coarse stage.  Without memory for it, each start
 * goes on as it is (its RSS its rank).  1 when the coarse stage ran. */
static int coarse_stage(struct vp *vp, const double *grid, size_t starts[][TB_FIT_MAX_ORDER],
                        size_t nstarts, double cand[][TB_FIT_MAX_ORDER], double *cand_rss,
                        size_t *ncand_out)
{
    size_t n = vp->n, ncand = 0;
    tb_series *thin = nstarts > 1 ? calloc(vp->ns, sizeof *thin) : NULL;
    struct vp *coarse = NULL;
    if (thin && thin_series(vp, thin) == 0 && (coarse = vp_alloc(thin, vp->ns, (int)n))) {
        coarse->theta_lo = vp->theta_lo;
        coarse->theta_hi = vp->theta_hi;
    }
    for (size_t k = 0; k < nstarts; k++) {
        double tau0[TB_FIT_MAX_ORDER], t[TB_FIT_MAX_ORDER], rss;
        int conv;
        for (size_t j = 0; j < n; j++)
            tau0[j] = grid[starts[k][j]];
        if (!coarse) {   /* no memory for the coarse stage: each start in full */
            memcpy(cand[ncand], tau0, sizeof tau0);
            cand_rss[ncand++] = (double)k;
            continue;
        }
        coarse->solved = 0;
        if (refine(coarse, tau0, t, &rss, &conv, COARSE_ITERATIONS, COARSE_XTOL) != GSL_SUCCESS ||
            !isfinite(rss))
            continue;
        qsort(t, n, sizeof *t, compare_double);
        size_t c = 0;
        while (c < ncand && !same_optimum(cand[c], t, n))
            c++;
        if (c < ncand) {   /* an optimum found already: keep its best start */
            if (rss < cand_rss[c]) {
                cand_rss[c] = rss;
                memcpy(cand[c], t, sizeof t);
            }
            continue;
        }
        memcpy(cand[ncand], t, sizeof t);
        cand_rss[ncand++] = rss;
    }
    int done = coarse != NULL;
    vp_free(coarse);
    for (size_t k = 0; thin && k < vp->ns; k++)
        free((double *)thin[k].t);   /* thin_series() allocated it */
    free(thin);
    *ncand_out = ncand;
    return done;
}

/* The global search: the grid screen, then the coarse refinement of each
 * of its lowest basins, then the full refinement of the lowest distinct
 * optima found.  TAU gets the best τ, sorted; the workspace is left solved
 * at it.  Returns 0, or -1 when no start could be refined. */
int vp_search(struct vp *vp, double tau_min, double tau_max, double *tau,
              int *converged)
{
    size_t G = grid_points[vp->n], n = vp->n, ncand = 0;
    double grid[64], best_rss = INFINITY, best_tau[TB_FIT_MAX_ORDER];
    double cand[STARTS][TB_FIT_MAX_ORDER], cand_rss[STARTS];
    size_t starts[STARTS][TB_FIT_MAX_ORDER];
    int best_converged = 0;

    vp->theta_lo = log(tau_min);
    vp->theta_hi = log(tau_max);
    for (size_t g = 0; g < G; g++)
        grid[g] = exp(vp->theta_lo + (vp->theta_hi - vp->theta_lo) * ((double)g + 0.5) / (double)G);
    size_t nstarts = screen(vp, grid, G, starts);

    int coarse_done = coarse_stage(vp, grid, starts, nstarts, cand, cand_rss, &ncand);

    /* The lowest distinct coarse optima, refined on every point: those
     * within 2 % of the lowest (the thinned run ranks them only roughly;
     * optima further apart are not contenders). */
    double lowest_rss = INFINITY;
    for (size_t c = 0; c < ncand; c++)
        lowest_rss = fmin(lowest_rss, cand_rss[c]);
    size_t finals = vp->quick ? 1 : FINAL;
    for (size_t f = 0; f < finals && f < ncand; f++) {
        size_t lowest = f;
        for (size_t c = f + 1; c < ncand; c++)
            if (cand_rss[c] < cand_rss[lowest])
                lowest = c;
        double tmp[TB_FIT_MAX_ORDER], tr = cand_rss[f];
        memcpy(tmp, cand[f], sizeof tmp);
        memcpy(cand[f], cand[lowest], sizeof tmp);
        cand_rss[f] = cand_rss[lowest];
        memcpy(cand[lowest], tmp, sizeof tmp);
        cand_rss[lowest] = tr;

        double t[TB_FIT_MAX_ORDER], rss;
        int conv;
        if (coarse_done && cand_rss[f] > 1.02 * lowest_rss)
            break;   /* sorted: the rest are further still */
        int status;
        if (vp->quick && tau_merged(cand[f], n)) {
            /* degenerate, so never a next order that counts: solved where
             * the coarse stage left it, not crawled along its valley */
            memcpy(t, cand[f], sizeof t);
            status = vp_solve(vp, t);
            rss = status == GSL_SUCCESS ? vp_rss(vp) : NAN;
            conv = 0;
        } else {
            status = refine(vp, cand[f], t, &rss, &conv,
                            vp->quick ? QUICK_ITERATIONS : MAX_ITERATIONS, XTOL);
        }
        if ((status != GSL_SUCCESS && !(vp->quick && status == GSL_EMAXITER)) || !isfinite(rss))
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
    if (!vp->quick && n > 1)
        try_top(vp, best_tau, &best_rss, &best_converged);
    memcpy(tau, best_tau, n * sizeof *tau);
    *converged = best_converged;
    return vp_solve(vp, tau) == GSL_SUCCESS ? 0 : -1;
}
