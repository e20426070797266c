/*
 * freezer.h -- how tb-record --window stops and continues its benchmark:
 * through a control group of its own, whose freezer stops every thread of
 * the benchmark at once, children that left its process group included
 * (cgroup v2's cgroup.freeze, else cgroup v1's freezer.state), or, where
 * no group can be made, by SIGSTOP and SIGCONT to its process group.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_FREEZER_H
#define TB_FREEZER_H

#include <stddef.h>
#include <sys/types.h>

#include "guardian.h"

enum freezer_way { FREEZER_AUTO, FREEZER_CGROUP2, FREEZER_CGROUP1, FREEZER_SIGNAL };

struct freezer {
    enum freezer_way way;    /* the way taken (never AUTO once open) */
    char dir[4096];          /* the group made for the benchmark, or "" */
    int procs_fd;            /* its cgroup.procs, for the benchmark to join */
    int ctl_fd;              /* its cgroup.freeze or freezer.state */
    int frozen;
    struct guardian guard;   /* thaws and empties the group should
                                tb-record die (SIGKILL) */
    char why[600];           /* with AUTO: why no group could be made */
};

/* The way named NAME (auto, cgroup2, cgroup1, signal) into *WAY: 0, or -1. */
int freezer_way_parse(const char *name, enum freezer_way *way);

/* Its name in the run's metadata: "cgroup2", "cgroup1", "signal". */
const char *freezer_way_name(enum freezer_way way);

/* Make the group WANT asks for (AUTO: cgroup v2, else v1, else signals,
 * the reason in F->why).  0, or -1 with ERR when the way asked for cannot
 * be had. */
int freezer_open(struct freezer *f, enum freezer_way want, char *err, size_t errlen);

/* The descriptor the benchmark's process writes "0" to, before it execs,
 * to join the group (-1 with signals): so that its children are born in. */
int freezer_join_fd(const struct freezer *f);

/* Stop (FROZEN) or continue the benchmark, whose process group is PGID. */
void freezer_set(struct freezer *f, pid_t pgid, int frozen);

/* Continue the benchmark, kill what is left in the group (children that
 * left the process group), and remove the group.  A zeroed struct (never
 * opened) is accepted, as freezer_set() accepts it. */
void freezer_close(struct freezer *f);

#endif
