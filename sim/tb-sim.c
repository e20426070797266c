/*
 * tb-sim -- simulate a testbed's temperatures with known truth: write a
 * run in the thermobench format, with the imperfections of real ones, or
 * keep a fake sysfs tree up to date for tb-record to record.
 *
 * The model is the thermal network's modes (libtbfit's tb_modes): given
 * as exponential terms, or as a Foster or Cauer RC network, and driven by
 * a power profile (a step, an on/off pattern, or a CSV of power over
 * time) held over each sampling step, which is exact for such a profile.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "exit_status.h"
#include "output_file.h"
#include "sim_governor.h"
#include "sim_model.h"
#include "sim_sysfs.h"
#include "tbfit.h"

#define MAX_SENSORS 8

struct settings {
    /* the model */
    int have_tinf, nterms, nfoster, ncauer;
    double tinf, term_k[TB_FIT_MAX_ORDER], term_tau[TB_FIT_MAX_ORDER];
    double net_r[TB_FIT_MAX_ORDER], net_c[TB_FIT_MAX_ORDER];
    double power, ambient;
    const char *network, *network_column;   /* --network FILE, --network-column */
    int steady;                  /* --steady: the periodic steady state */
    struct model_settings model; /* --model, its --input and --schedule */
    double on_s, off_s;          /* --power-onoff */
    const char *power_csv;
    double *pt, *pw;             /* the CSV's times and powers */
    size_t np;
    /* the run */
    double duration, period_ms;
    const char *output;
    unsigned long seed;
    int sensors;
    double quantum, noise, ar, jitter_ms, drift_per_h, ambient_every, work_rate, dropout;
    /* live */
    const char *sysfs;
    double speed;
    const char *metas[16];       /* --meta KEY=VALUE */
    int nmetas;
    const char *not_for_model;   /* the last option given that --model's runs do not take */
    struct governor_settings gov;   /* --policy, --opp, --load, --idle-power, --limit */
    double network_idle;         /* the --network file's idle power, W; NaN */
};

static const char usage_text[] =
    "Usage: tb-sim [OPTION]...\n"
    "Simulate a testbed's temperatures with known truth: write a run in the\n"
    "thermobench format (to -o FILE or standard output), or with --sysfs keep\n"
    "a fake sysfs tree up to date for tb-record --sysfs-root.\n"
    "\n"
    "Model (terms, or a network with a power):\n"
    "      --tinf=DEG         T∞ of the exponential model\n"
    "      --term=K,TAU       a term k·e^(−t/τ), k in °C, τ in s; up to 4\n"
    "      --foster=R,C       a Foster stage, R in K/W, C in J/K; up to 4\n"
    "      --cauer=R,C        a Cauer stage, from the power's node down\n"
    "      --network=FILE     the Foster stages of a measured board, from\n"
    "                         tb-fit --network (its first column's)\n"
    "      --network-column=NAME  that column's stages instead\n"
    "      --power=W          power of a network (default 5), or of the terms'\n"
    "                         step (default 1: the terms are per watt then)\n"
    "      --power-onoff=ON,OFF  the power on for ON s, off for OFF s, again\n"
    "      --power-csv=FILE   power from \"time_s,watts\" lines, each held\n"
    "      --ambient=DEG      ambient temperature of a network (default 25)\n"
    "      --steady           with --power-onoff: print the periodic steady\n"
    "                         state (peak, trough, mean) instead of a run\n"
    "\n"
    "Identified model (tb-ident -o), several inputs and sensors:\n"
    "      --model=FILE       the model; the run has a column per input and\n"
    "                         per sensor (and the ambient, at --ambient)\n"
    "      --input=NAME=PROFILE  how input NAME moves: a value (2.5, 2.5W),\n"
    "                         prbs:LOW,HIGH,BIT (a random on/off sequence of\n"
    "                         BIT-long bits, by --seed) or csv:FILE\n"
    "                         (\"time_s,value\" lines, each held); default 0\n"
    "      --inputs-csv=FILE  every input from one file: \"time_s,NAME,...\" and\n"
    "                         a row of values at each time, each held\n"
    "      --schedule=SPEC    repeating windows instead: \"[NAME:] frame 100ms;\n"
    "                         40ms P0=4 P1=0.5; 60ms P1=4\" (an input not named\n"
    "                         is 0 in that window; the windows fill the frame)\n"
    "      --steady           with --schedule (one or several): the periodic\n"
    "                         steady state of each, ranked by its peak\n"
    "      --trip=DEG         with --steady: the margin of each peak to DEG\n"
    "      --leakage=NAME,W,PER_K  a run with a power W·e^(PER_K·ΔT) added to\n"
    "                         input NAME, ΔT the hottest sensor's rise, that\n"
    "                         its column does not show (a model's limit)\n"
    "\n"
    "Run:\n"
    "      --duration=TIME    how long (default 1h; 90, 90s, 5min, 1h)\n"
    "  -p, --period=MS        sampling period (default 1000)\n"
    "  -o, --output=FILE      the run (default standard output)\n"
    "      --seed=N           seed of every random draw (default 1)\n"
    "      --sensors=N        sensors sharing the τ, each with its own T∞ and k\n"
    "                         (default 1, at most 8)\n"
    "      --quantum=DEG      values in steps of DEG (default 0.1; 0: none)\n"
    "      --noise=DEG        Gaussian noise (default 0.05)\n"
    "      --ar=PHI           the noise autocorrelated, AR(1) (default 0)\n"
    "      --jitter=MS        sampling jitter, uniform ± (default 0)\n"
    "      --ambient-drift=DEG  the ambient drifts by DEG per hour (default 0)\n"
    "      --ambient-every=S  an ambient sensor row every S s (default 10; 0: none)\n"
    "      --work=RATE        a cumulative work counter, RATE operations/s,\n"
    "                         a row every 20 s (default none)\n"
    "      --dropout=P        each value is nan with probability P (default 0)\n"
    "      --meta=KEY=VALUE   a \"# KEY: VALUE\" line (default # kernel: simulated)\n"
    "\n"
    "Closed loop (a network or a --model under the kernel's governor):\n"
    "      --policy=SPEC      the zone's strategy: \"[NAME:] GOVERNOR trips=DEG,...\n"
    "                         [sustainable=W] [k_po=N] [k_pu=N] [k_i=N] [k_d=N]\n"
    "                         [cutoff=DEG] [passive=TIME] [idle=TIME]\n"
    "                         [hyst=DEG,...] [kernel=X.Y]\", GOVERNOR step_wise\n"
    "                         or power_allocator as Linux 6.8 runs them (or\n"
    "                         kernel=6.10's or 6.18's rules); one: its run;\n"
    "                         several: ranked\n"
    "      --opp=FILE         the CPUs' operating points (power above idle, work\n"
    "                         rate per frequency), a cooling device per device\n"
    "      --load=SHARE|SCHEDULE  the CPUs' busy share, 0 to 1 (default 1), or\n"
    "                         its windows: 'frame 100ms; 40ms load=1; 60ms load=0'\n"
    "      --idle-power=W     the board's idle power (default: the network\n"
    "                         file's, else 0)\n"
    "      --limit=DEG        several policies: the peak they must stay within\n"
    "      --zone-sensor=NAME  a --model's sensor the zone reads (default: its\n"
    "                         only one)\n"
    "      --cpu-input=[DEVICE=]INPUT  the --model's input a device's power\n"
    "                         adds to (default: its only one); --input VALUE\n"
    "                         holds each input (default 0)\n"
    "      --weight=DEVICE=N  a device's weight in the allocator's split\n"
    "\n"
    "Live:\n"
    "      --sysfs=DIR        keep DIR/class/thermal, DIR/class/hwmon and cpufreq\n"
    "                         files up to date instead of writing a run\n"
    "      --speed=X          X simulated seconds per real second (default 1)\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 success, 2 usage error, 3 a file could not be written or\n"
    "memory ran out.\n";

static int usage_error(const char *fmt, const char *arg)
{
    return tb_cli_usage_error("tb-sim", fmt, arg);
}

/* From absolute zero to TB_TEMP_MAX °C. */
static int temperature_ok(double c)
{
    return c >= TB_TEMP_MIN && c <= TB_TEMP_MAX;
}

static int parse_pair(const char *arg, double *a, double *b)
{
    char buf[128];
    const char *comma = strchr(arg, ',');
    if (!comma || (size_t)(comma - arg) >= sizeof buf)
        return -1;
    memcpy(buf, arg, (size_t)(comma - arg));
    buf[comma - arg] = '\0';
    return tb_cli_number(buf, a) == 0 && tb_cli_number(comma + 1, b) == 0 ? 0 : -1;
}

/* The closed loop's options, together and with the rest: -1 when they
 * hold (or none was given), else the usage error's status. */
static int check_closed_loop(struct settings *s)
{
    const struct governor_settings *g = &s->gov;
    int any = g->npolicies || g->opp || !isnan(g->limit) || !isnan(g->idle_w) || g->load != 1 ||
              g->scheduled || g->zone_sensor || g->ncpu_inputs || g->nweights;
    if (!any)
        return -1;
    if ((g->zone_sensor || g->ncpu_inputs) && !s->model.path)
        return usage_error("%s", "--zone-sensor and --cpu-input name a --model's sensor and input");
    if (!g->npolicies || !g->opp)
        return usage_error("%s", "a closed loop wants --policy (one or several) and --opp");
    if (s->nterms > 0)
        return usage_error("%s", "a closed loop runs a network's power: --network, --foster, "
                           "--cauer or --model, not --term");
    if (s->power > 0 || s->on_s > 0 || s->power_csv || s->steady)
        return usage_error("%s", "in a closed loop the governor sets the power: no --power, "
                           "--power-onoff, --power-csv or --steady");
    if (s->sysfs && g->npolicies > 1)
        return usage_error("%s", "a fake board (--sysfs) runs one --policy");
    if (s->sysfs && g->scheduled)
        return usage_error("%s", "a fake board (--sysfs) takes its load from tbsim/load, as a "
                           "benchmark writes it, not from a schedule");
    if (g->npolicies > 1 && s->output)
        return usage_error("%s", "several --policy are ranked on standard output: no -o");
    if (g->npolicies > 1 && isnan(g->limit))
        return usage_error("%s", "several --policy are ranked within a --limit (the board's, °C)");
    if (g->npolicies == 1 && !isnan(g->limit))
        return usage_error("%s", "--limit ranks several --policy; a run's limit is its lowest trip");
    if (isnan(g->idle_w))
        s->gov.idle_w = isnan(s->network_idle) ? 0 : s->network_idle;
    return -1;
}

/* --model's options, together: -1 when they hold, else the usage error's
 * status. */
static int check_model(struct settings *s)
{
    if (s->network || s->nfoster || s->ncauer || s->nterms || s->power_csv || s->on_s > 0 ||
        s->sysfs || s->have_tinf)
        return usage_error("%s", "--model is the whole model: no --term, --tinf, --foster, "
                           "--cauer, --network, --power-onoff, --power-csv or --sysfs with it");
    if (s->not_for_model)
        return usage_error("%s is not an option of a --model run (its options: --input, "
                           "--inputs-csv, --leakage, --schedule, --steady, --trip, --duration, "
                           "--period, --noise, --ar, --quantum, --ambient, --seed, -o)",
                           s->not_for_model);
    if (s->gov.npolicies || s->gov.opp || s->gov.zone_sensor || s->gov.ncpu_inputs) {
        if (s->model.nschedules || s->steady || isfinite(s->model.trip) || s->model.leakage ||
            s->model.owned_specs)
            return usage_error("%s", "in a closed loop the governor sets the CPUs' power and "
                               "--load their work: no --schedule, --steady, --trip, --leakage or "
                               "--inputs-csv with --policy");
        for (size_t k = 0; k < s->model.nprofiles; k++)
            if (s->model.profile[k].kind != PROFILE_CONSTANT)
                return usage_error("--input %s: in a closed loop an input the governor does not "
                                   "set holds a value (NAME=2.5W)", s->model.profile[k].spec);
        return check_closed_loop(s);
    }
    if (s->nmetas)
        return usage_error("%s", "--meta is for a network's run or a closed loop's");
    if (isfinite(s->model.trip) && !s->steady)
        return usage_error("%s", "--trip is for --steady's table: a run has no trip point");
    if (s->steady && !s->model.nschedules)
        return usage_error("%s", "--steady with --model wants a --schedule (or several)");
    if (s->steady && s->output)
        return usage_error("%s", "--steady prints the steady state, not a run: no -o");
    if (!s->steady && s->model.nschedules > 1)
        return usage_error("%s", "a run follows one --schedule; --steady compares several");
    if (s->model.nschedules && s->model.nprofiles)
        return usage_error("%s", "a run's inputs come from --input or from --schedule, not "
                           "both");
    return -1;
}

/* tb-sim's long options; an option's parser gives -1 (taken), NOT_MINE,
 * or the usage error's status. */
enum option_code {
    O_TINF = 256, O_TERM, O_FOSTER, O_CAUER, O_POWER, O_ONOFF, O_PCSV, O_AMBIENT, O_DURATION,
    O_SEED, O_SENSORS, O_QUANTUM, O_NOISE, O_AR, O_JITTER, O_DRIFT, O_AMB_EVERY, O_WORK,
    O_DROPOUT, O_SYSFS, O_SPEED, O_META, O_NETWORK, O_NETWORK_COLUMN, O_STEADY,
    O_MODEL, O_INPUT, O_SCHEDULE, O_TRIP, O_INPUTS_CSV, O_LEAKAGE, O_POLICY, O_OPP,
    O_LOAD, O_IDLE_POWER, O_LIMIT, O_ZONE_SENSOR, O_CPU_INPUT, O_WEIGHT,
};
#define NOT_MINE (-2)

/* The model's options: terms, a network, its power. */
static int board_option(struct settings *s, int c, const char *arg)
{
    double x, y;
    switch (c) {
    case O_TINF:
        if (tb_cli_quantity_or_number(arg, "C", &s->tinf) < 0 || !temperature_ok(s->tinf))
            return usage_error("--tinf wants a temperature from absolute zero to 1000 °C "
                               "(55, 55C, 328.15K), not '%s'", arg);
        s->have_tinf = 1;
        break;
    case O_TERM:
        if (parse_pair(arg, &x, &y) < 0 || !(y >= 1e-3 && y <= 3e6) ||
            !(fabs(x) <= TB_TEMP_MAX) || s->nterms == TB_FIT_MAX_ORDER)
            return usage_error("--term wants K,TAU with |K| up to 1000 °C and TAU from 1 ms "
                               "to 3e6 s, at most 4 of them, not '%s'", arg);
        s->term_k[s->nterms] = x;
        s->term_tau[s->nterms++] = y;
        break;
    case O_FOSTER:
    case O_CAUER: {
        int *n = c == O_FOSTER ? &s->nfoster : &s->ncauer;
        if (parse_pair(arg, &x, &y) < 0 || !(x > 0 && y > 0) || x > 1e4 ||
            !(x * y >= 1e-3 && x * y <= 3e6) || *n == TB_FIT_MAX_ORDER)
            return usage_error("--foster and --cauer want R,C, both positive (R up to 1e4 "
                               "K/W, RC from 1 ms to 3e6 s), at most 4 stages, not '%s'",
                               arg);
        s->net_r[*n] = x;
        s->net_c[(*n)++] = y;
        break;
    }
    case O_POWER:
        s->not_for_model = "--power";
        if (tb_cli_quantity_or_number(arg, "W", &s->power) < 0 || s->power < 0 ||
            s->power > TB_POWER_MAX)
            return usage_error("--power wants watts up to 10 kW (4, 4W, 4000mW), not '%s'",
                               arg);
        break;
    case O_ONOFF:
        if (parse_pair(arg, &s->on_s, &s->off_s) < 0 || !(s->on_s > 0) || !(s->off_s > 0))
            return usage_error("--power-onoff wants ON,OFF seconds, not '%s'", arg);
        break;
    case O_PCSV: s->power_csv = arg; break;
    case O_NETWORK: s->network = arg; break;
    case O_NETWORK_COLUMN: s->network_column = arg; break;
    case O_STEADY: s->steady = 1; break;
    default:
        return NOT_MINE;
    }
    return -1;
}

/* An identified model's options (--model and what drives it). */
static int ident_option(struct settings *s, int c, const char *arg)
{
    char err[TB_ERRMAX];
    switch (c) {
    case O_MODEL: s->model.path = arg; break;
    case O_INPUTS_CSV:
        if (model_read_inputs_csv(&s->model, arg, err, sizeof err) < 0)
            return usage_error("--inputs-csv: %s", err);
        break;
    case O_INPUT:
        if (s->model.owned_specs)
            return usage_error("%s", "--inputs-csv and --input both set the inputs: give one");
        if (s->model.nprofiles == TB_IDENT_MAX_INPUTS)
            return usage_error("at most %s --input", "16");
        if (input_profile_parse(&s->model.profile[s->model.nprofiles], arg, err,
                                sizeof err) < 0) {
            input_profile_free(&s->model.profile[s->model.nprofiles]);
            return usage_error("%s", err);
        }
        s->model.nprofiles++;
        break;
    case O_SCHEDULE:
        if (s->model.nschedules == sizeof s->model.schedule / sizeof *s->model.schedule)
            return usage_error("at most %s --schedule", "16");
        s->model.schedule[s->model.nschedules++] = arg;
        break;
    case O_LEAKAGE:
        if (leakage_parse(&s->model, arg, err, sizeof err) < 0)
            return usage_error("%s", err);
        break;
    case O_TRIP:
        if (tb_cli_quantity_or_number(arg, "C", &s->model.trip) < 0 ||
            !temperature_ok(s->model.trip))
            return usage_error("--trip wants a temperature, not '%s'", arg);
        break;
    default:
        return NOT_MINE;
    }
    return -1;
}

/* A run's options: sampling, noise, metadata, the live board. */
static int run_option(struct settings *s, int c, const char *arg)
{
    double x;
    switch (c) {
    case O_AMBIENT:
        if (tb_cli_quantity_or_number(arg, "C", &s->ambient) < 0 ||
            !temperature_ok(s->ambient))
            return usage_error("--ambient wants a temperature (25, 25C, 298.15K), not '%s'", arg);
        break;
    case O_DURATION:
        if (tb_parse_duration(arg, &s->duration) < 0 || !(s->duration > 0))
            return usage_error("--duration wants a time such as 90, 90s, 5min or 1h, not '%s'", arg);
        break;
    case 'p':
        if (tb_cli_number(arg, &s->period_ms) < 0 || !(s->period_ms >= 0.01))
            return usage_error("--period wants milliseconds, not '%s'", arg);
        break;
    case 'o': s->output = arg; break;
    case O_SEED:
        if (tb_cli_number(arg, &x) < 0 || x < 0 || x != floor(x))
            return usage_error("--seed wants a whole number, not '%s'", arg);
        s->seed = (unsigned long)x;
        break;
    case O_SENSORS:
        s->not_for_model = "--sensors";
        if (tb_cli_number(arg, &x) < 0 || x != floor(x) || x < 1 || x > MAX_SENSORS)
            return usage_error("--sensors wants 1 to 8, not '%s'", arg);
        s->sensors = (int)x;
        break;
    case O_QUANTUM:
    case O_NOISE:
    case O_JITTER:
    case O_AMB_EVERY:
    case O_WORK: {
        if (c == O_JITTER || c == O_AMB_EVERY || c == O_WORK)
            s->not_for_model = c == O_JITTER ? "--jitter" : c == O_WORK ? "--work"
                                                                      : "--ambient-every";
        double *dst = c == O_QUANTUM ? &s->quantum : c == O_NOISE ? &s->noise
                    : c == O_JITTER ? &s->jitter_ms : c == O_AMB_EVERY ? &s->ambient_every
                                                                        : &s->work_rate;
        if (tb_cli_number(arg, dst) < 0 || *dst < 0)
            return usage_error("a number of 0 or more is wanted, not '%s'", arg);
        break;
    }
    case O_AR:
        if (tb_cli_number(arg, &s->ar) < 0 || !(s->ar >= 0 && s->ar < 1))
            return usage_error("--ar wants 0 to below 1, not '%s'", arg);
        break;
    case O_DROPOUT:
        s->not_for_model = "--dropout";
        if (tb_cli_number(arg, &s->dropout) < 0 || !(s->dropout >= 0 && s->dropout < 1))
            return usage_error("--dropout wants a probability below 1, not '%s'", arg);
        break;
    case O_DRIFT:
        s->not_for_model = "--ambient-drift";
        if (tb_cli_number(arg, &s->drift_per_h) < 0)
            return usage_error("--ambient-drift wants °C per hour, not '%s'", arg);
        break;
    case O_SYSFS: s->sysfs = arg; break;
    case O_META: {
        const char *eq = strchr(arg, '=');
        size_t klen = eq ? (size_t)(eq - arg) : 0;
        if (!eq || klen == 0 || s->nmetas == 16 || strpbrk(arg, "\r\n") ||
            strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != klen)
            return usage_error("--meta wants KEY=VALUE on one line (at most 16), not '%s'", arg);
        s->metas[s->nmetas++] = arg;
        break;
    }
    case O_SPEED:
        s->not_for_model = "--speed";
        if (tb_cli_number(arg, &s->speed) < 0 || !(s->speed > 0))
            return usage_error("--speed wants a positive number, not '%s'", arg);
        break;
    default:
        return NOT_MINE;
    }
    return -1;
}

/* The closed loop's options. */
static int governor_option(struct settings *s, int c, const char *arg)
{
    double x;
    switch (c) {
    case O_POLICY:
        if (s->gov.npolicies == SIM_MAX_POLICIES)
            return usage_error("at most 1024 --policy, not more: '%s'", arg);
        s->gov.policy[s->gov.npolicies++] = arg;
        break;
    case O_OPP: s->gov.opp = arg; break;
    case O_ZONE_SENSOR: s->gov.zone_sensor = arg; break;
    case O_CPU_INPUT:
    case O_WEIGHT: {
        const char **list = c == O_CPU_INPUT ? s->gov.cpu_input : s->gov.weight;
        size_t *n = c == O_CPU_INPUT ? &s->gov.ncpu_inputs : &s->gov.nweights;
        const char *eq = strchr(arg, '=');
        if (*n == TB_GOV_MAX_DEVICES || (c == O_WEIGHT && (!eq || eq == arg ||
                                                            tb_cli_number(eq + 1, &x) < 0 ||
                                                            x != floor(x) || x < 0 || x > 1e6)))
            return usage_error(c == O_CPU_INPUT ? "--cpu-input wants [DEVICE=]INPUT, one a device "
                                                  "(at most 4), not '%s'"
                                                : "--weight wants DEVICE=N, N a whole number from 0 "
                                                  "(the device tree's contribution), at most 4, not '%s'",
                               arg);
        list[(*n)++] = arg;
        break;
    }
    case O_LOAD:
        if (strstr(arg, "frame")) {   /* a schedule of windows */
            char err[TB_ERRMAX];
            if (tb_load_schedule_parse(arg, &s->gov.load_schedule, err, sizeof err) < 0)
                return usage_error("--load %s", err);
            s->gov.scheduled = 1;
            s->gov.load = s->gov.load_schedule.input[0][0];
        } else if (tb_cli_number(arg, &s->gov.load) < 0 || !(s->gov.load >= 0 && s->gov.load <= 1)) {
            return usage_error("--load wants a share from 0 to 1 or a schedule ('frame 100ms; "
                               "40ms load=1; 60ms load=0'), not '%s'", arg);
        }
        break;
    case O_IDLE_POWER:
        if (tb_cli_quantity_or_number(arg, "W", &s->gov.idle_w) < 0 || !(s->gov.idle_w >= 0))
            return usage_error("--idle-power wants a power (0.8, 800mW), not '%s'", arg);
        break;
    case O_LIMIT:
        if (tb_cli_quantity_or_number(arg, "C", &s->gov.limit) < 0 || !temperature_ok(s->gov.limit))
            return usage_error("--limit wants a temperature, not '%s'", arg);
        break;
    default:
        return NOT_MINE;
    }
    return -1;
}

/* The model given one way, a network read, and the run's options
 * together: -1 when they hold, else an exit status. */
static int check_board(struct settings *s)
{
    char err[TB_ERRMAX];
    if (s->network_column && !s->network)
        return usage_error("%s", "--network-column needs --network");
    if (s->network && (s->nfoster > 0 || s->ncauer > 0 || s->nterms > 0))
        return usage_error("%s", "give the model one way: --term (with --tinf), --foster, --cauer or --network");
    if (s->network) {
        tb_network net;
        if (tb_network_read(s->network, s->network_column, &net, err, sizeof err) < 0) {
            fprintf(stderr, "tb-sim: --network: %s\n", err);
            return TB_EXIT_INPUT;
        }
        for (size_t i = 0; i < net.n; i++) {
            s->net_r[i] = net.r[i];
            s->net_c[i] = net.c[i];
        }
        s->nfoster = (int)net.n;
        s->network_idle = net.idle;
        tb_network_clear(&net);
    }
    int kinds = (s->nterms > 0) + (s->nfoster > 0) + (s->ncauer > 0);
    if (kinds != 1)
        return usage_error("%s", "give the model one way: --term (with --tinf), --foster, --cauer or --network");
    if (check_closed_loop(s) >= 0)
        return TB_EXIT_INPUT;
    if (s->steady && !(s->on_s > 0))
        return usage_error("%s", "--steady wants a periodic power: --power-onoff ON,OFF");
    if (s->steady && (s->output || s->sysfs))
        return usage_error("%s", "--steady prints the steady state, not a run: no -o or --sysfs");
    if (s->nterms > 0 && !s->have_tinf)
        return usage_error("%s", "--term wants --tinf too");
    if ((s->on_s > 0) + (s->power_csv != NULL) > 1)
        return usage_error("%s", "one power profile: --power-onoff or --power-csv");
    if (s->jitter_ms >= 0.4 * s->period_ms)
        return usage_error("%s", "--jitter must stay under 0.4 of the period");
    if (s->power_csv && sim_read_profile_csv(s->power_csv, &s->pt, &s->pw, &s->np, err,
                                             sizeof err) < 0)
        return usage_error("--power-csv: %s", err);
    return -1;
}

static int parse_arguments(int argc, char **argv, struct settings *s)
{
    static const struct option options[] = {
        {"tinf", required_argument, NULL, O_TINF}, {"term", required_argument, NULL, O_TERM},
        {"foster", required_argument, NULL, O_FOSTER}, {"cauer", required_argument, NULL, O_CAUER},
        {"power", required_argument, NULL, O_POWER}, {"power-onoff", required_argument, NULL, O_ONOFF},
        {"power-csv", required_argument, NULL, O_PCSV}, {"ambient", required_argument, NULL, O_AMBIENT},
        {"duration", required_argument, NULL, O_DURATION}, {"period", required_argument, NULL, 'p'},
        {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, O_SEED},
        {"sensors", required_argument, NULL, O_SENSORS}, {"quantum", required_argument, NULL, O_QUANTUM},
        {"noise", required_argument, NULL, O_NOISE}, {"ar", required_argument, NULL, O_AR},
        {"jitter", required_argument, NULL, O_JITTER}, {"ambient-drift", required_argument, NULL, O_DRIFT},
        {"ambient-every", required_argument, NULL, O_AMB_EVERY}, {"work", required_argument, NULL, O_WORK},
        {"dropout", required_argument, NULL, O_DROPOUT}, {"sysfs", required_argument, NULL, O_SYSFS},
        {"speed", required_argument, NULL, O_SPEED}, {"meta", required_argument, NULL, O_META},
        {"network", required_argument, NULL, O_NETWORK},
        {"network-column", required_argument, NULL, O_NETWORK_COLUMN},
        {"steady", no_argument, NULL, O_STEADY},
        {"model", required_argument, NULL, O_MODEL}, {"input", required_argument, NULL, O_INPUT},
        {"inputs-csv", required_argument, NULL, O_INPUTS_CSV},
        {"leakage", required_argument, NULL, O_LEAKAGE},
        {"schedule", required_argument, NULL, O_SCHEDULE}, {"trip", required_argument, NULL, O_TRIP},
        {"policy", required_argument, NULL, O_POLICY}, {"opp", required_argument, NULL, O_OPP},
        {"load", required_argument, NULL, O_LOAD}, {"idle-power", required_argument, NULL, O_IDLE_POWER},
        {"limit", required_argument, NULL, O_LIMIT},
        {"zone-sensor", required_argument, NULL, O_ZONE_SENSOR},
        {"cpu-input", required_argument, NULL, O_CPU_INPUT},
        {"weight", required_argument, NULL, O_WEIGHT},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:o:hV", options, NULL)) != -1) {
        int st = board_option(s, c, optarg);
        if (st == NOT_MINE)
            st = ident_option(s, c, optarg);
        if (st == NOT_MINE)
            st = run_option(s, c, optarg);
        if (st == NOT_MINE)
            st = governor_option(s, c, optarg);
        if (st != NOT_MINE) {
            if (st >= 0)
                return st;
            continue;
        }
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            exit(TB_EXIT_OK);
        case 'V':
            puts("tb-sim (" PACKAGE_NAME ") " PACKAGE_VERSION);
            exit(TB_EXIT_OK);
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return tb_cli_unknown_option("tb-sim", argv[optind - 1], options);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!s->model.path && (s->model.nprofiles || s->model.nschedules || isfinite(s->model.trip) ||
                           s->model.leakage))
        return usage_error("%s", "--input, --schedule, --trip and --leakage drive a --model");
    if (s->model.leakage && s->steady)
        return usage_error("%s", "--leakage is for a run: --steady's table is of the linear model");
    if (s->model.path)
        return check_model(s);
    return check_board(s);
}

/* --- the model ---------------------------------------------------------------- */

/* Modes, start temperature T0 and the step power the truth refers to. */
static int build_model(struct settings *s, tb_modes *m, double *t0)
{
    if (s->nterms > 0) {
        /* Terms are the response to a step of s->power (1 W unless given):
         * gains −k/P, starting from T∞ + Σk. */
        double p = s->power > 0 ? s->power : 1;
        memset(m, 0, sizeof *m);
        m->n = (size_t)s->nterms;
        *t0 = s->tinf;
        for (int j = 0; j < s->nterms; j++) {
            m->tau[j] = s->term_tau[j];
            m->gain[j] = -s->term_k[j] / p;
            *t0 += s->term_k[j];
        }
        s->power = p;
        return 0;
    }
    *t0 = s->ambient;
    return s->nfoster ? tb_modes_from_foster(s->net_r, s->net_c, (size_t)s->nfoster, m)
                      : tb_modes_from_cauer(s->net_r, s->net_c, (size_t)s->ncauer, m);
}

static double power_at(const struct settings *s, double t)
{
    if (s->on_s > 0)
        return fmod(t, s->on_s + s->off_s) < s->on_s ? s->power : 0;
    if (s->np) {
        size_t i = 0;
        while (i + 1 < s->np && s->pt[i + 1] <= t)
            i++;
        return t < s->pt[0] ? 0 : s->pw[i];
    }
    return s->power;
}

/* Sensor J sees the modes with its own gain and offset (sensors of one
 * board: the same τ, less of the heat further away). */
static double sensor_gain(int j) { return 1 - 0.15 * j; }
static double sensor_offset(int j) { return -1.5 * j; }

/* What sensor J reads at T s, in °C, from the modes' STATE: its own view
 * of the modes, ambient drift, its noise (AR(1), NOISE[J] carried from
 * the last reading) and the sensor's quantum.  The one sensor model of
 * both the file and the live sysfs tree. */
static double sensor_reading(const struct settings *s, const tb_modes *m, const double *state,
                             double t0, double t, int j, double *noise, gsl_rng *rng)
{
    double v = t0 + sensor_offset(j) + s->drift_per_h * t / 3600;
    for (size_t k = 0; k < m->n; k++)
        v += state[k] * sensor_gain(j);
    noise[j] = sim_ar_noise(noise[j], s->ar, s->noise, rng);
    v += noise[j];
    if (s->quantum > 0)
        v = round(v / s->quantum) * s->quantum;
    return v;
}

static void print_truth(FILE *f, const struct settings *s, const tb_modes *m, double t0)
{
    /* A power profile's T∞ is the steady state of its last power, and its
     * k those of a step to that power from t = 0. */
    double power = s->np ? s->pw[s->np - 1] : s->power;
    fprintf(f, "# truth_tau:");
    for (size_t i = 0; i < m->n; i++)
        fprintf(f, "%s%.10g", i ? "," : " ", m->tau[i]);
    fprintf(f, "\n# truth_power: %s\n", s->on_s > 0 ? "on/off" : s->np ? "csv" : "step");
    if (s->np)
        fprintf(f, "# truth_note: T_inf at the last power (%g W); k of a step to it from 0 s\n",
                power);
    for (int j = 0; j < s->sensors; j++) {
        double tinf = t0 + sensor_offset(j);
        fprintf(f, "# truth_k_CPU_%d_temp:", j);
        for (size_t i = 0; i < m->n; i++) {
            double k = -m->gain[i] * sensor_gain(j) * power;
            tinf -= k;
            fprintf(f, "%s%.10g", i ? "," : " ", k);
        }
        fprintf(f, "\n# truth_tinf_CPU_%d_temp: %.10g\n", j, tinf);
    }
}

/* --- the periodic steady state --------------------------------------------------- */

/* Under power P for ON s then none for OFF s, again and again, each mode
 * settles to a cycle that peaks at the end of the on phase at
 * gP(1 − e^(−ON/τ))/(1 − e^(−(ON+OFF)/τ)) and falls by e^(−OFF/τ) by its
 * end; the mean is gP·ON/(ON+OFF).  Closed forms, not hours simulated. */
static int print_steady(const struct settings *s, const tb_modes *m, double t0)
{
    double period = s->on_s + s->off_s, peak = t0, trough = t0, mean = t0, tau_max = 0;
    for (size_t i = 0; i < m->n; i++) {
        double a = exp(-s->on_s / m->tau[i]), b = exp(-s->off_s / m->tau[i]);
        double top = m->gain[i] * s->power * (1 - a) / (1 - a * b);
        peak += top;
        trough += top * b;
        mean += m->gain[i] * s->power * s->on_s / period;
        tau_max = fmax(tau_max, m->tau[i]);
    }
    /* within 1 % of the steady cycle after ln(100) of the slowest τ */
    printf("periodic steady state: %g W on for %g s, off for %g s, from %g °C\n", s->power,
           s->on_s, s->off_s, t0);
    printf("peak %.4f °C (at the end of the on phase)\n", peak);
    printf("trough %.4f °C (at the end of the off phase)\n", trough);
    printf("mean %.4f °C\n", mean);
    printf("settled within 1 %% after %.0f s (%.0f periods)\n", log(100) * tau_max,
           ceil(log(100) * tau_max / period));
    return fflush(stdout) == 0 && !ferror(stdout) ? TB_EXIT_OK : TB_EXIT_OUTPUT;
}

/* --- a run to a file ------------------------------------------------------------- */

static int write_run(struct settings *s, const tb_modes *m, double t0, gsl_rng *rng)
{
    struct tb_output_file out;
    double state[TB_FIT_MAX_ORDER] = {0}, noise[MAX_SENSORS];
    for (int j = 0; j < MAX_SENSORS; j++)
        noise[j] = NAN;   /* no reading yet: see sim_ar_noise() */
    double period = s->period_ms / 1000, t = 0, next_amb = s->ambient_every / 2, next_work = 10;
    double work = 0;

    FILE *f = sim_run_begin(&out, s->output);
    if (!f)
        return TB_EXIT_OUTPUT;
    int have_kernel = 0;
    for (int i = 0; i < s->nmetas; i++) {
        const char *eq = strchr(s->metas[i], '=');
        fprintf(f, "# %.*s: %s\n", (int)(eq - s->metas[i]), s->metas[i], eq + 1);
        have_kernel |= strncmp(s->metas[i], "kernel=", 7) == 0;
    }
    if (!have_kernel)
        fputs("# kernel: simulated\n", f);
    fprintf(f, "# seed: %lu\n", s->seed);
    print_truth(f, s, m, t0);
    fputs("time/ms", f);
    for (int j = 0; j < s->sensors; j++)
        fprintf(f, ",CPU_%d_temp/m°C", j);
    fputs(",power/W", f);
    if (s->ambient_every > 0)
        fputs(",ambient/°C", f);
    if (s->work_rate > 0)
        fputs(",CPU0_work_done", f);
    fputc('\n', f);
    size_t steps = (size_t)floor(s->duration / period + 1e-9);
    for (size_t i = 0; i <= steps; i++) {
        double ts = (double)i * period;
        if (i > 0) {
            tb_modes_step(m, state, power_at(s, t), ts - t);
            t = ts;
        }
        double jitter = s->jitter_ms > 0 ? gsl_ran_flat(rng, -s->jitter_ms, s->jitter_ms) : 0;
        double drift = s->drift_per_h * t / 3600;
        fprintf(f, "%.3f", i == 0 ? 0 : fmax(0, t * 1000 + jitter));
        for (int j = 0; j < s->sensors; j++) {
            double v = sensor_reading(s, m, state, t0, t, j, noise, rng);
            if (s->dropout > 0 && gsl_rng_uniform(rng) < s->dropout)
                fputs(",nan", f);
            else
                fprintf(f, ",%.0f", v * 1000);
        }
        fprintf(f, ",%.6g\n", power_at(s, t));
        /* Rows of the slow sensors sit between two sample rows, clear of
         * their jitter, so that time never goes backwards. */
        if (s->ambient_every > 0 && t + period > next_amb && t <= s->duration) {
            fprintf(f, "%.3f", (t + period * 0.5) * 1000);
            for (int j = 0; j < s->sensors; j++)
                fputc(',', f);
            fprintf(f, ",,%.3f\n", t0 + drift + gsl_ran_gaussian(rng, 0.01));
            next_amb += s->ambient_every;
        }
        if (s->work_rate > 0 && t + period > next_work) {
            work += s->work_rate * 20;
            fprintf(f, "%.3f", (t + period * 0.7) * 1000);
            for (int j = 0; j < s->sensors; j++)
                fputc(',', f);
            fprintf(f, ",%s,%.0f\n", s->ambient_every > 0 ? "," : "", work);
            next_work += 20;
        }
    }
    return sim_run_end(&out, f);
}

/* --- a live sysfs tree --------------------------------------------------------------- */

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

/* Write TEXT at the start of the file; a changing value (PADDED) is padded
 * to a fixed width, so that a reader's pread() at offset 0 never sees the
 * file cut short by a truncation. */
#define SYSFS_MAX_STATE 3   /* the fake cooling device's states: 0 to this */

/* The files of a board that do not change by themselves under S->sysfs:
 * each zone's type, trip points, policy and power-allocator constants,
 * a cooling device (cpufreq's, as on an SoC), hwmon0's name and two CPUs'
 * cpufreq.  0, or -1 with the directory that failed in DIR. */
static int sysfs_make_tree(const struct settings *s, char *dir, size_t size)
{
    char text[64];
    /* as the kernel shows a zone under step_wise, with the power
     * allocator's attributes (they are there whatever the policy) */
    static const char *const zone[][2] = {
        {"trip_point_0_type", "passive"}, {"trip_point_0_temp", "70000"},
        {"trip_point_0_hyst", "2000"},
        {"trip_point_1_type", "passive"}, {"trip_point_1_temp", "85000"},
        {"trip_point_1_hyst", "2000"},
        {"trip_point_2_type", "critical"}, {"trip_point_2_temp", "100000"},
        {"policy", "step_wise"},
        {"available_policies", "step_wise power_allocator user_space"},
        {"mode", "enabled"}, {"sustainable_power", "2500"}, {"k_po", "409"},
        {"k_pu", "819"}, {"k_i", "81"}, {"k_d", "0"}, {"integral_cutoff", "0"},
    };
    for (int j = 0; j < s->sensors; j++) {
        snprintf(dir, size, "%s/class/thermal/thermal_zone%d", s->sysfs, j);
        snprintf(text, sizeof text, "cpu%d-thermal", j);
        if (sysfs_mkdirs(dir) < 0 || sysfs_put_name(dir, "type", text) < 0)
            return -1;
        for (size_t f = 0; f < sizeof zone / sizeof *zone; f++)
            if (sysfs_put_name(dir, zone[f][0], zone[f][1]) < 0)
                return -1;
    }
    snprintf(dir, size, "%s/class/thermal/cooling_device0", s->sysfs);
    snprintf(text, sizeof text, "%d", SYSFS_MAX_STATE);
    if (sysfs_mkdirs(dir) < 0 || sysfs_put_name(dir, "type", "thermal-cpufreq-0") < 0 ||
        sysfs_put_name(dir, "max_state", text) < 0 || sysfs_put(dir, "cur_state", "0") < 0)
        return -1;
    snprintf(dir, size, "%s/class/hwmon/hwmon0", s->sysfs);
    if (sysfs_mkdirs(dir) < 0 || sysfs_put_name(dir, "name", "tbsim") < 0)
        return -1;
    snprintf(dir, size, "%s/tbsim", s->sysfs);
    if (sysfs_mkdirs(dir) < 0 || sysfs_put(dir, "time_ms", "0") < 0 || sysfs_put(dir, "seq", "0") < 0)
        return -1;
    /* two CPUs' cpufreq as the kernel shows them under schedutil, with
     * the userspace governor on offer (tb-series sets frequencies here) */
    static const char *const cpufreq[][2] = {
        {"scaling_governor", "schedutil"},
        {"scaling_available_governors", "performance schedutil userspace"},
        {"scaling_available_frequencies", "600000 1200000 1600000"},
        {"scaling_min_freq", "600000"}, {"scaling_max_freq", "1600000"},
        {"scaling_setspeed", "<unsupported>"},
        {"cpuinfo_min_freq", "600000"}, {"cpuinfo_max_freq", "1600000"},
    };
    for (int cpu = 0; cpu < 2; cpu++) {
        snprintf(dir, size, "%s/devices/system/cpu/cpu%d/cpufreq", s->sysfs, cpu);
        if (sysfs_mkdirs(dir) < 0 || sysfs_put(dir, "scaling_cur_freq", "1200000") < 0)
            return -1;
        for (size_t f = 0; f < sizeof cpufreq / sizeof *cpufreq; f++)
            if (sysfs_put_name(dir, cpufreq[f][0], cpufreq[f][1]) < 0)
                return -1;
    }
    return 0;
}

/* The cooling state something (a governor, a test) wrote, within 0 to
 * SYSFS_MAX_STATE; 0 when it cannot be read. */
static int sysfs_cooling_state(const struct settings *s)
{
    char path[4096], buf[32];
    snprintf(path, sizeof path, "%s/class/thermal/cooling_device0/cur_state", s->sysfs);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    long v = strtol(buf, NULL, 10);
    return v < 0 ? 0 : v > SYSFS_MAX_STATE ? SYSFS_MAX_STATE : (int)v;
}

/* The power under cooling state STATE: each state takes a quarter of it
 * off, as a CPU held to a lower frequency draws less. */
static double throttled_power(double p, int state)
{
    return p * (1 - (double)state / (SYSFS_MAX_STATE + 1));
}

/* The zone's temperature from the modes' STATE, without the sensor's
 * noise (what the simulated kernel reads; the temp files add the noise). */
static double zone_temp(const struct settings *s, const double *state, double t0, double t, size_t n)
{
    double y = t0 + s->drift_per_h * t / 3600;
    for (size_t i = 0; i < n; i++)
        y += state[i];
    return y;
}

/* Step the board from T over one PERIOD under the live governor, from
 * poll to poll, the power P held between; the power after.  A poll due
 * at the step's end is made in it, so that the state written with the
 * step is the one after that poll, as tb_closed_loop_run() samples it. */
static double step_board(const struct settings *s, const tb_modes *m, double *state, double t0,
                         double t, double period, double p, struct live_governor *lg)
{
    double at = t, ops;
    live_governor_power(lg, &ops);
    while (lg->next_poll <= t + period + 1e-9) {
        double dt = lg->next_poll - at;
        tb_modes_step(m, state, p, dt);
        lg->work += ops * dt;
        lg->energy += p * dt;
        at = lg->next_poll;
        live_governor_poll(lg, at, zone_temp(s, state, t0, at, m->n));
        p = live_governor_power(lg, &ops);
    }
    tb_modes_step(m, state, p, t + period - at);
    lg->work += ops * (t + period - at);
    lg->energy += p * (t + period - at);
    return p;
}

/* What the fake board's tree holds, said on standard error: it is silent
 * otherwise. */
static void say_board(const struct settings *s, const struct live_governor *lg)
{
    fprintf(stderr, "tb-sim: a board under %s: %d thermal zone%s", s->sysfs, s->sensors,
            s->sensors == 1 ? "" : "s");
    if (lg)
        fprintf(stderr, " under %s (%s, as Linux 6.8's governor polls it), a cooling device "
                "(cur_state 0 to %zu, the CPUs' operating points from --opp), hwmon0 (tbsim), "
                "cpufreq of 2 CPUs, tbsim/work_done (the operations done), tbsim/load (the CPUs' "
                "busy share, for a benchmark to write), ", lg->name,
                lg->policy.governor == TB_GOV_STEP_WISE ? "step_wise" : "power_allocator",
                lg->table->n - 1);
    else
        fprintf(stderr, ", a cooling device (cur_state 0 to %d, a quarter of the power off each), "
                "hwmon0 (tbsim), cpufreq of 2 CPUs, ", SYSFS_MAX_STATE);
    fprintf(stderr, "tbsim/time_ms (the model's clock), tbsim/seq; %g s of model time at %gx speed; "
            "record it with tb-record --sysfs-root %s\n", s->duration, s->speed, s->sysfs);
}

/* The board at simulated time T: each zone's temperature, the power and
 * energy counter (J), the model's clock, and the sequence count N + 1
 * (even: the update whole).  0, or -1 with the directory in DIR. */
static int write_board(const struct settings *s, const tb_modes *m, const double *state, double t0,
                       double t, double p, double energy, double *noise, gsl_rng *rng, size_t n,
                       char *dir, size_t size)
{
    char text[64];
    for (int j = 0; j < s->sensors; j++) {
        double v = sensor_reading(s, m, state, t0, t, j, noise, rng);
        snprintf(dir, size, "%s/class/thermal/thermal_zone%d", s->sysfs, j);
        snprintf(text, sizeof text, "%.0f", v * 1000);
        if (sysfs_put(dir, "temp", text) < 0)
            return -1;
    }
    snprintf(dir, size, "%s/class/hwmon/hwmon0", s->sysfs);
    snprintf(text, sizeof text, "%.0f", p * 1e6);
    if (sysfs_put(dir, "power1_input", text) < 0)
        return -1;
    snprintf(text, sizeof text, "%.0f", energy * 1e6);
    if (sysfs_put(dir, "energy1_input", text) < 0)
        return -1;
    /* the model's clock, last: a reader that records it beside the
     * other files can compare with a prediction at the same instants */
    snprintf(dir, size, "%s/tbsim", s->sysfs);
    snprintf(text, sizeof text, "%.0f", t * 1000);
    if (sysfs_put(dir, "time_ms", text) < 0)
        return -1;
    snprintf(text, sizeof text, "%zu", n + 1);
    return sysfs_put(dir, "seq", text);
}

/* Sleep to the real time of step K of PERIOD s (model) from START; the
 * step due then, K or later: a board that fell behind (a busy machine)
 * skips steps, so that its clock stays real time × speed and the counters
 * keep the model's rates. */
static size_t next_step(const struct settings *s, const struct timespec *start, size_t k, double period)
{
    double next = (double)k * period / s->speed;
    struct timespec at = *start, now;
    at.tv_sec += (time_t)next;
    at.tv_nsec += (long)((next - floor(next)) * 1e9);
    if (at.tv_nsec >= 1000000000) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR && !stop)
        ;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double real = (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
    double due = floor(real * s->speed / period + 1e-9);
    return due > (double)k ? (size_t)due : k;
}

static int run_sysfs(struct settings *s, const tb_modes *m, double t0, gsl_rng *rng)
{
    char dir[4096], text[64];
    double state[TB_FIT_MAX_ORDER] = {0}, noise[MAX_SENSORS], energy = 0, p = 0, last = 0;
    for (int j = 0; j < MAX_SENSORS; j++)
        noise[j] = NAN;   /* no reading yet: see sim_ar_noise() */
    double period = s->period_ms / 1000;
    struct sigaction sa = {.sa_handler = on_signal};

    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct live_governor live, *lg = NULL;
    if (s->gov.npolicies) {
        int status = live_governor_start(&live, &s->gov);
        if (status)
            return status;
        live.speed = s->speed;
        lg = &live;
    }
    if (sysfs_make_tree(s, dir, sizeof dir) < 0 ||
        (lg && live_governor_make_tree(lg, s->sysfs, s->sensors, dir, sizeof dir) < 0))
        goto fail;
    say_board(s, lg);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (size_t k = 0, n = 0; !stop; n += 2) {
        double t = (double)k * period, dt = t - last;
        if (t > s->duration)
            break;
        /* a sequence count, odd while the step's files are written: a
         * reader that reads the same even count before and after its
         * other files saw one step whole (a seqlock) */
        snprintf(dir, sizeof dir, "%s/tbsim", s->sysfs);
        snprintf(text, sizeof text, "%zu", n + 1);
        if (sysfs_put(dir, "seq", text) < 0)
            goto fail;
        if (lg) {
            live_governor_follow(lg, s->sysfs);
            if (k == 0)
                live_governor_poll(lg, 0, zone_temp(s, state, t0, 0, m->n));
            p = k == 0 ? live_governor_power(lg, NULL) : step_board(s, m, state, t0, last, dt, p, lg);
            if (live_governor_write(lg, s->sysfs, dir, sizeof dir) < 0)
                goto fail;
        } else {
            if (k > 0)
                tb_modes_step(m, state, p, dt);
            p = throttled_power(power_at(s, t), sysfs_cooling_state(s));
        }
        /* the counter grows in real time, so a power read from it (tb-record
         * divides by real seconds) is the simulated power at any --speed */
        energy = lg ? lg->energy / s->speed : energy + p * dt / s->speed;
        if (write_board(s, m, state, t0, t, p, energy, noise, rng, n + 1, dir, sizeof dir) < 0)
            goto fail;
        last = t;
        k = next_step(s, &start, k + 1, period);
    }
    if (lg)
        live_governor_clear(lg);
    return TB_EXIT_OK;
fail:
    fprintf(stderr, "tb-sim: %s: %s\n", dir, strerror(errno));
    if (lg)
        live_governor_clear(lg);
    return TB_EXIT_OUTPUT;
}

/* --model --policy: the model's zone sensor under the governor, each
 * input at its --input value, the CPUs' power added to theirs. */
static int model_governor(struct settings *s, const tb_ident_model *m)
{
    ssize_t zone = sim_model_index("--zone-sensor", s->gov.zone_sensor, m->sensors, m->nsensors,
                                   "sensor");
    if (zone < 0)
        return TB_EXIT_INPUT;
    double held[TB_IDENT_MAX_INPUTS] = {0};
    for (size_t k = 0; k < s->model.nprofiles; k++)
        held[s->model.profile[k].input] = s->model.profile[k].value;
    tb_closed_loop board = {.model = m, .zone = (size_t)zone, .held = held, .ambient_c = s->ambient};
    return governor_main(&s->gov, &board, s->duration, s->period_ms / 1000, s->output, s->metas,
                         s->nmetas);
}

/* --model: a run of the identified model, or its schedules compared. */
static int run_model(struct settings *s)
{
    tb_ident_model m;
    tb_schedule *sch = NULL;
    char err[TB_ERRMAX];
    int status = TB_EXIT_INPUT;
    if (tb_ident_model_read(s->model.path, &m, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: --model: %s\n", err);
        return TB_EXIT_INPUT;
    }
    if (model_bind(&s->model, &m, s->seed, err, sizeof err) < 0) {
        fprintf(stderr, "tb-sim: %s\n", err);
        goto out;
    }
    if (s->gov.npolicies) {
        status = model_governor(s, &m);
        goto out;
    }
    sch = calloc(s->model.nschedules + 1, sizeof *sch);
    if (!sch) {
        status = TB_EXIT_OUTPUT;
        fputs("tb-sim: out of memory\n", stderr);
        goto out;
    }
    for (size_t k = 0; k < s->model.nschedules; k++) {
        if (tb_schedule_parse(s->model.schedule[k], &m, &sch[k], err, sizeof err) < 0) {
            fprintf(stderr, "tb-sim: --schedule: %s\n", err);
            goto out;
        }
        if (!sch[k].name[0])
            snprintf(sch[k].name, sizeof sch[k].name, "schedule %zu", k + 1);
    }
    if (s->steady) {
        status = model_print_steady(&s->model, &m, sch, s->model.nschedules, s->ambient);
    } else {
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        if (!rng) {
            status = TB_EXIT_OUTPUT;
            fputs("tb-sim: out of memory\n", stderr);
            goto out;
        }
        gsl_rng_set(rng, s->seed);
        struct run_settings rs = {
            .duration = s->duration, .period = s->period_ms / 1000, .ambient = s->ambient,
            .noise = s->noise, .ar = s->ar, .quantum = s->quantum, .output = s->output,
            .seed = s->seed,
        };
        status = model_write_run(&s->model, &m, s->model.nschedules ? &sch[0] : NULL, &rs, rng);
        gsl_rng_free(rng);
    }
out:
    free(sch);
    tb_ident_model_clear(&m);
    return status;
}

/* --policy on a network's modes M. */
static int network_governor(const struct settings *s, const tb_modes *m)
{
    tb_closed_loop board = {.modes = *m, .ambient_c = s->ambient};
    return governor_main(&s->gov, &board, s->duration, s->period_ms / 1000, s->output, s->metas,
                         s->nmetas);
}

int main(int argc, char **argv)
{
    struct settings s = {
        .power = 0, .ambient = 25, .duration = 3600, .period_ms = 1000, .seed = 1,
        .sensors = 1, .quantum = 0.1, .noise = 0.05, .ambient_every = 10, .speed = 1,
        .model = {.trip = NAN}, .network_idle = NAN,
        .gov = {.load = 1, .idle_w = NAN, .limit = NAN},
    };
    int status = parse_arguments(argc, argv, &s);
    if (status < 0 && s.model.path)
        status = run_model(&s);
    model_settings_free(&s.model);
    if (status >= 0) {
        free(s.pt);
        free(s.pw);
        return status;
    }
    if (s.nterms == 0 && s.power == 0)
        s.power = 5;
    tb_modes m;
    double t0;
    if (build_model(&s, &m, &t0) < 0) {
        free(s.pt);
        free(s.pw);
        return usage_error("%s", "the network's R and C must be positive");
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) {
        fputs("tb-sim: out of memory\n", stderr);
        free(s.pt);
        free(s.pw);
        return TB_EXIT_OUTPUT;
    }
    gsl_rng_set(rng, s.seed);
    status = s.sysfs         ? run_sysfs(&s, &m, t0, rng)
             : s.gov.npolicies ? network_governor(&s, &m)
             : s.steady        ? print_steady(&s, &m, t0)
                               : write_run(&s, &m, t0, rng);
    gsl_rng_free(rng);
    free(s.pt);
    free(s.pw);
    return status;
}
