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

#include "options.h"

static const char usage_text[] =
    "Usage: tb-record [OPTION]... [--] [BENCHMARK [ARG]...]\n"
    "Run BENCHMARK and sample sensors on a fixed period into one CSV file in\n"
    "the thermobench format.  Without a benchmark, record until --time ends\n"
    "or until interrupted.\n"
    "\n"
    "  -t, --time=SECONDS        stop after SECONDS (the benchmark is killed)\n"
    "  -p, --period=MS           sampling period in milliseconds (default 1000;\n"
    "                            fractions such as 0.5 are accepted)\n"
    "  -o, --output_dir=DIR      write DIR/NAME.csv (default .)\n"
    "  -O, --output=FILE         write FILE instead; - for standard output\n"
    "  -n, --name=NAME           name the file NAME.csv (default: the\n"
    "                            benchmark's name, or tb-record)\n"
    "  -S, --sensor=\"FILE [NAME [UNIT]]\"\n"
    "                            sample FILE as column NAME/UNIT; may be repeated\n"
    "  -s, --sensors_file=FILE   read sensors from FILE, one \"FILE [NAME [UNIT]]\"\n"
    "                            a line, # starts a comment\n"
    "  -c, --column=KEY          record the benchmark's KEY=VALUE output lines\n"
    "                            as column KEY; may be repeated\n"
    "      --sysfs-root=DIR      read sensor paths under /sys from DIR instead\n"
    "                            (a fake tree for tests and simulations)\n"
    "  -h, --help                show this help and exit\n"
    "  -V, --version             show the version and exit\n"
    "\n"
    "With no sensor given, every thermal zone is sampled, named by its type.\n"
    "\n"
    "Exit status: the benchmark's; 0 when --time ended it; 128+N when it or\n"
    "tb-record died of signal N; 125 usage error, sensor or write failure;\n"
    "126 the benchmark cannot be executed; 127 it was not found.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "tb-record: %s%s\n", what, arg ? arg : "");
    fputs("Try 'tb-record --help' for more information.\n", stderr);
    return RECORD_EXIT_FAILURE;
}

static int parse_positive(const char *arg, double *x)
{
    char *end;
    errno = 0;
    *x = strtod(arg, &end);
    return end != arg && *end == '\0' && errno == 0 && isfinite(*x) && *x > 0
               ? 0 : -1;
}

static int push_string(char ***v, size_t *n, char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv || !s) {
        free(s);
        if (nv)
            *v = nv;
        return -1;
    }
    *v = nv;
    nv[(*n)++] = s;
    return 0;
}

int record_parse_sensor_spec(const char *spec, struct sensor_spec *out,
                             char *err, size_t errlen)
{
    char *word[4] = {NULL, NULL, NULL, NULL};
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
    return 0;
}

int record_read_sensors_file(const char *path, struct record_settings *s,
                             char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, msg[512];
    size_t size = 0, lineno = 0;
    int rc = 0;

    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    while (getline(&line, &size, f) >= 0) {
        lineno++;
        char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        if (*p == '!') {
            snprintf(err, errlen, "%s:%zu: !COMMAND lines are not supported "
                     "by this version of tb-record", path, lineno);
            rc = -1;
            break;
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
    free(line);
    fclose(f);
    return rc;
}

int record_parse_arguments(int argc, char **argv, struct record_settings *s)
{
    enum { OPT_SYSFS_ROOT = 256 };
    static const struct option options[] = {
        {"time", required_argument, NULL, 't'},
        {"period", required_argument, NULL, 'p'},
        {"output_dir", required_argument, NULL, 'o'},
        {"output", required_argument, NULL, 'O'},
        {"name", required_argument, NULL, 'n'},
        {"sensor", required_argument, NULL, 'S'},
        {"sensors_file", required_argument, NULL, 's'},
        {"column", required_argument, NULL, 'c'},
        {"sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    char err[1024];
    int c;

    *s = (struct record_settings){.period_ms = 1000, .output_dir = ".",
                                  .argc = argc, .argv = argv};
    opterr = 0;
    /* "+": options end at the benchmark's name, as in thermobench. */
    while ((c = getopt_long(argc, argv, "+:t:p:o:O:n:S:s:c:hV", options, NULL)) != -1) {
        switch (c) {
        case 't':
            if (parse_positive(optarg, &s->time_limit_s) < 0)
                return usage_error("--time wants a positive number of seconds, not ", optarg);
            break;
        case 'p':
            if (parse_positive(optarg, &s->period_ms) < 0)
                return usage_error("--period wants a positive number of milliseconds, not ", optarg);
            break;
        case 'o': s->output_dir = optarg; break;
        case 'O': s->output = optarg; break;
        case 'n': s->name = optarg; break;
        case 'S':
            if (add_sensor(s, optarg, err, sizeof err) < 0)
                return usage_error("--sensor: ", err);
            break;
        case 's':
            if (record_read_sensors_file(optarg, s, err, sizeof err) < 0)
                return usage_error("--sensors_file: ", err);
            break;
        case 'c':
            if (push_string(&s->columns, &s->ncolumns, strdup(optarg)) < 0)
                return usage_error("out of memory", NULL);
            break;
        case OPT_SYSFS_ROOT: s->sysfs_root = optarg; break;
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
    }
    if (optind < argc)
        s->bench_argv = &argv[optind];
    if (!s->bench_argv && s->time_limit_s == 0 && s->ncolumns > 0)
        return usage_error("--column needs a benchmark to read KEY=VALUE lines from", NULL);
    return -1;
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
}
