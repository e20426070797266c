/*
 * report_ci.c -- tb-fit's results as tests for the CI formats
 * (ci_report.h): per fitted column, T∞ (with a verdict against a limit
 * where one is given), each τ, and with a power R_th and the sustainable
 * power.  A number of a flagged or failed fit cannot be trusted: its tests
 * are errors, never passes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "report.h"

/* "NAME [LO, HI] UNIT" with the report's decimals into BUF. */
static void estimate_words(char *buf, size_t size, const char *name, const tb_estimate *e,
                           const char *unit)
{
    tb_estimate_text t;
    int d = tb_interval_decimals(e->value, e->lo, e->hi, 2);
    if (tb_format_estimate(&t, e->value, e->lo, e->hi, d, 0))
        snprintf(buf, size, "%s %s [%s, %s] %s", name, t.value, t.lo, t.hi, unit);
    else
        snprintf(buf, size, "%s %s %s (interval not known)", name, t.value, unit);
}

/* What the tests of one column share. */
struct column_tests {
    tb_ci_list *l;
    const tb_fit_report *r;
    char column[512];
    char flags[256];          /* the fit's flags in words, or "" */
    const char *note;         /* what the numbers assume, or NULL */
    const char *compatible;
};

/* Add the test of quantity METRIC (KEY in paths) of estimate E. */
static int add_estimate(struct column_tests *ct, const char *metric, const char *key,
                        const char *unit, const tb_estimate *e, const char *words,
                        enum tb_ci_status status, const char *reason, const char *label,
                        double limit)
{
    const tb_fit *fit = ct->r->c->fit;
    const tb_fit_series *s = &fit->series[ct->r->c->series];
    char summary[768];
    estimate_words(summary, sizeof summary, words, e, unit);
    size_t used = strlen(summary);
    snprintf(summary + used, sizeof summary - used, ", %d term%s, %.0f s of data%s%s%s%s%s%s",
             fit->order, fit->order == 1 ? "" : "s", s->duration, *ct->flags ? "; flagged: " : "",
             ct->flags, ct->note ? "; " : "", ct->note ? ct->note : "",
             reason && status == TB_CI_FAIL ? "; " : "", reason && status == TB_CI_FAIL ? reason : "");
    tb_ci_test t = {
        .group = ct->r->c->source, .column = ct->column, .metric = metric, .key = key,
        .unit = unit, .value = e->value, .status = status, .reason = reason,
        .summary = summary, .compatible = ct->compatible,
    };
    size_t n = 0;
    t.property[n++] = (tb_ci_property){"lo", e->lo, NULL};
    t.property[n++] = (tb_ci_property){"hi", e->hi, NULL};
    t.property[n++] = (tb_ci_property){"level", ct->r->level, NULL};
    t.property[n++] = (tb_ci_property){"order", fit->order, NULL};
    t.property[n++] = (tb_ci_property){"duration_s", s->duration, NULL};
    if (*ct->flags)
        t.property[n++] = (tb_ci_property){"flags", NAN, ct->flags};
    if (ct->note)
        t.property[n++] = (tb_ci_property){"note", NAN, ct->note};
    if (label)
        t.property[n++] = (tb_ci_property){"label", NAN, label};
    if (isfinite(limit))
        t.property[n++] = (tb_ci_property){"limit", limit, NULL};
    t.nproperties = n;
    return tb_ci_list_add(ct->l, &t);
}

/* T∞'s verdict against LIMIT: a pass needs its whole interval below. */
static enum tb_ci_status limit_verdict(const tb_estimate *e, double limit, const char **reason)
{
    if (!isfinite(limit))
        return TB_CI_DONE;
    if (e->hi < limit)
        return TB_CI_PASS;
    *reason = e->lo >= limit ? "above the limit" : "not shown below the limit";
    return TB_CI_FAIL;
}

/* A column whose fit failed: one error, T∞ not known. */
static int add_failed(struct column_tests *ct)
{
    char summary[768];
    snprintf(summary, sizeof summary, "the fit failed: %s",
             ct->r->c->error ? ct->r->c->error : "no fit");
    tb_ci_test t = {
        .group = ct->r->c->source, .column = ct->column, .metric = "T_inf", .key = "tinf",
        .unit = "°C", .value = NAN, .status = TB_CI_ERROR, .reason = "fit failed",
        .summary = summary, .compatible = ct->compatible,
    };
    return tb_ci_list_add(ct->l, &t);
}

/* The network's and the trip's quantities, where known: errors too where
 * the network is flagged (not a step, not passive, not at rest), as the
 * numbers rest on it; where no idle part could show the board at rest,
 * said in the words. */
static int add_thermal(struct column_tests *ct, enum tb_ci_status status, const char *reason)
{
    const tb_analysed_column *c = ct->r->c;
    if (!c->thermal)
        return 0;
    struct column_tests th = *ct;
    if (c->thermal->flags) {
        char tf[128];
        tb_thermal_flags_text(c->thermal->flags, tf, sizeof tf);
        size_t used = strlen(th.flags);   /* the fit's flags, then the network's */
        snprintf(th.flags + used, sizeof th.flags - used, "%s%s", used ? ";" : "", tf);
        status = TB_CI_ERROR;
        reason = "flagged";
    } else if (isnan(c->thermal->start_drift) && c->thermal->power.step > 0) {
        th.note = "assumes the board at rest when the load started: no idle part before it to check";
    }
    int rc = add_estimate(&th, "R_th", "rth", "K/W", &c->thermal->r_th, "R_th", status, reason,
                          NULL, NAN);
    if (c->sustainable) {
        rc |= add_estimate(&th, "P_sustainable", "power_sustainable", "W", &c->sustainable->power,
                           "sustainable power", status, reason, NULL, NAN);
        if (isfinite(c->sustainable->time_to_trip.value))
            rc |= add_estimate(&th, "time_to_trip", "time_to_trip", "s",
                               &c->sustainable->time_to_trip, "time to trip", status, reason, NULL,
                               NAN);
    }
    return rc;
}

int tb_report_fit_ci(tb_ci_list *l, const tb_fit_report *r, double limit)
{
    const tb_analysed_column *c = r->c;
    struct column_tests ct = {.l = l, .r = r, .compatible = tb_run_meta(c->run, "compatible")};
    snprintf(ct.column, sizeof ct.column, "%s%s%s", c->column->name, c->part ? "." : "",
             c->part ? c->part : "");
    if (!c->fit)
        return add_failed(&ct);
    if (c->fit->flags)
        tb_fit_flags_text(c->fit->flags, ct.flags, sizeof ct.flags);
    /* a flagged fit's numbers may be wrong: errors, whatever the limit */
    enum tb_ci_status flagged = c->fit->flags ? TB_CI_ERROR : TB_CI_DONE;
    const char *why = c->fit->flags ? "flagged" : NULL;
    const tb_estimate *tinf = &c->fit->series[c->series].t_inf;
    const char *reason = why;
    enum tb_ci_status st = flagged ? flagged : limit_verdict(tinf, limit, &reason);
    int rc = add_estimate(&ct, "T_inf", "tinf", "°C", tinf, "T∞", st, reason, NULL, limit);
    for (int i = 0; i < c->fit->order; i++) {
        char metric[16], words[16];
        snprintf(metric, sizeof metric, "tau%d", i + 1);
        snprintf(words, sizeof words, "τ%d", i + 1);
        rc |= add_estimate(&ct, metric, metric, "s", &c->fit->tau[i], words, flagged, why,
                           r->labels ? r->labels[i] : NULL, NAN);
    }
    return rc | add_thermal(&ct, flagged, why);
}
