/*
 * journal.h -- tb-series' journal: what a series has done, kept in its
 * output directory so that the series resumes where it was cut.
 *
 * One line an event, synced to disk before the series goes on:
 *   tb-series journal 2 plan=HASH runs=N    the plan it belongs to
 *   saved cpu0 GOVERNOR MIN MAX             cpufreq as found, before a change
 *   saved zone thermal_zone0 KEY VALUE      a thermal zone's setting, likewise
 *   restored                                the settings given back (another
 *                                           plan's saved lines written again
 *                                           after it: not this series' to give)
 *   start NAME                              a run started
 *   done NAME STATUS                        its file complete; its exit status
 * A run with a start and no done after it was cut, and is run again.
 * Each line ends in " ~XXXXXXXX", a check of the words before it (FNV-1a,
 * 32 bits): a line edited or damaged by hand is found, and nothing of the
 * journal is used (it is what tb-series, as root, writes back to /sys).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_JOURNAL_H
#define TB_RECORD_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

struct journal {
    int fd;
    char *path;
    char **done;        /* runs done, and their exit statuses */
    int *status;
    size_t ndone;
    char **saved;       /* "cpuN GOVERNOR MIN MAX" not yet restored */
    size_t *saved_line; /* the journal's line of each */
    size_t nsaved;
    size_t unsaved_start; /* the line of a run started with nothing saved
                             since the journal began or cpufreq was given
                             back (0: none): saved lines deleted? */
    int fresh;          /* no run of this plan was journalled before */
};

/* Open (or start) DIR's journal for the plan HASH of NRUNS runs, locked
 * against a second tb-series.  A journal of another plan is an error,
 * unless RESTART, which starts it anew; so is a line that is not as
 * tb-series wrote it (its check, an unknown kind, a journal of an older
 * format), unless RESTART, and then the lines saved are not kept either.
 * 0; -2 when the journal is of another plan or has such a line (the
 * journal's path and line in ERR), -1 on other errors; the reason in ERR. */
int journal_open(struct journal *j, const char *dir, uint64_t hash, size_t nruns,
                 int restart, char *err, size_t errlen);

/* Append a line (printf FMT) and sync it.  0, or -1 with errno set. */
int journal_write(struct journal *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* 1 when the run NAME is done (its status in *STATUS), else 0. */
int journal_is_done(const struct journal *j, const char *name, int *status);

/* Take the run NAME as not done (its file is missing): it is run again. */
void journal_forget_done(struct journal *j, const char *name);

void journal_close(struct journal *j);

#endif
