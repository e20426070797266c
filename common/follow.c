/*
 * follow.c -- tb-fit --follow: read a run as it is written (a growing
 * file, or a pipe), fit it again at each update, and with --until stop it
 * once T∞ is known to ±TOL by tb_stop_rule.
 *
 * Every decision is taken at a row: an update or a look happens at the
 * first row at or past its data time, on the run up to that row.  So
 * what is printed, and where a run stops, depends only on the rows, never
 * on how they arrive: a recorded run fed at full speed stops at the row
 * it stops at live.  The wall clock only paces the terminal's display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exit_status.h"
#include "follow.h"
#include "output.h"

#define FOLLOW_POLL_NS 200000000L   /* a growing file: look again after */
/* An update (not a look, not the final fit) fits at most this many block
 * means a column: 32 columns in well under a second, however fast the
 * run is sampled (bench/follow); a bin is then a 2000th of the data, 1.8
 * s of an hour, short beside a heat sink's τ. */
#define FOLLOW_UPDATE_POINTS 2000

static volatile sig_atomic_t follow_signal;

static void on_signal(int sig)
{
    follow_signal = sig;
}

/* What is known of one followed column. */
struct followed {
    char *name;
    const char *unit;            /* points into the run: refreshed each look */
    size_t index;                /* of its column in the run */
    int have_fit;
    tb_estimate t_inf;
    double tau[TB_FIT_MAX_ORDER];
    int order;
    unsigned flags;
    double level;
    double half;                 /* of T∞'s interval; +∞ without */
    double needed;               /* s of data still needed, a guess; NaN */
    tb_stop_state stop;          /* the rule's: known_at NaN while not known */
    double last;                 /* its newest value */
    char error[160];
};

struct follow {
    const struct follow_settings *fs;
    const char *name;            /* of the input in messages */
    tb_analysis_options o;
    tb_run_follower *rf;
    FILE *keep;
    int until;
    tb_stop_rule rule;
    size_t look;                 /* the next look of the rule */
    double next_update;          /* s of data */
    double t0;                   /* the first row's time; NaN before it */
    double t;                    /* s of data read */
    struct followed *cols;
    size_t ncols;
    int stopped, failed;
    int tty, drawn;
    struct timespec drawn_at;
    int csv_header;
};

static struct followed *followed_column(struct follow *st, const char *name)
{
    for (size_t i = 0; i < st->ncols; i++)
        if (strcmp(st->cols[i].name, name) == 0)
            return &st->cols[i];
    struct followed *nc = realloc(st->cols, (st->ncols + 1) * sizeof *nc);
    if (!nc)
        return NULL;
    st->cols = nc;
    struct followed *c = &nc[st->ncols];
    *c = (struct followed){.name = strdup(name), .needed = NAN, .half = INFINITY, .last = NAN};
    tb_stop_state_init(&c->stop);
    if (!c->name)
        return NULL;
    st->ncols++;
    return c;
}

/* Take what the fit of analysed column AC says into C. */
static void followed_update(struct follow *st, struct followed *c, const tb_analysed_column *ac)
{
    c->unit = ac->column->unit;
    c->index = ac->index;
    c->last = ac->column->n ? ac->column->v[ac->column->n - 1] : NAN;
    c->have_fit = ac->fit != NULL;
    if (!ac->fit) {
        snprintf(c->error, sizeof c->error, "%s", ac->error ? ac->error : "no fit");
        c->half = INFINITY;
        c->needed = NAN;
        return;
    }
    const tb_fit *fit = ac->fit;
    c->error[0] = '\0';
    c->t_inf = fit->series[ac->series].t_inf;
    c->order = fit->order;
    for (int j = 0; j < TB_FIT_MAX_ORDER; j++)
        c->tau[j] = j < fit->order ? fit->tau[j].value : NAN;
    c->flags = fit->flags;
    c->level = fit->level;
    c->half = tb_stop_half_width(fit, ac->series);
    c->needed = st->until ? tb_stop_time_needed(fit, ac->series, st->fs->until) : NAN;
}

/* --- what is printed at an update -------------------------------------- */

static const char *column_state(const struct follow *st, const struct followed *c)
{
    if (!st->until)
        return "";
    if (!isnan(c->stop.known_at))
        return "known";
    return st->stopped ? "not known" : "not yet";
}

static void print_update_text(FILE *f, const struct follow *st, const struct followed *c)
{
    char flags[256];
    fprintf(f, "%.0f s: %s: ", st->t, c->name);
    if (!c->have_fit) {
        fprintf(f, "no fit yet (%s)\n", c->error);
        return;
    }
    fprintf(f, "T∞ %.2f %s [%.2f, %.2f] (%.4g %%), τ", c->t_inf.value, c->unit,
            c->t_inf.lo, c->t_inf.hi, 100 * c->level);
    for (int j = 0; j < c->order; j++)
        fprintf(f, "%s%.0f", j ? ", " : " ", c->tau[j]);
    fprintf(f, " s, flags %s", c->flags ? tb_fit_flags_text(c->flags, flags, sizeof flags)
                                         : "none");
    if (st->until) {
        fprintf(f, "; ±%.2f of ±%g: %s", c->half, st->fs->until, column_state(st, c));
        if (isnan(c->stop.known_at) && !st->stopped && isfinite(c->needed))
            fprintf(f, ", about %.0f s more", c->needed);
    }
    fputc('\n', f);
}

static void print_update_csv(FILE *f, struct follow *st, const struct followed *c)
{
    char flags[256];
    if (!st->csv_header) {
        fputs("update,data_s,column,unit,order,T_inf,T_inf_lo,T_inf_hi,ci_level,"
              "tau1_s,tau2_s,tau3_s,flags,half_width,tolerance,state,needed_s,error\n", f);
        st->csv_header = 1;
    }
    fprintf(f, "update,%.17g,", st->t);
    tb_csv_write_string(f, c->name);
    fputc(',', f);
    tb_csv_write_string(f, c->unit);
    if (!c->have_fit) {
        fprintf(f, ",,,,,,,,,,,,%s,,", st->until ? "not yet" : "");
        tb_csv_write_string(f, c->error);
        fputc('\n', f);
        return;
    }
    fprintf(f, ",%d,%.17g,%.17g,%.17g,%.17g", c->order, c->t_inf.value, c->t_inf.lo,
            c->t_inf.hi, c->level);
    for (int j = 0; j < 3; j++)
        isnan(c->tau[j]) ? (void)fputc(',', f) : (void)fprintf(f, ",%.17g", c->tau[j]);
    fprintf(f, ",%s,%.17g,", tb_fit_flags_text(c->flags, flags, sizeof flags), c->half);
    if (st->until)
        fprintf(f, "%.17g", st->fs->until);
    fprintf(f, ",%s,", column_state(st, c));
    if (isfinite(c->needed))
        fprintf(f, "%.17g", c->needed);
    fputs(",\n", f);
}

static void print_update_json(FILE *f, const struct follow *st, const struct followed *c)
{
    char flags[256];
    fputs("{\"update\": {\"data_s\": ", f);
    tb_json_number(f, st->t);
    fputs(", \"column\": ", f);
    tb_json_string(f, c->name);
    fputs(", \"unit\": ", f);
    tb_json_string(f, c->unit);
    if (c->have_fit) {
        fprintf(f, ", \"order\": %d", c->order);
        tb_json_field(f, "T_inf", c->t_inf.value);
        tb_json_field(f, "T_inf_lo", c->t_inf.lo);
        tb_json_field(f, "T_inf_hi", c->t_inf.hi);
        tb_json_field(f, "ci_level", c->level);
        fputs(", \"tau_s\": [", f);
        for (int j = 0; j < c->order; j++) {
            fputs(j ? ", " : "", f);
            tb_json_number(f, c->tau[j]);
        }
        fputs("], \"flags\": ", f);
        tb_json_string(f, tb_fit_flags_text(c->flags, flags, sizeof flags));
        tb_json_field(f, "half_width", c->half);
    } else {
        fputs(", \"error\": ", f);
        tb_json_string(f, c->error);
    }
    if (st->until) {
        tb_json_field(f, "tolerance", st->fs->until);
        fputs(", \"state\": ", f);
        tb_json_string(f, column_state(st, c));
        tb_json_field(f, "needed_s", c->needed);
    }
    fputs("}}\n", f);
}

/* Each followed column's newest value, from the run so far. */
static void display_latest(struct follow *st)
{
    const tb_run *run = st->rf ? tb_run_follower_run(st->rf) : NULL;
    for (size_t i = 0; run && i < st->ncols; i++) {
        const tb_column *c = tb_run_column(run, st->cols[i].index);
        if (c && c->n > 0)
            st->cols[i].last = c->v[c->n - 1];
    }
}

/* On a terminal: a line for the run, one per column under it, each now
 * and as last fitted, drawn over the last ones. */
static void display_draw(struct follow *st)
{
    FILE *f = stdout;
    display_latest(st);
    if (st->drawn > 0)
        fprintf(f, "\033[%dA", st->drawn);
    fprintf(f, "\r\033[Kfollowing %s: %.0f s of data, %zu lines", st->name,
            isnan(st->t) ? 0.0 : st->t, st->rf ? tb_run_follower_lines(st->rf) : (size_t)0);
    if (st->until)
        fprintf(f, "; until ±%g, look %zu of %zu at %.0f s", st->fs->until, st->look + 1,
                st->rule.looks, tb_stop_rule_time(&st->rule, st->look));
    fputc('\n', f);
    for (size_t i = 0; i < st->ncols; i++) {
        fprintf(f, "\033[K  now %.2f, at ", st->cols[i].last);
        print_update_text(f, st, &st->cols[i]);
    }
    st->drawn = (int)st->ncols + 1;
    fflush(f);
    clock_gettime(CLOCK_MONOTONIC, &st->drawn_at);
}

/* Redraw when a second has passed: the display's pace, not the data's. */
static void display_tick(struct follow *st)
{
    if (!st->tty)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double since = (double)(now.tv_sec - st->drawn_at.tv_sec) +
                   1e-9 * (double)(now.tv_nsec - st->drawn_at.tv_nsec);
    if (since >= 1)
        display_draw(st);
}

static void print_update(struct follow *st)
{
    if (st->tty) {
        display_draw(st);
        return;
    }
    for (size_t i = 0; i < st->ncols; i++) {
        if (st->fs->format == TB_FORMAT_CSV)
            print_update_csv(stdout, st, &st->cols[i]);
        else if (st->fs->format == TB_FORMAT_JSON)
            print_update_json(stdout, st, &st->cols[i]);
        else
            print_update_text(stdout, st, &st->cols[i]);
    }
    fflush(stdout);
}

/* --- updates and looks ------------------------------------------------- */

/* Fit the run so far, up to its newest row (at time T_ABS of the run);
 * LOOK: at the rule's look level, and judged. */
static void refit(struct follow *st, double t_abs, int look)
{
    const tb_run *run = tb_run_follower_run(st->rf);
    tb_analysis_options o = st->o;
    char err[TB_ERRMAX];
    o.to = t_abs;
    if (st->until)   /* every interval at the looks' level: the promise's */
        o.fit.level = tb_stop_rule_level(&st->rule);
    if (!look && (o.max_points == 0 || o.max_points > FOLLOW_UPDATE_POINTS))
        o.max_points = FOLLOW_UPDATE_POINTS;   /* what is shown: the rule judges
                                                  the points --max-points keeps */
    tb_analysis *a = tb_analyse_runs(&run, 1, &o, err, sizeof err);
    if (!a) {
        fprintf(stderr, "tb-fit: %s\n", err);
        st->failed = TB_EXIT_INPUT;
        st->stopped = 1;
        return;
    }
    if (tb_analysis_ncolumns(a) == 0 && tb_analysis_status(a) == TB_STATUS_INPUT) {
        /* a column asked for that the run has not: said once, at once */
        for (size_t i = 0; i < tb_analysis_nmessages(a); i++)
            fprintf(stderr, "tb-fit: %s\n", tb_analysis_message(a, i));
        st->failed = TB_EXIT_INPUT;
        st->stopped = 1;
        tb_analysis_free(a);
        return;
    }
    int all_known = 1, last = look && st->look + 1 >= st->rule.looks;
    for (size_t i = 0; i < tb_analysis_ncolumns(a); i++) {
        const tb_analysed_column *ac = tb_analysis_column(a, i);
        struct followed *c = followed_column(st, ac->column->name);
        if (!c) {
            fputs("tb-fit: out of memory\n", stderr);
            st->failed = TB_EXIT_OUTPUT;
            st->stopped = 1;
            break;
        }
        followed_update(st, c, ac);
        if (look)
            tb_stop_rule_look(&st->rule, st->look, st->t, ac->fit, ac->series, &c->stop);
        all_known &= !isnan(c->stop.known_at);
    }
    if (look) {
        st->look++;
        if ((all_known && tb_analysis_ncolumns(a) > 0) || last)
            st->stopped = 1;
    }
    tb_analysis_free(a);
    print_update(st);
}

/* After each row: an update or a look whose time it reaches. */
static void after_row(struct follow *st)
{
    const tb_run *run = tb_run_follower_run(st->rf);
    size_t n = run ? tb_run_rows(run) : 0;
    if (n == 0)
        return;
    const double *t = tb_run_column(run, 0)->t;
    if (isnan(st->t0))
        st->t0 = t[0];
    st->t = t[n - 1] - st->t0;
    int look = st->until && st->t >= tb_stop_rule_time(&st->rule, st->look);
    int update = st->t >= st->next_update;
    if (!look && !update)
        return;
    while (st->until && st->t >= tb_stop_rule_time(&st->rule, st->look + 1))
        st->look++;   /* rows far apart: the looks passed over are not made */
    while (st->next_update <= st->t)
        st->next_update += st->fs->every;
    refit(st, t[n - 1], look);
}

/* --- reading ------------------------------------------------------------ */

/* One whole line: kept, read, and looked at. */
static void take_line(struct follow *st, const char *s, size_t n)
{
    if (st->keep && fwrite(s, 1, n, st->keep) != n) {
        fprintf(stderr, "tb-fit: %s: write error: %s\n", st->fs->keep, strerror(errno));
        st->failed = TB_EXIT_OUTPUT;
        st->stopped = 1;
        return;
    }
    if (tb_run_follower_feed(st->rf, s, n) < 0) {
        fprintf(stderr, "tb-fit: %s\n", tb_run_follower_error(st->rf));
        st->failed = TB_EXIT_INPUT;
        st->stopped = 1;
        return;
    }
    if (s[n - 1] == '\n')
        after_row(st);
}

struct line_buffer {
    char *s;
    size_t len, cap;
};

/* Split the N bytes at BUF into lines, the last one held until it ends. */
static void take_bytes(struct follow *st, struct line_buffer *lb, const char *buf, size_t n)
{
    while (n > 0 && !st->stopped) {
        const char *nl = memchr(buf, '\n', n);
        size_t k = nl ? (size_t)(nl - buf) + 1 : n;
        if (lb->len + k > lb->cap) {
            size_t cap = 2 * (lb->len + k);
            char *ns = realloc(lb->s, cap);
            if (!ns) {
                fputs("tb-fit: out of memory\n", stderr);
                st->failed = TB_EXIT_OUTPUT;
                st->stopped = 1;
                return;
            }
            lb->s = ns;
            lb->cap = cap;
        }
        memcpy(lb->s + lb->len, buf, k);
        lb->len += k;
        buf += k;
        n -= k;
        if (nl) {
            take_line(st, lb->s, lb->len);
            lb->len = 0;
        }
    }
}

/* Whether the file at PATH is no longer the one open as FD (replaced, as
 * a new run of the same name is, or cut short). */
static int replaced(const char *path, int fd)
{
    struct stat a, b;
    if (stat(path, &a) < 0 || fstat(fd, &b) < 0)
        return 0;
    off_t at = lseek(fd, 0, SEEK_CUR);
    return a.st_ino != b.st_ino || a.st_dev != b.st_dev || (at > 0 && a.st_size < at);
}

static int start_over(struct follow *st, const char *name)
{
    char err[TB_ERRMAX];
    tb_run_follower_free(st->rf);
    st->rf = tb_run_follower_new(name, NULL, err, sizeof err);
    if (!st->rf) {
        fprintf(stderr, "tb-fit: %s\n", err);
        return -1;
    }
    st->look = 0;
    st->next_update = st->fs->every;
    st->t0 = st->t = NAN;
    for (size_t i = 0; i < st->ncols; i++)
        free(st->cols[i].name);
    st->ncols = 0;
    if (st->keep && (fflush(st->keep) != 0 || ftruncate(fileno(st->keep), 0) < 0 ||
                     fseek(st->keep, 0, SEEK_SET) < 0)) {
        fprintf(stderr, "tb-fit: %s: %s\n", st->fs->keep, strerror(errno));
        return -1;
    }
    return 0;
}

/* Read FD to its end (a pipe), or a regular file as it grows until a
 * signal, starting over when it is replaced. */
static void read_input(struct follow *st, int fd, const char *name)
{
    struct line_buffer lb = {0};
    static char buf[1 << 16];
    struct stat sb;
    int growing = strcmp(st->fs->path, "-") != 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);

    while (!st->stopped && !follow_signal) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            take_bytes(st, &lb, buf, (size_t)n);
            display_tick(st);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "tb-fit: %s: read error: %s\n", name, strerror(errno));
            st->failed = TB_EXIT_INPUT;
            break;
        }
        if (!growing)
            break;
        if (replaced(st->fs->path, fd)) {
            int nfd = open(st->fs->path, O_RDONLY);
            if (nfd < 0)
                continue;
            dup2(nfd, fd);
            close(nfd);
            fprintf(stderr, "tb-fit: %s was replaced: read again from its start\n", name);
            lb.len = 0;
            if (start_over(st, name) < 0) {
                st->failed = TB_EXIT_OUTPUT;
                break;
            }
            continue;
        }
        display_tick(st);
        nanosleep(&(struct timespec){0, FOLLOW_POLL_NS}, NULL);
    }
    /* A last line without its end: read as a whole file's is (a header
     * is taken, a cut row is warned of), kept only when it is whole. */
    if (!st->stopped && lb.len > 0)
        tb_run_follower_feed(st->rf, lb.s, lb.len);
    free(lb.s);
}

/* --- the end ------------------------------------------------------------ */

/* Whether the rule said some column known: the final fit is then at the
 * looks' level, which the claim's promise needs.  A run it ended knowing
 * none gets what a run of that fixed length gets, the fit at --level: the
 * rule never gives less than a fixed length (bench/stopping). */
static int follow_claimed(const struct follow *st)
{
    for (size_t i = 0; st->until && i < st->ncols; i++)
        if (!isnan(st->cols[i].stop.known_at))
            return 1;
    return 0;
}

/* What the rule found, one line a column, on standard error. */
static void say_verdicts(const struct follow *st)
{
    int claimed = follow_claimed(st);
    for (size_t i = 0; st->until && i < st->ncols; i++) {
        const struct followed *c = &st->cols[i];
        if (!isnan(c->stop.known_at))
            fprintf(stderr, "tb-fit: %s: T∞ known to ±%g %s at %.0f s of data "
                    "(look %zu of %zu, at %.4g %%)\n", c->name, st->fs->until, c->unit,
                    c->stop.known_at, c->stop.known_look, st->rule.looks,
                    100 * tb_stop_rule_level(&st->rule));
        else
            fprintf(stderr, "tb-fit: %s: T∞ not known to ±%g %s %s (±%.2f at %.0f s of data "
                    "at the looks' %.4g %%%s)%s\n", c->name, st->fs->until, c->unit ? c->unit : "",
                    st->look >= st->rule.looks ? "by --max" : "when the run ended", c->half,
                    st->t, 100 * tb_stop_rule_level(&st->rule),
                    c->have_fit && c->flags ? ", flagged" : "",
                    claimed ? "" : "; the final fit is a fixed length's, at --level");
    }
}

static int finish(struct follow *st, follow_report_fn report, void *ctx)
{
    char err[TB_ERRMAX];
    tb_run *run = tb_run_follower_end(st->rf, err, sizeof err);
    st->rf = NULL;
    if (!run) {
        if (!st->failed)
            fprintf(stderr, "tb-fit: %s\n", err);
        return st->failed ? st->failed : TB_EXIT_INPUT;
    }
    if (st->failed) {   /* said already */
        tb_run_free(run);
        return st->failed;
    }
    tb_analysis_options o = st->o;
    if (follow_claimed(st))
        o.fit.level = tb_stop_rule_level(&st->rule);
    const tb_run *runs[] = {run};
    tb_analysis *a = tb_analyse_runs(runs, 1, &o, err, sizeof err);
    int status = st->failed;
    if (!a) {
        fprintf(stderr, "tb-fit: %s\n", err);
        status = TB_EXIT_INPUT;
    } else {
        if (!st->tty && st->fs->format == TB_FORMAT_TEXT)
            fputc('\n', stdout);
        for (size_t i = 0; i < tb_analysis_nmessages(a); i++)
            fprintf(stderr, "tb-fit: %s\n", tb_analysis_message(a, i));
        if (report(ctx, stdout, a) < 0)
            status = TB_EXIT_OUTPUT;
        if (!status)
            status = tb_analysis_status(a);
        tb_analysis_free(a);
    }
    say_verdicts(st);
    if (!status && st->until) {
        int all_known = st->ncols > 0;
        for (size_t i = 0; i < st->ncols; i++)
            all_known &= !isnan(st->cols[i].stop.known_at);
        if (!all_known)
            status = TB_EXIT_FIT;
    }
    tb_run_free(run);
    return status;
}

int follow_run(const struct follow_settings *fs, const tb_analysis_options *o,
               follow_report_fn report, void *ctx)
{
    struct follow st = {.fs = fs, .o = *o, .next_update = fs->every, .t0 = NAN, .t = NAN,
                        .until = !isnan(fs->until),
                        .tty = isatty(STDOUT_FILENO) && fs->format == TB_FORMAT_TEXT};
    const char *name = strcmp(fs->path, "-") == 0 ? "<stdin>" : fs->path;
    char err[TB_ERRMAX];

    st.name = name;
    st.o.fit.level = fs->level;
    if (st.until && tb_stop_rule_init(&st.rule, fs->until, fs->max, fs->level) < 0) {
        fputs("tb-fit: --until wants a positive tolerance and --max at least 2min\n", stderr);
        return TB_EXIT_INPUT;
    }
    int fd = strcmp(fs->path, "-") == 0 ? STDIN_FILENO : open(fs->path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "tb-fit: %s: cannot open: %s\n", fs->path, strerror(errno));
        return TB_EXIT_INPUT;
    }
    if (fs->keep && !(st.keep = fopen(fs->keep, "w"))) {
        fprintf(stderr, "tb-fit: %s: cannot create: %s\n", fs->keep, strerror(errno));
        if (fd != STDIN_FILENO)
            close(fd);
        return TB_EXIT_OUTPUT;
    }
    if (!(st.rf = tb_run_follower_new(name, NULL, err, sizeof err))) {
        fprintf(stderr, "tb-fit: %s\n", err);
        if (st.keep)
            fclose(st.keep);
        return TB_EXIT_OUTPUT;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    read_input(&st, fd, name);
    if (fd != STDIN_FILENO)
        close(fd);
    if (st.keep && fclose(st.keep) != 0 && !st.failed) {
        fprintf(stderr, "tb-fit: %s: write error: %s\n", fs->keep, strerror(errno));
        st.failed = TB_EXIT_OUTPUT;
    }
    int status = finish(&st, report, ctx);
    for (size_t i = 0; i < st.ncols; i++)
        free(st.cols[i].name);
    free(st.cols);
    return status;
}
