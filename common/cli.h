/*
 * cli.h -- what the host tools' command lines share: the model options of
 * tb-fit and tb-plot (and the tools after them), number parsing and usage
 * errors.  Part of libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <getopt.h>

#include "tbfit.h"

/* Ids of the model options (-n and -a, as tb-ident's, are also short:
 * each tool's getopt string has "n:a:"). */
enum tb_model_option_id {
    TB_OPT_ORDER = 'n',
    TB_OPT_AMBIENT = 'a',
    TB_OPT_FROM = 1000, TB_OPT_TO, TB_OPT_TAU_MIN, TB_OPT_TAU_MAX,
    TB_OPT_LEVEL, TB_OPT_LABELS,
};

/* What the model options set. */
struct tb_model_settings {
    tb_fit_options fit;
    int auto_order;                    /* --order auto, the default */
    const char *ambient;               /* --ambient, as given */
    double ambient_temp;               /* --ambient TEMP: °C; NaN for a column */
    double from, to;                   /* --from, --to: s of the run */
    const char *labels[TB_FIT_MAX_ORDER];
    int nlabels;
    char *labels_buf;                  /* owns the labels' text */
};

void tb_model_settings_init(struct tb_model_settings *m);
void tb_model_settings_free(struct tb_model_settings *m);

/* The analysis options the model settings give (fit, order, ambient,
 * window); the tool adds its columns, work counters and the rest. */
tb_analysis_options tb_model_analysis_options(const struct tb_model_settings *m);

/* The labels of the terms of series I of FIT into LABELS (NULL for a term
 * without one), and LABELS: --labels when it gave as many as FIT has terms,
 * tb_term_label()'s physical names when it gave none; none on a degenerate
 * FIT, whose terms the data do not show. */
const char *const *tb_model_labels(const struct tb_model_settings *m, const tb_fit *fit,
                                   size_t i, const char *labels[TB_FIT_MAX_ORDER]);

/* OWN's options followed by the model options, for getopt_long(); free()
 * it.  NULL when memory runs out. */
struct option *tb_cli_options(const struct option *own);

/* Handle option C with ARG when it is a model option: 1 when handled, 0
 * when C is none of them, -1 with a message in ERR when ARG is wrong. */
int tb_model_option(int c, const char *arg, struct tb_model_settings *m,
                    char *err, size_t errlen);

/* The model options' checks against each other (--from before --to,
 * --tau-min below --tau-max, as many --labels as --order): 0, or -1 with
 * a message in ERR.  Every tool with model options calls it. */
int tb_model_check(const struct tb_model_settings *m, char *err, size_t errlen);

/* Append S to the array *V of *N strings (repeated options such as -c);
 * 0, or -1 when memory runs out. */
int tb_cli_push(const char ***v, size_t *n, const char *s);

/* S as a number with the unit UNIT ("W" or "C"), the way tbkit's options
 * and plans write quantities: "2.5W", "2500mW", "23C", "23°C"; see
 * tb_quantity_parse().  1 with *X in W or °C, 0 when S has no such unit,
 * -1 when it has and is not a finite number of it.  A name that ends in
 * the unit ("CPU_C") is not a quantity: 0. */
int tb_cli_quantity(const char *s, const char *unit, double *x);

/* As tb_cli_quantity(), or a plain number of the unit ("2.5", "85"); 0 with
 * *X, or -1. */
int tb_cli_quantity_or_number(const char *s, const char *unit, double *x);

/* --power COLUMN|POWER: a power with its unit ("2.5W") into *STEP, with
 * *COLUMN NULL; anything else is a column, into *COLUMN with *STEP NaN.
 * 0, or -1 with a message in ERR. */
int tb_cli_power_option(const char *arg, const char **column, double *step,
                        char *err, size_t errlen);

/* --idle-power POWER: a power of 0 or more ("1.2W", "1.2"); 0 with *W,
 * or -1 with a message in ERR. */
int tb_cli_idle_power(const char *arg, double *w, char *err, size_t errlen);

/* --run-length's --tolerance DEG (a positive number of °C) and --step
 * TIME (a positive time): 0 with *X, or -1 with a message in ERR. */
int tb_cli_tolerance(const char *arg, double *x, char *err, size_t errlen);
int tb_cli_step(const char *arg, double *x, char *err, size_t errlen);

/* STATUS, or TB_EXIT_OUTPUT when standard output cannot be flushed (a
 * full disk, a closed pipe): "PROG: write error: ..." said. */
int tb_cli_stdout_status(const char *prog, int status);

/* A whole decimal number (tb_number_parse()); 0, or -1. */
int tb_cli_number(const char *s, double *x);

/* --jobs: a whole number of threads from 1 to TB_CLI_MAX_JOBS; 0, or -1
 * with a message in ERR. */
#define TB_CLI_MAX_JOBS 1024
int tb_cli_jobs(const char *arg, int *jobs, char *err, size_t errlen);

/* "PROG: message" and a hint to --help on standard error; returns
 * TB_EXIT_INPUT, the usage-error status of every host tool. */
int tb_cli_usage_error(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "unknown option '--ordr' (did you mean --order?)" and the help line, for
 * the unknown option ARG of getopt_long's table OPTS; returns the usage
 * error's exit status, as tb_cli_usage_error(). */
int tb_cli_unknown_option(const char *prog, const char *arg, const struct option *opts);

#endif
