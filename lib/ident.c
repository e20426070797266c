/*
 * ident.c -- identification of a multi-input thermal model: the modes τⱼ
 * shared by every sensor and input, found by variable projection from
 * the best basins of a grid (as tb-fit's search), the gains under them
 * by non-negative least squares on the normal equations (which a row
 * adds to in O(modes²), so a τ costs one pass over the rows); intervals
 * from the joint covariance of log τ and the gains, the larger of the
 * plain one and a Newey–West sandwich (autocorrelated noise); the number
 * of modes from held-out runs, or AICc.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "gsl_errors.h"
#include "ident_internal.h"
#include "nnls_internal.h"
#include "tbfit.h"

#define MAX_BASINS 4
#define HELD_OUT_TOLERANCE 0.01   /* a mode more must predict 1 % better */
#define NO_PREDICTION_RATIO 1.5

static const char *const flag_names[] = {
    "tau_at_bound", "mode_unused", "slow_mode", "no_ci", "no_prediction", "lack_of_fit",
};
static const char *const flag_meanings[] = {
    "a time constant is at the edge of the search range: widen it (--tau-min, --tau-max)",
    "a mode carries no gain or merges with another: the data carry fewer modes",
    "a time constant is over a third of the longest run: the runs are too short to pin it",
    "the covariance is singular: no intervals",
    "held-out runs are predicted far worse than the fit: the model does not generalise",
    "the residuals have structure: the model does not describe the runs (an input left out, "
    "a heat path that is not linear, drift)",
};

const char *tb_ident_flag_name(unsigned flag)
{
    for (size_t i = 0; i < sizeof flag_names / sizeof *flag_names; i++)
        if (flag == 1u << i)
            return flag_names[i];
    return "unknown";
}

const char *tb_ident_flag_meaning(unsigned flag)
{
    for (size_t i = 0; i < sizeof flag_meanings / sizeof *flag_meanings; i++)
        if (flag == 1u << i)
            return flag_meanings[i];
    return "";
}

tb_ident_options tb_ident_default_options(void)
{
    tb_ident_options o = {.modes = 0, .max_modes = 3, .level = 0.95};
    return o;
}

/* --- the runs as the fit walks them ------------------------------------ */

struct irun {
    size_t n;
    double *tt, *dt;    /* time from the first row; the step to the next */
    double *u;          /* [u·n + k]: the input held from row k */
    double *y;          /* [i·n + k]: the sensor minus ambient and its mean; NaN */
    double *mean;       /* per sensor, what was taken off */
};

static void irun_free(struct irun *r)
{
    free(r->tt);
    free(r->dt);
    free(r->u);
    free(r->y);
    free(r->mean);
}

static int irun_init(struct irun *r, const tb_ident_run *in, const char *const *inputs,
                     size_t nu, const char *const *sensors, size_t ns, char *err, size_t errlen)
{
    size_t n = in->n;
    memset(r, 0, sizeof *r);
    r->n = n;
    r->tt = malloc(n * sizeof *r->tt);
    r->dt = malloc(n * sizeof *r->dt);
    r->u = malloc(nu * n * sizeof *r->u);
    r->y = malloc(ns * n * sizeof *r->y);
    r->mean = calloc(ns, sizeof *r->mean);
    if (!r->tt || !r->dt || !r->u || !r->y || !r->mean) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        if (!isfinite(in->t[k]) || (k && !(in->t[k] >= in->t[k - 1]))) {
            snprintf(err, errlen, "%s: row %zu: time %g does not follow %g", in->name, k + 1,
                     in->t[k], k ? in->t[k - 1] : 0.0);
            return -1;
        }
        r->tt[k] = in->t[k] - in->t[0];
        r->dt[k] = k + 1 < n ? in->t[k + 1] - in->t[k] : 0;
    }
    for (size_t u = 0; u < nu; u++) {
        /* held from each sample; before the first, the first */
        double held = NAN;
        for (size_t k = 0; k < n && isnan(held); k++)
            if (isfinite(in->u[u][k]))
                held = in->u[u][k];
        if (isnan(held)) {
            snprintf(err, errlen, "%s: input %s has no value", in->name,
                     inputs ? inputs[u] : "?");
            return -1;
        }
        for (size_t k = 0; k < n; k++) {
            if (isfinite(in->u[u][k]))
                held = in->u[u][k];
            r->u[u * n + k] = held;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        double sum = 0;
        size_t cnt = 0;
        for (size_t k = 0; k < n; k++) {
            double v = in->y[i][k] - (in->ambient ? in->ambient[k] : 0);
            r->y[i * n + k] = isfinite(v) ? v : NAN;
            if (isfinite(v)) {
                sum += v;
                cnt++;
            }
        }
        /* each run has its own offset and initial state for each sensor */
        if (cnt < 3) {
            snprintf(err, errlen, "%s: sensor %s has %zu values: too few for its offset and "
                     "initial state", in->name, sensors ? sensors[i] : "?", cnt);
            return -1;
        }
        r->mean[i] = sum / (double)cnt;
        for (size_t k = 0; k < n; k++)
            r->y[i * n + k] -= r->mean[i];
    }
    return 0;
}

/* --- the workspace: normal equations per sensor under given τ ---------- */

struct work {
    size_t nruns, nu, ns, nm, p, q;
    const struct irun *const *r;
    gsl_matrix **G;
    gsl_vector **c, *x;
    double *yy, *rss, *coef, *row, *outer;
    size_t *cnt, *idx;
    char *free_var;
    double tau[TB_IDENT_MAX_MODES];
    double lphi, hphi;   /* the search range in log τ */
};

static size_t gain_col(const struct work *w, size_t u, size_t j) { return u * w->nm + j; }
static size_t run_col(const struct work *w, size_t r) { return w->nu * w->nm + r * (w->nm + 1); }

static void work_free(struct work *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->ns; i++) {
        if (w->G)
            gsl_matrix_free(w->G[i]);
        if (w->c)
            gsl_vector_free(w->c[i]);
    }
    free(w->G);
    free(w->c);
    gsl_vector_free(w->x);
    free(w->yy);
    free(w->rss);
    free(w->coef);
    free(w->row);
    free(w->outer);
    free(w->cnt);
    free(w->idx);
    free(w->free_var);
    free(w);
}

static struct work *work_alloc(const struct irun *const *r, size_t nruns, size_t nu, size_t ns,
                               size_t nm)
{
    struct work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->r = r;
    w->nruns = nruns;
    w->nu = nu;
    w->ns = ns;
    w->nm = nm;
    w->p = nu * nm + nruns * (nm + 1);
    w->q = nu * nm + nm + 1;
    w->G = calloc(ns, sizeof *w->G);
    w->c = calloc(ns, sizeof *w->c);
    w->x = gsl_vector_alloc(w->p);
    w->yy = calloc(ns, sizeof *w->yy);
    w->rss = calloc(ns, sizeof *w->rss);
    w->coef = calloc(ns * w->p, sizeof *w->coef);
    w->row = calloc(w->q, sizeof *w->row);
    w->outer = calloc(w->q * w->q, sizeof *w->outer);
    w->cnt = calloc(ns, sizeof *w->cnt);
    w->idx = calloc(w->q, sizeof *w->idx);
    w->free_var = calloc(w->p, 1);
    if (!w->G || !w->c || !w->x || !w->yy || !w->rss || !w->coef || !w->row || !w->outer ||
        !w->cnt || !w->idx || !w->free_var) {
        work_free(w);
        return NULL;
    }
    for (size_t i = 0; i < ns; i++) {
        w->G[i] = gsl_matrix_alloc(w->p, w->p);
        w->c[i] = gsl_vector_alloc(w->p);
        if (!w->G[i] || !w->c[i]) {
            work_free(w);
            return NULL;
        }
    }
    for (size_t k = nu * nm; k < w->p; k++)
        w->free_var[k] = 1;   /* offsets and initial states take either sign */
    return w;
}

/* The discrete step of mode τ over DT: e^(−dt/τ), kept while dt repeats. */
struct step_cache {
    double dt[TB_IDENT_MAX_MODES], a[TB_IDENT_MAX_MODES];
};

static double step_factor(struct step_cache *sc, size_t j, double dt, double tau)
{
    if (dt != sc->dt[j]) {
        sc->dt[j] = dt;
        sc->a[j] = exp(-dt / tau);
    }
    return sc->a[j];
}

/* Solve the gains under TAU: fills coef and rss.  The total RSS, or NaN. */
static double work_solve(struct work *w, const double *tau)
{
    size_t nu = w->nu, ns = w->ns, nm = w->nm, q = w->q, p = w->p;
    double xs[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES], e[TB_IDENT_MAX_MODES];
    memcpy(w->tau, tau, nm * sizeof *tau);
    for (size_t i = 0; i < ns; i++) {
        gsl_matrix_set_zero(w->G[i]);
        gsl_vector_set_zero(w->c[i]);
        w->yy[i] = 0;
        w->cnt[i] = 0;
    }
    for (size_t r = 0; r < w->nruns; r++) {
        const struct irun *run = w->r[r];
        struct step_cache sc;
        for (size_t j = 0; j < nm; j++)
            sc.dt[j] = NAN;
        size_t base = run_col(w, r);
        for (size_t u = 0; u < nu; u++)
            for (size_t j = 0; j < nm; j++)
                w->idx[gain_col(w, u, j)] = gain_col(w, u, j);
        w->idx[nu * nm] = base;
        for (size_t j = 0; j < nm; j++)
            w->idx[nu * nm + 1 + j] = base + 1 + j;
        memset(xs, 0, sizeof xs);
        for (size_t j = 0; j < nm; j++)
            e[j] = 1;
        for (size_t k = 0; k < run->n; k++) {
            memcpy(w->row, xs, nu * nm * sizeof *xs);
            w->row[nu * nm] = 1;
            memcpy(w->row + nu * nm + 1, e, nm * sizeof *e);
            int outer_done = 0;
            for (size_t i = 0; i < ns; i++) {
                double y = run->y[i * run->n + k];
                if (isnan(y))
                    continue;
                if (!outer_done) {
                    for (size_t a = 0; a < q; a++)
                        for (size_t b = a; b < q; b++)
                            w->outer[a * q + b] = w->row[a] * w->row[b];
                    outer_done = 1;
                }
                double *G = w->G[i]->data;
                size_t tda = w->G[i]->tda;
                for (size_t a = 0; a < q; a++) {
                    double *Ga = G + w->idx[a] * tda;
                    for (size_t b = a; b < q; b++)
                        Ga[w->idx[b]] += w->outer[a * q + b];
                    w->c[i]->data[w->idx[a]] += w->row[a] * y;
                }
                w->yy[i] += y * y;
                w->cnt[i]++;
            }
            /* to the next row, each input held over the step */
            double dt = run->dt[k];
            for (size_t j = 0; j < nm; j++) {
                double a = step_factor(&sc, j, dt, tau[j]);
                e[j] *= a;
                for (size_t u = 0; u < nu; u++) {
                    double *x = &xs[gain_col(w, u, j)];
                    *x = a * *x + (1 - a) * run->u[u * run->n + k];
                }
            }
        }
    }
    double total = 0;
    for (size_t i = 0; i < ns; i++) {
        gsl_matrix *G = w->G[i];
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < a; b++)
                gsl_matrix_set(G, a, b, gsl_matrix_get(G, b, a));
        if (nnls_gram(G, w->c[i], w->free_var, w->x) < 0)
            return NAN;
        /* rss = yᵀy − 2xᵀc + xᵀGx */
        double xc, xgx = 0;
        gsl_blas_ddot(w->x, w->c[i], &xc);
        for (size_t a = 0; a < p; a++) {
            double xa = gsl_vector_get(w->x, a);
            if (xa == 0)
                continue;
            double s = 0;
            for (size_t b = 0; b < p; b++)
                s += gsl_matrix_get(G, a, b) * gsl_vector_get(w->x, b);
            xgx += xa * s;
        }
        w->rss[i] = fmax(0, w->yy[i] - 2 * xc + xgx);
        memcpy(w->coef + i * p, w->x->data, p * sizeof(double));
        total += w->rss[i];
    }
    return total;
}

/* --- the search over τ -------------------------------------------------- */

struct grid_point {
    double rss;
    size_t index[TB_IDENT_MAX_MODES];
};

static int by_rss(const void *a, const void *b)
{
    double x = ((const struct grid_point *)a)->rss, y = ((const struct grid_point *)b)->rss;
    return (x > y) - (x < y);
}

/* The objective of the refinement: RSS over log τ, sorted (the modes are
 * interchangeable), outside the range the edge's RSS with a penalty. */
static double objective(const gsl_vector *v, void *params)
{
    struct work *w = params;
    double phi[TB_IDENT_MAX_MODES], tau[TB_IDENT_MAX_MODES], over = 0;
    for (size_t j = 0; j < w->nm; j++) {
        phi[j] = gsl_vector_get(v, j);
        if (phi[j] < w->lphi) {
            over += w->lphi - phi[j];
            phi[j] = w->lphi;
        } else if (phi[j] > w->hphi) {
            over += phi[j] - w->hphi;
            phi[j] = w->hphi;
        }
    }
    for (size_t a = 1; a < w->nm; a++)
        for (size_t b = a; b > 0 && phi[b] < phi[b - 1]; b--) {
            double t = phi[b];
            phi[b] = phi[b - 1];
            phi[b - 1] = t;
        }
    for (size_t j = 0; j < w->nm; j++)
        tau[j] = exp(phi[j]);
    double rss = work_solve(w, tau);
    if (!isfinite(rss))
        return GSL_POSINF;
    return rss * (1 + over * over * 100);
}

/* Nelder–Mead from TAU0 in log τ, with a first step STEP: the best τ
 * (sorted) into TAU.  Its RSS, or NaN. */
static double refine(struct work *w, const double *tau0, double step, double *tau)
{
    size_t nm = w->nm;
    gsl_multimin_function f = {.f = objective, .n = nm, .params = w};
    gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2,
                                                               nm);
    gsl_vector *x = gsl_vector_alloc(nm), *ss = gsl_vector_alloc(nm);
    double best = NAN;
    if (!s || !x || !ss)
        goto out;
    for (size_t j = 0; j < nm; j++) {
        gsl_vector_set(x, j, log(tau0[j]));
        gsl_vector_set(ss, j, step);
    }
    if (gsl_multimin_fminimizer_set(s, &f, x, ss) != GSL_SUCCESS)
        goto out;
    for (int it = 0; it < 100 * (int)nm + 100; it++) {
        if (gsl_multimin_fminimizer_iterate(s) != GSL_SUCCESS)
            break;
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), 1e-5) == GSL_SUCCESS)
            break;
    }
    double phi[TB_IDENT_MAX_MODES];
    for (size_t j = 0; j < nm; j++)
        phi[j] = fmin(w->hphi, fmax(w->lphi, gsl_vector_get(s->x, j)));
    for (size_t a = 1; a < nm; a++)
        for (size_t b = a; b > 0 && phi[b] < phi[b - 1]; b--) {
            double t = phi[b];
            phi[b] = phi[b - 1];
            phi[b - 1] = t;
        }
    for (size_t j = 0; j < nm; j++)
        tau[j] = exp(phi[j]);
    best = gsl_multimin_fminimizer_minimum(s);
out:
    gsl_multimin_fminimizer_free(s);
    gsl_vector_free(x);
    gsl_vector_free(ss);
    return best;
}

static size_t grid_points(size_t nm)
{
    static const size_t g[] = {40, 24, 14, 10};
    return g[nm - 1];
}

/* Whether the sorted index tuples A and B are neighbours: one index one
 * step apart, the others equal. */
static int neighbours(const size_t *a, const size_t *b, size_t nm)
{
    size_t diff = 0;
    for (size_t j = 0; j < nm; j++) {
        size_t d = a[j] > b[j] ? a[j] - b[j] : b[j] - a[j];
        if (d > 1)
            return 0;
        diff += d;
    }
    return diff == 1;
}

/* The global search: every sorted τ tuple of the grid, the basins (grid
 * points below all their neighbours), the best of them refined.  The
 * best τ into TAU, the workspace solved there.  Its RSS, or NaN. */
static double search(struct work *w, double *tau)
{
    size_t nm = w->nm, g = grid_points(nm), ncomb = 1;
    for (size_t j = 0; j < nm; j++)
        ncomb = ncomb * (g - j) / (j + 1);
    struct grid_point *pts = malloc(ncomb * sizeof *pts);
    if (!pts)
        return NAN;
    double step = (w->hphi - w->lphi) / (double)(g - 1);
    size_t idx[TB_IDENT_MAX_MODES], np = 0;
    for (size_t j = 0; j < nm; j++)
        idx[j] = j;
    for (;;) {
        double t[TB_IDENT_MAX_MODES];
        for (size_t j = 0; j < nm; j++)
            t[j] = exp(w->lphi + step * (double)idx[j]);
        pts[np].rss = work_solve(w, t);
        if (!isfinite(pts[np].rss))
            pts[np].rss = HUGE_VAL;
        memcpy(pts[np].index, idx, sizeof idx);
        np++;
        /* the next sorted tuple */
        size_t j = nm;
        while (j > 0 && idx[j - 1] == g - nm + j - 1)
            j--;
        if (j == 0)
            break;
        idx[j - 1]++;
        for (size_t k = j; k < nm; k++)
            idx[k] = idx[k - 1] + 1;
    }
    /* basins: no neighbour lower */
    struct grid_point basin[MAX_BASINS + 1];
    size_t nb = 0;
    qsort(pts, np, sizeof *pts, by_rss);
    for (size_t a = 0; a < np && nb < MAX_BASINS; a++) {
        int lowest = 1;
        for (size_t b = 0; b < a && lowest; b++)
            if (neighbours(pts[a].index, pts[b].index, nm))
                lowest = 0;
        if (lowest)
            basin[nb++] = pts[a];
    }
    free(pts);
    double best = HUGE_VAL, cand[TB_IDENT_MAX_MODES];
    for (size_t b = 0; b < nb; b++) {
        double t0[TB_IDENT_MAX_MODES];
        for (size_t j = 0; j < nm; j++)
            t0[j] = exp(w->lphi + step * (double)basin[b].index[j]);
        double rss = refine(w, t0, step / 2, cand);
        if (rss < best) {
            best = rss;
            memcpy(tau, cand, nm * sizeof *cand);
        }
    }
    if (!(best < HUGE_VAL))
        return NAN;
    return work_solve(w, tau);
}

/* --- intervals ------------------------------------------------------------ */

/* The model's rows with their derivatives, run by run: the inputs'
 * states x, their derivatives by log τ, and the initial states' decays. */
struct jacobian {
    const struct work *w;
    const struct irun *run;
    const size_t *pos;   /* coefficient (sensor·p + column) → joint index, or -1 */
    size_t base;
    double xs[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES];
    double dx[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES];
    double e[TB_IDENT_MAX_MODES];
};

static void jacobian_start(struct jacobian *jc, size_t r)
{
    jc->run = jc->w->r[r];
    jc->base = run_col(jc->w, r);
    memset(jc->xs, 0, sizeof jc->xs);
    memset(jc->dx, 0, sizeof jc->dx);
    for (size_t j = 0; j < jc->w->nm; j++)
        jc->e[j] = 1;
}

/* Sensor I's row K: the derivatives by log τ and by each coefficient
 * kept into V at the joint indices NZ; its count.  The residual into *RES. */
static size_t jacobian_row(const struct jacobian *jc, size_t i, size_t k, double *v, size_t *nz,
                           double *res)
{
    const struct work *w = jc->w;
    size_t nu = w->nu, nm = w->nm, p = w->p, nv = 0, base = jc->base;
    const double *c = w->coef + i * p;
    double f = c[base];
    for (size_t j = 0; j < nm; j++) {
        double d = c[base + 1 + j] * jc->e[j] * jc->run->tt[k] / w->tau[j];
        for (size_t u = 0; u < nu; u++)
            d += c[gain_col(w, u, j)] * jc->dx[gain_col(w, u, j)];
        v[nv] = d;
        nz[nv++] = j;
        f += c[base + 1 + j] * jc->e[j];
    }
    for (size_t u = 0; u < nu; u++)
        for (size_t j = 0; j < nm; j++) {
            f += c[gain_col(w, u, j)] * jc->xs[gain_col(w, u, j)];
            if (jc->pos[i * p + gain_col(w, u, j)] != (size_t)-1) {
                v[nv] = jc->xs[gain_col(w, u, j)];
                nz[nv++] = jc->pos[i * p + gain_col(w, u, j)];
            }
        }
    v[nv] = 1;
    nz[nv++] = jc->pos[i * p + base];
    for (size_t j = 0; j < nm; j++) {
        v[nv] = jc->e[j];
        nz[nv++] = jc->pos[i * p + base + 1 + j];
    }
    *res = jc->run->y[i * jc->run->n + k] - f;
    return nv;
}

static void jacobian_next(struct jacobian *jc, size_t k)
{
    const struct work *w = jc->w;
    double dt = jc->run->dt[k];
    for (size_t j = 0; j < w->nm; j++) {
        double a = exp(-dt / w->tau[j]), da = a * dt / w->tau[j];
        jc->e[j] *= a;
        for (size_t u = 0; u < w->nu; u++) {
            size_t s = gain_col(w, u, j);
            double uk = jc->run->u[u * jc->run->n + k];
            jc->dx[s] = a * jc->dx[s] + da * (jc->xs[s] - uk);
            jc->xs[s] = a * jc->xs[s] + (1 - a) * uk;
        }
    }
}

/* The residuals of sensor I, run after run, into R; START[q] where run q
 * begins (START[nruns] the end).  The count of them. */
static size_t sensor_residuals(struct jacobian *jc, size_t i, double *v, size_t *nz,
                               gsl_vector *r, size_t *start)
{
    const struct work *w = jc->w;
    size_t n = 0;
    double res;
    for (size_t q = 0; q < w->nruns; q++) {
        start[q] = n;
        jacobian_start(jc, q);
        for (size_t k = 0; k < jc->run->n; k++) {
            if (!isnan(jc->run->y[i * jc->run->n + k])) {
                jacobian_row(jc, i, k, v, nz, &res);
                gsl_vector_set(r, n++, res);
            }
            jacobian_next(jc, k);
        }
    }
    start[w->nruns] = n;
    return n;
}

/* The Newey–West meats of the scores, as tb-fit's HAC intervals: each
 * row's score is the sum over its sensors of their Jacobian rows times
 * residual over variance (the sensors of a row share its noise in part),
 * each run a sequence of its own.  Into M with the lags by Andrews' AR(1)
 * plug-in on the residuals; into W the scores prewhitened by the
 * residuals' pooled autoregression (its order by AIC, as tb-fit's:
 * fit_ar_choose()), recoloured by 1/(1 − Σφ)² (Andrews and Monahan
 * 1992), which holds better under strong autocorrelation.  Both P × P,
 * zeroed.  0, or -1. */
static int hac_meat(struct jacobian *jc, const double *sigma2, size_t P, gsl_matrix *M,
                    gsl_matrix *W)
{
    const struct work *w = jc->w;
    size_t ns = w->ns, total = 0, L = 0, Lw = 0, points = 0;
    double *v = malloc(P * sizeof *v), *g = malloc((2 + FIT_AR_MAX) * P * sizeof *g), res;
    double acv[FIT_AR_MAX + 1] = {0};
    size_t *nz = malloc(P * sizeof *nz), *start = NULL;
    gsl_vector *r = NULL, *u = NULL;
    struct newey_west nw = {0}, nww = {0};
    struct fit_ar ar;
    int rc = -1;
    for (size_t q = 0; q < w->nruns; q++)
        total += w->r[q]->n;
    if (!v || !g || !nz || !(r = gsl_vector_alloc(total)) || !(u = gsl_vector_alloc(total)) ||
        !(start = malloc((w->nruns + 1) * sizeof *start)))
        goto out;
    double *gw = g + P, *past = g + 2 * P;
    /* the AR filter pooled over sensors and runs; the lags: the longest
     * any sensor's residuals want, raw and whitened */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            fit_ar_choose(acv, points, points / 20, &ar);
        for (size_t i = 0; i < ns; i++) {
            size_t n = sensor_residuals(jc, i, v, nz, r, start);
            for (size_t q = 0; q < w->nruns; q++) {
                size_t len = start[q + 1] - start[q];
                const double *x = r->data + start[q] * r->stride;
                for (size_t k = 0; k < len; k++) {
                    if (pass == 0)
                        for (size_t l = 0; l <= FIT_AR_MAX && l <= k; l++)
                            acv[l] += x[k * r->stride] * x[(k - l) * r->stride];
                    else
                        gsl_vector_set(u, start[q] + k, fit_ar_whiten(&ar, x, k, r->stride));
                }
                points += pass == 0 ? len : 0;
            }
            if (n >= 8) {
                gsl_vector_view rv = gsl_vector_subvector(pass == 0 ? r : u, 0, n);
                size_t l = fit_hac_lags(&rv.vector);
                size_t *most = pass == 0 ? &L : &Lw;
                *most = l > *most ? l : *most;
            }
        }
        if (pass == 0)
            for (size_t l = 0; l <= FIT_AR_MAX; l++)
                acv[l] /= (double)(points ? points : 1);
    }
    if (newey_west_start(&nw, P, L) < 0 || newey_west_start(&nww, P, Lw) < 0)
        goto out;
    for (size_t q = 0; q < w->nruns; q++) {
        jacobian_start(jc, q);
        newey_west_restart(&nw);
        newey_west_restart(&nww);
        size_t seen = 0;   /* the run's scores so far */
        for (size_t k = 0; k < jc->run->n; k++) {
            memset(g, 0, P * sizeof *g);
            int any = 0;
            for (size_t i = 0; i < ns; i++) {
                if (isnan(jc->run->y[i * jc->run->n + k]))
                    continue;
                size_t nv = jacobian_row(jc, i, k, v, nz, &res);
                for (size_t a = 0; a < nv; a++)
                    g[nz[a]] += v[a] * res / sigma2[i];
                any = 1;
            }
            if (any) {
                fit_ar_whiten_score(&ar, g, seen++, P, past, gw);
                newey_west_add(&nw, g, M, 1);
                newey_west_add(&nww, gw, W, ar.gain);
            }
            jacobian_next(jc, k);
        }
    }
    newey_west_finish(M);
    newey_west_finish(W);
    rc = 0;
out:
    free(v);
    free(g);
    free(nz);
    free(start);
    free(nw.A);
    free(nww.A);
    gsl_vector_free(r);
    gsl_vector_free(u);
    return rc;
}

/* Each sensor's coefficients in the joint parameter vector after the nm
 * log τ: the gains not at their bound 0, the offsets and initial states;
 * -1 for the others.  The count into *P.  NULL when memory runs out. */
static size_t *joint_positions(const struct work *w, size_t *P)
{
    size_t p = w->p, *pos = malloc(w->ns * p * sizeof *pos);
    *P = w->nm;
    for (size_t i = 0; pos && i < w->ns; i++)
        for (size_t a = 0; a < p; a++) {
            double v = w->coef[i * p + a];
            pos[i * p + a] = (v != 0 || w->free_var[a]) ? (*P)++ : (size_t)-1;
        }
    return pos;
}

/* Blocks of a run's residuals for the lack-of-fit test (as tb-fit's). */
#define FIT_BLOCKS 20

/*
 * Whether the model describes each sensor, as tb-fit tests a fit: the
 * residuals' means over FIT_BLOCKS equal blocks of each run.  Noise, even
 * autocorrelated, leaves the means of blocks much longer than its
 * correlation nearly independent; a model that does not hold (an input
 * left out, a heat path that is not linear, drift) leaves smooth residuals
 * whose consecutive block means are alike.  The von Neumann ratio
 * Σ(b₊₁ − b)² / Σ(b − b̄)², pooled over the runs, is 2 for independent
 * means; under 0.6, with the worst block beyond 1/2 rmse, the sensor lacks
 * fit; so it does when its rmse is over five times the noise of its
 * successive differences, and when it lags the model (lag_test(), its lag
 * into M's lag).  Into M's lack_of_fit, and TB_IDENT_LACK_OF_FIT
 * returned.
 */
/* The slope β of the residuals RES on a regressor G (points where G is
 * not finite left out) over RUNS runs (bounds in AT), and its standard
 * error allowing for correlated noise (the AR(1) of what β leaves) into
 * *BETA and *SE; the t statistic returned (0 when G does not move or
 * under 20 points). */
static double residual_slope(const double *res, const double *g, const size_t *at, size_t runs,
                             double *beta, double *se)
{
    double eg = 0, gg = 0, rr = 0, r1 = 0;
    size_t n = 0;
    *beta = *se = NAN;
    for (size_t k = 0; k < at[runs]; k++)
        if (isfinite(g[k])) {
            eg += res[k] * g[k];
            gg += g[k] * g[k];
        }
    if (!(gg > 0))
        return 0;
    double b = eg / gg;
    for (size_t r = 0; r < runs; r++) {
        double prev = NAN;
        for (size_t k = at[r]; k < at[r + 1]; k++) {
            if (!isfinite(g[k]))
                continue;
            double e = res[k] - b * g[k];
            rr += e * e;
            if (!isnan(prev))
                r1 += e * prev;
            prev = e;
            n++;
        }
    }
    if (n < 20)
        return 0;   /* too few to say: β unknown, not a number without an error */
    double rho = rr > 0 ? fmin(fmax(r1 / rr, 0), 0.99) : 0;
    *beta = b;
    *se = sqrt(rr / (double)(n - 1) / gg * (1 + rho) / (1 - rho));
    return *se > 0 ? *beta / *se : 0;
}

/* A sensor that lags what the model says (a filtered or slow sensor): its
 * residual e ≈ −d·ŷ′, d the lag.  From the residuals RES and predictions
 * YHAT at times T (RUNS runs, bounds in AT; G room for as many), d and
 * its standard error into *D and *SE; the t statistic returned. */
static double lag_test(const double *res, const double *yhat, const double *t, const size_t *at,
                       size_t runs, double *g, double *d, double *se)
{
    for (size_t r = 0; r < runs; r++)
        for (size_t k = at[r]; k < at[r + 1]; k++)
            g[k] = k > at[r] && k + 1 < at[r + 1]
                       ? (yhat[k + 1] - yhat[k - 1]) / (t[k + 1] - t[k - 1]) : NAN;
    double tstat = residual_slope(res, g, at, runs, d, se);
    *d = -*d;
    return tstat;
}

/* A sensor that rises faster (or slower) than linearly with its inputs
 * (a leakage power that grows with temperature, a heat path that
 * changes): its residuals follow the square of the prediction's
 * departure from its run's mean, less that square's mean.  The t
 * statistic of that slope (G room for the regressor). */
static double curvature_test(const double *res, const double *yhat, const size_t *at, size_t runs,
                             double *g)
{
    for (size_t r = 0; r < runs; r++) {
        size_t n = at[r + 1] - at[r];
        if (n == 0)
            continue;
        double mean = gsl_stats_mean(yhat + at[r], 1, n), sq = 0;
        for (size_t k = at[r]; k < at[r + 1]; k++)
            sq += (g[k] = (yhat[k] - mean) * (yhat[k] - mean)) / (double)n;
        for (size_t k = at[r]; k < at[r + 1]; k++)
            g[k] -= sq;
    }
    double beta, se;
    return residual_slope(res, g, at, runs, &beta, &se);
}

static unsigned lack_of_fit(struct work *w, tb_ident_model *m)
{
    size_t P, ns = w->ns;
    size_t *pos = joint_positions(w, &P);
    double *v = malloc(P * sizeof *v), *all = NULL;
    size_t *nz = malloc(P * sizeof *nz), total = 0;
    size_t *at = malloc((w->nruns + 1) * sizeof *at);
    unsigned flags = 0;
    for (size_t r = 0; r < w->nruns; r++)
        total += w->r[r]->n;
    /* residuals, predictions, times, a regressor */
    all = malloc(4 * (total ? total : 1) * sizeof *all);
    struct jacobian jc = {.w = w, .pos = pos};
    for (size_t i = 0; pos && v && nz && all && at && i < ns; i++) {
        double num = 0, den = 0, worst = 0, *yhat = all + total, *tt = yhat + total;
        double *g = tt + total;
        size_t used = 0;
        for (size_t r = 0; r < w->nruns; r++) {
            size_t n = 0;
            double *res = all + used;
            at[r] = used;
            jacobian_start(&jc, r);
            for (size_t k = 0; k < jc.run->n; k++) {
                double y = jc.run->y[i * jc.run->n + k];
                if (!isnan(y)) {
                    jacobian_row(&jc, i, k, v, nz, &res[n]);
                    yhat[used + n] = y - res[n];
                    tt[used + n] = jc.run->tt[k];
                    n++;
                }
                jacobian_next(&jc, k);
            }
            used += n;
            at[r + 1] = used;
            if (n < 10 * FIT_BLOCKS)
                continue;
            double mean[FIT_BLOCKS], grand = 0;
            for (size_t b = 0; b < FIT_BLOCKS; b++) {
                size_t i0 = b * n / FIT_BLOCKS, i1 = (b + 1) * n / FIT_BLOCKS;
                double sum = 0;
                for (size_t k = i0; k < i1; k++)
                    sum += res[k];
                mean[b] = sum / (double)(i1 - i0);
                grand += mean[b] / FIT_BLOCKS;
                worst = fmax(worst, fabs(mean[b]));
            }
            for (size_t b = 0; b < FIT_BLOCKS; b++) {
                den += (mean[b] - grand) * (mean[b] - grand);
                if (b + 1 < FIT_BLOCKS)
                    num += (mean[b + 1] - mean[b]) * (mean[b + 1] - mean[b]);
            }
        }
        /* the sensor's own noise from its successive differences, which
         * no model enters: residuals five times larger (autocorrelated
         * noise of 0.95 gives 4.5) are more than noise */
        double d2 = 0;
        size_t nd = 0;
        for (size_t r = 0; r < w->nruns; r++) {
            const struct irun *run = w->r[r];
            double last = NAN;
            for (size_t k = 0; k < run->n; k++) {
                double y = run->y[i * run->n + k];
                if (isnan(y))
                    continue;
                if (!isnan(last)) {
                    d2 += (y - last) * (y - last);
                    nd++;
                }
                last = y;
            }
        }
        double noise = nd ? sqrt(d2 / (double)nd / 2) : NAN;
        /* a lag no mode can give: the residuals follow the prediction's
         * slope, beyond four times the error (allowing for correlated
         * noise; AR(1) 0.9 noise gave |t| at most 2.1 in 18 sensors) */
        double d, d_se, lag_t = lag_test(all, yhat, tt, at, w->nruns, g, &d, &d_se);
        double q = gsl_cdf_ugaussian_Pinv(0.5 + m->level / 2);
        m->lag[i] = (tb_estimate){d, d - q * d_se, d + q * d_se};
        m->curvature_t[i] = curvature_test(all, yhat, at, w->nruns, g);
        if ((den > 0 && num / den < 0.6 && worst > 0.5 * m->rmse[i]) ||
            (noise > 0 && m->rmse[i] > 5 * noise) || fabs(lag_t) > 4 ||
            fabs(m->curvature_t[i]) > 4) {
            m->lack_of_fit[i] = 1;
            flags |= TB_IDENT_LACK_OF_FIT;
        }
    }
    free(pos);
    free(v);
    free(nz);
    free(all);
    free(at);
    return flags;
}

/* The variance of the sum of the N parameters AT under each of the three
 * covariances COV, the largest. */
static double largest_variance(const gsl_matrix *const *cov, const size_t *at, size_t n)
{
    double most = 0;
    for (int c = 0; c < 3; c++) {
        double v = 0;
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < n; b++)
                v += gsl_matrix_get(cov[c], at[a], at[b]);
        most = fmax(most, v);
    }
    return most;
}

/* The symmetric positive definite I inverted, scaled to unit diagonal
 * before Cholesky: the τ and gain blocks differ by orders of magnitude.
 * 0, or -1 (not positive definite, or no memory). */
static int invert_scaled(gsl_matrix *I)
{
    size_t P = I->size1;
    double *d = malloc(P * sizeof *d);
    if (!d)
        return -1;
    for (size_t a = 0; a < P; a++)
        d[a] = 1 / sqrt(fmax(gsl_matrix_get(I, a, a), 1e-300));
    for (size_t a = 0; a < P; a++)
        for (size_t b = 0; b < P; b++)
            I->data[a * I->tda + b] *= d[a] * d[b];
    if (gsl_linalg_cholesky_decomp1(I) != GSL_SUCCESS || gsl_linalg_cholesky_invert(I) != GSL_SUCCESS) {
        free(d);
        return -1;
    }
    for (size_t a = 0; a < P; a++)
        for (size_t b = 0; b < P; b++)
            I->data[a * I->tda + b] *= d[a] * d[b];
    free(d);
    return 0;
}

/* Each τ's, gain's and steady gain's interval at Z standard errors of
 * the largest of its variances in COV; a gain at its bound (no position
 * in POS) has only an upper side. */
static void take_intervals(const struct work *w, tb_ident_model *m, const size_t *pos,
                           const gsl_matrix *const cov[3], double z)
{
    size_t nu = w->nu, ns = w->ns, nm = w->nm, p = w->p;
    for (size_t j = 0; j < nm; j++) {
        size_t at[1] = {j};
        double se = sqrt(largest_variance(cov, at, 1));
        m->tau[j].lo = w->tau[j] * exp(-z * se);
        m->tau[j].hi = w->tau[j] * exp(z * se);
    }
    for (size_t i = 0; i < ns; i++)
        for (size_t u = 0; u < nu; u++) {
            size_t at[TB_IDENT_MAX_MODES], n = 0;
            for (size_t j = 0; j < nm; j++) {
                size_t a = pos[i * p + gain_col(w, u, j)];
                tb_estimate *g = &m->gain[(i * nu + u) * nm + j];
                if (a == (size_t)-1) {
                    g->lo = 0;   /* at the bound: only an upper side */
                    g->hi = NAN;
                    continue;
                }
                at[n++] = a;
                double se = sqrt(largest_variance(cov, &a, 1));
                g->lo = fmax(0, g->value - z * se);
                g->hi = g->value + z * se;
            }
            tb_estimate *st = &m->steady[i * nu + u];
            if (n) {
                double se = sqrt(largest_variance(cov, at, n));
                st->lo = fmax(0, st->value - z * se);
                st->hi = st->value + z * se;
            }
        }
}

static int covariance(struct work *w, tb_ident_model *m, double z)
{
    size_t ns = w->ns, nm = w->nm, p = w->p, P;
    size_t *pos = joint_positions(w, &P);
    int rc = -1;
    if (!pos)
        return -1;
    gsl_matrix *I = gsl_matrix_calloc(P, P), *Mt = gsl_matrix_calloc(P, P),
               *Wt = gsl_matrix_calloc(P, P), *T = gsl_matrix_alloc(P, P),
               *H = gsl_matrix_alloc(P, P), *H2 = gsl_matrix_alloc(P, P);
    double *v = malloc(P * sizeof *v), *sigma2 = malloc(ns * sizeof *sigma2), res;
    size_t *nz = malloc(P * sizeof *nz);
    struct jacobian jc = {.w = w, .pos = pos};
    if (!I || !Mt || !Wt || !T || !H || !H2 || !v || !sigma2 || !nz)
        goto out;
    for (size_t i = 0; i < ns; i++) {
        size_t k = 0;
        for (size_t a = 0; a < p; a++)
            k += pos[i * p + a] != (size_t)-1;
        double dof = (double)w->cnt[i] - (double)k - (double)nm / (double)ns;
        sigma2[i] = dof > 0 ? w->rss[i] / dof : NAN;
        if (!(sigma2[i] > 0))
            goto out;
    }
    for (size_t r = 0; r < w->nruns; r++) {
        jacobian_start(&jc, r);
        for (size_t k = 0; k < jc.run->n; k++) {
            for (size_t i = 0; i < ns; i++) {
                if (isnan(jc.run->y[i * jc.run->n + k]))
                    continue;
                size_t nv = jacobian_row(&jc, i, k, v, nz, &res);
                for (size_t a = 0; a < nv; a++)
                    for (size_t b = 0; b < nv; b++)
                        I->data[nz[a] * I->tda + nz[b]] += v[a] * v[b] / sigma2[i];
            }
            jacobian_next(&jc, k);
        }
    }
    if (hac_meat(&jc, sigma2, P, Mt, Wt) < 0)
        goto out;
    if (invert_scaled(I) < 0)
        goto out;
    /* the sandwiches I⁻¹ M I⁻¹ and I⁻¹ W I⁻¹; each quantity (a τ, a gain,
     * a sum of gains) takes the largest of its three variances */
    gsl_blas_dsymm(CblasLeft, CblasUpper, 1.0, I, Mt, 0.0, T);
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, T, I, 0.0, H);
    gsl_blas_dsymm(CblasLeft, CblasUpper, 1.0, I, Wt, 0.0, T);
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, T, I, 0.0, H2);
    const gsl_matrix *cov[3] = {I, H, H2};
    take_intervals(w, m, pos, cov, z);
    rc = 0;
out:
    free(pos);
    free(v);
    free(sigma2);
    free(nz);
    gsl_matrix_free(I);
    gsl_matrix_free(Mt);
    gsl_matrix_free(Wt);
    gsl_matrix_free(T);
    gsl_matrix_free(H);
    gsl_matrix_free(H2);
    return rc;
}

/* --- the model -------------------------------------------------------- */

void tb_ident_model_clear(tb_ident_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; m->inputs && i < m->ninputs; i++)
        free(m->inputs[i]);
    for (size_t i = 0; m->sensors && i < m->nsensors; i++)
        free(m->sensors[i]);
    free(m->inputs);
    free(m->sensors);
    free(m->gain);
    free(m->steady);
    free(m->rmse);
    free(m->rest);
    free(m->lack_of_fit);
    free(m->lag);
    free(m->curvature_t);
    memset(m, 0, sizeof *m);
}

static char *copy_name(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

int ident_model_alloc(tb_ident_model *m, size_t nu, size_t ns, size_t nm,
                      const char *const *inputs, const char *const *sensors)
{
    memset(m, 0, sizeof *m);
    m->ninputs = nu;
    m->nsensors = ns;
    m->nmodes = nm;
    m->inputs = calloc(nu, sizeof *m->inputs);
    m->sensors = calloc(ns, sizeof *m->sensors);
    m->gain = calloc(ns * nu * TB_IDENT_MAX_MODES, sizeof *m->gain);
    m->steady = calloc(ns * nu, sizeof *m->steady);
    m->rmse = calloc(ns, sizeof *m->rmse);
    m->rest = calloc(ns, sizeof *m->rest);
    m->lack_of_fit = calloc(ns, sizeof *m->lack_of_fit);
    m->lag = calloc(ns, sizeof *m->lag);
    m->curvature_t = calloc(ns, sizeof *m->curvature_t);
    if (!m->inputs || !m->sensors || !m->gain || !m->steady || !m->rmse || !m->rest ||
        !m->lack_of_fit || !m->lag || !m->curvature_t)
        return -1;
    for (size_t i = 0; i < ns; i++) {
        m->lag[i] = (tb_estimate){NAN, NAN, NAN};
        m->curvature_t[i] = NAN;
    }
    for (size_t u = 0; u < nu; u++)
        if (!(m->inputs[u] = copy_name(inputs ? inputs[u] : "input")))
            return -1;
    for (size_t i = 0; i < ns; i++)
        if (!(m->sensors[i] = copy_name(sensors ? sensors[i] : "sensor")))
            return -1;
    for (size_t j = 0; j < TB_IDENT_MAX_MODES; j++)
        m->tau[j].value = m->tau[j].lo = m->tau[j].hi = NAN;
    for (size_t k = 0; k < ns * nu * TB_IDENT_MAX_MODES; k++)
        m->gain[k].lo = m->gain[k].hi = NAN;
    for (size_t k = 0; k < ns * nu; k++)
        m->steady[k].lo = m->steady[k].hi = NAN;
    for (size_t j = 0; j < TB_IDENT_MAX_MODES; j++)
        m->aicc[j] = m->held_out[j] = NAN;
    for (size_t i = 0; i < ns; i++)
        m->rmse[i] = NAN;
    m->level = 0.95;
    return 0;
}

/* The model of the solved workspace W into M (allocated). */
static void take_model(const struct work *w, tb_ident_model *m)
{
    size_t nu = w->nu, nm = w->nm, p = w->p;
    m->nmodes = nm;
    for (size_t j = 0; j < nm; j++)
        m->tau[j].value = w->tau[j];
    m->npoints = 0;
    for (size_t i = 0; i < w->ns; i++) {
        double rest = 0;
        for (size_t r = 0; r < w->nruns; r++)
            rest += w->r[r]->mean[i] + w->coef[i * p + run_col(w, r)];
        m->rest[i] = rest / (double)w->nruns;
        m->npoints += w->cnt[i];
        m->rmse[i] = w->cnt[i] ? sqrt(w->rss[i] / (double)w->cnt[i]) : NAN;
        for (size_t u = 0; u < nu; u++) {
            double sum = 0;
            for (size_t j = 0; j < nm; j++) {
                double g = w->coef[i * p + gain_col(w, u, j)];
                m->gain[(i * nu + u) * nm + j].value = g;
                sum += g;
            }
            m->steady[i * nu + u].value = sum;
        }
    }
}

/* The shape of the model's flags from the solved workspace. */
static unsigned model_flags(const struct work *w, double longest)
{
    unsigned flags = 0;
    for (size_t j = 0; j < w->nm; j++) {
        double phi = log(w->tau[j]), span = w->hphi - w->lphi;
        if (phi - w->lphi < 0.01 * span || w->hphi - phi < 0.01 * span)
            flags |= TB_IDENT_TAU_AT_BOUND;
        if (w->tau[j] > longest / 3)
            flags |= TB_IDENT_SLOW_MODE;
        if (j > 0 && w->tau[j] < 1.05 * w->tau[j - 1])
            flags |= TB_IDENT_MODE_UNUSED;
        int used = 0;
        for (size_t i = 0; i < w->ns; i++)
            for (size_t u = 0; u < w->nu; u++)
                used |= w->coef[i * w->p + gain_col(w, u, j)] > 0;
        if (!used)
            flags |= TB_IDENT_MODE_UNUSED;
    }
    return flags;
}

/* TB_IDENT_MODE_UNUSED when a mode has no gain whose interval stays
 * clear of 0: the data do not need it. */
static unsigned insignificant_modes(const tb_ident_model *m)
{
    for (size_t j = 0; j < m->nmodes; j++) {
        int needed = 0;
        for (size_t k = 0; k < m->nsensors * m->ninputs; k++)
            needed |= m->gain[k * m->nmodes + j].lo > 0;
        if (!needed)
            return TB_IDENT_MODE_UNUSED;
    }
    return 0;
}

/* The prediction error of RUN under τ and the gains of workspace W's
 * sensor coefficients (first nu·nm of each), the offset and the initial
 * state fitted on the run.  PRED (ns arrays) may be NULL; SSE, CNT, WORST
 * per sensor.  0, or -1. */
static int predict_run(size_t nu, size_t ns, size_t nm, const double *tau, const double *gains,
                       const struct irun *run, double **pred, double *sse, size_t *cnt,
                       double *worst)
{
    size_t n = run->n, q = nm + 1;
    double *resp = malloc(ns * n * sizeof *resp), *basis = malloc(n * q * sizeof *basis);
    gsl_matrix *G = gsl_matrix_alloc(q, q);
    gsl_vector *c = gsl_vector_alloc(q), *x = gsl_vector_alloc(q);
    int rc = -1;
    if (!resp || !basis || !G || !c || !x)
        goto out;
    double xs[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES] = {0}, e[TB_IDENT_MAX_MODES];
    char all_free[TB_IDENT_MAX_MODES + 1];   /* offset and initial state: any sign */
    memset(all_free, 1, sizeof all_free);
    for (size_t j = 0; j < nm; j++)
        e[j] = 1;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < ns; i++) {
            double s = 0;
            for (size_t u = 0; u < nu; u++)
                for (size_t j = 0; j < nm; j++)
                    s += gains[(i * nu + u) * nm + j] * xs[u * nm + j];
            resp[i * n + k] = s;
        }
        basis[k * q] = 1;
        for (size_t j = 0; j < nm; j++)
            basis[k * q + 1 + j] = e[j];
        for (size_t j = 0; j < nm; j++) {
            double a = exp(-run->dt[k] / tau[j]);
            e[j] *= a;
            for (size_t u = 0; u < nu; u++)
                xs[u * nm + j] = a * xs[u * nm + j] + (1 - a) * run->u[u * n + k];
        }
    }
    for (size_t i = 0; i < ns; i++) {
        gsl_matrix_set_zero(G);
        gsl_vector_set_zero(c);
        cnt[i] = 0;
        for (size_t k = 0; k < n; k++) {
            double y = run->y[i * n + k];
            if (isnan(y))
                continue;
            cnt[i]++;
            for (size_t a = 0; a < q; a++) {
                for (size_t b = 0; b < q; b++)
                    G->data[a * G->tda + b] += basis[k * q + a] * basis[k * q + b];
                c->data[a] += basis[k * q + a] * (y - resp[i * n + k]);
            }
        }
        if (nnls_gram(G, c, all_free, x) < 0)
            goto out;
        sse[i] = 0;
        if (worst)
            worst[i] = 0;
        for (size_t k = 0; k < n; k++) {
            double f = resp[i * n + k];
            for (size_t a = 0; a < q; a++)
                f += basis[k * q + a] * gsl_vector_get(x, a);
            if (pred)
                pred[i][k] = f + run->mean[i];
            double y = run->y[i * n + k];
            if (isnan(y))
                continue;
            sse[i] += (y - f) * (y - f);
            if (worst)
                worst[i] = fmax(worst[i], fabs(y - f));
        }
    }
    rc = 0;
out:
    free(resp);
    free(basis);
    gsl_matrix_free(G);
    gsl_vector_free(c);
    gsl_vector_free(x);
    return rc;
}

/* Each run predicted by the model of the others (refined from TAU, the
 * fit on all of them): the held-out rmse over every sensor, or NaN. */
static double held_out(const struct irun *const *runs, size_t nruns, size_t nu, size_t ns,
                       size_t nm, const double *tau, double lphi, double hphi)
{
    const struct irun **rest = malloc(nruns * sizeof *rest);
    double sse = 0, *s = malloc(ns * sizeof *s);
    size_t n = 0, *cnt = malloc(ns * sizeof *cnt);
    int ok = rest && s && cnt;
    for (size_t h = 0; ok && h < nruns; h++) {
        size_t k = 0;
        for (size_t r = 0; r < nruns; r++)
            if (r != h)
                rest[k++] = runs[r];
        struct work *w = work_alloc(rest, k, nu, ns, nm);
        double t[TB_IDENT_MAX_MODES];
        ok = w != NULL;
        if (ok) {
            w->lphi = lphi;
            w->hphi = hphi;
            ok = isfinite(refine(w, tau, 0.1, t)) && isfinite(work_solve(w, t));
        }
        double *gains = ok ? malloc(ns * nu * nm * sizeof *gains) : NULL;
        if (ok && gains) {
            for (size_t i = 0; i < ns; i++)
                for (size_t u = 0; u < nu; u++)
                    for (size_t j = 0; j < nm; j++)
                        gains[(i * nu + u) * nm + j] = w->coef[i * w->p + gain_col(w, u, j)];
            ok = predict_run(nu, ns, nm, t, gains, runs[h], NULL, s, cnt, NULL) == 0;
            for (size_t i = 0; ok && i < ns; i++) {
                sse += s[i];
                n += cnt[i];
            }
        } else {
            ok = 0;
        }
        free(gains);
        work_free(w);
    }
    free(rest);
    free(s);
    free(cnt);
    return ok && n ? sqrt(sse / (double)n) : NAN;
}

/* The search range from the runs: twice the median period to three times
 * the longest run. */
static void default_range(const struct irun *runs, size_t nruns, double *lo, double *hi,
                          double *longest)
{
    double *dt = NULL;
    size_t total = 0, k = 0;
    *longest = 0;
    for (size_t r = 0; r < nruns; r++) {
        total += runs[r].n;
        if (runs[r].n)
            *longest = fmax(*longest, runs[r].tt[runs[r].n - 1]);
    }
    dt = malloc(total * sizeof *dt);
    for (size_t r = 0; dt && r < nruns; r++)
        for (size_t i = 0; i + 1 < runs[r].n; i++)
            dt[k++] = runs[r].dt[i];
    double med = dt && k ? gsl_stats_median(dt, 1, k) : 1;
    free(dt);
    *lo = 2 * fmax(med, 1e-3);
    *hi = 3 * fmax(*longest, 10 * *lo);
}

/* The runs IN as the search wants them, into RUNS (and RP, pointers to
 * them); each run long enough, the ambient in all or none, each input
 * varying (one that never changes is one more offset: no gain in it).
 * 0, or -1 with ERR. */
static int prepare_runs(const tb_ident_run *in, size_t nruns, const char *const *inputs, size_t nu,
                        const char *const *sensors, size_t ns, struct irun *runs,
                        const struct irun **rp, char *err, size_t errlen)
{
    for (size_t r = 0; r < nruns; r++) {
        if (in[r].n < 3) {
            snprintf(err, errlen, "%s: %zu rows are too few to identify a model", in[r].name,
                     in[r].n);
            return -1;
        }
        if (irun_init(&runs[r], &in[r], inputs, nu, sensors, ns, err, errlen) < 0)
            return -1;
        rp[r] = &runs[r];
    }
    for (size_t r = 1; r < nruns; r++)
        if ((in[r].ambient != NULL) != (in[0].ambient != NULL)) {
            snprintf(err, errlen, "%s: an ambient in some runs and not in others", in[r].name);
            return -1;
        }
    for (size_t u = 0; u < nu; u++) {
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (size_t r = 0; r < nruns; r++)
            for (size_t k = 0; k < runs[r].n; k++) {
                lo = fmin(lo, runs[r].u[u * runs[r].n + k]);
                hi = fmax(hi, runs[r].u[u * runs[r].n + k]);
            }
        if (!(hi - lo > 1e-9 * fmax(1, fabs(hi)))) {
            snprintf(err, errlen, "input %s does not vary (%g throughout): its gain cannot be "
                     "told from the offset; excite it (tb-load --prbs) or leave it out",
                     inputs ? inputs[u] : "?", hi);
            return -1;
        }
    }
    return 0;
}

/* Each number of modes tried: its best τ, AICc and held-out rmse. */
struct mode_search {
    int first, last;   /* the numbers of modes tried */
    size_t rows;       /* the runs' rows, all together */
    double lphi, hphi; /* the τ range, in log */
    double best_tau[TB_IDENT_MAX_MODES][TB_IDENT_MAX_MODES];
    double aicc[TB_IDENT_MAX_MODES], hold[TB_IDENT_MAX_MODES];
};

/* Search NM modes' τ into MS.  1 when the runs' rows cannot tell that
 * many (MS->last lowered), 0, or -1 with ERR. */
static int search_modes(const struct irun *const *rp, size_t nruns, size_t nu, size_t ns, int nm,
                        int held, struct mode_search *ms, char *err, size_t errlen)
{
    size_t rows = ms->rows;
    struct work *w = work_alloc(rp, nruns, nu, ns, (size_t)nm);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* the τ's parameters and every sensor's must leave rows over */
    if ((double)(w->p * ns + (size_t)nm) * 2 > (double)rows * (double)ns) {
        if (nm == ms->first)
            snprintf(err, errlen, "%d modes (--modes) need %zu numbers, more than the runs' %zu "
                     "rows can tell: fewer modes, or longer runs", nm, w->p * ns + (size_t)nm, rows);
        work_free(w);
        ms->last = nm - 1;
        return nm == ms->first ? -1 : 1;
    }
    w->lphi = ms->lphi;
    w->hphi = ms->hphi;
    double rss = search(w, ms->best_tau[nm - 1]);
    if (!isfinite(rss)) {
        snprintf(err, errlen, "the search for %d modes failed", nm);
        work_free(w);
        return -1;
    }
    size_t N = 0;
    for (size_t i = 0; i < ns; i++)
        N += w->cnt[i];
    double k = (double)(w->p * ns + (size_t)nm);
    ms->aicc[nm - 1] = (double)N * log(fmax(rss, 1e-300) / (double)N) + 2 * k +
                       ((double)N - k - 1 > 0 ? 2 * k * (k + 1) / ((double)N - k - 1) : HUGE_VAL);
    if (held)
        ms->hold[nm - 1] = held_out(rp, nruns, nu, ns, (size_t)nm, ms->best_tau[nm - 1], w->lphi,
                                    w->hphi);
    work_free(w);
    return 0;
}

/* The number of modes: a mode more must predict the held-out runs better
 * by a margin (with one run: any lower AICc). */
static int choose_modes(const struct mode_search *ms, size_t nruns)
{
    int tried = 0, chosen = 1;
    for (int nm = ms->first; nm <= ms->last; nm++)
        if (isfinite(ms->aicc[nm - 1]))
            tried = nm;
    const double *crit = nruns >= 2 ? ms->hold : ms->aicc;
    for (int nm = 2; nm <= tried; nm++) {
        if (!isfinite(crit[nm - 1]))
            break;
        double better = nruns >= 2 ? crit[chosen - 1] * (1 - HELD_OUT_TOLERANCE) : crit[chosen - 1];
        if (crit[nm - 1] < better)
            chosen = nm;
    }
    return chosen;
}

/* The model of CHOSEN modes at their best τ into M (allocated by the
 * caller): gains, intervals at LEVEL, flags.  0, or -1 with ERR. */
static int solve_model(const struct irun *const *rp, size_t nruns, size_t nu, size_t ns,
                       int chosen, const struct mode_search *ms, double longest, double level,
                       tb_ident_model *m, char *err, size_t errlen)
{
    struct work *w = work_alloc(rp, nruns, nu, ns, (size_t)chosen);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!isfinite(work_solve(w, ms->best_tau[chosen - 1]))) {
        snprintf(err, errlen, "the gains of %d modes could not be solved for", chosen);
        work_free(w);
        return -1;
    }
    w->lphi = ms->lphi;
    w->hphi = ms->hphi;
    take_model(w, m);
    m->flags = model_flags(w, longest);
    size_t npar = w->p * ns + (size_t)chosen;
    double z = m->npoints > npar ? gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(m->npoints - npar))
                                 : NAN;
    if (!isfinite(z) || covariance(w, m, z) < 0)
        m->flags |= TB_IDENT_NO_CI;
    else
        m->flags |= insignificant_modes(m);
    m->flags |= lack_of_fit(w, m);
    if (m->choice == TB_IDENT_HELD_OUT && isfinite(ms->hold[chosen - 1])) {
        double fit = 0;
        for (size_t i = 0; i < ns; i++)
            fit += m->rmse[i] * m->rmse[i] * (double)w->cnt[i];
        fit = sqrt(fit / (double)m->npoints);
        if (ms->hold[chosen - 1] > NO_PREDICTION_RATIO * fit)
            m->flags |= TB_IDENT_NO_PREDICTION;
    }
    work_free(w);
    return 0;
}

/* Options out of range: an error in ERR (-1), or 0 with O's level set. */
static int check_ident_options(size_t nruns, size_t nu, size_t ns, tb_ident_options *o,
                               char *err, size_t errlen)
{
    if (nruns == 0 || nu == 0 || ns == 0 || nu > TB_IDENT_MAX_INPUTS ||
        ns > TB_IDENT_MAX_SENSORS) {
        snprintf(err, errlen, "identification needs a run, 1 to %d inputs and 1 to %d sensors",
                 TB_IDENT_MAX_INPUTS, TB_IDENT_MAX_SENSORS);
        return -1;
    }
    if (o->modes < 0 || o->modes > TB_IDENT_MAX_MODES || o->max_modes < 1 ||
        o->max_modes > TB_IDENT_MAX_MODES) {
        snprintf(err, errlen, "modes must be 1 to %d", TB_IDENT_MAX_MODES);
        return -1;
    }
    if (!(o->level > 0 && o->level < 1))
        o->level = 0.95;
    return 0;
}

int tb_ident_fit(const tb_ident_run *in, size_t nruns, const char *const *inputs, size_t nu,
                 const char *const *sensors, size_t ns, const tb_ident_options *opt,
                 tb_ident_model *m, char *err, size_t errlen)
{
    fit_gsl_errors_off();
    tb_ident_options o = opt ? *opt : tb_ident_default_options();
    memset(m, 0, sizeof *m);
    if (check_ident_options(nruns, nu, ns, &o, err, errlen) < 0)
        return -1;
    struct irun *runs = calloc(nruns, sizeof *runs);
    const struct irun **rp = calloc(nruns, sizeof *rp);
    int rc = -1;
    if (!runs || !rp) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (prepare_runs(in, nruns, inputs, nu, sensors, ns, runs, rp, err, errlen) < 0)
        goto out;
    double lo, hi, longest;
    default_range(runs, nruns, &lo, &hi, &longest);
    if (o.tau_min > 0)
        lo = o.tau_min;
    if (o.tau_max > 0)
        hi = o.tau_max;
    if (!(hi > 1.5 * lo)) {
        snprintf(err, errlen, "the τ range %g to %g s (--tau-min, --tau-max) holds no search",
                 lo, hi);
        goto out;
    }
    struct mode_search ms = {.first = o.modes ? o.modes : 1, .last = o.modes ? o.modes : o.max_modes,
                             .lphi = log(lo), .hphi = log(hi)};
    int tried = ms.last;
    for (size_t r = 0; r < nruns; r++)
        ms.rows += runs[r].n;
    for (int j = 0; j < TB_IDENT_MAX_MODES; j++)
        ms.aicc[j] = ms.hold[j] = NAN;
    for (int nm = ms.first, st = 0; nm <= ms.last && st == 0; nm++)
        if ((st = search_modes(rp, nruns, nu, ns, nm, !o.modes && nruns >= 2, &ms, err,
                               errlen)) < 0)
            goto out;
    int chosen = o.modes ? ms.first : choose_modes(&ms, nruns);
    if (ident_model_alloc(m, nu, ns, (size_t)chosen, inputs, sensors) < 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    m->choice = o.modes ? TB_IDENT_GIVEN : nruns >= 2 ? TB_IDENT_HELD_OUT : TB_IDENT_AICC;
    m->tried = tried;
    memcpy(m->aicc, ms.aicc, sizeof ms.aicc);
    memcpy(m->held_out, ms.hold, sizeof ms.hold);
    m->nruns = nruns;
    m->duration = longest;
    m->level = o.level;
    m->above_ambient = in[0].ambient != NULL;
    if (solve_model(rp, nruns, nu, ns, chosen, &ms, longest, o.level, m, err, errlen) < 0)
        goto out;
    rc = 0;
out:
    for (size_t r = 0; runs && r < nruns; r++)
        irun_free(&runs[r]);
    free(runs);
    free(rp);
    if (rc < 0)
        tb_ident_model_clear(m);
    return rc;
}

int tb_ident_predict(const tb_ident_model *m, const tb_ident_run *in, double **pred,
                     double *rmse, double *worst, char *err, size_t errlen)
{
    fit_gsl_errors_off();
    size_t nu = m->ninputs, ns = m->nsensors, nm = m->nmodes;
    struct irun run;
    double tau[TB_IDENT_MAX_MODES], *gains = malloc(ns * nu * nm * sizeof *gains);
    double *sse = malloc(ns * sizeof *sse);
    size_t *cnt = malloc(ns * sizeof *cnt);
    int rc = -1;
    memset(&run, 0, sizeof run);
    if (!gains || !sse || !cnt) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (in->n < nm + 2) {
        snprintf(err, errlen, "%s: %zu rows are too few to predict", in->name, in->n);
        goto out;
    }
    if (irun_init(&run, in, (const char *const *)m->inputs, nu,
                  (const char *const *)m->sensors, ns, err, errlen) < 0)
        goto out;
    for (size_t j = 0; j < nm; j++)
        tau[j] = m->tau[j].value;
    for (size_t k = 0; k < ns * nu * nm; k++)
        gains[k] = m->gain[k].value;
    if (predict_run(nu, ns, nm, tau, gains, &run, pred, sse, cnt, worst) < 0) {
        snprintf(err, errlen, "%s: the prediction failed", in->name);
        goto out;
    }
    for (size_t i = 0; rmse && i < ns; i++)
        rmse[i] = cnt[i] ? sqrt(sse[i] / (double)cnt[i]) : NAN;
    rc = 0;
out:
    irun_free(&run);
    free(gains);
    free(sse);
    free(cnt);
    return rc;
}

void tb_ident_state_space(const tb_ident_model *m, double dt, double *A, double *B, double *C,
                          double *D, double *Phi, double *Gamma)
{
    size_t nu = m->ninputs, ns = m->nsensors, nm = m->nmodes, nx = nu * nm;
    if (A)
        memset(A, 0, nx * nx * sizeof *A);
    if (Phi)
        memset(Phi, 0, nx * nx * sizeof *Phi);
    if (B)
        memset(B, 0, nx * nu * sizeof *B);
    if (Gamma)
        memset(Gamma, 0, nx * nu * sizeof *Gamma);
    if (D)
        memset(D, 0, ns * nu * sizeof *D);
    for (size_t u = 0; u < nu; u++)
        for (size_t j = 0; j < nm; j++) {
            size_t s = u * nm + j;
            double tau = m->tau[j].value, a = exp(-dt / tau);
            if (A)
                A[s * nx + s] = -1 / tau;
            if (B)
                B[s * nu + u] = 1 / tau;
            if (Phi)
                Phi[s * nx + s] = a;
            if (Gamma)
                Gamma[s * nu + u] = 1 - a;
        }
    for (size_t i = 0; C && i < ns; i++)
        for (size_t s = 0; s < nx; s++)
            C[i * nx + s] = m->gain[(i * nu + s / nm) * nm + s % nm].value;
}
