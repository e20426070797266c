/*
 * schedule.c -- an identified model driven forward: its exact step under
 * held inputs, the sensors it gives, schedules of repeating windows (a
 * time-partitioned system's major frame) and the periodic steady state
 * under one, solved directly rather than simulated until it settles.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tbfit.h"

/* Points evaluated inside each window for the peak: a window's sensors
 * move by sums of exponentials, which between samples this close cannot
 * rise by more than a sliver of the window's swing. */
#define PEAK_SAMPLES 64

void tb_ident_advance(const tb_ident_model *m, double *x, const double *u, double dt)
{
    for (size_t j = 0; j < m->nmodes; j++) {
        double a = exp(-dt / m->tau[j].value);
        for (size_t k = 0; k < m->ninputs; k++) {
            double *s = &x[k * m->nmodes + j];
            *s = a * *s + (1 - a) * u[k];
        }
    }
}

void tb_ident_output(const tb_ident_model *m, const double *x, double ambient, double *y)
{
    size_t nu = m->ninputs, nm = m->nmodes;
    for (size_t i = 0; i < m->nsensors; i++) {
        double v = m->rest[i] + (m->above_ambient ? ambient : 0);
        for (size_t k = 0; k < nu * nm; k++)
            v += m->gain[i * nu * nm + k].value * x[k];
        y[i] = v;
    }
}

/* --- schedules -------------------------------------------------------- */

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* The next word of P (up to space, ';' or the end) into BUF; P after it. */
static const char *word(const char *p, char *buf, size_t size)
{
    size_t n = 0;
    p = skip_space(p);
    while (*p && !isspace((unsigned char)*p) && *p != ';') {
        if (n + 1 < size)
            buf[n++] = *p;
        p++;
    }
    buf[n] = '\0';
    return p;
}

/* Window K's INPUT=VALUE settings, from *PP up to the next ';' (*PP then
 * there), into S.  0, or -1 with ERR. */
static int window_inputs(const char *spec, const char **pp, const tb_ident_model *m,
                         tb_schedule *s, size_t k, char *err, size_t errlen)
{
    const char *p = *pp;
    char w[128];
    char given[TB_IDENT_MAX_INPUTS] = {0};
    for (;;) {
        p = skip_space(p);
        if (*p == ';' || *p == '\0')
            break;
        p = word(p, w, sizeof w);
        char *eq = strchr(w, '=');
        if (!eq) {
            snprintf(err, errlen, "schedule '%s': window %zu: '%s' is not INPUT=VALUE", spec,
                     k + 1, w);
            return -1;
        }
        *eq = '\0';
        size_t u = 0;
        while (u < m->ninputs && strcmp(m->inputs[u], w) != 0)
            u++;
        if (u == m->ninputs) {
            const char *near = tb_closest_name(w, (const char *const *)m->inputs, m->ninputs);
            snprintf(err, errlen, "schedule '%s': window %zu: the model has no input %s%s%s%s",
                     spec, k + 1, w, near ? " (did you mean " : "", near ? near : "",
                     near ? "?)" : "");
            return -1;
        }
        if (given[u]++) {
            snprintf(err, errlen, "schedule '%s': window %zu: %s is given twice", spec, k + 1,
                     w);
            return -1;
        }
        /* a number of W, or a power with its unit ("2500mW") */
        if (tb_quantity_or_number_parse(eq + 1, "W", &s->input[k][u]) < 0) {
            snprintf(err, errlen, "schedule '%s': window %zu: %s=%s is not a number", spec,
                     k + 1, w, eq + 1);
            return -1;
        }
        if (!(fabs(s->input[k][u]) <= TB_POWER_MAX)) {
            snprintf(err, errlen, "schedule '%s': window %zu: %s=%s is beyond ±%g W", spec,
                     k + 1, w, eq + 1, TB_POWER_MAX);
            return -1;
        }
    }
    *pp = p;
    return 0;
}

int tb_schedule_parse(const char *spec, const tb_ident_model *m, tb_schedule *s, char *err,
                      size_t errlen)
{
    memset(s, 0, sizeof *s);
    /* a name is what comes before a ':', where the first word is not
     * "frame" itself */
    const char *p = spec, *colon = strchr(spec, ':'), *first = skip_space(spec);
    int named = strncmp(first, "frame", 5) != 0 ||
                !(isspace((unsigned char)first[5]) || first[5] == '\0');
    if (colon && named) {
        size_t n = (size_t)(colon - spec);
        while (n > 0 && isspace((unsigned char)spec[n - 1]))
            n--;
        const char *b = skip_space(spec);
        n -= (size_t)(b - spec);
        snprintf(s->name, sizeof s->name, "%.*s", (int)n, b);
        p = colon + 1;
    }
    char w[128];
    p = word(p, w, sizeof w);
    if (strcmp(w, "frame") != 0) {
        snprintf(err, errlen, "schedule '%s': it starts with 'frame DURATION', not '%s'", spec, w);
        return -1;
    }
    p = word(p, w, sizeof w);
    if (tb_parse_duration(w, &s->frame) < 0 || !(s->frame > 0)) {
        snprintf(err, errlen, "schedule '%s': the frame '%s' is not a duration (100ms, 1s)", spec,
                 w);
        return -1;
    }
    double sum = 0;
    for (;;) {
        p = skip_space(p);
        if (*p == '\0')
            break;
        if (*p != ';') {
            snprintf(err, errlen, "schedule '%s': ';' expected before '%s'", spec, p);
            return -1;
        }
        p = word(p + 1, w, sizeof w);
        if (!*w)
            continue;   /* a trailing ';' */
        if (s->nwindows == TB_SCHEDULE_MAX_WINDOWS) {
            snprintf(err, errlen, "schedule '%s': more than %d windows", spec,
                     TB_SCHEDULE_MAX_WINDOWS);
            return -1;
        }
        size_t k = s->nwindows++;
        if (tb_parse_duration(w, &s->length[k]) < 0 || !(s->length[k] > 0)) {
            snprintf(err, errlen, "schedule '%s': window %zu's length '%s' is not a duration",
                     spec, k + 1, w);
            return -1;
        }
        sum += s->length[k];
        if (window_inputs(spec, &p, m, s, k, err, errlen) < 0)
            return -1;
    }
    if (s->nwindows == 0) {
        snprintf(err, errlen, "schedule '%s': no window ('; 40ms P0=4' after the frame)", spec);
        return -1;
    }
    if (fabs(sum - s->frame) > 1e-9 * s->frame) {
        snprintf(err, errlen, "schedule '%s': the windows fill %g s of the %g s frame; they must "
                 "fill it exactly", spec, sum, s->frame);
        return -1;
    }
    return 0;
}

double tb_schedule_inputs(const tb_schedule *s, size_t ninputs, double t, double *u)
{
    double eps = 1e-9 * s->frame, start = floor(t / s->frame) * s->frame, at = t - start;
    if (at >= s->frame - eps) {   /* on a frame's end by rounding */
        start += s->frame;
        at = 0;
    }
    size_t k = 0;
    double end = s->length[0];
    while (k + 1 < s->nwindows && at >= end - eps)
        end += s->length[++k];
    memcpy(u, s->input[k], ninputs * sizeof *u);
    return start + end;
}

/* --- the periodic steady state -------------------------------------------- */

int tb_ident_periodic(const tb_ident_model *m, const tb_schedule *s, double ambient,
                      tb_periodic *out)
{
    size_t nu = m->ninputs, nm = m->nmodes, ns = m->nsensors;
    double x[TB_IDENT_MAX_INPUTS * TB_IDENT_MAX_MODES], y[TB_IDENT_MAX_SENSORS];
    memset(out, 0, sizeof *out);
    if (ns > TB_IDENT_MAX_SENSORS || nu > TB_IDENT_MAX_INPUTS || nm > TB_IDENT_MAX_MODES)
        return -1;
    /* each state is its own first-order system: over the frame
     * x → e^(−F/τ)·x + b, so the cycle starts at b/(1 − e^(−F/τ)) */
    for (size_t j = 0; j < nm; j++) {
        double tau = m->tau[j].value;
        for (size_t u = 0; u < nu; u++) {
            double b = 0;
            for (size_t k = 0; k < s->nwindows; k++) {
                double a = exp(-s->length[k] / tau);
                b = a * b + (1 - a) * s->input[k][u];
            }
            /* 1 − φ by expm1: a frame far shorter than τ loses no digits */
            x[u * nm + j] = b / -expm1(-s->frame / tau);
        }
        out->settle = fmax(out->settle, log(100) * tau);
    }
    for (size_t i = 0; i < ns; i++) {
        out->peak[i] = -HUGE_VAL;
        out->trough[i] = HUGE_VAL;
    }
    double t = 0, u[TB_IDENT_MAX_INPUTS];
    for (size_t k = 0; k < s->nwindows; k++) {
        double h = s->length[k] / PEAK_SAMPLES;
        memcpy(u, s->input[k], nu * sizeof *u);
        for (int q = 0; q <= PEAK_SAMPLES; q++) {
            if (q > 0)
                tb_ident_advance(m, x, u, h);
            tb_ident_output(m, x, ambient, y);
            double at = t + q * h;
            for (size_t i = 0; i < ns; i++) {
                if (y[i] > out->peak[i]) {
                    out->peak[i] = y[i];
                    out->peak_at[i] = at;
                }
                out->trough[i] = fmin(out->trough[i], y[i]);
            }
        }
        t += s->length[k];
    }
    /* the mean: each state's mean over the cycle is the inputs' mean */
    double mean_u[TB_IDENT_MAX_INPUTS] = {0};
    for (size_t k = 0; k < s->nwindows; k++)
        for (size_t v = 0; v < nu; v++)
            mean_u[v] += s->input[k][v] * s->length[k] / s->frame;
    for (size_t j = 0; j < nm; j++)
        for (size_t v = 0; v < nu; v++)
            x[v * nm + j] = mean_u[v];
    tb_ident_output(m, x, ambient, out->mean);
    return 0;
}
