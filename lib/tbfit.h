/*
 * tbfit.h -- libtbfit, the analysis library of tbkit.
 *
 * Reads runs recorded in the thermobench CSV format (by tb-record or the
 * original thermobench) into columns of (time, value) points, fits the
 * thermal model T(t) = T∞ + Σ kᵢ·exp(−t/τᵢ) to them with intervals, and
 * writes and reads the results.  The tools of tbkit are thin front ends to
 * it: tb_analyse_paths() is what tb-fit, tb-plot and tb-compare do with a
 * run.  See libtbfit(3).
 *
 * Every function that can fail says so in its comment: it returns NULL or
 * a negative value and, where it takes ERR and ERRLEN, writes one line
 * "FILE:LINE: what is wrong" there.  The library never prints, exits or
 * aborts.  Pointer arguments must not be NULL unless the comment says NULL
 * is accepted (an options pointer NULL means the defaults; every _free
 * and _clear takes NULL).  So that GSL does not abort either, the first
 * fit or statistic turns GSL's error handler off for the process
 * (gsl_set_error_handler_off()); functions are safe to call from several
 * threads on different data.
 *
 * Copyright (C) 2026 the tbkit authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TBFIT_H
#define TBFIT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An error buffer of this size always holds a whole message. */
#define TB_ERRMAX 1024

/* The library's version, "MAJOR.MINOR.PATCH", as tbkit's. */
const char *tb_version(void);

/* ------------------------------------------------------------------ */
/* Runs                                                                */
/* ------------------------------------------------------------------ */

typedef struct tb_run tb_run;

/*
 * One column of a run.  Thermobench rows are sparse: a column holds only
 * the rows whose cell for it was non-empty, so each column has its own
 * times.  Column 0 is the time column itself (t == v, one point per row).
 * All pointers are owned by the run and live as long as it does.
 */
typedef struct tb_column {
    const char *header;   /* header cell as written, "%%" read as "%" */
    const char *name;     /* the NAME of NAME/UNIT */
    const char *raw_unit; /* the UNIT as written; "" when the header has none */
    const char *unit;     /* unit of v: normalised, or raw_unit when not */
    double scale;         /* v = scale * value as written */
    size_t n;             /* number of points */
    const double *t;      /* n times, ascending, in the unit of column 0 */
    const double *v;      /* n values */
    size_t n_missing;     /* cells that held "nan": counted, not points */
} tb_column;

typedef struct tb_read_options {
    /* Non-zero (the default): time in s, temperatures in °C, frequencies
     * in Hz, power in W, energy in J, current in A, voltage in V.  Units
     * the library does not know are kept as written. */
    int normalise_units;
} tb_read_options;

/* The defaults every tool starts from. */
tb_read_options tb_read_default_options(void);

/*
 * Read the run in the file PATH ("-" reads standard input).  OPT may be
 * NULL for the defaults.  Returns a run to release with tb_run_free(), or
 * NULL with a one-line message in ERR (ERRLEN bytes, TB_ERRMAX is enough).
 * Memory grows with the points kept, not with the size of the file.
 */
tb_run *tb_run_read(const char *path, const tb_read_options *opt,
                    char *err, size_t errlen);

/* As tb_run_read(), from an open stream; NAME is used in messages.  The
 * stream is read to its end and not closed. */
tb_run *tb_run_read_stream(FILE *f, const char *name,
                           const tb_read_options *opt,
                           char *err, size_t errlen);

/* Release a run; NULL is accepted. */
void tb_run_free(tb_run *run);

/*
 * A run read as it is written (tb-fit --follow): bytes are fed as they
 * arrive, in pieces of any size, and read a whole line at a time as
 * tb_run_read() reads them.  Between feeds, tb_run_follower_run() gives
 * the run so far (NULL before its header): the rows of every line ended,
 * without a copy, valid until the next feed.  A frequency labelled Hz that
 * is cpufreq's kHz is put right only by tb_run_follower_end().
 */
typedef struct tb_run_follower tb_run_follower;

/* NULL with a message in ERR when memory runs out. */
tb_run_follower *tb_run_follower_new(const char *name, const tb_read_options *opt,
                                     char *err, size_t errlen);
/* 0, or -1 after a line the reader refuses (tb_run_follower_error()). */
int tb_run_follower_feed(tb_run_follower *f, const char *buf, size_t len);
const tb_run *tb_run_follower_run(tb_run_follower *f);
/* Lines read so far (ended ones). */
size_t tb_run_follower_lines(const tb_run_follower *f);
/* "NAME:LINE: why", or NULL while there is no error. */
const char *tb_run_follower_error(const tb_run_follower *f);
/* The end of the input: a last line without its end is read as
 * tb_run_read() reads it, and the run is returned as it would have
 * returned it (or NULL with ERR); F is released either way. */
tb_run *tb_run_follower_end(tb_run_follower *f, char *err, size_t errlen);
/* Release F and its run unfinished; NULL is accepted. */
void tb_run_follower_free(tb_run_follower *f);


/* The name the run was read under (the path, or "<stdin>"). */
const char *tb_run_source(const tb_run *run);

/* Number of data rows read. */
size_t tb_run_rows(const tb_run *run);

/* Number of columns, the time column included. */
size_t tb_run_ncolumns(const tb_run *run);

/* Column I (0-based; 0 is time), or NULL when I is out of range. */
const tb_column *tb_run_column(const tb_run *run, size_t i);

/* ------------------------------------------------------------------ */
/* Metadata: the comment lines before the header                       */
/* ------------------------------------------------------------------ */

/*
 * From "# Started at: 2020-05-01 02:26:24 +0000, Version: d2d2331,
 * Generated by: thermobench ...": the start time as written, the recorder
 * version and the command line.  NULL when the run has no such line.
 */
const char *tb_run_started(const tb_run *run);
const char *tb_run_version(const tb_run *run);
const char *tb_run_command(const tb_run *run);

/* The start time as seconds since the epoch; 0 on success, -1 when the
 * run has no start time or it is not "%Y-%m-%d %H:%M:%S %z". */
int tb_run_start_time(const tb_run *run, time_t *when);

/* "# key: value" lines, in file order.  Keys are letters, digits and
 * "_.-"; a key may repeat. */
size_t tb_run_nmeta(const tb_run *run);
const char *tb_run_meta_key(const tb_run *run, size_t i);
const char *tb_run_meta_value(const tb_run *run, size_t i);

/* The value of the last "# KEY: value" line, or NULL. */
const char *tb_run_meta(const tb_run *run, const char *key);

/* The passive trip points tb-record wrote for COLUMN's thermal zone
 * ("# trip.COLUMN.K: passive 85000", m°C): the highest into *CONTROL (°C,
 * the temperature Linux's power-allocator governor controls to) and, when
 * there are two or more, the lowest into *SWITCH_ON (its switch-on
 * temperature; NaN otherwise).  0, or -1 when the run has none. */
int tb_run_trip_points(const tb_run *run, const char *column, double *control,
                       double *switch_on);

/* Comment lines that are neither the start line nor "key: value",
 * without the leading "#" and blank. */
size_t tb_run_ncomments(const tb_run *run);
const char *tb_run_comment(const tb_run *run, size_t i);

/* Warnings the reader had for this run ("FILE:LINE: ..."), e.g. a last
 * row cut short by a killed recorder.  The tools print them. */
size_t tb_run_nwarnings(const tb_run *run);
const char *tb_run_warning(const tb_run *run, size_t i);

/* ------------------------------------------------------------------ */
/* Column selection                                                    */
/* ------------------------------------------------------------------ */

/*
 * Find the columns SPEC names: an exact header ("CPU_0_temp/m°C"), a name
 * without its unit ("CPU_0_temp"), a glob on names or headers
 * ("CPU_*_temp"), or a 1-based column number as in the file ("2").
 * Writes up to MAX indices (0-based, file order) into IDX and returns how
 * many columns matched, which may be more than MAX.  When nothing matches
 * returns -1 and ERR says so and lists the columns there are.
 */
ssize_t tb_run_select(const tb_run *run, const char *spec,
                      size_t *idx, size_t max, char *err, size_t errlen);

/*
 * The columns all of the NSPECS specs name together, each once, in file
 * order: writes them into IDX (room for every column) and returns how
 * many, or -1 with ERR naming the first spec that matches nothing.
 */
ssize_t tb_run_select_all(const tb_run *run, const char *const *specs, size_t nspecs,
                          size_t *idx, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Units                                                               */
/* ------------------------------------------------------------------ */

/* The normalised unit of RAW and the factor to it: "m°C" -> "°C", 1e-3.
 * Unknown units map to themselves with factor 1. */
const char *tb_unit_normalise(const char *raw, double *scale);

/* S as a quantity in UNIT ("W", "°C"): a number and a unit that
 * tb_unit_normalise() takes to UNIT ("2.5W", "2500mW", "500µW", "23°C";
 * "23C" for °C too).  1 with *X in UNIT; 0 when S ends in no such unit or
 * is a name that ends in one ("CPU_C"); -1 when the number is not a
 * finite one. */
int tb_quantity_parse(const char *s, const char *unit, double *x);

/* S as a quantity in UNIT, as tb_quantity_parse(), or else as a plain
 * finite number taken to be in UNIT ("2.5W", "2500mW" or "2.5").  0 with
 * *X set, -1 otherwise. */
int tb_quantity_or_number_parse(const char *s, const char *unit, double *x);

/* ------------------------------------------------------------------ */
/* Column summaries                                                    */
/* ------------------------------------------------------------------ */

typedef struct tb_column_summary {
    size_t n;             /* points */
    size_t n_missing;     /* "nan" cells */
    double t_first;       /* time of the first and the last point */
    double t_last;
    double min, mean, max;
    double median_period; /* median time between consecutive points */
} tb_column_summary;

/* Summarise C.  Fields that need more points than C has (all of them for
 * an empty column, the period for a single point) are NaN.  Returns 0, or
 * -1 when memory runs out. */
int tb_column_summarise(const tb_column *c, tb_column_summary *s);

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

enum tb_number_status {
    TB_NUMBER_OK = 0,
    TB_NUMBER_NAN,        /* "nan", "-nan": a missing value */
    TB_NUMBER_INVALID,    /* not a number */
    TB_NUMBER_RANGE       /* overflows or underflows a double, or inf */
};

/* Parse the LEN bytes at S (NUL-terminated at S[LEN]) as a decimal
 * number, the whole cell and nothing else.  Correctly rounded. */
enum tb_number_status tb_number_parse(const char *s, size_t len, double *x);


/* ------------------------------------------------------------------ */
/* Fitting the thermal model                                           */
/* ------------------------------------------------------------------ */

/*
 * T(t) = T∞ + Σᵢ kᵢ·exp(−t/τᵢ), i = 1..order, t in s from the first point
 * of the series, τ ascending.  Several series may be fitted together with
 * shared τ and their own T∞ and kᵢ (sensors of one board share their time
 * constants).
 */
#define TB_FIT_MAX_ORDER 4

/* The parameters of one series, θ = (T∞, k₁ … kₙ, τ₁ … τₙ): 2n + 1. */
#define TB_FIT_MAX_PARAMS (2 * TB_FIT_MAX_ORDER + 1)

/* A series to fit: N points (T[i] s, Y[i] °C), T ascending.  Not owned. */
typedef struct tb_series {
    const double *t;
    const double *y;
    size_t n;
} tb_series;

/* How the intervals are found. */
enum tb_ci_method {
    TB_CI_HAC = 0,      /* the default: the sandwich covariance that holds
                           under autocorrelated noise (Newey and West 1987,
                           Bartlett kernel; lags by Andrews' 1991 AR(1)
                           plug-in, from each series' residuals), and
                           again with the scores prewhitened by the
                           residuals' AR(1) (Andrews and Monahan 1992):
                           each interval from the larger variance */
    TB_CI_PLAIN,        /* σ²(JᵀJ)⁻¹: assumes independent errors, which
                           real runs do not have; too narrow on them */
    TB_CI_BOOTSTRAP,    /* a moving-block bootstrap of .bootstrap resamples,
                           blocks as long as the HAC's lag window */
};

typedef struct tb_fit_options {
    int order;          /* 1..TB_FIT_MAX_ORDER; default 3 */
    double tau_min;     /* τ search range in s; 0 derives it from the data: */
    double tau_max;     /* the median sampling period and 10x the duration */
    double level;       /* confidence level of the intervals; default 0.95 */
    enum tb_ci_method ci;  /* default TB_CI_HAC */
    int bootstrap;      /* resamples of TB_CI_BOOTSTRAP; default 200 */
    unsigned long seed; /* of the bootstrap */
} tb_fit_options;

/* "hac", "covariance" or "bootstrap": the method's name in reports. */
const char *tb_ci_method_name(enum tb_ci_method m);

tb_fit_options tb_fit_default_options(void);

/* An estimate and its confidence interval. */
typedef struct tb_estimate {
    double value, lo, hi;
} tb_estimate;

/* Why a fit should not be trusted as it is. */
enum tb_fit_flag {
    TB_FIT_TAU_AT_BOUND = 1 << 0,  /* a τ ended at the search range's end */
    TB_FIT_TAU_MERGED = 1 << 1,    /* two τ within a factor 1.5 */
    TB_FIT_K_HUGE = 1 << 2,        /* a |kᵢ| 10x beyond the observed span */
    TB_FIT_TAU_SHORT = 1 << 3,     /* τ₁ under 3 sampling periods */
    TB_FIT_FEW_POINTS = 1 << 4,    /* under 5 points per parameter */
    TB_FIT_NO_CONVERGENCE = 1 << 5,/* the search stopped at its limit */
    TB_FIT_NO_CI = 1 << 6,         /* the intervals could not be computed */
    TB_FIT_THROTTLED = 1 << 7,     /* frequency or power changed during the
                                      window: set by tb_analyse_runs(),
                                      which sees the run's other columns */
    TB_FIT_K_SPANS_ZERO = 1 << 8,  /* a term whose k interval holds 0 in
                                      every series: the data do not show it */
    TB_FIT_EXTRAPOLATED = 1 << 9,  /* T∞ lies beyond the data: a run shorter
                                      than 3 of the slowest τ ends over 3
                                      rmse from it (see .remaining), or
                                      (from tb_fit_check_order()) the next
                                      order puts it outside the interval, or
                                      T∞'s profile does not close */
    TB_FIT_LACK_OF_FIT = 1 << 10,  /* the residuals have structure the noise
                                      does not explain: the model does not
                                      describe the run (a power step,
                                      throttling, drift); see .misfit */
};
#define TB_FIT_FLAG_LAST TB_FIT_LACK_OF_FIT
#define TB_FIT_DEGENERATE (TB_FIT_TAU_AT_BOUND | TB_FIT_TAU_MERGED | \
                           TB_FIT_K_HUGE | TB_FIT_TAU_SHORT | TB_FIT_K_SPANS_ZERO)

/* The short name of one flag ("tau_at_bound"), or NULL. */
const char *tb_fit_flag_name(unsigned flag);
/* What FLAG means, in words, for a report; NULL for an unknown flag. */
const char *tb_fit_flag_meaning(unsigned flag);

/* What a fit found for one of its series. */
typedef struct tb_fit_series {
    tb_estimate t_inf;                  /* °C */
    tb_estimate k[TB_FIT_MAX_ORDER];    /* °C */
    size_t n;                           /* points */
    double t0;                          /* time of the first point, s */
    double duration;                    /* last minus first time, s */
    double rss;                         /* its share of the RSS, °C² */
    double remaining;                   /* T∞ minus the fitted curve at the
                                           last point: what is extrapolated */
    double misfit;                      /* mean residual of the twentieth of
                                           the series that departs most */
    double misfit_from, misfit_to;      /* where: s after the first point */
    double order_t_inf;                 /* T∞ of the next order, where it
                                           counts (tb_fit_check_order()); NaN */
    double cov[TB_FIT_MAX_PARAMS * TB_FIT_MAX_PARAMS];
    double cov_white[TB_FIT_MAX_PARAMS * TB_FIT_MAX_PARAMS];
                                        /* covariances of its θ (see
                                           tb_fit_theta()), 2n + 1 to a row,
                                           that the intervals came from: the
                                           HAC's Newey–West and prewhitened
                                           ones (each interval takes the
                                           larger variance), or the plain one
                                           twice; NaN with the bootstrap or
                                           without intervals */
} tb_fit_series;

typedef struct tb_fit {
    int order;
    tb_estimate tau[TB_FIT_MAX_ORDER];  /* s, ascending */
    size_t nseries;
    tb_fit_series *series;              /* owned; see tb_fit_clear() */
    size_t points, params, dof;
    double rss;                         /* Σ residual², °C² */
    double rmse;                        /* sqrt(rss / dof), °C */
    double aicc;                        /* corrected Akaike criterion */
    double tau_min, tau_max;            /* the search range used */
    double median_period;               /* s */
    unsigned flags;                     /* enum tb_fit_flag */
    enum tb_ci_method ci;               /* how the intervals were found */
    size_t ci_lags;                     /* HAC: the most lags of its window
                                           (0: none needed); bootstrap: the
                                           longest block, in points */
    size_t ci_failed;                   /* bootstrap resamples that could
                                           not be refitted (left out) */
    double level;                       /* of the intervals */
    double *replicates;                 /* bootstrap: each resample's
                                           (T∞, k₁ … kₙ) of every series in
                                           turn, then τ₁ … τₙ; owned.  NULL
                                           with the other methods */
    size_t nreplicates;
} tb_fit;

/*
 * Fit the model of order OPT->order to the NSERIES series S (one, or
 * several sharing τ).  The global least-squares optimum is sought by
 * variable projection: a screen of a log-spaced τ grid, then GSL's trust-
 * region solver over ln τ from the best grid points.  Returns 0 and fills
 * FIT (release with tb_fit_clear()), or -1 with a message in ERR (too few
 * points, constant data, bad options).  A fit that is found but suspect
 * returns 0 with FIT->flags set.  T∞'s interval (HAC or covariance) is
 * widened to its profile's: the T∞ whose refit (k and τ free) stays as
 * close to the optimum as the linearised interval allows, so that a slow
 * τ the run cannot pin down widens it (TB_FIT_EXTRAPOLATED where the
 * profile does not close).
 */
int tb_fit_series_run(const tb_series *s, size_t nseries,
                      const tb_fit_options *opt, tb_fit *fit,
                      char *err, size_t errlen);

/* As tb_fit_series_run() for orders 1..TB_FIT_AUTO_MAX_ORDER, keeping the
 * one of least AICc among those that are not degenerate (or order 1).  It
 * is then compared with the next order as by tb_fit_check_order(): no
 * further check is needed.  OPT->order is not used.  What every tool does
 * unless given an order: the data, not a fixed three terms, decide how
 * many terms they show. */
#define TB_FIT_AUTO_MAX_ORDER 3   /* the model's terms: heat sink, board, testbed */
int tb_fit_series_auto(const tb_series *s, size_t nseries,
                       const tb_fit_options *opt, tb_fit *fit,
                       char *err, size_t errlen);

/*
 * The check of FIT (order n, fitted to S with OPT) against the next order:
 * fit order n + 1 and, where it is sound (no k beyond the data, no merged
 * τ) and clearly better by AICc, it counts: each series' T∞ interval is
 * widened to hold the next order's (profiled) interval, since the order
 * is part of the uncertainty, and its T∞ goes to .order_t_inf (NaN where
 * the next order does not count); where that T∞ lies outside FIT's own
 * interval, FIT is flagged TB_FIT_EXTRAPOLATED.  0 (FIT may be changed),
 * or -1 when memory runs out.  Nothing is done at TB_FIT_MAX_ORDER or when
 * the next order cannot be fitted (too few points).  The next order is
 * searched as the chosen one is, but refined from its best start only,
 * for at most 40 iterations, and not at all where that start has merged
 * τ: a comparison that can understate its gain, never invent it.
 */
int tb_fit_check_order(const tb_series *s, size_t nseries, const tb_fit_options *opt,
                       tb_fit *fit);

/* θ of series I of FIT, (T∞, k₁ … kₙ, τ₁ … τₙ), into THETA (2n + 1
 * values); returns 2n + 1. */
size_t tb_fit_theta(const tb_fit *fit, size_t i, double *theta);

/*
 * The estimate and interval, at FIT's level, of a quantity derived from
 * series I of FIT: G(θ, X, CTX), with θ as tb_fit_theta() gives it and X
 * an input measured apart from the fit (a power step) with standard
 * error X_SE (0: known exactly).  The interval is propagated as the fit's
 * own: from its covariance by the delta method (a numerical gradient;
 * in ln G when POSITIVE, so that it stays positive, as τ's do), or over
 * its bootstrap resamples (percentiles, X drawn from a normal law with a
 * fixed seed).  0, or -1 when FIT has no intervals or G is not finite at
 * the estimate (E's lo and hi are then NaN, its value G(θ) still).
 */
int tb_fit_derive(const tb_fit *fit, size_t i,
                  double (*g)(const double *theta, double x, void *ctx), void *ctx,
                  double x, double x_se, int positive, tb_estimate *e);

/* The fitted model of series I at time T (s after its first point). */
double tb_fit_eval(const tb_fit *fit, size_t i, double t);

/* Release what a fit owns; the struct may be reused.  NULL, or a fit that
 * failed (its struct is zeroed), is accepted. */
void tb_fit_clear(tb_fit *fit);

/* ------------------------------------------------------------------ */
/* From runs to fits                                                   */
/* ------------------------------------------------------------------ */

/* Parse a duration as every tbkit tool writes one (--from, --step, -t,
 * plans): "90" (seconds), "90s", "500ms", "5min" (or "5m"), "1h", or a
 * sum of such terms ("1h30m"); 0 with *SECONDS set, or -1 when S is not
 * one (negative, not finite, a space, a unit it does not know).  libc
 * only, as tb_quantity_parse(). */
int tb_parse_duration(const char *s, double *seconds);

/*
 * The points of column C with from <= t <= to, minus AMBIENT (NULL for
 * none) interpolated linearly at each time (its nearest value outside its
 * range).  Allocates *T and *Y (free() them).  0, or -1 with a message in
 * ERR when the window holds no point.
 */
int tb_series_extract(const tb_column *c, double from, double to,
                      const tb_column *ambient, double **t, double **y,
                      size_t *n, char *err, size_t errlen);
/* tb_series_extract() less OFFSET, then tb_series_bin() to at most MAX
 * means (0: every point), in one pass: only the means are allocated, the
 * same to the last bit. */
int tb_series_extract_bins(const tb_column *c, double from, double to, const tb_column *ambient,
                           double offset, size_t max, double **t, double **y, size_t *n,
                           char *err, size_t errlen);

/*
 * How many of column C's first samples come before its regular sampling:
 * a burst of samples much closer together (under a tenth of the median
 * of its first 1024 intervals) at the start.  thermobench writes two rows
 * 3-4 ms apart as the benchmark starts, before it runs at full speed; a
 * term of a few ms would fit them.  0 when the sampling is regular from
 * the first sample.
 */
size_t tb_startup_samples(const tb_column *c);

/*
 * The N points (T, Y), in time order, made at most MAX block means in
 * place: the span cut into MAX bins of equal time, each bin's points
 * replaced by their mean time and mean value (an empty bin by nothing).
 * A fit of the means is a fit of the points where a bin is short beside
 * the fastest τ, at a cost that no longer grows with the sampling rate.
 * The count kept: N itself when N <= MAX or MAX is 0.
 */
size_t tb_series_bin(double *t, double *y, size_t n, size_t max);

/* Operations per second from the cumulative counter WORK within the
 * window: its change from the first point to the last over their time (a
 * counter sums its increments' noise, so a line fitted to it would know
 * the rate less well).  NaN under two points. */
double tb_work_rate(const tb_column *work, double from, double to);

/* The work rate of the N cumulative counters WORK summed, within the
 * window, with its LEVEL interval into *RATE: the value the sum of their
 * tb_work_rate(), the interval by batch means (the rates of ten equal
 * stretches of the window, a t interval of their mean: honest however the
 * counts are correlated from sample to sample; NaN ends with under three
 * stretches of two samples).  0, or -1 with *RATE NaN when a counter has
 * under two points in the window (or N is 0). */
int tb_work_rate_estimate(const tb_column *const *work, size_t n, double from, double to,
                          double level, tb_estimate *rate);

/* Whether NAME is a work counter, thermobench's NAME_work_done column: a
 * running count of operations, taken by default for operations/s. */
int tb_is_work_counter(const char *name);

/*
 * Whether a frequency (Hz) or power (W) column of RUN changes during the
 * window: three points in a row under 90 % of the median of the window's
 * first tenth (a frequency) or off it by over 25 % (a power).  Returns 1
 * with *SINCE the time it started and *COLUMN the column's name, 0 when
 * nothing changed, -1 when memory ran out.
 */
int tb_throttle_check(const tb_run *run, double from, double to,
                      double *since, const char **column);

/*
 * The columns fitted when none is named: in °C, with points, not constant,
 * and not the ambient one (AMBIENT, -1 for none, or any whose name holds
 * "ambient").  Writes their indices into IDX (room for every column) and
 * returns how many.  NOTE, unless NULL, hears of each column left out for
 * being empty or constant, with the reason.
 */
size_t tb_default_columns(const tb_run *run, ssize_t ambient, size_t *idx,
                          void (*note)(void *ctx, const tb_column *c, const char *why),
                          void *ctx);

/* The physical name of term J (0-based) of series I of FIT, from its τ:
 * "heat sink" under TB_TERM_HEAT_SINK_MAX s, "board" up to
 * TB_TERM_BOARD_MAX s, "testbed" beyond (the masses Sojka et al. found on
 * the reference i.MX8: about 1, 5 and 18 minutes).  NULL where the data do
 * not show the term as a mass: a degenerate fit, a k whose interval holds
 * 0, or a k whose sign is not the series' (Σk: a term that rises while the
 * run falls, or the reverse, is no mass heating).  A static string. */
/* The physically possible: every power (and input level) a schedule,
 * profile, option or file gives within ±TB_POWER_MAX W (10 kW, far
 * beyond any board), every temperature from absolute zero to
 * TB_TEMP_MAX °C; what lies beyond is refused, so that no output is
 * ever infinite for a finite input. */
#define TB_POWER_MAX 1e4
#define TB_TEMP_MIN (-273.15)
#define TB_TEMP_MAX 1000.0

#define TB_TERM_HEAT_SINK_MAX 120.0
#define TB_TERM_BOARD_MAX 600.0
const char *tb_term_label(const tb_fit *fit, size_t i, int j);

/* Time (s after the first point) after which series I of FIT stays within
 * TOL of its T∞. */
double tb_fit_settle_time(const tb_fit *fit, size_t i, double tol);

/*
 * The stopping rule of a followed run (tb-fit --follow --until): stop
 * once T∞ is known to ±TOLERANCE, looking only at fixed data times (2
 * minutes after the run's first row, growing by a quarter, the last at
 * MAX), each look's interval at tb_stop_rule_level() (1 − .level split
 * evenly between the looks) so that the interval of the look that stops
 * covers T∞ with .level however many looks were made (Bonferroni).  A
 * flagged fit never stops it.
 */
typedef struct tb_stop_rule {
    double tolerance;     /* °C */
    double max;           /* s of data: the last look */
    double level;         /* of the promise, all looks together */
    size_t looks;
} tb_stop_rule;

enum tb_stop_verdict {
    TB_STOP_GO_ON,        /* not known yet */
    TB_STOP_KNOWN,        /* T∞ known to ±tolerance */
    TB_STOP_NOT_KNOWN,    /* the last look, and still not known */
};

/* 0, or -1 for a tolerance or level out of range or MAX under 2 min. */
int tb_stop_rule_init(tb_stop_rule *r, double tolerance, double max, double level);
/* Data time (s after the first row) of look K (0-based); +∞ past the last. */
double tb_stop_rule_time(const tb_stop_rule *r, size_t k);
/* The level of every look's intervals. */
double tb_stop_rule_level(const tb_stop_rule *r);
/* One look's test, K, on series I of FIT, fitted at look K's level to the
 * run up to that look (NULL: the fit failed): known when no flag is set
 * and the whole interval lies within ±tolerance.  A rule that stops at
 * the first such look is tb_stop_rule_look()'s first half only. */
enum tb_stop_verdict tb_stop_rule_judge(const tb_stop_rule *r, size_t k,
                                        const tb_fit *fit, size_t i);
/* What the rule remembers of one series from look to look. */
typedef struct tb_stop_state {
    int has_before;       /* the last look was known */
    tb_estimate before;   /* that T∞ */
    double known_at;      /* s of data it became known at; NaN */
    size_t known_look;    /* that look, from 1; 0 while not known */
} tb_stop_state;
void tb_stop_state_init(tb_stop_state *s);
/* Look K, at data time T (s after the first row), on series I of FIT
 * (NULL: its fit failed), as tb-fit --follow --until looks: a series is
 * known once tb_stop_rule_judge() says so at two looks in a row, each T∞
 * within the other's interval (a narrow interval alone may be the noise's
 * luck; an estimate that moves by more than it claims to know is still
 * extrapolating).
 * TB_STOP_KNOWN from then on; TB_STOP_NOT_KNOWN at the last look
 * otherwise. */
enum tb_stop_verdict tb_stop_rule_look(const tb_stop_rule *r, size_t k, double t,
                                       const tb_fit *fit, size_t i, tb_stop_state *s);
/* The larger half of series I's T∞ interval (+∞ without one). */
double tb_stop_half_width(const tb_fit *fit, size_t i);
/* A first guess of the data time still needed for that half to reach
 * TOLERANCE: the slowest τ times ln(half / tolerance); 0 when it has, NaN
 * without an interval. */
double tb_stop_time_needed(const tb_fit *fit, size_t i, double tolerance);

/* T∞ fitted to the first LENGTH seconds of a series. */
typedef struct tb_prefix {
    double length;        /* s */
    size_t n;             /* points */
    int ok;               /* the fit succeeded */
    tb_estimate t_inf;
    unsigned flags;
    int within;           /* ok, not degenerate, its whole interval within
                             tol of the full run's T∞ */
} tb_prefix;

typedef struct tb_run_length {
    tb_estimate t_inf;    /* of the whole series */
    unsigned full_flags;
    double settle;        /* s until the full fit stays within tol of T∞ */
    double shortest;      /* s: the shortest prefix from which every longer
                             one is within (NaN: none, or the whole run's
                             own interval is wider than ±tol) */
    tb_prefix *prefix;    /* step, 2 step, ..., the whole series */
    size_t nprefix;
} tb_run_length;

/*
 * The run-length analysis after Sojka et al. (FedCSIS 2020): fit prefixes
 * of S growing by STEP seconds in the τ range of the whole series and see
 * from which length T∞ stays within TOL °C of the whole run's -- its whole
 * interval, not its estimate alone.  The answer does not hang on STEP:
 * prefixes halfway between the steps are checked too, and the step before
 * the answer is searched sample by sample (200 fits at most).  0, or -1
 * with a message in ERR when the whole series cannot be fitted.  Release
 * with tb_run_length_clear().
 */
int tb_run_length_estimate(const tb_series *s, const tb_fit_options *opt,
                           double step, double tol, tb_run_length *rl,
                           char *err, size_t errlen);
void tb_run_length_clear(tb_run_length *rl);   /* NULL is accepted */

/* ------------------------------------------------------------------ */
/* A run under thermal limits                                          */
/* ------------------------------------------------------------------ */

#define TB_METRICS_MAX_TRIPS 8

/* A temperature column (°C) of a run, against its zone's trip points. */
typedef struct tb_sensor_metrics {
    size_t column;                      /* its index in the run */
    double peak, mean;                  /* °C; the mean weighted by time */
    size_t ntrips;                      /* "# trip.NAME.K" of its zone */
    double trip[TB_METRICS_MAX_TRIPS];  /* °C, in the file's order */
    char trip_type[TB_METRICS_MAX_TRIPS][16];   /* "passive", ... */
    double above_s[TB_METRICS_MAX_TRIPS];       /* s above each trip */
} tb_sensor_metrics;

/* A cooling device's state column (tb-record's TYPE_cdevN/state). */
typedef struct tb_cooling_metrics {
    size_t column;
    double max_state;        /* "# max_state.NAME"; NaN when not given */
    double throttled_share;  /* of the time, at a state above 0 */
    double mean_state;       /* weighted by time */
} tb_cooling_metrics;

/* A power column (W). */
typedef struct tb_power_metrics {
    size_t column;
    double mean_w;           /* weighted by time */
    double energy_j;         /* its integral over the window */
} tb_power_metrics;

/* How a run did under its thermal limits, within a window. */
typedef struct tb_run_metrics {
    double from, to;                    /* s: the window, as found */
    size_t nsensors, ncooling, npower;
    tb_sensor_metrics *sensors;
    tb_cooling_metrics *cooling;
    tb_power_metrics *power;
    tb_estimate ops;          /* operations/s of the work counters summed
                                 (tb_work_rate_estimate()); NaN: none */
    tb_estimate ops_sustained;/* the same over the window's last third:
                                 the rate the board kept once warm */
    double ops_per_j;         /* work per joule of the first power column;
                                 NaN without both */
} tb_run_metrics;

/*
 * The metrics of RUN within FROM <= t <= TO (-∞/∞: all of it): for each
 * temperature column its peak, time-weighted mean and the time above each
 * trip point tb-record wrote for it; for each cooling device's state
 * column (unit "state") the share of time above state 0 and the mean
 * state; for each power column its mean and energy; the work rate overall
 * and over the last third, with LEVEL intervals, and work per joule (the
 * work counters: columns WORK[0..NWORK), or with WORK NULL the columns
 * tb_is_work_counter() names).  Each sample is held until the next (as
 * the kernel's state and a sensor's reading are).  0; -1 with ERR when the window holds under two points,
 * -2 when memory runs out.  Release with tb_run_metrics_clear().
 */
int tb_run_metrics_compute(const tb_run *run, double from, double to, double level,
                           const size_t *work, size_t nwork, tb_run_metrics *m, char *err,
                           size_t errlen);
void tb_run_metrics_clear(tb_run_metrics *m);

/* The time (s) column C spends above LEVEL within FROM <= t <= TO, each
 * sample held until the next. */
double tb_time_above(const tb_column *c, double from, double to, double level);

/* The limit a sensor is held under: its zone's lowest passive trip (where
 * the kernel starts to throttle), else its lowest trip; NaN without one. */
double tb_sensor_metrics_limit(const tb_sensor_metrics *s);

/* ------------------------------------------------------------------ */
/* Power: from temperature curves to thermal resistance               */
/* ------------------------------------------------------------------ */

/* The power step of a run: the load's level less the idle level. */
typedef struct tb_power_step {
    double step;          /* ΔP, W */
    double se;            /* its standard error, W (0 when given) */
    double load, idle;    /* the levels, W; NaN where not measured */
    double departure;     /* the largest departure of a tenth of the load
                             from the load's mean, as a share of ΔP */
    int not_step;         /* departure over TB_POWER_STEP_SHARE */
    double held;          /* s: for a step down (.step < 0, a cooling
                             curve), how long the load before it lasted:
                             mode i had reached 1 − e^(−held/τᵢ) of its
                             rise, and its Rᵢ is read so; 0: settled */
    double shape_r_th;    /* K/W: R_th of the step response (the curve
                             less the power's departure from a clean step,
                             tb_power_departure_response()) less R_th of
                             the curve as it is; 0 when not measured */
} tb_power_step;

#define TB_POWER_STEP_SHARE 0.1

/*
 * Measure the step of the power column POWER (in W): the mean of its
 * points within FROM <= t <= TO (the load) less IDLE, or, when IDLE is
 * NaN, less the mean of its points outside the window (an idle part
 * before the load or after it: at least 5 points over 10 sampling
 * periods, one level: the parts before and after, and each tenth of them,
 * within TB_POWER_STEP_SHARE of the step of each other).  The standard errors are by batch means over tenths, which
 * hold under autocorrelated noise.  0, or -1 with a message in ERR: not
 * a power, too few points, no idle part, a step that is not positive.
 */
int tb_power_step_measure(const tb_column *power, double from, double to, double idle,
                          tb_power_step *ps, char *err, size_t errlen);

/*
 * Into Y[0..N), at the N times T of series I of FIT: what the departure of
 * the power column POWER from the clean step PS (from its mean over the
 * load, PS->load, from T[0] on) does through the fit's modes (τᵢ, Rᵢ =
 * −kᵢ/ΔP), each power sample held until the next.  The curve less Y is
 * the response to a clean step, which is what a network is read from: a
 * power that alternates, droops or spikes at the start deposits heat a
 * step's model would put into T(0) and into τ.  Nothing is done (Y all
 * zero) unless PS is a step up from rest (PS->step > 0, PS->held 0).
 */
void tb_power_departure_response(const tb_fit *fit, size_t i, const tb_power_step *ps,
                                 const tb_column *power, const double *t, size_t n, double *y);

/* Why a thermal network should not be trusted as it is. */
enum tb_thermal_flag {
    TB_THERMAL_NOT_STEP = 1 << 0,     /* the power is not a step */
    TB_THERMAL_NOT_PASSIVE = 1 << 1,  /* a term goes the wrong way (an Rᵢ =
                                         −kᵢ/ΔP not positive): no RC network
                                         has it, and no Cauer ladder is
                                         given */
    TB_THERMAL_NOT_AT_REST = 1 << 2,  /* the temperature still moved when
                                         the load started: the network
                                         assumes idle equilibrium there */
};

/* A run's temperature curve as a thermal network under its power step. */
typedef struct tb_thermal {
    tb_power_step power;
    size_t n;                           /* stages: the fit's order */
    double t_start;                     /* the fitted T(0), °C */
    tb_estimate r_th;                   /* (T∞ − T(0))/ΔP = Σ Rᵢ, K/W */
    tb_estimate r_ja;                   /* T∞/(idle + ΔP) when the fit is
                                           of the rise over an ambient and
                                           the idle power is known; NaN */
    tb_estimate foster_r[TB_FIT_MAX_ORDER];  /* Rᵢ = −kᵢ/ΔP, fastest first */
    tb_estimate foster_c[TB_FIT_MAX_ORDER];  /* Cᵢ = τᵢ/Rᵢ, J/K */
    tb_estimate cauer_r[TB_FIT_MAX_ORDER];   /* from the power's node down */
    tb_estimate cauer_c[TB_FIT_MAX_ORDER];
    double start_drift;                 /* K: how far the temperature would
                                           move over the slowest τ at its
                                           slope before the load
                                           (tb_thermal_check_start()); NaN
                                           when not checked */
    double start_drift_lo, start_drift_hi;  /* its interval, at the fit's
                                           level */
    unsigned flags;                     /* enum tb_thermal_flag */
} tb_thermal;

/*
 * The network of series I of FIT (fitted with TB_FIT_MAX_ORDER or fewer
 * terms) under the power step PS; RELATIVE: the series is a rise over an
 * ambient (R_ja is then given).  Intervals are the fit's, propagated with
 * ΔP's standard error (tb_fit_derive()); a fit flagged extrapolated has
 * its R_th interval widened to hold the next order's T∞ as T∞'s is.  A
 * negative ΔP is a step down (a cooling curve, kᵢ > 0).  0, or -1 with a
 * message in ERR when ΔP is 0 or not finite.
 */
int tb_thermal_from_fit(const tb_fit *fit, size_t i, const tb_power_step *ps, int relative,
                        tb_thermal *th, char *err, size_t errlen);

#define TB_THERMAL_FLAG_LAST TB_THERMAL_NOT_AT_REST

/*
 * Whether the board was at rest when the load started (or, for a cooling
 * curve, ended) at time START: the slope of column TEMP (less AMBIENT,
 * interpolated, when not NULL: the rise over the room, which is what the
 * network describes) over the second half of its points from FROM (-∞:
 * its first) to START (at least 10), times the slowest τ of series I of
 * TH's fit, is how far it was still heading.  The slope's error allows
 * for correlated noise (its white-noise error times √((1+ρ)/(1−ρ)), ρ the
 * residuals' lag-1 autocorrelation).  When the slope shows a drift (over
 * three times that error) of over 5 % of the step's rise or half of R_th's
 * interval times ΔP, TH is flagged TB_THERMAL_NOT_AT_REST, as its kᵢ then
 * mix the load's response with the way the board was going.
 * TH->start_drift gets it, with its interval at the fit's level.  0, or
 * -1 when there are too few points before START to tell (nothing
 * changed).
 */
int tb_thermal_check_start(const tb_fit *fit, size_t i, const tb_column *temp,
                           const tb_column *ambient, double from, double start, tb_thermal *th);

/* The short name of one flag ("not_passive"), or NULL. */
const char *tb_thermal_flag_name(unsigned flag);

/* The flags as "a;b" ("" when none) into BUF of SIZE bytes; BUF. */
const char *tb_thermal_flags_text(unsigned flags, char *buf, size_t size);

/* Zth(t) = ΔT(t)/ΔP on a log time grid: the data, averaged over each bin
 * of the grid, and the model over the same points. */
typedef struct tb_zth_point {
    double t;             /* s after the first point: the bin's mean time */
    size_t n;             /* points in the bin */
    double data;          /* K/W */
    double model;         /* K/W */
} tb_zth_point;

/*
 * The Zth curve of series I of FIT, whose points are T and Y (N of them,
 * T in the run's time), under the step DP, PER_DECADE bins to a decade
 * from the first sampling period to the end.  Allocates *POINTS (free()
 * it) and returns how many, or -1 when memory runs out.
 */
ssize_t tb_thermal_zth(const tb_fit *fit, size_t i, const double *t, const double *y, size_t n,
                       double dp, int per_decade, tb_zth_point **points);

/* The time-constant spectrum of a Zth curve and its structure function. */
#define TB_SPECTRUM_MAX_PEAKS 16
enum tb_spectrum_flag {
    TB_SPECTRUM_UNRESOLVED = 1 << 0,     /* over 5 % of ΣR at τ the run does
                                            not resolve (under 3 sampling
                                            periods, over a third of the run) */
    TB_SPECTRUM_LADDER_INEXACT = 1 << 1, /* the ladder's ΣR is off the
                                            spectrum's by over 1 % */
};

typedef struct tb_spectrum {
    size_t n;                 /* the log-τ grid */
    double *tau;              /* s */
    double *r;                /* K/W of the stage at each τ (per grid step) */
    double r_total;           /* Σ r, K/W */
    double lambda;            /* the regularisation of the L-curve's corner */
    double resolved_lo, resolved_hi;   /* s: the τ the run resolves */
    size_t nladder;           /* the Cauer ladder of the spectrum: */
    double *cum_r, *cum_c;    /* ΣR (K/W) and ΣC (J/K) from the source out */
    size_t npeaks;            /* runs of the grid with R, in τ order: */
    double peak_tau[TB_SPECTRUM_MAX_PEAKS];   /* s, R-weighted geometric mean */
    double peak_r[TB_SPECTRUM_MAX_PEAKS];     /* K/W, their sums */
    unsigned flags;           /* enum tb_spectrum_flag */
} tb_spectrum;

/*
 * The spectrum of the NZ points Z of a Zth curve (tb_thermal_zth(); a run
 * sampled every PERIOD s over DURATION s): Rⱼ ≥ 0 on a grid of PER_DECADE
 * τ a decade from PERIOD to 10·DURATION with Zth(t) = Σ Rⱼ(1 − e^(−t/τⱼ)),
 * by non-negative least squares regularised by λ‖R‖², λ at the corner of
 * the L-curve (gsl_multifit_linear_lcorner()), each point weighted by its
 * bin's count; and the Cauer ladder of those stages as the cumulative
 * structure function.  0, or -1 with a message in ERR (too few points).
 * Release with tb_spectrum_clear() (NULL is accepted).
 */
int tb_thermal_spectrum(const tb_zth_point *z, size_t nz, double period, double duration,
                        int per_decade, tb_spectrum *sp, char *err, size_t errlen);
void tb_spectrum_clear(tb_spectrum *sp);

/* The power a board sustains below a trip point, and how long it takes
 * to reach it. */
typedef struct tb_sustainable {
    double trip;          /* °C */
    double switch_on;     /* °C of the governor's switch-on trip; NaN */
    double idle_temp;     /* °C at idle, at the ambient asked for */
    tb_estimate power;    /* W: idle + (trip − idle_temp)/R_th */
    double at_power;      /* W of the time to trip */
    tb_estimate time_to_trip;  /* s from idle at AT_POWER; +∞: never */
} tb_sustainable;

/*
 * Sustainable power and time to trip of series I of FIT, whose network TH
 * knows its idle power: the series' temperatures plus OFFSET (the worst
 * ambient when the series is a rise over an ambient, 0 when it is the
 * temperature itself) are held below TRIP.  AT_POWER (W) is the power of
 * the time to trip, from idle equilibrium; NaN for the run's load power.
 * 0, or -1 with a message in ERR: no idle power, a trip at or below the
 * ambient, a network that is not passive.
 */
int tb_thermal_sustainable(const tb_fit *fit, size_t i, const tb_thermal *th, double trip,
                           double offset, double at_power, tb_sustainable *su,
                           char *err, size_t errlen);

/* The network file (tb-fit --network, tb-sim --network): CSV of file,
 * column, stage, R_K_per_W, R_lo, R_hi, C_J_per_K, C_lo, C_hi, tau_s,
 * power_step_W, idle_W, a row per Foster stage, after a "#" line.  The
 * header, and the stages of TH (fitted as FIT) of COLUMN of FILE: 0, or
 * -1 on a write error. */
int tb_network_write_header(FILE *f);
int tb_network_write(FILE *f, const char *file, const char *column, const tb_thermal *th,
                     const tb_fit *fit);

/* A network read back: its Foster stages. */
typedef struct tb_network {
    char *file, *column;                    /* owned */
    size_t n;
    double r[TB_FIT_MAX_ORDER], c[TB_FIT_MAX_ORDER];   /* K/W, J/K */
    double power_step, idle;                /* W; NaN when not known */
} tb_network;

/* Read the stages of COLUMN (NULL: of the first column) from the network
 * file PATH.  0, or -1 with "FILE:LINE: ..." in ERR: not a network file,
 * a stage that is not a positive R and C, stages out of order, no such
 * column.  Release with tb_network_clear() (NULL is accepted). */
int tb_network_read(const char *path, const char *column, tb_network *net, char *err,
                    size_t errlen);
void tb_network_clear(tb_network *net);

/* The constants Linux's power-allocator governor derives from a thermal
 * zone's sustainable power when the zone gives none of its own
 * (drivers/thermal/gov_power_allocator.c, estimate_pid_constants(), as
 * since Linux 5.11): with the threshold T = control − switch-on
 * temperature in m°C (switch-on 0 when the zone has no such trip),
 * k_po = (P·2¹⁰)/T, k_pu = (2P·2¹⁰)/T and k_i = max(k_pu/10, 1), in
 * 10-bit fixed point and integer arithmetic.  0, or -1 when the
 * threshold is not positive or the power is not a positive mW count. */
typedef struct tb_ipa_constants {
    unsigned sustainable_mw;
    unsigned k_po, k_pu, k_i;
} tb_ipa_constants;
int tb_ipa_constants_compute(double sustainable_w, double control_c, double switch_on_c,
                             tb_ipa_constants *k);

/* ------------------------------------------------------------------ */
/* Analysis: from runs to fitted columns, as every tbkit tool does it   */
/* ------------------------------------------------------------------ */

/* What to fit in a run and how; start from tb_analysis_default_options(). */
typedef struct tb_analysis_options {
    tb_fit_options fit;             /* order, τ range, level, intervals */
    int auto_order;                 /* non-zero (the default): the order
                                       from the data, by AICc
                                       (tb_fit_series_auto()); zero:
                                       .fit.order as given */
    int shared_tau;                 /* non-zero: one fit of every column of
                                       every run, with common τ */
    const char *const *columns;     /* specs as for tb_run_select(); none
                                       (0): tb_default_columns() */
    size_t ncolumns;
    const char *ambient;            /* a column subtracted, interpolated,
                                       before fitting; NULL for none */
    double from, to;                /* the window, s of the run's time
                                       column; default NaN (from the
                                       regular sampling: each column's
                                       start-up samples left out, see
                                       tb_startup_samples()) and +∞ */
    const char *const *work;        /* work counters summed into
                                       operations/s; none (0): every
                                       tb_is_work_counter() column */
    size_t nwork;
    double tolerance;               /* °C, of the settle time and the run
                                       length; default 0.5 */
    int run_length;                 /* non-zero: the run-length analysis of
                                       each column too, at the order of
                                       its whole-run fit (not with shared
                                       τ) */
    double step;                    /* s, of the run length; default 60 */
    double ambient_temp;            /* °C subtracted as a constant ambient
                                       (not with .ambient); default NaN */
    /* The thermal network (tb_thermal_from_fit()) of each fitted column,
     * under the step of a power column or one given: */
    const char *power;              /* a power column (W), as for
                                       tb_run_select(); NULL for none */
    double power_step;              /* W: the step given instead; NaN */
    double idle_power;              /* W; NaN: from the power column's idle
                                       part (tb_power_step_measure()) */
    double trip;                    /* °C: the sustainable power below it
                                       (tb_thermal_sustainable()); NaN */
    double limit;                   /* °C: the limit of the time above it
                                       (no power needed); NaN: .trip, else
                                       the zone's lowest passive trip */
    double max_ambient;             /* °C: the worst ambient it is for;
                                       with an ambient subtracted only */
    double at_power;                /* W of the time to trip; NaN: the
                                       run's load power */
    int trip_zone;                  /* non-zero: the trip point (and the
                                       switch-on) of each column's zone
                                       from its run (tb_run_trip_points())
                                       instead of .trip */
    double switch_on;               /* °C: the governor's switch-on trip,
                                       for its constants; NaN: none */
    int cooling;                    /* non-zero: each column in two parts,
                                       the heating up to the load's end
                                       and the cooling after it, fitted
                                       together with shared τ (a power
                                       step down for the cooling part) */
    double load_end;                /* s of the run: the load's end; NaN:
                                       from its benchmark_running column
                                       (tb-record --cooldown) */
    size_t max_points;              /* 0 (the default): every point; else
                                       each series made at most this many
                                       block means first (tb_series_bin():
                                       a followed run's quick updates) */
    int spectrum;                   /* non-zero: each network's time-
                                       constant spectrum and structure
                                       function (tb_thermal_spectrum()) */
    int jobs;                       /* columns fitted at a time, each on
                                       a thread of its own; 0 or 1: one
                                       (not with shared τ, one fit) */
    void (*progress)(void *ctx, size_t done, size_t total);
                                    /* told after each fit, DONE of TOTAL
                                       (a progress line), from the thread
                                       that fitted it, one call at a
                                       time; NULL for none */
    void *progress_ctx;
} tb_analysis_options;

tb_analysis_options tb_analysis_default_options(void);

/* The exit statuses of tbkit's host tools, worst last; an analysis ends
 * in one of them. */
enum tb_status {
    TB_STATUS_OK = 0,      /* every column fitted */
    TB_STATUS_FIT = 1,     /* a fit (or a run-length analysis) failed */
    TB_STATUS_INPUT = 2,   /* a run could not be read, a column named in the
                              options is not in it, or nothing to fit */
};

/* One fitted column and everything known around it.  Pointers are owned
 * by the analysis (or the run) and live as long as they do. */
typedef struct tb_analysed_column {
    const tb_run *run;
    const char *source;             /* tb_run_source(run) */
    size_t index;                   /* of the column in the run */
    const tb_column *column;
    const double *t, *y;            /* the n points of the window fitted,
                                       ambient subtracted */
    size_t n;
    size_t startup;                 /* start-up samples left out before
                                       the window (from NaN only) */
    double ops_per_s;               /* of its run; NaN: no work counter */
    tb_estimate ops;                /* the same with its interval
                                       (tb_work_rate_estimate()) */
    tb_estimate ops_sustained;      /* the same over the window's last
                                       third: the rate kept once warm */
    const tb_run_metrics *metrics;  /* its run's over the window (the
                                       heating part with .cooling); NULL
                                       when they could not be computed */
    const tb_sensor_metrics *sensor;/* its column's there; NULL unless °C */
    double limit;                   /* °C: .trip, else the zone's lowest
                                       passive trip; NaN without either */
    double above_limit_s;           /* s of the window above it */
    double throttled_since;         /* s of the run; NaN: not throttled */
    const char *throttled_by;       /* the column that changed, or NULL */
    const tb_fit *fit;              /* NULL when the fit failed; with shared
                                       τ one fit serves every column */
    size_t series;                  /* this column's series of fit */
    const char *error;              /* why the fit failed, or NULL */
    double settle;                  /* s until the fit stays within the
                                       tolerance of T∞; NaN without a fit */
    const tb_run_length *run_length;/* when asked and it could be found */
    const tb_thermal *thermal;      /* its network, when a power was given
                                       and it could be found; else NULL */
    const tb_sustainable *sustainable; /* with a trip point; else NULL */
    const char *part;               /* with .cooling: "heating" or
                                       "cooling"; else NULL */
    const tb_spectrum *spectrum;    /* with .spectrum and a network */
} tb_analysed_column;

/* The time (s) a run's load ended: the first 0 of its benchmark_running
 * column (tb-record --cooldown).  0, or -1 when it has none. */
int tb_run_load_end(const tb_run *run, double *t);

typedef struct tb_analysis tb_analysis;

/*
 * Analyse the NRUNS runs (not owned; they must outlive the analysis):
 * choose each run's columns, cut the window, subtract the ambient, work
 * out operations per second and whether the run throttled, fit (flagging
 * TB_FIT_THROTTLED), and the settle time and run length when asked.
 * Problems with the runs do not stop it: each is a message (see
 * tb_analysis_message()) and raises tb_analysis_status(); what could be
 * fitted is there.  Returns NULL with a message in ERR only for options
 * that contradict each other, or when memory runs out.
 */
tb_analysis *tb_analyse_runs(const tb_run *const *runs, size_t nruns,
                             const tb_analysis_options *opt,
                             char *err, size_t errlen);

/* As tb_analyse_runs() for the runs in the files PATHS ("-": standard
 * input), read with the default tb_read_options; a file that cannot be
 * read is a message and TB_STATUS_INPUT, and the others are analysed. */
tb_analysis *tb_analyse_paths(const char *const *paths, size_t npaths,
                              const tb_analysis_options *opt,
                              char *err, size_t errlen);

/* Release an analysis (and the runs tb_analyse_paths() read); NULL is
 * accepted. */
void tb_analysis_free(tb_analysis *a);

/* The worst status met (enum tb_status). */
int tb_analysis_status(const tb_analysis *a);

/* The fitted columns (and those whose fit failed), in the order of the
 * runs and of each run's columns; I out of range: NULL. */
size_t tb_analysis_ncolumns(const tb_analysis *a);
const tb_analysed_column *tb_analysis_column(const tb_analysis *a, size_t i);

/* The runs analysed, in the order given; tb_analyse_paths() gives NULL
 * for a file that could not be read. */
size_t tb_analysis_nruns(const tb_analysis *a);
const tb_run *tb_analysis_run(const tb_analysis *a, size_t i);

/* What the caller should tell the user, in order: the reader's warnings,
 * columns left out and why, failed fits.  One line each, without a
 * program name and without a newline ("warning: FILE:LINE: ...",
 * "note: ...", or an error naming the file and column). */
size_t tb_analysis_nmessages(const tb_analysis *a);
const char *tb_analysis_message(const tb_analysis *a, size_t i);

/* Column C's measured board as a device-tree thermal zone (a node of
 * thermal-zones, Documentation/devicetree/bindings/thermal/
 * thermal-zones.yaml): sustainable-power in mW, the power allocator's
 * passive trips (switch-on and desired, 2 °C hysteresis), the passive
 * polling in which the fastest fitted rise moves the zone 0.1 °C (10 ms
 * to 1 s), and a cooling map for the user to bind (&cpu_cooling,
 * &zone_sensor); comments give each number's source and interval.
 * tb_dts_write_begin() and _end() open and close thermal-zones around
 * the zones.  0; -1 with ERR when C has no sustainable power or
 * switch-on trip (tb_analysis_options' trip and switch_on). */
int tb_dts_write_begin(FILE *f);
int tb_dts_write_zone(FILE *f, const tb_analysed_column *c, char *err, size_t errlen);
int tb_dts_write_end(FILE *f);

/* ------------------------------------------------------------------ */
/* Results: tb-fit's CSV, written and read back                         */
/* ------------------------------------------------------------------ */

/*
 * One fitted column as a row of the results file (tb-fit --format csv),
 * format 2: the same fields whatever the order, so that files of any
 * --order can be concatenated (header once):
 *   format,file,column,unit,status,error,order,points,duration_s,rss,rmse,
 *   T_inf,T_inf_lo,T_inf_hi, then kJ,kJ_lo,kJ_hi,tauJ_s,tauJ_lo_s,tauJ_hi_s
 *   for J = 1..TB_FIT_MAX_ORDER (empty past the fit's order), then
 *   settle_s,ops_per_s,ops_lo_per_s,ops_hi_per_s,ci_method,ci_level,flags,
 *   meta (a reader takes files without ops_lo_per_s and ops_hi_per_s too).
 * T_inf, k, rmse are in UNIT (the column's: °C, W, Hz...), rss in UNIT²;
 * a failed fit is a row with status "failed", its error and no numbers;
 * meta holds the run's metadata as KEY=VALUE;... (%, ; and = written
 * %25, %3B, %3D), which tb-compare groups by without the run.  Format 1
 * (no format field; tauJ, tauJ_lo, tauJ_hi; the terms up to the largest
 * order) is read too.  Numbers not known are NaN (empty cells).
 */
#define TB_RESULTS_FORMAT 2

typedef struct tb_result {
    char *file;
    char *column;
    char *unit;           /* of T_inf, k, rmse; "" when unknown */
    int failed;           /* the fit failed: ERROR says why, no numbers */
    char *error;          /* NULL when it did not fail */
    int order;
    size_t points;
    double duration;      /* s */
    double rss;           /* unit² */
    double rmse;          /* unit */
    tb_estimate t_inf;
    tb_estimate k[TB_FIT_MAX_ORDER];
    tb_estimate tau[TB_FIT_MAX_ORDER];
    double settle;        /* s */
    double ops_per_s;
    double ops_lo, ops_hi; /* its interval, at CI_LEVEL; NaN unknown */
    /* measured, not fitted (tb_run_metrics over the window); NaN unknown */
    double peak, mean;    /* of the column, in its unit: °C columns only */
    double limit;         /* °C: --trip, else the zone's lowest passive trip */
    double above_limit_s; /* s above it */
    double throttled_share;  /* the run's most throttled cooling device's
                                share of the time above state 0 */
    tb_estimate ops_sustained;  /* operations/s over the last third */
    double energy_j;      /* of the run's first power column */
    double ops_per_j;     /* operations per joule of it */
    char *ci_method;      /* "hac", "covariance", "bootstrap"; NULL unknown */
    double ci_level;      /* of the intervals; NaN unknown */
    char *flags;          /* flag names "a;b", "" when none */
    char *meta;           /* the run's metadata, encoded; NULL unknown */
} tb_result;

/* The row of the analysed column C: its fit, or when the fit failed a
 * row that says so with C's error.  0, or -1 when memory runs out.
 * Release its strings with tb_result_clear(). */
int tb_result_from_column(const tb_analysed_column *c, tb_result *r);

/* The measured fields of R (peak to ops_per_j: what the run did under
 * its limits, not what was fitted) from C; its other fields untouched. */
void tb_result_measured(const tb_analysed_column *c, tb_result *r);

/* The value of the run's metadata KEY in R (its meta field), to free();
 * NULL when R has no such key or no metadata. */
char *tb_result_meta(const tb_result *r, const char *key);

/* How far R's T∞ lies beyond its data: T∞ minus the fitted curve at the
 * last point, from its terms and duration (in R's unit); NaN where R has
 * no fit. */
double tb_result_extrapolation(const tb_result *r);

/* Whether a group's mean or a verdict may rest on R: a fit that did not
 * fail and has no flag, or whose only flag is extrapolated and whose
 * extrapolation is at most TOLERANCE (the smallest change the comparison
 * counts: a run of 3 τ extrapolates by a few tenths of a °C, one of a
 * minute by degrees, with an interval that may miss). */
int tb_result_sound(const tb_result *r, double tolerance);
void tb_result_clear(tb_result *r);   /* NULL, or a zeroed row, is accepted */

/* The flags of a fit as "a;b" ("" when none) into BUF of SIZE bytes
 * (256 holds every flag); returns BUF. */
const char *tb_fit_flags_text(unsigned flags, char *buf, size_t size);

/* The header line of a results file and one row, in format 2 (every
 * order's fields: MAX_ORDER is no longer used and kept for the API);
 * numbers are written to full precision.  0, or -1 on a write error
 * (errno says which). */
int tb_results_write_header(FILE *f, int max_order);
int tb_results_write(FILE *f, const tb_result *r, int max_order);

/* S as one CSV field, as the results file writes its strings: quoted when
 * it holds a comma, a quote or a line end, with quotes doubled (RFC 4180).
 * A general helper for any CSV a program writes; NULL writes nothing. */
void tb_csv_write_string(FILE *f, const char *s);

/*
 * Read the rows of a results file (PATH, "-" for standard input), format
 * 1 or 2, and append them to *ROWS (grown with realloc; *N rows so far),
 * failed fits too (their FAILED set).  The header must hold file, column,
 * T_inf, T_inf_lo and T_inf_hi; every other field is optional and NaN
 * (or 0, "", NULL) when absent.  A format newer than TB_RESULTS_FORMAT is
 * refused.  0, or -1 with
 * "FILE:LINE: ..." in ERR; rows read before an error are kept.  Release
 * with tb_results_free().
 */
int tb_results_read(const char *path, tb_result **rows, size_t *n,
                    char *err, size_t errlen);
void tb_results_free(tb_result *rows, size_t n);   /* NULL is accepted */

/* As tb_results_read(), from an open stream; NAME is used in messages. */
int tb_results_read_stream(FILE *f, const char *name, tb_result **rows, size_t *n,
                           char *err, size_t errlen);

/* Whether the first line of the file at PATH is the header of a results
 * file: every field one of the results file's and the required ones
 * there.  0 also when the file cannot be read. */
int tb_results_is_results_file(const char *path);

/* The mean of X[0..N) and the half-width of its LEVEL confidence
 * interval (Student's t with N-1 degrees of freedom); NaN for N < 2. */
double tb_mean_ci(const double *x, size_t n, double level, double *half);

/* ------------------------------------------------------------------ */
/* Comparing groups of runs                                            */
/* ------------------------------------------------------------------ */

/* B's mean less A's: the difference, its LEVEL interval and Welch's
 * t-test of it (unequal variances, Welch-Satterthwaite degrees of
 * freedom), two-sided P. */
typedef struct tb_welch_result {
    double diff, lo, hi;
    double t, dof, p;
} tb_welch_result;

/* 0, or -1 when A or B has fewer than two values. */
int tb_welch_test(const double *a, size_t na, const double *b, size_t nb,
                  double level, tb_welch_result *r);

/* Holm's step-down adjustment of the N p-values P for multiple
 * comparisons, into ADJUSTED (which may be P).  0, or -1 when memory runs
 * out (ADJUSTED is then untouched). */
int tb_holm_adjust(const double *p, size_t n, double *adjusted);

/* A general strcmp() that orders runs of digits by their value, so that
 * kernel versions and numbered runs sort as a person expects: "5.4" <
 * "5.10" < "6.1", "run2" < "run10".  Neither may be NULL. */
int tb_natural_compare(const char *a, const char *b);

/* Of the N NAMES, the one WORD is most likely a slip for (a few edits:
 * a letter inserted, dropped, replaced or two swapped, up to a third of
 * its letters), for "did you mean"; NULL when none is that close or two
 * are equally close. */
const char *tb_closest_name(const char *word, const char *const *names, size_t n);

/* ------------------------------------------------------------------ */
/* Thermal networks and simulation                                     */
/* ------------------------------------------------------------------ */

/*
 * A linear thermal model as modes: under power P(t) the temperature is
 * T(t) = T0 + Σ mᵢ(t) with dmᵢ/dt = (gᵢ·P(t) − mᵢ)/τᵢ, mᵢ(0) = 0.  After a
 * step to constant power P from t = 0 that is the exponential model with
 * T∞ = T0 + P·Σ gᵢ and kᵢ = −P·gᵢ.
 */
typedef struct tb_modes {
    size_t n;
    double tau[TB_FIT_MAX_ORDER];   /* s, ascending */
    double gain[TB_FIT_MAX_ORDER];  /* K/W */
} tb_modes;

/* A Foster network: N parallel RᵢCᵢ pairs in series, power into its
 * top, ambient at its bottom: τᵢ = RᵢCᵢ, gᵢ = Rᵢ.  0, or -1 when an R or
 * C is not positive or N is out of 1..TB_FIT_MAX_ORDER. */
int tb_modes_from_foster(const double *r, const double *c, size_t n, tb_modes *m);

/* A Cauer ladder: capacitances Cᵢ to ambient at its N nodes, Rᵢ from node
 * i to node i+1 and the last to ambient, power into node 1 (where the
 * temperature is taken).  Its modes are the eigenvalues of C⁻¹G (τᵢ =
 * 1/λᵢ) with gains vᵢ₁²/(λᵢ C₁) for the eigenvectors of the symmetric
 * C^-½ G C^-½; Σ gᵢ = Σ Rᵢ.  0, or -1 as for tb_modes_from_foster(). */
int tb_modes_from_cauer(const double *r, const double *c, size_t n, tb_modes *m);

/* Advance the modes' state M (n values) by DT seconds at constant power P:
 * exact for a power held over the step. */
void tb_modes_step(const tb_modes *m, double *state, double p, double dt);

/* The Cauer ladder (as tb_modes_from_cauer() takes it) whose modes are M:
 * the inverse problem, solved by a Lanczos tridiagonalisation (with full
 * reorthogonalisation) of the modes' rates with the start vector their
 * gains give; stable for the up to TB_FIT_MAX_ORDER stages.  0, or -1 when
 * a gain or τ is not positive (a network with such a term is not passive
 * and has no ladder). */
int tb_cauer_from_modes(const tb_modes *m, double *r, double *c);

/* The same for N stages of time constants TAU and gains GAIN (positive,
 * any order) into R and C (room for N): returns the ladder's stages,
 * fewer than N when the modes are not all distinct to the Lanczos
 * process (a spectrum's neighbouring τ), or -1. */
ssize_t tb_cauer_ladder(const double *tau, const double *gain, size_t n, double *r, double *c);


/* ------------------------------------------------------------------ */
/* Identification: a model from several inputs to several sensors      */
/* ------------------------------------------------------------------ */

/*
 * Every sensor i follows
 *     Tᵢ(t) = Tₐ(t) + oᵢ + Σᵤ Σⱼ Gᵢᵤⱼ·xᵤⱼ(t) + Σⱼ sᵢⱼ·e^(−(t − t₀)/τⱼ)
 * where xᵤⱼ is input u (W, or a load as its proxy) through the first-order
 * mode j, τⱼ shared by every sensor and input, the input held between its
 * samples (the discretisation is then exact, however irregular the rows);
 * Gᵢᵤⱼ ≥ 0 (heat only heats).  The ambient Tₐ is a column of the run, or
 * 0; the offset oᵢ and the initial state's decay sᵢⱼ are each run's own.
 * The steady-state gain from input u to sensor i is Σⱼ Gᵢᵤⱼ (K/W).
 */
#define TB_IDENT_MAX_MODES TB_FIT_MAX_ORDER
#define TB_IDENT_MAX_INPUTS 16
#define TB_IDENT_MAX_SENSORS 32

/* One run's samples: N rows at times T (s, ascending); each input's value
 * at each row (NaN: not sampled, the last value holds), each sensor's (NaN:
 * not sampled), the ambient (°C, NULL for none).  Not owned. */
typedef struct tb_ident_run {
    const char *name;
    size_t n;
    const double *t;
    const double *const *u;
    const double *const *y;
    const double *ambient;
} tb_ident_run;

/* The rows of the columns named INPUTS, SENSORS and AMBIENT (NULL for
 * none) of RUN, as tb_ident_run takes them: every row where one of them
 * has a value, from FROM to TO s.  Each input is given for the interval
 * from its row to the next: its last value before the row, carried over
 * the whole run, or, for an input of bit u of AVERAGED (a mean over the
 * interval before its row), its next value.  Allocates the arrays into
 * *OUT (free with tb_ident_run_clear()).  0, or -1 with a message naming
 * the run and the column. */
int tb_ident_run_extract(const tb_run *run, const char *const *inputs, size_t ninputs,
                         const char *const *sensors, size_t nsensors, const char *ambient,
                         unsigned averaged, double from, double to, tb_ident_run *out,
                         char *err, size_t errlen);
void tb_ident_run_clear(tb_ident_run *r);   /* NULL is accepted */

typedef struct tb_ident_options {
    int modes;          /* 1..TB_IDENT_MAX_MODES, or 0 (the default): chosen
                           from the data, up to max_modes */
    int max_modes;      /* default 3 */
    double tau_min;     /* the τ search range in s; 0 derives it: twice the */
    double tau_max;     /* median period, and 3x the longest run */
    double level;       /* of the intervals; default 0.95 */
} tb_ident_options;

tb_ident_options tb_ident_default_options(void);

/* Why a model should not be trusted as it is. */
enum tb_ident_flag {
    TB_IDENT_TAU_AT_BOUND = 1 << 0,  /* a τ at the edge of the search range */
    TB_IDENT_MODE_UNUSED = 1 << 1,   /* a mode with every gain 0, or two τ
                                        merged: fewer modes carry the data */
    TB_IDENT_SLOW_MODE = 1 << 2,     /* a τ over a third of the longest run */
    TB_IDENT_NO_CI = 1 << 3,         /* the covariance is singular */
    TB_IDENT_NO_PREDICTION = 1 << 4, /* held-out runs predicted far worse
                                        (over 1.5x) than the fit's rmse */
    TB_IDENT_LACK_OF_FIT = 1 << 5,   /* a sensor's residuals have structure
                                        (lack_of_fit says which) */
};
#define TB_IDENT_FLAG_LAST TB_IDENT_LACK_OF_FIT

/* "tau_at_bound", … ; and one sentence saying what it means. */
const char *tb_ident_flag_name(unsigned flag);
const char *tb_ident_flag_meaning(unsigned flag);

/* How the number of modes was chosen. */
enum tb_ident_choice {
    TB_IDENT_GIVEN = 0,   /* by the caller */
    TB_IDENT_HELD_OUT,    /* each run predicted by the model of the others */
    TB_IDENT_AICC,        /* one run: the corrected Akaike criterion */
};

typedef struct tb_ident_model {
    size_t ninputs, nsensors, nmodes;
    char **inputs, **sensors;        /* the names */
    tb_estimate tau[TB_IDENT_MAX_MODES];   /* s, ascending */
    tb_estimate *gain;     /* [(i·ninputs + u)·nmodes + j]: K/W of mode j */
    tb_estimate *steady;   /* [i·ninputs + u]: Σⱼ Gᵢᵤⱼ, K/W */
    double *rest;          /* per sensor, °C: the temperature with every
                              input 0, settled (the runs' offsets' mean),
                              above the ambient when above_ambient */
    int above_ambient;     /* the runs' ambient column was taken off */
    unsigned averaged;     /* bit u: input u's value at a row is its mean
                              over the interval before the row (a power
                              from an energy counter), not a level held
                              from the row on */
    double *rmse;          /* per sensor, °C, over the runs fitted (NaN:
                              not known) */
    int *lack_of_fit;      /* per sensor: its residuals have structure */
    tb_estimate *lag;      /* per sensor, s: how far it lags the model's
                              prediction (its residuals against the
                              prediction's slope; a slow or filtered
                              sensor), at the model's level; NaN unknown */
    double *curvature_t;   /* per sensor: the t statistic of its residuals
                              against the square of the prediction's swing
                              (> 4: it rises faster than linearly with its
                              inputs, as under a leakage power that grows
                              with temperature; < −4: slower); NaN unknown */
    size_t nruns, npoints; /* runs, and sensor values fitted */
    double duration;       /* of the longest run, s */
    double level;
    unsigned flags;
    enum tb_ident_choice choice;
    /* per number of modes m (index m − 1) tried: the criteria, NaN when
     * not computed; the held-out one is an rmse (°C) */
    int tried;
    double aicc[TB_IDENT_MAX_MODES], held_out[TB_IDENT_MAX_MODES];
} tb_ident_model;

/*
 * Identify the model of NSENSORS sensors driven by NINPUTS inputs from
 * the NRUNS runs (their arrays as INPUTS and SENSORS name them).  τ by
 * variable projection from the best basins of a grid over the search
 * range; gains by non-negative least squares; intervals from the joint
 * covariance of log τ and the gains, each sensor its own variance: the
 * largest of the plain one and two sandwiches, around the Newey–West sum
 * of the scores (Bartlett, lags by Andrews' AR(1) plug-in) and around the
 * same of the scores prewhitened by the residuals' AR(1), which hold
 * under autocorrelated noise.  0, or -1 with a one-line message (a constant input, more
 * modes than the rows carry, …).  Release with tb_ident_model_clear().
 */
int tb_ident_fit(const tb_ident_run *runs, size_t nruns, const char *const *inputs,
                 size_t ninputs, const char *const *sensors, size_t nsensors,
                 const tb_ident_options *opt, tb_ident_model *m, char *err, size_t errlen);
void tb_ident_model_clear(tb_ident_model *m);   /* NULL, or a zeroed one */

/* Model M's prediction of RUN from its inputs: into PRED (nsensors arrays
 * of run->n), the offset and initial state fitted on the run's own
 * values (1 + modes numbers per sensor), the rest from the inputs alone.
 * RMSE and WORST (nsensors each, NULL for none) get the error over the
 * sensor's values.  0, or -1. */
int tb_ident_predict(const tb_ident_model *m, const tb_ident_run *run, double **pred,
                     double *rmse, double *worst, char *err, size_t errlen);

/* The model as continuous and discrete (sampled every DT s, the input
 * held) state space: x' = A x + B u, y = C x + D u, one state per input
 * and mode (the input u through mode j is state u·nmodes + j).  A, B, C, D
 * as the model's dimensions say, row-major, D zero; Φ and Γ the discrete
 * A and B.  Any pointer may be NULL. */
void tb_ident_state_space(const tb_ident_model *m, double dt, double *A, double *B, double *C,
                          double *D, double *Phi, double *Gamma);

/* The model file (tb-ident -o, tb-sim --model): the gains of every
 * sensor, input and mode with their τ, as CSV; its writer and reader.
 * The reader fills the values (intervals when present) and the names.
 * 0, or -1 with a message naming the file and line. */
int tb_ident_model_write(FILE *f, const tb_ident_model *m);
int tb_ident_model_read(const char *path, tb_ident_model *m, char *err, size_t errlen);

/* Advance the model's state X (ninputs·nmodes values, 0 at rest) by DT s
 * with the inputs U held: exact. */
void tb_ident_advance(const tb_ident_model *m, double *x, const double *u, double dt);

/* The sensors' temperatures (°C) into Y from the state X, with AMBIENT
 * added when the model is above the ambient. */
void tb_ident_output(const tb_ident_model *m, const double *x, double ambient, double *y);

/* A schedule of repeating windows: in each window of a frame the inputs
 * hold the values it gives (0 for an input it does not name). */
#define TB_SCHEDULE_MAX_WINDOWS 64
typedef struct tb_schedule {
    char name[64];
    double frame;                                 /* s */
    size_t nwindows;
    double length[TB_SCHEDULE_MAX_WINDOWS];       /* s, adding up to frame */
    double input[TB_SCHEDULE_MAX_WINDOWS][TB_IDENT_MAX_INPUTS];
} tb_schedule;

/* Parse "[NAME:] frame 100ms; 40ms P0=4 P1=0.5; 60ms P1=4" for model M's
 * inputs: windows in order, each a duration and INPUT=VALUE pairs (the
 * input's unit, W written or not).  0, or -1 with a message (an input the
 * model has not, windows that do not fill the frame, …). */
int tb_schedule_parse(const char *spec, const tb_ident_model *m, tb_schedule *s, char *err,
                      size_t errlen);

/* The input values of schedule S at T s (into U), and the time of its
 * next change after T. */
double tb_schedule_inputs(const tb_schedule *s, size_t ninputs, double t, double *u);

/* A profile: values over time from a small CSV file, as tb-sim's
 * --power-csv and --inputs-csv give them.  Read with libcsv: lines that
 * start with '#' skipped, an optional header (a first row whose first
 * cell is not a number: "time_s,NAME,..."), then rows of as many numbers,
 * the time first and in order, each value within ±TB_POWER_MAX.  Row I's
 * value of column J is v[i * ncols + j]. */
typedef struct tb_profile {
    char *time_name;   /* the header's first cell; NULL without a header */
    char **names;      /* NCOLS names; NULL without a header */
    size_t ncols;      /* value columns, the time not counted */
    double *t, *v;
    size_t n;          /* rows */
} tb_profile;

/* 0, or -1 with "FILE:LINE: message" (a cell that is not a number, a
 * time out of order, a row of another length).  A last row without its
 * end of line is read: such files are written by hand. */
int tb_profile_read(const char *path, tb_profile *p, char *err, size_t errlen);
void tb_profile_free(tb_profile *p);

/* The periodic steady state of model M under schedule S: the state at the
 * start of a frame is x = (I − Φ)⁻¹·b for the frame's map x → Φx + b,
 * computed directly (no settling simulated); each sensor's peak over the
 * frame (its time in the frame), mean and trough, at AMBIENT. */
typedef struct tb_periodic {
    double peak[TB_IDENT_MAX_SENSORS], peak_at[TB_IDENT_MAX_SENSORS];
    double mean[TB_IDENT_MAX_SENSORS], trough[TB_IDENT_MAX_SENSORS];
    double settle;   /* s to within 1 % of the cycle from rest: ln 100 of the slowest τ */
} tb_periodic;

int tb_ident_periodic(const tb_ident_model *m, const tb_schedule *s, double ambient,
                      tb_periodic *out);

/* ------------------------------------------------------------------ */
/* The kernel's thermal governors, in closed loop                      */
/* ------------------------------------------------------------------ */

/*
 * step_wise and power_allocator as Linux 6.8 documents and runs them
 * (Documentation/driver-api/thermal/power_allocator.rst, the thermal sysfs
 * ABI), with the 2025 fix that honours the cooling devices' weights in the
 * budget's split: the kernel's units and integer arithmetic (m°C, mW, the
 * allocator's 10-bit fixed point), so that a simulated zone takes the
 * decisions the board's would; or, for the trips' hysteresis and
 * step_wise, the rules of a later kernel (tb_kernel_rules).  A cooling
 * device is cpufreq's: state 0 the fastest operating point, state s the
 * s-th slower.
 */

/* An operating point: a frequency, the power one busy CPU draws at it
 * above idle, and the work rate of one busy CPU. */
typedef struct tb_opp {
    double khz;
    double power_w;
    double ops_per_s;
} tb_opp;

/* A cooling device the governor drives: NCPUS CPUs sharing a frequency,
 * its operating points by ascending frequency, its weight (the device
 * tree's contribution; 0 for all: equal). */
typedef struct tb_cooling_device {
    const tb_opp *opp;
    size_t nopp;
    int ncpus;
    int weight;
} tb_cooling_device;

typedef enum tb_governor_kind { TB_GOV_STEP_WISE, TB_GOV_POWER_ALLOCATOR } tb_governor_kind;

/* Whose rules: mainline Linux changed how trips are crossed and how
 * step_wise lets go.  Up to 6.9 (6.8's, the default): a trip is crossed
 * at its temperature both ways, hysteresis unused; step_wise, falling
 * above a trip, holds its state, and falling below it steps one state
 * down; the governors count the zone's passive polling.  From 6.10: once
 * crossed, a trip is left only below its temperature less its
 * hysteresis (step_wise throttles against that threshold), the core
 * polls passively while any passive trip is crossed, and step_wise,
 * falling below, lets go at once.  From 6.18 (and stable updates that
 * took it): step_wise, falling above a trip, steps one state down, but
 * not to 0. */
typedef enum tb_kernel_rules { TB_RULES_6_8, TB_RULES_6_10, TB_RULES_6_18 } tb_kernel_rules;

#define TB_GOV_MAX_TRIPS 8
#define TB_GOV_MAX_DEVICES 4

/* A thermal zone's policy: its governor, passive trips (ascending: for the
 * allocator the first switches it on, the last is the temperature it
 * controls for), polling delays (polling-delay-passive, polling-delay) and
 * the allocator's tunables as sysfs takes them: sustainable power (0: the
 * kernel's estimate), k_po, k_pu, k_i, k_d raw (fixed point, 1024 = 1;
 * negative: the kernel's defaults from the sustainable power) and the
 * integral cutoff. */
typedef struct tb_zone_policy {
    tb_governor_kind governor;
    size_t ntrips;
    double trip_c[TB_GOV_MAX_TRIPS];
    double poll_passive_s, poll_idle_s;
    double sustainable_w;
    long k_po, k_pu, k_i, k_d;
    double integral_cutoff_c;
    double hyst_c[TB_GOV_MAX_TRIPS];   /* each trip's hysteresis (default 0) */
    tb_kernel_rules rules;
} tb_zone_policy;

/* Fill P with a zone's usual policy: GOVERNOR, no trips, 100 ms passive
 * and 1 s idle polling, the allocator's defaults. */
void tb_zone_policy_default(tb_zone_policy *p, tb_governor_kind governor);

/* What one poll did (the allocator's terms are 0 under step_wise). */
typedef struct tb_governor_trace {
    double err_c;                    /* desired − temperature */
    double p_w, i_w, d_w;            /* the PID's terms */
    double budget_w;                 /* sustainable + P + I + D, clamped */
    double requested_w[TB_GOV_MAX_DEVICES], granted_w[TB_GOV_MAX_DEVICES];
    int state[TB_GOV_MAX_DEVICES];   /* each device's state after the poll */
    double next_poll_s;              /* the delay to the next poll */
} tb_governor_trace;

/* A zone and its devices, between polls. */
typedef struct tb_governor {
    tb_zone_policy policy;
    size_t ndev;
    tb_cooling_device dev[TB_GOV_MAX_DEVICES];
    long temp_mc, last_temp_mc;      /* the last two readings */
    int passive;                     /* instances throttling (polls passively) */
    int state[TB_GOV_MAX_DEVICES];   /* applied */
    int target[TB_GOV_MAX_TRIPS][TB_GOV_MAX_DEVICES];   /* step_wise's, -1: none */
    int initialized[TB_GOV_MAX_TRIPS][TB_GOV_MAX_DEVICES];
    int crossed[TB_GOV_MAX_TRIPS];   /* from 6.10: the core's trips crossed */
    int last_load[TB_GOV_MAX_DEVICES];   /* Σ per-CPU load, % */
    long long err_integral;          /* the allocator's, fixed point */
    long prev_err;
    unsigned long sustainable_mw;    /* in use */
    long k_po, k_pu, k_i, k_d;       /* in use */
} tb_governor;

/* Start G on policy P over devices DEV[0..NDEV): every state 0, nothing
 * read yet.  0; -1 with ERR for a policy the kernel would refuse (no
 * trip, trips not ascending, no operating point, a power not positive,
 * too many devices or trips). */
int tb_governor_init(tb_governor *g, const tb_zone_policy *p, const tb_cooling_device *dev,
                     size_t ndev, char *err, size_t errlen);

/* Take up policy P in G as the kernel takes up what is written to a
 * zone's sysfs files: another governor starts from scratch with the
 * devices where they are; the allocator bound, or given a new
 * sustainable power, estimates k_po, k_pu and k_i again at its next poll
 * (over any written before, as Linux 6.8 does); constants (>= 0) written
 * otherwise are used from the next poll on.  0; -1 with ERR, G unchanged, for a policy the kernel would
 * refuse. */
int tb_governor_update(tb_governor *g, const tb_zone_policy *p, char *err, size_t errlen);

/* The allocator's sustainable power and constants for policy P over
 * devices DEV[0..NDEV), as the kernel shows them in the zone's files:
 * the power given, or estimated from the devices at their slowest
 * points; each k given, or estimated from it (tb_ipa_constants_compute()).
 * 0, or -1 when they cannot be (no trip, a threshold not positive). */
int tb_governor_constants(const tb_zone_policy *p, const tb_cooling_device *dev, size_t ndev,
                          tb_ipa_constants *k);

/* One poll of the zone at TEMP_C, device k's CPUs busy LOAD[k] of the time
 * (0 to 1, each) since the last: the governor's decision into G (its
 * states) and TR (may be NULL). */
void tb_governor_poll(tb_governor *g, double temp_c, const double *load, tb_governor_trace *tr);

/* The power (W) device DEV draws at STATE with its CPUs busy LOAD of the
 * time, above idle; its work rate (operations/s) into *OPS. */
double tb_cooling_power(const tb_cooling_device *dev, int state, double load, double *ops);

/* Parse a zone's policy: "[NAME:] GOVERNOR trips=T1[,T2...] [sustainable=W]
 * [k_po=N] [k_pu=N] [k_i=N] [k_d=N] [cutoff=DEG] [passive=TIME]
 * [idle=TIME] [hyst=DEG[,DEG...]] [kernel=X.Y]", words apart (one hyst for
 * every trip, or one each; kernel: the mainline release whose rules) ("power_allocator trips=60,70 sustainable=2W").
 * NAME (or the spec itself) into NAME (NAMELEN bytes).  0, or -1 with the
 * word at fault in ERR. */
int tb_zone_policy_parse(const char *spec, tb_zone_policy *p, char *name, size_t namelen,
                         char *err, size_t errlen);

/* An operating-point table (tb-fit --opp-table writes one, from a sweep
 * of frequencies): a cooling device's CPUs and, for each frequency, the
 * power its CPUs draw above idle all busy and their work rate, with
 * intervals; as CSV,
 *   device,cpus,khz,power_W,power_lo,power_hi,ops_per_s,ops_lo,ops_hi,runs
 * a row per frequency, rising. */
#define TB_OPP_MAX 32
typedef struct tb_opp_table {
    char *device;                  /* owned */
    int cpus;
    size_t n;
    tb_opp opp[TB_OPP_MAX];        /* per CPU, by rising frequency */
    tb_estimate power[TB_OPP_MAX], ops[TB_OPP_MAX];   /* the device's, all busy */
    double runs[TB_OPP_MAX];       /* runs measured at each (NaN: not said) */
} tb_opp_table;

/* Read device DEVICE's table (NULL: the first device's) from PATH.  0, or
 * -1 with "FILE:LINE: ..." in ERR (frequencies not rising, a power or rate
 * not positive, CPUs differing between rows, no such device). */
int tb_opp_table_read(const char *path, const char *device, tb_opp_table *t, char *err,
                      size_t errlen);

/* Every device's table from PATH into T (room for MAX), in the order the
 * devices first appear: how many, or -1 with ERR as above (or more
 * devices than MAX). */
ssize_t tb_opp_table_read_all(const char *path, tb_opp_table *t, size_t max, char *err,
                              size_t errlen);
void tb_opp_table_clear(tb_opp_table *t);

/* The table of a sweep: runs RUNS[0..N), each at the frequency (kHz) of
 * its "# KEY:" line, each measured whole (tb_run_metrics_compute()): per
 * frequency the mean over its runs of the first power column's mean less
 * IDLE_W and of the work rate, with Student-t LEVEL intervals (one run:
 * no interval on its power, its work rate's own); device DEVICE of CPUS
 * CPUs.  0, or -1 with ERR naming the run at fault (no such line, no
 * power above idle, no work counter). */
int tb_opp_table_from_runs(const tb_run *const *runs, size_t n, const char *key, const char *device,
                           int cpus, double idle_w, double level, tb_opp_table *t, char *err,
                           size_t errlen);
int tb_opp_table_write_header(FILE *f);
int tb_opp_table_write(FILE *f, const tb_opp_table *t);

/* A closed loop: a board whose zone follows MODES (K/W, from the power
 * above AMBIENT_C) under the power IDLE_W plus each device's at its state
 * and load (tb_cooling_power()), the governor polling the zone, for
 * DURATION_S; a sample every PERIOD_S.  Stepped exactly between events
 * (the power is constant between polls).
 *
 * Or, with MODEL, a board of several inputs and sensors (tb-ident's):
 * sensor ZONE is the zone's, each input u holds HELD[u] (NULL: 0) from the
 * start, and to that each cooling device k adds its power into input
 * DRIVE[k] (IDLE_W into DRIVE[0]'s); AMBIENT_C is the model's ambient
 * (tb_ident_output()); MODES is then not read.  Either board starts at
 * rest: every mode's rise 0. */
typedef struct tb_closed_loop {
    tb_modes modes;
    const tb_ident_model *model;
    size_t drive[TB_GOV_MAX_DEVICES], zone;
    const double *held;
    double ambient_c, idle_w;
    double limit_c;                    /* for the time above it; NaN: the lowest trip */
    double load[TB_GOV_MAX_DEVICES];   /* each device's busy share, 0 to 1 */
    const tb_schedule *schedule;       /* or the devices' busy share over time
                                          (tb_load_schedule_parse()), each
                                          poll seeing its mean since the
                                          last; NULL: .load */
    double duration_s, period_s;
} tb_closed_loop;

/* Parse a schedule of windows of the CPUs' busy share, "[NAME:] frame
 * 100ms; 40ms load=1; 60ms load=0" (tb_schedule_parse() with the one
 * input "load", each value 0 to 1).  0, or -1 with ERR. */
int tb_load_schedule_parse(const char *spec, tb_schedule *s, char *err, size_t errlen);

typedef struct tb_loop_sample {
    double t, temp_c, power_w, work;   /* work: operations done so far */
    int state[TB_GOV_MAX_DEVICES];
    const double *sensor_c;            /* with a model: each sensor's °C; else NULL */
    const double *input;               /* with a model: each input's value; else NULL */
} tb_loop_sample;

/* What the loop did: the zone's peak and time-weighted mean, the time
 * above its lowest trip, the share of time any device was throttled
 * (state above 0), the work rate overall and over the last third, the
 * energy, and the polls made. */
typedef struct tb_loop_summary {
    double peak_c, mean_c, limit_c, above_limit_s, throttled_share;
    double ops_per_s, ops_sustained_per_s, energy_j;
    size_t polls;
} tb_loop_summary;

/* Run loop C under governor G (started by tb_governor_init(), at rest: the
 * board at ambient), calling ON_SAMPLE (may be NULL) with each sample; a
 * nonzero return from it stops the run with that value.  0, the
 * callback's, or -1 for a loop that cannot run (a period or duration not
 * positive). */
int tb_closed_loop_run(const tb_closed_loop *c, tb_governor *g,
                       int (*on_sample)(const tb_loop_sample *, void *), void *ctx,
                       tb_loop_summary *sum);

#ifdef __cplusplus
}
#endif

#endif /* TBFIT_H */
