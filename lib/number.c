/*
 * number.c -- parse CSV cells as doubles, fast and correctly rounded.
 *
 * Most cells of a run are short decimals written with %g ("41300",
 * "1.296e+06").  For those, a mantissa below 2^53 times or divided by an
 * exact power of ten up to 1e22 is one correctly rounded IEEE operation
 * (Clinger's fast path), several times quicker than strtod().  Anything
 * else goes to strtod().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#include "tbfit.h"

static const double exact_pow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int is_nan_word(const char *s, size_t len)
{
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        s++;
        len--;
    }
    return len == 3 && strncasecmp(s, "nan", 3) == 0;
}

/* Returns 1 and sets *x when the fast path applies, 0 otherwise. */
static int parse_fast(const char *s, size_t len, double *x)
{
    const char *p = s, *end = s + len;
    int negative = 0, digits = 0, seen_digit = 0;
    long exp10 = 0;
    uint64_t m = 0;

    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        seen_digit = 1;
        if (m == 0 && *p == '0')
            continue;
        if (++digits > 19)
            return 0;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
            seen_digit = 1;
            if (m == 0 && *p == '0') {
                exp10--;
                continue;
            }
            if (++digits > 19)
                return 0;
            m = m * 10 + (uint64_t)(*p - '0');
            exp10--;
        }
    }
    if (!seen_digit)
        return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        long e = 0;
        p++;
        if (p < end && (*p == '-' || *p == '+'))
            eneg = *p++ == '-';
        if (p == end)
            return 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (e > 100000)
                return 0;
            e = e * 10 + (*p - '0');
        }
        exp10 += eneg ? -e : e;
    }
    if (p != end)
        return 0;
    if (m > (UINT64_C(1) << 53))
        return 0;
    double d = (double)m;
    if (m == 0)
        d = 0.0;
    else if (exp10 >= 0 && exp10 <= 22)
        d *= exact_pow10[exp10];
    else if (exp10 < 0 && exp10 >= -22)
        d /= exact_pow10[-exp10];
    else
        return 0;
    *x = negative ? -d : d;
    return 1;
}

enum tb_number_status tb_number_parse(const char *s, size_t len, double *x)
{
    if (len == 0)
        return TB_NUMBER_INVALID;
    if (parse_fast(s, len, x))
        return TB_NUMBER_OK;
    if (is_nan_word(s, len))
        return TB_NUMBER_NAN;

    /* strtod() also takes hex, "inf" and leading blanks: refuse what a
     * recorder never writes. */
    const char *q = s[0] == '-' || s[0] == '+' ? s + 1 : s;
    if (!((*q >= '0' && *q <= '9') || *q == '.'))
        return strncasecmp(q, "inf", 3) == 0 ? TB_NUMBER_RANGE
                                              : TB_NUMBER_INVALID;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        return TB_NUMBER_INVALID;

    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end != s + len)
        return TB_NUMBER_INVALID;
    if (errno == ERANGE || !isfinite(d))
        return TB_NUMBER_RANGE;
    *x = d;
    return TB_NUMBER_OK;
}
