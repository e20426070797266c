/*
 * window_spec.c -- the ON/FRAME of a scheduling window (tb-record
 * --window, and tb-series' window variable).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "window_spec.h"

/* A time of --window: "30ms", "500us", "0.1s"; a bare number is ms. */
static int parse_window_time(const char *text, size_t len, double *ms)
{
    char buf[64], *end;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    *ms = strtod(buf, &end);
    if (end == buf || !isfinite(*ms))
        return -1;
    if (!strcmp(end, "us"))
        *ms /= 1000;
    else if (!strcmp(end, "s"))
        *ms *= 1000;
    else if (*end && strcmp(end, "ms"))
        return -1;
    return 0;
}

int window_spec_parse(const char *text, double *on, double *frame)
{
    const char *slash = strchr(text, '/');
    if (!slash || parse_window_time(text, (size_t)(slash - text), on) < 0 ||
        parse_window_time(slash + 1, strlen(slash + 1), frame) < 0)
        return -1;
    return *frame >= 1 && *frame <= 3.6e6 && *on > 0 && *on < *frame ? 0 : -1;
}
