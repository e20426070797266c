/*
 * cpu_load.c -- each CPU's load in % from the jiffies in /proc/stat:
 * 100 × (1 − Δ(idle + iowait) / Δ(all)) between two samples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_load.h"

static ssize_t read_stat(struct cpu_load *c)
{
    ssize_t n = pread(c->fd, c->buf, c->bufsize - 1, 0);
    if (n >= 0)
        c->buf[n] = '\0';
    return n;
}

/* Count the "cpuN ..." lines of TEXT; with STORE, work out each CPU's load
 * since the previous call. */
static size_t parse_cpus(const char *text, struct cpu_load *c, int store)
{
    size_t count = 0;
    for (const char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
            continue;
        unsigned long long v[10] = {0}, total = 0;
        const char *p = line + strcspn(line, " ");
        for (int i = 0; i < 10; i++) {
            char *end;
            v[i] = strtoull(p, &end, 10);
            if (end == p)
                break;
            p = end;
        }
        for (int i = 0; i < 8; i++)   /* guest times are inside user and nice */
            total += v[i];
        if (store && count < c->ncpu) {
            unsigned long long busy = total - v[3] - v[4];
            if (c->have_prev && total > c->prev_total[count]) {
                double load = 100.0 * (double)(busy - c->prev_busy[count]) /
                              (double)(total - c->prev_total[count]);
                snprintf(c->text[count], sizeof c->text[count], "%.*g", c->compat ? 6 : 4, load);
            } else if (c->have_prev && c->compat) {
                strcpy(c->text[count], "0");   /* no jiffy passed: thermobench's 0 */
            } else {
                c->text[count][0] = '\0';
            }
            c->prev_busy[count] = busy;
            c->prev_total[count] = total;
        }
        count++;
    }
    return count;
}

int cpu_load_open(struct cpu_load *c, const struct record_settings *s,
                  char *err, size_t errlen)
{
    char *path = NULL;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->bufsize = 1 << 16;
    if (asprintf(&path, "%s/stat", s->procfs_root ? s->procfs_root : "/proc") < 0) {
        path = NULL;
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (!(c->buf = malloc(c->bufsize))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if ((c->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || read_stat(c) < 0) {
        snprintf(err, errlen, "--cpu-usage: %s: %s", path, strerror(errno));
        goto fail;
    }
    c->ncpu = parse_cpus(c->buf, c, 0);
    if (c->ncpu == 0) {
        snprintf(err, errlen, "--cpu-usage: %s lists no CPU", path);
        goto fail;
    }
    c->prev_busy = calloc(c->ncpu, sizeof *c->prev_busy);
    c->prev_total = calloc(c->ncpu, sizeof *c->prev_total);
    c->text = calloc(c->ncpu, sizeof *c->text);
    if (!c->prev_busy || !c->prev_total || !c->text) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if ((c->compat = s->compat)) {
        parse_cpus(c->buf, c, 1);
        c->have_prev = 1;
    }
    free(path);
    return 0;
fail:   /* nothing left open or allocated */
    free(path);
    cpu_load_close(c);
    memset(c, 0, sizeof *c);
    c->fd = -1;
    return -1;
}

int cpu_load_sample(struct cpu_load *c)
{
    if (read_stat(c) < 0) {
        for (size_t i = 0; i < c->ncpu; i++)
            strcpy(c->text[i], "nan");
        c->have_prev = 0;
        return -1;
    }
    parse_cpus(c->buf, c, 1);
    c->have_prev = 1;
    return 0;
}

void cpu_load_close(struct cpu_load *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    free(c->prev_busy);
    free(c->prev_total);
    free(c->text);
}
