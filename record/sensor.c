/*
 * sensor.c -- open sensor files once and re-read them with pread().
 *
 * sysfs regenerates an attribute's text on every read at offset 0, so one
 * pread() per sample replaces the open/fstat/read/close that thermobench
 * does: a quarter of the system calls, and less of our own heat.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sensor.h"

/* PATH with a leading /sys/ moved under ROOT. */
static char *map_path(const char *root, const char *path)
{
    char *out = NULL;
    if (root && strncmp(path, "/sys/", 5) == 0) {
        if (asprintf(&out, "%s/%s", root, path + 5) < 0)
            return NULL;
        return out;
    }
    return strdup(path);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

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
    if (ends_with(base, "cur_freq"))
        return "kHz";
    return NULL;
}

static int sensor_init(struct sensor *sn, const struct record_settings *s,
                       const struct sensor_spec *spec, char *err, size_t errlen)
{
    sn->fd = -1;
    if (!(sn->path = map_path(s->sysfs_root, spec->path))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *name = spec->name ? strdup(spec->name) : default_name(sn->path);
    const char *unit = spec->unit ? spec->unit : default_unit(sn->path);
    int rc = name ? (unit ? asprintf(&sn->header, "%s/%s", name, unit)
                          : asprintf(&sn->header, "%s", name))
                  : -1;
    free(name);
    if (rc < 0) {
        sn->header = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if ((sn->fd = open(sn->path, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "sensor %s: cannot open: %s", sn->path, strerror(errno));
        return -1;
    }
    return 0;
}

static int zone_number(const char *name)
{
    return atoi(name + strlen("thermal_zone"));
}

static int compare_zones(const void *a, const void *b)
{
    return zone_number(*(char *const *)a) - zone_number(*(char *const *)b);
}

/* Every thermal_zoneN/temp, in zone order. */
static int thermal_zone_specs(const struct record_settings *s,
                              struct sensor_spec **specs, size_t *n,
                              char *err, size_t errlen)
{
    char *dir_path = map_path(s->sysfs_root, "/sys/class/thermal");
    DIR *dir = dir_path ? opendir(dir_path) : NULL;
    char **zones = NULL;
    size_t nz = 0;
    struct dirent *e;

    if (!dir) {
        snprintf(err, errlen, "no sensor given and %s cannot be read: %s "
                 "(use -S FILE)", dir_path ? dir_path : "/sys/class/thermal",
                 strerror(errno));
        free(dir_path);
        return -1;
    }
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, "thermal_zone", 12) != 0)
            continue;
        char **nzones = realloc(zones, (nz + 1) * sizeof *zones);
        if (!nzones)
            break;
        zones = nzones;
        if (!(zones[nz] = strdup(e->d_name)))
            break;
        nz++;
    }
    closedir(dir);
    qsort(zones, nz, sizeof *zones, compare_zones);
    *specs = calloc(nz ? nz : 1, sizeof **specs);
    for (size_t i = 0; i < nz; i++) {
        if (*specs && asprintf(&(*specs)[i].path, "/sys/class/thermal/%s/temp",
                               zones[i]) < 0)
            (*specs)[i].path = NULL;
        free(zones[i]);
    }
    free(zones);
    free(dir_path);
    *n = nz;
    if (nz == 0) {
        snprintf(err, errlen, "no sensor given and no thermal zone found (use -S FILE)");
        return -1;
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
        if (asprintf(&h, "%.*s_%zu%s", len, sensors[i].header, i,
                     slash ? slash : "") < 0)
            return -1;
        free(sensors[i].header);
        sensors[i].header = h;
    }
    return 0;
}

int sensors_open(const struct record_settings *s, struct sensor **out,
                 size_t *n, char *err, size_t errlen)
{
    struct sensor_spec *zones = NULL;
    const struct sensor_spec *specs = s->sensors;
    size_t count = s->nsensors;

    if (count == 0) {
        if (thermal_zone_specs(s, &zones, &count, err, errlen) < 0) {
            free(zones);
            return -1;
        }
        specs = zones;
    }
    struct sensor *sensors = calloc(count, sizeof *sensors);
    int rc = sensors ? 0 : -1;
    if (!sensors)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; sensors && i < count; i++)
        sensors[i].fd = -1;
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (!specs[i].path) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else {
            rc = sensor_init(&sensors[i], s, &specs[i], err, errlen);
        }
    }
    if (rc == 0 && make_headers_unique(sensors, count) < 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; zones && i < count; i++)
        free(zones[i].path);
    free(zones);
    if (rc < 0) {
        sensors_close(sensors, count);
        return -1;
    }
    *out = sensors;
    *n = count;
    return 0;
}

static int is_number(const char *s)
{
    char *end;
    if (!*s)
        return 0;
    strtod(s, &end);
    return *end == '\0';
}

int sensor_read(struct sensor *sensor, char *buf, size_t size)
{
    ssize_t n = pread(sensor->fd, buf, size - 1, 0);
    if (n < 0) {
        snprintf(buf, size, "nan");
        return -1;
    }
    buf[n] = '\0';
    char *p = buf + strspn(buf, " \t");
    size_t len = strcspn(p, " \t\r\n");
    memmove(buf, p, len);
    buf[len] = '\0';
    if (!is_number(buf)) {
        snprintf(buf, size, "nan");
        return -1;
    }
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
