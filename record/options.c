/*
 * options.c -- tb-record's command line, compatible with thermobench's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "tbfit.h"   /* its libc-only quantities: tb_parse_duration() and the like */
#include "freezer.h"
#include "window_spec.h"

enum {
    OPT_SYSFS_ROOT = 256, OPT_PROCFS_ROOT, OPT_SCHED_DEADLINE, OPT_UNBUFFERED,
    OPT_FSYNC, OPT_LIST_SENSORS, OPT_META, OPT_NO_META, OPT_COOLDOWN, OPT_WINDOW,
    OPT_COMPAT, OPT_FREEZE,
};
/* "+": options end at the benchmark's name, as in thermobench. */
#define OPTSTRING "+:t:p:o:O:n:S:s:c:le:Euw:W:f:F::rAvhV"

static const char usage_text[] =
    "Usage: tb-record [OPTION]... [--] [BENCHMARK [ARG]...]\n"
    "Run BENCHMARK and sample sensors on a fixed period into one CSV file in\n"
    "the thermobench format.  Without a benchmark, record until --time ends\n"
    "or until interrupted.\n"
    "\n"
    "Run and output:\n"
    "  -t, --time=TIME           stop after TIME (900, 900s, 15m, 15min, 1h30m;\n"
    "                            a bare number is seconds): the benchmark is\n"
    "                            stopped\n"
    "      --cooldown=TIME       after the benchmark ends (or is stopped), keep\n"
    "                            recording for TIME: the cooling curve; the\n"
    "                            benchmark_running column marks the end\n"
    "  -p, --period=MS           sampling period in milliseconds (default 1000;\n"
    "                            fractions such as 0.5 are accepted), or a time\n"
    "                            with its unit (1s, 500ms)\n"
    "  -o, --output_dir=DIR      write DIR/NAME.csv (default .)\n"
    "  -O, --output=FILE         write FILE instead; - for standard output\n"
    "  -n, --name=NAME           name the file NAME.csv (default: the\n"
    "                            benchmark's name, or tb-record)\n"
    "      --meta=KEY=VALUE      add a \"# KEY: VALUE\" line; may be repeated\n"
    "      --no-meta             no metadata lines: line 2 is the header, as\n"
    "                            thermobench writes it\n"
    "      --compat=thermobench  write and exit as thermobench does: no metadata\n"
    "                            lines, values as it prints them, its exit\n"
    "                            statuses (also when called as thermobench)\n"
    "      --unbuffered          write every row at once (default: at least\n"
    "                            once a second)\n"
    "      --fsync               also sync the file to disk each time\n"
    "\n"
    "Sensors:\n"
    "  -S, --sensor=\"FILE [NAME [UNIT]]\"\n"
    "                            sample FILE as column NAME/UNIT; may be repeated\n"
    "  -s, --sensors_file=FILE   sensors from FILE: one \"FILE [NAME [UNIT]]\" or\n"
    "                            \"!SPEC\" (a helper, as --exec) a line; #\n"
    "                            starts a comment\n"
    "  -A, --all-sensors         sample every sensor --list-sensors finds\n"
    "      --list-sensors        print the sensors found and exit\n"
    "  -u, --cpu-usage           record each CPU's load in % from /proc/stat\n"
    "      --sysfs-root=DIR      read /sys from DIR (a fake tree for tests)\n"
    "      --procfs-root=DIR     read /proc from DIR\n"
    "\n"
    "Benchmark output and helpers:\n"
    "  -c, --column=KEY          record the benchmark's KEY=VALUE output lines\n"
    "                            as column KEY; may be repeated; a * in KEY is\n"
    "                            each CPU number of the machine (CPU*_work_done)\n"
    "  -l, --stdout              record the benchmark's other output lines in\n"
    "                            a column named stdout\n"
    "  -e, --exec=\"[(COL[,COL...])]CMD\"\n"
    "                            run CMD alongside and record its output: COL=\n"
    "                            takes its COL=VALUE lines, @COL keeps the last\n"
    "                            value for the next sample row, a plain COL takes\n"
    "                            the other lines; may be repeated\n"
    "  -E, --exec-wait           wait for the --exec helpers to end instead of\n"
    "                            stopping them\n"
    "\n"
    "Testbed:\n"
    "  -w, --wait=TEMP           start the benchmark once the first sensor reads\n"
    "                            TEMP or less (40, 40C, 40°C, 313.15K)\n"
    "  -W, --wait-timeout=TIME   give up waiting after TIME (default 600 s)\n"
    "  -f, --fan-cmd=CMD         run \"CMD SPEED\" (0 to 1) to drive a fan: full\n"
    "                            while waiting, off during the benchmark\n"
    "  -F, --fan-on[=SPEED]      keep the fan at SPEED during the benchmark\n"
    "                            (default 1)\n"
    "      --window=ON/FRAME     run the benchmark only in the first ON of every\n"
    "                            FRAME (30ms/100ms), stopped outside it: a\n"
    "                            partitioned scheduler's window; the window\n"
    "                            column marks each edge\n"
    "      --freeze=HOW          how --window stops the benchmark: auto (the\n"
    "                            default: a control group's freezer, cgroup v2\n"
    "                            else v1, else signals), cgroup2, cgroup1 or\n"
    "                            signal (SIGSTOP/SIGCONT to its process group)\n"
    "  -r, --randomize           sample at a random point within each period\n"
    "      --sched-deadline[=BUDGET]\n"
    "                            sample under SCHED_DEADLINE with BUDGET % of\n"
    "                            the period (default 1)\n"
    "\n"
    "  -v, --verbose             say what is sampled and how it went\n"
    "  -h, --help                show this help and exit\n"
    "  -V, --version             show the version and exit\n"
    "\n"
    "With no sensor given, every thermal zone is sampled, named by its type.\n"
    "\n"
    "Exit status: the benchmark's; 0 when --time ended it; 128+N when it or\n"
    "tb-record died of signal N; 125 usage error, sensor or write failure;\n"
    "126 the benchmark cannot be executed; 127 it was not found.  With\n"
    "--compat=thermobench, 64 for a usage error and 1 for a bad sensor or\n"
    "helper specification, a sensor or write failure.\n";

/* Set before the options are parsed: thermobench's exit statuses. */
static int compat_statuses;

/* S as it can be shown: each control character as \xHH, cut to fit BUF. */
static const char *printable(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 5 < cap; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            n += (size_t)snprintf(buf + n, cap - n, "\\x%02x", (unsigned char)*s);
        else
            buf[n++] = *s;
    }
    buf[n] = '\0';
    return buf;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "tb-record: %s%s\n", what, arg ? arg : "");
    fputs("Try 'tb-record --help' for more information.\n", stderr);
    return compat_statuses ? RECORD_EXIT_TB_USAGE : RECORD_EXIT_FAILURE;
}

/* A sensor, --exec or sensors-file specification that cannot be used:
 * thermobench exits 1 for these, and 64 only for the command line's form. */
static int spec_error(const char *what, const char *arg)
{
    fprintf(stderr, "tb-record: %s%s\n", what, arg ? arg : "");
    return compat_statuses ? RECORD_EXIT_TB_FAILURE : RECORD_EXIT_FAILURE;
}

/* thermobench's behaviour is asked for by its name (a link named
 * thermobench) or by --compat=thermobench anywhere among the options. */
static int wants_compat(int argc, char **argv, const struct option *options)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (strcmp(base, "thermobench") == 0)
        return 1;
    int c, found = 0;
    while ((c = getopt_long(argc, argv, OPTSTRING, options, NULL)) != -1)
        if (c == OPT_COMPAT && strcmp(optarg, "thermobench") == 0)
            found = 1;
    optind = 0;   /* the real parse starts afresh (glibc and musl) */
    return found;
}

static int parse_number(const char *arg, double *x)
{
    char *end;
    errno = 0;
    *x = strtod(arg, &end);
    return end != arg && *end == '\0' && errno == 0 && isfinite(*x) ? 0 : -1;
}

static int push_string(char ***v, size_t *n, const char *s)
{
    char *copy = strdup(s);
    char **nv = copy ? realloc(*v, (*n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(copy);
        return -1;
    }
    *v = nv;
    nv[(*n)++] = copy;
    return 0;
}

/* Note that a column of KIND came next on the command line. */
static int note_given(struct record_settings *s, enum given_kind kind, size_t index)
{
    struct given_column *ng = realloc(s->given, (s->ngiven + 1) * sizeof *ng);
    if (!ng)
        return -1;
    s->given = ng;
    ng[s->ngiven++] = (struct given_column){kind, index};
    return 0;
}

/* -c KEY, or with a * the key of each CPU of the machine: the per-CPU
 * keys a benchmark prints (tb-load's CPU<n>_work_done), so that a user
 * need not list them.  The header is written before the benchmark says
 * anything: the names must be known then.  0, or -1 with ERR. */
static int add_column(struct record_settings *s, const char *key, char *err, size_t errlen)
{
    const char *star = strchr(key, '*');
    if (!star) {
        if (push_string(&s->columns, &s->ncolumns, key) == 0 &&
            note_given(s, GIVEN_KEY, s->ncolumns - 1) == 0)
            return 0;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (strchr(star + 1, '*')) {
        snprintf(err, errlen, "'%s': one * at most (each CPU number)", key);
        return -1;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 1)
        ncpu = 1;
    for (long c = 0; c < ncpu; c++) {
        char *name = NULL;
        if (asprintf(&name, "%.*s%ld%s", (int)(star - key), key, c, star + 1) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        int rc = push_string(&s->columns, &s->ncolumns, name);
        free(name);
        if (rc < 0 || note_given(s, GIVEN_KEY, s->ncolumns - 1) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

int record_parse_sensor_spec(const char *spec, struct sensor_spec *out,
                             char *err, size_t errlen)
{
    char *word[3] = {NULL, NULL, NULL};
    const char *p = spec;
    int n = 0;

    while (*p) {
        p += strspn(p, " \t\r\n");
        if (!*p)
            break;
        size_t len = strcspn(p, " \t\r\n");
        if (n == 3) {
            snprintf(err, errlen, "\"%s\": more than FILE NAME UNIT", spec);
            goto fail;
        }
        if (!(word[n++] = strndup(p, len))) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        p += len;
    }
    if (n == 0) {
        snprintf(err, errlen, "empty sensor: expected \"FILE [NAME [UNIT]]\"");
        return -1;
    }
    *out = (struct sensor_spec){word[0], word[1], word[2]};
    return 0;
fail:
    for (int i = 0; i < n; i++)
        free(word[i]);
    return -1;
}

static void exec_spec_free(struct exec_spec *e)
{
    for (size_t i = 0; i < e->ncols; i++)
        free(e->cols[i].name);
    free(e->cols);
    free(e->cmd);
}

int record_parse_exec_spec(const char *spec, struct exec_spec *out,
                           char *err, size_t errlen)
{
    struct exec_spec e = {0};
    const char *cmd = spec;
    int catch_all = 0;

    if (spec[0] == '(') {
        const char *close = strchr(spec, ')');
        if (!close) {
            snprintf(err, errlen, "\"%s\": no ')' after the columns", spec);
            return -1;
        }
        char *list = strndup(spec + 1, (size_t)(close - spec - 1));
        if (!list) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            struct exec_column c = {0};
            if (*tok == '@') {
                c.keep_last = 1;
                tok++;
            }
            size_t len = strlen(tok);
            if (len > 0 && tok[len - 1] == '=') {
                c.is_key = 1;
                tok[--len] = '\0';
            }
            if (len == 0 || strpbrk(tok, " \t")) {
                snprintf(err, errlen, "\"%s\": a column needs a name without blanks", spec);
                free(list);
                exec_spec_free(&e);
                return -1;
            }
            if (!c.is_key && catch_all++) {
                snprintf(err, errlen, "\"%s\": only one column may take the other lines", spec);
                free(list);
                exec_spec_free(&e);
                return -1;
            }
            struct exec_column *nc = realloc(e.cols, (e.ncols + 1) * sizeof *nc);
            if (nc)
                e.cols = nc;
            if (!nc || !(c.name = strdup(tok))) {
                free(list);
                exec_spec_free(&e);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            e.cols[e.ncols++] = c;
        }
        free(list);
        if (e.ncols == 0) {
            snprintf(err, errlen, "\"%s\": empty column list", spec);
            return -1;
        }
        cmd = close + 1;
    }
    cmd += strspn(cmd, " \t");
    if (!*cmd) {
        snprintf(err, errlen, "\"%s\": no command", spec);
        exec_spec_free(&e);
        return -1;
    }
    if (!(e.cmd = strdup(cmd))) {
        exec_spec_free(&e);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (e.ncols == 0) {   /* the command's first word names its column */
        const char *word = cmd;
        size_t len = strcspn(word, " \t");
        const char *slash = memrchr(word, '/', len);
        if (slash) {
            len -= (size_t)(slash + 1 - word);
            word = slash + 1;
        }
        if (!(e.cols = calloc(1, sizeof *e.cols)) || !(e.cols[0].name = strndup(word, len))) {
            exec_spec_free(&e);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        e.ncols = 1;
    }
    *out = e;
    return 0;
}

static int add_sensor(struct record_settings *s, const char *spec,
                      char *err, size_t errlen)
{
    struct sensor_spec sp;
    if (record_parse_sensor_spec(spec, &sp, err, errlen) < 0)
        return -1;
    struct sensor_spec *ns = realloc(s->sensors, (s->nsensors + 1) * sizeof *ns);
    if (!ns) {
        snprintf(err, errlen, "out of memory");
        free(sp.path);
        free(sp.name);
        free(sp.unit);
        return -1;
    }
    s->sensors = ns;
    ns[s->nsensors++] = sp;
    if (note_given(s, GIVEN_SENSOR, s->nsensors - 1) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* A helper from an --exec SPEC or a sensors file's !SPEC line. */
static int add_exec(struct record_settings *s, const char *spec, char *err, size_t errlen)
{
    struct exec_spec e;
    if (record_parse_exec_spec(spec, &e, err, errlen) < 0)
        return -1;
    struct exec_spec *ne = realloc(s->execs, (s->nexecs + 1) * sizeof *ne);
    if (!ne) {
        exec_spec_free(&e);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->execs = ne;
    ne[s->nexecs++] = e;
    if (note_given(s, GIVEN_EXEC, s->nexecs - 1) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int record_read_sensors_file(const char *path, struct record_settings *s,
                             char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, msg[512];
    size_t size = 0, lineno = 0, before = s->nsensors;
    int rc = 0;

    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    while (getline(&line, &size, f) >= 0) {
        lineno++;
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        if (*p == '#' || *p == '\0')
            continue;
        if (*p == '!') {   /* a helper, as thermobench runs these: --exec SPEC */
            if (add_exec(s, p + 1, msg, sizeof msg) < 0) {
                snprintf(err, errlen, "%s:%zu: %s", path, lineno, msg);
                rc = -1;
                break;
            }
            continue;
        }
        if (add_sensor(s, p, msg, sizeof msg) < 0) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, msg);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    /* A sensors file without sensor lines (/dev/null, or helpers only)
     * asks for no sensor at all: no search for thermal zones. */
    if (rc == 0 && s->nsensors == before)
        s->no_sensors = 1;
    free(line);
    fclose(f);
    return rc;
}

static const struct option record_options[] = {
    {"time", required_argument, NULL, 't'},
    {"cooldown", required_argument, NULL, OPT_COOLDOWN},
    {"period", required_argument, NULL, 'p'},
    {"output_dir", required_argument, NULL, 'o'},
    {"output", required_argument, NULL, 'O'},
    {"name", required_argument, NULL, 'n'},
    {"sensor", required_argument, NULL, 'S'},
    {"sensors_file", required_argument, NULL, 's'},
    {"column", required_argument, NULL, 'c'},
    {"stdout", no_argument, NULL, 'l'},
    {"exec", required_argument, NULL, 'e'},
    {"exec-wait", no_argument, NULL, 'E'},
    {"cpu-usage", no_argument, NULL, 'u'},
    {"wait", required_argument, NULL, 'w'},
    {"wait-timeout", required_argument, NULL, 'W'},
    {"fan-cmd", required_argument, NULL, 'f'},
    {"fan-on", optional_argument, NULL, 'F'},
    {"randomize", no_argument, NULL, 'r'},
    {"sched-deadline", optional_argument, NULL, OPT_SCHED_DEADLINE},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"freeze", required_argument, NULL, OPT_FREEZE},
    {"unbuffered", no_argument, NULL, OPT_UNBUFFERED},
    {"fsync", no_argument, NULL, OPT_FSYNC},
    {"all-sensors", no_argument, NULL, 'A'},
    {"list-sensors", no_argument, NULL, OPT_LIST_SENSORS},
    {"sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT},
    {"procfs-root", required_argument, NULL, OPT_PROCFS_ROOT},
    {"meta", required_argument, NULL, OPT_META},
    {"no-meta", no_argument, NULL, OPT_NO_META},
    {"compat", required_argument, NULL, OPT_COMPAT},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* Bounded so that they stay nanosecond counts of 64 bits (and sensible):
 * a century of run, a day of period. */
static int time_option(int c, const char *arg, struct record_settings *s)
{
    switch (c) {
    case 't':
        if (tb_parse_duration(arg, &s->time_limit_s) < 0 || !(s->time_limit_s > 0) ||
            s->time_limit_s > 3.2e9)
            return usage_error("--time wants a positive time (900, 15m, 1h), at most 3.2e9 s, not ",
                               arg);
        break;
    case OPT_COOLDOWN:
        if (tb_parse_duration(arg, &s->cooldown_s) < 0 || !(s->cooldown_s > 0) ||
            s->cooldown_s > 3.2e9)
            return usage_error("--cooldown wants a positive time (60, 10m), at most 3.2e9 s, not ",
                               arg);
        break;
    case 'p':
        /* a bare number is ms, thermobench's unit; a time has its own */
        if (parse_number(arg, &s->period_ms) < 0 &&
            (tb_parse_duration(arg, &s->period_ms) < 0 || !((s->period_ms *= 1000) >= 0)))
            s->period_ms = NAN;
        if (!(s->period_ms >= 0.001) || s->period_ms > 86400000)
            return usage_error("--period wants milliseconds from 0.001 to 86400000 (a day), or "
                               "a time such as 1s, not ", arg);
        break;
    case 'W':
        if (tb_parse_duration(arg, &s->wait_timeout_s) < 0 || !(s->wait_timeout_s > 0) ||
            s->wait_timeout_s > 3.2e9)
            return usage_error("--wait-timeout wants a positive time (600, 10m), at most 3.2e9 s, "
                               "not ", arg);
        break;
    }
    return -1;
}

/* What is sampled: sensors, columns from the benchmark's lines, CPU load. */
static int sample_option(int c, const char *arg, struct record_settings *s)
{
    char err[1024];
    switch (c) {
    case 'S':
        if (add_sensor(s, arg, err, sizeof err) < 0)
            return spec_error("--sensor: ", err);
        break;
    case 's':
        if (record_read_sensors_file(arg, s, err, sizeof err) < 0)
            return spec_error("--sensors_file: ", err);
        break;
    case 'c':
        if (add_column(s, arg, err, sizeof err) < 0)
            return usage_error("--column: ", err);
        break;
    case 'l':
        if (!s->stdout_column++ && note_given(s, GIVEN_STDOUT, 0) < 0)
            return usage_error("out of memory", NULL);
        break;
    case 'e':
        if (add_exec(s, arg, err, sizeof err) < 0)
            return spec_error("--exec: ", err);
        break;
    case 'u':
        if (!s->cpu_usage++ && note_given(s, GIVEN_CPU_LOADS, 0) < 0)
            return usage_error("out of memory", NULL);
        break;
    }
    return -1;
}

/* --sched-deadline[=BUDGET]: "2" or "2%", as thermobench writes it. */
static int deadline_option(const char *arg, struct record_settings *s)
{
    char budget[32];
    double x;
    s->sched_deadline = 1;
    if (!arg)
        return -1;
    snprintf(budget, sizeof budget, "%s", arg);
    size_t len = strlen(budget);
    if (len > 0 && budget[len - 1] == '%')
        budget[len - 1] = '\0';
    if (strlen(arg) >= sizeof budget || parse_number(budget, &x) < 0 || !(x > 0 && x <= 100))
        return usage_error("--sched-deadline wants a budget in % of the period, not ", arg);
    s->sched_deadline = x;
    return -1;
}

/* --meta KEY=VALUE, a "# KEY: VALUE" line of the file's metadata. */
static int meta_option(const char *arg, struct record_settings *s)
{
    char why[256];
    const char *eq = strchr(arg, '=');
    size_t klen = eq ? (size_t)(eq - arg) : 0;
    if (!eq || klen == 0 || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
                                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != klen)
        return usage_error("--meta wants KEY=VALUE with a key of letters, digits and _.-, not ",
                           printable(arg, why, sizeof why));
    /* the line holds text: a newline would end it, a CR or an escape
     * would rewrite a terminal that shows the file */
    for (const char *c = eq + 1; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            char what[128];
            snprintf(what, sizeof what, "--meta %.*s: the value has a control character "
                     "(\\x%02x at byte %zu); metadata holds text, not ", (int)klen, arg,
                     (unsigned char)*c, (size_t)(c - eq - 1) + 1);
            return usage_error(what, printable(eq + 1, why, sizeof why));
        }
    if (strncmp(arg, "period_ms=", 10) == 0)
        return usage_error("--meta period_ms: the period is the one recorded at (-p), not ", arg);
    if (push_string(&s->metas, &s->nmetas, arg) < 0)
        return usage_error("out of memory", NULL);
    return -1;
}

/* How the benchmark is run: its window, the fan, the wait before it. */
static int run_option(int c, const char *arg, struct record_settings *s)
{
    switch (c) {
    case 'w':
        if (tb_quantity_or_number_parse(arg, "°C", &s->wait_temp) < 0)
            return usage_error("--wait wants a temperature (40, 40C, 313.15K), not ", arg);
        break;
    case 'F':
        s->fan_on = 1;
        if (arg && (parse_number(arg, &s->fan_on) < 0 || s->fan_on < 0 || s->fan_on > 1))
            return usage_error("--fan-on wants a speed from 0 to 1, not ", arg);
        break;
    case OPT_SCHED_DEADLINE: return deadline_option(arg, s);
    case OPT_WINDOW:
        if (window_spec_parse(arg, &s->window_on_ms, &s->window_frame_ms) < 0)
            return usage_error("--window wants ON/FRAME, as 30ms/100ms (ms, us or s; ON shorter "
                               "than FRAME, FRAME at least 1 ms), not ", arg);
        break;
    case OPT_FREEZE: {
        enum freezer_way way;
        if (freezer_way_parse(arg, &way) < 0)
            return usage_error("--freeze wants auto, cgroup2, cgroup1 or signal, not ", arg);
        s->window_freeze = (int)way;
        break;
    }
    case OPT_COMPAT:
        if (strcmp(arg, "thermobench") != 0)
            return usage_error("--compat knows only thermobench, not ", arg);
        break;
    }
    return -1;
}

/* Once all are read: what goes together. */
static int check_settings(const struct record_settings *s)
{
    if (s->list_sensors)
        return -1;
    if (!s->bench_argv && (s->ncolumns > 0 || s->stdout_column))
        return usage_error("--column and --stdout need a benchmark to read lines from", NULL);
    if (!s->bench_argv && s->cooldown_s > 0)
        return usage_error("--cooldown needs a benchmark whose end it follows", NULL);
    if (!s->bench_argv && s->window_frame_ms > 0)
        return usage_error("--window needs a benchmark to run in it", NULL);
    if (s->window_freeze != FREEZER_AUTO && !(s->window_frame_ms > 0))
        return usage_error("--freeze is for --window", NULL);
    if (s->fan_on >= 0 && !s->fan_cmd)
        return usage_error("--fan-on needs --fan-cmd", NULL);
    if (!isnan(s->wait_temp) && s->no_sensors)
        return usage_error("--wait needs a sensor to read", NULL);
    return -1;
}

int record_parse_arguments(int argc, char **argv, struct record_settings *s)
{
    int c, rc;

    *s = (struct record_settings){
        .period_ms = 1000, .output_dir = ".", .wait_temp = NAN,
        .wait_timeout_s = 600, .fan_on = -1, .argc = argc, .argv = argv,
    };
    opterr = 0;
    s->compat = compat_statuses = wants_compat(argc, argv, record_options);
    s->no_meta = s->compat;   /* thermobench's layout: the header is line 2 */
    while ((c = getopt_long(argc, argv, OPTSTRING, record_options, NULL)) != -1) {
        rc = -1;
        switch (c) {
        case 't': case OPT_COOLDOWN: case 'p': case 'W':
            rc = time_option(c, optarg, s);
            break;
        case 'S': case 's': case 'c': case 'l': case 'e': case 'u':
            rc = sample_option(c, optarg, s);
            break;
        case 'w': case 'F': case OPT_SCHED_DEADLINE: case OPT_WINDOW: case OPT_FREEZE:
        case OPT_COMPAT:
            rc = run_option(c, optarg, s);
            break;
        case OPT_META: rc = meta_option(optarg, s); break;
        case 'o': s->output_dir = optarg; break;
        case 'O': s->output = optarg; break;
        case 'n': s->name = optarg; break;
        case 'E': s->exec_wait = 1; break;
        case 'f': s->fan_cmd = optarg; break;
        case 'r': s->randomize = 1; break;
        case OPT_UNBUFFERED: s->unbuffered = 1; break;
        case OPT_FSYNC: s->fsync = 1; break;
        case 'A': s->all_sensors = 1; break;
        case OPT_LIST_SENSORS: s->list_sensors = 1; break;
        case OPT_SYSFS_ROOT: s->sysfs_root = optarg; break;
        case OPT_PROCFS_ROOT: s->procfs_root = optarg; break;
        case OPT_NO_META: s->no_meta = 1; break;
        case 'v': s->verbose = 1; break;
        case 'h':
            fputs(usage_text, stdout);
            return RECORD_EXIT_OK;
        case 'V':
            puts("tb-record (" PACKAGE_NAME ") " PACKAGE_VERSION);
            return RECORD_EXIT_OK;
        case ':':
            return usage_error("option needs an argument: ", argv[optind - 1]);
        default:
            return usage_error("unknown option: ", argv[optind - 1]);
        }
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        s->bench_argv = &argv[optind];
    return check_settings(s);
}

void record_settings_free(struct record_settings *s)
{
    for (size_t i = 0; i < s->nsensors; i++) {
        free(s->sensors[i].path);
        free(s->sensors[i].name);
        free(s->sensors[i].unit);
    }
    free(s->sensors);
    for (size_t i = 0; i < s->ncolumns; i++)
        free(s->columns[i]);
    free(s->columns);
    for (size_t i = 0; i < s->nexecs; i++)
        exec_spec_free(&s->execs[i]);
    free(s->execs);
    for (size_t i = 0; i < s->nmetas; i++)
        free(s->metas[i]);
    free(s->metas);
    free(s->given);
}
