/*
 * plot.h -- tb-plot's settings and its figures.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_PLOT_H
#define TB_PLOT_H

#include "cli.h"
#include "exit_status.h"
#include "figure.h"
#include "progress.h"
#include "tbfit.h"

struct plot_settings {
    struct figure fig;
    const char **columns;       /* -c specs */
    size_t ncolumns;
    struct tb_model_settings m; /* as tb-fit's: order, ambient, window... */
    double tolerance, step;
    int overlay;
    const char *group_by;       /* compare: NULL, "dir", "meta:KEY" or "re:REGEX" */
    const char *group_order;    /* compare: --group-order G1,G2,... */
    int ops;                    /* compare: operations per second too */
    const char *baseline;       /* compare: the group the line is drawn at */
    double threshold;           /* compare: °C above it that is a regression,
                                   drawn only when given (NaN: none);
                                   compare, sweep: the most an extrapolated
                                   fit in a group's mean may extrapolate
                                   (0.5 when not given, as tb-compare's) */
    int include_flagged;        /* compare, sweep: flagged fits in means too */
    int measured_only;          /* tradeoff: measured fields, whatever a fit's flags */
    const char **verdicts;      /* compare: "GROUP=WORD" written above them */
    size_t nverdicts;
    const char *power;          /* zth: the power column, or NULL */
    double power_step, idle_power;  /* zth: W given, or NaN */
    int spectrum;               /* the spectrum figure: its analysis too */
    const char *sweep_x;        /* sweep: "meta:KEY", the x axis */
    const char *sweep_y;        /* sweep: tinf, tauN, ops or mean:COLUMN */
    const char *tradeoff_x;     /* tradeoff: "peak" (NULL) or "above" */
    double limit;               /* tradeoff: °C, the limit; NaN: each run's trip */
    const char *model;          /* ident: the model file */
    struct tb_progress *progress;   /* a line on the terminal to clear before a message, or NULL */
};

/* Each returns an exit status (enum tb_exit) and prints its errors. */
int plot_fit(const struct plot_settings *s, const char *path);
int plot_raw(const struct plot_settings *s, const char *path);
int plot_runlength(const struct plot_settings *s, const char *path);
int plot_compare(const struct plot_settings *s, char **paths, int npaths);
int plot_sweep(const struct plot_settings *s, char **paths, int npaths);
/* tradeoff: each group's sustained work rate against its peak (or time
 * above the limit), intervals both ways, the limit drawn */
int plot_tradeoff(const struct plot_settings *s, char **paths, int npaths);

/* The results to draw: tb-fit's result files as they are; runs (files or
 * directories of them) fitted here as tb-fit would, with the model
 * options and -c, appended to *ROWS.  TB_EXIT_OK, TB_EXIT_FIT when a fit
 * failed (its row is missing, and said so), TB_EXIT_INPUT (also when no
 * row came of the inputs, said so), or TB_EXIT_OUTPUT when memory ran out. */
int plot_read_results(const struct plot_settings *s, char **paths, int npaths,
                      tb_result **rows, size_t *nrows);
int plot_zth(const struct plot_settings *s, const char *path);
/* ident: the model --model against the run PATH */
int plot_ident(const struct plot_settings *s, const char *path);
int plot_spectrum(const struct plot_settings *s, const char *path);
/* zth (SPECTRUM 0) or spectrum: both draw one column's network */
int plot_thermal(const struct plot_settings *s, const char *path, int spectrum);

/* The analysis of RUN with the settings' model and columns, and its run
 * length when RUN_LENGTH; its messages (the reader's warnings among them)
 * and a note for each flagged fit printed.  NULL, said so, when it could
 * not be made. */
tb_analysis *plot_analyse(const struct plot_settings *s, const tb_run *run, int run_length);

#endif
