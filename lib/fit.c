/*
 * fit.c -- the thermal model fit: checks, search, intervals and flags.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fit_internal.h"
#include "gsl_errors.h"

tb_fit_options tb_fit_default_options(void)
{
    return (tb_fit_options){.order = 3, .level = 0.95, .ci = TB_CI_HAC, .bootstrap = 200,
                            .seed = 1};
}

const char *tb_ci_method_name(enum tb_ci_method m)
{
    switch (m) {
    case TB_CI_HAC: return "hac";
    case TB_CI_PLAIN: return "covariance";
    case TB_CI_BOOTSTRAP: return "bootstrap";
    }
    return "unknown";
}

const char *tb_fit_flag_name(unsigned flag)
{
    switch (flag) {
    case TB_FIT_TAU_AT_BOUND: return "tau_at_bound";
    case TB_FIT_TAU_MERGED: return "tau_merged";
    case TB_FIT_K_HUGE: return "k_huge";
    case TB_FIT_TAU_SHORT: return "tau_short";
    case TB_FIT_FEW_POINTS: return "few_points";
    case TB_FIT_NO_CONVERGENCE: return "no_convergence";
    case TB_FIT_NO_CI: return "no_ci";
    case TB_FIT_THROTTLED: return "throttled";
    case TB_FIT_K_SPANS_ZERO: return "k_spans_zero";
    case TB_FIT_EXTRAPOLATED: return "extrapolated";
    case TB_FIT_LACK_OF_FIT: return "lack_of_fit";
    default: return NULL;
    }
}

const char *tb_fit_flag_meaning(unsigned flag)
{
    switch (flag) {
    case TB_FIT_TAU_AT_BOUND: return "a time constant ended at the end of its search range";
    case TB_FIT_TAU_MERGED: return "two time constants are within a factor 1.5: the data do not tell them apart";
    case TB_FIT_K_HUGE: return "an amplitude is ten times the span of the data: terms cancel";
    case TB_FIT_TAU_SHORT: return "the fastest time constant is under three sampling periods";
    case TB_FIT_FEW_POINTS: return "under five points per parameter";
    case TB_FIT_NO_CONVERGENCE: return "the search stopped at its limit";
    case TB_FIT_NO_CI: return "the intervals could not be computed";
    case TB_FIT_THROTTLED: return "the frequency or the power changed during the run";
    case TB_FIT_K_SPANS_ZERO: return "a term's amplitude interval holds 0: the term may not be there";
    case TB_FIT_EXTRAPOLATED: return "T∞ lies beyond the data: the run ended before the slowest mode settled";
    case TB_FIT_LACK_OF_FIT: return "the residuals have structure: the model does not hold";
    default: return NULL;
    }
}

void tb_fit_clear(tb_fit *fit)
{
    if (!fit)
        return;
    free(fit->series);
    free(fit->replicates);
    memset(fit, 0, sizeof *fit);
}

double tb_fit_eval(const tb_fit *fit, size_t i, double t)
{
    const tb_fit_series *s = &fit->series[i];
    double y = s->t_inf.value;
    for (int j = 0; j < fit->order; j++)
        y += s->k[j].value * exp(-t / fit->tau[j].value);
    return y;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Median time between points over all series. */
static double median_period(const tb_series *s, size_t ns)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < ns; i++)
        total += s[i].n - 1;
    double *dt = malloc(total * sizeof *dt);
    if (!dt)
        return NAN;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 1; j < s[i].n; j++)
            dt[k++] = s[i].t[j] - s[i].t[j - 1];
    double med = gsl_stats_median(dt, 1, total);   /* quickselect */
    free(dt);
    return med;
}

static int check_input(const tb_series *s, size_t ns, const tb_fit_options *opt,
                       char *err, size_t errlen)
{
    size_t params = ns * (size_t)(opt->order + 1) + (size_t)opt->order, points = 0;

    if (opt->order < 1 || opt->order > TB_FIT_MAX_ORDER)
        return fail(err, errlen, "order %d: it must be 1 to %d", opt->order, TB_FIT_MAX_ORDER);
    if (!(opt->level > 0 && opt->level < 1))
        return fail(err, errlen, "confidence level %g: it must be between 0 and 1", opt->level);
    if (opt->ci != TB_CI_HAC && opt->ci != TB_CI_PLAIN && opt->ci != TB_CI_BOOTSTRAP)
        return fail(err, errlen, "unknown interval method %d", (int)opt->ci);
    if (opt->ci == TB_CI_BOOTSTRAP && (opt->bootstrap < 20 || opt->bootstrap > 100000))
        return fail(err, errlen, "%d bootstrap resamples: it must be 20 to 100000", opt->bootstrap);
    if (opt->tau_min < 0 || opt->tau_max < 0 ||
        (opt->tau_min > 0 && opt->tau_max > 0 && opt->tau_min >= opt->tau_max))
        return fail(err, errlen, "τ range %g to %g s is empty", opt->tau_min, opt->tau_max);
    if (ns == 0)
        return fail(err, errlen, "nothing to fit");
    /* one series has all 2n + 1 parameters to itself; several share τ */
    size_t need = ns == 1 ? params + 1 : (size_t)opt->order + 2;
    for (size_t i = 0; i < ns; i++) {
        const char *which = ns > 1 ? " (one of the series)" : "";
        if (s[i].n < need)
            return fail(err, errlen, "%zu points are too few for order %d%s: at least %zu are needed",
                        s[i].n, opt->order, which, need);
        int constant = 1;
        for (size_t j = 0; j < s[i].n; j++) {
            if (!isfinite(s[i].t[j]) || !isfinite(s[i].y[j]))
                return fail(err, errlen, "point %zu is not a finite number%s", j + 1, which);
            if (j > 0 && s[i].t[j] < s[i].t[j - 1])
                return fail(err, errlen, "time goes backwards at point %zu%s", j + 1, which);
            constant &= s[i].y[j] == s[i].y[0];
        }
        if (constant)
            return fail(err, errlen, "the data are constant (%g)%s: there is nothing to fit",
                        s[i].y[0], which);
        if (s[i].t[s[i].n - 1] <= s[i].t[0])
            return fail(err, errlen, "all points have the same time%s", which);
        points += s[i].n;
    }
    if (points <= params)
        return fail(err, errlen, "%zu points are too few for %zu parameters", points, params);
    return 0;
}

/* Rows of the Jacobian formed at a time: the covariance needs only the R
 * of its QR, updated a block at a time, never the whole m × P matrix. */
#define COVARIANCE_BLOCK 512

/* Row I of series K of the full Jacobian over (T∞ₛ, kₛ₁ … kₛₙ for each
 * series, τ₁ … τₙ) into ROW, which is zeroed first. */
static void jacobian_row(const struct vp *vp, size_t k, size_t i, double *row, size_t P)
{
    const struct vp_series *s = &vp->s[k];
    size_t n = vp->n, q = vp->q;
    memset(row, 0, P * sizeof *row);
    row[k * q] = 1;
    for (size_t j = 0; j < n; j++) {
        double e = s->e[j * s->m + i], tau = vp->tau[j];
        row[k * q + 1 + j] = e;
        row[vp->ns * q + j] = gsl_vector_get(s->c, j + 1) * e * s->t[i] / (tau * tau);
    }
}

/* The QR of S = [R; block of ROWS rows] (Householder, GSL) leaves the R
 * of all rows so far in S's first P rows' upper triangle; the rest of S
 * is zeroed for the next block. */
static int qr_update(gsl_matrix *S, size_t rows, gsl_vector *tau)
{
    size_t P = S->size2;
    gsl_matrix_view used = gsl_matrix_submatrix(S, 0, 0, P + rows, P);
    if (gsl_linalg_QR_decomp(&used.matrix, tau) != GSL_SUCCESS)
        return -1;
    for (size_t a = 0; a < P + rows; a++)   /* Householder vectors out */
        for (size_t b = 0; b < P && b < a; b++)
            gsl_matrix_set(S, a, b, 0);
    return 0;
}

/* (JᵀJ)⁻¹ into C.  J's R factor is updated over blocks of rows, in
 * about (P + COVARIANCE_BLOCK)·P memory rather than J's m·P.  Since RᵀR =
 * JᵀJ, GSL's covariance of the P × P matrix R is J's, with its column
 * pivoting where J is nearly singular.  -1 when it cannot be computed. */
static int jacobian_inverse(const struct vp *vp, gsl_matrix *C)
{
    size_t P = C->size1;
    gsl_matrix *S = gsl_matrix_calloc(P + COVARIANCE_BLOCK, P);
    gsl_vector *tau = gsl_vector_alloc(P);
    int rc = -1;

    if (!S || !tau)
        goto out;
    size_t used = 0;
    for (size_t k = 0; k < vp->ns; k++) {
        for (size_t i = 0; i < vp->s[k].m; i++) {
            jacobian_row(vp, k, i, gsl_matrix_ptr(S, P + used, 0), P);
            if (++used == COVARIANCE_BLOCK) {
                if (qr_update(S, used, tau) < 0)
                    goto out;
                used = 0;
            }
        }
    }
    if (used > 0 && qr_update(S, used, tau) < 0)
        goto out;
    gsl_matrix_view R = gsl_matrix_submatrix(S, 0, 0, P, P);
    if (gsl_multifit_nlinear_covar(&R.matrix, 0.0, C) == GSL_SUCCESS)
        rc = 0;
out:
    gsl_matrix_free(S);
    gsl_vector_free(tau);
    return rc;
}

size_t fit_hac_lags(const gsl_vector *r)
{
    size_t m = r->size;
    double c0 = 0, c1 = 0;
    for (size_t i = 0; i < m; i++) {
        double x = gsl_vector_get(r, i);
        c0 += x * x;
        if (i > 0)
            c1 += x * gsl_vector_get(r, i - 1);
    }
    if (!(c0 > 0) || m < 8)
        return 0;
    /* Andrews (1991), eq. 6.4, for the Bartlett kernel and an AR(1) of
     * coefficient ρ: α(1) = 4ρ² / ((1−ρ)²(1+ρ)²), S = 1.1447 (α(1) m)^⅓. */
    double rho = fmin(fmax(c1 / c0, -0.97), 0.97);
    double alpha = 4 * rho * rho / ((1 - rho) * (1 - rho) * (1 + rho) * (1 + rho));
    double lags = floor(1.1447 * cbrt(alpha * (double)m));
    return lags < (double)(m / 2) ? (size_t)lags : m / 2;
}

int newey_west_start(struct newey_west *nw, size_t P, size_t L)
{
    *nw = (struct newey_west){.P = P, .L = L};
    nw->A = calloc((3 + L) * P, sizeof *nw->A);
    if (!nw->A)
        return -1;
    nw->B = nw->A + P;
    nw->h = nw->B + P;
    nw->ring = nw->h + P;
    return 0;
}

void newey_west_add(struct newey_west *nw, const double *g, gsl_matrix *S, double f)
{
    size_t P = nw->P, L = nw->L;
    double *h = nw->h;
    for (size_t a = 0; a < P; a++)
        h[a] = L ? nw->A[a] - nw->B[a] / (double)(L + 1) : 0;
    /* symmetric: the upper triangle here, the lower one copied at the end
     * (newey_west_finish()); the hot loop of the HAC intervals */
    for (size_t a = 0; a < P; a++) {
        double *row = S->data + a * S->tda, fga = f * g[a], fha = f * h[a];
        for (size_t b = a; b < P; b++)
            row[b] += fga * (g[b] + h[b]) + fha * g[b];
    }
    if (L) {
        double *old = nw->ring + (nw->i % L) * P;
        for (size_t a = 0; a < P; a++) {
            nw->B[a] += nw->A[a] + g[a] - (double)(L + 1) * old[a];
            nw->A[a] += g[a] - old[a];
            old[a] = g[a];
        }
    }
    nw->i++;
}

void newey_west_restart(struct newey_west *nw)
{
    memset(nw->A, 0, (3 + nw->L) * nw->P * sizeof *nw->A);
    nw->i = 0;
}

void newey_west_finish(gsl_matrix *S)
{
    for (size_t a = 0; a < S->size1; a++)
        for (size_t b = 0; b < a; b++)
            gsl_matrix_set(S, a, b, gsl_matrix_get(S, b, a));
}

void fit_ar_choose(const double *c, size_t m, size_t pmax, struct fit_ar *ar)
{
    double phi[FIT_AR_MAX + 1] = {0}, prev[FIT_AR_MAX + 1], v = c[0];
    double best = (double)m * log(v);

    *ar = (struct fit_ar){.gain = 1};
    if (!(v > 0))
        return;
    pmax = pmax < FIT_AR_MAX ? pmax : FIT_AR_MAX;
    /* Levinson–Durbin: the Yule–Walker AR(p) from AR(p − 1), with the
     * innovations' variance v; from autocovariances, always stationary. */
    for (size_t p = 1; p <= pmax; p++) {
        double acc = c[p];
        for (size_t j = 1; j < p; j++)
            acc -= phi[j] * c[p - j];
        double kappa = acc / v;
        if (!(fabs(kappa) < 1))
            break;
        memcpy(prev, phi, sizeof phi);
        for (size_t j = 1; j < p; j++)
            phi[j] = prev[j] - kappa * prev[p - j];
        phi[p] = kappa;
        v *= 1 - kappa * kappa;
        double aic = (double)m * log(v) + 2.0 * (double)p;
        if (aic < best) {
            best = aic;
            ar->p = p;
            memcpy(ar->phi, phi + 1, p * sizeof *phi);
        }
    }
    double a1 = 1;
    for (size_t j = 0; j < ar->p; j++)
        a1 -= ar->phi[j];
    /* at most as persistent as an AR(1) of 0.97 (Andrews and Monahan) */
    a1 = fmax(a1, 0.03);
    ar->gain = 1 / (a1 * a1);
}

/* The AR filter of the residuals of series FIRST..END pooled, chosen by
 * AIC up to order FIT_AR_MAX: see fit_ar_choose(). */
static void residual_ar(const struct vp *vp, size_t first, size_t end, struct fit_ar *ar)
{
    double c[FIT_AR_MAX + 1] = {0};
    size_t m = 0;
    for (size_t k = first; k < end; k++) {
        const gsl_vector *r = vp->s[k].r;
        for (size_t lag = 0; lag <= FIT_AR_MAX; lag++)
            for (size_t i = lag; i < r->size; i++)
                c[lag] += gsl_vector_get(r, i) * gsl_vector_get(r, i - lag);
        m += r->size;
    }
    for (size_t lag = 0; lag <= FIT_AR_MAX; lag++)
        c[lag] /= (double)(m ? m : 1);
    fit_ar_choose(c, m, m / 20, ar);
}

double fit_ar_whiten(const struct fit_ar *ar, const double *x, size_t i, size_t stride)
{
    double u = x[i * stride];
    for (size_t j = 0; j < ar->p && j < i; j++)
        u -= ar->phi[j] * x[(i - 1 - j) * stride];
    return u;
}

void fit_ar_whiten_score(const struct fit_ar *ar, const double *g, size_t seen, size_t P,
                         double *past, double *gw)
{
    memcpy(gw, g, P * sizeof *g);
    for (size_t j = 0; j < ar->p && j < seen; j++) {
        const double *old = past + ((seen - 1 - j) % FIT_AR_MAX) * P;
        for (size_t a = 0; a < P; a++)
            gw[a] -= ar->phi[j] * old[a];
    }
    memcpy(past + (seen % FIT_AR_MAX) * P, g, P * sizeof *g);
}

/* The Andrews lags of the residuals R whitened by AR. */
static size_t whitened_lags(const gsl_vector *r, const struct fit_ar *ar)
{
    gsl_vector *u = gsl_vector_alloc(r->size);
    if (!u)
        return fit_hac_lags(r);
    for (size_t i = 0; i < r->size; i++)
        gsl_vector_set(u, i, fit_ar_whiten(ar, r->data, i, r->stride));
    size_t L = fit_hac_lags(u);
    gsl_vector_free(u);
    return L;
}

int fit_series_aligned(const tb_series *s, size_t ns)
{
    for (size_t k = 1; k < ns; k++) {
        if (s[k].n != s[0].n)
            return 0;
        for (size_t i = 0; i < s[0].n; i++)
            if (s[k].t[i] != s[0].t[i])
                return 0;
    }
    return 1;
}

/* The HAC "meats", in one pass over the Jacobian: into S the Newey–West
 * long-run covariance of the scores gᵢ = Jᵢᵀ rᵢ; into W that of the
 * prewhitened gᵢ − Σⱼ φⱼ·gᵢ₋ⱼ, recoloured by 1/(1 − Σφⱼ)², with φ the
 * residuals' AR filter chosen by AIC and the lags of the whitened
 * residuals (Andrews and Monahan 1992, with den Haan and Levin's AR
 * order by information criterion).  An AR(1) alone does not do: a
 * sensor's quantisation adds white noise to its autocorrelated noise,
 * the lag-1 autocorrelation then understates the persistence, and the
 * whitened scores keep a long positive tail the few lags of their
 * Andrews bandwidth cut off (under AR(1) 0.95 noise with 0.1 °C steps,
 * T∞'s variance came out a third of the truth).  Series fitted together
 * (shared τ) that were sampled together contribute one score per
 * instant, their sum, so noise common to the sensors of a board (it is,
 * in part) counts once, not once per sensor; other series are summed as
 * independent.  Returns the largest L of S, or -1 when memory runs out. */
static ssize_t hac_meat(const struct vp *vp, const tb_series *series, gsl_matrix *S,
                        gsl_matrix *W)
{
    size_t P = S->size1, most = 0, ns = vp->ns;
    int aligned = ns > 1 && fit_series_aligned(series, ns);
    /* g, a Jacobian row, the whitened g, and the last FIT_AR_MAX g */
    double *g = malloc((3 + FIT_AR_MAX) * P * sizeof *g);

    if (!g)
        return -1;
    double *row = g + P, *gw = g + 2 * P, *past = g + 3 * P;
    gsl_matrix_set_zero(S);
    gsl_matrix_set_zero(W);
    /* the sequences of scores: all series at once when aligned, else each */
    for (size_t seq = 0; seq < (aligned ? 1 : ns); seq++) {
        size_t first = aligned ? 0 : seq, end = aligned ? ns : seq + 1, L = 0, Lw = 0;
        struct fit_ar ar;
        residual_ar(vp, first, end, &ar);
        for (size_t k = first; k < end; k++) {
            size_t lags = fit_hac_lags(vp->s[k].r), wl = whitened_lags(vp->s[k].r, &ar);
            L = lags > L ? lags : L;
            Lw = wl > Lw ? wl : Lw;
        }
        most = L > most ? L : most;
        struct newey_west nw, nww;
        if (newey_west_start(&nw, P, L) < 0 || newey_west_start(&nww, P, Lw) < 0) {
            free(nw.A);
            free(g);
            return -1;
        }
        for (size_t i = 0; i < vp->s[first].m; i++) {
            memset(g, 0, P * sizeof *g);
            for (size_t k = first; k < end; k++) {
                jacobian_row(vp, k, i, row, P);
                double r = gsl_vector_get(vp->s[k].r, i);
                for (size_t a = 0; a < P; a++)
                    g[a] += row[a] * r;
            }
            fit_ar_whiten_score(&ar, g, i, P, past, gw);
            newey_west_add(&nw, g, S, 1);
            newey_west_add(&nww, gw, W, ar.gain);
        }
        free(nw.A);
        free(nww.A);
    }
    newey_west_finish(S);
    newey_west_finish(W);
    free(g);
    return (ssize_t)most;
}

/* Intervals at the optimum from the full Jacobian over (T∞ₛ, kₛ₁ … kₛₙ
 * for each series, τ₁ … τₙ): σ²(JᵀJ)⁻¹ (TB_CI_PLAIN), or the sandwich
 * (JᵀJ)⁻¹ M (JᵀJ)⁻¹ with the small-sample factor m/(m − P) (TB_CI_HAC),
 * twice: with the Newey–West meat, and with the meat of the scores
 * prewhitened by the residuals' AR filter (see hac_meat()); each
 * parameter gets the larger variance.  Newey–West alone is biased low for
 * what only the first stretch of a run determines (the fast terms, whose
 * scores sum to zero there): under AR(1) noise of 0.6 its k₁ interval
 * covered 78 % of simulated runs, prewhitened 96 %; prewhitening alone
 * covered T∞ a little less often at AR(1) 0.9.  τ's interval is symmetric
 * in ln τ, so it stays positive and honest for a long τ. */
static int covariance_intervals(const struct vp *vp, const tb_series *series, tb_fit *fit,
                                double level, enum tb_ci_method method)
{
    size_t n = vp->n, q = vp->q, P = fit->params;
    int hac = method == TB_CI_HAC;
    gsl_matrix *B = gsl_matrix_alloc(P, P), *C = gsl_matrix_alloc(P, P);
    gsl_matrix *W = hac ? gsl_matrix_alloc(P, P) : NULL;
    gsl_matrix *M = hac ? gsl_matrix_alloc(P, P) : NULL;
    gsl_matrix *T = hac ? gsl_matrix_alloc(P, P) : NULL;
    double *var = malloc(P * sizeof *var);
    int rc = -1;

    if (!var || !B || !C || (hac && (!W || !M || !T)) || jacobian_inverse(vp, B) < 0)
        goto out;
    if (hac) {
        ssize_t lags = hac_meat(vp, series, M, W);
        if (lags < 0)
            goto out;
        fit->ci_lags = (size_t)lags;
        double f = (double)fit->points / (double)fit->dof;
        /* B·M·B, scaled, into C; then the prewhitened one into W */
        gsl_blas_dsymm(CblasLeft, CblasUpper, 1.0, B, M, 0.0, T);
        gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, f, T, B, 0.0, C);
        gsl_blas_dsymm(CblasLeft, CblasUpper, 1.0, B, W, 0.0, T);
        gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, f, T, B, 0.0, W);
    } else {
        gsl_matrix_memcpy(C, B);
        gsl_matrix_scale(C, fit->rss / (double)fit->dof);
    }
    double tq = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)fit->dof);
    rc = 0;
    for (size_t p = 0; p < P; p++) {
        var[p] = gsl_matrix_get(C, p, p);
        if (W)
            var[p] = fmax(var[p], gsl_matrix_get(W, p, p));
        if (!(var[p] > 0) || !isfinite(var[p]))
            rc = -1;
    }
    for (size_t k = 0; k < vp->ns; k++) {
        for (size_t j = 0; j < q; j++) {
            tb_estimate *e = j == 0 ? &fit->series[k].t_inf : &fit->series[k].k[j - 1];
            double half = tq * sqrt(var[k * q + j]);
            e->lo = e->value - half;
            e->hi = e->value + half;
        }
    }
    /* Each series' blocks of them, for the quantities derived from its θ
     * (tb_fit_derive()): its own T∞ and k, and the shared τ. */
    size_t d = q + n;
    for (size_t k = 0; k < vp->ns; k++)
        for (size_t a = 0; a < d; a++)
            for (size_t b = 0; b < d; b++) {
                size_t pa = a < q ? k * q + a : vp->ns * q + a - q;
                size_t pb = b < q ? k * q + b : vp->ns * q + b - q;
                fit->series[k].cov[a * d + b] = gsl_matrix_get(C, pa, pb);
                fit->series[k].cov_white[a * d + b] = gsl_matrix_get(W ? W : C, pa, pb);
            }
    for (size_t j = 0; j < n; j++) {
        size_t p = vp->ns * q + j;
        double tau = fit->tau[j].value;
        double half = tq * sqrt(var[p]) / tau;
        fit->tau[j].lo = tau * exp(-half);
        fit->tau[j].hi = tau * exp(half);
    }
out:
    free(var);
    gsl_matrix_free(B);
    gsl_matrix_free(C);
    gsl_matrix_free(W);
    gsl_matrix_free(M);
    gsl_matrix_free(T);
    return rc;
}

/* How far out, in Wald half-widths, a profile looks for its bound, and
 * the bound beyond which the linearisation, and so the fit's uncertainty,
 * means nothing (a power step, a mode the run cannot see settle): T∞ is
 * then flagged. */
#define PROFILE_REACH 8
#define PROFILE_FLAG 4

/* The RSS with series K's T∞ held at T_INF and k, τ refitted from TAU,
 * which gets the new optimum: the profile's value there (NaN when the
 * refit fails). */
static double profile_rss(struct vp *vp, size_t k, double t_inf, double *tau)
{
    double t[TB_FIT_MAX_ORDER], rss;
    int conv;
    if (vp_hold_t_inf(vp, k, t_inf) < 0 || vp_refine(vp, tau, t, &rss, &conv) != GSL_SUCCESS ||
        !isfinite(rss))
        return NAN;
    memcpy(tau, t, vp->n * sizeof *t);
    return rss;
}

/* One side (DIR ±1) of series K's T∞ interval from its profile: the
 * offset, in Wald half-widths HALF, where the RSS with T∞ held rises
 * TARGET above the optimum's RSS0; at least 1 (the Wald bound), found by
 * doubling, then by the secant on √ΔRSS (linear in T∞ where the model
 * is), the outer end of the last bracket.  *OPEN is set when it is not
 * found within PROFILE_REACH. */
static double profile_side(struct vp *vp, const tb_fit *fit, size_t k, double half,
                           double rss0, double target, int dir, int *open)
{
    double t0 = fit->series[k].t_inf.value, tau[TB_FIT_MAX_ORDER], in_tau[TB_FIT_MAX_ORDER];
    double in = 0, out = NAN, g_in = -sqrt(target), g_out = NAN;

    for (int j = 0; j < fit->order; j++)
        tau[j] = in_tau[j] = fit->tau[j].value;
    for (double x = 1; x <= PROFILE_REACH; x *= 2) {
        double d = profile_rss(vp, k, t0 + dir * x * half, tau) - rss0;
        if (isnan(d))
            return fmax(in, 1);
        if (d >= target) {
            out = x;
            g_out = sqrt(d) - sqrt(target);
            break;
        }
        in = x;
        g_in = sqrt(fmax(d, 0)) - sqrt(target);
        memcpy(in_tau, tau, sizeof tau);
    }
    if (isnan(out)) {
        *open = 1;
        return in;
    }
    for (int it = 0; it < 6 && out > 1 && out - in > 0.02; it++) {
        double x = in + (out - in) * -g_in / (g_out - g_in);
        x = fmin(fmax(x, in + 0.05 * (out - in)), out - 0.05 * (out - in));
        memcpy(tau, in_tau, sizeof tau);
        double d = profile_rss(vp, k, t0 + dir * x * half, tau) - rss0;
        if (isnan(d))
            break;
        double g = sqrt(fmax(d, 0)) - sqrt(target);
        if (g >= 0) {
            out = x;
            g_out = g;
        } else {
            in = x;
            g_in = g;
            memcpy(in_tau, tau, sizeof tau);
        }
    }
    return fmax(out, 1);
}

/* T∞'s rows and columns of the covariances of FS (D × D) scaled by W,
 * so that what is derived from T∞ (a thermal resistance, a sustainable
 * power: tb_fit_derive()) carries the profile's widening too. */
static void widen_t_inf_covariance(tb_fit_series *fs, size_t d, double w)
{
    for (size_t a = 0; a < d; a++) {
        double f = a == 0 ? w * w : w;
        fs->cov[a] *= f;
        fs->cov_white[a] *= f;
        if (a > 0) {
            fs->cov[a * d] *= f;
            fs->cov_white[a * d] *= f;
        }
    }
}

/*
 * T∞'s interval widened to its profile's.  The Wald interval (the
 * linearisation at the optimum) is narrow exactly where it is wrong: an
 * optimum whose slow τ came out short says T∞ is settled when the run
 * cannot tell that τ from a longer one (under AR(1) noise of 0.95, 22 %
 * of 30-minute runs of the i.MX8 model missed the truth so, unflagged).
 * The profile refits k and τ with T∞ held, and the interval holds every
 * T∞ whose RSS lies within Δ = half²/[(JᵀJ)⁻¹]ₜₜ of the optimum's: in a
 * linear model that is the Wald interval itself (whatever variance,
 * plain or HAC, gave its half-width), so the profile only adds the
 * model's curvature, never changes its calibration.  A side that does not
 * close within PROFILE_FLAG half-widths leaves T∞ undetermined: flagged
 * TB_FIT_EXTRAPOLATED.
 */
static int profile_intervals(const tb_series *s, size_t ns, tb_fit *fit)
{
    size_t P = fit->params, q = (size_t)fit->order + 1;
    double tau[TB_FIT_MAX_ORDER];
    struct vp *vp = vp_alloc(s, ns, fit->order);
    gsl_matrix *B = gsl_matrix_alloc(P, P);
    int rc = -1;

    for (int j = 0; j < fit->order; j++)
        tau[j] = fit->tau[j].value;
    if (!vp || !B)
        goto out;
    vp->theta_lo = log(fit->tau_min);
    vp->theta_hi = log(fit->tau_max);
    if (vp_solve(vp, tau) != GSL_SUCCESS || jacobian_inverse(vp, B) < 0) {
        rc = 0;   /* no Jacobian to calibrate by: the Wald interval stands */
        goto out;
    }
    double rss0 = vp_rss(vp);
    for (size_t k = 0; k < ns; k++) {
        tb_estimate *e = &fit->series[k].t_inf;
        double lo = e->value - e->lo, hi = e->hi - e->value, half = fmin(lo, hi);
        double target = half * half / gsl_matrix_get(B, k * q, k * q);
        int open = 0;
        if (!(half > 0) || !isfinite(target))
            continue;
        double below = profile_side(vp, fit, k, half, rss0, target, -1, &open);
        double above = profile_side(vp, fit, k, half, rss0, target, +1, &open);
        e->lo = fmin(e->lo, e->value - below * half);
        e->hi = fmax(e->hi, e->value + above * half);
        widen_t_inf_covariance(&fit->series[k], q + (size_t)fit->order, fmax(below, above));
        if (open || below > PROFILE_FLAG || above > PROFILE_FLAG)
            fit->flags |= TB_FIT_EXTRAPOLATED;
        if (vp_hold_t_inf(vp, k, NAN) < 0)
            goto out;
    }
    rc = 0;
out:
    vp_free(vp);
    gsl_matrix_free(B);
    return rc;
}

static unsigned degeneracy_flags(const tb_fit *fit, const tb_series *s,
                                 const struct vp *vp)
{
    unsigned flags = 0;
    double margin = 0.01 * (vp->theta_hi - vp->theta_lo);

    for (int j = 0; j < fit->order; j++) {
        double theta = log(fit->tau[j].value);
        if (theta - vp->theta_lo < margin || vp->theta_hi - theta < margin)
            flags |= TB_FIT_TAU_AT_BOUND;
        if (j > 0 && fit->tau[j].value < FIT_MERGED_RATIO * fit->tau[j - 1].value)
            flags |= TB_FIT_TAU_MERGED;
    }
    for (size_t k = 0; k < fit->nseries; k++) {
        double lo, hi;
        gsl_stats_minmax(&lo, &hi, s[k].y, 1, s[k].n);
        double span = fmax(hi - lo, 0.1);
        for (int j = 0; j < fit->order; j++)
            if (fabs(fit->series[k].k[j].value) > 10 * span)
                flags |= TB_FIT_K_HUGE;
    }
    if (fit->tau[0].value < 3 * fit->median_period)
        flags |= TB_FIT_TAU_SHORT;
    if (fit->points < 5 * fit->params)
        flags |= TB_FIT_FEW_POINTS;
    return flags;
}

/* A term no series needs: its k could be 0 in all of them, so the fit
 * has a term more than the data show (its τ is then anything). */
static unsigned support_flags(const tb_fit *fit)
{
    for (int j = 0; j < fit->order; j++) {
        int shown = 0;
        for (size_t k = 0; k < fit->nseries && !shown; k++) {
            const tb_estimate *e = &fit->series[k].k[j];
            shown = !(e->lo <= 0 && e->hi >= 0);   /* NaN bounds: not judged */
        }
        if (!shown)
            return TB_FIT_K_SPANS_ZERO;
    }
    return 0;
}

/* Blocks the residuals are cut into for the lack-of-fit test. */
#define FIT_BLOCKS 20

/*
 * Whether the model holds, from the residuals of each series: their means
 * over FIT_BLOCKS equal blocks.  Noise, even autocorrelated, leaves block
 * means of blocks much longer than its correlation nearly independent; a
 * model that does not describe the run (a power step, drift) leaves a
 * smooth residual whose consecutive block means are alike.  The von
 * Neumann ratio Σ(b₊₁ − b)² / Σ(b − b̄)² is 2 for independent means; under
 * 0.6 (2 − 3 standard deviations for 20 blocks), with the departing block
 * beyond 1/2 rmse, the series lacks fit.  Also the extrapolation: T∞ less
 * the curve at the last point, against 3 rmse, in a run shorter than 3 of
 * the slowest τ.
 */
static unsigned model_checks(tb_fit *fit, const struct vp *vp)
{
    unsigned flags = 0;
    for (size_t k = 0; k < vp->ns; k++) {
        const struct vp_series *s = &vp->s[k];
        tb_fit_series *fs = &fit->series[k];
        /* Unsettled: the run shorter than 3 of the slowest τ, and the
         * curve still visibly (3 rmse) short of T∞ at its end. */
        double end = s->t[s->m - 1];
        fs->remaining = fs->t_inf.value - tb_fit_eval(fit, k, end);
        if (fabs(fs->remaining) > 3 * fit->rmse && end < 3 * fit->tau[fit->order - 1].value)
            flags |= TB_FIT_EXTRAPOLATED;
        fs->misfit = fs->misfit_from = fs->misfit_to = NAN;
        fs->order_t_inf = NAN;
        if (s->m < 10 * FIT_BLOCKS)
            continue;
        double mean[FIT_BLOCKS], grand = 0, num = 0, den = 0;
        size_t worst = 0;
        for (size_t b = 0; b < FIT_BLOCKS; b++) {
            size_t i0 = b * s->m / FIT_BLOCKS, i1 = (b + 1) * s->m / FIT_BLOCKS;
            double sum = 0;
            for (size_t i = i0; i < i1; i++)
                sum += gsl_vector_get(s->r, i);
            mean[b] = sum / (double)(i1 - i0);
            grand += mean[b] / FIT_BLOCKS;
            if (fabs(mean[b]) > fabs(mean[worst]))
                worst = b;
        }
        for (size_t b = 0; b < FIT_BLOCKS; b++) {
            den += (mean[b] - grand) * (mean[b] - grand);
            if (b + 1 < FIT_BLOCKS)
                num += (mean[b + 1] - mean[b]) * (mean[b + 1] - mean[b]);
        }
        fs->misfit = mean[worst];
        fs->misfit_from = s->t[worst * s->m / FIT_BLOCKS];
        fs->misfit_to = s->t[(worst + 1) * s->m / FIT_BLOCKS - 1];
        double lo, hi;
        gsl_stats_minmax(&lo, &hi, s->y, 1, s->m);
        if (den > 0 && num / den < 0.6 && fabs(mean[worst]) > 0.5 * fit->rmse &&
            fabs(mean[worst]) > 1e-6 * (hi - lo))   /* not rounding error of exact data */
            flags |= TB_FIT_LACK_OF_FIT;
    }
    return flags;
}

/* Fill FIT from the workspace solved at its optimum TAU. */
static int fit_fill(tb_fit *fit, const struct vp *vp, const tb_series *s,
                    const double *tau)
{
    size_t ns = vp->ns;
    if (!(fit->series = calloc(ns, sizeof *fit->series)))
        return -1;
    fit->nseries = ns;
    fit->points = vp->mtot;
    fit->params = ns * vp->q + vp->n;
    fit->dof = fit->points - fit->params;
    fit->rss = vp_rss(vp);
    fit->rmse = sqrt(fit->rss / (double)fit->dof);
    double m = (double)fit->points, p = (double)fit->params;
    fit->aicc = m * log(fit->rss / m) + 2 * p +
                (m - p - 1 > 0 ? 2 * p * (p + 1) / (m - p - 1) : INFINITY);
    for (int j = 0; j < fit->order; j++)
        fit->tau[j] = (tb_estimate){tau[j], NAN, NAN};
    for (size_t k = 0; k < ns; k++) {
        tb_fit_series *fs = &fit->series[k];
        const struct vp_series *vs = &vp->s[k];
        fs->t_inf = (tb_estimate){gsl_vector_get(vs->c, 0), NAN, NAN};
        for (int j = 0; j < fit->order; j++)
            fs->k[j] = (tb_estimate){gsl_vector_get(vs->c, (size_t)j + 1), NAN, NAN};
        fs->n = s[k].n;
        fs->t0 = s[k].t[0];
        fs->duration = s[k].t[s[k].n - 1] - s[k].t[0];
        gsl_blas_ddot(vs->r, vs->r, &fs->rss);
        for (size_t a = 0; a < TB_FIT_MAX_PARAMS * TB_FIT_MAX_PARAMS; a++)
            fs->cov[a] = fs->cov_white[a] = NAN;
    }
    return 0;
}

/* How much lower the next order's AICc must be for it to count: a
 * likelihood ratio of e⁵. */
#define NEXT_ORDER_AICC 10

/* The fit of tb_fit_series_run(); QUICK for a fit that is only compared
 * with another (the next order), never reported: see vp->quick.  A quick
 * fit whose AICc does not reach below BAR has no intervals (NaN): the
 * comparison reads them only of a fit that does. */
static int fit_series(const tb_series *s, size_t ns, const tb_fit_options *opt_in,
                      tb_fit *fit, int quick, double bar, char *err, size_t errlen)
{
    tb_fit_options opt = opt_in ? *opt_in : tb_fit_default_options();
    double tau[TB_FIT_MAX_ORDER];
    int converged;

    fit_gsl_errors_off();
    memset(fit, 0, sizeof *fit);
    if (check_input(s, ns, &opt, err, errlen) < 0)
        return -1;

    double duration = 0;
    for (size_t k = 0; k < ns; k++)
        duration = fmax(duration, s[k].t[s[k].n - 1] - s[k].t[0]);
    fit->order = opt.order;
    fit->median_period = median_period(s, ns);
    fit->tau_min = opt.tau_min > 0 ? opt.tau_min : fmax(fit->median_period, duration * 1e-4);
    fit->tau_max = opt.tau_max > 0 ? opt.tau_max : 10 * duration;
    if (fit->tau_min >= fit->tau_max)
        return fail(err, errlen, "τ range %g to %g s is empty", fit->tau_min, fit->tau_max);

    struct vp *vp = vp_alloc(s, ns, opt.order);
    if (!vp)
        return fail(err, errlen, "out of memory");
    vp->quick = quick;
    if (vp_search(vp, fit->tau_min, fit->tau_max, tau, &converged) < 0) {
        vp_free(vp);
        return fail(err, errlen, "the fit failed: no starting point converged");
    }
    if (fit_fill(fit, vp, s, tau) < 0) {
        vp_free(vp);
        return fail(err, errlen, "out of memory");
    }
    fit->flags = degeneracy_flags(fit, s, vp) | model_checks(fit, vp);
    if (!converged)
        fit->flags |= TB_FIT_NO_CONVERGENCE;
    fit->ci = opt.ci;
    fit->level = opt.level;
    if (quick && !(fit->aicc < bar)) {
        vp_free(vp);
        return 0;
    }
    int ci = opt.ci == TB_CI_BOOTSTRAP ? fit_bootstrap(vp, s, fit, &opt)
                                       : covariance_intervals(vp, s, fit, opt.level, opt.ci);
    if (ci < 0 || fit->dof == 0)
        fit->flags |= TB_FIT_NO_CI;
    else
        fit->flags |= support_flags(fit);
    vp_free(vp);
    return 0;
}

/* FIT's T∞ intervals widened to their profiles' where it has intervals
 * to widen: 0, or -1 when memory runs out. */
static int fit_profile(const tb_series *s, size_t ns, tb_fit *fit, char *err, size_t errlen)
{
    if ((fit->flags & TB_FIT_NO_CI) || fit->ci == TB_CI_BOOTSTRAP)
        return 0;
    if (profile_intervals(s, ns, fit) < 0) {
        tb_fit_clear(fit);
        return fail(err, errlen, "out of memory");
    }
    return 0;
}

int tb_fit_series_run(const tb_series *s, size_t ns, const tb_fit_options *opt,
                      tb_fit *fit, char *err, size_t errlen)
{
    if (fit_series(s, ns, opt, fit, 0, INFINITY, err, errlen) < 0)
        return -1;
    return fit_profile(s, ns, fit, err, errlen);
}

/* The next order counts where it is a fit the data support: clearly
 * better by AICc (NEXT_ORDER_AICC), not a term that only follows the
 * noise, and sound (no k beyond the data, no merged τ). */
static int next_order_counts(const tb_fit *fit, const tb_fit *next)
{
    return next->aicc < fit->aicc - NEXT_ORDER_AICC &&
           !(next->flags & (TB_FIT_K_HUGE | TB_FIT_TAU_MERGED | TB_FIT_NO_CI));
}

/* Compare FIT (order n) with NEXT (order n + 1 of the series S, NS of
 * them): see tb_fit_check_order().  NEXT's T∞ intervals are profiled
 * first where it counts.  0, or -1 when memory runs out. */
static int compare_next_order(const tb_series *s, size_t ns, tb_fit *fit, tb_fit *next)
{
    int sound = next_order_counts(fit, next);
    if (sound && profile_intervals(s, ns, next) < 0)
        return -1;
    /* T∞ beyond what a model the data support as well can tell: beyond
     * this one's too */
    if (sound && (next->flags & TB_FIT_EXTRAPOLATED))
        fit->flags |= TB_FIT_EXTRAPOLATED;
    for (size_t k = 0; k < fit->nseries && k < next->nseries; k++) {
        tb_estimate *e = &fit->series[k].t_inf;
        double other = next->series[k].t_inf.value;
        /* a T∞ of a fit that does not count is no answer: not reported */
        fit->series[k].order_t_inf = sound ? other : NAN;
        if (!sound || !isfinite(other))
            continue;
        /* a model the data support as well: its uncertainty is T∞'s too */
        const tb_estimate *o = &next->series[k].t_inf;
        int outside = !(e->lo <= other && other <= e->hi);
        if (isfinite(o->lo) && isfinite(o->hi)) {
            e->lo = fmin(e->lo, o->lo);
            e->hi = fmax(e->hi, o->hi);
        }
        if (!outside)
            continue;
        fit->flags |= TB_FIT_EXTRAPOLATED;
        e->lo = fmin(e->lo, other);
        e->hi = fmax(e->hi, other);
    }
    return 0;
}

int tb_fit_series_auto(const tb_series *s, size_t ns, const tb_fit_options *opt_in,
                       tb_fit *fit, char *err, size_t errlen)
{
    tb_fit_options opt = opt_in ? *opt_in : tb_fit_default_options();
    tb_fit trial[TB_FIT_MAX_ORDER + 1] = {{0}};
    int best = 0;

    /* The order is chosen from the data alone: every candidate has the
     * HAC intervals (degeneracy reads them), whatever method the caller
     * wants; the chosen order is then refitted with that method. */
    enum tb_ci_method wanted = opt.ci;
    opt.ci = TB_CI_HAC;
    memset(fit, 0, sizeof *fit);
    int fitted = 0;
    for (int order = 1; order <= TB_FIT_AUTO_MAX_ORDER; order++) {
        opt.order = order;
        char e[TB_ERRMAX];
        /* unprofiled: only the chosen order's profile is wanted */
        if (fit_series(s, ns, &opt, &trial[order], 0, INFINITY, e, sizeof e) < 0) {
            if (order == 1)
                return fail(err, errlen, "%s", e);
            break;   /* too few points for higher orders */
        }
        fitted = order;
        int usable = !(trial[order].flags & TB_FIT_DEGENERATE);
        if (!best || (usable && (trial[best].flags & TB_FIT_DEGENERATE)) ||
            (usable && trial[order].aicc < trial[best].aicc))
            best = order;
    }
    int rc = 0;
    if (wanted != TB_CI_HAC) {
        opt.order = best;
        opt.ci = wanted;
        tb_fit_clear(&trial[best]);
        rc = tb_fit_series_run(s, ns, &opt, &trial[best], err, errlen);
    } else {
        rc = fit_profile(s, ns, &trial[best], err, errlen);
    }
    if (rc == 0) {
        /* Below the last order tried the next order was fitted in full
         * already; past it the check fits one of its own. */
        if (best < fitted ? compare_next_order(s, ns, &trial[best], &trial[best + 1])
                          : tb_fit_check_order(s, ns, &opt, &trial[best]))
            rc = fail(err, errlen, "out of memory");
        if (rc == 0) {
            *fit = trial[best];
            trial[best] = (tb_fit){0};
        }
    }
    for (int order = 1; order <= fitted; order++)
        tb_fit_clear(&trial[order]);
    return rc;
}

int tb_fit_check_order(const tb_series *s, size_t ns, const tb_fit_options *opt_in,
                       tb_fit *fit)
{
    tb_fit_options opt = opt_in ? *opt_in : tb_fit_default_options();
    char err[TB_ERRMAX];
    tb_fit next;

    if (fit->order >= TB_FIT_MAX_ORDER)
        return 0;
    opt.order = fit->order + 1;
    opt.ci = TB_CI_HAC;   /* the next order is only compared, never reported */
    opt.tau_min = fit->tau_min;
    opt.tau_max = fit->tau_max;
    if (fit_series(s, ns, &opt, &next, 1, fit->aicc - NEXT_ORDER_AICC, err, sizeof err) < 0)
        return strstr(err, "out of memory") ? -1 : 0;
    int rc = compare_next_order(s, ns, fit, &next);
    tb_fit_clear(&next);
    return rc;
}
