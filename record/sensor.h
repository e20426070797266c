/*
 * sensor.h -- sysfs and procfs files sampled by tb-record.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_SENSOR_H
#define TB_RECORD_SENSOR_H

#include <stddef.h>

#include "options.h"

struct sensor {
    char *path;     /* the file opened, after --sysfs-root */
    char *header;   /* NAME/UNIT as it goes into the CSV header */
    int fd;
    int failing;    /* the last read failed (reported once per failure) */
};

/* Open the sensors S asks for, or every thermal zone when it names none.
 * Returns 0, or -1 with a message in ERR. */
int sensors_open(const struct record_settings *s, struct sensor **out,
                 size_t *n, char *err, size_t errlen);

/* Read SENSOR's current value into BUF as the text the kernel gave
 * ("41300"); "nan" when it cannot be read or is not a number.  Returns 0,
 * or -1 when the read failed (BUF holds "nan"). */
int sensor_read(struct sensor *sensor, char *buf, size_t size);

void sensors_close(struct sensor *sensors, size_t n);

#endif
