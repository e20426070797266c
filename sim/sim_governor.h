/*
 * sim_governor.h -- tb-sim's closed loop: a measured board's network, an
 * operating-point table and the kernel's governor (--policy), as a run in
 * the thermobench format or, for several policies, their ranking.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_SIM_GOVERNOR_H
#define TB_SIM_GOVERNOR_H

#include <stddef.h>

#include "tbfit.h"

#define SIM_MAX_POLICIES 1024

struct governor_settings {
    const char *policy[SIM_MAX_POLICIES];   /* --policy SPEC, in order */
    size_t npolicies;
    const char *opp;          /* --opp FILE */
    double load;              /* --load: the CPUs' busy share (default 1) */
    tb_schedule load_schedule;   /* --load 'frame ...': the share over time */
    int scheduled;               /* load_schedule holds one */
    double idle_w;            /* --idle-power; NaN: the network's, else 0 */
    double limit;             /* --limit: the ranking's peak limit; NaN for a run */
    const char *zone_sensor;  /* --zone-sensor: a --model's sensor the zone reads */
    const char *cpu_input[TB_GOV_MAX_DEVICES];   /* --cpu-input [DEVICE=]INPUT: the
                                                    --model's input a device's power drives */
    size_t ncpu_inputs;
    const char *weight[TB_GOV_MAX_DEVICES];      /* --weight DEVICE=N */
    size_t nweights;
};

/* The CPUs' cooling devices: each one's operating points (--opp, a
 * device each) and weight (--weight).  The governor keeps pointers into
 * the tables: the struct stays put while it runs. */
struct governor_devices {
    tb_opp_table table[TB_GOV_MAX_DEVICES];
    tb_cooling_device dev[TB_GOV_MAX_DEVICES];
    size_t n;
};

/* G's --opp devices with their --weight into D; a --policy SPEC into P
 * and NAME; a governor started on P (named NAME) over D's devices.  Each
 * 0, or an exit status with the reason said. */
int governor_read_devices(const struct governor_settings *g, struct governor_devices *d);
void governor_devices_clear(struct governor_devices *d);
int governor_parse_policy(const char *spec, tb_zone_policy *p, char *name, size_t namelen);
int governor_start(const tb_zone_policy *p, const char *name, const struct governor_devices *d,
                   tb_governor *gov);

/* The run or ranking of G's policies on BOARD (its modes, or its model
 * with the zone's sensor and the inputs held, each device's input from
 * G's --cpu-input; its ambient) for DURATION s sampled every PERIOD s: one policy's run to
 * OUTPUT (NULL: standard output) with the META lines (KEY=VALUE);
 * several, ranked, to standard output.  An exit status. */
int governor_main(const struct governor_settings *g, const tb_closed_loop *board, double duration,
                  double period, const char *output, const char *const *metas, int nmetas);

#endif
