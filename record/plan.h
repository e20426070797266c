/*
 * plan.h -- tb-series' plan files: what is varied, how each run is
 * recorded and started, and the runs that make the series.
 *
 * A plan is plain text, one "key = value" a line (see tb-series(1),
 * PLAN FILES).  plan_read() checks all of it before anything runs, and
 * every error names the plan's line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_PLAN_H
#define TB_RECORD_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define PLAN_ERRMAX 512

/* A variable: "vary NAME = V..." or a name set by "with" lines. */
struct plan_var {
    char *name;
    char **values;
    size_t nvalues;
    int line;          /* the line that declared it */
    int pinned;        /* set by "with" lines, not crossed */
};

/* One run of the series: a value of every variable and a repeat. */
struct plan_run {
    size_t *value;     /* index into vars[v].values, for each variable */
    int repeat;        /* 1 .. plan.repeat */
    char *name;        /* the file's name, without .csv; unique */
};

struct plan {
    char *path;
    double time_s;               /* 0: until the benchmark ends */
    double period_ms;            /* 0: the recorder's default */
    int repeat;
    int shuffle;                 /* order = shuffle SEED */
    uint64_t seed;
    double cool_temp;            /* °C to wait for; NaN: not this way */
    double cool_rate;            /* °C/min the fall must slow to; NaN: not */
    double cool_timeout_s;       /* the longest wait; a pause without a
                                    temperature or rate */
    double cool_window_s;        /* the rate's window ("over 2m"); 0: 1 min */
    int has_cooldown;
    char *cool_sensor;           /* zone type or file; NULL: the first zone */
    char *fan_cmd;
    char *cpus;                  /* the CPUs whose frequency "freq" sets */
    char *zone;                  /* the thermal zone its settings set (a
                                    type or thermal_zoneN); NULL: the first */
    char *recorder;              /* NULL: tb-record beside us or on PATH */
    char *name_template;         /* NULL: the values, joined by '_' */
    char **record;               /* tb-record's options, as words */
    size_t nrecord;
    char **run;                  /* the benchmark, as words with {name} */
    size_t nrun;
    struct plan_var *vars;
    size_t nvars;
    size_t **with;               /* each "with" line: a value of each pinned var */
    size_t nwith;
    int with_line;               /* the first "with" line */
    struct plan_run *runs;       /* in the order they run */
    size_t nruns;
    uint64_t hash;               /* of everything that makes the runs */
};

/* Read and check the plan at PATH and expand its runs.  0, or -1 with
 * "PATH:LINE: what" (or "PATH: what") in ERR. */
int plan_read(const char *path, struct plan *p, char *err, size_t errlen);

void plan_free(struct plan *p);

/* The value of variable NAME in run R, or NULL when there is none. */
const char *plan_value(const struct plan *p, const struct plan_run *r, const char *name);

/* WORD with every {name} of R's variables (and {repeat}) substituted,
 * {name:sh} by the value quoted for sh ('...'); malloc'd, or NULL when
 * memory runs out. */
char *plan_substitute(const struct plan *p, const struct plan_run *r, const char *word);

/* Split LINE into shell-like words ('...', "...", \, and # starting a
 * comment at a word's start) into *WORDS (malloc'd, NULL-terminated).
 * The number of words, or -1 with the reason in ERR. */
int plan_split_words(const char *line, char ***words, char *err, size_t errlen);

void plan_free_words(char **words);

/* A duration: "900", "900s", "15m", "15min", "1h", "1h30m".  Seconds, or
 * -1 when TEXT is not one. */
double plan_parse_duration(const char *text);

/* A CPU frequency: "600MHz", "1.2GHz", "600000kHz" or kHz as cpufreq
 * writes it ("600000").  kHz, or 0 when TEXT is not one. */
uint64_t plan_parse_frequency(const char *text);

#endif
