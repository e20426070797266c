/*
 * options.h -- tb-record's settings and the parsers of its command line,
 * its sensors files and its --exec specifications.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_RECORD_OPTIONS_H
#define TB_RECORD_OPTIONS_H

#include <stddef.h>

/* As timeout(1) and other command wrappers: otherwise the benchmark's own
 * status, or 128+N when it (or tb-record) died of signal N. */
enum record_exit {
    RECORD_EXIT_OK = 0,
    RECORD_EXIT_FAILURE = 125,      /* usage, a sensor, the output */
    RECORD_EXIT_CANNOT_EXEC = 126,  /* the benchmark cannot be executed */
    RECORD_EXIT_NOT_FOUND = 127,    /* the benchmark does not exist */
    RECORD_EXIT_READER_GONE = 141,  /* -O -'s reader closed it (128 + SIGPIPE):
                                       the benchmark stopped, not a failure */
    /* --compat=thermobench, or called as thermobench: its statuses */
    RECORD_EXIT_TB_FAILURE = 1,     /* a bad spec, a sensor, the output */
    RECORD_EXIT_TB_USAGE = 64,      /* a bad command line (argp's EX_USAGE) */
};

struct sensor_spec {
    char *path;
    char *name;   /* NULL: named as thermobench names it */
    char *unit;   /* NULL: the unit the sensor's kind implies */
};

/* A column fed by a helper command (--exec, or a sensors file's !SPEC). */
struct exec_column {
    char *name;
    int is_key;      /* "KEY=": takes the helper's KEY=VALUE lines */
    int keep_last;   /* "@COL": the last value goes into the next sample row */
};

struct exec_spec {
    char *cmd;
    struct exec_column *cols;
    size_t ncols;
};

/* A column (or block of columns) in the order the command line gave it:
 * thermobench's column order, which --compat keeps. */
enum given_kind { GIVEN_SENSOR, GIVEN_CPU_LOADS, GIVEN_KEY, GIVEN_STDOUT, GIVEN_EXEC };
struct given_column {
    enum given_kind kind;
    size_t index;   /* into sensors, columns or execs */
};

struct record_settings {
    double time_limit_s;       /* 0: until the benchmark ends */
    double cooldown_s;         /* recorded after the benchmark's end; 0: none */
    double window_on_ms;       /* --window ON/FRAME: the benchmark runs ON ms */
    double window_frame_ms;    /* of every FRAME ms; 0: always */
    int window_freeze;         /* --freeze: an enum freezer_way */
    double period_ms;
    const char *output_dir;
    const char *output;        /* file, "-" for stdout; NULL: DIR/NAME.csv */
    const char *name;
    const char *sysfs_root;    /* stands for /sys in sensor paths */
    const char *procfs_root;   /* stands for /proc */
    struct sensor_spec *sensors;
    size_t nsensors;
    int no_sensors;            /* a sensors file of /dev/null: none at all */
    char **columns;            /* KEYs of the benchmark's KEY=VALUE lines */
    size_t ncolumns;
    int stdout_column;         /* -l: other benchmark lines to "stdout" */
    struct exec_spec *execs;   /* --exec, and the !SPEC lines of sensors files */
    size_t nexecs;
    int exec_wait;
    int cpu_usage;
    double wait_temp;          /* NaN: do not wait */
    double wait_timeout_s;
    const char *fan_cmd;
    double fan_on;             /* fan speed during the benchmark; <0: off */
    int randomize;
    double sched_deadline;     /* budget in % of the period; 0: not used */
    int unbuffered;
    int fsync;
    int verbose;
    int list_sensors;
    int all_sensors;
    char **metas;              /* "KEY=VALUE" */
    size_t nmetas;
    int no_meta;
    int compat;                /* --compat=thermobench, or called thermobench */
    struct given_column *given; /* sensors, keys, helpers... as given */
    size_t ngiven;
    char **bench_argv;         /* NULL when no benchmark is run */
    char **argv;               /* our own command line, for the CSV */
    int argc;
};

/* Parse the command line into S.  Returns -1 to go on recording, or the
 * exit status (after --help, --version or a usage error, which is printed).
 * Called as thermobench (argv[0]) or given --compat=thermobench, S->compat
 * is set and the statuses are thermobench's. */
int record_parse_arguments(int argc, char **argv, struct record_settings *s);

/* Parse "FILE [NAME [UNIT]]"; 0, or -1 with a message in ERR. */
int record_parse_sensor_spec(const char *spec, struct sensor_spec *out,
                             char *err, size_t errlen);

/* Parse "[(COL[,COL...])]CMD"; 0, or -1 with a message in ERR. */
int record_parse_exec_spec(const char *spec, struct exec_spec *out,
                           char *err, size_t errlen);

/* Add the sensors of a sensors file; 0, or -1 with "FILE:LINE: ..." in ERR. */
int record_read_sensors_file(const char *path, struct record_settings *s,
                             char *err, size_t errlen);

void record_settings_free(struct record_settings *s);

#endif
