/*
 * fuzz_run_reader.c -- the run reader on any bytes: it must say what is
 * wrong, never crash, leak or read out of bounds; what it reads must
 * select and summarise cleanly.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tbfit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[TB_ERRMAX];
    FILE *f = fmemopen((void *)data, size ? size : 1, "r");
    if (!f)
        return 0;
    if (size == 0)
        fgetc(f);   /* fmemopen wants a size: an empty stream is one read past */
    tb_run *run = tb_run_read_stream(f, "fuzz.csv", NULL, err, sizeof err);
    fclose(f);
    if (!run)
        return 0;
    size_t idx[8];
    tb_run_select(run, "*temp*", idx, 8, err, sizeof err);
    tb_run_select(run, "2", idx, 8, err, sizeof err);
    for (size_t i = 0; i < tb_run_ncolumns(run); i++) {
        tb_column_summary s;
        tb_column_summarise(tb_run_column(run, i), &s);
    }
    tb_run_meta(run, "kernel");
    time_t when;
    tb_run_start_time(run, &when);
    tb_run_free(run);
    return 0;
}
