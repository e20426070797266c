/*
 * report.c -- tb-fit's results as a table, CSV or JSON.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "output.h"
#include "report.h"

/* Full precision for the machine-readable formats. */
static void csv_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
}

/* The results file's row, by libtbfit's own writer. */
static int report_csv(FILE *f, const tb_analysed_column *c, int max_order)
{
    tb_result row;
    if (tb_result_from_column(c, &row) < 0)
        return -1;
    int rc = tb_results_write(f, &row, max_order);
    tb_result_clear(&row);
    return rc;
}

/* Flags as a JSON array of their names, in every JSON output alike. */
static void json_flags(FILE *f, unsigned flags)
{
    int any = 0;
    fputc('[', f);
    for (unsigned bit = 1; bit <= TB_FIT_FLAG_LAST; bit <<= 1) {
        if (flags & bit) {
            fputs(any++ ? ", " : "", f);
            tb_json_string(f, tb_fit_flag_name(bit));
        }
    }
    fputc(']', f);
}

static void json_thermal_flags(FILE *f, unsigned flags)
{
    int any = 0;
    fputc('[', f);
    for (unsigned bit = 1; bit <= TB_THERMAL_FLAG_LAST; bit <<= 1)
        if (flags & bit) {
            fputs(any++ ? ", " : "", f);
            tb_json_string(f, tb_thermal_flag_name(bit));
        }
    fputc(']', f);
}

/* ", \"KEY\": X" */
/* The network, and the sustainable power when there is one. */
static void json_thermal(FILE *f, const tb_fit_report *r)
{
    const tb_thermal *th = r->c->thermal;
    const tb_sustainable *su = r->c->sustainable;
    fputs(",\n  \"thermal\": {\"power_column\": ", f);
    tb_json_string(f, r->power);
    tb_json_field(f, "power_step_W", th->power.step);
    tb_json_field(f, "power_step_se_W", th->power.se);
    tb_json_field(f, "load_W", th->power.load);
    tb_json_field(f, "idle_W", th->power.idle);
    tb_json_field(f, "power_departure", th->power.departure);
    tb_json_field(f, "power_shape_R_th", th->power.shape_r_th);
    tb_json_field(f, "T_start", th->t_start);
    tb_json_field(f, "start_drift", th->start_drift);
    tb_json_field(f, "start_drift_lo", th->start_drift_lo);
    tb_json_field(f, "start_drift_hi", th->start_drift_hi);
    fputs(",\n   \"R_th\": ", f);
    tb_json_estimate(f, &th->r_th);
    fputs(", \"R_ja\": ", f);
    tb_json_estimate(f, &th->r_ja);
    for (int ladder = 0; ladder < 2; ladder++) {
        fputs(ladder ? ",\n   \"cauer\": [" : ",\n   \"foster\": [", f);
        for (size_t j = 0; j < th->n; j++) {
            fputs(j ? ", {\"R\": " : "{\"R\": ", f);
            tb_json_estimate(f, ladder ? &th->cauer_r[j] : &th->foster_r[j]);
            fputs(", \"C\": ", f);
            tb_json_estimate(f, ladder ? &th->cauer_c[j] : &th->foster_c[j]);
            fputc('}', f);
        }
        fputc(']', f);
    }
    fputs(",\n   \"flags\": ", f);
    json_thermal_flags(f, th->flags);
    fputc('}', f);
    if (r->c->spectrum) {
        const tb_spectrum *sp = r->c->spectrum;
        fputs(",\n  \"spectrum\": {\"lambda\": ", f);
        tb_json_number(f, sp->lambda);
        tb_json_field(f, "R_total", sp->r_total);
        tb_json_field(f, "resolved_lo_s", sp->resolved_lo);
        tb_json_field(f, "resolved_hi_s", sp->resolved_hi);
        fputs(", \"peaks\": [", f);
        for (size_t k = 0; k < sp->npeaks; k++) {
            fputs(k ? ", {\"tau\": " : "{\"tau\": ", f);
            tb_json_number(f, sp->peak_tau[k]);
            tb_json_field(f, "R", sp->peak_r[k]);
            fputc('}', f);
        }
        fprintf(f, "], \"unresolved\": %s, \"ladder_inexact\": %s}",
                sp->flags & TB_SPECTRUM_UNRESOLVED ? "true" : "false",
                sp->flags & TB_SPECTRUM_LADDER_INEXACT ? "true" : "false");
    }
    if (!su)
        return;
    fputs(",\n  \"sustainable\": {\"trip\": ", f);
    tb_json_number(f, su->trip);
    tb_json_field(f, "idle_temp", su->idle_temp);
    fputs(", \"power_W\": ", f);
    tb_json_estimate(f, &su->power);
    tb_json_field(f, "at_power_W", su->at_power);
    tb_json_field(f, "switch_on", su->switch_on);
    fputs(", \"time_to_trip_s\": ", f);
    tb_json_estimate(f, &su->time_to_trip);
    tb_ipa_constants k;
    if (tb_ipa_constants_compute(su->power.value, su->trip, su->switch_on, &k) == 0)
        fprintf(f, ", \"sustainable_power_mW\": %u, \"k_po\": %u, \"k_pu\": %u, \"k_i\": %u",
                k.sustainable_mw, k.k_po, k.k_pu, k.k_i);
    fputc('}', f);
}

/* How the run did under its limits, when it has some (a trip, a cooling
 * device): the peak, the time above the limit, the throttled share and
 * the work rate once warm. */
static void text_limits(FILE *f, const tb_analysed_column *c)
{
    tb_result m;
    tb_result_measured(c, &m);
    if (!isfinite(m.limit) && !isfinite(m.throttled_share))
        return;
    fputs("  under its limits:", f);
    if (isfinite(m.peak))
        fprintf(f, " peak %.1f °C", m.peak);
    if (isfinite(m.limit))
        fprintf(f, ", %.1f s above %g °C", m.above_limit_s, m.limit);
    if (isfinite(m.throttled_share))
        fprintf(f, ", throttled %.0f %% of the time", 100 * m.throttled_share);
    tb_estimate_text e;
    const tb_estimate *o = &m.ops_sustained;
    if (isfinite(o->value) &&
        tb_format_estimate(&e, o->value, o->lo, o->hi, tb_interval_decimals(o->value, o->lo, o->hi, 2), 0))
        fprintf(f, "; work rate %s [%s, %s] operations/s over the last third", e.value, e.lo, e.hi);
    fputc('\n', f);
}

/* The measured fields of C (tb_result_measured()) as JSON members. */
static void json_measured(FILE *f, const tb_analysed_column *c)
{
    tb_result m;
    tb_result_measured(c, &m);
    tb_json_field(f, "peak", m.peak);
    tb_json_field(f, "mean", m.mean);
    tb_json_field(f, "limit", m.limit);
    tb_json_field(f, "above_limit_s", m.above_limit_s);
    tb_json_field(f, "throttled_share", m.throttled_share);
    tb_json_field(f, "ops_sustained_per_s", m.ops_sustained.value);
    tb_json_field(f, "ops_sustained_lo_per_s", m.ops_sustained.lo);
    tb_json_field(f, "ops_sustained_hi_per_s", m.ops_sustained.hi);
    tb_json_field(f, "energy_j", m.energy_j);
    tb_json_field(f, "ops_per_j", m.ops_per_j);
}

/* The start of a column's JSON object: which file, column and part. */
static void json_head(FILE *f, const tb_analysed_column *c, int first)
{
    fputs(first ? " {" : ",\n {", f);
    fputs("\"file\": ", f);
    tb_json_string(f, c->source);
    fputs(", \"column\": ", f);
    tb_json_string(f, c->column->name);
    fputs(", \"part\": ", f);
    tb_json_string(f, c->part);
}

static void report_json(FILE *f, const tb_fit_report *r, int first)
{
    const tb_analysed_column *c = r->c;
    const tb_fit *fit = c->fit;
    const tb_fit_series *s = &fit->series[c->series];

    json_head(f, c, first);
    fputs(", \"status\": \"ok\", \"unit\": ", f);
    tb_json_string(f, c->column->unit ? c->column->unit : "");
    fprintf(f, ", \"order\": %d, \"points\": %zu, \"duration_s\": ", fit->order, s->n);
    tb_json_number(f, s->duration);
    fputs(", \"rss\": ", f);
    tb_json_number(f, fit->rss);
    fputs(", \"rmse\": ", f);
    tb_json_number(f, fit->rmse);
    fprintf(f, ", \"startup_samples\": %zu, \"dof\": %zu, \"level\": ", c->startup, fit->dof);
    tb_json_number(f, r->level);
    fputs(", \"ci\": ", f);
    tb_json_string(f, tb_ci_method_name(fit->ci));
    fprintf(f, ", \"ci_lags\": %zu, \"ci_failed\": %zu", fit->ci_lags, fit->ci_failed);
    fputs(", \"ambient\": ", f);
    tb_json_string(f, r->ambient);
    fputs(",\n  \"T_inf\": ", f);
    tb_json_estimate(f, &s->t_inf);
    fputs(",\n  \"terms\": [", f);
    for (int j = 0; j < fit->order; j++) {
        fputs(j ? ",\n   {" : "\n   {", f);
        fputs("\"label\": ", f);
        tb_json_string(f, r->labels ? r->labels[j] : NULL);
        fputs(", \"k\": ", f);
        tb_json_estimate(f, &s->k[j]);
        fputs(", \"tau\": ", f);
        tb_json_estimate(f, &fit->tau[j]);
        fputc('}', f);
    }
    fputs("],\n  \"settle_s\": ", f);
    tb_json_number(f, c->settle);
    fputs(", \"tolerance\": ", f);
    tb_json_number(f, r->tolerance);
    fputs(", \"ops_per_s\": ", f);
    tb_json_number(f, c->ops_per_s);
    fputs(", \"ops_lo_per_s\": ", f);
    tb_json_number(f, c->ops.lo);
    fputs(", \"ops_hi_per_s\": ", f);
    tb_json_number(f, c->ops.hi);
    json_measured(f, c);
    fputs(", \"throttled_since_s\": ", f);
    tb_json_number(f, c->throttled_since);
    fputs(", \"throttled_by\": ", f);
    tb_json_string(f, isfinite(c->throttled_since) ? c->throttled_by : NULL);
    fputs(", \"remaining\": ", f);
    tb_json_number(f, s->remaining);
    fputs(", \"next_order_T_inf\": ", f);
    tb_json_number(f, s->order_t_inf);
    fputs(", \"misfit\": ", f);
    tb_json_number(f, s->misfit);
    fputs(", \"misfit_from_s\": ", f);
    tb_json_number(f, s->misfit_from);
    fputs(", \"misfit_to_s\": ", f);
    tb_json_number(f, s->misfit_to);
    fputs(", \"flags\": ", f);
    json_flags(f, fit->flags);
    if (c->thermal)
        json_thermal(f, r);
    fputc('}', f);
}

/* "52.68 [52.62, 52.73]": decimals from the interval (tb_interval_decimals) */
static void text_estimate(FILE *f, const tb_estimate *e, int digits)
{
    tb_estimate_text t;
    digits = tb_interval_decimals(e->value, e->lo, e->hi, digits);
    if (tb_format_estimate(&t, e->value, e->lo, e->hi, digits, 0))
        fprintf(f, "%s [%s, %s]", t.value, t.lo, t.hi);
    else
        fprintf(f, "%s [interval unknown]", t.value);
}

/* E with UNIT, as text_estimate() writes it, or "not determined" where
 * its interval is wider than WIDEST: digits of such an interval
 * ([-3.61e+09, 3.61e+09] °C) mean nothing; so are those of a LEVEL (a
 * T∞, not above an ambient) beyond the possible.  0 when not determined. */
static int text_fit_estimate(FILE *f, const tb_estimate *e, int digits, double widest,
                             const char *unit, int level)
{
    /* beyond the possible: below absolute zero, a negative frequency */
    size_t len = strlen(unit);
    int frequency = len >= 2 && strcmp(unit + len - 2, "Hz") == 0;
    int impossible = level && ((strcmp(unit, "°C") == 0 && e->value < -273.15) ||
                               (frequency && e->lo < 0));
    if ((!tb_estimate_determined(e, widest) && isfinite(e->lo)) || impossible) {
        fputs("not determined", f);
        return 0;
    }
    text_estimate(f, e, digits);
    fprintf(f, "%s%s", *unit ? " " : "", unit);
    return 1;
}

static void report_text(FILE *f, const tb_fit_report *r)
{
    const tb_analysed_column *c = r->c;
    const tb_fit *fit = c->fit;
    const tb_fit_series *s = &fit->series[c->series];
    /* a column in other units (a frequency, a power) is fitted all the
     * same, and told in the unit a person reads (MHz, not 1.2e+09 Hz) */
    double u;
    const char *unit = tb_display_unit(c->column->unit, fabs(s->t_inf.value), &u);
    const char *sep = *unit ? " " : "";
    /* the widest interval that still says something: 100 times the data's
     * span (and of τ the run's duration) */
    double widest = TB_WIDEST_SPANS * tb_values_span(c->y, c->n) * u;
    double widest_tau = TB_WIDEST_SPANS * s->duration;
    tb_estimate t_inf = {s->t_inf.value * u, s->t_inf.lo * u, s->t_inf.hi * u}, k[TB_FIT_MAX_ORDER];
    for (int j = 0; j < fit->order; j++)
        k[j] = (tb_estimate){s->k[j].value * u, s->k[j].lo * u, s->k[j].hi * u};

    fprintf(f, "%s: %s%s%s%s: order %d, %zu points over %.1f s%s%s", c->source, c->column->name,
            c->part ? " (" : "", c->part ? c->part : "", c->part ? ")" : "", fit->order, s->n,
            s->duration, r->ambient ? ", minus " : "", r->ambient ? r->ambient : "");
    if (c->startup)
        fprintf(f, " (%zu start-up sample%s left out)", c->startup, c->startup == 1 ? "" : "s");
    fputc('\n', f);
    fprintf(f, "  T∞   ");
    text_fit_estimate(f, &t_inf, 2, widest, unit, !r->ambient);
    fprintf(f, "%s (%g %% interval, ", r->ambient ? " above ambient" : "", r->level * 100);
    if (fit->ci == TB_CI_HAC)
        fprintf(f, "hac over %zu lag%s)\n", fit->ci_lags, fit->ci_lags == 1 ? "" : "s");
    else if (fit->ci == TB_CI_BOOTSTRAP)
        fprintf(f, "bootstrap, blocks of %zu points%s)\n", fit->ci_lags,
                fit->ci_failed ? "; some resamples failed" : "");
    else
        fputs("covariance)\n", f);
    if (fit->ci == TB_CI_BOOTSTRAP && fit->ci_failed)
        fprintf(f, "  %zu bootstrap resamples could not be refitted and are left out\n",
                fit->ci_failed);
    for (int j = 0; j < fit->order; j++) {
        fprintf(f, "  τ%d   ", j + 1);
        text_fit_estimate(f, &fit->tau[j], 1, widest_tau, "s", 0);
        fprintf(f, "   k%d ", j + 1);
        text_fit_estimate(f, &k[j], 2, widest, unit, 0);
        if (r->labels && r->labels[j])
            fprintf(f, "   %s", r->labels[j]);
        fputc('\n', f);
    }
    fprintf(f, "  rmse %.4f%s%s, rss %.6g%s%s%s (%zu degrees of freedom)\n", fit->rmse * u, sep,
            unit, fit->rss * u * u, sep, unit, *unit ? "²" : "", fit->dof);
    if (isfinite(c->settle) && !(fit->flags & TB_FIT_DEGENERATE))
        fprintf(f, "  settles within %g%s%s of T∞ after %.0f s (%.1f min)\n",
                r->tolerance * u, sep, unit, c->settle, c->settle / 60);
    tb_estimate_text ops;
    if (c->ops.hi - c->ops.lo <= 1e-9 * fabs(c->ops.value))   /* a counter as steady as a clock */
        fprintf(f, "  work rate %.6g operations/s, the same in every tenth of the run\n",
                c->ops.value);
    else if (isfinite(c->ops.value) &&
        tb_format_estimate(&ops, c->ops.value, c->ops.lo, c->ops.hi,
                           tb_interval_decimals(c->ops.value, c->ops.lo, c->ops.hi, 2), 0))
        fprintf(f, "  work rate %s [%s, %s] operations/s\n", ops.value, ops.lo, ops.hi);
    else if (isfinite(c->ops_per_s))
        fprintf(f, "  work rate %.6g operations/s\n", c->ops_per_s);
    text_limits(f, c);
    if (fit->flags) {
        fputs("  FLAGGED:", f);
        for (unsigned bit = 1; bit <= TB_FIT_FLAG_LAST; bit <<= 1)
            if (fit->flags & bit)
                fprintf(f, " %s", tb_fit_flag_name(bit));
        if (isfinite(c->throttled_since))
            fprintf(f, " (%s changed from %.0f s)", c->throttled_by, c->throttled_since);
        fputc('\n', f);
        if (!(fit->flags & (TB_FIT_TAU_MERGED | TB_FIT_K_HUGE | TB_FIT_TAU_AT_BOUND |
                            TB_FIT_K_SPANS_ZERO)))
            ;
        else if (r->auto_order)
            fputs("  every order is flagged: the data may not show an exponential approach "
                  "(try a longer run or a --from/--to window)\n", f);
        else
            fputs("  the data do not resolve this many terms: try a lower --order, "
                  "--order auto, or a longer run\n", f);
        if (fit->flags & TB_FIT_EXTRAPOLATED) {
            fprintf(f, "  T∞ is an extrapolation: the fitted curve ends %.2f%s%s %s it", 
                    fabs(s->remaining) * u, sep, unit, s->remaining > 0 ? "below" : "above");
            if (isfinite(s->order_t_inf) && !(fabs(s->order_t_inf - s->t_inf.value) < 1e-9))
                fprintf(f, ", and %d terms put it at %.2f%s%s (the interval holds both)",
                        fit->order + 1, s->order_t_inf * u, sep, unit);
            fputs("; a longer run measures it\n", f);
        }
        if ((fit->flags & TB_FIT_LACK_OF_FIT) && isfinite(s->misfit))
            fprintf(f, "  lack of fit: the data depart from the model by %+.2f%s%s on average "
                    "from %.0f to %.0f s of the fit (a power step, throttling or drift?)\n",
                    s->misfit * u, sep, unit, s->misfit_from, s->misfit_to);
    }
}

/* "1.234 [1.200, 1.270]" with three significant digits or more. */
static void text_quantity(FILE *f, const tb_estimate *e)
{
    double a = fabs(e->value), half = (e->hi - e->lo) / 2;
    int digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
    /* an interval narrower than the digits shows two of its own */
    if (half > 0 && isfinite(half))
        while (digits < 6 && half < 2 * pow(10, -digits))
            digits++;
    text_estimate(f, e, digits);
}

/* A network's N stages under TITLE, "    R1 ... C1 ..." a line, each with
 * its label when LABELS (NULL: none) has one. */
static void text_stages(FILE *f, const char *title, const tb_estimate *r, const tb_estimate *c,
                        size_t n, const char *const *labels)
{
    fprintf(f, "  %s:\n", title);
    for (size_t j = 0; j < n; j++) {
        fprintf(f, "    R%zu ", j + 1);
        text_quantity(f, &r[j]);
        fprintf(f, "   C%zu ", j + 1);
        text_quantity(f, &c[j]);
        if (labels && labels[j])
            fprintf(f, "   %s", labels[j]);
        fputc('\n', f);
    }
}

/* "  power step 5 W ± 0.001 from power/W: load 6 W less idle 1 W" */
static void text_power_step(FILE *f, const tb_fit_report *r, const tb_thermal *th)
{
    if (th->power.step < 0) {   /* a cooling curve */
        fprintf(f, "  power step down %.4g W", -th->power.step);
        if (th->power.se > 0)
            fprintf(f, " ± %.2g", th->power.se);
        fputs(" at the load's end: the heating part's step\n", f);
        return;
    }
    fprintf(f, "  power step %.4g W", th->power.step);
    if (th->power.se > 0)
        fprintf(f, " ± %.2g", th->power.se);
    if (r->power)
        fprintf(f, " from %s: load %.4g W less idle %.4g W", r->power, th->power.load,
                th->power.idle);
    else if (isfinite(th->power.idle))
        fprintf(f, " (given), idle %.4g W", th->power.idle);
    else
        fputs(" (given)", f);
    fputc('\n', f);
}

/* The names of TH's stages: the fit's terms' when it has as many (the
 * network of a step response may have fewer: a departure of the power
 * needed a term of the run's fit), else by each stage's τ = RC. */
static const char *const *stage_labels(const tb_fit_report *r, const tb_thermal *th,
                                       const char *labels[TB_FIT_MAX_ORDER])
{
    if ((int)th->n == r->c->fit->order)
        return r->labels;
    for (size_t j = 0; j < TB_FIT_MAX_ORDER; j++) {
        double tau = j < th->n ? th->foster_r[j].value * th->foster_c[j].value : NAN;
        labels[j] = !(th->foster_r[j].lo > 0) ? NULL
                    : tau < TB_TERM_HEAT_SINK_MAX ? "heat sink"
                    : tau <= TB_TERM_BOARD_MAX   ? "board"
                                                 : "testbed";
    }
    return labels;
}

/* How far the power's departure from a clean step moved R_th, when it
 * moved it by a quarter of its interval or more. */
static void text_power_shape(FILE *f, const tb_thermal *th)
{
    double half = (th->r_th.hi - th->r_th.lo) / 2;
    if (th->power.shape_r_th != 0 && !(fabs(th->power.shape_r_th) < 0.25 * half))
        fprintf(f, "  (from the step response: the power's departure from a clean step "
                "moved R_th by %+.3g K/W)\n",
                th->power.shape_r_th);
}

static void text_thermal(FILE *f, const tb_fit_report *r)
{
    const char *labels[TB_FIT_MAX_ORDER];
    const tb_analysed_column *c = r->c;
    const tb_thermal *th = c->thermal;
    const tb_sustainable *su = c->sustainable;
    const char *unit = r->ambient ? " above ambient" : "";

    text_power_step(f, r, th);
    if (isnan(th->start_drift) && th->power.step > 0)
        fputs("  (assumes the board at rest when the load started: no idle part before it "
              "to check)\n", f);
    fputs("  R_th ", f);
    text_quantity(f, &th->r_th);
    if (th->power.step < 0)
        fprintf(f, " K/W   (Σ Rᵢ, each read for a load of %.0f s before the cooling)\n",
                th->power.held);
    else
        fprintf(f, " K/W   ((T∞ − T(0)) over the step; T(0) %.2f °C%s)\n", th->t_start, unit);
    text_power_shape(f, th);
    if (isfinite(th->r_ja.value)) {
        fputs("  R_ja ", f);
        text_quantity(f, &th->r_ja);
        fputs(" K/W   (T∞ above ambient over the load's power)\n", f);
    }
    text_stages(f, "Foster network (R K/W, C J/K)", th->foster_r, th->foster_c, th->n,
                stage_labels(r, th, labels));
    if (isfinite(th->cauer_r[0].value))
        text_stages(f, "Cauer ladder from the heat source down (R K/W, C J/K)", th->cauer_r,
                    th->cauer_c, th->n, NULL);
    if (c->spectrum) {
        const tb_spectrum *sp = c->spectrum;
        fprintf(f, "  time-constant spectrum (λ %.3g), ΣR %.3g K/W:", sp->lambda, sp->r_total);
        for (size_t k = 0; k < sp->npeaks; k++)
            fprintf(f, "%s %.3g K/W near %.*f s", k ? "," : "", sp->peak_r[k],
                    sp->peak_tau[k] >= 100 ? 0 : 1, sp->peak_tau[k]);
        fprintf(f, "\n  (the run resolves τ from %.3g to %.0f s)\n", sp->resolved_lo, sp->resolved_hi);
        if (sp->flags & TB_SPECTRUM_UNRESOLVED)
            fputs("  FLAGGED (spectrum): unresolved: over 5 % of ΣR lies at τ the run does not "
                  "resolve\n", f);
        if (sp->flags & TB_SPECTRUM_LADDER_INEXACT)
            fputs("  FLAGGED (spectrum): ladder_inexact: the structure function's ΣR is off the "
                  "spectrum's by over 1 %\n", f);
    }
    if (su) {
        fprintf(f, "  sustainable power below %g °C", su->trip);
        if (r->ambient)
            fprintf(f, " at %g °C ambient", su->idle_temp - th->t_start);
        fputs(": ", f);
        text_quantity(f, &su->power);
        fprintf(f, " W (idle at %.1f °C)\n", su->idle_temp);
        fprintf(f, "  time to %g °C from idle at %.3g W: ", su->trip, su->at_power);
        if (isinf(su->time_to_trip.value))
            fputs("never (its steady state is below the trip point)\n", f);
        else {
            text_quantity(f, &su->time_to_trip);
            fputs(" s\n", f);
        }
        tb_ipa_constants k;
        char switch_on[32] = "none";
        if (!isnan(su->switch_on))
            snprintf(switch_on, sizeof switch_on, "%g °C", su->switch_on);
        if (tb_ipa_constants_compute(su->power.value, su->trip, su->switch_on, &k) == 0)
            fprintf(f, "  device tree: sustainable-power = <%u>; (mW; the power-allocator governor "
                    "derives k_po %u, k_pu %u, k_i %u with control %g °C, switch-on %s)\n",
                    k.sustainable_mw, k.k_po, k.k_pu, k.k_i, su->trip, switch_on);
    }
    if (th->flags) {
        char buf[128];
        fprintf(f, "  FLAGGED (network): %s\n",
                tb_thermal_flags_text(th->flags, buf, sizeof buf));
        if (th->flags & TB_THERMAL_NOT_STEP)
            fprintf(f, "  the power departs by %.0f %% of the step during the load: the network "
                    "is read from the response to it a linear network gives, which a power "
                    "changed by throttling may not follow\n", 100 * th->power.departure);
        if (th->flags & TB_THERMAL_NOT_PASSIVE)
            fputs("  a term rises the wrong way: no passive network has it (try a lower --order)\n", f);
        if (th->flags & TB_THERMAL_NOT_AT_REST)
            fprintf(f, "  the %s was still moving when the load started (%+.2f [%+.2f, %+.2f] °C "
                    "over the slowest τ): the network assumes a board at rest; a longer idle part "
                    "(or cool-down) before the load fixes it\n",
                    r->ambient ? "rise over the ambient" : "temperature", th->start_drift,
                    th->start_drift_lo, th->start_drift_hi);
    }
}

/* A fit that failed, in JSON: what and why, so that a dashboard can tell
 * "failed" from "absent". */
static void report_json_failed(FILE *f, const tb_fit_report *r, int first)
{
    const tb_analysed_column *c = r->c;
    json_head(f, c, first);
    fputs(", \"status\": \"failed\", \"error\": ", f);
    tb_json_string(f, c->error ? c->error : "the fit failed");
    fputc('}', f);
}

int tb_report_fit(FILE *f, enum tb_format format, const tb_fit_report *r,
                  int max_order, int first)
{
    if (!r->c->fit) {   /* the text report leaves it to the error message */
        if (format == TB_FORMAT_CSV)
            return report_csv(f, r->c, max_order);
        if (format == TB_FORMAT_JSON)
            report_json_failed(f, r, first);
        return ferror(f) ? -1 : 0;
    }
    switch (format) {
    case TB_FORMAT_CSV: return report_csv(f, r->c, max_order);
    case TB_FORMAT_JSON: report_json(f, r, first); break;
    case TB_FORMAT_TEXT:
        report_text(f, r);
        if (r->c->thermal)
            text_thermal(f, r);
        break;
    }
    return ferror(f) ? -1 : 0;
}

void tb_report_run_length_csv_header(FILE *f)
{
    fputs("file,column,length_s,points,T_inf,T_inf_lo,T_inf_hi,within,flags\n", f);
}

static void run_length_csv(FILE *f, const char *file, const char *column, const tb_run_length *rl)
{
    char flags[256];
    for (size_t k = 0; k < rl->nprefix; k++) {
        const tb_prefix *p = &rl->prefix[k];
        tb_csv_write_string(f, file);
        fputc(',', f);
        tb_csv_write_string(f, column);
        fputc(',', f);
        csv_number(f, p->length);
        fprintf(f, ",%zu,", p->n);
        csv_number(f, p->t_inf.value);
        fputc(',', f);
        csv_number(f, p->t_inf.lo);
        fputc(',', f);
        csv_number(f, p->t_inf.hi);
        fprintf(f, ",%d,", p->within);
        tb_csv_write_string(f, p->ok ? tb_fit_flags_text(p->flags, flags, sizeof flags) : "failed");
        fputc('\n', f);
    }
}

static void run_length_json(FILE *f, const char *file, const char *column, const tb_run_length *rl,
                            double tolerance, double level, int first)
{
    fputs(first ? " {" : ",\n {", f);
    fputs("\"file\": ", f);
    tb_json_string(f, file);
    fputs(", \"column\": ", f);
    tb_json_string(f, column);
    fputs(", \"tolerance\": ", f);
    tb_json_number(f, tolerance);
    fputs(", \"level\": ", f);
    tb_json_number(f, level);
    fputs(", \"T_inf\": ", f);
    tb_json_estimate(f, &rl->t_inf);
    fputs(", \"settle_s\": ", f);
    tb_json_number(f, rl->settle);
    fputs(", \"run_length_s\": ", f);
    tb_json_number(f, rl->shortest);
    fputs(",\n  \"prefixes\": [", f);
    for (size_t k = 0; k < rl->nprefix; k++) {
        const tb_prefix *p = &rl->prefix[k];
        fputs(k ? ",\n   {" : "\n   {", f);
        fputs("\"length_s\": ", f);
        tb_json_number(f, p->length);
        fprintf(f, ", \"points\": %zu, \"ok\": %s, \"T_inf\": ", p->n, p->ok ? "true" : "false");
        tb_json_estimate(f, &p->t_inf);
        fprintf(f, ", \"within\": %s, \"flags\": ", p->within ? "true" : "false");
        json_flags(f, p->flags);
        fputc('}', f);
    }
    fputs("]}", f);
}

/* The text report's last lines: the full run's T∞, and the shortest run
 * or why there is none. */
static void run_length_verdict(FILE *f, const tb_run_length *rl, double tolerance, int d)
{
    char flags[256];
    char full[48];
    tb_format_number(full, sizeof full, rl->t_inf.value, d, 0);
    fprintf(f, "  full run: T∞ %s °C; the fitted curve settles within %g °C after %.0f s\n",
            full, tolerance, rl->settle);
    double whole = rl->nprefix ? rl->prefix[rl->nprefix - 1].length : NAN;
    if (isfinite(rl->shortest) && rl->shortest >= whole * (1 - 1e-9))
        /* only the whole run holds: it says nothing of a shorter one, and
         * a longer one was not tried */
        fprintf(f, "  shortest run: the whole run (%.0f s): no shorter prefix keeps T∞ within ±%g °C; "
                   "a longer run would tell how long one must be\n", whole, tolerance);
    else if (isfinite(rl->shortest))
        fprintf(f, "  shortest run: %.0f s (%.1f min): from there on T∞'s interval stays within "
                   "±%g °C of the full run's T∞\n", rl->shortest, rl->shortest / 60, tolerance);
    else if (rl->t_inf.lo < rl->t_inf.value - tolerance || rl->t_inf.hi > rl->t_inf.value + tolerance)
        fprintf(f, "  shortest run: not found: even the whole run's T∞ interval is wider than "
                   "±%g °C: a longer run, or a wider --tolerance\n", tolerance);
    else if (rl->full_flags & TB_FIT_DEGENERATE)
        fprintf(f, "  shortest run: not found: the whole run's own fit is flagged (%s): "
                   "try a lower --order\n",
                tb_fit_flags_text(rl->full_flags & TB_FIT_DEGENERATE, flags, sizeof flags));
    else
        fprintf(f, "  shortest run: not found: even the whole run's last prefixes differ by "
                   "more than %g °C or are flagged\n", tolerance);
}

void tb_report_run_length(FILE *f, enum tb_format format, const char *file,
                          const char *column, const tb_run_length *rl,
                          double tolerance, double level, int first)
{
    char flags[256];

    if (format == TB_FORMAT_CSV) {
        run_length_csv(f, file, column, rl);
        return;
    }
    if (format == TB_FORMAT_JSON) {
        run_length_json(f, file, column, rl, tolerance, level, first);
        return;
    }
    fprintf(f, "%s: %s: run length for T∞ within ±%g °C\n", file, column, tolerance);
    /* one column of decimals, those the full run's interval carries */
    int d = tb_interval_decimals(rl->t_inf.value, rl->t_inf.lo, rl->t_inf.hi, 2);
    fputs("  ", f);
    tb_print_right(f, "length/s", 9);
    fputs(" ", f);
    tb_print_right(f, "points", 7);
    fputs(" ", f);
    tb_print_right(f, "T∞/°C", 9);
    fputs(" ", f);
    tb_print_right(f, "interval", 25);
    fputc('\n', f);
    for (size_t k = 0; k < rl->nprefix; k++) {
        const tb_prefix *p = &rl->prefix[k];
        if (!p->ok) {
            fprintf(f, "  %9.0f %7zu %9s %25s  fit failed\n", p->length, p->n, "-", "");
            continue;
        }
        tb_estimate_text e;
        char ci[128] = "[interval unknown]";
        if (tb_format_estimate(&e, p->t_inf.value, p->t_inf.lo, p->t_inf.hi, d, 0))
            snprintf(ci, sizeof ci, "[%s, %s]", e.lo, e.hi);
        fprintf(f, "  %9.0f %7zu %9s %25s  %s %s\n", p->length, p->n, e.value, ci,
                p->within ? "within" : "      ", tb_fit_flags_text(p->flags, flags, sizeof flags));
    }
    run_length_verdict(f, rl, tolerance, d);
}
