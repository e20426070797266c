/*
 * hostile-gen -- write COUNT hostile variants of the CSV file BASE (a run,
 * or a results file) into DIR, each a seeded draw of mutations: cut at a
 * byte, bytes flipped, junk cells and lines (numbers past a double's
 * range, NaN, non-UTF-8, quotes, commas, NULs, CR, a BOM, long lines),
 * lines dropped, repeated or swapped, rows too long or too short.
 * Prints one line a file, "NAME KIND": KIND is "cut" for a file only cut
 * inside a line (whose verdict may not change silently), else "mutated".
 *
 * Usage: hostile-gen SEED COUNT BASE DIR PREFIX
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n)
{
    return n ? (size_t)(next() % n) : 0;
}

struct text {
    char *b;
    size_t n, cap;
};

static void reserve(struct text *t, size_t more)
{
    if (t->n + more + 1 <= t->cap)
        return;
    t->cap = 2 * (t->n + more + 1);
    if (!(t->b = realloc(t->b, t->cap))) {
        perror("hostile-gen");
        exit(1);
    }
}

static void insert(struct text *t, size_t at, const char *s, size_t len)
{
    reserve(t, len);
    memmove(t->b + at + len, t->b + at, t->n - at);
    memcpy(t->b + at, s, len);
    t->n += len;
}

static void erase(struct text *t, size_t at, size_t len)
{
    memmove(t->b + at, t->b + at + len, t->n - at - len);
    t->n -= len;
}

/* The start of line K (0-based) and its length with its newline; the
 * number of lines when K is past them. */
static size_t line_span(const struct text *t, size_t k, size_t *len)
{
    size_t at = 0, line = 0;
    while (line < k && at < t->n) {
        const char *nl = memchr(t->b + at, '\n', t->n - at);
        at = nl ? (size_t)(nl - t->b) + 1 : t->n;
        line++;
    }
    const char *nl = at < t->n ? memchr(t->b + at, '\n', t->n - at) : NULL;
    *len = nl ? (size_t)(nl - t->b) + 1 - at : t->n - at;
    return at;
}

static size_t count_lines(const struct text *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->b[i] == '\n';
    return n + (t->n > 0 && t->b[t->n - 1] != '\n');
}

static const char *const junk[] = {
    ",", "\"", "\"\"", "nan", "-nan", "inf", "-inf", "1e308", "1e309", "-1e400", "1e-320",
    "-0", "0x10", "4.5e4", "007", "45000abc", "\xef\xbb\xbf", "\xc3\x28", "\xff\xfe",
    "   ", "\t", "#", "# key: value\n", "\n", "\r\n", "\r", ",,,,", "\"a,b\"", "\"open",
    "time/ms", "CPU_0_temp/m°C", "T_inf", "file,column", "1.7976931348623157e308",
    "4294967296", "-9223372036854775809", "0.000000000000000000000000000001", "",
};

static void mutate(struct text *t, int *cut_only)
{
    int ops = 1 + (int)below(3);
    for (int o = 0; o < ops; o++) {
        size_t lines = count_lines(t), len, at;
        int op = (int)below(11);
        if (o > 0 || op != 0)
            *cut_only = 0;
        switch (op) {
        case 0: {   /* cut inside a line (not at its end) */
            if (t->n < 2)
                break;
            size_t k = 1 + below(t->n - 1);
            while (k > 1 && (t->b[k - 1] == '\n'))
                k--;
            t->n = k;
            break;
        }
        case 1:   /* a byte changed */
            if (t->n)
                t->b[below(t->n)] = "\0\xff,\"\n\r#e.-9 "[below(12)];
            break;
        case 2: {   /* junk put in */
            const char *j = junk[below(sizeof junk / sizeof *junk)];
            insert(t, below(t->n + 1), j, strlen(j));
            break;
        }
        case 3:   /* a line dropped */
            at = line_span(t, below(lines), &len);
            erase(t, at, len);
            break;
        case 4: {   /* a line repeated (the header too) */
            at = line_span(t, below(lines), &len);
            char *copy = malloc(len + 1);
            memcpy(copy, t->b + at, len);
            insert(t, at, copy, len);
            free(copy);
            break;
        }
        case 5: {   /* two lines swapped: time going back */
            size_t a = below(lines), b = below(lines), la, lb;
            if (a > b) {
                size_t x = a;
                a = b;
                b = x;
            }
            size_t pa = line_span(t, a, &la), pb = line_span(t, b, &lb);
            if (a == b || !la || !lb || t->b[pa + la - 1] != '\n' || t->b[pb + lb - 1] != '\n')
                break;
            char *first = malloc(la), *second = malloc(lb);
            memcpy(first, t->b + pa, la);
            memcpy(second, t->b + pb, lb);
            erase(t, pb, lb);
            insert(t, pb, first, la);
            erase(t, pa, la);
            insert(t, pa, second, lb);
            free(first);
            free(second);
            break;
        }
        case 6: {   /* a cell replaced */
            at = line_span(t, below(lines), &len);
            size_t c = at + below(len + 1), e = c;
            while (e < t->n && t->b[e] != ',' && t->b[e] != '\n')
                e++;
            erase(t, c, e - c);
            const char *j = junk[below(sizeof junk / sizeof *junk)];
            insert(t, c, j, strlen(j));
            break;
        }
        case 7: {   /* a row too long */
            char row[4096];
            size_t n = (size_t)snprintf(row, sizeof row, "1%zu", below(100000));
            for (size_t k = 1 + below(200); k-- > 0 && n + 8 < sizeof row; )
                n += (size_t)snprintf(row + n, sizeof row - n, ",%zu", below(1000));
            row[n++] = '\n';
            insert(t, line_span(t, below(lines + 1), &len), row, n);
            break;
        }
        case 8:   /* a row too short */
            insert(t, line_span(t, below(lines + 1), &len), "12.5\n", 5);
            break;
        case 9: {   /* a long cell */
            size_t n = 1 + below(5000);
            char *digits = malloc(n);
            for (size_t k = 0; k < n; k++)
                digits[k] = (char)('0' + below(10));
            insert(t, below(t->n + 1), digits, n);
            free(digits);
            break;
        }
        case 10:   /* only the first lines (the header, or nothing) */
            at = line_span(t, below(3), &len);
            t->n = at;
            break;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fputs("usage: hostile-gen SEED COUNT BASE DIR PREFIX\n", stderr);
        return 2;
    }
    uint64_t seed = strtoull(argv[1], NULL, 10);
    long count = strtol(argv[2], NULL, 10);
    FILE *in = fopen(argv[3], "rb");
    if (!in) {
        perror(argv[3]);
        return 1;
    }
    struct text base = {0};
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
        reserve(&base, got);
        memcpy(base.b + base.n, buf, got);
        base.n += got;
    }
    fclose(in);
    for (long i = 0; i < count; i++) {
        state = seed * 1000003 + (uint64_t)i;
        struct text t = {0};
        reserve(&t, base.n);
        memcpy(t.b, base.b, base.n);
        t.n = base.n;
        int cut_only = 1;
        mutate(&t, &cut_only);
        char name[4096];
        snprintf(name, sizeof name, "%s/%s%05ld.csv", argv[4], argv[5], i);
        FILE *out = fopen(name, "wb");
        if (!out || fwrite(t.b, 1, t.n, out) != t.n || fclose(out) != 0) {
            perror(name);
            return 1;
        }
        printf("%s %s\n", name, cut_only ? "cut" : "mutated");
        free(t.b);
    }
    free(base.b);
    return 0;
}
