/*
 * svg_compact.c -- make PLplot's SVG small: its lines as few paths.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_compact.h"

/* A <polyline .../> element: where it starts and ends, and its points
 * attribute's value, which is all that two of a run may differ in. */
struct polyline {
    const char *start, *end;      /* "<polyline" .. past "/>" */
    const char *points, *points_end;   /* the value, between its quotes */
    const char *attr, *attr_end;  /* ' points="' .. past the closing quote */
};

/* The searches look no further than they must: a sanitizer's strstr()
 * measures the whole rest of the file at each call, thousands of them. */
static int parse_polyline(const char *s, struct polyline *p)
{
    static const char tag[] = "<polyline", attr[] = "points=\"";
    if (strncmp(s, tag, sizeof tag - 1) != 0)
        return -1;
    const char *end = strchr(s, '>');   /* no '>' inside PLplot's attributes */
    if (!end || end[-1] != '/')
        return -1;
    end--;
    const char *a = memmem(s, (size_t)(end - s), attr, sizeof attr - 1);
    if (!a)
        return -1;
    const char *q = strchr(a + sizeof attr - 1, '"');
    if (!q || q > end)
        return -1;
    *p = (struct polyline){s, end + 2, a + sizeof attr - 1, q, a, q + 1};
    return 0;
}

/* Whether A and B are the same element but for their points. */
static int same_but_points(const struct polyline *a, const struct polyline *b)
{
    size_t a1 = (size_t)(a->attr - a->start), b1 = (size_t)(b->attr - b->start);
    size_t a2 = (size_t)(a->end - a->attr_end), b2 = (size_t)(b->end - b->attr_end);
    return a1 == b1 && a2 == b2 && memcmp(a->start, b->start, a1) == 0 &&
           memcmp(a->attr_end, b->attr_end, a2) == 0;
}

/* The points "x1,y1 x2,y2" of a stroke a hair long along x (a dot, as
 * tb-plot draws them) as "x1,y1h0"; others as they are. */
static void write_points(FILE *out, const char *p, const char *end)
{
    double x1, y1, x2, y2;
    int n = 0;
    char head[64];
    size_t len = (size_t)(end - p);
    if (len < sizeof head) {
        memcpy(head, p, len);
        head[len] = '\0';
        if (sscanf(head, "%lf,%lf %lf,%lf%n", &x1, &y1, &x2, &y2, &n) == 4 && (size_t)n == len &&
            y1 == y2 && x2 - x1 >= 0 && x2 - x1 < 0.1) {
            const char *space = strchr(head, ' ');
            fwrite(head, 1, (size_t)(space - head), out);
            fputs("h0", out);   /* a zero-length stroke with round caps is a dot (SVG 1.1, 11.4) */
            return;
        }
    }
    fwrite(p, 1, len, out);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (cap - n < 65536) {
            char *p = realloc(buf, cap = cap * 2 + 65536 + 1);
            if (!p)
                break;
            buf = p;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad || cap - n < 1) {
        free(buf);
        errno = bad && errno == 0 ? EIO : errno ? errno : ENOMEM;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int svg_merge_polylines(const char *path)
{
    size_t len;
    char *in = read_all(path, &len);
    if (!in)
        return -1;
    FILE *out = fopen(path, "wb");
    if (!out) {
        free(in);
        return -1;
    }
    const char *s = in;
    for (;;) {
        const char *next = s;
        while ((next = strchr(next, '<')) && strncmp(next, "<polyline", 9) != 0)
            next++;
        struct polyline p, q;
        if (!next || parse_polyline(next, &p) < 0) {
            fputs(s, out);
            break;
        }
        fwrite(s, 1, (size_t)(next - s), out);
        /* <path ...the same attributes... d="Mx,y x,y Mx,y x,y"/> */
        fputs("<path", out);
        fwrite(p.start + 9, 1, (size_t)(p.attr - (p.start + 9)), out);
        fputs(" d=\"M", out);
        write_points(out, p.points, p.points_end);
        s = p.end;
        for (;;) {
            const char *t = s;
            while (*t == ' ' || *t == '\n' || *t == '\t' || *t == '\r')
                t++;
            if (parse_polyline(t, &q) < 0 || !same_but_points(&p, &q))
                break;
            fputs(" M", out);
            write_points(out, q.points, q.points_end);
            s = q.end;
        }
        /* round caps: a stroke a hair long is a dot, as tb-plot draws them */
        fputs("\" stroke-linecap=\"round\" stroke-linejoin=\"round\"", out);
        fwrite(p.attr_end, 1, (size_t)(p.end - p.attr_end), out);
    }
    free(in);
    int bad = ferror(out);
    if (fclose(out) != 0 || bad) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
