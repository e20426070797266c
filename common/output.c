/*
 * output.c -- writing tables, CSV and JSON for the tools' reports.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

void tb_print_right(FILE *f, const char *s, size_t width)
{
    for (size_t w = tb_display_width(s); w < width; w++)
        fputc(' ', f);
    fputs(s, f);
}

int tb_interval_decimals(double value, double lo, double hi, int fallback)
{
    double side = fmin(value - lo, hi - value);
    if (!(isfinite(side) && side > 0))
        side = hi - lo;
    if (!(isfinite(side) && side > 0))
        return fallback;
    int d = 1 - (int)floor(log10(side));
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

void tb_format_number(char *buf, size_t size, double x, int decimals, int sign)
{
    if (!isfinite(x))
        snprintf(buf, size, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    else if (fabs(x) >= 1e5)
        snprintf(buf, size, sign ? "%+.3g" : "%.3g", x);
    else if (x != 0 && fabs(x) < 0.5 * pow(10, -decimals))
        snprintf(buf, size, sign ? "%+.2g" : "%.2g", x);
    else
        snprintf(buf, size, sign ? "%+.*f" : "%.*f", decimals, x);
}

int tb_format_estimate(tb_estimate_text *t, double value, double lo, double hi, int decimals, int sign)
{
    tb_format_number(t->value, sizeof t->value, value, decimals, sign);
    if (!(isfinite(lo) && isfinite(hi))) {
        t->lo[0] = t->hi[0] = '\0';
        return 0;
    }
    tb_format_number(t->lo, sizeof t->lo, lo, decimals, sign);
    tb_format_number(t->hi, sizeof t->hi, hi, decimals, sign);
    return 1;
}

void tb_csv_number(FILE *f, double x)
{
    if (!isnan(x))
        fprintf(f, "%.10g", x);
}

/* The length of the well-formed UTF-8 sequence at S (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_sequence(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    unsigned char lo = 0x80, hi = 0xbf;   /* the second byte's range */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (n == 0 || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void tb_markup_text(FILE *f, const char *s, size_t n)
{
    for (; s && *s && n > 0; s++, n--) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n' || *s == '\r')
                fputc(*s, f);
        }
    }
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
        if (c >= 0x80) {   /* JSON is UTF-8: a byte that is not becomes U+FFFD */
            size_t n = utf8_sequence((const unsigned char *)s);
            if (n == 0) {
                fputs("\\ufffd", f);
            } else {
                fwrite(s, 1, n, f);
                s += n - 1;
            }
        } else if (c == '"' || c == '\\')
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
    if (!isfinite(x)) {
        fputs("null", f);
        return;
    }
    /* the fewest digits, from 15, that read back as X: exact, and a 0.1
     * is written 0.1, not 0.10000000000000001 */
    char buf[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    fputs(buf, f);
}

void tb_json_field(FILE *f, const char *key, double x)
{
    fprintf(f, ", \"%s\": ", key);
    tb_json_number(f, x);
}

void tb_json_estimate(FILE *f, const tb_estimate *e)
{
    fputs("{\"value\": ", f);
    tb_json_number(f, e->value);
    fputs(", \"lo\": ", f);
    tb_json_number(f, e->lo);
    fputs(", \"hi\": ", f);
    tb_json_number(f, e->hi);
    fputc('}', f);
}

void tb_left_out_text(FILE *f, const tb_result *const *rows, size_t n, size_t total)
{
    enum { NAMED = 8 };   /* a nightly job's log stays readable */
    fprintf(f, "%zu of %zu fits left out, flagged (--include-flagged keeps them):", n, total);
    for (size_t i = 0; i < n && i < NAMED; i++) {
        const tb_result *r = rows[i];
        fprintf(f, "%s %s of %s (", i ? "," : "", r->column, r->file ? r->file : "?");
        for (const char *c = r->flags ? r->flags : ""; *c; c++)
            *c == ';' ? fputs(", ", f) : fputc(*c, f);
        fputc(')', f);
    }
    if (n > NAMED)
        fprintf(f, " and %zu more", n - NAMED);
    fputc('\n', f);
}

int tb_estimate_determined(const tb_estimate *e, double widest)
{
    double width = e->hi - e->lo;
    return isfinite(width) && !(width > widest);
}

double tb_values_span(const double *y, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (y[i] < lo)
            lo = y[i];
        if (y[i] > hi)
            hi = y[i];
    }
    return hi >= lo ? hi - lo : 0;
}

const char *tb_display_unit(const char *unit, double magnitude, double *factor)
{
    static const struct { double from; const char *name; } hz[] = {
        {1e9, "GHz"}, {1e6, "MHz"}, {1e3, "kHz"},
    };
    *factor = 1;
    if (strcmp(unit, "Hz") != 0)
        return unit;
    for (size_t i = 0; i < sizeof hz / sizeof *hz; i++)
        if (fabs(magnitude) >= hz[i].from) {
            *factor = 1 / hz[i].from;
            return hz[i].name;
        }
    return unit;
}
