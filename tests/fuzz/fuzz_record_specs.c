/*
 * fuzz_record_specs.c -- tb-record's parsers of "FILE [NAME [UNIT]]",
 * of "[(COL,...)]CMD" and of sensors files, on any bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024], *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    struct sensor_spec sp;
    if (record_parse_sensor_spec(text, &sp, err, sizeof err) == 0) {
        free(sp.path);
        free(sp.name);
        free(sp.unit);
    }
    struct record_settings s = {0};
    struct exec_spec e;
    if (record_parse_exec_spec(text, &e, err, sizeof err) == 0) {
        s.execs = malloc(sizeof *s.execs);
        if (s.execs) {
            s.execs[0] = e;
            s.nexecs = 1;
        }
    }
    /* the same bytes as a sensors file */
    int fd = memfd_create("sensors", 0);
    if (fd >= 0) {
        char path[64];
        if (write(fd, data, size) == (ssize_t)size) {
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            record_read_sensors_file(path, &s, err, sizeof err);
        }
        close(fd);
    }
    record_settings_free(&s);
    free(text);
    return 0;
}
