/*
 * group_stats.c -- the statistics of comparing groups of runs: Welch's
 * t-test, Holm's correction for many comparisons, and the natural order of
 * version strings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsl_errors.h"
#include "tbfit.h"

int tb_welch_test(const double *a, size_t na, const double *b, size_t nb,
                  double level, tb_welch_result *r)
{
    if (na < 2 || nb < 2)
        return -1;
    fit_gsl_errors_off();
    double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
    double va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
    double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
    double se = sqrt(va + vb);

    r->diff = mb - ma;
    if (!(se > 0)) {   /* no spread at all: any difference is certain */
        r->t = r->diff == 0 ? 0 : copysign(INFINITY, r->diff);
        r->dof = (double)(na + nb - 2);
        r->p = r->diff == 0 ? 1 : 0;
        r->lo = r->hi = r->diff;
        return 0;
    }
    r->t = r->diff / se;
    r->dof = (va + vb) * (va + vb) /
             (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    r->p = 2 * gsl_cdf_tdist_Q(fabs(r->t), r->dof);
    double half = gsl_cdf_tdist_Pinv(0.5 + level / 2, r->dof) * se;
    r->lo = r->diff - half;
    r->hi = r->diff + half;
    return 0;
}

int tb_holm_adjust(const double *p, size_t n, double *adjusted)
{
    if (n == 0)
        return 0;
    size_t *order = malloc(n * sizeof *order);
    double *copy = malloc(n * sizeof *copy);
    if (!order || !copy) {
        free(order);
        free(copy);
        return -1;
    }
    memcpy(copy, p, n * sizeof *copy);
    gsl_sort_index(order, copy, 1, n);
    double running = 0;
    for (size_t k = 0; k < n; k++) {
        double v = fmin(1, (double)(n - k) * copy[order[k]]);
        running = fmax(running, v);   /* adjusted p-values never decrease */
        adjusted[order[k]] = running;
    }
    free(order);
    free(copy);
    return 0;
}

int tb_natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a - (unsigned char)*b;
            a++;
            b++;
        }
    }
    return (unsigned char)*a - (unsigned char)*b;
}
