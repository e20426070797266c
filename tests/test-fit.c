/*
 * test-fit.c -- the fit engine against curves whose truth the test makes:
 * exact recovery, recovery within the intervals under noise and 0.1 °C
 * quantisation, coverage of the 95 % intervals over many seeds, shared τ,
 * the bootstrap, the order chosen by AICc, degenerate fits and bad input;
 * and the best-known fits of the bundled real runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tbfit.h"

struct truth {
    double t_inf;
    int order;
    double k[TB_FIT_MAX_ORDER], tau[TB_FIT_MAX_ORDER];
};

static double model(const struct truth *tr, double t)
{
    double y = tr->t_inf;
    for (int j = 0; j < tr->order; j++)
        y += tr->k[j] * exp(-t / tr->tau[j]);
    return y;
}

/* N points every PERIOD s with white noise SIGMA, or AR(1) noise of
 * coefficient PHI, rounded to QUANT (0: not). */
static void make_curve(const struct truth *tr, size_t n, double period, double sigma,
                       double phi, double quant, gsl_rng *rng, double *t, double *y)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        t[i] = (double)i * period;
        e = phi * e + gsl_ran_gaussian(rng, sigma) * sqrt(1 - phi * phi);
        y[i] = model(tr, t[i]) + e;
        if (quant > 0)
            y[i] = round(y[i] / quant) * quant;
    }
}

static int covers(const tb_estimate *e, double truth)
{
    return e->lo <= truth && truth <= e->hi;
}

static char err[TB_ERRMAX];

static void test_exact(void)
{
    static double t[600], y[600];
    struct truth tr = {50, 1, {-10}, {100}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    make_curve(&tr, 600, 1, 0, 0, 0, rng, t, y);
    tb_series s = {t, y, 600};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    opt.order = 1;
    ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0, "one exact term is fitted");
    is_near(f.series[0].t_inf.value, 50, 1e-6, "T∞ exact");
    is_near(f.series[0].k[0].value, -10, 1e-6, "k exact");
    is_near(f.tau[0].value, 100, 1e-5, "τ exact");
    ok(f.rss < 1e-12, "RSS is zero (%g)", f.rss);
    ok(f.flags == 0, "no flags");
    is_near(tb_fit_eval(&f, 0, 100), 50 - 10 / M_E, 1e-6, "tb_fit_eval");
    is_near(tb_fit_settle_time(&f, 0, 0.5), 100 * log(20), 1e-3, "settles after τ·ln(|k|/tol)");
    tb_fit_clear(&f);

    /* Starting far from the truth: τ near the end of the search range. */
    struct truth slow = {60, 2, {-5, -8}, {30, 2500}};
    static double t2[3600], y2[3600];
    make_curve(&slow, 3600, 1, 0, 0, 0, rng, t2, y2);
    tb_series s2 = {t2, y2, 3600};
    opt.order = 2;
    ok(tb_fit_series_run(&s2, 1, &opt, &f, err, sizeof err) == 0, "two exact terms");
    is_near(f.tau[0].value, 30, 1e-4, "τ1 = 30 s");
    is_near(f.tau[1].value, 2500, 1e-2, "τ2 = 2500 s");
    is_near(f.series[0].t_inf.value, 60, 1e-5, "T∞ = 60 °C");
    tb_fit_clear(&f);

    /* The exponentials a fit computes from a product along a regular
     * period: exact as exp() under ±3 ms of jitter, across a gap of an
     * hour, and on times that follow no period at all. */
    static double t3[3600], y3[3600];
    struct truth two = {55, 2, {-12, -10}, {60, 300}};
    const char *sampling[] = {"jittered ±3 ms", "with a gap of an hour", "irregular (t = i²/3600)"};
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < 3600; i++) {
            t3[i] = c == 0 ? (double)i + gsl_ran_flat(rng, -0.003, 0.003)
                  : c == 1 ? (double)i + (i >= 1800 ? 3600 : 0)
                           : (double)i * (double)i / 3600;
            y3[i] = model(&two, t3[i]);
        }
        tb_series s3 = {t3, y3, 3600};
        opt.order = 2;
        ok(tb_fit_series_run(&s3, 1, &opt, &f, err, sizeof err) == 0, "two exact terms, %s", sampling[c]);
        is_near(f.tau[0].value, 60, 1e-5, "τ1 = 60 s, %s", sampling[c]);
        is_near(f.tau[1].value, 300, 1e-4, "τ2 = 300 s, %s", sampling[c]);
        is_near(f.series[0].t_inf.value, 55, 1e-6, "T∞ = 55 °C, %s", sampling[c]);
        ok(f.rss < 1e-12, "RSS is zero (%g), %s", f.rss, sampling[c]);
        tb_fit_clear(&f);
    }
    gsl_rng_free(rng);
}

/* The i.MX8-like testbed: 60 min at 1 s, 0.1 °C steps, sensor noise. */
static void test_three_terms(void)
{
    static double t[3600], y[3600];
    struct truth tr = {55, 3, {-8, -6, -3}, {40, 300, 1100}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    make_curve(&tr, 3600, 1, 0.05, 0, 0.1, rng, t, y);
    tb_series s = {t, y, 3600};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0, "three terms, noisy and quantised");
    ok(covers(&f.series[0].t_inf, 55), "T∞ interval [%.3f, %.3f] covers 55", f.series[0].t_inf.lo,
       f.series[0].t_inf.hi);
    for (int j = 0; j < 3; j++)
        ok(covers(&f.tau[j], tr.tau[j]), "τ%d interval [%.1f, %.1f] covers %g", j + 1,
           f.tau[j].lo, f.tau[j].hi, tr.tau[j]);
    ok(f.flags == 0, "not flagged (%#x)", f.flags);
    is_near(f.rmse, sqrt(0.05 * 0.05 + 0.1 * 0.1 / 12), 0.01, "rmse is the noise's");
    tb_fit_clear(&f);
    gsl_rng_free(rng);
}

/* Over many seeds, the 95 % intervals cover the truth about 95 % of the
 * time: a binomial test with a wide margin (a fair 95 % gives under 86 of
 * 100 with probability 1e-3). */
static void test_coverage(int order, size_t n, int runs)
{
    static double t[3600], y[3600];
    struct truth tr = order == 1 ? (struct truth){50, 1, {-10}, {200}}
                    : order == 2 ? (struct truth){50, 2, {-6, -6}, {50, 400}}
                                 : (struct truth){55, 3, {-8, -6, -3}, {40, 300, 1100}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1234);
    tb_fit_options opt = tb_fit_default_options();
    opt.order = order;
    runs = runs_of(runs, 2);
    int cover_tinf = 0, cover_tau[3] = {0}, fitted = 0;
    for (int r = 0; r < runs; r++) {
        tb_fit f;
        make_curve(&tr, n, 1, 0.1, 0, 0, rng, t, y);
        tb_series s = {t, y, n};
        if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) != 0)
            continue;
        fitted++;
        cover_tinf += covers(&f.series[0].t_inf, tr.t_inf);
        for (int j = 0; j < order; j++)
            cover_tau[j] += covers(&f.tau[j], tr.tau[j]);
        tb_fit_clear(&f);
    }
    ok(fitted == runs, "order %d: all %d noisy curves fitted", order, runs);
    ok_rate(cover_tinf >= runs * 86 / 100 && cover_tinf <= runs, "order %d: T∞ covered %d/%d times",
       order, cover_tinf, runs);
    for (int j = 0; j < order; j++)
        ok_rate(cover_tau[j] >= runs * 86 / 100, "order %d: τ%d covered %d/%d times", order, j + 1,
           cover_tau[j], runs);
    gsl_rng_free(rng);
}

/* The hard case for T∞'s interval: the i.MX8 model's three modes, half
 * an hour of them (under 2 of the slowest τ), AR(1) 0.95 noise in 0.1 °C
 * steps, the order chosen by the data.  Runs whose slow τ came out short
 * once claimed T∞ settled a half degree below the truth (13 of 60
 * missed it unflagged); the profile, the AR(p) prewhitening and the next
 * order's interval must keep such silent misses rare. */
static void test_autocorrelated_short_run(void)
{
    enum { N = 1801 };
    static double t[N], y[N];
    struct truth tr = {60, 3, {-8, -6, -3}, {40, 300, 1100}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 99);
    int runs = runs_of(40, 1), silent = 0, covered = 0;
    for (int r = 0; r < runs; r++) {
        tb_fit f;
        make_curve(&tr, N, 1, 0.1, 0.95, 0.1, rng, t, y);
        tb_series s = {t, y, N};
        if (tb_fit_series_auto(&s, 1, NULL, &f, err, sizeof err) != 0)
            continue;
        int c = covers(&f.series[0].t_inf, tr.t_inf);
        covered += c;
        silent += !c && !f.flags;
        tb_fit_clear(&f);
    }
    ok_rate(silent <= runs / 10, "AR(1) 0.95, 30 min of 3 modes: %d of %d intervals miss T∞ unflagged "
            "(%d cover it)", silent, runs, covered);
    gsl_rng_free(rng);
}

static void test_shared_tau(void)
{
    static double t[2][1800], y[2][1800];
    struct truth a = {50, 2, {-6, -4}, {60, 400}}, b = {45, 2, {-3, -5}, {60, 400}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    make_curve(&a, 1800, 1, 0.05, 0, 0, rng, t[0], y[0]);
    make_curve(&b, 1200, 1.5, 0.05, 0, 0, rng, t[1], y[1]);
    tb_series s[2] = {{t[0], y[0], 1800}, {t[1], y[1], 1200}};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    opt.order = 2;
    ok(tb_fit_series_run(s, 2, &opt, &f, err, sizeof err) == 0, "shared τ over two series");
    ok(f.nseries == 2 && f.points == 3000 && f.params == 8, "3000 points, 8 parameters");
    ok(covers(&f.tau[0], 60) && covers(&f.tau[1], 400), "shared τ intervals cover 60 and 400 s");
    ok(covers(&f.series[0].t_inf, 50) && covers(&f.series[1].t_inf, 45),
       "each series has its own T∞ (%.2f, %.2f)", f.series[0].t_inf.value, f.series[1].t_inf.value);
    ok(covers(&f.series[1].k[1], -5), "and its own k");
    tb_fit_clear(&f);

    /* Sensors sampled together share part of their noise.  At the limit, a
     * sensor fitted beside its own copy: the pair holds no more than the
     * one, so its intervals must be the one's (counted as independent, the
     * pair's τ intervals would be √2 narrower). */
    make_curve(&a, 1800, 1, 0.05, 0.8, 0.1, rng, t[0], y[0]);
    tb_series one = {t[0], y[0], 1800}, pair[2] = {one, one};
    for (int method = 0; method < 2; method++) {
        tb_fit single, twice;
        opt.ci = method ? TB_CI_BOOTSTRAP : TB_CI_HAC;
        opt.bootstrap = 200;
        if (tb_fit_series_run(&one, 1, &opt, &single, err, sizeof err) < 0 ||
            tb_fit_series_run(pair, 2, &opt, &twice, err, sizeof err) < 0) {
            ok(0, "a sensor and its copy: %s", err);
            continue;
        }
        double w1 = log(single.tau[1].hi / single.tau[1].lo), w2 = log(twice.tau[1].hi / twice.tau[1].lo);
        double t1 = single.series[0].t_inf.hi - single.series[0].t_inf.lo;
        double t2 = twice.series[1].t_inf.hi - twice.series[1].t_inf.lo;
        ok(fabs(w2 / w1 - 1) < 0.02 && fabs(t2 / t1 - 1) < 0.02,
           "%s: a sensor beside its copy has the sensor's τ2 and T∞ intervals "
           "(widths %.4f vs %.4f, %.3f vs %.3f °C)", method ? "bootstrap" : "HAC", w2, w1, t2, t1);
        tb_fit_clear(&single);
        tb_fit_clear(&twice);
    }
    gsl_rng_free(rng);
}

/* The covariance intervals, which the engine builds from blocks of
 * Jacobian rows, against GSL's covariance of the whole Jacobian formed
 * here: two series sharing τ, of 1025 and 512 points, so that blocks (of
 * 512 rows) end inside a series, across the two, and with a block of one
 * row. */
static void test_covariance_blocks(void)
{
    enum { NA = 1025, NB = 512, P = 8 };
    static double t[2][NA], y[2][NA];
    struct truth a = {50, 2, {-6, -4}, {60, 400}}, b = {45, 2, {-3, -5}, {60, 400}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    make_curve(&a, NA, 1, 0.05, 0, 0, rng, t[0], y[0]);
    make_curve(&b, NB, 2, 0.05, 0, 0, rng, t[1], y[1]);
    tb_series s[2] = {{t[0], y[0], NA}, {t[1], y[1], NB}};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    opt.order = 2;
    opt.ci = TB_CI_PLAIN;
    if (tb_fit_series_run(s, 2, &opt, &f, err, sizeof err) != 0 || f.params != P) {
        ok(0, "shared τ over 1025 and 513 points: %s", err);
        gsl_rng_free(rng);
        return;
    }
    gsl_matrix *J = gsl_matrix_calloc(NA + NB, P), *C = gsl_matrix_alloc(P, P);
    size_t row = 0;
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < s[k].n; i++, row++) {
            double dt = s[k].t[i] - s[k].t[0];
            gsl_matrix_set(J, row, k * 3, 1);
            for (size_t j = 0; j < 2; j++) {
                double tau = f.tau[j].value, e = exp(-dt / tau);
                gsl_matrix_set(J, row, k * 3 + 1 + j, e);
                gsl_matrix_set(J, row, 6 + j, f.series[k].k[j].value * e * dt / (tau * tau));
            }
        }
    }
    int covar = gsl_multifit_nlinear_covar(J, 0.0, C);
    double s2 = f.rss / (double)f.dof, tq = gsl_cdf_tdist_Pinv(0.975, (double)f.dof), worst = 0;
    for (size_t p = 0; p < P; p++) {
        double half = tq * sqrt(gsl_matrix_get(C, p, p) * s2), got;
        if (p >= 6)   /* τ's interval is symmetric in ln τ */
            got = log(f.tau[p - 6].hi / f.tau[p - 6].value) * f.tau[p - 6].value;
        else if (p % 3 == 0)   /* T∞'s own: profiled, so at least Wald's each side */
            got = fmin(f.series[p / 3].t_inf.hi - f.series[p / 3].t_inf.value,
                       f.series[p / 3].t_inf.value - f.series[p / 3].t_inf.lo);
        else
            got = f.series[p / 3].k[p % 3 - 1].hi - f.series[p / 3].k[p % 3 - 1].value;
        worst = fmax(worst, p % 3 == 0 && p < 6 ? fmax(half - got, 0) / half : fabs(got - half) / half);
    }
    ok(covar == 0 && worst < 1e-9, "intervals from blocks of rows are those of the whole Jacobian, "
       "T∞'s at least as wide (worst %.1e)", worst);
    gsl_matrix_free(J);
    gsl_matrix_free(C);
    tb_fit_clear(&f);
    gsl_rng_free(rng);
}

/* The Yule–Walker AR filter of the M residuals R with the least AIC, of
 * order 0 to 16 (at most M/20), each order solved by GSL's Cholesky:
 * its order, with φ into PHI and the autocovariances into ACV. */
static size_t ar_reference(const double *r, size_t M, double *acv, double *phi)
{
    size_t best = 0;
    for (size_t l = 0; l <= 16; l++) {
        acv[l] = 0;
        for (size_t i = l; i < M; i++)
            acv[l] += r[i] * r[i - l] / (double)M;
    }
    double best_aic = (double)M * log(acv[0]);
    for (size_t p = 1; p <= 16 && p <= M / 20; p++) {
        gsl_matrix *A = gsl_matrix_alloc(p, p);
        gsl_vector *b = gsl_vector_alloc(p), *x = gsl_vector_alloc(p);
        for (size_t i = 0; i < p; i++) {
            gsl_vector_set(b, i, acv[i + 1]);
            for (size_t j = 0; j < p; j++)
                gsl_matrix_set(A, i, j, acv[i > j ? i - j : j - i]);
        }
        gsl_linalg_cholesky_decomp1(A);
        gsl_linalg_cholesky_solve(A, b, x);
        double v = acv[0];
        for (size_t j = 0; j < p; j++)
            v -= gsl_vector_get(x, j) * acv[j + 1];
        double aic = (double)M * log(v) + 2.0 * (double)p;
        if (aic < best_aic) {
            best_aic = aic;
            best = p;
            for (size_t j = 0; j < p; j++)
                phi[j] = gsl_vector_get(x, j);
        }
        gsl_matrix_free(A);
        gsl_vector_free(b);
        gsl_vector_free(x);
    }
    return best;
}

/* The HAC interval against one computed here from scratch: the Jacobian
 * written out, Andrews' lags from the residuals' lag-1 correlation, the
 * Newey-West meat summed lag by lag, the sandwich by GSL. */
static void test_hac_reference(void)
{
    enum { M = 1800, P = 5 };
    static double t[M], y[M], g[M][P];
    struct truth tr = {50, 2, {-6, -6}, {50, 400}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    make_curve(&tr, M, 1, 0.1, 0.9, 0, rng, t, y);
    tb_series s = {t, y, M};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    opt.order = 2;
    if (!ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0 && f.ci == TB_CI_HAC,
            "AR(1) 0.9 noise: fitted with the HAC intervals, the default")) {
        gsl_rng_free(rng);
        return;
    }
    gsl_matrix *J = gsl_matrix_alloc(M, P), *B = gsl_matrix_alloc(P, P);
    gsl_matrix *S = gsl_matrix_calloc(P, P), *T = gsl_matrix_alloc(P, P), *V = gsl_matrix_alloc(P, P);
    double c0 = 0, c1 = 0, r[M];
    for (size_t i = 0; i < M; i++) {
        r[i] = y[i] - tb_fit_eval(&f, 0, t[i]);
        c0 += r[i] * r[i];
        c1 += i ? r[i] * r[i - 1] : 0;
        gsl_matrix_set(J, i, 0, 1);
        for (size_t j = 0; j < 2; j++) {
            double tau = f.tau[j].value, e = exp(-t[i] / tau);
            gsl_matrix_set(J, i, 1 + j, e);
            gsl_matrix_set(J, i, 3 + j, f.series[0].k[j].value * e * t[i] / (tau * tau));
        }
        for (size_t a = 0; a < P; a++)
            g[i][a] = gsl_matrix_get(J, i, a) * r[i];
    }
    double rho = c1 / c0;
    double alpha = 4 * rho * rho / pow((1 - rho) * (1 + rho), 2);
    size_t L = (size_t)floor(1.1447 * cbrt(alpha * M));
    ok(f.ci_lags == L, "Andrews' lags: %zu (ρ = %.3f), the library's %zu", L, rho, f.ci_lags);
    for (size_t l = 0; l <= L; l++) {
        double w = l == 0 ? 1 : 1 - (double)l / (double)(L + 1);
        for (size_t i = l; i < M; i++)
            for (size_t a = 0; a < P; a++)
                for (size_t b = 0; b < P; b++)
                    *gsl_matrix_ptr(S, a, b) += w * (g[i][a] * g[i - l][b] + (l ? g[i - l][a] * g[i][b] : 0));
    }
    gsl_multifit_nlinear_covar(J, 0.0, B);   /* (JᵀJ)⁻¹ */
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, B, S, 0.0, T);
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, T, B, 0.0, V);
    /* and prewhitened (Andrews and Monahan 1992): the scores filtered by
     * the residuals' Yule–Walker AR(p) of least AIC (p up to 16, each
     * solved here by Cholesky rather than the library's Levinson–Durbin),
     * the lags of the whitened residuals, recoloured by 1/(1 − Σφ)² */
    double phi[16] = {0}, acv[17], gain = 1;
    size_t order = ar_reference(r, M, acv, phi);
    double a1 = 1;
    for (size_t j = 0; j < order; j++)
        a1 -= phi[j];
    gain = 1 / (fmax(a1, 0.03) * fmax(a1, 0.03));
    ok(order >= 1, "AR(1) 0.9 noise: the residuals' AR order by AIC is %zu", order);
    gsl_matrix *Sw = gsl_matrix_calloc(P, P), *Vw = gsl_matrix_alloc(P, P);
    static double gw[M][P], uw[M];
    double u0 = 0, u1 = 0;
    for (size_t i = 0; i < M; i++) {
        uw[i] = r[i];
        for (size_t a = 0; a < P; a++)
            gw[i][a] = g[i][a];
        for (size_t j = 0; j < order && j < i; j++) {
            uw[i] -= phi[j] * r[i - 1 - j];
            for (size_t a = 0; a < P; a++)
                gw[i][a] -= phi[j] * g[i - 1 - j][a];
        }
        u0 += uw[i] * uw[i];
        u1 += i ? uw[i] * uw[i - 1] : 0;
    }
    double rw = u1 / u0, aw = 4 * rw * rw / pow((1 - rw) * (1 + rw), 2);
    size_t Lw = (size_t)floor(1.1447 * cbrt(aw * M));
    for (size_t l = 0; l <= Lw; l++) {
        double w = l == 0 ? 1 : 1 - (double)l / (double)(Lw + 1);
        for (size_t i = l; i < M; i++)
            for (size_t a = 0; a < P; a++)
                for (size_t b = 0; b < P; b++)
                    *gsl_matrix_ptr(Sw, a, b) += w * (gw[i][a] * gw[i - l][b] + (l ? gw[i - l][a] * gw[i][b] : 0)) *
                                                 gain;
    }
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, B, Sw, 0.0, T);
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, T, B, 0.0, Vw);
    double tq = gsl_cdf_tdist_Pinv(0.975, (double)f.dof), worst = 0, widen = 0;
    int whitened_wider = 0;
    for (size_t p = 0; p < P; p++) {
        double v = fmax(gsl_matrix_get(V, p, p), gsl_matrix_get(Vw, p, p));
        whitened_wider += gsl_matrix_get(Vw, p, p) > gsl_matrix_get(V, p, p);
        double half = tq * sqrt(v * M / (M - P)), got;
        if (p >= 3)
            got = log(f.tau[p - 3].hi / f.tau[p - 3].value) * f.tau[p - 3].value;
        else if (p == 0)   /* profiled: at least Wald's each side */
            got = fmin(f.series[0].t_inf.hi - f.series[0].t_inf.value,
                       f.series[0].t_inf.value - f.series[0].t_inf.lo);
        else
            got = f.series[0].k[p - 1].hi - f.series[0].k[p - 1].value;
        worst = fmax(worst, p == 0 ? fmax(half - got, 0) / half : fabs(got - half) / half);
        if (p == 0)
            widen = half / (tq * sqrt(gsl_matrix_get(B, 0, 0) * f.rss / (double)f.dof));
    }
    ok(worst < 1e-6, "the HAC half-widths are the reference's, the larger of Newey-West's and "
       "the prewhitened one's (worst %.1e)", worst);
    ok(whitened_wider > 0, "the prewhitened variance is the larger for %d of the %d parameters",
       whitened_wider, P);
    gsl_matrix_free(Sw);
    gsl_matrix_free(Vw);
    ok(widen > 2, "and %.1f× the plain covariance's for T∞ under this noise", widen);
    gsl_matrix_free(J);
    gsl_matrix_free(B);
    gsl_matrix_free(S);
    gsl_matrix_free(T);
    gsl_matrix_free(V);
    tb_fit_clear(&f);

    /* Over seeds: the HAC intervals hold, the plain ones do not. */
    int cover[2] = {0}, tau_cover[2] = {0}, runs = runs_of(60, 2);
    for (int k = 0; k < runs; k++) {
        make_curve(&tr, M, 1, 0.1, 0.9, 0, rng, t, y);
        for (int plain = 0; plain < 2; plain++) {
            opt.ci = plain ? TB_CI_PLAIN : TB_CI_HAC;
            if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0) {
                cover[plain] += covers(&f.series[0].t_inf, 50);
                tau_cover[plain] += covers(&f.tau[1], 400);
                tb_fit_clear(&f);
            }
        }
    }
    ok_rate(cover[0] >= runs * 80 / 100 && tau_cover[0] >= runs * 75 / 100,
       "AR(1) 0.9: HAC covers T∞ %d and τ2 %d of %d times", cover[0], tau_cover[0], runs);
    ok_rate(cover[1] < cover[0] && cover[1] <= runs * 70 / 100,
       "where the plain covariance covers T∞ %d times", cover[1]);
    gsl_rng_free(rng);
}

/* Whether NEXT, the fit of the order after F's, counts against F (as
 * tb_fit_check_order() judges: clearly better by AICc and sound). */
static int next_counts(const tb_fit *f, const tb_fit *next)
{
    return next->aicc < f->aicc - 10 &&
           !(next->flags & (TB_FIT_K_HUGE | TB_FIT_TAU_MERGED | TB_FIT_NO_CI));
}

/* The flags that say when the answer misleads: each fires on its case
 * and stays quiet on clean runs. */
static void test_model_checks(void)
{
    enum { M = 3600 };
    static double t[M], y[M];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    int quiet = 0, covered = 0, runs = runs_of(20, 2);

    /* A power step in the middle of the run, no power column. */
    gsl_rng_set(rng, 3);
    for (size_t i = 0; i < M; i++) {
        t[i] = (double)i;
        double step = t[i] < 1800 ? 0 : 5 * (1 - exp(-(t[i] - 1800) / 200));
        y[i] = round((50 - 10 * exp(-t[i] / 60) - 6 * exp(-t[i] / 400) + step +
                      gsl_ran_gaussian(rng, 0.05)) / 0.1) * 0.1;
    }
    tb_series s = {t, y, M};
    opt.order = 2;
    if (ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0, "a power step: fitted")) {
        ok(f.flags & TB_FIT_LACK_OF_FIT, "and flagged lack_of_fit");
        ok(f.series[0].misfit_from >= 1400 && f.series[0].misfit_to <= 3600,
           "the part that departs most is around the step (%.0f to %.0f s, %+.2f °C)",
           f.series[0].misfit_from, f.series[0].misfit_to, f.series[0].misfit);
        tb_fit_clear(&f);
    }

    /* A mode slower than the run: 15 minutes of τ 40, 300 and 1100 s, fitted
     * with two terms, as --order auto would. */
    struct truth slow = {55, 3, {-8, -6, -3}, {40, 300, 1100}};
    gsl_rng_set(rng, 4);
    make_curve(&slow, 900, 1, 0.05, 0, 0.1, rng, t, y);
    s.n = 900;
    if (ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0, "a mode slower than the run")) {
        int before = covers(&f.series[0].t_inf, 55);
        ok(f.flags & TB_FIT_EXTRAPOLATED, "two terms: T∞ flagged extrapolated (it ends %.2f °C short)",
           f.series[0].remaining);
        ok(!before, "rightly: its interval [%.2f, %.2f] misses 55", f.series[0].t_inf.lo,
           f.series[0].t_inf.hi);
        double lo = f.series[0].t_inf.lo, hi = f.series[0].t_inf.hi;
        tb_fit next;
        opt.order = 3;
        int have = tb_fit_series_run(&s, 1, &opt, &next, err, sizeof err) == 0;
        opt.order = 2;
        int checked = tb_fit_check_order(&s, 1, &opt, &f) == 0;
        int clearer = have && next_counts(&f, &next);
        ok(checked && have && (clearer ? fabs(f.series[0].order_t_inf - next.series[0].t_inf.value) < 1e-9
                                       : isnan(f.series[0].order_t_inf)),
           "the next order's T∞ is recorded where it counts, not otherwise (%.2f, %s)",
           f.series[0].order_t_inf, clearer ? "counts" : "does not count");
        double other = next.series[0].t_inf.value;
        if (clearer && !(lo <= other && other <= hi))
            ok(f.series[0].t_inf.lo <= other && other <= f.series[0].t_inf.hi,
               "three terms clearly better: the interval widened to hold their T∞ [%.2f, %.2f]",
               f.series[0].t_inf.lo, f.series[0].t_inf.hi);
        else
            ok(f.series[0].t_inf.lo == lo && f.series[0].t_inf.hi == hi,
               "three terms not clearly better (AICc %.1f vs %.1f): the interval is kept",
               next.aicc, f.aicc);
        tb_fit_clear(&next);
        tb_fit_clear(&f);
    }
    /* Half an hour: three terms are clearly better, and widen it. */
    gsl_rng_set(rng, 6);
    make_curve(&slow, 1800, 1, 0.05, 0, 0.1, rng, t, y);
    s.n = 1800;
    if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0) {
        double before = f.series[0].t_inf.hi;
        int checked = tb_fit_check_order(&s, 1, &opt, &f) == 0;
        ok(checked && (f.flags & TB_FIT_EXTRAPOLATED) &&
           f.series[0].t_inf.hi > before && covers(&f.series[0].t_inf, 55),
           "30 minutes, two terms: extrapolated, widened from %.2f to %.2f to hold the truth 55",
           before, f.series[0].t_inf.hi);
        ok(covers(&f.series[0].t_inf, f.series[0].order_t_inf),
           "and to hold the three terms' T∞ (%.2f), which is recorded", f.series[0].order_t_inf);
        tb_fit_clear(&f);
    }
    /* The automatic order is compared with the next order by itself, from
     * that order's full fit. */
    if (tb_fit_series_auto(&s, 1, &opt, &f, err, sizeof err) == 0) {
        tb_fit next;
        int order = f.order;
        opt.order = order + 1;
        int have = order < TB_FIT_MAX_ORDER &&
                   tb_fit_series_run(&s, 1, &opt, &next, err, sizeof err) == 0;
        ok(have && (next_counts(&f, &next)
                        ? fabs(f.series[0].order_t_inf - next.series[0].t_inf.value) < 1e-9
                        : isnan(f.series[0].order_t_inf)),
           "auto (order %d) holds order %d's T∞ where it counts (%.2f), as the check would",
           order, order + 1, f.series[0].order_t_inf);
        if (have)
            tb_fit_clear(&next);
        opt.order = 2;
        tb_fit_clear(&f);
    }

    /* Clean hours of the three modes: neither flag, the truth covered. */
    opt.order = 3;
    s.n = M;
    gsl_rng_set(rng, 5);
    for (int r = 0; r < runs; r++) {
        make_curve(&slow, M, 1, 0.05, 0, 0.1, rng, t, y);
        if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0 &&
            tb_fit_check_order(&s, 1, &opt, &f) == 0) {
            quiet += !(f.flags & (TB_FIT_EXTRAPOLATED | TB_FIT_LACK_OF_FIT));
            covered += covers(&f.series[0].t_inf, 55);
            tb_fit_clear(&f);
        }
    }
    ok_rate(quiet >= runs * 85 / 100, "clean hours: %d of %d neither extrapolated nor lacking fit",
       quiet, runs);
    ok_rate(covered >= runs * 85 / 100, "and T∞ covered %d of %d times", covered, runs);

    /* Autocorrelated noise is not lack of fit. */
    struct truth two = {50, 2, {-6, -6}, {50, 400}};
    opt.order = 2;
    quiet = 0;
    for (int r = 0; r < runs; r++) {
        make_curve(&two, M, 1, 0.1, 0.5, 0.1, rng, t, y);
        if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0) {
            quiet += !(f.flags & TB_FIT_LACK_OF_FIT);
            tb_fit_clear(&f);
        }
    }
    ok_rate(quiet >= runs * 90 / 100, "AR(1) 0.5 noise: %d of %d not taken for lack of fit", quiet, runs);
    gsl_rng_free(rng);
}

static void test_bootstrap(void)
{
    static double t[1800], y[1800];
    struct truth tr = {50, 2, {-6, -6}, {50, 400}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 99);
    make_curve(&tr, 1800, 1, 0.1, 0.9, 0, rng, t, y);   /* strongly correlated noise */
    tb_series s = {t, y, 1800};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit cov, boot;
    opt.order = 2;
    opt.ci = TB_CI_PLAIN;
    ok(tb_fit_series_run(&s, 1, &opt, &cov, err, sizeof err) == 0, "covariance intervals");
    opt.ci = TB_CI_BOOTSTRAP;
    opt.bootstrap = 200;
    opt.seed = 5;
    ok(tb_fit_series_run(&s, 1, &opt, &boot, err, sizeof err) == 0, "bootstrap intervals");
    double wc = cov.series[0].t_inf.hi - cov.series[0].t_inf.lo;
    double wb = boot.series[0].t_inf.hi - boot.series[0].t_inf.lo;
    ok(wb > 1.5 * wc, "with correlated residuals the bootstrap interval is wider (%.3f vs %.3f)", wb, wc);
    ok(covers(&boot.series[0].t_inf, 50), "and covers T∞ = 50");
    ok(boot.tau[0].lo < boot.tau[0].value && boot.tau[0].value < boot.tau[0].hi,
       "τ1 inside its bootstrap interval");
    ok(boot.series[0].t_inf.value == cov.series[0].t_inf.value, "the estimate is the same");
    tb_fit again;
    tb_fit_series_run(&s, 1, &opt, &again, err, sizeof err);
    ok(again.series[0].t_inf.lo == boot.series[0].t_inf.lo, "a seed makes it reproducible");
    tb_fit_clear(&again);
    tb_fit_clear(&cov);
    tb_fit_clear(&boot);
    gsl_rng_free(rng);
}

static void test_auto_and_degenerate(void)
{
    static double t[900], y[900];
    struct truth one = {50, 1, {-10}, {150}}, two = {50, 2, {-6, -6}, {40, 300}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    tb_series s = {t, y, 900};

    make_curve(&two, 900, 1, 0.05, 0, 0, rng, t, y);
    /* fitted before the ok(): its arguments are evaluated in any order */
    int fitted = tb_fit_series_auto(&s, 1, &opt, &f, err, sizeof err);
    ok(fitted == 0 && f.order == 2, "auto picks order 2 for two terms (got %d)", f.order);
    tb_fit_clear(&f);

    make_curve(&one, 900, 1, 0.05, 0, 0, rng, t, y);
    fitted = tb_fit_series_auto(&s, 1, &opt, &f, err, sizeof err);
    ok(fitted == 0 && f.order == 1, "auto picks order 1 for one term (got %d)", f.order);
    tb_fit_clear(&f);

    opt.order = 3;
    ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0, "three terms on one");
    ok(f.flags & TB_FIT_DEGENERATE, "are flagged degenerate (%#x)", f.flags);
    tb_fit_clear(&f);

    /* a τ under 3 sampling periods */
    struct truth fast = {50, 2, {-3, -8}, {1.2, 200}};
    make_curve(&fast, 900, 1, 0.01, 0, 0, rng, t, y);
    opt.order = 2;
    fitted = tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err);
    ok(fitted == 0 && (f.flags & TB_FIT_TAU_SHORT), "a τ of 1.2 samples is flagged tau_short (%#x)", f.flags);
    tb_fit_clear(&f);

    s.n = 20;
    opt.order = 3;
    ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0 && (f.flags & TB_FIT_FEW_POINTS),
       "20 points for 7 parameters are flagged few_points");
    tb_fit_clear(&f);
    gsl_rng_free(rng);

    /* Three terms on an hour of two well-apart ones: the spare term comes
     * back flagged (merged, at a bound, k huge, or a k whose interval holds
     * 0 where no other flag tells) -- or, where the global search finds a
     * lower optimum with a small fast term fitting the first samples'
     * noise, negligible beside the real ones, which are then recovered. */
    static double t3[3600], y3[3600];
    struct truth apart = {60, 2, {-20, -15}, {60, 900}};
    tb_series s3 = {t3, y3, 3600};
    int accounted = 0, spans = 0, picked2 = 0, runs = runs_of(10, 2);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (int seed = 1; seed <= runs; seed++) {
        gsl_rng_set(rng, (unsigned long)seed);
        make_curve(&apart, 3600, 1, 0.05, 0, 0.1, rng, t3, y3);
        opt.order = 3;
        if (tb_fit_series_run(&s3, 1, &opt, &f, err, sizeof err) == 0) {
            int flagged = (f.flags & TB_FIT_DEGENERATE) != 0;
            int spare_small = fabs(f.series[0].k[0].value) < 0.2 && covers(&f.tau[1], 60) &&
                              covers(&f.tau[2], 900) && covers(&f.series[0].t_inf, 60);
            accounted += flagged || spare_small;
            spans += (f.flags & TB_FIT_K_SPANS_ZERO) != 0 || spare_small ||
                     (f.flags & (TB_FIT_DEGENERATE & ~TB_FIT_K_SPANS_ZERO)) != 0;
        }
        tb_fit_clear(&f);
        if (tb_fit_series_auto(&s3, 1, &opt, &f, err, sizeof err) == 0)
            picked2 += f.order == 2;
        tb_fit_clear(&f);
    }
    ok(accounted == runs, "three terms on two: %d of %d fits flagged or with a negligible "
       "spare term and the truth recovered", accounted, runs);
    ok(spans == runs, "k_spans_zero where no other flag tells (%d of %d)", spans, runs);
    ok(picked2 == runs, "--order auto picks two terms (%d of %d)", picked2, runs);
    gsl_rng_free(rng);
}

static void fit_fails(const double *t, const double *y, size_t n, int order,
                      double tau_min, double tau_max, const char *want, const char *what)
{
    tb_series s = {t, y, n};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    opt.order = order;
    opt.tau_min = tau_min;
    opt.tau_max = tau_max;
    err[0] = '\0';
    ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == -1, "%s: refused", what);
    is_string(err, want, "%s: message", what);
}

static void test_bad_input(void)
{
    double t[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    double y[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    double c[10] = {70, 70, 70, 70, 70, 70, 70, 70, 70, 70};
    double back[10] = {0, 1, 2, 3, 2, 5, 6, 7, 8, 9};
    double same[10] = {0};
    double bad[10] = {1, 2, NAN, 4, 5, 6, 7, 8, 9, 10};
    fit_fails(t, y, 4, 3, 0, 0, "4 points are too few for order 3: at least 8 are needed", "too few points");
    fit_fails(t, c, 10, 1, 0, 0, "the data are constant (70): there is nothing to fit", "constant data");
    fit_fails(t, y, 10, 0, 0, 0, "order 0: it must be 1 to 4", "order 0");
    fit_fails(t, y, 10, 9, 0, 0, "order 9: it must be 1 to 4", "order 9");
    fit_fails(back, y, 10, 1, 0, 0, "time goes backwards at point 5", "time backwards");
    fit_fails(same, y, 10, 1, 0, 0, "all points have the same time", "one time");
    fit_fails(t, bad, 10, 1, 0, 0, "point 3 is not a finite number", "NaN");
    fit_fails(t, y, 10, 1, 50, 10, "τ range 50 to 10 s is empty", "empty τ range");
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    tb_series s = {t, y, 10};
    opt.level = 1.5;
    ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == -1, "a level of 1.5 is refused");
    is_string(err, "confidence level 1.5: it must be between 0 and 1", "level message");
}

static void test_helpers(void)
{
    double x;
    ok(tb_parse_duration("90", &x) == 0 && x == 90, "90 is 90 s");
    ok(tb_parse_duration("90s", &x) == 0 && x == 90, "90s");
    ok(tb_parse_duration("5min", &x) == 0 && x == 300, "5min is 300 s");
    ok(tb_parse_duration("1.5h", &x) == 0 && x == 5400, "1.5h is 5400 s");
    ok(tb_parse_duration("500ms", &x) == 0 && x == 0.5, "500ms");
    ok(tb_parse_duration("2m", &x) == 0 && x == 120, "2m is 2 minutes");
    ok(tb_parse_duration("5 min", &x) == -1, "no space before the unit");
    ok(tb_parse_duration("-5", &x) == -1, "no negative time");
    ok(tb_parse_duration("5d", &x) == -1, "no days");
    ok(tb_parse_duration("", &x) == -1, "nothing");
    ok(tb_parse_duration("1h30m", &x) == 0 && x == 5400, "1h30m is 5400 s: terms add up");
    ok(tb_parse_duration("2m30s", &x) == 0 && x == 150, "2m30s");
    ok(tb_parse_duration("15m5", &x) == -1, "a term without its unit after another");
    ok(tb_parse_duration("1e3ms", &x) == 0 && x == 1, "1e3ms");

    double ct[] = {0, 10, 20, 30, 40}, cv[] = {40, 42, 44, 46, 48};
    double at[] = {5, 25}, av[] = {20, 22};
    tb_column c = {.name = "cpu", .t = ct, .v = cv, .n = 5};
    tb_column amb = {.name = "ambient", .t = at, .v = av, .n = 2};
    double *t, *y;
    size_t n;
    ok(tb_series_extract(&c, 10, 30, &amb, &t, &y, &n, err, sizeof err) == 0 && n == 3,
       "window 10..30 s holds 3 points");
    ok(t[0] == 10 && y[0] == 42 - 20.5 && y[1] == 44 - 21.5 && y[2] == 46 - 22,
       "ambient interpolated, and held past its last point");
    free(t);
    free(y);
    ok(tb_series_extract(&c, 100, 200, NULL, &t, &y, &n, err, sizeof err) == -1,
       "an empty window is refused");
    is_string(err, "column cpu: no points in the window 100 to 200 s", "and says so");

    double wt[] = {0, 10, 20, 30}, wv[] = {0, 25, 50, 75};
    tb_column w = {.name = "work_done", .t = wt, .v = wv, .n = 4};
    is_near(tb_work_rate(&w, 0, INFINITY), 2.5, 1e-12, "work rate 2.5 operations/s");
    ok(isnan(tb_work_rate(&w, 11, 19)), "no rate from under two points");
}

/* A counter of N samples a second apart whose increments are RATE plus
 * AR(1) noise (PHI, innovations of SD), from RNG, into T and V. */
static void counter_run(size_t n, double rate, double sd, double phi, gsl_rng *rng, double *t,
                        double *v)
{
    double e = 0;
    t[0] = v[0] = 0;
    for (size_t i = 1; i < n; i++) {
        e = phi * e + gsl_ran_gaussian(rng, sd);
        t[i] = (double)i;
        v[i] = v[i - 1] + rate + e;
    }
}

/* The work rate's interval against the known rate, over many runs: 95 %
 * cover it, with increments independent and correlated (AR(1) 0.9, as
 * a benchmark's bursts are), and for two counters summed. */
static void test_work_rate_interval(void)
{
    enum { RUNS = 400, N = 900 };
    static double t[N], v[N], t2[N], v2[N];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 42);
    const double phis[] = {0, 0.9};
    for (int p = 0; p < 3; p++) {
        double phi = phis[p % 2];
        int covered = 0, finite = 0;
        for (int r = 0; r < RUNS; r++) {
            counter_run(N, 100, 10, phi, rng, t, v);
            counter_run(N, 50, 5, phi, rng, t2, v2);
            tb_column w = {.name = "a_work_done", .t = t, .v = v, .n = N};
            tb_column w2 = {.name = "b_work_done", .t = t2, .v = v2, .n = N};
            const tb_column *both[] = {&w, &w2};
            tb_estimate e;
            int rc = tb_work_rate_estimate(both, p == 2 ? 2 : 1, 0, INFINITY, 0.95, &e);
            double truth = p == 2 ? 150 : 100;
            finite += rc == 0 && isfinite(e.lo) && isfinite(e.hi);
            covered += e.lo <= truth && truth <= e.hi;
        }
        double cover = (double)covered / RUNS;
        ok(finite == RUNS && cover >= 0.92 && cover <= 0.98,
           "work rate interval: %s%s increments, %d %% of %d cover the truth", p == 2 ? "two counters, " : "",
           phi > 0 ? "AR(1) 0.9" : "independent", (int)lround(100 * cover), RUNS);
    }
    gsl_rng_free(rng);
    double ft[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    double fv[21];
    for (int i = 0; i < 21; i++)
        fv[i] = 2.5 * ft[i];
    tb_column steady = {.name = "work_done", .t = ft, .v = fv, .n = 21};
    const tb_column *one = &steady;
    tb_estimate e;
    ok(tb_work_rate_estimate(&one, 1, 0, INFINITY, 0.95, &e) == 0 && fabs(e.value - 2.5) < 1e-12 &&
       e.hi - e.lo < 1e-9, "a steady counter: 2.5 operations/s, an interval of no width");
    ok(tb_work_rate_estimate(&one, 1, 3, 7, 0.95, &e) == 0 && isnan(e.lo),
       "five points: the rate, and no interval (under three stretches of two points)");
    ok(tb_work_rate_estimate(&one, 1, 11.5, 11.7, 0.95, &e) == -1 && isnan(e.value),
       "no point in the window: -1, NaN");
}

static void test_throttle_and_run_length(void)
{
    char text[8192];
    size_t used = 0;
    used += (size_t)snprintf(text + used, sizeof text - used, "time/s,cpu/°C,freq/kHz\n");
    for (int i = 0; i < 100; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%d,%g,%d\n", i,
                                 50 - 10 * exp(-i / 20.0), i < 60 ? 1200000 : 800000);
    FILE *f = fmemopen(text, used, "r");
    tb_run *run = tb_run_read_stream(f, "throttle.csv", NULL, err, sizeof err);
    fclose(f);
    double since;
    const char *by = NULL;
    ok(run && tb_throttle_check(run, 0, INFINITY, &since, &by) == 1, "a frequency drop is found");
    ok(since == 60 && by && strcmp(by, "freq") == 0, "from 60 s, in freq");
    ok(tb_throttle_check(run, 0, 59, &since, &by) == 0, "not before it happens");
    tb_run_free(run);

    static double t[1800], y[1800];
    struct truth tr = {50, 2, {-6, -6}, {50, 300}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    make_curve(&tr, 1800, 1, 0.05, 0, 0.1, rng, t, y);
    tb_series s = {t, y, 1800};
    tb_fit_options opt = tb_fit_default_options();
    tb_run_length rl;
    opt.order = 2;
    ok(tb_run_length_estimate(&s, &opt, 120, 0.5, &rl, err, sizeof err) == 0, "run length");
    ok(rl.nprefix == 15 && rl.prefix[14].length == 1799, "prefixes of 120 s up to the whole run");
    ok(rl.shortest >= 240 && rl.shortest <= 1200, "T∞ stays within 0.5 °C from %.0f s", rl.shortest);
    ok(rl.prefix[14].within, "the whole run is within");
    is_near(rl.settle, 300 * log(6 / 0.5), 10, "settles when 6·exp(−t/300) falls to 0.5 (%.0f s)", rl.settle);
    tb_run_length_clear(&rl);
    gsl_rng_free(rng);
}

/* The best-known fits of the bundled real i.MX8 runs. */
static void test_real_runs(void)
{
    static const struct {
        const char *file;
        int order;
        double rss, tau1, tau2, tol;
    } known[] = {
        {"imx8-membench-t1-15min.csv", 1, 86.215824, 0, 0, 1e-6},
        {"imx8-membench-t1-15min.csv", 2, 17.859049, 54.38, 265.14, 1e-6},
        {"imx8-membench-t2-15min.csv", 2, 17.830961, 61.39, 301.07, 1e-6},
        {"imx8-membench-t1-15min.csv", 3, 17.3687, 0, 0, 5e-3},
        {"imx8-membench-t2-15min.csv", 3, 17.7222, 0, 0, 5e-3},
    };
    /* Optima the search reached only from its lowest basins (issue 14):
     * CPU_1_temp at order 3, an ordinary optimum inside the default range
     * (τ 4.14 s on t1, 9.41 s on t2), where the old search, refining the
     * three lowest grid cells (neighbours), stopped 0.22 % and 0.32 %
     * higher; and t2's τ 0.099 s optimum from a range that starts at 1 ms. */
    static const struct {
        const char *file, *column;
        double tau_min, rss, tau1;
    } basins[] = {
        {"imx8-membench-t1-15min.csv", "CPU_1_temp", 0, 17.574598, 4.137},
        {"imx8-membench-t2-15min.csv", "CPU_1_temp", 0, 18.186840, 9.408},
        {"imx8-membench-t2-15min.csv", "CPU_0_temp", 0.001, 17.722161, 0.0986},
    };
    const char *srcdir = getenv("top_srcdir") ? getenv("top_srcdir") : ".";
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/datasets/%s", srcdir, known[i].file);
        tb_run *run = tb_run_read(path, NULL, err, sizeof err);
        size_t idx;
        if (!ok(run && tb_run_select(run, "CPU_0_temp", &idx, 1, err, sizeof err) == 1,
                "%s is read", known[i].file))
            continue;
        const tb_column *c = tb_run_column(run, idx);
        tb_series s = {c->t, c->v, c->n};
        tb_fit_options opt = tb_fit_default_options();
        tb_fit f;
        opt.order = known[i].order;
        ok(tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0, "%s order %d fitted",
           known[i].file, known[i].order);
        ok(fabs(f.rss - known[i].rss) <= known[i].tol * known[i].rss,
           "%s order %d: RSS %.6f within %g of the best known %.6f", known[i].file,
           known[i].order, f.rss, known[i].tol, known[i].rss);
        if (known[i].tau1 > 0)
            ok(fabs(f.tau[0].value - known[i].tau1) < 0.01 && fabs(f.tau[1].value - known[i].tau2) < 0.01,
               "τ %.2f and %.2f s", f.tau[0].value, f.tau[1].value);
        if (known[i].order == 3 && fabs(f.tau[1].value / f.tau[0].value) < 1.5)
            ok(f.flags & TB_FIT_DEGENERATE, "the merged order-3 optimum is flagged");
        tb_fit_clear(&f);
        tb_run_free(run);
    }
    for (size_t i = 0; i < sizeof basins / sizeof basins[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/datasets/%s", srcdir, basins[i].file);
        tb_run *run = tb_run_read(path, NULL, err, sizeof err);
        size_t idx;
        if (!ok(run && tb_run_select(run, basins[i].column, &idx, 1, err, sizeof err) == 1,
                "%s is read", basins[i].file))
            continue;
        const tb_column *c = tb_run_column(run, idx);
        tb_series s = {c->t, c->v, c->n};
        tb_fit_options opt = tb_fit_default_options();
        tb_fit f;
        opt.tau_min = basins[i].tau_min;
        if (tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err) == 0) {
            ok(fabs(f.rss - basins[i].rss) < 1e-5 && fabs(f.tau[0].value / basins[i].tau1 - 1) < 0.01,
               "%s %s order 3: the optimum at τ1 %.3g s, RSS %.6f (found τ1 %.4g, RSS %.6f)",
               basins[i].file, basins[i].column, basins[i].tau1, basins[i].rss, f.tau[0].value, f.rss);
            tb_fit_clear(&f);
        } else {
            ok(0, "%s %s: %s", basins[i].file, basins[i].column, err);
        }
        tb_run_free(run);
    }
}

static void test_group_stats(void)
{
    double a[] = {1, 2, 3, 4, 5}, b[] = {3, 4, 5, 6, 7};
    tb_welch_result w;
    ok(tb_welch_test(a, 5, b, 5, 0.95, &w) == 0, "Welch's test");
    is_near(w.diff, 2, 1e-12, "difference of the means");
    is_near(w.dof, 8, 1e-12, "Welch-Satterthwaite degrees of freedom");
    is_near(w.p, 0.08051623795726, 1e-9, "two-sided p as R's t.test gives it");
    is_near(w.lo, 2 - 2.306004135204166, 1e-9, "the interval's lower end");
    ok(tb_welch_test(a, 1, b, 5, 0.95, &w) == -1, "a group of one cannot be tested");
    double c[] = {2, 2, 2}, d[] = {3, 3, 3};
    ok(tb_welch_test(c, 3, d, 3, 0.95, &w) == 0 && w.p == 0 && w.diff == 1,
       "no spread: a difference is certain");

    double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    tb_holm_adjust(p, 4, adj);
    ok(fabs(adj[0] - 0.03) < 1e-12 && fabs(adj[1] - 0.06) < 1e-12 &&
       fabs(adj[2] - 0.06) < 1e-12 && fabs(adj[3] - 0.02) < 1e-12,
       "Holm's adjustment (%.3g %.3g %.3g %.3g)", adj[0], adj[1], adj[2], adj[3]);

    ok(tb_natural_compare("5.4", "5.10") < 0 && tb_natural_compare("5.10", "6.1") < 0,
       "versions in natural order: 5.4 < 5.10 < 6.1");
    ok(tb_natural_compare("v2", "v10") < 0 && tb_natural_compare("6.1", "6.1") == 0 &&
       tb_natural_compare("6.1-rc2", "6.1") > 0, "v2 < v10, equal, a suffix after");
}

/* Every number of FIT is finite, or a flag says why not. */
static int finite_or_flagged(const tb_fit *f)
{
    int finite = isfinite(f->rss) && isfinite(f->series[0].t_inf.value);
    for (int j = 0; j < f->order; j++)
        finite = finite && isfinite(f->tau[j].value) && isfinite(f->series[0].k[j].value) &&
                 isfinite(f->tau[j].lo) && isfinite(f->tau[j].hi);
    finite = finite && isfinite(f->series[0].t_inf.lo) && isfinite(f->series[0].t_inf.hi);
    return finite || f->flags != 0;
}

static void robust_case(const char *what, double *t, double *y, size_t n, int order)
{
    tb_series s = {t, y, n};
    tb_fit_options opt = tb_fit_default_options();
    tb_fit f;
    opt.order = order;
    int rc = tb_fit_series_run(&s, 1, &opt, &f, err, sizeof err);
    ok(rc == 0 && finite_or_flagged(&f), "%s: fitted, numbers finite or flagged (%#x)", what,
       rc == 0 ? f.flags : 0u);
    if (rc == 0)
        tb_fit_clear(&f);
}

static void test_numeric_robustness(void)
{
    size_t n = 1200;
    double *t = malloc(1000000 * sizeof *t), *y = malloc(1000000 * sizeof *y);
    struct truth tr = {50, 2, {-6, -6}, {50, 400}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

    make_curve(&tr, n, 1, 0.05, 0, 0, rng, t, y);
    for (size_t i = 0; i < n; i++)
        y[i] = y[i] * 1e5 + 1e9;   /* huge: around 10⁹ */
    robust_case("values around 1e9", t, y, n, 2);
    make_curve(&tr, n, 1, 0.05, 0, 0, rng, t, y);
    for (size_t i = 0; i < n; i++)
        y[i] *= 1e-9;              /* tiny */
    robust_case("values around 5e-8", t, y, n, 2);
    make_curve(&tr, n, 1, 0.05, 0, 0, rng, t, y);
    for (size_t i = 0; i < n; i++)
        t[i] *= 1e-6;              /* a run of microseconds */
    robust_case("a run of 1.2 ms", t, y, n, 2);
    make_curve(&tr, n, 1, 0.05, 0, 0, rng, t, y);
    y[600] += 50;                  /* one spike */
    robust_case("a single spike of 50 °C", t, y, n, 2);
    make_curve(&tr, n, 1, 0.05, 0, 0, rng, t, y);
    t[5] = t[4];                   /* two identical time stamps */
    robust_case("two identical time stamps", t, y, n, 2);
    make_curve(&tr, n, 1, 0, 0, 0, rng, t, y);
    for (size_t i = 0; i < n; i++)
        y[i] = 50 + (i % 2) * 1e-12;   /* all but constant */
    robust_case("a series that only flickers by 1e-12", t, y, n, 3);
    size_t big = tap_quick() ? 200000 : 1000000;   /* the same code, a fifth of valgrind's time */
    make_curve(&tr, big, 0.01, 0.05, 0, 0.1, rng, t, y);
    robust_case(tap_quick() ? "200,000 points" : "a million points", t, y, big, 2);
    free(t);
    free(y);
    gsl_rng_free(rng);
}

static void test_networks(void)
{
    double r[] = {2, 3}, c[] = {20, 100};
    tb_modes m;
    ok(tb_modes_from_foster(r, c, 2, &m) == 0 && m.n == 2, "a Foster network");
    ok(m.tau[0] == 40 && m.tau[1] == 300 && m.gain[0] == 2 && m.gain[1] == 3,
       "τ = RC and gain R for each stage");
    double r1[] = {2}, c1[] = {20};
    ok(tb_modes_from_cauer(r1, c1, 1, &m) == 0 && fabs(m.tau[0] - 40) < 1e-12 &&
       fabs(m.gain[0] - 2) < 1e-12, "a one-stage Cauer ladder is its Foster stage");
    ok(tb_modes_from_cauer(r, c, 2, &m) == 0, "a two-stage Cauer ladder");
    is_near(m.gain[0] + m.gain[1], 5, 1e-12, "its gains add up to R1 + R2");
    /* the step response of the ladder's ODE, integrated finely, against
     * the modes' closed form */
    double T1 = 0, T2 = 0, dt = 0.001, P = 1;
    for (int i = 0; i < 100000; i++) {   /* 100 s */
        double q12 = (T1 - T2) / r[0], q2a = T2 / r[1];
        T1 += dt * (P - q12) / c[0];
        T2 += dt * (q12 - q2a) / c[1];
    }
    double closed = 0;
    for (size_t i = 0; i < m.n; i++)
        closed += P * m.gain[i] * (1 - exp(-100 / m.tau[i]));
    is_near(closed, T1, 1e-3, "the modes give the ladder's step response (%.5f vs %.5f K)", closed, T1);
    double st[2] = {0, 0};
    for (int i = 0; i < 100; i++)
        tb_modes_step(&m, st, P, 1);
    is_near(st[0] + st[1], closed, 1e-12, "tb_modes_step is exact for a held power");
    double bad[] = {-1};
    ok(tb_modes_from_foster(bad, c1, 1, &m) == -1, "a negative R is refused");
}

/* A fit of one series with T∞ V [LO, HI] at LEVEL and FLAGS, for the
 * stopping rule's tests. */
static void stop_fit(tb_fit *fit, tb_fit_series *ser, double v, double lo, double hi,
                     double level, unsigned flags)
{
    memset(ser, 0, sizeof *ser);
    ser->t_inf = (tb_estimate){v, lo, hi};
    *fit = (tb_fit){.order = 1, .nseries = 1, .series = ser, .level = level, .flags = flags,
                    .tau = {{300, 250, 350}}, .rmse = 0.1};
}

/* Look 10 (894 s) with T∞ V [LO, HI] and FLAGS, then look 11 (1118 s)
 * unflagged with 60 [59.8, 60.2]: the rule's verdict there. */
static enum tb_stop_verdict stop_pair(const tb_stop_rule *r, double v, double lo, double hi,
                                      unsigned flags)
{
    tb_fit fit;
    tb_fit_series ser;
    tb_stop_state st;
    tb_stop_state_init(&st);
    stop_fit(&fit, &ser, v, lo, hi, tb_stop_rule_level(r), flags);
    tb_stop_rule_look(r, 9, 894, &fit, 0, &st);
    stop_fit(&fit, &ser, 60, 59.8, 60.2, tb_stop_rule_level(r), 0);
    enum tb_stop_verdict v11 = tb_stop_rule_look(r, 10, 1118, &fit, 0, &st);
    return v11 == TB_STOP_KNOWN && st.known_look != 11 ? TB_STOP_GO_ON : v11;
}

static void test_stop_rule(void)
{
    tb_stop_rule r = {0};
    int rc = tb_stop_rule_init(&r, 0.5, 3600, 0.95);
    ok(rc == 0 && r.looks == 17,
       "an hour: 17 looks (%zu)", r.looks);
    ok(fabs(tb_stop_rule_level(&r) - (1 - 0.05 / 17)) < 1e-15,
       "each at 1 - 0.05/17 (%.6f)", tb_stop_rule_level(&r));
    tb_stop_rule one;
    ok(tb_stop_rule_init(&one, 0.5, 120, 0.95) == 0 && one.looks == 1 &&
       fabs(tb_stop_rule_level(&one) - 0.95) < 1e-15, "one look (--max 2min): all of it");
    ok(tb_stop_rule_time(&r, 0) == 120 && fabs(tb_stop_rule_time(&r, 1) - 150) < 1e-9 &&
       tb_stop_rule_time(&r, 16) == 3600 && isinf(tb_stop_rule_time(&r, 17)),
       "at 2 min, a quarter more each, the last at --max: %g %g ... %g",
       tb_stop_rule_time(&r, 0), tb_stop_rule_time(&r, 1), tb_stop_rule_time(&r, 16));
    for (size_t k = 1; k + 1 < r.looks; k++)
        if (!(tb_stop_rule_time(&r, k) > tb_stop_rule_time(&r, k - 1)))
            ok(0, "look %zu before the one before it", k);
    ok(tb_stop_rule_init(&r, 0, 3600, 0.95) < 0 && tb_stop_rule_init(&r, 0.5, 60, 0.95) < 0 &&
       tb_stop_rule_init(&r, 0.5, 3600, 1) < 0, "a tolerance of 0, --max under 2 min, level 1: refused");

    tb_stop_rule_init(&r, 0.5, 3600, 0.95);
    tb_fit fit;
    tb_fit_series ser;
    double lv = tb_stop_rule_level(&r);   /* every look's */
    stop_fit(&fit, &ser, 60, 59.7, 60.3, lv, 0);
    ok(tb_stop_rule_judge(&r, 3, &fit, 0) == TB_STOP_KNOWN, "one look: ±0.3 of ±0.5, unflagged: known");
    stop_fit(&fit, &ser, 60, 59.7, 60.3, lv, TB_FIT_EXTRAPOLATED);
    ok(tb_stop_rule_judge(&r, 3, &fit, 0) == TB_STOP_GO_ON, "flagged extrapolated: not known");
    stop_fit(&fit, &ser, 60, 59.4, 60.3, lv, 0);
    ok(tb_stop_rule_judge(&r, 3, &fit, 0) == TB_STOP_GO_ON, "the larger half 0.6 > 0.5: not known");
    stop_fit(&fit, &ser, 60, 59.7, 60.3, 0.95, 0);
    ok(tb_stop_rule_judge(&r, 3, &fit, 0) == TB_STOP_GO_ON, "an interval at another level: not known");
    ok(tb_stop_rule_judge(&r, 16, NULL, 0) == TB_STOP_NOT_KNOWN, "no fit at the last look: not known");

    /* two looks in a row, each T∞ within the other's interval, the later
     * known */
    tb_stop_state st;
    tb_stop_state_init(&st);
    stop_fit(&fit, &ser, 59.3, 59.1, 59.5, lv, 0);
    ok(tb_stop_rule_look(&r, 11, 1397, &fit, 0, &st) == TB_STOP_GO_ON, "a first narrow look does not stop");
    stop_fit(&fit, &ser, 59.66, 59.44, 59.87, lv, 0);
    ok(tb_stop_rule_look(&r, 12, 1747, &fit, 0, &st) == TB_STOP_GO_ON && isnan(st.known_at),
       "nor a second that moved by more than either claims (59.30 to 59.66)");
    stop_fit(&fit, &ser, 59.70, 59.50, 59.90, lv, 0);
    ok(tb_stop_rule_look(&r, 13, 2184, &fit, 0, &st) == TB_STOP_KNOWN && st.known_at == 2184 &&
       st.known_look == 14, "a third that agrees with it: known at 2184 s, look 14");
    stop_fit(&fit, &ser, 59.70, 50, 70, lv, TB_FIT_LACK_OF_FIT);
    ok(tb_stop_rule_look(&r, 14, 2730, &fit, 0, &st) == TB_STOP_KNOWN, "and known from then on");
    /* the look before is unflagged too: an extrapolated one that clears
     * its flag a look later may be a mode hidden in correlated noise */
    ok(stop_pair(&r, 59.9, 59.6, 60.3, 0) == TB_STOP_KNOWN,
       "a look before within ±0.5, unflagged and agreeing: known at look 11");
    ok(stop_pair(&r, 59.9, 59.6, 60.3, TB_FIT_EXTRAPOLATED) == TB_STOP_GO_ON,
       "one flagged extrapolated, within ±0.5 and agreeing: not yet");
    ok(stop_pair(&r, 59.9, 59.6, 60.3, TB_FIT_LACK_OF_FIT) == TB_STOP_GO_ON,
       "one flagged lack_of_fit: not yet");
    ok(stop_pair(&r, 59.9, 58, 62, 0) == TB_STOP_GO_ON,
       "one that agrees but is not within ±0.5 ([58, 62]): not yet");
    ok(stop_pair(&r, 59.6, 59.3, 59.9, 0) == TB_STOP_GO_ON,
       "one whose T∞ has moved since (59.6, outside [59.8, 60.2]): not yet");
    tb_stop_state_init(&st);
    stop_fit(&fit, &ser, 60, 59.8, 60.2, lv, 0);
    tb_stop_rule_look(&r, 13, 2184, &fit, 0, &st);
    tb_stop_rule_look(&r, 14, 2730, NULL, 0, &st);
    stop_fit(&fit, &ser, 60, 59.8, 60.2, lv, 0);
    ok(tb_stop_rule_look(&r, 15, 3412, &fit, 0, &st) == TB_STOP_GO_ON,
       "a failed fit between breaks the pair");
    stop_fit(&fit, &ser, 60, 59.8, 60.2, lv, TB_FIT_EXTRAPOLATED);
    tb_stop_state_init(&st);
    tb_stop_rule_look(&r, 15, 3412, &fit, 0, &st);
    stop_fit(&fit, &ser, 60, 59.8, 60.2, lv, TB_FIT_EXTRAPOLATED);
    ok(tb_stop_rule_look(&r, 16, 3600, &fit, 0, &st) == TB_STOP_NOT_KNOWN,
       "and at the last look, flagged: not known");

    stop_fit(&fit, &ser, 60, 59, 61, lv, 0);
    double need = tb_stop_time_needed(&fit, 0, 0.5);
    ok(fabs(need - 300 * log(2)) < 1e-9, "time needed: τ ln(1/0.5) = %.1f s", need);
}

/* tb_series_extract_bins() against tb_series_extract(), the offset taken
 * off, then tb_series_bin(): the same means to the last bit, for bounds
 * that split the points unevenly, and on times of a millisecond's steps
 * (whose rounding made 39 bins more than 2000 before bin_end()). */
static void test_extract_bins(const double *t, const double *v, size_t n)
{
    static double ms[200001];
    for (size_t i = 0; i < 200001; i++)
        ms[i] = (double)i * 0.001;
    double at[] = {0, 300, 600}, av[] = {20, 21, 23};
    tb_column amb = {.name = "ambient", .n = 3, .t = at, .v = av};
    const tb_column cols[] = {{.name = "T", .n = n, .t = t, .v = v},
                              {.name = "T", .n = 200001, .t = ms, .v = ms}};
    const size_t maxes[] = {0, 1, 3, 7, 2000, 20000, 7919, 199999, 200001};
    int same = 1, within = 1, calls = 0;
    size_t ms_bins = 0;
    for (size_t c = 0; c < 2; c++)
        for (size_t k = 0; k < sizeof maxes / sizeof *maxes; k++) {
            double *t1, *y1, *t2, *y2;
            size_t n1, n2;
            const tb_column *ambient = c ? NULL : &amb;
            if (tb_series_extract(&cols[c], 1.5, 590, ambient, &t1, &y1, &n1, err, sizeof err) < 0 ||
                tb_series_extract_bins(&cols[c], 1.5, 590, ambient, 23, maxes[k], &t2, &y2, &n2,
                                       err, sizeof err) < 0) {
                same = 0;
                continue;
            }
            for (size_t i = 0; i < n1; i++)
                y1[i] -= 23;
            n1 = tb_series_bin(t1, y1, n1, maxes[k]);
            same &= n1 == n2 && memcmp(t1, t2, n1 * sizeof *t1) == 0 &&
                    memcmp(y1, y2, n1 * sizeof *y1) == 0;
            within &= maxes[k] == 0 || n2 <= maxes[k];
            if (c == 1 && maxes[k] == 2000)
                ms_bins = n2;
            calls++;
            free(t1);
            free(y1);
            free(t2);
            free(y2);
        }
    ok(same && calls == 18, "extracted and binned in one pass: the same means, bit for bit (18 cases)");
    ok(within && ms_bins == 2000, "never more means than the bound: millisecond steps in 2000 (%zu)",
       ms_bins);
    double *t3, *y3;
    size_t n3;
    ok(tb_series_extract_bins(&cols[0], 700, 800, NULL, 0, 10, &t3, &y3, &n3, err, sizeof err) < 0 &&
       strstr(err, "no points in the window"), "an empty window: %s", err);
}

/* Block means (tb_series_bin()), and a fit of them against a fit of every
 * point: a run sampled each 10 ms made 2000 means, as --follow's updates
 * fit it. */
static void test_series_bin(void)
{
    double t[10], y[10];
    for (int i = 0; i < 10; i++) {
        t[i] = i;
        y[i] = 2 * i;
    }
    ok(tb_series_bin(t, y, 10, 10) == 10 && tb_series_bin(t, y, 10, 0) == 10 && t[9] == 9,
       "as many points as bins, or no bound: untouched");
    ok(tb_series_bin(t, y, 10, 5) == 5 && t[0] == 0.5 && t[2] == 4.5 && t[4] == 8.5 &&
       y[4] == 17, "10 points in 5 bins of 1.8 s: the means of pairs, the last two in the last");
    double gt[] = {0, 1, 2, 100}, gy[] = {1, 2, 3, 7};
    ok(tb_series_bin(gt, gy, 4, 2) == 2 && gt[0] == 1 && gy[0] == 2 && gt[1] == 100 &&
       gy[1] == 7, "a gap: each bin's own points, no empty bin made up");

    enum { N = 60000 };
    static double ft[N], fy[N], bt[N], by[N];
    /* 10 min at 10 ms, or at 30 ms under valgrind: 30 or 10 points a mean */
    size_t n = tap_quick() ? N / 3 : N;
    double dt = 600.0 / (double)n;
    struct truth tr = {60, 2, {-8, -6}, {40, 300}};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    make_curve(&tr, n, dt, 0.1, 0, 0, rng, ft, fy);
    gsl_rng_free(rng);
    memcpy(bt, ft, n * sizeof *ft);
    memcpy(by, fy, n * sizeof *fy);
    size_t nb = tb_series_bin(bt, by, n, 2000);
    tb_fit_options opt = tb_fit_default_options();
    tb_fit full, binned;
    opt.order = 2;
    tb_series sf = {ft, fy, n}, sb = {bt, by, nb};
    ok(nb == 2000 && tb_fit_series_run(&sf, 1, &opt, &full, err, sizeof err) == 0 &&
       tb_fit_series_run(&sb, 1, &opt, &binned, err, sizeof err) == 0,
       "%.0f ms for 10 min, 2 modes: fitted whole and as 2000 means", 1e3 * dt);
    const tb_estimate *a = &full.series[0].t_inf, *b = &binned.series[0].t_inf;
    ok(fabs(a->value - b->value) < 0.1 * (a->hi - a->lo) && covers(b, 60),
       "the same T∞ (%.4f and %.4f), within a tenth of its interval, which holds 60",
       a->value, b->value);
    ok(fabs((b->hi - b->lo) / (a->hi - a->lo) - 1) < 0.1 &&
       fabs(binned.tau[1].value / full.tau[1].value - 1) < 0.01,
       "an interval as wide (%.4f and %.4f), the same slow τ", a->hi - a->lo, b->hi - b->lo);
    tb_fit_clear(&full);
    tb_fit_clear(&binned);
    test_extract_bins(ft, fy, n);
}

int main(void)
{
    test_series_bin();
    test_exact();
    test_three_terms();
    test_coverage(1, 600, 100);
    test_coverage(2, 1200, 100);
    test_coverage(3, 3600, 60);
    test_shared_tau();
    test_covariance_blocks();
    test_hac_reference();
    test_autocorrelated_short_run();
    test_model_checks();
    test_bootstrap();
    test_auto_and_degenerate();
    test_bad_input();
    test_helpers();
    test_throttle_and_run_length();
    test_work_rate_interval();
    test_real_runs();
    test_group_stats();
    test_networks();
    test_numeric_robustness();
    test_stop_rule();
    return tap_done();
}
