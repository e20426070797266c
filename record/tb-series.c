/*
 * tb-series -- run an experiment: the runs of a plan, each recorded by
 * tb-record into a file of its own, with a cool-down before each, CPU
 * frequencies set and given back, and a journal to resume from.
 *
 * Board side: libc only.  The plan is read and checked in full (plan.c),
 * then cpufreq (cpufreq.c) and the journal (journal.c) are opened; each
 * run is recorded into NAME.csv.part and renamed to NAME.csv only once
 * tb-record has ended, so that a file with the .csv name is complete.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include "cpufreq.h"
#include "thermal_zone.h"
#include "journal.h"
#include "plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum series_exit {
    SERIES_EXIT_OK = 0,        /* every run done, each benchmark exited 0 */
    SERIES_EXIT_FAILED = 1,    /* done, but some benchmark exited otherwise */
    SERIES_EXIT_USAGE = 2,     /* a bad option or plan */
    SERIES_EXIT_SYSTEM = 3,    /* output, journal, cpufreq, recorder, sensor */
};

/* tb-record's status when the reader of -O - closed it (options.h's
 * RECORD_EXIT_READER_GONE): the run ended as its reader wanted. */
#define SERIES_RECORDER_READER_GONE 141

struct settings {
    const char *plan_path;
    const char *output_dir;
    const char *sysfs_root;
    const char *recorder;
    int dry_run;
    int restart;
    int retry_failed;
    int verbose;
};

static volatile sig_atomic_t stop_signal;
static volatile pid_t child;

static void on_signal(int sig)
{
    stop_signal = sig;
    if (child > 0)
        kill(child, SIGTERM);
}

static const char usage_text[] =
    "Usage: tb-series [OPTION]... PLAN\n"
    "Run the series of runs PLAN describes: each recorded by tb-record into\n"
    "a file of its own in the output directory, after a cool-down, with the\n"
    "plan's variables written into it; resumable where it was cut.\n"
    "\n"
    "  -o, --output-dir=DIR  the runs and the journal go into DIR (default: the\n"
    "                        plan's name without its extension)\n"
    "  -n, --dry-run         list the runs and the time they will take; run none\n"
    "      --restart         start the series anew, even when the journal in DIR\n"
    "                        is of another plan\n"
    "      --retry-failed    run again the runs whose benchmark failed\n"
    "      --recorder=PATH   the tb-record to run (default: the one beside\n"
    "                        tb-series, else tb-record on PATH)\n"
    "      --sysfs-root=DIR  read and write /sys in DIR (a fake tree for tests);\n"
    "                        tb-record is given it too\n"
    "  -v, --verbose         say what is started and waited for\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "The plan's format is in tb-series(1), PLAN FILES.\n"
    "\n"
    "Exit status: 0 every run done and its benchmark exited 0; 1 done, but\n"
    "some benchmark failed; 2 a usage error or a bad plan; 3 the output, the\n"
    "journal, cpufreq, the thermal zone, the recorder or a sensor failed;\n"
    "128+N stopped by signal N (the series resumes when run again).\n";

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("tb-series: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'tb-series --help' for more information.\n", stderr);
    return SERIES_EXIT_USAGE;
}

static int parse_arguments(int argc, char **argv, struct settings *s)
{
    enum { OPT_RESTART = 256, OPT_RETRY, OPT_RECORDER, OPT_SYSFS };
    static const struct option options[] = {
        {"output-dir", required_argument, NULL, 'o'},
        {"dry-run", no_argument, NULL, 'n'},
        {"restart", no_argument, NULL, OPT_RESTART},
        {"retry-failed", no_argument, NULL, OPT_RETRY},
        {"recorder", required_argument, NULL, OPT_RECORDER},
        {"sysfs-root", required_argument, NULL, OPT_SYSFS},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:nvhV", options, NULL)) != -1) {
        switch (c) {
        case 'o': s->output_dir = optarg; break;
        case 'n': s->dry_run = 1; break;
        case OPT_RESTART: s->restart = 1; break;
        case OPT_RETRY: s->retry_failed = 1; break;
        case OPT_RECORDER: s->recorder = optarg; break;
        case OPT_SYSFS: s->sysfs_root = optarg; break;
        case 'v': s->verbose = 1; break;
        case 'h': fputs(usage_text, stdout); return SERIES_EXIT_OK;
        case 'V': printf("tb-series (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return SERIES_EXIT_OK;
        case ':': return usage_error("option needs an argument: %s", argv[optind - 1]);
        default: return usage_error("unknown option: %s", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return usage_error("no plan given");
    if (optind + 1 < argc)
        return usage_error("one plan at a time, not also '%s'", argv[optind + 1]);
    s->plan_path = argv[optind];
    return -1;
}

/* --- time ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* "1 h 12 min", "3 min 10 s", "42 s" */
static const char *say_duration(double s, char *buf, size_t len)
{
    long t = lround(s);
    if (t >= 3600)
        snprintf(buf, len, "%ld h %ld min", t / 3600, t % 3600 / 60);
    else if (t >= 60)
        snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
    else
        snprintf(buf, len, "%ld s", t);
    return buf;
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (!stop_signal && nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

/* --- the cool-down ------------------------------------------------------------- */

/* The file the cool-down reads: the plan's cooldown-sensor (a thermal
 * zone's type, or a file), else the first thermal zone. */
static int cool_sensor_path(const struct plan *p, const char *root, char *path, size_t len,
                            char *err, size_t errlen)
{
    const char *name = p->cool_sensor;
    if (name && strchr(name, '/')) {
        if (!strncmp(name, "/sys/", 5) && root)
            snprintf(path, len, "%s/%s", root, name + 5);
        else
            snprintf(path, len, "%s", name);
        return 0;
    }
    for (int zone = 0; zone < 1024; zone++) {
        char dir[3000], type[256] = "";
        snprintf(dir, sizeof dir, "%s/class/thermal/thermal_zone%d", root ? root : "/sys", zone);
        if (access(dir, F_OK) < 0)
            continue;
        snprintf(path, len, "%s/type", dir);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(type, sizeof type, f))
                type[0] = '\0';
            fclose(f);
        }
        type[strcspn(type, "\n")] = '\0';
        if (!name || !strcmp(type, name)) {
            snprintf(path, len, "%s/temp", dir);
            return 0;
        }
    }
    path[0] = '\0';
    snprintf(err, errlen, name ? "cooldown-sensor: no thermal zone of type '%s' in %s/class/thermal"
                               : "no thermal zone in %s/class/thermal for the cool-down%s",
             name ? name : (root ? root : "/sys"), name ? (root ? root : "/sys") : "");
    return -1;
}

/* The sensor's temperature in °C (thermal zones and hwmon give m°C), or NaN. */
static double read_celsius(const char *path)
{
    char buf[64], *end;
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    double x = strtod(buf, &end);
    return end == buf ? NAN : x / 1000;
}

static void fan_set(const struct plan *p, double speed)
{
    if (!p->fan_cmd)
        return;
    char *cmd;
    if (asprintf(&cmd, "%s %g", p->fan_cmd, speed) < 0)
        return;
    int status = system(cmd);
    if (status != 0)
        fprintf(stderr, "tb-series: warning: fan command '%s' failed\n", cmd);
    free(cmd);
}

#define COOL_POLL_S 0.5

/* Wait as the plan's cooldown says.  *WAITED gets the seconds waited and
 * *START the temperature when the run starts.  0, or -1 when the sensor
 * cannot be read or a signal came (a timeout is warned of, not failed). */
static int cool_down(const struct plan *p, const char *sensor, const struct settings *s,
                     double *waited, double *start)
{
    double t0 = now_s();
    double window = p->cool_window_s > 0 ? p->cool_window_s : 60;
    size_t cap = (size_t)(window / COOL_POLL_S) + 2, n = 0;
    double *hist_t = calloc(cap, sizeof *hist_t), *hist_y = calloc(cap, sizeof *hist_y);
    int rc = -1, done = 0;
    char a[64];

    if (!hist_t || !hist_y) {
        fputs("tb-series: out of memory\n", stderr);
        goto out;
    }
    fan_set(p, 1);
    while (!stop_signal) {
        double t = now_s() - t0, y = sensor[0] ? read_celsius(sensor) : NAN;
        if (isnan(y) && sensor[0]) {
            fprintf(stderr, "tb-series: %s: cannot read a temperature for the cool-down\n", sensor);
            goto out;
        }
        /* the readings of the last window, oldest first */
        if (n == cap) {
            memmove(hist_t, hist_t + 1, (cap - 1) * sizeof *hist_t);
            memmove(hist_y, hist_y + 1, (cap - 1) * sizeof *hist_y);
            n--;
        }
        hist_t[n] = t;
        hist_y[n++] = y;
        *start = y;
        int cool = isnan(p->cool_temp) || y <= p->cool_temp;
        int slow = 1;
        if (!isnan(p->cool_rate)) {
            /* the fall's rate: the least-squares slope over a full window */
            slow = 0;
            if (n >= 3 && hist_t[n - 1] - hist_t[0] >= window - COOL_POLL_S / 2) {
                double mt = 0, my = 0, sxy = 0, sxx = 0;
                for (size_t i = 0; i < n; i++)
                    mt += hist_t[i] / (double)n, my += hist_y[i] / (double)n;
                for (size_t i = 0; i < n; i++) {
                    sxy += (hist_t[i] - mt) * (hist_y[i] - my);
                    sxx += (hist_t[i] - mt) * (hist_t[i] - mt);
                }
                slow = -sxy / sxx * 60 <= p->cool_rate;
            }
        }
        int pause_only = isnan(p->cool_temp) && isnan(p->cool_rate);
        if (pause_only ? t >= p->cool_timeout_s : cool && slow) {
            done = 1;
            break;
        }
        if (t >= p->cool_timeout_s) {
            fprintf(stderr, "tb-series: warning: still %.1f °C after %s of cool-down; the run starts\n",
                    y, say_duration(t, a, sizeof a));
            done = 1;
            break;
        }
        if (s->verbose && n % 20 == 1)
            fprintf(stderr, "tb-series: cooling: %.1f °C after %s\n", y, say_duration(t, a, sizeof a));
        sleep_s(COOL_POLL_S);
    }
    if (done)
        rc = 0;
    fan_set(p, 0);
out:
    *waited = now_s() - t0;
    free(hist_t);
    free(hist_y);
    return rc;
}

/* --- the recorder ------------------------------------------------------------------ */

/* tb-record: the plan's or the option's, else the one beside this program
 * (found from /proc/self/exe, never from the current directory), else PATH. */
static char *find_recorder(const struct plan *p, const struct settings *s)
{
    if (s->recorder)
        return strdup(s->recorder);
    if (p->recorder)
        return strdup(p->recorder);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *beside;
        if (asprintf(&beside, "%s/tb-record", dirname(self)) >= 0) {
            if (access(beside, X_OK) == 0)
                return beside;
            free(beside);
        }
    }
    return strdup("tb-record");
}

struct argv_builder {
    char **v;
    size_t n, cap;
    int failed;
};

static void push(struct argv_builder *b, char *owned)
{
    if (!owned || b->failed) {
        free(owned);
        b->failed = 1;
        return;
    }
    if (b->n + 2 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 32;
        char **more = realloc(b->v, cap * sizeof *more);
        if (!more) {
            free(owned);
            b->failed = 1;
            return;
        }
        b->v = more;
        b->cap = cap;
    }
    b->v[b->n++] = owned;
    b->v[b->n] = NULL;
}

static void pushf(struct argv_builder *b, const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    push(b, n < 0 ? NULL : s);
}

/* tb-record's command line for run I. */
static char **recorder_argv(const struct plan *p, size_t i, const struct settings *s,
                            const char *recorder, const char *part, double waited, double start)
{
    const struct plan_run *r = &p->runs[i];
    struct argv_builder b = {0};
    char *base = strdup(p->path);

    push(&b, strdup(recorder));
    if (p->time_s > 0)
        pushf(&b, "--time=%.17g", p->time_s);
    if (p->period_ms > 0)
        pushf(&b, "--period=%.17g", p->period_ms);
    if (s->sysfs_root)
        pushf(&b, "--sysfs-root=%s", s->sysfs_root);
    if (p->fan_cmd)
        pushf(&b, "--fan-cmd=%s", p->fan_cmd);
    for (size_t k = 0; k < p->nrecord; k++)
        push(&b, plan_substitute(p, r, p->record[k]));
    for (size_t v = 0; v < p->nvars; v++) {
        const char *name = p->vars[v].name, *value = p->vars[v].values[r->value[v]];
        if (!strcmp(name, "window"))   /* tb-record writes its own # window: line */
            pushf(&b, "--window=%s", value);
        else
            pushf(&b, "--meta=%s=%s", name, value);
    }
    pushf(&b, "--meta=repeat=%d", r->repeat);
    pushf(&b, "--meta=series=%s", base ? basename(base) : "plan");
    pushf(&b, "--meta=series_run=%zu/%zu", i + 1, p->nruns);
    if (p->has_cooldown) {
        pushf(&b, "--meta=cooldown_waited_s=%.1f", waited);
        if (isfinite(start))
            pushf(&b, "--meta=cooldown_start_C=%.1f", start);
    }
    pushf(&b, "--output=%s", part);
    push(&b, strdup("--"));
    for (size_t k = 0; k < p->nrun; k++)
        push(&b, plan_substitute(p, r, p->run[k]));
    free(base);
    if (b.failed) {
        plan_free_words(b.v);
        return NULL;
    }
    return b.v;
}

/* Run ARGV to its end; its wait status, or -1 when it could not be
 * started.  The recorder is told to stop (SIGTERM) when we are killed, so
 * that no run goes on unseen after a SIGKILL. */
static int run_recorder(char **argv)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(128 + SIGTERM);
        execvp(argv[0], argv);
        fprintf(stderr, "tb-series: %s: %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    child = pid;
    if (stop_signal)
        kill(pid, SIGTERM);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    child = 0;
    return status;
}

/* The directory's entry made durable after a rename. */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* --- the series ---------------------------------------------------------------- */

static void describe_run(const struct plan *p, size_t i, char *buf, size_t len)
{
    const struct plan_run *r = &p->runs[i];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t v = 0; v < p->nvars && n < len; v++)
        n += (size_t)snprintf(buf + n, len - n, "%s=%s ", p->vars[v].name,
                              p->vars[v].values[r->value[v]]);
    if (n < len)
        snprintf(buf + n, len - n, "repeat %d", r->repeat);
}

static int dry_run(const struct plan *p, const char *dir)
{
    char what[1024], a[64], b[64];
    for (size_t i = 0; i < p->nruns; i++) {
        describe_run(p, i, what, sizeof what);
        printf("%4zu  %s/%s.csv  %s\n", i + 1, dir, p->runs[i].name, what);
    }
    double runs = p->time_s * (double)p->nruns;
    printf("%zu runs", p->nruns);
    if (p->time_s > 0)
        printf(", %s of recording", say_duration(runs, a, sizeof a));
    else
        printf(", each as long as its benchmark");
    if (p->has_cooldown) {
        int pause = isnan(p->cool_temp) && isnan(p->cool_rate);
        double cool = p->cool_timeout_s * (double)p->nruns;
        printf(pause ? ", %s of pauses" : ", up to %s of cool-downs", say_duration(cool, b, sizeof b));
        if (p->time_s > 0)
            printf(": %s at most", say_duration(runs + cool, a, sizeof a));
    }
    printf("\n");
    return SERIES_EXIT_OK;
}

/* The output directory: the option's, else the plan's name without its
 * extension, beside the current directory. */
static char *output_dir(const struct settings *s)
{
    if (s->output_dir)
        return strdup(s->output_dir);
    char *copy = strdup(s->plan_path);
    if (!copy)
        return NULL;
    char *name = strdup(basename(copy));
    free(copy);
    if (!name)
        return NULL;
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    else {
        char *more = realloc(name, strlen(name) + 5);
        if (!more) {
            free(name);
            return NULL;
        }
        name = more;
        strcat(name, ".out");
    }
    return name;
}

/* Refuse a NAME.csv the journal does not know of: the output of another
 * series, not to be overwritten; and run again a run the journal lists as
 * done whose file is not there. */
static int check_strangers(const struct plan *p, struct journal *j, const char *dir)
{
    for (size_t i = 0; i < p->nruns; i++) {
        char path[4096];
        int status;
        snprintf(path, sizeof path, "%s/%s.csv", dir, p->runs[i].name);
        int done = journal_is_done(j, p->runs[i].name, &status);
        if (access(path, F_OK) == 0 && !done) {
            fprintf(stderr, "tb-series: %s exists and the journal does not list it as done: "
                    "move it away, or --restart to record it again\n", path);
            return -1;
        }
        if (done && access(path, F_OK) != 0) {
            fprintf(stderr, "tb-series: %s: the journal lists it as done, but it is not there: "
                    "it is run again\n", path);
            journal_forget_done(j, p->runs[i].name);
        }
    }
    return 0;
}

/* One saved line of the journal into CF or TZ: 0, or -1 with ERR. */
static int take_saved(struct cpufreq *cf, struct tz *tz, const char *text, char *err,
                      size_t errlen)
{
    int rc = tz_saved_parse(tz, text, err, errlen);
    if (rc != 0 || !strncmp(text, "zone ", 5))
        return rc < 0 ? -1 : 0;
    return cpufreq_saved_parse(cf, text, err, errlen) < 0 ? -1 : 0;
}

/* The journal's settings as found (cpufreq's and the thermal zone's), each
 * line checked against what the machine offers before any of it is taken
 * (it is written back to /sys, as root); and a run started with nothing
 * saved before it, whose state is then not the machine's own.  0, or -1
 * said (nothing taken). */
static int check_saved(struct journal *j, struct cpufreq *cf, struct tz *tz)
{
    char err[512];
    struct cpufreq probe = *cf;   /* checked on copies: all or nothing */
    struct tz tz_probe = *tz;
    struct cpufreq_cpu *cpus = malloc((cf->n ? cf->n : 1) * sizeof *cpus);
    if (!cpus) {
        fprintf(stderr, "tb-series: out of memory\n");
        return -1;
    }
    if (cf->n)   /* no CPUs (a plan without freq): no array to copy */
        memcpy(cpus, cf->cpus, cf->n * sizeof *cpus);
    probe.cpus = cpus;
    for (size_t k = 0; k < j->nsaved; k++)
        if (take_saved(&probe, &tz_probe, j->saved[k], err, sizeof err) < 0) {
            fprintf(stderr, "tb-series: %s:%zu: saved %s: %s; nothing is written to /sys "
                    "from the journal (give the settings back by hand, then --restart)\n",
                    j->path, j->saved_line[k], j->saved[k], err);
            free(cpus);
            return -1;
        }
    free(cpus);
    if (j->nsaved == 0 && j->unsaved_start) {
        fprintf(stderr, "tb-series: %s:%zu: a run started with nothing saved before it (saved "
                "lines deleted?): the CPUs' and zone's settings now may be the series' own, not "
                "the machine's; give them back by hand, then --restart\n", j->path,
                j->unsaved_start);
        return -1;
    }
    for (size_t k = 0; k < j->nsaved; k++)
        take_saved(cf, tz, j->saved[k], err, sizeof err);
    return 0;
}

/* The thermal settings the plan varies (tz_is_key()), the first
 * TZ_MAX_SETTINGS into KEYS; how many there are (tz_open() refuses more). */
static size_t thermal_keys(const struct plan *p, const char **keys)
{
    size_t n = 0;
    for (size_t v = 0; v < p->nvars; v++)
        if (tz_is_key(p->vars[v].name) && n++ < TZ_MAX_SETTINGS)
            keys[n - 1] = p->vars[v].name;
    return n;
}

/* Open the plan's thermal zone into TZ and check every value of its
 * settings against what it offers.  0; SERIES_EXIT_USAGE when one is not
 * (said, naming the plan's line); SERIES_EXIT_SYSTEM when the zone or a
 * setting's file is not there or not writable (said; a dry run goes on). */
static int check_thermal(const struct plan *p, const struct settings *s, struct tz *tz)
{
    const char *keys[TZ_MAX_SETTINGS];
    char err[1024], out[128];
    size_t n = thermal_keys(p, keys);
    if (tz_open(tz, s->sysfs_root, p->zone, keys, n, err, sizeof err) < 0) {
        fprintf(stderr, "tb-series: %s%s\n", s->dry_run ? "note: the thermal settings are not "
                "checked: " : "", err);
        return SERIES_EXIT_SYSTEM;
    }
    for (size_t v = 0; v < p->nvars; v++) {
        const struct plan_var *pv = &p->vars[v];
        for (size_t k = 0; tz_is_key(pv->name) && k < pv->nvalues; k++)
            if (tz_value(tz, pv->name, pv->values[k], out, sizeof out, err, sizeof err) < 0) {
                fprintf(stderr, "tb-series: %s:%d: %s %s: %s\n", p->path, pv->line, pv->name,
                        pv->values[k], err);
                return SERIES_EXIT_USAGE;
            }
    }
    return 0;
}

/* Open the plan's CPUs' cpufreq into CF and check every value of freq
 * against what they offer.  0; SERIES_EXIT_USAGE when a CPU does not offer
 * one (said, naming the plan's line); SERIES_EXIT_SYSTEM when the CPUs have
 * no cpufreq here (said unless a dry run, which is then not checked). */
static int check_frequencies(const struct plan *p, const struct settings *s, struct cpufreq *cf)
{
    char err[1024];
    if (cpufreq_open(cf, s->sysfs_root, p->cpus, err, sizeof err) < 0) {
        if (!s->dry_run)
            fprintf(stderr, "tb-series: %s\n", err);
        else
            fprintf(stderr, "tb-series: note: the frequencies are not checked: %s\n", err);
        return SERIES_EXIT_SYSTEM;
    }
    const struct plan_var *fv = NULL;
    for (size_t v = 0; v < p->nvars; v++)
        if (!strcmp(p->vars[v].name, "freq"))
            fv = &p->vars[v];
    for (size_t k = 0; fv && k < fv->nvalues; k++)
        if (cpufreq_check(cf, plan_parse_frequency(fv->values[k]), err, sizeof err) < 0) {
            fprintf(stderr, "tb-series: %s:%d: freq %s: %s\n", p->path, fv->line, fv->values[k],
                    err);
            return SERIES_EXIT_USAGE;
        }
    return 0;
}

/* Whether the journal saved the setting of LINE ("cpu0 ..." or "zone Z
 * KEY ...") already: a line with its words up to the value. */
static int saved_already(const struct journal *j, const char *line)
{
    size_t len = strcspn(line, " ");   /* "cpuN" */
    if (!strncmp(line, "zone ", 5)) {   /* "zone Z KEY" */
        const char *key = strchr(line + 5, ' ');
        const char *end = key ? strchr(key + 1, ' ') : NULL;
        len = end ? (size_t)(end - line) : strlen(line);
    }
    for (size_t k = 0; k < j->nsaved; k++)
        if (!strncmp(j->saved[k], line, len) && j->saved[k][len] == ' ')
            return 1;
    return 0;
}

/* Whether saved line TEXT is of one of CF's CPUs or TZ's settings. */
static int saved_is_ours(const struct cpufreq *cf, const struct tz *tz, const char *text)
{
    int cpu, used = 0;
    if (sscanf(text, "cpu%d%n", &cpu, &used) == 1 && text[used] == ' ')
        for (size_t k = 0; k < cf->n; k++)
            if (cf->cpus[k].cpu == cpu)
                return 1;
    return tz_saved_is(tz, text);
}

/* The settings given back: "restored", and again each saved line that was
 * not this series' to give back (another plan's, kept over --restart).
 * 0, or -1 said. */
static int journal_restored(struct journal *j, const struct cpufreq *cf, const struct tz *tz)
{
    if (journal_write(j, "restored") < 0)
        goto fail;
    for (size_t k = 0; k < j->nsaved; k++)
        if (!saved_is_ours(cf, tz, j->saved[k]) && journal_write(j, "saved %s", j->saved[k]) < 0)
            goto fail;
    return 0;
fail:
    fprintf(stderr, "tb-series: %s: %s\n", j->path, strerror(errno));
    return -1;
}

/* The settings as found, into the journal before the first change; or,
 * a series killed before it gave them back having saved them, those it
 * saved (the machine's own, not what it left), checked.  0; -1 said, a
 * journal line that cannot be taken; -2 said, the journal not written. */
static int save_settings(struct journal *j, struct cpufreq *cf, struct tz *tz)
{
    char line[512];
    if (check_saved(j, cf, tz) < 0)
        return -1;
    /* each setting on its own: a journal may hold another plan's (kept
     * over --restart), whose lines say nothing of this one's */
    for (size_t k = 0; k < cf->n + tz->n; k++) {
        if (k < cf->n)
            cpufreq_saved_text(cf, k, line, sizeof line);
        else
            tz_saved_text(tz, k - cf->n, line, sizeof line);
        if (saved_already(j, line))
            continue;
        if (journal_write(j, "saved %s", line) < 0) {
            fprintf(stderr, "tb-series: %s: %s\n", j->path, strerror(errno));
            return -2;
        }
    }
    return 0;
}

struct tally {
    size_t done, before, failed;
    char first_failed[1024];   /* the first run whose benchmark failed */
    int first_status;
};

static void tally_failed(struct tally *t, const char *name, int status)
{
    if (t->failed++ == 0) {
        snprintf(t->first_failed, sizeof t->first_failed, "%s", name);
        t->first_status = status;
    }
}

/* Run R's thermal settings written where they change (LAST: each
 * setting's value now, "" before the first), the policy first.  0, or -1
 * said. */
static int apply_thermal(const struct plan *p, const struct plan_run *r, struct tz *tz,
                         char last[][128])
{
    char err[1024];
    /* the policy first: a cooling state written under the governor before
     * it would be overwritten by that governor */
    for (size_t k = 0; k < 2 * tz->n; k++) {
        size_t i = k % tz->n;
        const char *value = plan_value(p, r, tz->set[i].key);
        if ((tz->set[i].kind == TZ_POLICY) != (k < tz->n) || !value || !strcmp(value, last[i]))
            continue;
        if (tz_set(tz, tz->set[i].key, value, err, sizeof err) < 0) {
            fprintf(stderr, "tb-series: %s\n", err);
            return -1;
        }
        snprintf(last[i], sizeof last[i], "%s", value);
    }
    return 0;
}

/* Run I of TODO's line: what it sweeps, the sensor now, the time left
 * (from the STARTED runs since T0, or the plan's time). */
static void announce_run(const struct plan *p, size_t i, const char *sensor, size_t started,
                         size_t todo, double t0)
{
    char a[64], what[1024];
    describe_run(p, i, what, sizeof what);
    fprintf(stderr, "tb-series: run %zu of %zu (%s): %s", i + 1, p->nruns, p->runs[i].name, what);
    double now_temp = sensor[0] ? read_celsius(sensor) : NAN;
    if (isfinite(now_temp))
        fprintf(stderr, "; %.1f °C", now_temp);
    if (started > 0) {
        double per = (now_s() - t0) / (double)started;
        fprintf(stderr, "; about %s left", say_duration(per * (double)(todo - started), a, sizeof a));
    } else if (p->time_s > 0) {
        fprintf(stderr, "; at least %s left", say_duration(p->time_s * (double)todo, a, sizeof a));
    }
    fputc('\n', stderr);
}

/* The board set for run I: its CPU frequency (KHZ_NOW, the one set),
 * its thermal settings (TZ_LAST), the cool-down (*WAITED s to
 * *START_TEMP).  -1, or the exit status (said). */
static int prepare_run(const struct plan *p, size_t i, const struct settings *s,
                       struct cpufreq *cf, struct tz *tz, char tz_last[][128],
                       uint64_t *khz_now, const char *sensor, double *waited, double *start_temp)
{
    char a[64], err[1024];
    const struct plan_run *r = &p->runs[i];
    const char *freq = plan_value(p, r, "freq");
    if (freq) {
        uint64_t khz = plan_parse_frequency(freq);
        if (khz != *khz_now) {
            if (cpufreq_set(cf, khz, err, sizeof err) < 0) {
                fprintf(stderr, "tb-series: %s\n", err);
                return SERIES_EXIT_SYSTEM;
            }
            *khz_now = khz;
        }
    }
    if (apply_thermal(p, r, tz, tz_last) < 0)
        return SERIES_EXIT_SYSTEM;
    *waited = 0;
    *start_temp = NAN;
    if (p->has_cooldown && cool_down(p, sensor, s, waited, start_temp) < 0)
        return stop_signal ? 128 + stop_signal : SERIES_EXIT_SYSTEM;
    if (p->has_cooldown && isfinite(*start_temp))
        fprintf(stderr, "tb-series: cooled %s to %.1f °C\n", say_duration(*waited, a, sizeof a),
                *start_temp);
    else if (p->has_cooldown)
        fprintf(stderr, "tb-series: paused %s\n", say_duration(*waited, a, sizeof a));
    return -1;
}

/* Run I recorded into DIR/NAME.csv (through .part), journalled as started
 * and done, counted in T.  -1 (also when a signal cut it: its start has
 * no done, and it is run again), or the exit status that stops the
 * series (said). */
static int record_run(const struct plan *p, size_t i, const struct settings *s, const char *dir,
                      struct journal *j, const char *recorder, double waited, double start_temp,
                      struct tally *t)
{
    const struct plan_run *r = &p->runs[i];
    char part[4096], final[4096];
    snprintf(part, sizeof part, "%s/%s.csv.part", dir, r->name);
    snprintf(final, sizeof final, "%s/%s.csv", dir, r->name);
    unlink(part);   /* what a cut run left */
    char **argv = recorder_argv(p, i, s, recorder, part, waited, start_temp);
    if (!argv) {
        fputs("tb-series: out of memory\n", stderr);
        return SERIES_EXIT_SYSTEM;
    }
    if (s->verbose) {
        fputs("tb-series:", stderr);
        for (char **w = argv; *w; w++)
            fprintf(stderr, " %s", *w);
        fputc('\n', stderr);
    }
    if (journal_write(j, "start %s", r->name) < 0) {
        fprintf(stderr, "tb-series: %s: %s\n", j->path, strerror(errno));
        plan_free_words(argv);
        return SERIES_EXIT_SYSTEM;
    }
    int ws = run_recorder(argv);
    plan_free_words(argv);
    if (stop_signal)
        return -1;
    int code = ws < 0 ? 127 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (code == SERIES_RECORDER_READER_GONE) {
        /* tb-record -O -'s reader had its answer (tb-record-until and
         * the host's tb-fit --follow --until): a run done */
        fprintf(stderr, "tb-series: run %s: stopped by its reader\n", r->name);
        code = 0;
    }
    if (ws < 0 || code == 125 || access(part, F_OK) < 0) {
        /* the recorder, not the benchmark: the next runs would fail alike */
        fprintf(stderr, "tb-series: run %s: %s failed (exit status %d); the series stops\n",
                r->name, recorder, code);
        return SERIES_EXIT_SYSTEM;
    }
    if (rename(part, final) < 0) {
        fprintf(stderr, "tb-series: %s: %s\n", final, strerror(errno));
        return SERIES_EXIT_SYSTEM;
    }
    sync_dir(dir);
    if (journal_write(j, "done %s %d", r->name, code) < 0) {
        fprintf(stderr, "tb-series: %s: %s\n", j->path, strerror(errno));
        return SERIES_EXIT_SYSTEM;
    }
    t->done++;
    if (code != 0) {
        fprintf(stderr, "tb-series: run %s: the benchmark exited with status %d\n", r->name, code);
        tally_failed(t, r->name, code);
    }
    return -1;
}

static int run_series(struct plan *p, const struct settings *s, const char *dir,
                      struct journal *j, struct cpufreq *cf, struct tz *tz,
                      const char *recorder, const char *sensor, struct tally *t)
{
    char tz_last[TZ_MAX_SETTINGS][128] = {{0}};
    double series_t0 = now_s();
    size_t todo = 0, started = 0;
    uint64_t khz_now = 0;
    int status, rc;

    for (size_t i = 0; i < p->nruns; i++)
        if (!journal_is_done(j, p->runs[i].name, &status) || (s->retry_failed && status != 0))
            todo++;
    for (size_t i = 0; i < p->nruns && !stop_signal; i++) {
        const struct plan_run *r = &p->runs[i];
        if (journal_is_done(j, r->name, &status) && !(s->retry_failed && status != 0)) {
            t->before++;
            if (status != 0)
                tally_failed(t, r->name, status);
            continue;
        }
        announce_run(p, i, sensor, started, todo, series_t0);
        double waited, start_temp;
        if ((rc = prepare_run(p, i, s, cf, tz, tz_last, &khz_now, sensor, &waited,
                              &start_temp)) >= 0)
            return rc;
        started++;
        if ((rc = record_run(p, i, s, dir, j, recorder, waited, start_temp, t)) >= 0)
            return rc;
    }
    return stop_signal ? 128 + stop_signal : t->failed ? SERIES_EXIT_FAILED : SERIES_EXIT_OK;
}

/* The sensor a cool-down reads into SENSOR (SIZE bytes).  A cool-down to
 * a temperature or rate needs it; otherwise it only says the temperature
 * each run starts at, where there is one (SENSOR empty where not).  0,
 * or -1 (said). */
static int find_cool_sensor(const struct plan *p, const struct settings *s, char *sensor,
                            size_t size)
{
    char err[PLAN_ERRMAX + 512];
    int pause = !p->has_cooldown || (isnan(p->cool_temp) && isnan(p->cool_rate));
    if (cool_sensor_path(p, s->sysfs_root, sensor, size, err, sizeof err) == 0 &&
        !isnan(read_celsius(sensor)))
        return 0;
    if (!pause) {
        if (sensor[0])
            fprintf(stderr, "tb-series: %s: cannot read a temperature for the cool-down\n", sensor);
        else
            fprintf(stderr, "tb-series: %s\n", err);
        return -1;
    }
    sensor[0] = '\0';
    return 0;
}

/* The CPU frequencies (CF, with FREQ) and thermal settings (TZ, with
 * THERMAL) the series changed given back, and the journal told.  0, or -1 (said). */
static int give_back(struct journal *j, struct cpufreq *cf, int freq, struct tz *tz, int thermal)
{
    char err[1024];
    int given = 1;
    if (freq && cpufreq_restore(cf, err, sizeof err) < 0) {
        fprintf(stderr, "tb-series: cpufreq not given back: %s\n", err);
        given = 0;
    }
    if (thermal && tz_restore(tz, err, sizeof err) < 0) {
        fprintf(stderr, "tb-series: the thermal zone's settings not given back: %s\n", err);
        given = 0;
    }
    return given && journal_restored(j, cf, tz) == 0 ? 0 : -1;
}

/* The series' end: runs done now and before, failed, to do. */
static void say_tally(const struct plan *p, const struct tally *t, const char *dir)
{
    fprintf(stderr, "tb-series: %zu runs: %zu done now, %zu done before", p->nruns, t->done, t->before);
    if (t->failed)
        fprintf(stderr, ", %zu failed (%s: exit status %d)", t->failed, t->first_failed, t->first_status);
    if (t->done + t->before < p->nruns)
        fprintf(stderr, ", %zu to do", p->nruns - t->done - t->before);
    fprintf(stderr, "; in %s\n", dir);
    if (stop_signal)
        fprintf(stderr, "tb-series: stopped by signal %d; run it again to go on\n", (int)stop_signal);
}

int main(int argc, char **argv)
{
    struct settings s = {0};
    int rc = parse_arguments(argc, argv, &s);
    if (rc >= 0)
        return rc;

    struct plan p;
    char err[PLAN_ERRMAX + 512];
    if (plan_read(s.plan_path, &p, err, sizeof err) < 0) {
        fprintf(stderr, "tb-series: %s\n", err);
        plan_free(&p);
        return SERIES_EXIT_USAGE;
    }
    char *dir = output_dir(&s);
    char *recorder = find_recorder(&p, &s);
    struct cpufreq cf = {0};
    struct tz tz = {0};
    struct journal j = {.fd = -1};
    int has_freq = plan_value(&p, &p.runs[0], "freq") != NULL;
    const char *tz_keys[TZ_MAX_SETTINGS];
    int has_thermal = thermal_keys(&p, tz_keys) > 0;
    char sensor[4096] = "";
    rc = SERIES_EXIT_SYSTEM;
    if (!dir || !recorder) {
        fputs("tb-series: out of memory\n", stderr);
        goto out;
    }
    /* everything that can be checked, before the first run (and in a dry
     * run, where the CPUs are there to check against) */
    if (has_freq) {
        int fc = check_frequencies(&p, &s, &cf);
        if (fc != 0 && !(s.dry_run && fc == SERIES_EXIT_SYSTEM)) {
            rc = fc;
            goto out;
        }
    }
    if (has_thermal) {
        int tc = check_thermal(&p, &s, &tz);
        if (tc != 0 && !(s.dry_run && tc == SERIES_EXIT_SYSTEM)) {
            rc = tc;
            goto out;
        }
    }
    if (s.dry_run) {
        rc = dry_run(&p, dir);
        goto out;
    }
    if (find_cool_sensor(&p, &s, sensor, sizeof sensor) < 0)
        goto out;
    int opened = journal_open(&j, dir, p.hash, p.nruns, s.restart, err, sizeof err);
    if (opened < 0) {
        fprintf(stderr, "tb-series: %s\n", err);
        rc = opened == -2 ? SERIES_EXIT_USAGE : SERIES_EXIT_SYSTEM;
        goto out;
    }
    if (!s.restart && check_strangers(&p, &j, dir) < 0)
        goto out;
    if (has_freq || has_thermal) {
        int saved = save_settings(&j, &cf, &tz);
        if (saved < 0) {
            rc = saved == -1 ? SERIES_EXIT_USAGE : SERIES_EXIT_SYSTEM;
            goto out;
        }
    }

    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    struct tally t = {0};
    rc = run_series(&p, &s, dir, &j, &cf, &tz, recorder, sensor, &t);
    if ((has_freq || has_thermal) && give_back(&j, &cf, has_freq, &tz, has_thermal) < 0)
        rc = SERIES_EXIT_SYSTEM;
    say_tally(&p, &t, dir);
out:
    journal_close(&j);
    cpufreq_close(&cf);
    free(dir);
    free(recorder);
    plan_free(&p);
    return rc;
}
