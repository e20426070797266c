/*
 * sensor.h -- sysfs and procfs files sampled by tb-record, and the power
 * derived from cumulative energy counters.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_SENSOR_H
#define TB_RECORD_SENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "options.h"

enum sensor_kind {
    SENSOR_FILE,    /* the file's first number, as written */
    SENSOR_POWER,   /* W from a cumulative µJ counter: ΔE/Δt */
};

struct sensor {
    enum sensor_kind kind;
    char *path;         /* the file opened, after --sysfs-root */
    char *header;       /* NAME/UNIT as it goes into the CSV header */
    int fd;             /* -1 while its file is gone */
    dev_t dev;          /* the file opened, to tell when the path no */
    ino_t ino;          /* longer leads to it */
    int failing;        /* the last read failed (reported once per failure) */
    int read_errno;     /* why it failed: read(2)'s errno, 0: not a number */
    int too_long;       /* its value ran past the read buffer */
    double max_energy;  /* µJ at which the counter wraps; 0: unknown */
    double prev_energy; /* µJ, and when, for SENSOR_POWER */
    int64_t prev_ns;
    int have_prev;
    int as_thermobench; /* --compat: the number as thermobench prints it */
};

/* Open the sensors S asks for: -S and sensors files, every sensor found
 * with -A, or every thermal zone when nothing is named.  0, or -1 with a
 * message in ERR (a file that does not exist, say). */
int sensors_open(const struct record_settings *s, struct sensor **out,
                 size_t *n, char *err, size_t errlen);

/* What the kernel's thermal management was when a run was recorded, for
 * its metadata, appended to the *NMETAS strings *METAS: for each thermal
 * zone among the N sensors V, "trip.NAME.K=TYPE TEMP" (TEMP in m°C, as the
 * kernel writes it) for each trip point, and where the zone has them its
 * "policy.NAME" (the governor), "available_policies.NAME", "mode.NAME"
 * and the power allocator's "sustainable_power.NAME", "k_po.NAME",
 * "k_pu.NAME", "k_i.NAME", "k_d.NAME", "integral_cutoff.NAME"; for each
 * cooling device among them, "max_state.NAME".  NAME is the sensor's
 * column name.  0, or -1 when memory runs out. */
int sensors_zone_metas(const struct sensor *v, size_t n, char ***metas, size_t *nmetas);

/* Read SENSOR at time NOW_NS into BUF: the kernel's text for a file
 * ("41300"), a power with 6 digits, "nan" when it cannot be read, "" when
 * there is no value yet (a power's first sample).  With --compat, a file's
 * value is read and printed as thermobench does (scanf's %lf, printf's %g,
 * more digits only where %g would change the number).  Returns 0, or -1
 * when the read failed. */
int sensor_read(struct sensor *sensor, int64_t now_ns, char *buf, size_t size);

/* Whether SENSOR's path still leads to the file it reads (checked once a
 * second or so: two syscalls).  A file removed leaves the sensor closed
 * (it reads as nan, ENOENT) until the path is there again; a file replaced
 * is reopened.  Returns 0 when nothing changed, SENSOR_GONE, SENSOR_BACK
 * or SENSOR_REPLACED. */
enum { SENSOR_GONE = 1, SENSOR_BACK, SENSOR_REPLACED };
int sensor_check(struct sensor *sensor);

/* Print every sensor found under S's roots, one "NAME\tUNIT\tPATH" line
 * each, to F; returns how many. */
size_t sensors_list(const struct record_settings *s, FILE *f);

void sensors_close(struct sensor *sensors, size_t n);

#endif
