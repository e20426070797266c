/*
 * output.h -- writing tables, CSV and JSON for the tools' reports, so that
 * the outputs of tb-info, tb-fit and the tools after them agree.  Part of
 * libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_OUTPUT_H
#define TB_OUTPUT_H

#include <stdio.h>

/* Characters S takes on a terminal (UTF-8 code points, not bytes). */
size_t tb_display_width(const char *s);

/* S left-aligned in WIDTH columns. */
void tb_print_left(FILE *f, const char *s, size_t width);

/* X as a CSV field: %.10g, empty when NaN. */
void tb_csv_number(FILE *f, double x);

/* S as a JSON string, or null when S is NULL. */
void tb_json_string(FILE *f, const char *s);

/* X as a JSON number, or null when it is not finite. */
void tb_json_number(FILE *f, double x);

#endif
