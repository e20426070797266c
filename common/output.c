/*
 * output.c -- writing tables, CSV and JSON for the tools' reports.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "output.h"

size_t tb_display_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

void tb_print_left(FILE *f, const char *s, size_t width)
{
    size_t w = tb_display_width(s);
    fputs(s, f);
    for (; w < width; w++)
        fputc(' ', f);
}

void tb_csv_number(FILE *f, double x)
{
    if (!isnan(x))
        fprintf(f, "%.10g", x);
}

void tb_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void tb_json_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.10g", x);
    else
        fputs("null", f);
}
