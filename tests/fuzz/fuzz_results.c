/*
 * fuzz_results.c -- the reader of tb-fit CSV results (tb-compare's and
 * tb-plot's input) on any bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>

#include "tbfit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[TB_ERRMAX];
    tb_result *rows = NULL;
    size_t n = 0;
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    tb_results_read_stream(f, "fuzz.csv", &rows, &n, err, sizeof err);
    fclose(f);
    tb_results_free(rows, n);
    return 0;
}
