/*
 * sim_model.h -- tb-sim's identified models (--model): each input's
 * profile, a run of every sensor, and the periodic steady state of
 * schedules ranked by their peak.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_SIM_MODEL_H
#define TB_SIM_MODEL_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "output_file.h"
#include "tbfit.h"

/* How one input moves over time (--input NAME=PROFILE). */
struct input_profile {
    const char *spec;            /* as given, NAME=PROFILE */
    size_t input;                /* the model's input it drives */
    enum { PROFILE_CONSTANT, PROFILE_PRBS, PROFILE_CSV } kind;
    double value;                /* constant */
    double low, high, bit;       /* prbs: levels and bit length, s */
    uint64_t seed;
    double *t, *v;               /* csv: times and values, each held */
    size_t n;
};

/* What a model run or table needs besides the model. */
struct model_settings {
    const char *path;            /* --model */
    struct input_profile profile[TB_IDENT_MAX_INPUTS];
    size_t nprofiles;
    const char *schedule[16];    /* --schedule, as given */
    size_t nschedules;
    double trip;                 /* --trip, °C; NaN: none */
    const char *leakage;         /* --leakage, as given, or NULL */
    size_t leak_input;           /* the input it adds to (model_bind()) */
    double leak_w, leak_per_k;   /* W·e^(PER_K·ΔT), ΔT the hottest
                                    sensor's rise over its rest */
    int owned_specs;             /* the profiles' specs were made by
                                    model_read_inputs_csv(): free them */
};

/* --inputs-csv FILE: "time_s,NAME,..." and a row of values at each time,
 * each held until the next: a csv profile for each input named.  0, or
 * -1 with a message naming the file and line. */
int model_read_inputs_csv(struct model_settings *ms, const char *path, char *err, size_t errlen);

/* The next value of AR(1) noise of coefficient AR and standard deviation
 * SD after LAST; the first (LAST NaN) from the stationary distribution, so
 * that the deviation is SD from the first row on. */
double sim_ar_noise(double last, double ar, double sd, gsl_rng *rng);

/* "time_s,value" lines (a header and '#' lines skipped), in time order,
 * into *T and *V (*N of them; free() both).  0, or -1 with a message. */
int sim_read_profile_csv(const char *path, double **t, double **v, size_t *n, char *err,
                         size_t errlen);

/* Parse --input's NAME=PROFILE (NAME resolved later against the model):
 * VALUE, prbs:LOW,HIGH,BIT or csv:FILE.  0, or -1 with a message. */
int input_profile_parse(struct input_profile *p, const char *spec, char *err, size_t errlen);
void input_profile_free(struct input_profile *p);

/* Parse --leakage's NAME,W,PER_K into MS (NAME resolved by model_bind()).
 * 0, or -1 with a message. */
int leakage_parse(struct model_settings *ms, const char *spec, char *err, size_t errlen);

/* Release every profile of MS. */
void model_settings_free(struct model_settings *ms);

/* The model's profiles bound: each --input's NAME an input of M; SEED
 * seeds the random ones (each input its own sequence).  0, or -1. */
int model_bind(struct model_settings *ms, const tb_ident_model *m, unsigned long seed,
               char *err, size_t errlen);

/* A run's file for -o PATH (standard output for NULL or "-"), written
 * whole or not at all, its first line written; NULL, said, when it
 * cannot be made.  Then its end: an exit status, said when not 0. */
FILE *sim_run_begin(struct tb_output_file *out, const char *path);
int sim_run_end(struct tb_output_file *out, FILE *f);

/* The noise, quantum and sampling of a run (tb-sim's run options). */
struct run_settings {
    double duration, period, ambient, noise, ar, quantum;
    const char *output;
    unsigned long seed;
};

/* Write a run of model M driven by the profiles, or by schedule S (NULL:
 * the profiles): the inputs as columns (each row the input's mean until
 * the next), every sensor, the ambient.  An exit status. */
int model_write_run(const struct model_settings *ms, const tb_ident_model *m,
                    const tb_schedule *s, const struct run_settings *rs, gsl_rng *rng);

/* The periodic steady state of every schedule, ranked by its hottest
 * sensor's peak, with the margin to --trip.  An exit status. */
int model_print_steady(const struct model_settings *ms, const tb_ident_model *m,
                       const tb_schedule *s, size_t n, double ambient);

/* The index of NAME (OPTION's) among the model's N NAMES (WHAT: "input"),
 * or of the only one for NULL; -1, said on stderr. */
ssize_t sim_model_index(const char *option, const char *name, char *const *names, size_t n,
                        const char *what);

#endif
