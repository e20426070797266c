/*
 * options.h -- tb-record's settings and the parsers of its command line
 * and sensors files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_OPTIONS_H
#define TB_RECORD_OPTIONS_H

#include <stddef.h>

/* As timeout(1) and other command wrappers: otherwise the benchmark's own
 * status, or 128+N when it (or tb-record) died of signal N. */
enum record_exit {
    RECORD_EXIT_OK = 0,
    RECORD_EXIT_FAILURE = 125,      /* usage, a sensor, the output */
    RECORD_EXIT_CANNOT_EXEC = 126,  /* the benchmark cannot be executed */
    RECORD_EXIT_NOT_FOUND = 127,    /* the benchmark does not exist */
};

struct sensor_spec {
    char *path;
    char *name;   /* NULL: named as thermobench names it */
    char *unit;   /* NULL: the unit the sensor's kind implies */
};

struct record_settings {
    double time_limit_s;       /* 0: until the benchmark ends */
    double period_ms;
    const char *output_dir;
    const char *output;        /* file, "-" for stdout; NULL: DIR/NAME.csv */
    const char *name;
    const char *sysfs_root;    /* stands for /sys in sensor paths */
    struct sensor_spec *sensors;
    size_t nsensors;
    char **columns;            /* KEYs of the benchmark's KEY=VALUE lines */
    size_t ncolumns;
    char **bench_argv;         /* NULL when no benchmark is run */
    char **argv;               /* our own command line, for the CSV */
    int argc;
};

/* Parse the command line into S.  Returns -1 to go on recording, or the
 * exit status (after --help, --version or a usage error, which is printed). */
int record_parse_arguments(int argc, char **argv, struct record_settings *s);

/* Parse "FILE [NAME [UNIT]]"; 0, or -1 with a message in ERR. */
int record_parse_sensor_spec(const char *spec, struct sensor_spec *out,
                             char *err, size_t errlen);

/* Add the sensors of a sensors file; 0, or -1 with "FILE:LINE: ..." in ERR. */
int record_read_sensors_file(const char *path, struct record_settings *s,
                             char *err, size_t errlen);

void record_settings_free(struct record_settings *s);

#endif
