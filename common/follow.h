/*
 * follow.h -- tb-fit --follow: fit a run as it is written, and stop it
 * once its answer is known.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_FIT_FOLLOW_H
#define TB_FIT_FOLLOW_H

#include <stdio.h>

#include "report.h"
#include "tbfit.h"

struct follow_settings {
    const char *path;           /* FILE, or "-" for standard input */
    double every;               /* s of data between updates */
    double until;               /* °C: --until; NaN without */
    double max;                 /* s of data: --max */
    const char *keep;           /* -o FILE: every row read; NULL */
    enum tb_format format;      /* of the updates and of the final fit */
    double level;               /* of the intervals asked for */
};

/* Print the final analysis A as tb-fit prints its fits; 0, or -1 when it
 * could not be written. */
typedef int (*follow_report_fn)(void *ctx, FILE *out, const tb_analysis *a);

/* Follow FS->path, fitting with O; returns tb-fit's exit status. */
int follow_run(const struct follow_settings *fs, const tb_analysis_options *o,
               follow_report_fn report, void *ctx);

#endif
