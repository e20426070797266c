/*
 * cli.c -- what the host tools' command lines share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exit_status.h"

static const struct option model_options[] = {
    {"order", required_argument, NULL, TB_OPT_ORDER},
    {"ambient", required_argument, NULL, TB_OPT_AMBIENT},
    {"from", required_argument, NULL, TB_OPT_FROM},
    {"to", required_argument, NULL, TB_OPT_TO},
    {"tau-min", required_argument, NULL, TB_OPT_TAU_MIN},
    {"tau-max", required_argument, NULL, TB_OPT_TAU_MAX},
    {"level", required_argument, NULL, TB_OPT_LEVEL},
    {"labels", required_argument, NULL, TB_OPT_LABELS},
    {NULL, 0, NULL, 0},
};

void tb_model_settings_init(struct tb_model_settings *m)
{
    /* --from not given (NaN): from the regular sampling, start-up samples
     * left out (tb_startup_samples()); --from 0 keeps them. */
    *m = (struct tb_model_settings){.fit = tb_fit_default_options(), .auto_order = 1,
                                    .from = NAN, .to = INFINITY, .ambient_temp = NAN};
}

void tb_model_settings_free(struct tb_model_settings *m)
{
    free(m->labels_buf);
    m->labels_buf = NULL;
}

tb_analysis_options tb_model_analysis_options(const struct tb_model_settings *m)
{
    tb_analysis_options o = tb_analysis_default_options();
    o.fit = m->fit;
    o.auto_order = m->auto_order;
    o.ambient = isnan(m->ambient_temp) ? m->ambient : NULL;
    o.ambient_temp = m->ambient_temp;
    o.from = m->from;
    o.to = m->to;
    return o;
}

const char *const *tb_model_labels(const struct tb_model_settings *m, const tb_fit *fit,
                                   size_t i, const char *labels[TB_FIT_MAX_ORDER])
{
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++) {
        labels[j] = NULL;
        /* a physical name on a term the data do not show misleads */
        if (!fit || j >= fit->order || fit->flags & TB_FIT_DEGENERATE)
            continue;
        if (m->nlabels == fit->order)
            labels[j] = m->labels[j];
        else if (m->nlabels == 0)
            labels[j] = tb_term_label(fit, i, j);
    }
    return labels;
}

struct option *tb_cli_options(const struct option *own)
{
    size_t n = 0, k = 0;
    while (own[n].name)
        n++;
    while (model_options[k].name)
        k++;
    struct option *all = malloc((n + k + 1) * sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, own, n * sizeof *all);
    memcpy(all + n, model_options, (k + 1) * sizeof *all);
    return all;
}

int tb_cli_push(const char ***v, size_t *n, const char *s)
{
    const char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nv[(*n)++] = s;
    *v = nv;
    return 0;
}

int tb_cli_number(const char *s, double *x)
{
    return tb_number_parse(s, strlen(s), x) == TB_NUMBER_OK ? 0 : -1;
}

int tb_cli_jobs(const char *arg, int *jobs, char *err, size_t errlen)
{
    double x;
    if (tb_cli_number(arg, &x) < 0 || x != floor(x) || x < 1 || x > TB_CLI_MAX_JOBS) {
        snprintf(err, errlen, "--jobs wants a number from 1 to %d, not '%s'", TB_CLI_MAX_JOBS, arg);
        return -1;
    }
    *jobs = (int)x;
    return 0;
}

int tb_cli_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
    return TB_EXIT_INPUT;
}

int tb_cli_unknown_option(const char *prog, const char *arg, const struct option *opts)
{
    const char *near = NULL;
    if (strncmp(arg, "--", 2) == 0 && arg[2]) {
        size_t n = 0;
        while (opts[n].name)
            n++;
        const char **names = malloc((n ? n : 1) * sizeof *names);
        char *word = strndup(arg + 2, strcspn(arg + 2, "="));
        for (size_t i = 0; names && i < n; i++)
            names[i] = opts[i].name;
        if (names && word)
            near = tb_closest_name(word, names, n);
        free(word);
        free(names);
    }
    if (near)
        return tb_cli_usage_error(prog, "unknown option '%s' (did you mean --%s?)", arg, near);
    return tb_cli_usage_error(prog, "unknown option '%s'", arg);
}

static int parse_labels(struct tb_model_settings *m, const char *arg)
{
    free(m->labels_buf);
    if (!(m->labels_buf = strdup(arg)))
        return -1;
    m->nlabels = 0;
    for (char *save = NULL, *t = strtok_r(m->labels_buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (m->nlabels == TB_FIT_MAX_ORDER)
            return -1;
        m->labels[m->nlabels++] = t;
    }
    return m->nlabels > 0 ? 0 : -1;
}

int tb_model_option(int c, const char *arg, struct tb_model_settings *m,
                    char *err, size_t errlen)
{
    double x;
    const char *what = NULL;

    switch (c) {
    case TB_OPT_ORDER:
        if (strcmp(arg, "auto") == 0) {
            m->auto_order = 1;
        } else if (tb_cli_number(arg, &x) < 0 || x != floor(x) || x < 1 || x > TB_FIT_MAX_ORDER) {
            what = "--order wants 1 to 4 or auto";
        } else {
            m->auto_order = 0;
            m->fit.order = (int)x;
        }
        break;
    case TB_OPT_AMBIENT:
        m->ambient = arg;
        m->ambient_temp = NAN;
        switch (tb_cli_quantity(arg, "C", &x)) {
        case 1: m->ambient_temp = x; break;
        case -1: what = "--ambient wants a column or a temperature such as 23C"; break;
        default:   /* "25": a column's number, or 25 °C?  Neither guessed. */
            if (tb_cli_number(arg, &x) == 0)
                what = "--ambient wants a column's name or a temperature with its unit "
                       "(25C for 25 °C)";
        }
        break;
    case TB_OPT_FROM:
        if (tb_parse_duration(arg, &m->from) < 0)
            what = "--from wants a time such as 90, 90s, 5min or 1h";
        break;
    case TB_OPT_TO:
        if (tb_parse_duration(arg, &m->to) < 0)
            what = "--to wants a time such as 90, 90s, 5min or 1h";
        break;
    case TB_OPT_TAU_MIN:
        if (tb_parse_duration(arg, &m->fit.tau_min) < 0 || !(m->fit.tau_min > 0))
            what = "--tau-min wants a positive time";
        break;
    case TB_OPT_TAU_MAX:
        if (tb_parse_duration(arg, &m->fit.tau_max) < 0 || !(m->fit.tau_max > 0))
            what = "--tau-max wants a positive time";
        break;
    case TB_OPT_LEVEL:
        if (tb_cli_number(arg, &x) < 0 || !(x > 0 && x < 1))
            what = "--level wants a probability between 0 and 1, such as 0.95";
        else
            m->fit.level = x;
        break;
    case TB_OPT_LABELS:
        if (parse_labels(m, arg) < 0)
            what = "--labels wants 1 to 4 names separated by commas";
        break;
    default:
        return 0;
    }
    if (what) {
        snprintf(err, errlen, "%s, not '%s'", what, arg);
        return -1;
    }
    return 1;
}

/* The library's name of an option's unit: "C" is °C. */
static const char *cli_unit(const char *unit)
{
    return strcmp(unit, "C") == 0 ? "°C" : unit;
}

int tb_cli_quantity(const char *s, const char *unit, double *x)
{
    return tb_quantity_parse(s, cli_unit(unit), x);
}

int tb_cli_quantity_or_number(const char *s, const char *unit, double *x)
{
    return tb_quantity_or_number_parse(s, cli_unit(unit), x);
}

int tb_cli_power_option(const char *arg, const char **column, double *step,
                        char *err, size_t errlen)
{
    switch (tb_cli_quantity(arg, "W", step)) {
    case 1:
        *column = NULL;
        if (*step > 0)
            return 0;
        snprintf(err, errlen, "--power wants a positive power, not '%s'", arg);
        return -1;
    case 0:
        *column = arg;
        *step = NAN;
        return 0;
    default:
        snprintf(err, errlen, "--power wants a column or a power such as 2.5W, not '%s'", arg);
        return -1;
    }
}

int tb_cli_idle_power(const char *arg, double *w, char *err, size_t errlen)
{
    if (tb_cli_quantity_or_number(arg, "W", w) == 0 && *w >= 0)
        return 0;
    snprintf(err, errlen, "--idle-power wants a power of 0 or more, such as 1.2W, not '%s'", arg);
    return -1;
}

int tb_cli_stdout_status(const char *prog, int status)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "%s: write error: %s\n", prog, strerror(errno));
    return TB_EXIT_OUTPUT;
}

int tb_cli_tolerance(const char *arg, double *x, char *err, size_t errlen)
{
    if (tb_cli_number(arg, x) == 0 && *x > 0)
        return 0;
    snprintf(err, errlen, "--tolerance wants a positive number of °C, not '%s'", arg);
    return -1;
}

int tb_cli_step(const char *arg, double *x, char *err, size_t errlen)
{
    if (tb_parse_duration(arg, x) == 0 && *x > 0)
        return 0;
    snprintf(err, errlen, "--step wants a positive time, not '%s'", arg);
    return -1;
}

int tb_model_check(const struct tb_model_settings *m, char *err, size_t errlen)
{
    if (!isnan(m->from) && m->from >= m->to)
        snprintf(err, errlen, "--from must be before --to");
    else if (m->fit.tau_min > 0 && m->fit.tau_max > 0 && m->fit.tau_min >= m->fit.tau_max)
        snprintf(err, errlen, "--tau-min must be below --tau-max");
    else if (m->nlabels > 0 && !m->auto_order && m->nlabels != m->fit.order)
        snprintf(err, errlen, "--labels names %s terms, not as many as --order", m->nlabels == 1 ? "1" : "several");
    else
        return 0;
    return -1;
}
