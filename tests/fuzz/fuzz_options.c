/*
 * fuzz_options.c -- the option parsers the host tools share: each input
 * line is "ID ARG" for a model option, and every ARG is also tried as a
 * duration and as a number.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int ids[] = {
        TB_OPT_ORDER, TB_OPT_AMBIENT, TB_OPT_FROM, TB_OPT_TO, TB_OPT_TAU_MIN,
        TB_OPT_TAU_MAX, TB_OPT_LEVEL, TB_OPT_LABELS,
    };
    char err[TB_ERRMAX], *text = malloc(size + 1);
    struct tb_model_settings m;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    tb_model_settings_init(&m);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        int id = ids[(unsigned char)line[0] % (sizeof ids / sizeof ids[0])];
        const char *arg = line[0] ? line + 1 : line;
        tb_model_option(id, arg, &m, err, sizeof err);
        double x;
        tb_parse_duration(arg, &x);
        tb_number_parse(arg, strlen(arg), &x);
    }
    tb_model_settings_free(&m);
    free(text);
    return 0;
}
