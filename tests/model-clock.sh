#!/bin/sh
# model-clock.sh SPEED RECORDED PREDICTED OUT_RECORDED OUT_PREDICTED
#
# A recording of tb-sim's fake board (--sysfs --speed SPEED) and the
# closed loop's prediction of the same model, put on the same instants:
# the recording on the model's clock (its time column replaced by the
# column model_time/ms, the work counters scaled back to the model's
# operations), each row kept only if the board's sequence count, read
# first (seq0) and last (seq1), was the same and even (a row read while
# the board stepped mixes two steps); the prediction cut to the rows at
# the instants kept.  Then every metric of the two can be compared as is.
# SPDX-License-Identifier: GPL-3.0-or-later
[ $# -eq 5 ] || { echo "usage: model-clock.sh SPEED RECORDED PREDICTED OUT_RECORDED OUT_PREDICTED" >&2; exit 2; }
awk -F, -v OFS=, -v speed="$1" '/^#/ { print; next }
    !h { for (i = 1; i <= NF; i++) { if ($i == "model_time/ms") m = i; if ($i == "seq0") a = i; if ($i == "seq1") b = i
                                     if ($i ~ /work_done$/) w[i] = 1 }
         if (!m || !a || !b) { print "model-clock.sh: no model_time/ms, seq0 and seq1 columns" >"/dev/stderr"; exit 2 }
         h = 1 }
    { if (h == 1) { $1 = "time/ms"; h = 2 } else if ($m == "" || $a != $b || $a % 2) next
      else { $1 = $m; for (i in w) if ($i != "") $i = sprintf("%.0f", $i * speed) }
      $a = $b = $m = "\001"; gsub(/,\001/, ""); print }' "$2" >"$4" || exit 2
awk -F, 'FNR == NR { if ($1 ~ /^[0-9]/) at[$1 + 0] = 1; next } /^#/ || !/^[0-9]/ || (($1 + 0) in at)' "$4" "$3" >"$5"
