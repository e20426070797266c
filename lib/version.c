/*
 * version.c -- which libtbfit a program runs with.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include "tbfit.h"

const char *tb_version(void)
{
    return PACKAGE_VERSION;
}
