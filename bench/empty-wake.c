/*
 * empty-wake.c -- what one periodic wake-up costs on this machine, with
 * nothing done: the floor under tb-record's CPU time per sample, which
 * getrusage() counts in the same way.  Used by bench/record.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: empty-wake PERIOD_MS COUNT\n");
        return 2;
    }
    long period_ns = (long)(atof(argv[1]) * 1e6);
    int count = atoi(argv[2]);
    struct timespec t;
    struct rusage ru;

    clock_gettime(CLOCK_MONOTONIC, &t);
    for (int i = 0; i < count; i++) {
        t.tv_nsec += period_ns;
        while (t.tv_nsec >= 1000000000) {
            t.tv_nsec -= 1000000000;
            t.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
    }
    getrusage(RUSAGE_SELF, &ru);
    double us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    printf("%.1f\n", us / count);
    return 0;
}
