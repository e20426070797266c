/*
 * test-thermal.c -- from temperature curves to thermal networks, against
 * networks whose truth the test makes: the Foster to Cauer conversion
 * against an analytic ladder and its round trip, intervals of derived
 * quantities against the fit's own, R_th, Rᵢ and Cᵢ recovered within
 * their intervals over many noisy runs, the power step, the sustainable
 * power and time to trip against hand computation, Zth(t), and the
 * power-allocator governor's constants as the kernel computes them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "tap.h"
#include "tbfit.h"

static char err[TB_ERRMAX];

static int covers(const tb_estimate *e, double truth)
{
    return e->lo <= truth && truth <= e->hi;
}

/* The modes of the two-stage ladder R1, C1, R2, C2 in closed form: the
 * roots of λ² − tr·λ + det and the residues of Z(s) at node 1. */
static void two_stage_modes(double r1, double c1, double r2, double c2, tb_modes *m)
{
    double tr = 1 / (r1 * c1) + (1 / r1 + 1 / r2) / c2, det = 1 / (r1 * r2 * c1 * c2);
    double l[2] = {(tr + sqrt(tr * tr - 4 * det)) / 2, (tr - sqrt(tr * tr - 4 * det)) / 2};
    m->n = 2;
    for (int i = 0; i < 2; i++) {
        double other = l[1 - i];
        m->tau[i] = 1 / l[i];
        m->gain[i] = (1 / r1 + 1 / r2 - l[i] * c2) / (c1 * c2 * l[i] * (other - l[i]));
    }
}

static void test_cauer(void)
{
    double r1 = 0.8, c1 = 2.5, r2 = 3.1, c2 = 90;
    tb_modes m;
    two_stage_modes(r1, c1, r2, c2, &m);
    double r[TB_FIT_MAX_ORDER], c[TB_FIT_MAX_ORDER];
    ok(tb_cauer_from_modes(&m, r, c) == 0, "an analytic two-stage ladder's modes convert");
    ok(fabs(r[0] / r1 - 1) < 1e-9 && fabs(c[0] / c1 - 1) < 1e-9 && fabs(r[1] / r2 - 1) < 1e-9 &&
           fabs(c[1] / c2 - 1) < 1e-9,
       "to the ladder to 1e-9 (R1 %.12g C1 %.12g R2 %.12g C2 %.12g)", r[0], c[0], r[1], c[1]);

    /* round trips: ladders of 1 to 4 stages with τ over four decades */
    double lr[4] = {0.3, 1.2, 2.0, 5.0}, lc[4] = {0.5, 20, 150, 2000};
    for (size_t n = 1; n <= 4; n++) {
        tb_modes mm;
        double rr[4], cc[4], worst = 0;
        int okay = tb_modes_from_cauer(lr, lc, n, &mm) == 0 && tb_cauer_from_modes(&mm, rr, cc) == 0;
        for (size_t i = 0; okay && i < n; i++)
            worst = fmax(worst, fmax(fabs(rr[i] / lr[i] - 1), fabs(cc[i] / lc[i] - 1)));
        ok(okay && worst < 1e-9, "a %zu-stage ladder comes back from its modes (worst %.2g)", n, worst);
    }
    /* a Foster network with a negative R has no ladder */
    tb_modes bad = {.n = 2, .tau = {10, 100}, .gain = {-1, 3}};
    ok(tb_cauer_from_modes(&bad, r, c) == -1, "a term that is not passive has no ladder");
    tb_modes same = {.n = 2, .tau = {10, 10}, .gain = {1, 3}};
    ok(tb_cauer_from_modes(&same, r, c) == -1, "two equal τ are one stage, refused as two");
}

/* A run of a Foster network under a power step DP from T0: N points a
 * second apart, AR(1) noise PHI of SIGMA, 0.1 °C steps. */
static void network_run(const double *R, const double *C, int n, double t0, double dp, size_t npts,
                        double sigma, double phi, gsl_rng *rng, double *t, double *y)
{
    double e = 0;
    for (size_t i = 0; i < npts; i++) {
        t[i] = (double)i;
        double v = t0;
        for (int j = 0; j < n; j++)
            v += dp * R[j] * (1 - exp(-t[i] / (R[j] * C[j])));
        e = phi * e + gsl_ran_gaussian(rng, sigma) * sqrt(1 - phi * phi);
        y[i] = round((v + e) * 10) / 10;
    }
}

static double g_tinf(const double *th, double x, void *ctx)
{
    (void)x;
    (void)ctx;
    return th[0];
}

static double g_tau2(const double *th, double x, void *ctx)
{
    (void)x;
    (void)ctx;
    return th[4];   /* order 2: T∞, k1, k2, τ1, τ2 */
}

static void test_derive(void)
{
    static double t[3600], y[3600];
    double R[2] = {1.5, 4.0}, C[2] = {40, 150};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    network_run(R, C, 2, 30, 5, 3600, 0.1, 0.5, rng, t, y);
    tb_series s = {t, y, 3600};
    tb_fit_options o = tb_fit_default_options();
    o.order = 2;
    tb_fit f;
    ok(tb_fit_series_run(&s, 1, &o, &f, err, sizeof err) == 0, "a network's run fits");
    tb_estimate e;
    /* each call before the ok() that prints what it found: the order in
     * which arguments are evaluated is not C's to promise */
    int rc = tb_fit_derive(&f, 0, g_tinf, NULL, 0, 0, 0, &e);
    double wider = fmax(f.series[0].t_inf.value - f.series[0].t_inf.lo,
                        f.series[0].t_inf.hi - f.series[0].t_inf.value);
    ok(rc == 0 && fabs(e.value - wider - e.lo) < 1e-6 && fabs(e.value + wider - e.hi) < 1e-6,
       "T∞ derived has T∞'s own HAC interval, profiled, by its wider side "
       "(%.6f..%.6f vs %.6f..%.6f)", e.lo, e.hi,
       f.series[0].t_inf.lo, f.series[0].t_inf.hi);
    ok(tb_fit_derive(&f, 0, g_tau2, NULL, 0, 0, 1, &e) == 0 && fabs(e.lo / f.tau[1].lo - 1) < 1e-4 &&
           fabs(e.hi / f.tau[1].hi - 1) < 1e-4,
       "τ₂ derived as positive has τ₂'s own interval in ln τ");
    tb_fit_clear(&f);
    o.ci = TB_CI_BOOTSTRAP;
    o.bootstrap = 100;
    rc = tb_fit_series_run(&s, 1, &o, &f, err, sizeof err);
    ok(rc == 0 && f.nreplicates >= 90, "the bootstrap keeps its resamples (%zu)", f.nreplicates);
    ok(tb_fit_derive(&f, 0, g_tinf, NULL, 0, 0, 0, &e) == 0 && e.lo == f.series[0].t_inf.lo &&
           e.hi == f.series[0].t_inf.hi,
       "T∞ derived over the resamples has T∞'s own percentile interval");
    tb_fit_clear(&f);
    gsl_rng_free(rng);
}

/* R_th, Rᵢ and Cᵢ of a two-stage Foster network over RUNS noisy runs
 * (AR(1) noise PHI) with intervals by CI: the share of intervals that
 * hold the truth. */
static void test_recovery(int runs, double phi, enum tb_ci_method ci)
{
    static double t[3600], y[3600];
    double R[2] = {1.5, 4.0}, C[2] = {40, 150}, dp = 5;
    int hit_rth = 0, hit_r = 0, hit_c = 0, hit_cauer = 0, fitted = 0;
    double lr[2], lc[2];
    tb_modes truth_modes;
    tb_modes_from_foster(R, C, 2, &truth_modes);
    tb_cauer_from_modes(&truth_modes, lr, lc);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (int run = 0; run < runs; run++) {
        gsl_rng_set(rng, 100 + (unsigned long)run);
        network_run(R, C, 2, 30, dp, 3600, 0.15, phi, rng, t, y);
        tb_series s = {t, y, 3600};
        tb_fit_options o = tb_fit_default_options();
        o.order = 2;
        o.ci = ci;
        o.bootstrap = 100;
        tb_fit f;
        tb_thermal th;
        tb_power_step ps = {.step = dp, .se = 0, .load = NAN, .idle = NAN};
        if (tb_fit_series_run(&s, 1, &o, &f, err, sizeof err) < 0)
            continue;
        if (tb_thermal_from_fit(&f, 0, &ps, 0, &th, err, sizeof err) == 0) {
            fitted++;
            hit_rth += covers(&th.r_th, R[0] + R[1]);
            hit_r += covers(&th.foster_r[0], R[0]) && covers(&th.foster_r[1], R[1]);
            hit_c += covers(&th.foster_c[0], C[0]) && covers(&th.foster_c[1], C[1]);
            hit_cauer += covers(&th.cauer_r[0], lr[0]) && covers(&th.cauer_c[1], lc[1]);
        }
        tb_fit_clear(&f);
    }
    gsl_rng_free(rng);
    printf("# %s intervals, AR(1) %.1f noise:\n", tb_ci_method_name(ci), phi);
    ok(fitted == runs, "%d of %d runs give a network", fitted, runs);
    /* 95 % intervals; two at once hold at ≥ 90 % when independent */
    ok_rate(hit_rth >= 0.88 * runs, "R_th within its interval in %d of %d runs", hit_rth, runs);
    ok_rate(hit_r >= 0.82 * runs, "R1 and R2 both within theirs in %d of %d", hit_r, runs);
    ok_rate(hit_c >= 0.82 * runs, "C1 and C2 both within theirs in %d of %d", hit_c, runs);
    ok_rate(hit_cauer >= 0.82 * runs, "Cauer R1 and C2 both within theirs in %d of %d", hit_cauer,
            runs);
}

static void test_power_step(void)
{
    static double t[900], v[900];
    /* idle 1.0 W for 300 s, load 3.5 W from 300 s to 900 s */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    for (size_t i = 0; i < 900; i++) {
        t[i] = (double)i;
        v[i] = (i < 300 ? 1.0 : 3.5) + gsl_ran_gaussian(rng, 0.05);
    }
    tb_column c = {.header = "power/W", .name = "power", .raw_unit = "W", .unit = "W", .scale = 1,
                   .n = 900, .t = t, .v = v};
    tb_power_step ps;
    ok(tb_power_step_measure(&c, 300, 900, NAN, &ps, err, sizeof err) == 0,
       "a step from an idle part before the window: %s", err);
    is_near(ps.step, 2.5, 0.02, "ΔP is the load less the idle level (%.4f W)", ps.step);
    ok(ps.se > 0 && ps.se < 0.01, "with a small standard error (%.4f W)", ps.se);
    ok(!ps.not_step, "a constant load is a step (departure %.3f)", ps.departure);
    int rc = tb_power_step_measure(&c, 300, 900, 0.5, &ps, err, sizeof err);
    ok(rc == 0 && fabs(ps.step - 3.0) < 0.02, "an idle power given is used (%.4f W)", ps.step);
    ok(tb_power_step_measure(&c, 0, 900, NAN, &ps, err, sizeof err) == -1 &&
           strstr(err, "no idle part"),
       "no idle part: %s", err);
    ok(tb_power_step_measure(&c, 300, 900, 9, &ps, err, sizeof err) == -1 &&
           strstr(err, "not positive"),
       "a step that is not positive: %s", err);
    for (size_t i = 600; i < 900; i++)
        v[i] += 0.6;   /* the load drifts up by a quarter of the step */
    rc = tb_power_step_measure(&c, 300, 900, NAN, &ps, err, sizeof err);
    ok(rc == 0 && ps.not_step, "a load that changes by %.0f %% of the step is not a step",
       100 * ps.departure);
    for (size_t i = 600; i < 900; i++)
        v[i] -= 0.6;
    /* a window cut inside the load: load left after it is no idle part */
    ok(tb_power_step_measure(&c, 300, 600, NAN, &ps, err, sizeof err) == -1 &&
           strstr(err, "not one idle level"),
       "a window cut inside the load: %s", err);
    c.unit = "°C";
    ok(tb_power_step_measure(&c, 300, 900, NAN, &ps, err, sizeof err) == -1 &&
           strstr(err, "not a power"),
       "a column that is not a power: %s", err);
    gsl_rng_free(rng);
}

/* The departure of a recorded power from its step, through one mode (τ
 * 10 s, R 2 K/W), against the closed form: 10 W for the first 5 s of a
 * 5 W load put R·5·(1 − e^(−t/τ)) on, decaying with τ after. */
static void test_departure_response(void)
{
    tb_fit_series fs = {.k = {{-10, -10, -10}}};
    tb_fit fit = {.order = 1, .tau = {{10, 10, 10}}, .nseries = 1, .series = &fs};
    tb_power_step ps = {.step = 5, .load = 5, .idle = 0};
    double pt[40], pv[40], t[] = {100, 101, 102.5, 105, 107, 120, 139}, y[7];
    for (size_t k = 0; k < 40; k++) {
        pt[k] = 99 + (double)k;       /* a sample each second, from before the load */
        pv[k] = pt[k] < 100 ? 0 : pt[k] < 105 ? 10 : 5;
    }
    tb_column c = {.name = "power", .unit = "W", .scale = 1, .n = 40, .t = pt, .v = pv};
    tb_power_departure_response(&fit, 0, &ps, &c, t, 7, y);
    double worst = 0;
    for (size_t m = 0; m < 7; m++) {
        double x = t[m] - 100;
        double want = x <= 5 ? 2 * 5 * -expm1(-x / 10) : 2 * 5 * -expm1(-0.5) * exp(-(x - 5) / 10);
        worst = fmax(worst, fabs(y[m] - want));
    }
    ok(worst < 1e-12, "a spike's response through one mode, held samples (worst %.2g °C)", worst);
    ps.held = 60;
    ps.step = -5;
    tb_power_departure_response(&fit, 0, &ps, &c, t, 7, y);
    ok(y[3] == 0 && y[6] == 0, "none for a step down");
}

/* Noise-free one- and two-stage runs: the sustainable power and time to
 * trip by hand. */
static void test_sustainable(void)
{
    static double t[4000], y[4000];
    double R[2] = {2.0, 6.0};   /* C 25 and 100 J/K: τ 50 s and 600 s */
    double dp = 3, idle = 1.5, t0 = 12;   /* a rise over ambient */
    for (size_t i = 0; i < 4000; i++) {
        t[i] = (double)i;
        y[i] = t0 + dp * (R[0] * (1 - exp(-t[i] / 50)) + R[1] * (1 - exp(-t[i] / 600)));
    }
    tb_series s = {t, y, 4000};
    tb_fit_options o = tb_fit_default_options();
    o.order = 2;
    tb_fit f;
    tb_thermal th;
    tb_power_step ps = {.step = dp, .idle = idle, .load = idle + dp};
    ok(tb_fit_series_run(&s, 1, &o, &f, err, sizeof err) == 0 &&
           tb_thermal_from_fit(&f, 0, &ps, 1, &th, err, sizeof err) == 0,
       "a noise-free network's run gives its network");
    is_near(th.r_th.value, 8, 1e-6, "R_th = R1 + R2 (%.9f K/W)", th.r_th.value);
    is_near(th.r_ja.value, (t0 + 8 * dp) / (idle + dp), 1e-6, "R_ja = T∞ / P_load (%.9f K/W)",
            th.r_ja.value);
    is_near(th.foster_c[1].value, 100, 1e-4, "C2 (%.6f J/K)", th.foster_c[1].value);
    /* trip 85 °C at 45 °C ambient: idle at 45 + 12 = 57, 28 K of margin */
    tb_sustainable su;
    ok(tb_thermal_sustainable(&f, 0, &th, 85, 45, NAN, &su, err, sizeof err) == 0,
       "sustainable power: %s", err);
    is_near(su.power.value, idle + 28.0 / 8, 1e-6, "P = idle + margin / R_th (%.9f W)", su.power.value);
    is_near(su.idle_temp, 57, 1e-6, "from idle at 57 °C");
    /* the run's load (4.5 W) heats 3·8 = 24 K: never reaches the trip */
    ok(isinf(su.time_to_trip.value), "the run's power never trips (%g)", su.time_to_trip.value);
    /* at 7.5 W: rise 6 W; 6·(2(1−e^(−t/50)) + 6(1−e^(−t/600))) = 28 */
    ok(tb_thermal_sustainable(&f, 0, &th, 85, 45, 7.5, &su, err, sizeof err) == 0,
       "time to trip at 7.5 W");
    double lo = 0, hi = 1e5;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (6 * (2 * (1 - exp(-mid / 50)) + 6 * (1 - exp(-mid / 600))) >= 28)
            hi = mid;
        else
            lo = mid;
    }
    is_near(su.time_to_trip.value, lo, 1e-4 * lo, "%.4f s by hand, %.4f s found", lo,
            su.time_to_trip.value);
    ok(tb_thermal_sustainable(&f, 0, &th, 40, 45, NAN, &su, err, sizeof err) == -1 &&
           strstr(err, "not above the ambient"),
       "a trip below the ambient: %s", err);
    th.power.idle = NAN;
    ok(tb_thermal_sustainable(&f, 0, &th, 85, 45, NAN, &su, err, sizeof err) == -1 &&
           strstr(err, "idle power"),
       "no idle power: %s", err);

    tb_zth_point *z;
    ssize_t nz = tb_thermal_zth(&f, 0, t, y, 4000, dp, 10, &z);
    ok(nz > 30 && nz < 40, "Zth on a log grid of 10 to a decade (%zd points)", nz);
    int same = nz > 0;
    for (ssize_t i = 1; i < nz; i++)
        same = same && z[i].t > z[i - 1].t && fabs(z[i].data - z[i].model) < 1e-6;
    ok(same, "its data and model agree on a noise-free run, in time order");
    ok(z[0].n == 1 && z[0].t == 1, "the first bin holds the first period alone");
    is_near(z[0].model, 8 - 2 * exp(-1.0 / 50) - 6 * exp(-1.0 / 600), 1e-6,
            "and the model is Σ Rᵢ(1 − e^(−t/τᵢ)) (%.6f K/W at 1 s)", z[0].model);
    is_near(z[nz - 1].model, 8, 0.02, "reaching R_th at the end (%.4f K/W)", z[nz - 1].model);
    free(z);
    tb_fit_clear(&f);

    /* a fit with a term that rises the wrong way */
    for (size_t i = 0; i < 4000; i++)
        y[i] = 40 - 8 * exp(-t[i] / 600) + 3 * exp(-t[i] / 50);
    ok(tb_fit_series_run(&s, 1, &o, &f, err, sizeof err) == 0 &&
           tb_thermal_from_fit(&f, 0, &ps, 1, &th, err, sizeof err) == 0 &&
           (th.flags & TB_THERMAL_NOT_PASSIVE) && isnan(th.cauer_r[0].value),
       "a term that rises the wrong way is flagged, with no ladder");
    char buf[64];
    ok(strstr(tb_thermal_flags_text(th.flags, buf, sizeof buf), "not_passive") == buf,
       "its flag's name first (%s)", buf);
    is_string(tb_thermal_flags_text(TB_THERMAL_NOT_STEP | TB_THERMAL_NOT_AT_REST, buf, sizeof buf),
              "power_not_step;not_at_rest", "flags in order, separated by ';'");
    tb_fit_clear(&f);
}

/* A cooling curve after a load held D s, too short to settle: each stage
 * is read for the share of its rise the load reached. */
static void test_cooling_held(void)
{
    static double t[3000], y[3000];
    double R[2] = {2.0, 6.0}, tau[2] = {50, 600}, dp = 3, D = 900;
    for (size_t i = 0; i < 3000; i++) {   /* from the load's end */
        t[i] = (double)i;
        y[i] = 0;
        for (int j = 0; j < 2; j++)
            y[i] += dp * R[j] * (1 - exp(-D / tau[j])) * exp(-t[i] / tau[j]);
    }
    tb_series s = {t, y, 3000};
    tb_fit_options o = tb_fit_default_options();
    o.order = 2;
    tb_fit f;
    tb_thermal th;
    tb_power_step ps = {.step = -dp, .idle = NAN, .load = NAN, .held = D};
    int rc = tb_fit_series_run(&s, 1, &o, &f, err, sizeof err);
    ok(rc == 0 && tb_thermal_from_fit(&f, 0, &ps, 0, &th, err, sizeof err) == 0 && !th.flags,
       "a cooling curve after a 900 s load gives a network");
    is_near(th.r_th.value, 8, 1e-5, "R_th = R1 + R2 though the 600 s stage reached 78 %% (%.7f K/W)",
            th.r_th.value);
    is_near(th.foster_c[1].value, 100, 1e-3, "and C2 = τ2/R2 (%.5f J/K)", th.foster_c[1].value);
    ps.held = 0;
    rc = tb_thermal_from_fit(&f, 0, &ps, 0, &th, err, sizeof err);
    ok(rc == 0 && th.r_th.value < 7, "read as settled it would be %.3f K/W", th.r_th.value);
    tb_fit_clear(&f);
}

/* The spectrum of a three-stage network's Zth: its peaks where the
 * stages are, ΣR the network's, the structure function ending there; and
 * a run too short for its slow stage flagged. */
static void test_spectrum(void)
{
    static double t[6000], y[6000];
    double R[3] = {0.8, 2, 2.5}, tau[3] = {40, 300, 1075}, dp = 5;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    for (size_t i = 0; i < 6000; i++) {
        t[i] = (double)i;
        y[i] = gsl_ran_gaussian(rng, 0.02);
        for (int j = 0; j < 3; j++)
            y[i] += dp * R[j] * -expm1(-t[i] / tau[j]);
    }
    gsl_rng_free(rng);
    for (int part = 0; part < 2; part++) {
        size_t n = part ? 1200 : 6000;   /* 100 minutes, then 20 */
        tb_series s = {t, y, n};
        tb_fit_options o = tb_fit_default_options();
        o.order = part ? 2 : 3;
        tb_fit f;
        tb_zth_point *z = NULL;
        tb_spectrum sp;
        int rc = tb_fit_series_run(&s, 1, &o, &f, err, sizeof err);
        ssize_t nz = rc == 0 ? tb_thermal_zth(&f, 0, t, y, n, dp, 20, &z) : -1;
        rc = nz > 0 ? tb_thermal_spectrum(z, (size_t)nz, 1, (double)n - 1, 10, &sp, err, sizeof err) : -1;
        ok(rc == 0, "%s run: a spectrum (%s)", part ? "a 20-minute" : "a 100-minute", rc ? err : "");
        if (rc == 0 && !part) {
            int near = sp.npeaks == 3;
            for (size_t k = 0; near && k < 3; k++)
                near = fabs(log(sp.peak_tau[k] / tau[k])) < log(1.15) && fabs(sp.peak_r[k] / R[k] - 1) < 0.1;
            ok(near, "three peaks near the stages (%zu: %.3g K/W at %.0f s, %.3g at %.0f, %.3g at %.0f)",
               sp.npeaks, sp.peak_r[0], sp.peak_tau[0], sp.peak_r[1], sp.peak_tau[1], sp.peak_r[2],
               sp.peak_tau[2]);
            is_near(sp.r_total, 5.3, 0.03, "ΣR is R_th (%.4f K/W)", sp.r_total);
            ok(sp.nladder > 3 && fabs(sp.cum_r[sp.nladder - 1] / sp.r_total - 1) < 1e-3 && !sp.flags,
               "the structure function's ΣR ends there (%zu stages, %.4f K/W), unflagged", sp.nladder,
               sp.nladder ? sp.cum_r[sp.nladder - 1] : NAN);
            int rising = 1;
            for (size_t k = 1; k < sp.nladder; k++)
                rising = rising && sp.cum_r[k] > sp.cum_r[k - 1] && sp.cum_c[k] > sp.cum_c[k - 1];
            ok(rising, "ΣR and ΣC grow from the source out");
        }
        if (rc == 0 && part)
            ok(sp.flags & TB_SPECTRUM_UNRESOLVED, "a run shorter than the slow stage is flagged unresolved");
        if (rc == 0)
            tb_spectrum_clear(&sp);
        free(z);
        tb_fit_clear(&f);
    }
    tb_zth_point few[3] = {{1, 1, 0.1, 0.1}, {2, 1, 0.2, 0.2}, {3, 1, 0.3, 0.3}};
    tb_spectrum sp;
    ok(tb_thermal_spectrum(few, 3, 1, 100, 10, &sp, err, sizeof err) == -1 && strstr(err, "too few"),
       "three points are too few: %s", err);
}

static void test_ipa(void)
{
    tb_ipa_constants k;
    /* 2.5 W, control 85 °C, switch-on 65 °C: threshold 20000 m°C */
    ok(tb_ipa_constants_compute(2.5, 85, 65, &k) == 0, "the governor's constants");
    ok(k.sustainable_mw == 2500 && k.k_po == 128 && k.k_pu == 256 && k.k_i == 25,
       "as the kernel computes them (%u mW, k_po %u, k_pu %u, k_i %u)", k.sustainable_mw, k.k_po,
       k.k_pu, k.k_i);
    ok(tb_ipa_constants_compute(2.5, 85, NAN, &k) == 0 && k.k_po == 30 && k.k_pu == 60 && k.k_i == 6,
       "without a switch-on trip the threshold is the control temperature");
    ok(tb_ipa_constants_compute(0.05, 85, 65, &k) == 0 && k.k_i == 1, "k_i is at least 1");
    ok(tb_ipa_constants_compute(2.5, 65, 65, &k) == -1, "no threshold, no constants");
}

int main(void)
{
    test_cauer();
    test_derive();
    int runs = runs_of(100, 3);
    test_recovery(runs, 0, TB_CI_HAC);
    /* Under autocorrelated noise, both ways of finding intervals hold:
     * the HAC's thanks to its prewhitened variance, without which the
     * fast terms' (and T(0)'s, R_th's) covered some 76 % at AR(1) 0.6. */
    test_recovery(runs_of(40, 2), 0.6, TB_CI_BOOTSTRAP);
    test_recovery(runs, 0.6, TB_CI_HAC);
    test_recovery(runs, 0.9, TB_CI_HAC);
    test_power_step();
    test_departure_response();
    test_sustainable();
    test_cooling_held();
    test_spectrum();
    test_ipa();
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}
