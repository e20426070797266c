/*
 * thermal.c -- from a run's temperature curve and its power step to what
 * a thermal engineer designs with: the thermal resistance in K/W, the
 * Foster and Cauer networks, Zth(t), the sustainable power below a trip
 * point and the time to reach it, with the fit's intervals carried
 * through (tb_fit_derive()).
 *
 * Under a step ΔP from idle equilibrium at t = 0 a linear network gives
 * T(t) = T(0) + ΔP·Σ Rᵢ(1 − e^(−t/τᵢ)): the fit's kᵢ are −ΔP·Rᵢ and its
 * T∞ − T(0) = ΔP·Σ Rᵢ.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

/* --- the power step ----------------------------------------------------------- */

#define BATCHES 10

/* Mean of V[0..N) and its standard error by batch means over BATCHES
 * consecutive batches (which holds under autocorrelated noise), or the
 * plain one under 2·BATCHES points.  The largest departure of a batch's
 * mean from the whole mean into *DEPARTURE, when not NULL. */
static double mean_se(const double *v, size_t n, double *se, double *departure)
{
    double mean = gsl_stats_mean(v, 1, n);
    if (departure)
        *departure = 0;
    if (n < 2 * BATCHES) {
        *se = n > 1 ? gsl_stats_sd_m(v, 1, n, mean) / sqrt((double)n) : 0;
        return mean;
    }
    double b[BATCHES];
    for (size_t k = 0; k < BATCHES; k++) {
        size_t lo = k * n / BATCHES, hi = (k + 1) * n / BATCHES;
        b[k] = gsl_stats_mean(v + lo, 1, hi - lo);
        if (departure && fabs(b[k] - mean) > *departure)
            *departure = fabs(b[k] - mean);
    }
    *se = gsl_stats_sd_m(b, 1, BATCHES, gsl_stats_mean(b, 1, BATCHES)) / sqrt((double)BATCHES);
    return mean;
}

int tb_power_step_measure(const tb_column *power, double from, double to, double idle,
                          tb_power_step *ps, char *err, size_t errlen)
{
    memset(ps, 0, sizeof *ps);
    if (strcmp(power->unit, "W") != 0) {
        snprintf(err, errlen, "column %s is in '%s', not a power (W)", power->name,
                 power->unit[0] ? power->unit : "no unit");
        return -1;
    }
    double *load = malloc((power->n + 1) * sizeof *load);
    double *rest = malloc((power->n + 1) * sizeof *rest);
    size_t nl = 0, nr = 0, nbefore = 0;
    double rest_first = INFINITY, rest_last = -INFINITY, load_first = NAN, load_last = NAN;
    int rc = -1;

    if (!load || !rest) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < power->n; i++) {
        if (power->t[i] >= from && power->t[i] <= to) {
            if (nl == 0)
                load_first = power->t[i];
            load_last = power->t[i];
            load[nl++] = power->v[i];
        } else {
            rest_first = fmin(rest_first, power->t[i]);
            rest_last = fmax(rest_last, power->t[i]);
            rest[nr++] = power->v[i];
            nbefore += power->t[i] < from;
        }
    }
    if (nl < 10) {
        snprintf(err, errlen, "power column %s has %zu points in the window, too few for its "
                 "level", power->name, nl);
        goto out;
    }
    double load_se, idle_se = 0;
    ps->load = mean_se(load, nl, &load_se, &ps->departure);
    if (isnan(idle)) {
        /* An idle part is a stretch of its own, not the start-up samples
         * just before the window. */
        double period = (load_last - load_first) / (double)(nl - 1);
        if (nr < 5 || !(rest_last - rest_first >= 10 * period)) {
            snprintf(err, errlen, "power column %s has no idle part before or after the window "
                     "to measure the step from: give the idle power", power->name);
            goto out;
        }
        double spread;
        idle = mean_se(rest, nr, &idle_se, &spread);
        /* one idle level, before and after alike: a window cut inside the
         * load leaves load outside it, which is no idle part */
        size_t nafter = nr - nbefore;
        double before = nbefore ? gsl_stats_mean(rest, 1, nbefore) : NAN;
        double after = nafter ? gsl_stats_mean(rest + nbefore, 1, nafter) : NAN;
        double step = fabs(ps->load - idle);
        if ((nbefore >= 5 && nafter >= 5 && fabs(before - after) > TB_POWER_STEP_SHARE * step) ||
            spread > TB_POWER_STEP_SHARE * step) {
            snprintf(err, errlen, "power column %s: the points outside the window are not one "
                     "idle level (%.4g W before it, %.4g W after): give the idle power",
                     power->name, before, after);
            goto out;
        }
    }
    ps->idle = idle;
    ps->step = ps->load - idle;
    ps->se = sqrt(load_se * load_se + idle_se * idle_se);
    if (!(ps->step > 0)) {
        snprintf(err, errlen, "power column %s: the step is not positive (load %.4g W, idle "
                 "%.4g W)", power->name, ps->load, idle);
        goto out;
    }
    ps->departure /= ps->step;
    ps->not_step = ps->departure > TB_POWER_STEP_SHARE;
    rc = 0;
out:
    free(load);
    free(rest);
    return rc;
}

/* --- the power's departure from a step ----------------------------------------- */

/* Each mode's state X (unit gain, its τ) H s on under a held input D. */
static void modes_advance(double *x, const double *tau, size_t order, double h, double d)
{
    if (!(h > 0))
        return;
    for (size_t j = 0; j < order; j++)
        x[j] += (d - x[j]) * -expm1(-h / tau[j]);
}

void tb_power_departure_response(const tb_fit *fit, size_t i, const tb_power_step *ps,
                                 const tb_column *power, const double *t, size_t n, double *y)
{
    size_t order = (size_t)fit->order, k = 0;
    double tau[TB_FIT_MAX_ORDER], r[TB_FIT_MAX_ORDER], x[TB_FIT_MAX_ORDER] = {0};
    double now = n ? t[0] : 0, d = 0;
    int active = ps->step > 0 && !(ps->held > 0);

    for (size_t j = 0; j < order; j++) {
        tau[j] = fit->tau[j].value;
        r[j] = active ? -fit->series[i].k[j].value / ps->step : 0;
    }
    for (; k < power->n && n && power->t[k] <= t[0]; k++)   /* the sample in force at T[0] */
        if (!isnan(power->v[k]))
            d = power->v[k] - ps->load;
    for (size_t m = 0; m < n; m++) {
        for (; k < power->n && power->t[k] <= t[m]; k++) {
            modes_advance(x, tau, order, power->t[k] - now, d);
            now = power->t[k];
            if (!isnan(power->v[k]))
                d = power->v[k] - ps->load;
        }
        modes_advance(x, tau, order, t[m] - now, d);
        now = t[m];
        y[m] = 0;
        for (size_t j = 0; j < order; j++)
            y[m] += r[j] * x[j];
    }
}

/* --- the network ---------------------------------------------------------------- */

/* θ = (T∞, k₁ … kₙ, τ₁ … τₙ); ctx: the order and the element asked. */
struct element {
    size_t n, j;
    double held;                     /* s the load lasted before a step down */
    double offset, trip, idle, at;   /* of the sustainable power */
};

/* Rᵢ of θ under DP.  After a step down from a load held for HELD s, mode
 * i had reached only 1 − e^(−HELD/τᵢ) of its rise: its kᵢ is that share
 * of −ΔP·Rᵢ. */
static double stage_r(const double *th, const struct element *e, double dp, size_t j)
{
    double share = e->held > 0 ? -expm1(-e->held / th[1 + e->n + j]) : 1;
    return -th[1 + j] / (dp * share);
}

static double g_rth(const double *th, double dp, void *ctx)
{
    const struct element *e = ctx;
    double sum = 0;
    for (size_t j = 0; j < e->n; j++)
        sum += stage_r(th, e, dp, j);
    return sum;
}

static double g_rja(const double *th, double p_load, void *ctx)
{
    (void)ctx;
    return th[0] / p_load;
}

static double g_foster_r(const double *th, double dp, void *ctx)
{
    const struct element *e = ctx;
    return stage_r(th, e, dp, e->j);
}

static double g_foster_c(const double *th, double dp, void *ctx)
{
    const struct element *e = ctx;
    return th[1 + e->n + e->j] / stage_r(th, e, dp, e->j);
}

/* The modes of θ under DP; 0, or -1 when one is not passive. */
static int modes_of(const double *th, const struct element *e, double dp, tb_modes *m)
{
    size_t n = e->n;
    m->n = n;
    for (size_t j = 0; j < n; j++) {
        m->tau[j] = th[1 + n + j];
        m->gain[j] = stage_r(th, e, dp, j);
        if (!(m->gain[j] > 0) || !(m->tau[j] > 0))
            return -1;
    }
    return 0;
}

/* Element j of the ladder: R (j < n) or C (n <= j < 2n). */
static double g_cauer(const double *th, double dp, void *ctx)
{
    const struct element *e = ctx;
    tb_modes m;
    double r[TB_FIT_MAX_ORDER], c[TB_FIT_MAX_ORDER];
    if (modes_of(th, e, dp, &m) < 0)
        return NAN;
    /* the modes must be in ascending τ, as a resample's may not be */
    for (size_t a = 1; a < m.n; a++)
        for (size_t b = a; b > 0 && m.tau[b] < m.tau[b - 1]; b--) {
            double t = m.tau[b], g = m.gain[b];
            m.tau[b] = m.tau[b - 1];
            m.gain[b] = m.gain[b - 1];
            m.tau[b - 1] = t;
            m.gain[b - 1] = g;
        }
    if (tb_cauer_from_modes(&m, r, c) < 0)
        return NAN;
    return e->j < e->n ? r[e->j] : c[e->j - e->n];
}

int tb_thermal_from_fit(const tb_fit *fit, size_t i, const tb_power_step *ps, int relative,
                        tb_thermal *th, char *err, size_t errlen)
{
    memset(th, 0, sizeof *th);
    if (ps->step == 0 || !isfinite(ps->step)) {
        snprintf(err, errlen, "the power step must not be %g W", ps->step);
        return -1;
    }
    double dp = ps->step, se = ps->se;
    size_t n = (size_t)fit->order;
    const tb_fit_series *fs = &fit->series[i];
    struct element e = {.n = n, .held = ps->step < 0 ? ps->held : 0};

    th->power = *ps;
    th->n = n;
    th->start_drift = th->start_drift_lo = th->start_drift_hi = NAN;
    th->flags = ps->not_step ? TB_THERMAL_NOT_STEP : 0;
    th->t_start = fs->t_inf.value;
    for (size_t j = 0; j < n; j++)
        th->t_start += fs->k[j].value;
    tb_fit_derive(fit, i, g_rth, &e, dp, se, 1, &th->r_th);
    /* The order's uncertainty, where the next order disagreed, as T∞'s */
    if ((fit->flags & TB_FIT_EXTRAPOLATED) && isfinite(fs->order_t_inf) &&
        isfinite(th->r_th.lo) && !(e.held > 0)) {
        double other = (fs->order_t_inf - th->t_start) / dp;
        th->r_th.lo = fmin(th->r_th.lo, other);
        th->r_th.hi = fmax(th->r_th.hi, other);
    }
    th->r_ja = (tb_estimate){NAN, NAN, NAN};
    if (relative && isfinite(ps->idle))
        tb_fit_derive(fit, i, g_rja, &e, ps->load, ps->se, 1, &th->r_ja);
    for (size_t j = 0; j < n; j++) {
        e.j = j;
        if (!(-fs->k[j].value / dp > 0))   /* Rᵢ; a step down has kᵢ > 0 */
            th->flags |= TB_THERMAL_NOT_PASSIVE;
        tb_fit_derive(fit, i, g_foster_r, &e, dp, se, 1, &th->foster_r[j]);
        tb_fit_derive(fit, i, g_foster_c, &e, dp, se, 1, &th->foster_c[j]);
    }
    for (size_t j = 0; j < TB_FIT_MAX_ORDER; j++)
        th->cauer_r[j] = th->cauer_c[j] = (tb_estimate){NAN, NAN, NAN};
    if (!(th->flags & TB_THERMAL_NOT_PASSIVE))
        for (size_t j = 0; j < n; j++) {
            e.j = j;
            tb_fit_derive(fit, i, g_cauer, &e, dp, se, 1, &th->cauer_r[j]);
            e.j = n + j;
            tb_fit_derive(fit, i, g_cauer, &e, dp, se, 1, &th->cauer_c[j]);
        }
    return 0;
}

/* The lag-1 autocorrelation of the N residuals of Y from the line C0 +
 * C1·t, clipped to [0, 0.99] (negative correlation narrows no error). */
static double residual_rho(const double *t, const double *y, size_t n, double c0, double c1)
{
    double num = 0, den = 0, prev = NAN;
    for (size_t k = 0; k < n; k++) {
        double e = y[k] - (c0 + c1 * t[k]);
        if (k > 0)
            num += e * prev;
        den += e * e;
        prev = e;
    }
    double rho = den > 0 ? num / den : 0;
    return rho < 0 ? 0 : rho > 0.99 ? 0.99 : rho;
}

int tb_thermal_check_start(const tb_fit *fit, size_t i, const tb_column *temp,
                           const tb_column *ambient, double from, double start, tb_thermal *th)
{
    double *t, *y;
    size_t n;
    char err[TB_ERRMAX];
    if (tb_series_extract(temp, from, start, ambient, &t, &y, &n, err, sizeof err) < 0)
        return -1;
    /* the points before the load only (the window ends at START itself) */
    while (n > 0 && t[n - 1] >= start)
        n--;
    size_t mid = n / 2, m = n - mid;
    double c0, c1, cov00, cov01, cov11, sumsq;
    int rc = -1;
    if (m < 10 || gsl_fit_linear(t + mid, 1, y + mid, 1, m, &c0, &c1, &cov00, &cov01, &cov11,
                                 &sumsq) != 0)
        goto out;
    double rho = residual_rho(t + mid, y + mid, m, c0, c1);
    double slowest = fit->tau[fit->order - 1].value;
    double rise = th->r_th.value * th->power.step, drift = c1 * slowest;
    double se = sqrt(cov11 * (1 + rho) / (1 - rho)) * slowest;
    double q = gsl_cdf_tdist_Pinv(0.5 + fit->level / 2, (double)(m - 2));
    /* what it could move R_th by, against R_th's own interval: a drift
     * the slope shows beyond doubt (three times its error: the error of a
     * short stretch's slope is itself uncertain under correlated noise)
     * that is 5 % of the rise, or half the interval, is one the user must
     * hear of */
    double half = (th->r_th.hi - th->r_th.lo) / 2 * fabs(th->power.step);
    th->start_drift = drift;
    th->start_drift_lo = drift - q * se;
    th->start_drift_hi = drift + q * se;
    (void)i;
    if (fabs(drift) > 3 * se &&
        (fabs(drift) > 0.05 * fabs(rise) || (isfinite(half) && fabs(drift) > 0.5 * half)))
        th->flags |= TB_THERMAL_NOT_AT_REST;
    rc = 0;
out:
    free(t);
    free(y);
    return rc;
}

const char *tb_thermal_flag_name(unsigned flag)
{
    switch (flag) {
    case TB_THERMAL_NOT_AT_REST: return "not_at_rest";
    case TB_THERMAL_NOT_STEP: return "power_not_step";
    case TB_THERMAL_NOT_PASSIVE: return "not_passive";
    default: return NULL;
    }
}

const char *tb_thermal_flags_text(unsigned flags, char *buf, size_t size)
{
    size_t used = 0;
    if (size > 0)
        buf[0] = '\0';
    for (unsigned bit = 1; bit <= TB_THERMAL_FLAG_LAST; bit <<= 1)
        if ((flags & bit) && used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ";" : "",
                                     tb_thermal_flag_name(bit));
    return buf;
}

/* --- Zth(t) ----------------------------------------------------------------------- */

ssize_t tb_thermal_zth(const tb_fit *fit, size_t i, const double *t, const double *y, size_t n,
                       double dp, int per_decade, tb_zth_point **points)
{
    double t0 = t[0], dur = t[n - 1] - t0;
    double first = fit->median_period > 0 ? fit->median_period : dur / (double)n;
    double start = 0;
    for (int j = 0; j < fit->order; j++)
        start += fit->series[i].k[j].value;
    start += fit->series[i].t_inf.value;   /* T(0) */
    *points = NULL;
    if (!(dur > first) || per_decade < 1)
        return 0;
    size_t nbins = (size_t)ceil(log10(dur / first) * per_decade) + 1;
    tb_zth_point *p = calloc(nbins, sizeof *p);
    if (!p)
        return -1;
    size_t k = 0, used = 0;
    double edge = first * pow(10, 0.5 / per_decade);
    double st = 0, sd = 0, sm = 0;
    size_t cnt = 0;
    for (size_t a = 0; a < n; a++) {
        double ta = t[a] - t0;
        if (ta < first * pow(10, -0.5 / per_decade))
            continue;
        while (ta > edge && k < nbins) {
            if (cnt > 0)
                p[used++] = (tb_zth_point){st / cnt, cnt, sd / cnt / dp, sm / cnt / dp};
            st = sd = sm = 0;
            cnt = 0;
            k++;
            edge = first * pow(10, ((double)k + 0.5) / per_decade);
        }
        st += ta;
        sd += y[a] - start;
        sm += tb_fit_eval(fit, i, ta) - start;
        cnt++;
    }
    if (cnt > 0 && used < nbins)
        p[used++] = (tb_zth_point){st / cnt, cnt, sd / cnt / dp, sm / cnt / dp};
    *points = p;
    return (ssize_t)used;
}

/* --- sustainable power and time to trip --------------------------------------------- */

/* The idle temperature and R_th of θ under DP. */
static void idle_and_rth(const double *th, const struct element *e, double dp, double *t_idle,
                         double *rth)
{
    *t_idle = th[0];
    for (size_t j = 0; j < e->n; j++)
        *t_idle += th[1 + j];
    *rth = g_rth(th, dp, (void *)e);
}

static double g_sustainable(const double *th, double dp, void *ctx)
{
    const struct element *e = ctx;
    double t_idle, rth;
    idle_and_rth(th, e, dp, &t_idle, &rth);
    return e->idle + (e->trip - (t_idle + e->offset)) / rth;
}

/* The rise at time X from idle under power RISE above idle. */
static double rise_at(const double *th, const struct element *e, double dp, double rise, double x)
{
    double s = 0;
    for (size_t j = 0; j < e->n; j++)
        s += stage_r(th, e, dp, j) * -expm1(-x / th[1 + e->n + j]);
    return rise * s;
}

/* The first time the temperature from idle at power e->at reaches the
 * trip point: +∞ when it never does. */
static double g_time_to_trip(const double *th, double dp, void *ctx)
{
    const struct element *e = ctx;
    double t_idle, rth, rise = e->at - e->idle;
    idle_and_rth(th, e, dp, &t_idle, &rth);
    double need = e->trip - (t_idle + e->offset);
    if (need <= 0)
        return 0;
    if (!(rise > 0) || rise * rth <= need)
        return INFINITY;
    /* ΔT(t) = rise·Σ Rᵢ(1 − e^(−t/τᵢ)); scanned on a log grid for its
     * first crossing (a term that is not passive may make it non
     * monotone), then bisected. */
    double tau_lo = INFINITY, tau_hi = 0;
    for (size_t j = 0; j < e->n; j++) {
        tau_lo = fmin(tau_lo, th[1 + e->n + j]);
        tau_hi = fmax(tau_hi, th[1 + e->n + j]);
    }
    double lo = 0, hi = NAN;
    for (int s = 0; s <= 400; s++) {
        double x = tau_lo * 1e-3 * pow(tau_hi * 1e5 / tau_lo, s / 400.0);
        if (rise_at(th, e, dp, rise, x) >= need) {
            hi = x;
            break;
        }
        lo = x;
    }
    if (isnan(hi))
        return INFINITY;
    for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (rise_at(th, e, dp, rise, mid) >= need)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

int tb_thermal_sustainable(const tb_fit *fit, size_t i, const tb_thermal *th, double trip,
                           double offset, double at_power, tb_sustainable *su,
                           char *err, size_t errlen)
{
    memset(su, 0, sizeof *su);
    if (!isfinite(th->power.idle)) {
        snprintf(err, errlen, "the sustainable power needs the idle power: a power column "
                 "with an idle part, or the idle power given");
        return -1;
    }
    if (th->flags & TB_THERMAL_NOT_PASSIVE) {
        snprintf(err, errlen, "a term of the fit rises the wrong way (not a passive network): "
                 "no sustainable power from it");
        return -1;
    }
    if (offset != 0 && !(trip > offset)) {
        snprintf(err, errlen, "the trip point %g °C is not above the ambient %g °C", trip,
                 offset);
        return -1;
    }
    struct element e = {.n = (size_t)fit->order, .offset = offset, .trip = trip,
                        .idle = th->power.idle,
                        .at = isnan(at_power) ? th->power.idle + th->power.step : at_power};
    su->trip = trip;
    su->switch_on = NAN;
    su->idle_temp = th->t_start + offset;
    su->at_power = e.at;
    tb_fit_derive(fit, i, g_sustainable, &e, th->power.step, th->power.se, 0, &su->power);
    if (tb_fit_derive(fit, i, g_time_to_trip, &e, th->power.step, th->power.se, 1,
                      &su->time_to_trip) < 0 && isinf(su->time_to_trip.value)) {
        /* never: its interval says nothing more */
        su->time_to_trip.lo = su->time_to_trip.hi = INFINITY;
    }
    return 0;
}

int tb_ipa_constants_compute(double sustainable_w, double control_c, double switch_on_c,
                             tb_ipa_constants *k)
{
    memset(k, 0, sizeof *k);
    double mw = floor(sustainable_w * 1000);
    double threshold = round(control_c * 1000) - (isnan(switch_on_c) ? 0 : round(switch_on_c * 1000));
    if (!(mw >= 1) || mw > 4e6 || !(threshold >= 1) || threshold > 4e9)
        return -1;
    uint32_t p = (uint32_t)mw, t = (uint32_t)threshold;
    k->sustainable_mw = p;
    k->k_po = (uint32_t)(((uint64_t)p << 10) / t);
    k->k_pu = (uint32_t)(((uint64_t)(2 * p) << 10) / t);
    k->k_i = k->k_pu / 10 > 0 ? k->k_pu / 10 : 1;
    return 0;
}
