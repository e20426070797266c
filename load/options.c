/*
 * options.c -- tb-load's command line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "tbfit.h"   /* its libc-only quantities: tb_parse_duration() */

#define MAX_CPUS CPU_SETSIZE

static const char usage_text[] =
    "Usage: tb-load --kernel=NAME [OPTION]...\n"
    "Load the CPUs with a kernel, one thread pinned to each CPU, always or in\n"
    "duty cycles, and print each CPU's work done as CPU<n>_work_done=<ops>\n"
    "lines (for tb-record -c).\n"
    "\n"
    "What and where:\n"
    "  -k, --kernel=NAME     the workload (see --list)\n"
    "  -l, --list            list the kernels and exit\n"
    "  -s, --size=BYTES      buffer of a memory kernel, per thread (default 8M;\n"
    "                        K, M, G: binary multiples; at least 8K)\n"
    "  -c, --cpus=LIST       the CPUs, e.g. 0-3,5 (default: every online CPU\n"
    "                        this process may use)\n"
    "  -m, --mask=HEX        the CPUs as a hexadecimal mask, e.g. 0xf\n"
    "\n"
    "When:\n"
    "  -t, --time=DURATION   stop after DURATION (90, 90s, 500ms, 15m, 1h;\n"
    "                        default: at SIGINT or SIGTERM)\n"
    "  -p, --period=MS       the duty cycle's period (default 100 when a load\n"
    "                        below 100 % needs one)\n"
    "  -u, --util=PCT        on for PCT % of each period (default 100)\n"
    "      --profile=FILE    the load over time: \"time_s,util\" lines, or\n"
    "                        \"time_s,util,util...\" with a util for each CPU\n"
    "      --prbs=BIT_MS     a random on/off sequence of BIT_MS bits (on: at\n"
    "                        --util), for system identification\n"
    "      --seed=N          the sequence's seed (default 1)\n"
    "      --util-name=NAME  write the level as NAME=<PCT> (default util): a\n"
    "                        column of its own for each of several tb-load\n"
    "                        (one per cluster, each an input to tb-ident)\n"
    "      --realtime[=PRIO] the workers under SCHED_FIFO at PRIO (default 10):\n"
    "                        each on window ends on its deadline whatever else\n"
    "                        runs (needs root, CAP_SYS_NICE or an rtprio limit)\n"
    "\n"
    "Output:\n"
    "  -r, --report=MS       counters every MS milliseconds (default 1000)\n"
    "      --sysfs-root=DIR  read /sys from DIR (a fake tree for tests)\n"
    "  -v, --verbose         say what runs, and the switching latency at the end\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "A line util=<PCT> (CPU<n>_util=<PCT> for a profile by CPU) is printed\n"
    "whenever the load level changes.\n"
    "\n"
    "Exit status: 0 success (also when stopped by SIGINT or SIGTERM); 2 a bad\n"
    "option, CPU list or profile; 3 a CPU could not be used, or memory or a\n"
    "thread could not be had.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tb-load: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'tb-load --help' for more information.\n", stderr);
    return LOAD_EXIT_USAGE;
}

static int parse_number(const char *arg, double *x, char **rest)
{
    char *end;
    errno = 0;
    *x = strtod(arg, &end);
    if (end == arg || errno != 0 || !isfinite(*x))
        return -1;
    if (rest)
        *rest = end;
    return rest || *end == '\0' ? 0 : -1;
}

/* "90", "90s", "500ms", "15m", "15min", "1h" into seconds, as every tbkit
 * tool reads a time (tb_parse_duration()); positive. */
static int parse_duration(const char *arg, double *s)
{
    return tb_parse_duration(arg, s) == 0 && *s > 0 ? 0 : -1;
}

/* A time in milliseconds: a bare number is ms (the option's unit), a time
 * with its unit is converted ("100", "100ms", "0.1s"). */
static int parse_ms(const char *arg, double *ms)
{
    if (parse_number(arg, ms, NULL) == 0)
        return 0;
    if (tb_parse_duration(arg, ms) < 0)
        return -1;
    *ms *= 1000;
    return 0;
}

/* "8M", "32K", "1G", "4096" into bytes. */
static int parse_size(const char *arg, size_t *bytes)
{
    double x;
    char *unit;
    if (parse_number(arg, &x, &unit) < 0 || x <= 0)
        return -1;
    double scale = 1;
    if (*unit) {
        const char *units = "KMGT";
        const char *u = strchr(units, toupper((unsigned char)unit[0]));
        if (!u)
            return -1;
        scale = ldexp(1, 10 * (int)(u - units + 1));
        if (unit[1] && strcmp(unit + 1, "iB") != 0 && strcmp(unit + 1, "B") != 0)
            return -1;
    }
    x *= scale;
    if (!(x < (double)SIZE_MAX / 2))
        return -1;
    *bytes = (size_t)x;
    return 0;
}

int load_parse_cpu_list(const char *text, unsigned char *cpus, size_t max, char *err,
                        size_t errlen)
{
    const char *p = text;
    memset(cpus, 0, max);
    if (!*p) {
        snprintf(err, errlen, "an empty CPU list");
        return -1;
    }
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        unsigned long first = strtoul(p, &end, 10), last = first;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                goto bad;
            last = strtoul(p + 1, &end, 10);
            p = end;
        }
        if (errno || last < first) {
            snprintf(err, errlen, "CPU range %lu-%lu runs backwards or overflows", first, last);
            return -1;
        }
        if (last >= max) {
            snprintf(err, errlen, "CPU %lu is beyond the %zu this build can pin", last, max);
            return -1;
        }
        for (unsigned long c = first; c <= last; c++)
            cpus[c] = 1;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            goto bad;
    }
    return 0;
bad:
    snprintf(err, errlen, "'%s' is not a CPU list such as 0-3,5", text);
    return -1;
}

/* A hexadecimal mask ("0xf", "f", long ones too) into CPUS. */
static int parse_cpu_mask(const char *text, unsigned char *cpus, size_t max, char *err,
                          size_t errlen)
{
    const char *p = text;
    memset(cpus, 0, max);
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    size_t len = strlen(p), any = 0;
    if (len == 0 || strspn(p, "0123456789abcdefABCDEF") != len) {
        snprintf(err, errlen, "'%s' is not a hexadecimal CPU mask such as 0xf", text);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        int nibble = isdigit((unsigned char)p[len - 1 - i]) ? p[len - 1 - i] - '0'
                                                            : tolower((unsigned char)p[len - 1 - i]) - 'a' + 10;
        for (int b = 0; b < 4; b++)
            if (nibble & (1 << b)) {
                size_t c = 4 * i + (size_t)b;
                if (c >= max) {
                    snprintf(err, errlen, "CPU %zu of mask %s is beyond the %zu this build can pin",
                             c, text, max);
                    return -1;
                }
                cpus[c] = 1;
                any = 1;
            }
    }
    if (!any) {
        snprintf(err, errlen, "mask %s names no CPU", text);
        return -1;
    }
    return 0;
}

/* The online CPUs (SYSFS/devices/system/cpu/online) that this process may
 * run on (its affinity) into USABLE; 0, or -1 with ERR. */
static int usable_cpus(const char *sysfs, unsigned char *online, unsigned char *usable,
                       size_t max, char *err, size_t errlen)
{
    char path[4096], text[4096];
    snprintf(path, sizeof path, "%s/devices/system/cpu/online", sysfs);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    text[strcspn(text, "\n")] = '\0';
    char e[256];
    if (load_parse_cpu_list(text, online, max, e, sizeof e) < 0) {
        snprintf(err, errlen, "%s: %s", path, e);
        return -1;
    }
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) < 0)
        for (size_t c = 0; c < max; c++)
            CPU_SET(c, &mine);
    for (size_t c = 0; c < max; c++)
        usable[c] = online[c] && CPU_ISSET(c, &mine);
    return 0;
}

/* The CPUs of the list or mask WANTED (NULL: every usable one) into S. */
static int choose_cpus(struct load_settings *s, const char *list, const char *mask)
{
    static unsigned char wanted[MAX_CPUS], online[MAX_CPUS], usable[MAX_CPUS];
    char err[8192];

    if (usable_cpus(s->sysfs_root, online, usable, MAX_CPUS, err, sizeof err) < 0)
        return usage_error("cannot tell the online CPUs: %s", err);
    if (list && load_parse_cpu_list(list, wanted, MAX_CPUS, err, sizeof err) < 0)
        return usage_error("--cpus: %s", err);
    if (mask && parse_cpu_mask(mask, wanted, MAX_CPUS, err, sizeof err) < 0)
        return usage_error("--mask: %s", err);
    if (!list && !mask)
        memcpy(wanted, usable, sizeof wanted);
    s->cpus = malloc(MAX_CPUS * sizeof *s->cpus);
    if (!s->cpus)
        return usage_error("%s", "out of memory");
    for (size_t c = 0; c < MAX_CPUS; c++) {
        if (!wanted[c])
            continue;
        if (!online[c]) {
            snprintf(err, sizeof err, "CPU %zu is offline or does not exist", c);
            return usage_error("%s", err);
        }
        if (!usable[c]) {
            snprintf(err, sizeof err, "CPU %zu is not one this process may run on (its affinity)", c);
            return usage_error("%s", err);
        }
        s->cpus[s->ncpus++] = (int)c;
    }
    if (s->ncpus == 0)
        return usage_error("%s", "no CPU to load");
    return -1;
}

enum { OPT_PROFILE = 256, OPT_PRBS, OPT_SEED, OPT_SYSFS_ROOT, OPT_UTIL_NAME, OPT_REALTIME };
static const struct option load_options[] = {
    {"kernel", required_argument, NULL, 'k'},
    {"list", no_argument, NULL, 'l'},
    {"size", required_argument, NULL, 's'},
    {"cpus", required_argument, NULL, 'c'},
    {"mask", required_argument, NULL, 'm'},
    {"time", required_argument, NULL, 't'},
    {"period", required_argument, NULL, 'p'},
    {"util", required_argument, NULL, 'u'},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"prbs", required_argument, NULL, OPT_PRBS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"util-name", required_argument, NULL, OPT_UTIL_NAME},
    {"report", required_argument, NULL, 'r'},
    {"sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT},
    {"realtime", optional_argument, NULL, OPT_REALTIME},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* The load over time: its period, utilisation, profile or PRBS, report. */
static int timing_option(int c, const char *arg, struct load_settings *s)
{
    switch (c) {
    case 't':
        if (parse_duration(arg, &s->time_s) < 0)
            return usage_error("--time wants a duration such as 90, 90s, 15m or 1h, not '%s'", arg);
        break;
    case 'p':
        if (parse_ms(arg, &s->period_ms) < 0 || !(s->period_ms >= 0.1))
            return usage_error("--period wants milliseconds (or a time such as 1s), at least "
                               "0.1, not '%s'", arg);
        break;
    case 'u':
        if (parse_number(arg, &s->util, NULL) < 0 || s->util < 0 || s->util > 100)
            return usage_error("--util wants a percentage from 0 to 100, not '%s'", arg);
        break;
    case OPT_PROFILE: s->profile = arg; break;
    case OPT_PRBS:
        if (parse_ms(arg, &s->prbs_ms) < 0 || !(s->prbs_ms >= 1))
            return usage_error("--prbs wants a bit length in milliseconds, at least 1, not '%s'", arg);
        break;
    case OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(arg, &end, 10);
        if (end == arg || *end || errno || arg[0] == '-')
            return usage_error("--seed wants a non-negative integer, not '%s'", arg);
        s->seed = n;
        break;
    }
    case 'r':
        if (parse_ms(arg, &s->report_ms) < 0 || !(s->report_ms >= 1))
            return usage_error("--report wants milliseconds, at least 1, not '%s'", arg);
        break;
    }
    return -1;
}

/* --realtime[=PRIORITY]: SCHED_FIFO, 10 unless given. */
static int realtime_option(const char *arg, struct load_settings *s)
{
    char *end;
    long prio = arg ? strtol(arg, &end, 10) : 10;
    if (arg && (end == arg || *end || prio < 1 || prio > 99))
        return usage_error("--realtime wants a SCHED_FIFO priority from 1 to 99, not '%s'", arg);
    s->realtime = (int)prio;
    return -1;
}

/* Once all are read: what goes together, and the CPUs. */
static int check_settings(struct load_settings *s, const char *list, const char *mask)
{
    if (s->list)
        return -1;
    if (!s->kernel)
        return usage_error("%s", "no kernel: name one with --kernel (tb-load --list names them)");
    if (s->profile && s->prbs_ms > 0)
        return usage_error("%s", "--profile and --prbs both set the load over time: give one");
    /* an on bit below 100 % is a duty cycle: it must hold a whole period */
    if (s->prbs_ms > 0 && s->util < 100 && s->prbs_ms < (s->period_ms > 0 ? s->period_ms : 100))
        return usage_error("%s", "a --prbs bit shorter than the --period (default 100 ms) holds "
                                 "no whole duty cycle");
    return choose_cpus(s, list, mask);
}

int load_parse_arguments(int argc, char **argv, struct load_settings *s)
{
    const char *list = NULL, *mask = NULL;
    int c, rc;

    *s = (struct load_settings){
        .util = 100, .seed = 1, .report_ms = 1000, .size = 8 << 20, .sysfs_root = "/sys",
        .util_name = "util",
    };
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":k:ls:c:m:t:p:u:r:vhV", load_options, NULL)) != -1) {
        rc = -1;
        switch (c) {
        case 'k':
            if (!(s->kernel = kernel_find(optarg)))
                return usage_error("unknown kernel '%s' (tb-load --list names them)", optarg);
            break;
        case 'l': s->list = 1; break;
        case 's':
            if (parse_size(optarg, &s->size) < 0 || s->size < 8192)
                return usage_error("--size wants bytes, at least 8K (such as 32K, 8M, 1G), not '%s'",
                                   optarg);
            break;
        case 'c': list = optarg; mask = NULL; break;
        case 'm': mask = optarg; list = NULL; break;
        case 't': case 'p': case 'u': case OPT_PROFILE: case OPT_PRBS: case OPT_SEED: case 'r':
            rc = timing_option(c, optarg, s);
            break;
        case OPT_UTIL_NAME:
            if (!*optarg || strspn(optarg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_") != strlen(optarg))
                return usage_error("--util-name wants letters, digits and _, not '%s'", optarg);
            s->util_name = optarg;
            break;
        case OPT_SYSFS_ROOT: s->sysfs_root = optarg; break;
        case OPT_REALTIME: rc = realtime_option(optarg, s); break;
        case 'v': s->verbose = 1; break;
        case 'h':
            fputs(usage_text, stdout);
            return LOAD_EXIT_OK;
        case 'V':
            puts("tb-load (" PACKAGE_NAME ") " PACKAGE_VERSION);
            return LOAD_EXIT_OK;
        case ':':
            return usage_error("option %s needs an argument", argv[optind - 1]);
        default:
            return usage_error("unknown option %s", argv[optind - 1]);
        }
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    return check_settings(s, list, mask);
}

void load_settings_free(struct load_settings *s)
{
    free(s->cpus);
    s->cpus = NULL;
}
