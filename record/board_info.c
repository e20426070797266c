/*
 * board_info.c -- which board a run came from, as "# key: value" lines:
 * the device tree's model and compatible, the CPUs and their clusters,
 * the kernel's command line, the cpufreq and thermal governors, the
 * board's revision and firmware where DMI or the device tree say them,
 * and the SoC's id and revision.  A farm runs one experiment on
 * many boards; tb-compare groups their runs by these (meta:board).
 *
 * Everything is read under the sysfs root (--sysfs-root fakes it), and
 * /proc's two files from the directory "proc" beside a faked root, so a
 * test can fake a whole board.  libc only: this runs on the board.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_info.h"

#define FILE_MAX 4096   /* a value longer than this is not a value */

/* FILE_MAX bytes at most of PATH into BUF (NUL-terminated), trailing
 * whitespace and NULs cut, inner NULs (a device tree's string lists) and
 * control characters made spaces: a line's value.  Its length, or -1. */
static int read_value(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    while (n > 0 && ((unsigned char)buf[n - 1] <= ' ' || buf[n - 1] == 0x7f))
        n--;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] < ' ' || buf[i] == 0x7f)
            buf[i] = ' ';
    buf[n] = 0;
    return n > 0 ? (int)n : -1;
}

static int add(struct board_info *b, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* KEY=VALUE into B's list. */
static int add(struct board_info *b, const char *key, const char *fmt, ...)
{
    char value[FILE_MAX], *kv;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    if (b->n >= BOARD_INFO_MAX || asprintf(&kv, "%s=%s", key, value) < 0)
        return -1;
    b->kv[b->n++] = kv;
    return 0;
}

/* The file SYS/REL (SYS standing for /sys) as KEY, when it is there. */
static int add_file(struct board_info *b, const char *sys, const char *rel, const char *key)
{
    char path[FILE_MAX], value[FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", sys, rel);
    return read_value(path, value, sizeof value) < 0 ? 0 : add(b, key, "%s", value);
}

/* The file SYS/REL as KEY, or where it is not there, SYS/ELSE. */
static int add_first_file(struct board_info *b, const char *sys, const char *rel,
                          const char *rel_else, const char *key)
{
    size_t before = b->n;
    int rc = add_file(b, sys, rel, key);
    return rc == 0 && b->n == before ? add_file(b, sys, rel_else, key) : rc;
}

/* The names of DIR's entries beginning with PREFIX and a number, sorted
 * by that number, into NUM (at most MAX): how many. */
static size_t numbered_entries(const char *dir, const char *prefix, int *num, size_t max)
{
    DIR *d = opendir(dir);
    size_t n = 0, plen = strlen(prefix);
    struct dirent *e;
    if (!d)
        return 0;
    while ((e = readdir(d)) && n < max) {
        char *end;
        if (strncmp(e->d_name, prefix, plen) != 0 || !*(e->d_name + plen))
            continue;
        long v = strtol(e->d_name + plen, &end, 10);
        if (*end || v < 0 || v > 100000)
            continue;
        size_t i = n++;
        while (i > 0 && num[i - 1] > (int)v) {   /* insertion: a few dozen at most */
            num[i] = num[i - 1];
            i--;
        }
        num[i] = (int)v;
    }
    closedir(d);
    return n;
}

/* ARM's name for the part of a MIDR_EL1 value, or NULL. */
static const char *arm_part(unsigned long midr)
{
    static const struct { unsigned part; const char *name; } parts[] = {
        {0xd03, "Cortex-A53"}, {0xd04, "Cortex-A35"}, {0xd05, "Cortex-A55"},
        {0xd07, "Cortex-A57"}, {0xd08, "Cortex-A72"}, {0xd09, "Cortex-A73"},
        {0xd0a, "Cortex-A75"}, {0xd0b, "Cortex-A76"}, {0xd0c, "Neoverse-N1"},
        {0xd0d, "Cortex-A77"}, {0xd40, "Neoverse-V1"}, {0xd41, "Cortex-A78"},
        {0xd44, "Cortex-X1"}, {0xd46, "Cortex-A510"}, {0xd47, "Cortex-A710"},
        {0xd48, "Cortex-X2"}, {0xd49, "Neoverse-N2"}, {0xd4b, "Cortex-A78C"},
        {0xd4d, "Cortex-A715"}, {0xd4e, "Cortex-X3"}, {0xd80, "Cortex-A520"},
        {0xd81, "Cortex-A720"}, {0xd82, "Cortex-X4"},
    };
    if (((midr >> 24) & 0xff) != 0x41)   /* implementer: Arm */
        return NULL;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].part == ((midr >> 4) & 0xfff))
            return parts[i].name;
    return NULL;
}

/* CPU's core as a name: its MIDR's part where the kernel shows it (arm64),
 * else its hexadecimal MIDR, into NAME; 0, or -1 when neither is there. */
static int core_name(const char *sys, int cpu, char *name, size_t size)
{
    char path[FILE_MAX], value[64];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/regs/identification/midr_el1", sys, cpu);
    if (read_value(path, value, sizeof value) < 0)
        return -1;
    unsigned long midr = strtoul(value, NULL, 16);
    const char *part = arm_part(midr);
    if (part)
        snprintf(name, size, "%s", part);
    else
        snprintf(name, size, "MIDR %#lx", midr);
    return 0;
}

/* Append to LIST (SIZE) the text of TEXT unless it is there already, the
 * items separated by spaces. */
static void add_unique(char *list, size_t size, const char *text)
{
    size_t len = strlen(text);
    for (const char *p = list; (p = strstr(p, text)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
            return;
    size_t used = strlen(list);
    snprintf(list + used, size - used, "%s%s", used ? " " : "", text);
}

/* The cpufreq policies: each one's CPUs (a cluster: "cpu_clusters: 0-3
 * 4-5"), its core ("cpu: 4x Cortex-A53 + 2x Cortex-A72") and governor. */
static int add_clusters(struct board_info *b, const char *sys)
{
    char dir[FILE_MAX / 2], path[FILE_MAX], cpus[FILE_MAX], value[FILE_MAX];
    char clusters[FILE_MAX] = "", cores[FILE_MAX] = "", governors[FILE_MAX] = "";
    int policy[64];
    snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpufreq", sys);
    size_t n = numbered_entries(dir, "policy", policy, 64);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/policy%d/related_cpus", dir, policy[i]);
        if (read_value(path, cpus, sizeof cpus) < 0)
            continue;
        /* "0 1 2 3": as "0-3" where they run on, else as listed */
        int first = atoi(cpus), count = 1, last = first, consecutive = 1;
        for (const char *p = strchr(cpus, ' '); p; p = strchr(p + 1, ' ')) {
            int c = atoi(p + 1);
            consecutive &= c == last + 1;
            last = c;
            count++;
        }
        char range[64];
        if (count > 1 && consecutive)
            snprintf(range, sizeof range, "%d-%d", first, last);
        else
            snprintf(range, sizeof range, "%.60s", cpus);
        for (char *c = range; *c; c++)
            *c = *c == ' ' ? ',' : *c;
        add_unique(clusters, sizeof clusters, range);
        char core[128];
        if (core_name(sys, first, core, sizeof core) == 0) {
            size_t used = strlen(cores);
            snprintf(cores + used, sizeof cores - used, "%s%dx %s", used ? " + " : "", count, core);
        }
        snprintf(path, sizeof path, "%s/policy%d/scaling_governor", dir, policy[i]);
        if (read_value(path, value, sizeof value) > 0)
            add_unique(governors, sizeof governors, value);
    }
    if ((*cores && add(b, "cpu", "%s", cores) < 0) ||
        (*clusters && add(b, "cpu_clusters", "%s", clusters) < 0) ||
        (*governors && add(b, "cpufreq_governor", "%s", governors) < 0))
        return -1;
    return 0;
}

/* The CPU's model name from PROC/cpuinfo (x86's "model name", or an
 * arm32 kernel's "Hardware"), where the policies did not name cores. */
static int add_cpuinfo(struct board_info *b, const char *proc)
{
    char path[FILE_MAX], line[1024];
    snprintf(path, sizeof path, "%s/cpuinfo", proc);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon || strncmp(line, "model name", 10) != 0)
            continue;
        char *v = colon + 1 + strspn(colon + 1, " \t");
        v[strcspn(v, "\n")] = 0;
        if (*v)
            rc = add(b, "cpu", "%s", v);
        break;
    }
    fclose(f);
    return rc;
}

/* The thermal zones' governors, each named once. */
static int add_thermal_governors(struct board_info *b, const char *sys)
{
    char dir[FILE_MAX / 2], path[FILE_MAX], value[FILE_MAX], governors[FILE_MAX] = "";
    int zone[256];
    snprintf(dir, sizeof dir, "%s/class/thermal", sys);
    size_t n = numbered_entries(dir, "thermal_zone", zone, 256);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/thermal_zone%d/policy", dir, zone[i]);
        if (read_value(path, value, sizeof value) > 0)
            add_unique(governors, sizeof governors, value);
    }
    return *governors ? add(b, "thermal_governor", "%s", governors) : 0;
}

/* A big-endian 32-bit cell of the device tree at SYS/REL as KEY, in hex
 * as the board's own tools print it: the Raspberry Pi firmware's
 * /system/linux,revision (c03111, /proc/cpuinfo's Revision). */
static int add_dt_cell(struct board_info *b, const char *sys, const char *rel, const char *key)
{
    char path[FILE_MAX];
    unsigned char cell[5];
    snprintf(path, sizeof path, "%s/%s", sys, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(cell, 1, sizeof cell, f);
    fclose(f);
    if (n != 4)   /* not one cell: not what the property is */
        return 0;
    return add(b, key, "%lx", (unsigned long)cell[0] << 24 | (unsigned long)cell[1] << 16 |
                              (unsigned long)cell[2] << 8 | cell[3]);
}

/* Revision and firmware: DMI's on a PC; on a device-tree board the
 * Raspberry Pi firmware's revision and U-Boot's version (which it writes
 * into /chosen); and the SoC bus's first SoC (sysfs-devices-soc), its id
 * and its silicon revision, which a comparison of boards must know. */
static int add_revisions(struct board_info *b, const char *sys)
{
    size_t before = b->n;
    int rc = add_file(b, sys, "class/dmi/id/board_version", "board_revision");
    if (rc == 0 && b->n == before)
        rc = add_dt_cell(b, sys, "firmware/devicetree/base/system/linux,revision", "board_revision");
    if (rc == 0)
        rc = add_first_file(b, sys, "class/dmi/id/bios_version",
                            "firmware/devicetree/base/chosen/u-boot,version", "firmware");
    if (rc == 0)
        rc = add_first_file(b, sys, "devices/soc0/soc_id", "devices/soc0/family", "soc");
    if (rc == 0)
        rc = add_file(b, sys, "devices/soc0/revision", "soc_revision");
    return rc;
}

int board_info_read(struct board_info *b, const char *sysfs_root)
{
    const char *sys = sysfs_root ? sysfs_root : "/sys";
    char proc[FILE_MAX] = "/proc", path[FILE_MAX], value[FILE_MAX];

    *b = (struct board_info){0};
    if (sysfs_root)
        snprintf(proc, sizeof proc, "%s/../proc", sysfs_root);
    int rc = add_file(b, sys, "firmware/devicetree/base/model", "board");
    /* a PC's board: its DMI vendor and name */
    if (rc == 0 && b->n == 0) {
        char vendor[FILE_MAX];
        snprintf(path, sizeof path, "%s/class/dmi/id/board_vendor", sys);
        int have_vendor = read_value(path, vendor, sizeof vendor) > 0;
        snprintf(path, sizeof path, "%s/class/dmi/id/board_name", sys);
        if (read_value(path, value, sizeof value) > 0)
            rc = add(b, "board", "%s%s%s", have_vendor ? vendor : "", have_vendor ? " " : "", value);
    }
    if (rc == 0)
        rc = add_file(b, sys, "firmware/devicetree/base/compatible", "compatible");
    if (rc == 0)
        rc = add_revisions(b, sys);
    size_t before = b->n;
    if (rc == 0)
        rc = add_clusters(b, sys);
    int named = 0;
    for (size_t i = before; i < b->n; i++)
        named |= strncmp(b->kv[i], "cpu=", 4) == 0;
    if (rc == 0 && !named)
        rc = add_cpuinfo(b, proc);
    snprintf(path, sizeof path, "%s/cmdline", proc);
    if (rc == 0 && read_value(path, value, sizeof value) > 0)
        rc = add(b, "cmdline", "%s", value);
    if (rc == 0)
        rc = add_thermal_governors(b, sys);
    if (rc < 0)
        board_info_free(b);
    return rc;
}

void board_info_free(struct board_info *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->kv[i]);
    *b = (struct board_info){0};
}
