/*
 * plan.c -- read a tb-series plan, check it, and expand it into runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include "plan.h"
#include "tbfit.h"   /* its libc-only quantities */
#include "window_spec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys the recorder writes itself, and those tb-series adds: a variable
 * of one of these names would make two lines with one key. */
static const char *const reserved[] = {
    "host", "kernel", "machine", "period_ms", "repeat", "series", "series_run",
    "cooldown_waited_s", "cooldown_start_C", NULL,
};

static int fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
    char what[PLAN_ERRMAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(err, errlen, "%s:%d: %s", path, line, what);
    else
        snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

/* --- words ----------------------------------------------------------------- */

void plan_free_words(char **words)
{
    for (size_t i = 0; words && words[i]; i++)
        free(words[i]);
    free(words);
}

int plan_split_words(const char *line, char ***out, char *err, size_t errlen)
{
    size_t n = 0, cap = 8, len = strlen(line);
    char **words = calloc(cap + 1, sizeof *words);
    char *word = malloc(len + 1);
    const char *p = line;

    if (!words || !word)
        goto nomem;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            break;
        size_t w = 0;
        while (*p && *p != ' ' && *p != '\t') {
            if (*p == '\'') {
                const char *end = strchr(p + 1, '\'');
                if (!end) {
                    snprintf(err, errlen, "a ' without its closing '");
                    goto fail;
                }
                memcpy(word + w, p + 1, (size_t)(end - p - 1));
                w += (size_t)(end - p - 1);
                p = end + 1;
            } else if (*p == '"') {
                for (p++; *p && *p != '"'; p++) {
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                        p++;
                    word[w++] = *p;
                }
                if (!*p) {
                    snprintf(err, errlen, "a \" without its closing \"");
                    goto fail;
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                word[w++] = p[1];
                p += 2;
            } else {
                word[w++] = *p++;
            }
        }
        if (n == cap) {
            char **more = realloc(words, (2 * cap + 1) * sizeof *words);
            if (!more)
                goto nomem;
            words = more;
            cap *= 2;
        }
        if (!(words[n] = strndup(word, w)))
            goto nomem;
        words[++n] = NULL;
    }
    free(word);
    *out = words;
    return (int)n;
nomem:
    snprintf(err, errlen, "out of memory");
fail:
    free(word);
    plan_free_words(words);
    return -1;
}

/* --- values ---------------------------------------------------------------- */

/* Durations, temperatures and frequencies are read as every tbkit tool
 * reads them (tb_parse_duration(), tb_quantity_parse(): libc only). */
double plan_parse_duration(const char *text)
{
    double total;
    if (tb_parse_duration(text, &total) < 0)
        return -1;
    return total <= 3.2e9 ? total : -1;
}

uint64_t plan_parse_frequency(const char *text)
{
    double x, khz;
    /* cpufreq's own unit, kHz, for a bare number */
    if (tb_quantity_parse(text, "Hz", &x) == 1)
        khz = x / 1e3;
    else if (tb_number_parse(text, strlen(text), &x) == TB_NUMBER_OK && isfinite(x))
        khz = x;
    else
        return 0;
    /* cpufreq counts in whole kHz: 1.2GHz is 1200000 and no rounding away */
    if (khz < 1 || khz > 1e9 || fabs(khz - round(khz)) > 1e-6 * khz)
        return 0;
    return (uint64_t)llround(khz);
}

/* A temperature "38C", "38°C" or "311.15K": °C, or NaN. */
static double parse_temperature(const char *text)
{
    double x;
    return tb_quantity_parse(text, "°C", &x) == 1 ? x : NAN;
}

/* A rate of fall "0.5C/min": °C a minute, or NaN. */
static double parse_rate(const char *text)
{
    char *end;
    double x = strtod(text, &end);
    if (end == text || !isfinite(x) || x <= 0 || (strcmp(end, "C/min") && strcmp(end, "°C/min")))
        return NAN;
    return x;
}

static int valid_name(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* --- the parser -------------------------------------------------------------- */

struct parser {
    struct plan *p;
    char *err;
    size_t errlen;
    int line;
    int seen[16];   /* the line each key was set on, to refuse a second */
};

static const char *const keys[] = {
    "time", "period", "repeat", "order", "cooldown", "cooldown-sensor", "fan",
    "record", "run", "name", "cpus", "recorder", "zone", NULL,
};

static int perr(struct parser *ps, const char *fmt, ...)
{
    char what[PLAN_ERRMAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(ps->err, ps->errlen, ps->p->path, ps->line, "%s", what);
}

static struct plan_var *find_var(struct plan *p, const char *name)
{
    for (size_t v = 0; v < p->nvars; v++)
        if (!strcmp(p->vars[v].name, name))
            return &p->vars[v];
    return NULL;
}

static struct plan_var *add_var(struct parser *ps, const char *name, int pinned)
{
    struct plan *p = ps->p;
    if (!valid_name(name)) {
        perr(ps, "'%s' is not a variable name (letters, digits and _, not first a digit)", name);
        return NULL;
    }
    for (const char *const *r = reserved; *r; r++)
        if (!strcmp(name, *r)) {
            perr(ps, "'%s' is a metadata key of tb-record or tb-series; name the variable otherwise", name);
            return NULL;
        }
    struct plan_var *v = find_var(p, name);
    if (v) {
        perr(ps, "'%s' is set already (line %d)", name, v->line);
        return NULL;
    }
    struct plan_var *more = realloc(p->vars, (p->nvars + 1) * sizeof *more);
    if (!more) {
        perr(ps, "out of memory");
        return NULL;
    }
    p->vars = more;
    v = &p->vars[p->nvars++];
    *v = (struct plan_var){.name = strdup(name), .line = ps->line, .pinned = pinned};
    if (!v->name) {
        perr(ps, "out of memory");
        return NULL;
    }
    return v;
}

static int add_value(struct plan_var *v, const char *value, size_t *index)
{
    for (size_t i = 0; i < v->nvalues; i++)
        if (!strcmp(v->values[i], value)) {
            *index = i;
            return 1;   /* there already */
        }
    char **more = realloc(v->values, (v->nvalues + 1) * sizeof *more);
    if (!more)
        return -1;
    v->values = more;
    if (!(v->values[v->nvalues] = strdup(value)))
        return -1;
    *index = v->nvalues++;
    return 0;
}

/* Check a value of a variable that tb-series itself acts on. */
static int check_value(struct parser *ps, const struct plan_var *v, const char *value)
{
    double on, frame;
    if (!strcmp(v->name, "freq") && !plan_parse_frequency(value))
        return perr(ps, "freq: '%s' is not a frequency (600MHz, 1.2GHz, or kHz as 600000)", value);
    if (!strcmp(v->name, "window") && window_spec_parse(value, &on, &frame) < 0)
        return perr(ps, "window: '%s' is not ON/FRAME (30ms/100ms), ON shorter than FRAME", value);
    if (strchr(value, '\n') || !*value)
        return perr(ps, "%s: an empty value", v->name);
    return 0;
}

static int parse_vary(struct parser *ps, char **w, int nw)
{
    /* vary NAME = V... */
    if (nw < 3 || strcmp(w[2], "="))
        return perr(ps, "a vary line is 'vary NAME = VALUE...'");
    if (nw < 4)
        return perr(ps, "vary %s: no values", w[1]);
    struct plan_var *v = add_var(ps, w[1], 0);
    if (!v)
        return -1;
    for (int i = 3; i < nw; i++) {
        size_t index;
        if (check_value(ps, v, w[i]) < 0)
            return -1;
        int r = add_value(v, w[i], &index);
        if (r < 0)
            return perr(ps, "out of memory");
        if (r > 0)
            return perr(ps, "vary %s: '%s' is listed twice", v->name, w[i]);
    }
    return 0;
}

static int parse_with(struct parser *ps, char **w, int nw)
{
    struct plan *p = ps->p;
    size_t npinned = 0;
    for (size_t v = 0; v < p->nvars; v++)
        npinned += p->vars[v].pinned;
    if (nw < 2)
        return perr(ps, "a with line is 'with NAME=VALUE...'");
    if (p->nwith == 0)
        p->with_line = ps->line;
    else if ((size_t)(nw - 1) != npinned)
        return perr(ps, "a with line must set the same variables as the first (line %d)", p->with_line);

    size_t *row = calloc(p->nvars + (size_t)nw, sizeof *row);
    size_t **more = realloc(p->with, (p->nwith + 1) * sizeof *more);
    if (!row || !more) {
        free(row);
        return perr(ps, "out of memory");
    }
    p->with = more;
    p->with[p->nwith++] = row;
    /* ROW is indexed by variable; the variables a with line declares come
     * after those already declared, so size it for every one of them. */
    for (int i = 1; i < nw; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq || eq == w[i])
            return perr(ps, "with: '%s' is not NAME=VALUE", w[i]);
        *eq = '\0';
        struct plan_var *v = find_var(p, w[i]);
        if (p->nwith == 1) {
            if (v)
                return perr(ps, "with: '%s' is set already (line %d)", w[i], v->line);
            if (!(v = add_var(ps, w[i], 1)))
                return -1;
        } else if (!v || !v->pinned) {
            return perr(ps, "with: '%s' is not a variable of the first with line (line %d)",
                        w[i], p->with_line);
        }
        if (check_value(ps, v, eq + 1) < 0)
            return -1;
        size_t index;
        if (add_value(v, eq + 1, &index) < 0)
            return perr(ps, "out of memory");
        row[v - p->vars] = index;
    }
    for (size_t k = 0; k + 1 < p->nwith; k++) {
        int same = 1;
        for (size_t v = 0; v < p->nvars; v++)
            if (p->vars[v].pinned && p->with[k][v] != row[v])
                same = 0;
        if (same)
            return perr(ps, "with: the same combination as an earlier with line");
    }
    return 0;
}

static int parse_cooldown(struct parser *ps, char **w, int nw)
{
    struct plan *p = ps->p;
    p->has_cooldown = 1;
    p->cool_temp = p->cool_rate = NAN;
    p->cool_timeout_s = -1;
    if (nw == 1 && !strcmp(w[0], "none")) {
        p->has_cooldown = 0;
        return 0;
    }
    for (int i = 0; i < nw; i++) {
        double x;
        if (!strcmp(w[i], "over")) {
            if (i + 1 == nw || (x = plan_parse_duration(w[i + 1])) <= 0 || p->cool_window_s > 0)
                return perr(ps, "cooldown: 'over' wants the rate's window, once (over 2m)");
            p->cool_window_s = x;
            i++;
        } else if (!isnan(x = parse_temperature(w[i])) && isnan(p->cool_temp))
            p->cool_temp = x;
        else if (!isnan(x = parse_rate(w[i])) && isnan(p->cool_rate))
            p->cool_rate = x;
        else if ((x = plan_parse_duration(w[i])) >= 0 && p->cool_timeout_s < 0)
            p->cool_timeout_s = x;
        else
            return perr(ps, "cooldown: '%s' is not a temperature (38C), a rate of fall (0.5C/min) "
                        "or a longest wait (10m), each once", w[i]);
    }
    if (p->cool_window_s > 0 && isnan(p->cool_rate))
        return perr(ps, "cooldown: 'over' is the window of a rate of fall, and there is none");
    if (p->cool_timeout_s < 0 && isnan(p->cool_temp) && isnan(p->cool_rate))
        return perr(ps, "cooldown: say how: 38C 10m, 0.5C/min 20m, 5m (a pause) or none");
    if (p->cool_timeout_s < 0)
        p->cool_timeout_s = 600;   /* as tb-record --wait-timeout */
    return 0;
}

static char *join_words(char **w, int nw)
{
    size_t len = 1;
    for (int i = 0; i < nw; i++)
        len += strlen(w[i]) + 1;
    char *s = malloc(len), *q = s;
    if (!s)
        return NULL;
    for (int i = 0; i < nw; i++)
        q += sprintf(q, "%s%s", i ? " " : "", w[i]);
    *q = '\0';
    return s;
}

static int take_words(char ***dst, size_t *ndst, char **w, int nw)
{
    char **copy = calloc((size_t)nw + 1, sizeof *copy);
    if (!copy)
        return -1;
    for (int i = 0; i < nw; i++)
        if (!(copy[i] = strdup(w[i]))) {
            plan_free_words(copy);
            return -1;
        }
    *dst = copy;
    *ndst = (size_t)nw;
    return 0;
}

static int parse_setting(struct parser *ps, const char *key, char **w, int nw)
{
    struct plan *p = ps->p;
    int k = 0;
    while (keys[k] && strcmp(keys[k], key))
        k++;
    if (!keys[k])
        return perr(ps, "unknown key '%s' (time, period, repeat, order, cooldown, "
                    "cooldown-sensor, fan, record, run, name, cpus, zone, recorder; or vary, with)", key);
    if (ps->seen[k])
        return perr(ps, "%s is set already (line %d)", key, ps->seen[k]);
    ps->seen[k] = ps->line;
    if (nw == 0 && strcmp(key, "record"))
        return perr(ps, "%s: no value", key);

    char *one = nw == 1 ? w[0] : NULL;
    if (!strcmp(key, "time")) {
        if (!one || (p->time_s = plan_parse_duration(one)) <= 0)
            return perr(ps, "time: '%s' is not a duration (900, 900s, 15m, 1h)", w[0]);
    } else if (!strcmp(key, "period")) {
        char *end;
        p->period_ms = one ? strtod(one, &end) : 0;
        if (!one || *end || !(p->period_ms >= 0.001 && p->period_ms <= 86400000))
            return perr(ps, "period: '%s' is not a period in milliseconds", w[0]);
    } else if (!strcmp(key, "repeat")) {
        char *end;
        long r = one ? strtol(one, &end, 10) : 0;
        if (!one || *end || r < 1 || r > 100000)
            return perr(ps, "repeat: '%s' is not a count from 1", w[0]);
        p->repeat = (int)r;
    } else if (!strcmp(key, "order")) {
        if (one && !strcmp(one, "as-written")) {
            p->shuffle = 0;
        } else if (nw == 2 && !strcmp(w[0], "shuffle")) {
            char *end;
            errno = 0;
            p->seed = strtoull(w[1], &end, 10);
            if (*end || errno || w[1][0] == '-')
                return perr(ps, "order: '%s' is not a seed (a whole number)", w[1]);
            p->shuffle = 1;
        } else {
            return perr(ps, "order is 'as-written' or 'shuffle SEED'");
        }
    } else if (!strcmp(key, "cooldown")) {
        return parse_cooldown(ps, w, nw);
    } else if (!strcmp(key, "record")) {
        return take_words(&p->record, &p->nrecord, w, nw) < 0 ? perr(ps, "out of memory") : 0;
    } else if (!strcmp(key, "run")) {
        return take_words(&p->run, &p->nrun, w, nw) < 0 ? perr(ps, "out of memory") : 0;
    } else {
        char *s = join_words(w, nw);
        if (!s)
            return perr(ps, "out of memory");
        if (!strcmp(key, "cooldown-sensor"))
            p->cool_sensor = s;
        else if (!strcmp(key, "fan"))
            p->fan_cmd = s;
        else if (!strcmp(key, "name"))
            p->name_template = s;
        else if (!strcmp(key, "cpus"))
            p->cpus = s;
        else if (!strcmp(key, "zone"))
            p->zone = s;
        else
            p->recorder = s;
    }
    return 0;
}

static int parse_line(struct parser *ps, char *text)
{
    char **w;
    char why[PLAN_ERRMAX];
    int nw = plan_split_words(text, &w, why, sizeof why);
    if (nw < 0)
        return perr(ps, "%s", why);
    int rc = 0;
    if (nw == 0) {
        rc = 0;
    } else if (!strcmp(w[0], "vary")) {
        rc = parse_vary(ps, w, nw);
    } else if (!strcmp(w[0], "with")) {
        rc = parse_with(ps, w, nw);
    } else {
        /* KEY = VALUE..., the = spaced or not ("time=15m", "time =15m") */
        char key[64];
        int first = 1;
        const char *eq = strchr(w[0], '=');
        if (eq && (size_t)(eq - w[0]) < sizeof key) {
            memcpy(key, w[0], (size_t)(eq - w[0]));
            key[eq - w[0]] = '\0';
            if (eq[1]) {   /* "time=15m": the value is the rest of the word */
                memmove(w[0], eq + 1, strlen(eq + 1) + 1);
                first = 0;
            }
        } else if (!eq && nw >= 2 && w[1][0] == '=' && strlen(w[0]) < sizeof key) {
            strcpy(key, w[0]);
            if (w[1][1]) {
                memmove(w[1], w[1] + 1, strlen(w[1]));
                first = 1;
            } else {
                first = 2;
            }
        } else {
            rc = perr(ps, "'%s' is not 'key = value', 'vary NAME = VALUE...' or 'with NAME=VALUE...'",
                      w[0]);
            plan_free_words(w);
            return rc;
        }
        rc = parse_setting(ps, key, w + first, nw - first);
    }
    plan_free_words(w);
    return rc;
}

/* NAME of a {NAME} or {NAME:sh} (LEN bytes from S) into BUF; whether it
 * asks for the value quoted for sh. */
static int brace_name(const char *s, size_t len, char *buf, size_t cap)
{
    int sh = len >= 3 && !memcmp(s + len - 3, ":sh", 3);
    if (sh)
        len -= 3;
    snprintf(buf, cap, "%.*s", (int)(len < cap ? len : cap - 1), s);
    return sh;
}

/* Whether word I of WORDS is the string of a shell's -c ("sh -c '...'"). */
static int shell_string(char **words, size_t i)
{
    static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"};
    if (i < 2 || strcmp(words[i - 1], "-c") != 0)
        return 0;
    const char *base = strrchr(words[i - 2], '/');
    base = base ? base + 1 : words[i - 2];
    for (size_t k = 0; k < sizeof shells / sizeof *shells; k++)
        if (!strcmp(base, shells[k]))
            return 1;
    return 0;
}

/* Every {name} (or {name:sh}) in the words of LINE names a variable, or
 * "repeat".  A plain {name} inside a shell's -c string is warned of: its
 * value goes into the shell's code as it is. */
static int check_braces(struct parser *ps, char **words, size_t n, int line, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        for (const char *s = words[i]; (s = strchr(s, '{')); ) {
            if (s[1] == '{') {
                s += 2;
                continue;
            }
            const char *end = strchr(s, '}');
            char name[128];
            if (!end || (size_t)(end - s - 1) >= sizeof name) {
                ps->line = line;
                return perr(ps, "%s: a { without its }", key);
            }
            int sh = brace_name(s + 1, (size_t)(end - s - 1), name, sizeof name);
            if (strcmp(name, "repeat") && !find_var(ps->p, name)) {
                ps->line = line;
                return perr(ps, "%s: {%s} is not a variable of the plan", key, name);
            }
            if (!sh && strcmp(name, "repeat") && shell_string(words, i))
                fprintf(stderr, "tb-series: warning: %s:%d: %s: {%s} inside a shell's -c string "
                        "goes into its code as it is; {%s:sh} quotes it\n", ps->p->path, line,
                        key, name, name);
            s = end + 1;
        }
    }
    return 0;
}

/* VALUE quoted for sh: in '...', each ' as '\''; malloc'd, or NULL. */
static char *sh_quote(const char *value)
{
    size_t n = 2;
    for (const char *c = value; *c; c++)
        n += *c == '\'' ? 4 : 1;
    char *q = malloc(n + 1), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *c = value; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* --- the runs ------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return (h ^ 0xff) * 0x100000001b3ULL;   /* a separator after each string */
}

char *plan_substitute(const struct plan *p, const struct plan_run *r, const char *word)
{
    size_t cap = strlen(word) + 64, len = 0;
    char *out = malloc(cap), *quoted = NULL;
    if (!out)
        return NULL;
    for (const char *s = word; *s; ) {
        const char *add = s;
        size_t addlen = 1;
        char num[16];
        const char *end;
        if (s[0] == '{' && s[1] == '{') {
            addlen = 1;
            s += 2;
        } else if (s[0] == '{' && (end = strchr(s, '}'))) {
            char name[128];
            int sh = brace_name(s + 1, (size_t)(end - s - 1), name, sizeof name);
            const char *value = plan_value(p, r, name);
            if (!value && !strcmp(name, "repeat")) {
                snprintf(num, sizeof num, "%d", r->repeat);
                value = num;
            }
            free(quoted);
            quoted = NULL;
            if (value && sh && !(value = quoted = sh_quote(value))) {
                free(out);
                return NULL;
            }
            if (value) {
                add = value;
                addlen = strlen(value);
                s = end + 1;
            } else {
                s++;
            }
        } else {
            s++;
        }
        if (len + addlen + 1 > cap) {
            cap = 2 * (len + addlen + 1);
            char *more = realloc(out, cap);
            if (!more) {
                free(out);
                free(quoted);
                return NULL;
            }
            out = more;
        }
        memcpy(out + len, add, addlen);
        len += addlen;
    }
    free(quoted);
    out[len] = '\0';
    return out;
}

const char *plan_value(const struct plan *p, const struct plan_run *r, const char *name)
{
    for (size_t v = 0; v < p->nvars; v++)
        if (!strcmp(p->vars[v].name, name))
            return p->vars[v].values[r->value[v]];
    return NULL;
}

/* A file name's part from VALUE: letters, digits and .+- kept. */
static void safe_name(char *dst, size_t cap, const char *value)
{
    size_t n = 0;
    for (const char *s = value; *s && n + 1 < cap; s++)
        dst[n++] = isalnum((unsigned char)*s) || strchr(".+-", *s) ? *s : '-';
    dst[n] = '\0';
}

static char *run_name(const struct plan *p, const struct plan_run *r)
{
    char name[1024], part[256];
    size_t len = 0;
    if (p->name_template) {
        char *s = plan_substitute(p, r, p->name_template);
        if (!s)
            return NULL;
        safe_name(name, sizeof name - 16, s);
        free(s);
        len = strlen(name);
    } else {
        for (size_t v = 0; v < p->nvars; v++) {
            safe_name(part, sizeof part, p->vars[v].values[r->value[v]]);
            len += (size_t)snprintf(name + len, sizeof name - 16 - len, "%s%s", len ? "_" : "", part);
            if (len >= sizeof name - 16)
                len = sizeof name - 17;
        }
        if (len == 0)
            len = (size_t)snprintf(name, sizeof name, "run");
    }
    snprintf(name + len, sizeof name - len, "_r%d", r->repeat);
    return strdup(name);
}

/* The runs: the with rows (or one empty row) crossed with every vary
 * variable, the first declared varying slowest; repeats outermost, so
 * that each repeat is a complete block of the series. */
static int expand(struct parser *ps)
{
    struct plan *p = ps->p;
    size_t nv = p->nvars, combos = p->nwith ? p->nwith : 1;
    for (size_t v = 0; v < nv; v++)
        if (!p->vars[v].pinned) {
            if (combos > 1000000 / p->vars[v].nvalues)
                return fail(ps->err, ps->errlen, p->path, 0, "more than a million runs");
            combos *= p->vars[v].nvalues;
        }
    if (combos * (size_t)p->repeat > 1000000)
        return fail(ps->err, ps->errlen, p->path, 0, "more than a million runs");
    p->nruns = combos * (size_t)p->repeat;
    p->runs = calloc(p->nruns, sizeof *p->runs);
    if (!p->runs)
        return fail(ps->err, ps->errlen, p->path, 0, "out of memory");

    /* dimensions in the order of declaration: each vary variable, and the
     * with rows as one, where the first with line stands */
    size_t k = 0;
    for (int rep = 1; rep <= p->repeat; rep++) {
        for (size_t c = 0; c < combos; c++, k++) {
            struct plan_run *r = &p->runs[k];
            r->repeat = rep;
            if (!(r->value = calloc(nv ? nv : 1, sizeof *r->value)))
                return fail(ps->err, ps->errlen, p->path, 0, "out of memory");
            size_t rest = c;
            /* the last declared varies fastest: peel from the end */
            int with_done = p->nwith == 0;
            for (size_t v = nv; v-- > 0; ) {
                const struct plan_var *var = &p->vars[v];
                if (var->pinned) {
                    /* the with group sits at its first variable's place */
                    int first_pinned = 1;
                    for (size_t u = 0; u < v; u++)
                        if (p->vars[u].pinned)
                            first_pinned = 0;
                    if (!first_pinned || with_done)
                        continue;
                    size_t row = rest % p->nwith;
                    rest /= p->nwith;
                    for (size_t u = 0; u < nv; u++)
                        if (p->vars[u].pinned)
                            r->value[u] = p->with[row][u];
                    with_done = 1;
                } else {
                    r->value[v] = rest % var->nvalues;
                    rest /= var->nvalues;
                }
            }
        }
    }
    if (p->shuffle) {
        uint64_t state = p->seed;
        for (size_t i = p->nruns; i > 1; i--) {
            size_t j = (size_t)(splitmix64(&state) % i);
            struct plan_run t = p->runs[i - 1];
            p->runs[i - 1] = p->runs[j];
            p->runs[j] = t;
        }
    }
    for (size_t i = 0; i < p->nruns; i++) {
        if (!(p->runs[i].name = run_name(p, &p->runs[i])))
            return fail(ps->err, ps->errlen, p->path, 0, "out of memory");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->runs[i].name, p->runs[j].name))
                return fail(ps->err, ps->errlen, p->path, p->name_template ? ps->seen[9] : 0,
                            "two runs would both be written to %s.csv: %s",
                            p->runs[i].name, p->name_template
                                ? "put every variable in the name"
                                : "values that differ only in characters a file name cannot "
                                  "hold; set 'name = ...'");
    }
    return 0;
}

static void hash_plan(struct plan *p)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    char num[64];
    snprintf(num, sizeof num, "%.17g %.17g %d", p->time_s, p->period_ms, p->repeat);
    h = fnv1a(h, num);
    for (size_t i = 0; i < p->nrecord; i++)
        h = fnv1a(h, p->record[i]);
    for (size_t i = 0; i < p->nrun; i++)
        h = fnv1a(h, p->run[i]);
    h = fnv1a(h, p->cpus ? p->cpus : "");
    h = fnv1a(h, p->zone ? p->zone : "");
    for (size_t i = 0; i < p->nruns; i++) {
        h = fnv1a(h, p->runs[i].name);
        for (size_t v = 0; v < p->nvars; v++) {
            h = fnv1a(h, p->vars[v].name);
            h = fnv1a(h, p->vars[v].values[p->runs[i].value[v]]);
        }
    }
    p->hash = h;
}

int plan_read(const char *path, struct plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->repeat = 1;
    p->cool_temp = p->cool_rate = NAN;
    if (!(p->path = strdup(path)))
        return fail(err, errlen, path, 0, "out of memory");
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, path, 0, "%s", strerror(errno));

    struct parser ps = {.p = p, .err = err, .errlen = errlen};
    char *text = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&text, &cap, f)) >= 0) {
        ps.line++;
        if (len > 0 && text[len - 1] == '\n')
            text[--len] = '\0';
        if (len > 0 && text[len - 1] == '\r')
            text[--len] = '\0';
        if (strlen(text) != (size_t)len)
            rc = perr(&ps, "a NUL byte: not a text file");
        else
            rc = parse_line(&ps, text);
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, errlen, path, 0, "%s", strerror(errno));
    free(text);
    fclose(f);
    if (rc < 0)
        return -1;

    int run_line = ps.seen[8], record_line = ps.seen[7];
    if (!p->nrun)
        return fail(err, errlen, path, 0, "no 'run = BENCHMARK...' line: what does each run start?");
    for (size_t v = 0; v < p->nvars; v++)
        if (p->vars[v].pinned && p->nwith == 0)
            return fail(err, errlen, path, p->vars[v].line, "internal: a pinned variable without rows");
    if (check_braces(&ps, p->run, p->nrun, run_line, "run") < 0 ||
        check_braces(&ps, p->record, p->nrecord, record_line, "record") < 0)
        return -1;
    if (p->name_template) {
        char *one[] = {p->name_template, NULL};
        if (check_braces(&ps, one, 1, ps.seen[9], "name") < 0)
            return -1;
    }
    if (expand(&ps) < 0)
        return -1;
    hash_plan(p);
    return 0;
}

void plan_free(struct plan *p)
{
    free(p->path);
    free(p->cool_sensor);
    free(p->fan_cmd);
    free(p->cpus);
    free(p->zone);
    free(p->recorder);
    free(p->name_template);
    plan_free_words(p->record);
    plan_free_words(p->run);
    for (size_t v = 0; v < p->nvars; v++) {
        for (size_t i = 0; i < p->vars[v].nvalues; i++)
            free(p->vars[v].values[i]);
        free(p->vars[v].values);
        free(p->vars[v].name);
    }
    free(p->vars);
    for (size_t k = 0; k < p->nwith; k++)
        free(p->with[k]);
    free(p->with);
    for (size_t i = 0; i < p->nruns; i++) {
        free(p->runs[i].value);
        free(p->runs[i].name);
    }
    free(p->runs);
    memset(p, 0, sizeof *p);
}
