/*
 * read-run.c -- time libtbfit's run reader on one file and report memory.
 * Used by bench/read; prints one line of key=value figures.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tbfit.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident memory now, from /proc/self/statm; the peak so far would also
 * count what start-up touched and gave back. */
static long current_rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    char err[TB_ERRMAX];

    if (argc != 2) {
        fprintf(stderr, "usage: read-run RUN.csv\n");
        return 2;
    }
    long before = current_rss_kib();
    double t0 = now_s();
    tb_run *run = tb_run_read(argv[1], NULL, err, sizeof err);
    double t1 = now_s();
    if (!run) {
        fprintf(stderr, "read-run: %s\n", err);
        return 1;
    }
    size_t points = tb_run_rows(run);   /* the time column */
    for (size_t i = 1; i < tb_run_ncolumns(run); i++)
        points += tb_run_column(run, i)->n;
    printf("seconds=%.4f rows=%zu columns=%zu numbers=%zu number_mib=%.2f "
           "rss_before_mib=%.2f rss_peak_mib=%.2f\n",
           t1 - t0, tb_run_rows(run), tb_run_ncolumns(run), points,
           points * 8.0 / 1048576, before / 1024.0, peak_rss_kib() / 1024.0);
    tb_run_free(run);
    return 0;
}
