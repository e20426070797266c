#!/bin/sh
# strategy-runs.sh DIR SEED SWITCH SLOW: three 10-minute runs at 1 Hz of a
# board under a 55 °C passive trip whose cooling device (state 0 or 1)
# throttles from SWITCH °C, its work slowed to SLOW (a share) while it
# does: the runs of one thermal-management strategy, for tb-compare and
# tb-plot tradeoff.  The temperature rises as 40 + 20 (1 - e^(-t/150)).
# SPDX-License-Identifier: GPL-3.0-or-later
mkdir -p "$1" || exit 1
for r in 1 2 3; do
    awk -v seed="$(( $2 + r ))" -v on="$3" -v slow="$4" 'function g() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
    BEGIN {
        srand(seed); work = 0
        print "# trip.cpu.0: passive 55000"
        print "# max_state.fan_cdev0: 3"
        print "time/ms,cpu/m°C,fan_cdev0/state,CPU0_work_done"
        for (i = 0; i < 600; i++) {
            T = 40 + 20 * (1 - exp(-i / 150)) + 0.2 * g(); s = T > on
            work += 100 * (s ? slow : 1) + 3 * g()
            printf "%d,%d,%d,%d\n", i * 1000, int(T * 1000), s, int(work)
        }
    }' >"$1/run$r.csv" || exit 1
done
