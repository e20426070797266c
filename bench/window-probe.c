/*
 * window-probe.c -- a benchmark for bench/record's --window measurement:
 * it spins reading CLOCK_MONOTONIC for SECONDS and writes to FILE, one a
 * line, the length in µs of every pause longer than 1 ms it saw (the
 * windows tb-record closed on it), so that each way of stopping it
 * (a cgroup's freezer, SIGSTOP) can be held against the schedule.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: window-probe SECONDS FILE\n");
        return 2;
    }
    double secs = atof(argv[1]), start = now_s(), last = start;
    FILE *f = fopen(argv[2], "w");
    if (!f)
        return 1;
    setvbuf(f, NULL, _IOLBF, 0);   /* each pause kept, whenever it is killed */
    for (double t = start; t - start < secs; t = now_s()) {
        if (t - last > 1e-3)
            fprintf(f, "%.0f\n", (t - last) * 1e6);
        last = t;
    }
    return fclose(f) == 0 ? 0 : 1;
}
