/*
 * cpufreq.h -- hold CPUs at a frequency through the kernel's cpufreq
 * files, and give them back as they were.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_CPUFREQ_H
#define TB_RECORD_CPUFREQ_H

#include <stddef.h>
#include <stdint.h>

struct cpufreq_cpu {
    int cpu;
    char *dir;                /* .../cpuN/cpufreq */
    int userspace;            /* the userspace governor and scaling_setspeed */
    uint64_t *offered;        /* scaling_available_frequencies, kHz; NULL: */
    size_t noffered;
    uint64_t lowest, highest; /* cpuinfo_min_freq and cpuinfo_max_freq */
    char governor[64];        /* as found, to be given back */
    char governors[512];      /* scaling_available_governors; "" unknown */
    uint64_t min, max;        /* scaling_min_freq and scaling_max_freq */
};

struct cpufreq {
    struct cpufreq_cpu *cpus;
    size_t n;
    int changed;              /* a frequency was set since the settings were saved */
};

/* Find the CPUs of LIST ("0-3,6"; NULL: every CPU with cpufreq) under
 * SYSFS_ROOT (NULL: /sys) and read what they offer and how they are set.
 * 0, or -1 with the reason in ERR. */
int cpufreq_open(struct cpufreq *c, const char *sysfs_root, const char *list,
                 char *err, size_t errlen);

void cpufreq_close(struct cpufreq *c);

/* 0 when every CPU offers KHZ; else -1 with what they offer in ERR. */
int cpufreq_check(const struct cpufreq *c, uint64_t khz, char *err, size_t errlen);

/* Hold every CPU at KHZ.  0, or -1 with the file that refused in ERR. */
int cpufreq_set(struct cpufreq *c, uint64_t khz, char *err, size_t errlen);

/* Give every CPU back its governor and limits.  0, or -1 (ERR). */
int cpufreq_restore(struct cpufreq *c, char *err, size_t errlen);

/* The saved settings of CPU I as one line of words ("cpu0 schedutil
 * 400000 1600000"), for a journal; and back from such a line: 1 when it
 * names one of C's CPUs and was taken, 0 when not, -1 when it is not such
 * a line or not what the CPU can be given (a governor it does not offer,
 * limits outside cpuinfo_min_freq..cpuinfo_max_freq or crossed), with
 * why in ERR; nothing is taken then. */
void cpufreq_saved_text(const struct cpufreq *c, size_t i, char *buf, size_t len);
int cpufreq_saved_parse(struct cpufreq *c, const char *text, char *err, size_t errlen);

#endif
