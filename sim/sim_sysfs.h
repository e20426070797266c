/*
 * sim_sysfs.h -- the files of tb-sim's fake board (--sysfs), and the
 * kernel's governor run on it (--sysfs with --policy and --opp): the
 * zone's cooling state, the CPUs' frequency and the work done kept as a
 * board under that governor would.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_SIM_SYSFS_H
#define TB_SIM_SYSFS_H

#include <stddef.h>

#include "sim_governor.h"
#include "tbfit.h"

/* DIR/NAME holding TEXT and a newline, padded to 20 characters and
 * rewritten in place (a value that changes: a reader never sees it
 * empty), or whole (a name).  0, or -1 with errno. */
int sysfs_put(const char *dir, const char *name, const char *text);
int sysfs_put_name(const char *dir, const char *name, const char *text);
/* mkdir -p. */
int sysfs_mkdirs(const char *path);

/* The kernel's governor on the fake board. */
struct live_governor {
    struct governor_devices devs;   /* one: the board's cooling device */
    const tb_opp_table *table;      /* its operating points */
    tb_zone_policy policy;
    char name[128];
    tb_governor gov;
    double idle_w, load;
    double next_poll;   /* s of simulated time */
    double work;        /* operations done */
    double speed;       /* --speed: work_done grows at the model's rate in real time */
    double energy;      /* J drawn */
    /* the zone's files as last read (live_governor_poll() follows them) */
    char seen[7 + 2 * TB_GOV_MAX_TRIPS][24];   /* (each trip's temp, then hyst) */
    int user_space;     /* the state is what cur_state holds */
    int held;           /* a governor the board does not run: state held */
    int said;           /* a refused policy said (once) */
};

/* Read G's operating points and its one policy.  0, or an exit status
 * (said). */
int live_governor_start(struct live_governor *lg, const struct governor_settings *g);
void live_governor_clear(struct live_governor *lg);

/* The board's power now (W), and its work rate into *OPS. */
double live_governor_power(const struct live_governor *lg, double *ops);

/* What was written under SYSFS since the last look, taken up as the
 * kernel takes it at its next poll: zone 0's policy (step_wise,
 * power_allocator, or user_space: the state then what cur_state holds),
 * passive trips, sustainable_power, k_po, k_pu, k_i, k_d and
 * integral_cutoff, and the CPUs' busy share in tbsim/load (as a benchmark
 * on the board writes it); the constants the allocator estimated shown
 * in the zone.  A file that reads empty or unreadable is taken up later.
 * Once a step, not at each poll: the files change between runs. */
void live_governor_follow(struct live_governor *lg, const char *sysfs);

/* A poll of the zone at TEMP_C at simulated time T: the governor's
 * decision (none under user_space), the next poll scheduled. */
void live_governor_poll(struct live_governor *lg, double t, double temp_c);

/* The files the governor's board shows under SYSFS (NZONES zones): each
 * zone's policy, trips and the allocator's constants, the cooling
 * device's states, the CPUs' frequencies; then, at each step, the state,
 * the frequency and DIR/tbsim/work_done.  0, or -1 with the directory
 * that failed in DIR. */
int live_governor_make_tree(const struct live_governor *lg, const char *sysfs, int nzones, char *dir,
                            size_t size);
int live_governor_write(const struct live_governor *lg, const char *sysfs, char *dir, size_t size);

#endif
