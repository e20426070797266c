/*
 * units.c -- map the units sensors report in to SI-style units, and read
 * the quantities options and plans write: every tool's one grammar.
 *
 * Linux reports temperatures in m°C, frequencies in kHz, power in µW and
 * energy in µJ; thermobench writes time in ms.  The tools compute in s,
 * °C, Hz, W and J.  libc only: the board-side programs (tb-record,
 * tb-series, tb-load) are built with this file and number.c, without the
 * rest of libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "tbfit.h"

static const struct unit_rule {
    const char *raw;
    const char *unit;
    double scale;
} unit_rules[] = {
    {"s", "s", 1},         {"ms", "s", 1e-3},      {"us", "s", 1e-6},
    {"µs", "s", 1e-6},     {"ns", "s", 1e-9},
    {"°C", "°C", 1},       {"m°C", "°C", 1e-3},    {"mC", "°C", 1e-3},
    {"K", "K", 1},
    {"Hz", "Hz", 1},       {"kHz", "Hz", 1e3},     {"MHz", "Hz", 1e6},
    {"GHz", "Hz", 1e9},
    {"W", "W", 1},         {"mW", "W", 1e-3},      {"uW", "W", 1e-6},
    {"µW", "W", 1e-6},
    {"J", "J", 1},         {"mJ", "J", 1e-3},      {"uJ", "J", 1e-6},
    {"µJ", "J", 1e-6},
    {"A", "A", 1},         {"mA", "A", 1e-3},      {"uA", "A", 1e-6},
    {"µA", "A", 1e-6},
    {"V", "V", 1},         {"mV", "V", 1e-3},      {"uV", "V", 1e-6},
    {"µV", "V", 1e-6},
};

const char *tb_unit_normalise(const char *raw, double *scale)
{
    for (size_t i = 0; i < sizeof unit_rules / sizeof unit_rules[0]; i++) {
        if (strcmp(raw, unit_rules[i].raw) == 0) {
            *scale = unit_rules[i].scale;
            return unit_rules[i].unit;
        }
    }
    *scale = 1;
    return raw;
}

int tb_quantity_parse(const char *s, const char *unit, double *x)
{
    /* the unit is what follows the number's last digit, point or sign */
    size_t end = strlen(s);
    while (end > 0 && !strchr("0123456789.+-", s[end - 1]))
        end--;
    const char *suffix = s + end;
    while (*suffix == ' ')
        suffix++;
    double scale;   /* 1 for "C", which is no unit of a sensor's */
    const char *to = tb_unit_normalise(suffix, &scale);
    int to_celsius = strcmp(unit, "°C") == 0;
    int celsius = to_celsius && strcmp(suffix, "C") == 0;   /* "23C" */
    int kelvin = to_celsius && strcmp(to, "K") == 0;        /* "313.15K" */
    if (end == 0 || (strcmp(to, unit) != 0 && !celsius && !kelvin))
        return 0;
    if (!strchr("0123456789+-.", s[0]))
        return 0;   /* a name that ends so, such as a column's */
    char num[64];
    if (end >= sizeof num)
        return -1;
    memcpy(num, s, end);
    num[end] = '\0';
    if (tb_number_parse(num, end, x) != TB_NUMBER_OK || !isfinite(*x))
        return -1;
    *x *= scale;
    if (kelvin) {
        if (*x < 0)
            return -1;
        *x -= 273.15;
    }
    return 1;
}

int tb_parse_duration(const char *s, double *seconds)
{
    static const struct { const char *suffix; double scale; } units[] = {
        {"ms", 1e-3}, {"min", 60}, {"s", 1}, {"m", 60}, {"h", 3600},
    };
    double total = 0, x;
    const char *p = s;
    if (!*p)
        return -1;
    /* a bare number is seconds; else terms such as 1h30m, each NUMBER UNIT */
    if (tb_number_parse(s, strlen(s), &x) == TB_NUMBER_OK) {
        if (!(x >= 0) || !isfinite(x))
            return -1;
        *seconds = x;
        return 0;
    }
    while (*p) {
        size_t n = strspn(p, "0123456789.eE");
        if (n == 0 || n >= 64)
            return -1;
        char num[64];
        memcpy(num, p, n);
        num[n] = '\0';
        if (tb_number_parse(num, n, &x) != TB_NUMBER_OK || !isfinite(x))
            return -1;
        p += n;
        size_t u = 0;
        while (u < sizeof units / sizeof units[0] &&
               strncmp(p, units[u].suffix, strlen(units[u].suffix)) != 0)
            u++;
        if (u == sizeof units / sizeof units[0])
            return -1;
        p += strlen(units[u].suffix);
        total += x * units[u].scale;
    }
    *seconds = total;
    return 0;
}

int tb_quantity_or_number_parse(const char *s, const char *unit, double *x)
{
    int rc = tb_quantity_parse(s, unit, x);
    if (rc == 0)
        rc = tb_number_parse(s, strlen(s), x) == TB_NUMBER_OK && isfinite(*x) ? 1 : -1;
    return rc == 1 ? 0 : -1;
}
