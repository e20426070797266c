/*
 * window_spec.h -- the ON/FRAME of a scheduling window (tb-record
 * --window, and tb-series' window variable).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_WINDOW_SPEC_H
#define TB_RECORD_WINDOW_SPEC_H

/* "30ms/100ms" (each time in ms, us or s; a bare number is ms) into ON and
 * FRAME in ms: 0, or -1 when TEXT is not one, or ON is not shorter than
 * FRAME, or FRAME is under 1 ms or over an hour. */
int window_spec_parse(const char *text, double *on_ms, double *frame_ms);

#endif
