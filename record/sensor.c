/*
 * sensor.c -- find sensor files, open them once, re-read them with pread().
 *
 * sysfs regenerates an attribute's text on every read at offset 0, so one
 * pread() per sample replaces the open/fstat/read/close that thermobench
 * does: a quarter of the system calls, and less of our own heat.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sensor.h"

/* A sensor found by looking through /sys. */
struct found {
    char *path;         /* as under /sys, before the root is applied */
    char *name;
    const char *unit;
    enum sensor_kind kind;
    char *max_path;     /* max_energy_range_uj of a RAPL counter, or NULL */
};

struct found_list {
    struct found *v;
    size_t n;
};

/* PATH with a leading /sys/ or /proc/ moved under the given roots. */
static char *map_path(const struct record_settings *s, const char *path)
{
    char *out = NULL;
    if (s->sysfs_root && strncmp(path, "/sys/", 5) == 0)
        return asprintf(&out, "%s/%s", s->sysfs_root, path + 5) < 0 ? NULL : out;
    if (s->procfs_root && strncmp(path, "/proc/", 6) == 0)
        return asprintf(&out, "%s/%s", s->procfs_root, path + 6) < 0 ? NULL : out;
    return strdup(path);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The first line of a small file, or NULL. */
static char *read_small_file(const char *path)
{
    char buf[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf[0] ? strdup(buf) : NULL;
}

/* The name thermobench gives a sensor file: a thermal zone's type, any
 * other file's parent directory. */
static char *default_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(path);
    size_t dirlen = (size_t)(slash - path);
    if (strcmp(slash, "/temp") == 0) {
        char *type_path = NULL;
        if (asprintf(&type_path, "%.*s/type", (int)dirlen, path) >= 0) {
            char *type = read_small_file(type_path);
            free(type_path);
            if (type)
                return type;
        }
    }
    const char *start = path + dirlen;
    while (start > path && start[-1] != '/')
        start--;
    if (start == path + dirlen)
        return strdup(path);
    return strndup(start, (size_t)(path + dirlen - start));
}

/* The unit the kernel's sysfs ABI gives such a file, or NULL. */
static const char *default_unit(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strstr(path, "thermal_zone") && strcmp(base, "temp") == 0)
        return "m°C";
    if (strncmp(base, "temp", 4) == 0 && ends_with(base, "_input"))
        return "m°C";
    if (strncmp(base, "power", 5) == 0 &&
        (ends_with(base, "_input") || ends_with(base, "_average")))
        return "µW";
    if ((strncmp(base, "energy", 6) == 0 && ends_with(base, "_input")) ||
        strcmp(base, "energy_uj") == 0)
        return "µJ";
    if (strncmp(base, "curr", 4) == 0 && ends_with(base, "_input"))
        return "mA";
    if (strncmp(base, "in", 2) == 0 && ends_with(base, "_input"))
        return "mV";
    if (ends_with(base, "cur_freq"))
        return "kHz";
    return NULL;
}

/* --- discovery ------------------------------------------------------------- */

static int add_found(struct found_list *l, char *path, char *name, const char *unit,
                     enum sensor_kind kind, char *max_path)
{
    struct found *nv = path && name ? realloc(l->v, (l->n + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(path);
        free(name);
        free(max_path);
        return -1;
    }
    l->v = nv;
    nv[l->n++] = (struct found){path, name, unit, kind, max_path};
    return 0;
}

static void found_free(struct found_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].name);
        free(l->v[i].max_path);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* Entries of DIR (under the roots) starting with PREFIX, in natural order
 * (thermal_zone2 before thermal_zone10). */
static int natural_compare(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    while (*x && *y) {
        if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
            char *ex, *ey;
            unsigned long nx = strtoul(x, &ex, 10), ny = strtoul(y, &ey, 10);
            if (nx != ny)
                return nx < ny ? -1 : 1;
            x = ex;
            y = ey;
        } else {
            if (*x != *y)
                return (unsigned char)*x - (unsigned char)*y;
            x++;
            y++;
        }
    }
    return (unsigned char)*x - (unsigned char)*y;
}

static size_t list_dir(const struct record_settings *s, const char *dir,
                       const char *prefix, char ***names)
{
    char *real = map_path(s, dir);
    DIR *d = real ? opendir(real) : NULL;
    struct dirent *e;
    size_t n = 0;

    *names = NULL;
    free(real);
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || e->d_name[0] == '.')
            continue;
        char **nv = realloc(*names, (n + 1) * sizeof *nv);
        if (!nv || !(nv[n] = strdup(e->d_name))) {
            if (nv)
                *names = nv;
            break;
        }
        *names = nv;
        n++;
    }
    closedir(d);
    if (n > 1)   /* qsort of no array at all is undefined */
        qsort(*names, n, sizeof **names, natural_compare);
    return n;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static char *read_under_root(const struct record_settings *s, const char *path)
{
    char *real = map_path(s, path);
    char *text = real ? read_small_file(real) : NULL;
    free(real);
    return text;
}

static void find_thermal_zones(const struct record_settings *s, struct found_list *l)
{
    char **zones;
    size_t n = list_dir(s, "/sys/class/thermal", "thermal_zone", &zones);
    for (size_t i = 0; i < n; i++) {
        char *path = NULL, *type_path = NULL;
        if (asprintf(&path, "/sys/class/thermal/%s/temp", zones[i]) < 0)
            continue;
        char *name = NULL;
        if (asprintf(&type_path, "/sys/class/thermal/%s/type", zones[i]) >= 0) {
            name = read_under_root(s, type_path);
            free(type_path);
        }
        add_found(l, path, name ? name : strdup(zones[i]), "m°C", SENSOR_FILE, NULL);
    }
    free_names(zones, n);
}

/* "coretemp" + "Package id 0" -> "coretemp_Package_id_0" */
static char *sensor_name(const char *chip, const char *label)
{
    char *name = NULL;
    if (asprintf(&name, "%s_%s", chip, label) < 0)
        return NULL;
    for (char *p = name; *p; p++)
        if (isspace((unsigned char)*p) || *p == ',' || *p == '/' || *p == '"')
            *p = '_';
    return name;
}

static void find_hwmon(const struct record_settings *s, struct found_list *l)
{
    static const struct {
        const char *prefix, *suffix, *unit;
        enum sensor_kind kind;
    } attrs[] = {
        {"temp", "_input", "m°C", SENSOR_FILE},
        {"power", "_input", "µW", SENSOR_FILE},
        {"power", "_average", "µW", SENSOR_FILE},
        {"energy", "_input", "W", SENSOR_POWER},
        {"curr", "_input", "mA", SENSOR_FILE},
        {"in", "_input", "mV", SENSOR_FILE},
    };
    char **chips;
    size_t nchips = list_dir(s, "/sys/class/hwmon", "hwmon", &chips);
    for (size_t c = 0; c < nchips; c++) {
        char *dir = NULL, *chip = NULL, *name_path = NULL;
        if (asprintf(&dir, "/sys/class/hwmon/%s", chips[c]) < 0)
            continue;
        if (asprintf(&name_path, "%s/name", dir) >= 0) {
            chip = read_under_root(s, name_path);
            free(name_path);
        }
        char **files;
        size_t nfiles = list_dir(s, dir, "", &files);
        for (size_t f = 0; f < nfiles; f++) {
            for (size_t a = 0; a < sizeof attrs / sizeof attrs[0]; a++) {
                const char *fn = files[f];
                size_t plen = strlen(attrs[a].prefix);
                if (strncmp(fn, attrs[a].prefix, plen) != 0 || !isdigit((unsigned char)fn[plen]) ||
                    !ends_with(fn, attrs[a].suffix))
                    continue;
                char *base = strndup(fn, strcspn(fn, "_"));   /* "temp1" */
                char *label_path = NULL, *label = NULL, *path = NULL;
                if (base && asprintf(&label_path, "%s/%s_label", dir, base) >= 0) {
                    label = read_under_root(s, label_path);
                    free(label_path);
                }
                char *name = sensor_name(chip ? chip : chips[c], label ? label : base ? base : fn);
                if (name && attrs[a].kind == SENSOR_POWER) {
                    char *p = NULL;
                    if (asprintf(&p, "%s_power", name) >= 0) {
                        free(name);
                        name = p;
                    }
                }
                if (asprintf(&path, "%s/%s", dir, fn) >= 0)
                    add_found(l, path, name, attrs[a].unit, attrs[a].kind, NULL);
                else
                    free(name);
                free(label);
                free(base);
            }
        }
        free_names(files, nfiles);
        free(chip);
        free(dir);
    }
    free_names(chips, nchips);
}

static void find_cpufreq(const struct record_settings *s, struct found_list *l)
{
    char **cpus;
    size_t n = list_dir(s, "/sys/devices/system/cpu", "cpu", &cpus);
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)cpus[i][3]))
            continue;
        char *path = NULL, *name = NULL;
        if (asprintf(&path, "/sys/devices/system/cpu/%s/cpufreq/scaling_cur_freq", cpus[i]) < 0)
            continue;
        char *real = map_path(s, path);
        if (!real || access(real, F_OK) != 0 || asprintf(&name, "%s_freq", cpus[i]) < 0) {
            free(real);
            free(path);
            continue;
        }
        free(real);
        add_found(l, path, name, "kHz", SENSOR_FILE, NULL);
    }
    free_names(cpus, n);
}

static void find_rapl(const struct record_settings *s, struct found_list *l)
{
    char **zones;
    size_t n = list_dir(s, "/sys/class/powercap", "intel-rapl:", &zones);
    for (size_t i = 0; i < n; i++) {
        char *path = NULL, *name_path = NULL, *max_path = NULL, *name = NULL;
        if (asprintf(&path, "/sys/class/powercap/%s/energy_uj", zones[i]) < 0)
            continue;
        if (asprintf(&name_path, "/sys/class/powercap/%s/name", zones[i]) >= 0) {
            char *zone_name = read_under_root(s, name_path);
            name = sensor_name("rapl", zone_name ? zone_name : zones[i]);
            free(zone_name);
            free(name_path);
        }
        char *p = NULL;
        if (name && asprintf(&p, "%s_power", name) >= 0) {
            free(name);
            name = p;
        }
        if (asprintf(&max_path, "/sys/class/powercap/%s/max_energy_range_uj", zones[i]) < 0)
            max_path = NULL;
        add_found(l, path, name, "W", SENSOR_POWER, max_path);
    }
    free_names(zones, n);
}

/* NAME with every byte a column or metadata key cannot hold made '_'. */
static void sanitise_name(char *name)
{
    for (char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
            *c = '_';
}

/* Each cooling device's cur_state, as column TYPE_cdevN (no unit: a
 * state from 0, none, to max_state, the most throttled). */
static void find_cooling_devices(const struct record_settings *s, struct found_list *l)
{
    char **devs;
    size_t n = list_dir(s, "/sys/class/thermal", "cooling_device", &devs);
    for (size_t i = 0; i < n; i++) {
        char *path = NULL, *type_path = NULL, *name = NULL;
        if (asprintf(&path, "/sys/class/thermal/%s/cur_state", devs[i]) < 0)
            continue;
        char *type = asprintf(&type_path, "/sys/class/thermal/%s/type", devs[i]) >= 0
                         ? read_under_root(s, type_path) : NULL;
        free(type_path);
        if (asprintf(&name, "%s_cdev%s", type ? type : "cooling", devs[i] + 14) >= 0)
            sanitise_name(name);
        free(type);
        add_found(l, path, name, "state", SENSOR_FILE, NULL);
    }
    free_names(devs, n);
}

static void find_all(const struct record_settings *s, struct found_list *l, int all)
{
    find_thermal_zones(s, l);
    if (!all)
        return;
    find_cooling_devices(s, l);
    find_hwmon(s, l);
    find_cpufreq(s, l);
    find_rapl(s, l);
}

size_t sensors_list(const struct record_settings *s, FILE *f)
{
    struct found_list l = {0};
    find_all(s, &l, 1);
    for (size_t i = 0; i < l.n; i++)
        fprintf(f, "%s\t%s\t%s%s\n", l.v[i].name, l.v[i].unit, l.v[i].path,
                l.v[i].kind == SENSOR_POWER ? "\t(power from this energy counter)" : "");
    size_t n = l.n;
    found_free(&l);
    return n;
}

/* --- opening and reading ------------------------------------------------------ */

static int sensor_init(struct sensor *sn, const struct record_settings *s,
                       const struct found *spec, const char *name, const char *unit,
                       char *err, size_t errlen)
{
    sn->kind = spec->kind;
    if (!(sn->path = map_path(s, spec->path))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *dname = name ? strdup(name) : default_name(sn->path);
    /* thermobench's headers carry only the unit the user gave */
    sn->as_thermobench = s->compat;
    if (!unit && !s->compat)
        unit = default_unit(sn->path);
    int rc = dname ? (unit ? asprintf(&sn->header, "%s/%s", dname, unit)
                           : asprintf(&sn->header, "%s", dname))
                   : -1;
    free(dname);
    if (rc < 0) {
        sn->header = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* O_NONBLOCK: a FIFO or device given as a sensor must not hang us;
     * sysfs and procfs files ignore it. */
    struct stat st;
    if ((sn->fd = open(sn->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 || fstat(sn->fd, &st) < 0) {
        snprintf(err, errlen, "sensor %s: cannot open: %s", sn->path, strerror(errno));
        return -1;
    }
    sn->dev = st.st_dev;
    sn->ino = st.st_ino;
    if (spec->max_path) {
        char *max = read_under_root(s, spec->max_path);
        sn->max_energy = max ? strtod(max, NULL) : 0;
        free(max);
    }
    return 0;
}

/* Two zones of one type would give two columns of one name. */
static int make_headers_unique(struct sensor *sensors, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int same = 0;
        for (size_t j = 0; j < i; j++)
            same |= strcmp(sensors[i].header, sensors[j].header) == 0;
        if (!same)
            continue;
        char *h = NULL, *slash = strchr(sensors[i].header, '/');
        int len = slash ? (int)(slash - sensors[i].header) : (int)strlen(sensors[i].header);
        if (asprintf(&h, "%.*s_%zu%s", len, sensors[i].header, i, slash ? slash : "") < 0)
            return -1;
        free(sensors[i].header);
        sensors[i].header = h;
    }
    return 0;
}

int sensors_open(const struct record_settings *s, struct sensor **out,
                 size_t *n, char *err, size_t errlen)
{
    struct found_list l = {0};
    size_t count;

    *out = NULL;
    *n = 0;
    if (s->all_sensors || (s->nsensors == 0 && !s->no_sensors))
        find_all(s, &l, s->all_sensors);
    count = l.n + s->nsensors;
    if (count == 0) {
        if (s->no_sensors)
            return 0;
        snprintf(err, errlen, "no sensor given and no thermal zone found under %s "
                 "(use -S FILE)", s->sysfs_root ? s->sysfs_root : "/sys");
        return -1;
    }
    struct sensor *sensors = calloc(count, sizeof *sensors);
    int rc = sensors ? 0 : -1;
    if (!sensors)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; sensors && i < count; i++)
        sensors[i].fd = -1;
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (i < s->nsensors) {
            const struct sensor_spec *sp = &s->sensors[i];
            struct found f = {.path = sp->path, .kind = SENSOR_FILE};
            rc = sensor_init(&sensors[i], s, &f, sp->name, sp->unit, err, errlen);
        } else {
            const struct found *f = &l.v[i - s->nsensors];
            const char *unit = s->compat && !s->all_sensors ? NULL : f->unit;
            rc = sensor_init(&sensors[i], s, f, f->name, unit, err, errlen);
        }
    }
    if (rc == 0 && make_headers_unique(sensors, count) < 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    found_free(&l);
    if (rc < 0) {
        sensors_close(sensors, count);
        return -1;
    }
    *out = sensors;
    *n = count;
    return 0;
}

/* Whether S is a decimal number: [-+]digits[.digits][e[-+]digits].
 * Cheaper than strtod() at every sample, and stricter ("inf", hex). */
static int is_decimal(const char *s)
{
    int digits = 0;
    if (*s == '-' || *s == '+')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* The first number in BUF, trimmed in place; 0, or -1 when there is none. */
static int first_number(char *buf)
{
    char *p = buf + strspn(buf, " \t\r\n");
    size_t len = strcspn(p, " \t\r\n");
    memmove(buf, p, len);
    buf[len] = '\0';
    return is_decimal(buf) ? 0 : -1;
}

/* BUF's number as thermobench writes it: scanf("%lf") takes what strtod
 * takes (hex, inf, "45000abc" as 45000), printf("%g") prints it.  %g
 * keeps six digits; where that would change the value (an energy counter
 * in µJ) the shortest exact form is written instead: thermobench's
 * layout, not its lost digits.  0, or -1 when there is no number. */
static int thermobench_number(char *buf, size_t size)
{
    char *end;
    double v = strtod(buf, &end);
    if (end == buf)
        return -1;
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            break;
    }
    return 0;
}

int sensor_check(struct sensor *sensor)
{
    struct stat st;
    int there = stat(sensor->path, &st) == 0;
    if (sensor->fd >= 0 && there && st.st_dev == sensor->dev && st.st_ino == sensor->ino)
        return 0;
    if (sensor->fd < 0 && !there)
        return 0;
    int was_open = sensor->fd >= 0;
    if (was_open)
        close(sensor->fd);   /* its file is gone or replaced: no stale values */
    sensor->fd = -1;
    sensor->have_prev = 0;
    if (!there)
        return SENSOR_GONE;
    struct stat now;
    int fd = open(sensor->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &now) < 0) {
        if (fd >= 0)
            close(fd);
        return was_open ? SENSOR_GONE : 0;
    }
    sensor->fd = fd;
    sensor->dev = now.st_dev;
    sensor->ino = now.st_ino;
    return was_open ? SENSOR_REPLACED : SENSOR_BACK;
}

int sensor_read(struct sensor *sensor, int64_t now_ns, char *buf, size_t size)
{
    ssize_t n = sensor->fd >= 0 ? pread(sensor->fd, buf, size - 1, 0) : (errno = ENOENT, -1);
    sensor->read_errno = n < 0 ? errno : 0;
    if (n >= 0)
        buf[n] = '\0';
    /* A number that runs to the end of the buffer may go on past it:
     * never record it cut. */
    size_t lead = n > 0 ? strspn(buf, " \t\r\n") : 0;
    sensor->too_long = n == (ssize_t)(size - 1) && lead + strcspn(buf + lead, " \t\r\n") == (size_t)n;
    int bad = n < 0 || sensor->too_long ||
              (sensor->as_thermobench && sensor->kind == SENSOR_FILE ? thermobench_number(buf, size)
                                                                     : first_number(buf)) < 0;
    if (bad) {
        snprintf(buf, size, "nan");
        sensor->have_prev = 0;
        return -1;
    }
    if (sensor->kind == SENSOR_FILE)
        return 0;

    double energy = strtod(buf, NULL);
    int have = sensor->have_prev;
    double de = energy - sensor->prev_energy;
    double dt = (double)(now_ns - sensor->prev_ns) / 1e9;
    sensor->prev_energy = energy;
    sensor->prev_ns = now_ns;
    sensor->have_prev = 1;
    if (de < 0 && sensor->max_energy > 0)
        de += sensor->max_energy;   /* the counter wrapped */
    if (!have || !(dt > 0) || de < 0)
        buf[0] = '\0';              /* no power yet */
    else
        snprintf(buf, size, "%.6g", de / dt / 1e6);
    return 0;
}

void sensors_close(struct sensor *sensors, size_t n)
{
    if (!sensors)
        return;
    for (size_t i = 0; i < n; i++) {
        if (sensors[i].fd >= 0)
            close(sensors[i].fd);
        free(sensors[i].path);
        free(sensors[i].header);
    }
    free(sensors);
}

/* Append "KEY=VALUE" (from FMT) to *V (N strings); 0, or -1 when memory
 * runs out. */
static int push_meta(char ***v, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int push_meta(char ***v, size_t *n, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv) {
        free(s);
        return -1;
    }
    *v = nv;
    nv[(*n)++] = s;
    return 0;
}

/* The column name of sensor V (its header up to the unit) into NAME, when
 * a metadata key can hold it; 0, or -1. */
static int meta_name(const struct sensor *v, char *name, size_t size)
{
    size_t len = strcspn(v->header, "/");
    if (len == 0 || len >= size ||
        strspn(v->header, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") < len)
        return -1;
    memcpy(name, v->header, len);
    name[len] = '\0';
    return 0;
}

/* Whether TEXT can be a metadata value: printable, one line. */
static int meta_value_ok(const char *text)
{
    for (const char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return 0;
    return 1;
}

/* The file DIR/FILE as "PREFIX.NAME[.FILE]=VALUE" when it is there. */
static int push_file_meta(char ***metas, size_t *nmetas, int dir_len, const char *dir,
                          const char *file, const char *key)
{
    char path[4096];
    snprintf(path, sizeof path, "%.*s/%s", dir_len, dir, file);
    char *text = read_small_file(path);
    int rc = text && meta_value_ok(text) ? push_meta(metas, nmetas, "%s=%s", key, text) : 0;
    free(text);
    return rc;
}

/* A thermal zone's trip points, policy (governor), mode and the power
 * allocator's constants, for the zone of column NAME whose temp file is
 * in DIR. */
static int zone_metas(const char *dir, int dir_len, const char *name, char ***metas,
                      size_t *nmetas)
{
    static const char *const zone_files[] = {"policy", "available_policies", "mode",
        "sustainable_power", "k_po", "k_pu", "k_i", "k_d", "integral_cutoff"};
    char key[256];
    for (int k = 0; k < 64; k++) {
        char tpath[4096], ypath[4096];
        snprintf(tpath, sizeof tpath, "%.*s/trip_point_%d_temp", dir_len, dir, k);
        snprintf(ypath, sizeof ypath, "%.*s/trip_point_%d_type", dir_len, dir, k);
        char *temp = read_small_file(tpath), *type = read_small_file(ypath);
        int rc = temp && type && strspn(temp, "-0123456789") == strlen(temp) && !strchr(type, ' ')
                     ? push_meta(metas, nmetas, "trip.%s.%d=%s %s", name, k, type, temp) : 0;
        int last = !temp;
        free(temp);
        free(type);
        if (rc < 0)
            return -1;
        if (last)
            break;
    }
    for (size_t f = 0; f < sizeof zone_files / sizeof *zone_files; f++) {
        snprintf(key, sizeof key, "%s.%s", zone_files[f], name);
        if (push_file_meta(metas, nmetas, dir_len, dir, zone_files[f], key) < 0)
            return -1;
    }
    return 0;
}

int sensors_zone_metas(const struct sensor *v, size_t n, char ***metas, size_t *nmetas)
{
    for (size_t i = 0; i < n; i++) {
        const char *path = v[i].path, *slash = strrchr(path, '/');
        char name[128], key[256];
        if (v[i].kind != SENSOR_FILE || !slash || meta_name(&v[i], name, sizeof name) < 0)
            continue;
        int dir = (int)(slash - path);
        if (strcmp(slash, "/temp") == 0 && strstr(path, "thermal_zone")) {
            if (zone_metas(path, dir, name, metas, nmetas) < 0)
                return -1;
        } else if (strcmp(slash, "/cur_state") == 0 && strstr(path, "cooling_device")) {
            snprintf(key, sizeof key, "max_state.%s", name);
            if (push_file_meta(metas, nmetas, dir, path, "max_state", key) < 0)
                return -1;
        }
    }
    return 0;
}
