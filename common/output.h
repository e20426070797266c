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

#include "tbfit.h"

/* Characters S takes on a terminal (UTF-8 code points, not bytes). */
size_t tb_display_width(const char *s);

/* S left-aligned in WIDTH columns. */
void tb_print_left(FILE *f, const char *s, size_t width);

/* S right-aligned in WIDTH columns. */
void tb_print_right(FILE *f, const char *s, size_t width);

/* The one numeric style of the text reports: the decimals that show an
 * estimate VALUE [LO, HI] with two significant digits of its interval's
 * narrower side (53.00 [52.83, 53.17]; τ 0.7123 [0.7120, 0.7126], not
 * 0.7 [0.7, 0.7]), from 0 to 6; FALLBACK when the interval is unknown or
 * empty. */
int tb_interval_decimals(double value, double lo, double hi, int fallback);

/* X with DECIMALS decimals ("%+" with SIGN) into BUF; %.3g when it is too
 * large to read so; an interval's end that DECIMALS would round to 0 with
 * two significant digits (a τ's lower end of 0.07 s is not 0). */
void tb_format_number(char *buf, size_t size, double x, int decimals, int sign);

/* An estimate VALUE [LO, HI] as three strings in that style. */
typedef struct {
    char value[48], lo[48], hi[48];
} tb_estimate_text;

/* Fill T with VALUE, LO and HI, each with DECIMALS decimals ("%+" with
 * SIGN); true when the interval is known (both ends finite). */
int tb_format_estimate(tb_estimate_text *t, double value, double lo, double hi, int decimals, int sign);

/* X as a CSV field: %.10g, empty when NaN. */
void tb_csv_number(FILE *f, double x);

/* At most N bytes of S (NULL: nothing) as HTML or XML text or attribute
 * value: & < > " escaped, and the control characters XML 1.0 cannot
 * carry (all below 0x20 but tab, newline and return) left out. */
void tb_markup_text(FILE *f, const char *s, size_t n);

/* S as a JSON string, or null when S is NULL. */
void tb_json_string(FILE *f, const char *s);

/* X as a JSON number that reads back as X, or null when it is not
 * finite. */
void tb_json_number(FILE *f, double x);
/* ", \"KEY\": X": a number member after another of its object. */
void tb_json_field(FILE *f, const char *key, double x);

/* E as {"value": …, "lo": …, "hi": …}. */
void tb_json_estimate(FILE *f, const tb_estimate *e);

/* "3 of 12 fits left out, flagged (--include-flagged keeps them): DRC_temp
 * of run3.csv (tau_merged, k_huge), ..." and a newline: the N fits ROWS
 * that no group's mean or verdict rests on (tb_result_sound()), of TOTAL,
 * the first few named. */
void tb_left_out_text(FILE *f, const tb_result *const *rows, size_t n, size_t total);

/* Whether E's interval says anything: finite, and no wider than WIDEST.
 * A fit's estimate whose interval spans more than 100 times its data's
 * span (TB_WIDEST_SPANS) is printed as "not determined", not as digits. */
#define TB_WIDEST_SPANS 100.0
int tb_estimate_determined(const tb_estimate *e, double widest);

/* The span of the N values Y (max − min, NaN ignored); 0 for none. */
double tb_values_span(const double *y, size_t n);

/* The unit a person reads a value of MAGNITUDE in UNIT in, and the
 * factor to it: a frequency of 1.2e9 Hz in GHz (1.2), 6e8 Hz in MHz (600),
 * as cpufreq's own scale; any other unit as it is, factor 1. */
const char *tb_display_unit(const char *unit, double magnitude, double *factor);

#endif
