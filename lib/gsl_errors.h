/*
 * gsl_errors.h -- GSL's default error handler aborts the process; libtbfit
 * reports every error by return value instead.  Private to libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_GSL_ERRORS_H
#define TB_GSL_ERRORS_H

/* Turn GSL's handler off: once for the process (it is a global, and the
 * fits of tb-fit -j run in several threads), before the first GSL call
 * of an entry point that could fail. */
void fit_gsl_errors_off(void);

#endif
