/*
 * schedule.h -- when tb-load's threads are on: a load level over time
 * (constant, a profile, or a random binary sequence), realised as duty
 * cycles of a period.  A pure function of the time since the start, so
 * every thread switches on the same absolute deadlines by itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_LOAD_SCHEDULE_H
#define TB_LOAD_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

struct schedule {
    double period;      /* s; 0: none (the level is then 0 or 100) */
    double util;        /* %: the level, or a PRBS bit's level when on */
    /* a profile: level[i * per_step + cpu] from time[i] on */
    size_t nsteps, per_step;
    double *time, *level;
    /* a random binary sequence of bits of bit s (0: none) */
    double bit;
    uint64_t seed;
};

/* The load level (%) of CPU (its index in the --cpus order) at T s after
 * the start; *NEXT gets when it next changes (INFINITY: never). */
double schedule_level(const struct schedule *s, size_t cpu, double t, double *next);

/* Whether CPU is on at T; *UNTIL gets when that next changes. */
int schedule_on(const struct schedule *s, size_t cpu, double t, double *until);

/* Read the profile PATH ("time_s,util" lines, or a util for each of NCPUS
 * CPUs; # comments, a header line) into S.  0, or -1 with ERR naming the
 * file and line. */
int schedule_read_profile(struct schedule *s, const char *path, size_t ncpus, char *err,
                          size_t errlen);
void schedule_free(struct schedule *s);

#endif
