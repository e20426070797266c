/*
 * gsl_errors.c -- GSL's error handler off, once.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <gsl/gsl_errno.h>
#include <pthread.h>

#include "gsl_errors.h"

static void handler_off(void)
{
    gsl_set_error_handler_off();
}

void fit_gsl_errors_off(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, handler_off);
}
