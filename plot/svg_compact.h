/*
 * svg_compact.h -- make PLplot's SVG small: its lines as few paths.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_PLOT_SVG_COMPACT_H
#define TB_PLOT_SVG_COMPACT_H

/* Rewrite the SVG at PATH with each run of consecutive <polyline>
 * elements that differ only in their points as one <path> (PLplot writes
 * every tick, grid line and dash as an element of its own, 170 bytes
 * each).  0, or -1 with errno set when it cannot be read or written
 * whole (the file is then as it was, or cut). */
int svg_merge_polylines(const char *path);

#endif
