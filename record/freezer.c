/*
 * freezer.c -- the benchmark's control group for tb-record --window.  A
 * process group stopped by SIGSTOP misses what left it (a daemon the
 * benchmark started, setsid) and stops thread by thread as the signal
 * reaches each; a cgroup's freezer takes every task in the group however
 * it was started, and the group lets tb-record kill them all at the end.
 * The testbed this follows emulated its time partitions so.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "freezer.h"

static const char *const way_names[] = {"auto", "cgroup2", "cgroup1", "signal"};

int freezer_way_parse(const char *name, enum freezer_way *way)
{
    for (int w = 0; w < (int)(sizeof way_names / sizeof *way_names); w++)
        if (strcmp(name, way_names[w]) == 0) {
            *way = (enum freezer_way)w;
            return 0;
        }
    return -1;
}

const char *freezer_way_name(enum freezer_way way)
{
    return way_names[way];
}

/* The mount point of the cgroup hierarchy of WAY into DIR (SIZE bytes),
 * from /proc/self/mounts: 0, or -1 when none is mounted. */
static int mount_point(enum freezer_way way, char *dir, size_t size)
{
    FILE *m = fopen("/proc/self/mounts", "re");
    char line[4096], point[3072], type[64], opts[1024];
    int found = -1;
    if (!m)
        return -1;
    while (found < 0 && fgets(line, sizeof line, m)) {
        if (sscanf(line, "%*s %3071s %63s %1023s", point, type, opts) != 3)
            continue;
        int v1_freezer = strcmp(type, "cgroup") == 0 &&
                         (strstr(opts, ",freezer") || strncmp(opts, "freezer", 7) == 0);
        if ((way == FREEZER_CGROUP2 && strcmp(type, "cgroup2") == 0) ||
            (way == FREEZER_CGROUP1 && v1_freezer)) {
            snprintf(dir, size, "%s", point);
            found = 0;
        }
    }
    fclose(m);
    return found;
}

static int open_in(const char *dir, const char *file)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return open(path, O_WRONLY | O_CLOEXEC);
}

/* A group of WAY for the benchmark: 0, or -1 with WHY. */
static int make_group(struct freezer *f, enum freezer_way way, char *why, size_t len)
{
    char root[3072];
    const char *what = way == FREEZER_CGROUP2 ? "cgroup v2" : "cgroup v1 freezer";
    if (mount_point(way, root, sizeof root) < 0) {
        snprintf(why, len, "no %s mounted", what);
        return -1;
    }
    snprintf(f->dir, sizeof f->dir, "%s/tb-record.%ld", root, (long)getpid());
    if (mkdir(f->dir, 0755) < 0) {
        snprintf(why, len, "%s: cannot make a group: %s", f->dir, strerror(errno));
        f->dir[0] = '\0';
        return -1;
    }
    f->procs_fd = open_in(f->dir, "cgroup.procs");
    f->ctl_fd = open_in(f->dir, way == FREEZER_CGROUP2 ? "cgroup.freeze" : "freezer.state");
    if (f->procs_fd < 0 || f->ctl_fd < 0) {
        snprintf(why, len, "%s: %s: %s", f->dir, f->procs_fd < 0 ? "cgroup.procs" :
                 way == FREEZER_CGROUP2 ? "cgroup.freeze (a kernel before 5.2?)" : "freezer.state",
                 strerror(errno));
        freezer_close(f);
        return -1;
    }
    f->way = way;
    return 0;
}

static void empty_group(struct freezer *f);

/* Should tb-record die without closing the group (SIGKILL), a frozen
 * benchmark would stay frozen (a frozen task takes no SIGKILL in cgroup
 * v1) and the group stay behind: the guardian thaws and empties it. */
static void empty_orphaned_group(void *ctx)
{
    struct freezer *f = ctx;
    f->frozen = 1;
    empty_group(f);
}

int freezer_open(struct freezer *f, enum freezer_way want, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->procs_fd = f->ctl_fd = -1;
    f->guard = (struct guardian){0, -1};
    f->way = FREEZER_SIGNAL;
    if (want == FREEZER_SIGNAL)
        return 0;
    char v2[256], v1[256];
    if (want != FREEZER_AUTO ? make_group(f, want, err, errlen) < 0
                             : make_group(f, FREEZER_CGROUP2, v2, sizeof v2) < 0 &&
                                   make_group(f, FREEZER_CGROUP1, v1, sizeof v1) < 0) {
        if (want != FREEZER_AUTO)
            return -1;
        snprintf(f->why, sizeof f->why, "%s; %s", v2, v1);
        return 0;
    }
    guardian_start(&f->guard, empty_orphaned_group, f);
    return 0;
}

int freezer_join_fd(const struct freezer *f)
{
    /* (a zeroed struct, never opened, has no group: 0 is not its fd) */
    return f->way == FREEZER_CGROUP2 || f->way == FREEZER_CGROUP1 ? f->procs_fd : -1;
}

void freezer_set(struct freezer *f, pid_t pgid, int frozen)
{
    if (f->way == FREEZER_AUTO)   /* never opened: no window */
        return;
    if (f->way == FREEZER_SIGNAL) {
        if (pgid > 0)
            kill(-pgid, frozen ? SIGSTOP : SIGCONT);
    } else {
        const char *word = f->way == FREEZER_CGROUP2 ? (frozen ? "1" : "0")
                                                     : (frozen ? "FROZEN" : "THAWED");
        if (pwrite(f->ctl_fd, word, strlen(word), 0) < 0) {
            /* the group is gone (removed by hand): nothing left to stop */
        }
    }
    f->frozen = frozen;
}

/* SIGKILL every process left in the group; whether it was empty. */
static int kill_members(const struct freezer *f)
{
    char path[4200];
    long pid;
    int empty = 1;
    snprintf(path, sizeof path, "%s/cgroup.procs", f->dir);
    FILE *p = fopen(path, "re");
    if (!p)
        return 1;
    while (fscanf(p, "%ld", &pid) == 1) {
        kill((pid_t)pid, SIGKILL);
        empty = 0;
    }
    fclose(p);
    return empty;
}

/* Thaw the group, kill what is in it, remove it. */
static void empty_group(struct freezer *f)
{
    if (f->ctl_fd >= 0 && f->frozen)
        freezer_set(f, 0, 0);   /* a frozen task takes no SIGKILL in cgroup v1 */
    if (f->dir[0]) {
        /* what left the process group dies with the run, as the group does;
         * the group is removed once its tasks are gone (1 s at most) */
        for (int tries = 0; tries < 100; tries++) {
            if (kill_members(f) && rmdir(f->dir) == 0)
                break;
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        }
        f->dir[0] = '\0';
    }
}

void freezer_close(struct freezer *f)
{
    if (f->way == FREEZER_AUTO && !f->dir[0])   /* never opened (zeroed) */
        return;
    guardian_release(&f->guard);
    empty_group(f);
    if (f->procs_fd >= 0)
        close(f->procs_fd);
    if (f->ctl_fd >= 0)
        close(f->ctl_fd);
    f->procs_fd = f->ctl_fd = -1;
}
