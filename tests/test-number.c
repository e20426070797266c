/*
 * test-number.c -- tb_number_parse() against strtod(), glibc's correctly
 * rounded parser, and the cells a run must refuse.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "tbfit.h"

static enum tb_number_status parse(const char *s, double *x)
{
    return tb_number_parse(s, strlen(s), x);
}

/* Every parse must give strtod()'s double, bit for bit. */
static int same_as_strtod(const char *s)
{
    double x = -1, want = strtod(s, NULL);
    return parse(s, &x) == TB_NUMBER_OK && memcmp(&x, &want, sizeof x) == 0;
}

int main(void)
{
    static const char *exact[] = {
        "0", "-0", "41300", "0.052376", "1.056e+06", "1.2e+06", "900000",
        "876002", "2.98869", "24.418", "0.990099", "1.0101", "100",
        "+7", ".5", "5.", "1e22", "1e-22", "123456789012345678",
        "9007199254740993", "0.1", "0.3", "3.141592653589793238462643",
        "1e23", "2.2250738585072014e-308", "1.7976931348623157e308",
        "00000000000000000000001.5", "0.000000000000000000000000001",
        "12345678901234567890123", "-2.5e-5", "7E3",
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        ok(same_as_strtod(exact[i]), "\"%s\" parses as strtod() does", exact[i]);

    /* Random %g and %.17g numbers: the fast path and its fallback. */
    uint64_t seed = 88172645463325252u;
    int mismatches = 0;
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        double mag = (double)(seed % 2000000) / 1000.0 - 1000.0;
        double x = mag * exp((double)((seed >> 24) % 60) - 30);
        snprintf(buf, sizeof buf, i % 2 ? "%g" : "%.17g", x);
        mismatches += !same_as_strtod(buf);
    }
    ok(mismatches == 0, "200000 random numbers parse as strtod() does (%d differ)",
       mismatches);

    double x;
    ok(parse("nan", &x) == TB_NUMBER_NAN, "nan is a missing value");
    ok(parse("-nan", &x) == TB_NUMBER_NAN, "-nan is a missing value");
    ok(parse("NaN", &x) == TB_NUMBER_NAN, "NaN is a missing value");
    ok(parse("inf", &x) == TB_NUMBER_RANGE, "inf is out of range");
    ok(parse("-Infinity", &x) == TB_NUMBER_RANGE, "-Infinity is out of range");
    ok(parse("1e999", &x) == TB_NUMBER_RANGE, "1e999 overflows");
    ok(parse("1e-400", &x) == TB_NUMBER_RANGE, "1e-400 underflows");
    ok(parse("0e-999", &x) == TB_NUMBER_OK && x == 0, "0e-999 is zero");
    static const char *invalid[] = {
        "", "12a", "a12", "0x10", "1e", "e5", ".", "-", "1.2.3", "1,5",
        "1 2", "--1", "nanx", "1e+",
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        ok(parse(invalid[i], &x) == TB_NUMBER_INVALID, "\"%s\" is not a number",
           invalid[i]);
    return tap_done();
}
