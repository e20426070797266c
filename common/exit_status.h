/*
 * exit_status.h -- the exit statuses of every host tool (tb-info, tb-fit,
 * tb-ident, tb-plot, tb-compare, tb-sim, tb-report), declared once; each
 * man page lists them, tbkit(7) holds the table, tests/exit-status.test
 * tries each tool on it (tb-load and tb-series keep the same numbers).
 * The first three are libtbfit's enum tb_status, so that a tool can exit
 * with an analysis's status as it is.  (tb-record, on the board, exits as
 * timeout(1) does instead.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_EXIT_STATUS_H
#define TB_EXIT_STATUS_H

#include "tbfit.h"

enum tb_exit {
    TB_EXIT_OK = TB_STATUS_OK,        /* done, every answer good */
    TB_EXIT_FIT = TB_STATUS_FIT,      /* done, but a fit failed (or was
                                         flagged with --strict), or
                                         tb-compare found a regression */
    TB_EXIT_INPUT = TB_STATUS_INPUT,  /* a usage error, or an input that
                                         cannot be read or used */
    TB_EXIT_OUTPUT = 3,               /* the output could not be written
                                         (full disk, closed pipe), or
                                         memory ran out */
    TB_EXIT_INCONCLUSIVE = 4,         /* tb-compare, tb-report: done, no
                                         regression found, but a group
                                         had too few sound fits to say */
};

#endif
