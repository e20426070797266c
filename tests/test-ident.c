/*
 * test-ident.c -- the identification of a multi-input model on runs with
 * known truth: two inputs excited by pseudo-random binary sequences,
 * three sensors, two shared modes, Gaussian noise.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "tbfit.h"

#define NU 2
#define NS 3
#define NM 2

static const double true_tau[NM] = {20, 300};
static const double true_gain[NS][NU][NM] = {
    {{0.8, 2.0}, {0.2, 1.0}},
    {{0.3, 1.2}, {0.7, 1.8}},
    {{0.1, 0.9}, {0.1, 0.9}},
};

struct sim_run {
    double *t, *u[NU], *y[NS];
    const double *up[NU], *yp[NS];
    tb_ident_run run;
};

/* A run of N rows every DT s, each input switching between 0.5 and 4 W
 * at random every HOLD s, the noise NOISE; starts at rest. */
static void simulate(struct sim_run *s, gsl_rng *rng, size_t n, double dt, double hold,
                     double noise, const char *name)
{
    double x[NU][NM] = {{0}};
    s->t = malloc(n * sizeof *s->t);
    for (int u = 0; u < NU; u++)
        s->u[u] = malloc(n * sizeof *s->u[u]);
    for (int i = 0; i < NS; i++)
        s->y[i] = malloc(n * sizeof *s->y[i]);
    double level[NU] = {0.5, 0.5};
    for (size_t k = 0; k < n; k++) {
        s->t[k] = (double)k * dt;
        if (k % (size_t)(hold / dt) == 0)
            for (int u = 0; u < NU; u++)
                level[u] = gsl_rng_uniform(rng) < 0.5 ? 0.5 : 4;
        for (int i = 0; i < NS; i++) {
            double v = 25 + 3 * i;
            for (int u = 0; u < NU; u++)
                for (int j = 0; j < NM; j++)
                    v += true_gain[i][u][j] * x[u][j];
            s->y[i][k] = v + gsl_ran_gaussian(rng, noise);
        }
        for (int u = 0; u < NU; u++) {
            s->u[u][k] = level[u];
            for (int j = 0; j < NM; j++) {
                double a = exp(-dt / true_tau[j]);
                x[u][j] = a * x[u][j] + (1 - a) * level[u];
            }
        }
    }
    for (int u = 0; u < NU; u++)
        s->up[u] = s->u[u];
    for (int i = 0; i < NS; i++)
        s->yp[i] = s->y[i];
    s->run = (tb_ident_run){.name = name, .n = n, .t = s->t, .u = s->up, .y = s->yp};
}

static void sim_free(struct sim_run *s)
{
    free(s->t);
    for (int u = 0; u < NU; u++)
        free(s->u[u]);
    for (int i = 0; i < NS; i++)
        free(s->y[i]);
}

static const char *const inputs[NU] = {"P0", "P1"};
static const char *const sensors[NS] = {"T0", "T1", "T2"};

int main(void)
{
    /* TB_QUICK (under valgrind): shorter runs and settling, the same checks */
    int quick = tap_quick();
    size_t rows = quick ? 900 : 1800;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    struct sim_run runs[4];
    tb_ident_run in[3];
    char err[TB_ERRMAX];
    for (int r = 0; r < 4; r++)
        simulate(&runs[r], rng, rows, 1, 30, 0.05, "sim");
    for (int r = 0; r < 3; r++)
        in[r] = runs[r].run;

    tb_ident_model m;
    tb_ident_options o = tb_ident_default_options();
    int rc = tb_ident_fit(in, 3, inputs, NU, sensors, NS, &o, &m, err, sizeof err);
    ok(rc == 0, "three simulated runs identified%s%s", rc ? ": " : "", rc ? err : "");
    if (rc == 0) {
        printf("# modes %zu (held-out rmse %.4f %.4f %.4f), flags %#x\n", m.nmodes,
               m.held_out[0], m.held_out[1], m.held_out[2], m.flags);
        ok(m.nmodes == NM, "two modes chosen by the held-out runs");
        ok(m.choice == TB_IDENT_HELD_OUT, "the choice says so");
        for (size_t j = 0; j < m.nmodes && j < NM; j++) {
            printf("# tau %zu: %g [%g, %g]\n", j + 1, m.tau[j].value, m.tau[j].lo, m.tau[j].hi);
            ok(m.tau[j].lo <= true_tau[j] && true_tau[j] <= m.tau[j].hi,
               "tau %zu's interval holds the truth", j + 1);
        }
        int inside = 0, total = 0, negative = 0;
        for (int i = 0; i < NS; i++)
            for (int u = 0; u < NU; u++) {
                double truth = 0;
                for (int j = 0; j < NM; j++) {
                    const tb_estimate *g = &m.gain[(i * NU + u) * m.nmodes + j];
                    truth += true_gain[i][u][j];
                    if (m.nmodes == NM) {
                        inside += g->lo <= true_gain[i][u][j] && true_gain[i][u][j] <= g->hi;
                        total++;
                    }
                    negative += g->value < 0;
                }
                const tb_estimate *s = &m.steady[i * NU + u];
                printf("# K %s<-%s %.4f [%.4f, %.4f] truth %.4f\n", sensors[i], inputs[u],
                       s->value, s->lo, s->hi, truth);
                inside += s->lo <= truth && truth <= s->hi;
                total++;
            }
        ok(inside >= total - 2, "%d of %d gains inside their intervals", inside, total);
        ok(negative == 0, "no gain negative");
        for (int i = 0; i < NS; i++)
            ok(fabs(m.rmse[i] - 0.05) < 0.005, "sensor %d's rmse %.4f is the noise's 0.05", i,
               m.rmse[i]);

        /* 15-minute runs (TB_QUICK) are too short for the 300 s τ: slow_mode */
        ok((m.flags & ~(quick ? TB_IDENT_SLOW_MODE : 0)) == 0, "no flag on the clean runs (flags %#x)",
           m.flags);
        for (int i = 0; i < NS; i++)
            ok(fabs(m.rest[i] - (25 + 3 * i)) < 0.05, "sensor %d at rest: %.3f °C, truth %d", i,
               m.rest[i], 25 + 3 * i);

        /* a schedule's periodic steady state against a long simulation */
        tb_schedule sch;
        rc = tb_schedule_parse("split: frame 100ms; 40ms P0=4W P1=0.5; 60ms P0=500mW P1=4", &m,
                               &sch, err, sizeof err);
        ok(rc == 0 && sch.nwindows == 2 && strcmp(sch.name, "split") == 0 &&
               sch.input[1][0] == 0.5 && fabs(sch.frame - 0.1) < 1e-12,
           "a schedule parsed%s%s", rc ? ": " : "", rc ? err : "");
        rc = tb_schedule_parse("my frame: frame 1s; 1s P0=1", &m, &sch, err, sizeof err);
        ok(rc == 0 && strcmp(sch.name, "my frame") == 0, "a schedule named with 'frame' in it%s%s",
           rc ? ": " : "", rc ? err : "");
        rc = tb_schedule_parse("split: frame 100ms; 40ms P0=4W P1=0.5; 60ms P0=500mW P1=4", &m,
                               &sch, err, sizeof err);
        tb_periodic per;
        ok(tb_ident_periodic(&m, &sch, 0, &per) == 0, "its periodic steady state");
        double x[NU * NM] = {0}, y[NS], u[NU], peak[NS] = {-1e9, -1e9, -1e9}, t = 0;
        double settle = quick ? 12 : 20;   /* of the slowest τ: e^-12 is 6e-6 */
        while (t < settle * 300) {
            double next = tb_schedule_inputs(&sch, NU, t, u);
            tb_ident_advance(&m, x, u, next - t);
            t = next;
            tb_ident_output(&m, x, 0, y);
            if (t > (settle - 1) * 300)
                for (int i = 0; i < NS; i++)
                    peak[i] = fmax(peak[i], y[i]);
        }
        for (int i = 0; i < NS; i++)
            ok(fabs(per.peak[i] - peak[i]) < 0.005 && per.mean[i] < per.peak[i] &&
                   per.trough[i] < per.mean[i],
               "sensor %d: peak %.4f °C, simulated %.4f", i, per.peak[i], peak[i]);
        const char *bad[][2] = {
            {"frame 100ms; 40ms P0=4; 50ms P1=4", "the windows fill 0.09 s of the 0.1 s frame"},
            {"frame 100ms; 100ms P9=4", "the model has no input P9"},
            {"frame 100ms; 100ms P0=four", "P0=four is not a number"},
            {"100ms; 100ms P0=4", "it starts with 'frame DURATION'"},
            {"frame 100ms", "no window"},
            {"frame 100ms; 100ms P0=1 P0=2", "window 1: P0 is given twice"},
            {"framed 100ms; 100ms P0=1", "it starts with 'frame DURATION', not 'framed'"},
        };
        for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
            rc = tb_schedule_parse(bad[k][0], &m, &sch, err, sizeof err);
            ok(rc < 0 && strstr(err, bad[k][1]), "'%s' refused: %s", bad[k][0], err);
        }

        /* the fourth run, held out: predicted from its inputs */
        double rmse[NS], worst[NS], *pred[NS];
        for (int i = 0; i < NS; i++)
            pred[i] = malloc(runs[3].run.n * sizeof *pred[i]);
        rc = tb_ident_predict(&m, &runs[3].run, pred, rmse, worst, err, sizeof err);
        ok(rc == 0, "a held-out run predicted");
        for (int i = 0; i < NS; i++) {
            ok(rmse[i] < 1.2 * 0.05, "sensor %d held out: rmse %.4f within 1.2x the noise", i,
               rmse[i]);
            ok(fabs(pred[i][rows / 2] - runs[3].y[i][rows / 2]) < 0.3,
               "the prediction is the temperature, not a deviation");
            free(pred[i]);
        }

        /* the model file: written and read back */
        char path[] = "/tmp/test-ident-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "w");
        ok(tb_ident_model_write(f, &m) == 0, "the model written");
        fclose(f);
        tb_ident_model back;
        rc = tb_ident_model_read(path, &back, err, sizeof err);
        ok(rc == 0, "the model read back%s%s", rc ? ": " : "", rc ? err : "");
        if (rc == 0) {
            ok(back.nmodes == m.nmodes && back.ninputs == NU && back.nsensors == NS &&
                   back.tau[1].value == m.tau[1].value &&
                   back.steady[5].value == m.steady[5].value &&
                   strcmp(back.sensors[2], "T2") == 0 && strcmp(back.inputs[1], "P1") == 0,
               "with the same modes, gains and names");
            tb_ident_model_clear(&back);
        }
        unlink(path);

        /* state space: the discrete model steps as the data were made */
        size_t nx = NU * m.nmodes;
        double Phi[64], Gam[64], C[128];
        tb_ident_state_space(&m, 1.0, NULL, NULL, C, NULL, Phi, Gam);
        ok(fabs(Phi[0] - exp(-1 / m.tau[0].value)) < 1e-15 && Gam[0] == 1 - Phi[0] &&
               C[0] == m.gain[0].value && C[nx - 1] == m.gain[(0 * NU + 1) * m.nmodes + m.nmodes - 1].value,
           "state space: Φ = e^(−dt/τ), Γ = 1 − Φ, C the gains");
        tb_ident_model_clear(&m);
    }

    /* one mode given: fitted as asked, flagged by nothing it need not */
    o.modes = 1;
    rc = tb_ident_fit(in, 3, inputs, NU, sensors, NS, &o, &m, err, sizeof err);
    ok(rc == 0 && m.nmodes == 1 && m.choice == TB_IDENT_GIVEN, "--modes 1 is what is fitted");
    tb_ident_model_clear(&m);

    /* more modes than there are: the spare one is flagged */
    o.modes = 3;
    rc = tb_ident_fit(in, 3, inputs, NU, sensors, NS, &o, &m, err, sizeof err);
    ok(rc == 0 && m.nmodes == 3 && (m.flags & TB_IDENT_MODE_UNUSED),
       "three modes fitted when asked, and flagged: the data carry two");
    printf("# three modes: tau %g %g %g flags %#x\n", m.tau[0].value, m.tau[1].value,
           m.tau[2].value, m.flags);
    tb_ident_model_clear(&m);

    /* an input that does not vary */
    for (size_t k = 0; k < rows; k++)
        runs[0].u[1][k] = runs[1].u[1][k] = runs[2].u[1][k] = 2;
    o.modes = 0;
    rc = tb_ident_fit(in, 3, inputs, NU, sensors, NS, &o, &m, err, sizeof err);
    ok(rc < 0 && strstr(err, "input P1 does not vary"), "a constant input refused: %s", err);

    for (int r = 0; r < 4; r++)
        sim_free(&runs[r]);
    gsl_rng_free(rng);
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}
