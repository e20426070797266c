/*
 * cpu_load.h -- each CPU's load in % from the jiffies in /proc/stat.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_CPU_LOAD_H
#define TB_RECORD_CPU_LOAD_H

#include <stddef.h>

#include "options.h"

struct cpu_load {
    int fd;
    size_t ncpu;
    unsigned long long *prev_busy, *prev_total;
    int have_prev;
    char *buf;
    size_t bufsize;
    char (*text)[16];   /* one value per CPU: "" before the second sample */
    int compat;         /* --compat: as thermobench, 6 digits and 0 for no time */
};

/* Open /proc/stat (under --procfs-root) and count the CPUs; 0, or -1 with
 * a message in ERR.  With --compat the loads are counted from here, as
 * thermobench counts them, so that the first sample has them too. */
int cpu_load_open(struct cpu_load *c, const struct record_settings *s,
                  char *err, size_t errlen);

/* Each CPU's load since the previous sample into c->text; -1 when
 * /proc/stat could not be read (the texts are then "nan"). */
int cpu_load_sample(struct cpu_load *c);

void cpu_load_close(struct cpu_load *c);

#endif
