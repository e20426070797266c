/*
 * options.h -- tb-load's command line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_LOAD_OPTIONS_H
#define TB_LOAD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

enum load_exit {
    LOAD_EXIT_OK = 0,
    LOAD_EXIT_USAGE = 2,     /* a bad option, CPU list or profile */
    LOAD_EXIT_FAILURE = 3,   /* a CPU refused, memory or a thread could not be had */
};

struct load_settings {
    const struct kernel *kernel;
    int *cpus;                /* the CPUs, one thread each, in order */
    size_t ncpus;
    double time_s;            /* 0: until SIGINT or SIGTERM */
    double period_ms;         /* of a duty cycle; 0: not given */
    double util;              /* % of each period the load is on */
    const char *profile;      /* a file of "time_s,util[,util...]" lines */
    double prbs_ms;           /* a bit of the random on/off sequence; 0: none */
    uint64_t seed;
    const char *util_name;    /* the key of the util= lines (default "util") */
    double report_ms;         /* counters every so often */
    size_t size;              /* bytes of a memory kernel's buffer */
    const char *sysfs_root;
    int realtime;             /* the workers' SCHED_FIFO priority; 0: none */
    int verbose;
    int list;
};

/* Parse ARGV into S.  Returns -1 to go on, or the exit status (after
 * --help, --version or a usage error, said on stderr). */
int load_parse_arguments(int argc, char **argv, struct load_settings *s);
void load_settings_free(struct load_settings *s);

/* Parse a CPU list such as "0-3,5" into the sorted set CPUS (one flag a
 * CPU number, MAX of them); 0, or -1 with ERR. */
int load_parse_cpu_list(const char *text, unsigned char *cpus, size_t max, char *err,
                        size_t errlen);

#endif
