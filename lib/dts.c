/*
 * dts.c -- a measured board as a device-tree thermal zone (tb-fit --dts):
 * the sustainable power, the power allocator's two passive trips, the
 * passive polling its fastest fitted rise calls for, and a cooling map
 * for the user to bind; each number's source and interval in a comment.
 * (Documentation/devicetree/bindings/thermal/thermal-zones.yaml.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tbfit.h"

#define HYSTERESIS_MC 2000     /* a trip's hysteresis, as the bindings' examples */
#define STEP_PER_POLL 0.1      /* °C the zone may rise between two polls */

int tb_dts_write_begin(FILE *f)
{
    fprintf(f, "/*\n * Thermal zones measured by tbkit %s (tb-fit --dts).\n"
               " * Bind each cooling map's cooling-device to the CPUs' cooling device (here\n"
               " * &cpu_cooling, states from none to all: 0xffffffff is THERMAL_NO_LIMIT) and\n"
               " * thermal-sensors to the zone's sensor (here &zone_sensor).\n */\n"
               "thermal-zones {\n", PACKAGE_VERSION);
    return ferror(f) ? -1 : 0;
}

int tb_dts_write_end(FILE *f)
{
    fputs("};\n", f);
    return ferror(f) ? -1 : 0;
}

/* Column INDEX named NAME as a node name's stem (lowercase letters,
 * digits and '-', at most 10: the bindings' "^[a-zA-Z][a-zA-Z0-9\-]{1,10}
 * -thermal$"; a name too long is cut and given the column's index, so
 * two zones never share one) and as a label (a C identifier). */
static void names_of(const char *name, size_t index, char *node, char *label)
{
    char clean[64];
    size_t n = 0, l = 0;
    for (const char *c = name; *c && n < sizeof clean - 1; c++)
        if (isalnum((unsigned char)*c) && (n > 0 || isalpha((unsigned char)*c)))
            clean[n++] = (char)tolower((unsigned char)*c);
        else if (n > 0 && clean[n - 1] != '-')
            clean[n++] = '-';
    while (n > 0 && clean[n - 1] == '-')
        n--;
    clean[n] = '\0';
    if (n >= 2 && n <= 10) {
        memcpy(node, clean, n + 1);
    } else {
        char idx[24];
        size_t w = (size_t)snprintf(idx, sizeof idx, "-%zu", index % 100000);
        const char *stem = n >= 2 ? clean : "zone";
        size_t keep = strlen(stem) < 10 - w ? strlen(stem) : 10 - w;
        memcpy(node, stem, keep);
        memcpy(node + keep, idx, w + 1);
    }
    if (!isalpha((unsigned char)name[0]))
        label[l++] = 'z';
    for (const char *c = name; *c && l < 30; c++)
        label[l++] = isalnum((unsigned char)*c) ? (char)tolower((unsigned char)*c) : '_';
    label[l] = '\0';
}

/* The passive polling delay: the longest usual one (10 ms to 1 s) in
 * which the fastest fitted rise moves the zone STEP_PER_POLL at most. */
static int passive_delay_ms(double rate)
{
    static const int usual[] = {1000, 500, 250, 200, 100, 50, 20, 10};
    for (size_t i = 0; i < sizeof usual / sizeof *usual; i++)
        if (rate * usual[i] / 1000 <= STEP_PER_POLL)
            return usual[i];
    return 10;
}

int tb_dts_write_zone(FILE *f, const tb_analysed_column *c, char *err, size_t errlen)
{
    const tb_sustainable *su = c->sustainable;
    const tb_thermal *th = c->thermal;
    if (!su || !th || !c->fit || !(su->power.value > 0) || isnan(su->switch_on)) {
        snprintf(err, errlen, "%s: %s: no thermal zone: it needs a fit with its power, a "
                 "sustainable power and a switch-on trip", c->source, c->column->name);
        return -1;
    }
    char node[16], label[40];
    names_of(c->column->name, c->index, node, label);
    double rate = 0;   /* K/s at the fitted step, from rest: ΔP·Σ 1/Cᵢ */
    for (size_t i = 0; i < th->n; i++)
        rate += th->power.step / th->foster_c[i].value;
    int passive = passive_delay_ms(rate);
    long mw = (long)floor(su->power.value * 1000);
    fprintf(f, "\t/* %s of %s */\n\t%s: %s-thermal {\n", c->column->name, c->source, label, node);
    fprintf(f, "\t\t/* once above switch-on, a poll every %d ms: the fastest fitted rise,\n"
               "\t\t * %.3g °C/s at the run's %.3g W step from rest, moves the zone %.2g °C in it */\n"
               "\t\tpolling-delay-passive = <%d>;\n\t\tpolling-delay = <1000>;\n"
               "\t\tthermal-sensors = <&zone_sensor>;\n",
            passive, rate, th->power.step, rate * passive / 1000, passive);
    fprintf(f, "\t\t/* mW: the power sustained below %g °C, %.0f [%.0f, %.0f] mW (95 %%):\n"
               "\t\t * idle + (trip - idle temperature, %.1f °C) / R_th, R_th %.4g [%.4g, %.4g] K/W */\n"
               "\t\tsustainable-power = <%ld>;\n",
            su->trip, su->power.value * 1000, su->power.lo * 1000, su->power.hi * 1000,
            su->idle_temp, th->r_th.value, th->r_th.lo, th->r_th.hi, mw);
    fprintf(f, "\t\ttrips {\n"
               "\t\t\t/* the power allocator's switch-on (tb-fit --switch-on) */\n"
               "\t\t\t%s_switch_on: trip-switch-on {\n\t\t\t\ttemperature = <%ld>;\n"
               "\t\t\t\thysteresis = <%d>;\n\t\t\t\ttype = \"passive\";\n\t\t\t};\n"
               "\t\t\t/* the temperature it controls for (tb-fit --trip) */\n"
               "\t\t\t%s_desired: trip-desired {\n\t\t\t\ttemperature = <%ld>;\n"
               "\t\t\t\thysteresis = <%d>;\n\t\t\t\ttype = \"passive\";\n\t\t\t};\n\t\t};\n",
            label, lround(su->switch_on * 1000), HYSTERESIS_MC, label, lround(su->trip * 1000),
            HYSTERESIS_MC);
    fprintf(f, "\t\tcooling-maps {\n\t\t\tmap0 {\n\t\t\t\ttrip = <&%s_desired>;\n"
               "\t\t\t\tcooling-device = <&cpu_cooling 0xffffffff 0xffffffff>;\n"
               "\t\t\t\t/* its share of the budget against other maps' (1024 alone) */\n"
               "\t\t\t\tcontribution = <1024>;\n\t\t\t};\n\t\t};\n\t};\n", label);
    return ferror(f) ? -1 : 0;
}
