/*
 * tap.h -- just enough of the Test Anything Protocol for tbkit's unit
 * tests: numbered "ok"/"not ok" lines and a plan at the end, read by
 * automake's tap-driver.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_TAP_H
#define TB_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

static inline void tap_vresult(int pass, const char *fmt, va_list ap)
{
    printf("%s %d - ", pass ? "ok" : "not ok", ++tap_count);
    vprintf(fmt, ap);
    putchar('\n');
    if (!pass)
        tap_failed++;
}

static inline int __attribute__((format(printf, 2, 3))) ok(int pass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(pass, fmt, ap);
    va_end(ap);
    return pass;
}

/* GOT equals WANT; both shown on failure. */
static inline int __attribute__((format(printf, 3, 4)))
is_string(const char *got, const char *want, const char *fmt, ...)
{
    int pass = got && want ? strcmp(got, want) == 0 : got == want;
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        printf("#   got:  \"%s\"\n#   want: \"%s\"\n", got ? got : "(null)",
               want ? want : "(null)");
    return pass;
}

/* A test that is not run here, said so. */
static inline void __attribute__((format(printf, 1, 2))) skip(const char *fmt, ...)
{
    va_list ap;
    printf("ok %d # SKIP ", ++tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* |GOT - WANT| <= TOL. */
static inline int __attribute__((format(printf, 4, 5)))
is_near(double got, double want, double tol, const char *fmt, ...)
{
    int pass = fabs(got - want) <= tol || (isnan(got) && isnan(want));
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(pass, fmt, ap);
    va_end(ap);
    if (!pass)
        printf("#   got:  %.17g\n#   want: %.17g (tolerance %g)\n", got, want, tol);
    return pass;
}

/* TB_QUICK (valgrind runs the tests): the statistical checks run their
 * code on a few curves; their rates over runs, which a few say nothing
 * of, are skipped (ok_rate). */
static inline int tap_quick(void)
{
    static int quick = -1;
    if (quick < 0)
        quick = getenv("TB_QUICK") != NULL;
    return quick;
}

/* RUNS runs of a statistical check, or QUICK of them under TB_QUICK. */
static inline int runs_of(int runs, int quick)
{
    return tap_quick() ? quick : runs;
}

/* ok() of a rate over runs: skipped under TB_QUICK. */
#define ok_rate(cond, ...)                                                    \
    do {                                                                      \
        if (tap_quick())                                                      \
            skip("a rate over runs: TB_QUICK (under valgrind) runs too few"); \
        else                                                                  \
            ok(cond, __VA_ARGS__);                                            \
    } while (0)

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
