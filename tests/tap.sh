# tap.sh -- TAP helpers for tbkit's shell tests; source it.
# SPDX-License-Identifier: GPL-3.0-or-later
tap_n=0
tap_failed=0

# ok COND DESCRIPTION: COND is a shell command; its status decides.
ok() {
    tap_n=$((tap_n + 1))
    if eval "$1" >/dev/null 2>&1; then
        echo "ok $tap_n - $2"
    else
        echo "not ok $tap_n - $2"
        echo "#   failed: $1"
        tap_failed=$((tap_failed + 1))
    fi
}

# is GOT WANT DESCRIPTION
is() {
    tap_n=$((tap_n + 1))
    if [ "$1" = "$2" ]; then
        echo "ok $tap_n - $3"
    else
        echo "not ok $tap_n - $3"
        printf '#   got:  %s\n#   want: %s\n' "$1" "$2" | sed '3,$s/^/#         /'
        tap_failed=$((tap_failed + 1))
    fi
}

# skip DESCRIPTION: a test that cannot run here, said so.
skip() {
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP $1"
}

# alive PATTERN: a process (not a zombie) whose command line matches.
alive() {
    for p in $(pgrep -f "$1"); do
        [ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" = Z ] || return 0
    done
    return 1
}

# wait_until CONDITION [TRIES]: eval CONDITION every 50 ms until it
# holds, at most TRIES times (default 600: 30 s); false if it never did.
wait_until() {
    _tries=0
    until eval "$1"; do
        _tries=$((_tries + 1))
        [ "$_tries" -lt "${2:-600}" ] || return 1
        sleep 0.05
    done
}

# sim_farm DIR: a board farm's runs in DIR, simulated with the board's
# identity in their metadata as tb-record writes it: two boards (their
# device tree's compatible), the Raspberry Pi 6 °C hotter than the i.MX8
# on every kernel, and 6.6 +0.8 °C on the Pi (+0.1 on the i.MX8); two
# runs of 20 minutes per board and kernel.
sim_farm() {
    mkdir -p "$1"
    _seed=0
    for _b in imx8qm rpi4; do
        for _k in 6.1 6.6; do
            for _r in 1 2; do
                _t=$(awk -v b=$_b -v k=$_k 'BEGIN { printf "%.1f", b == "rpi4" ? (k == "6.6" ? 58.8 : 58) : (k == "6.6" ? 52.1 : 52) }')
                _c=$([ $_b = imx8qm ] && echo "fsl,imx8qm-mek fsl,imx8qm" || echo "raspberrypi,4-model-b brcm,bcm2711")
                _seed=$((_seed + 1))
                "$top_builddir/sim/tb-sim" --tinf "$_t" --term=-8,40 --term=-6,300 --duration 20min \
                    --seed "$_seed" --meta board=$_b --meta "compatible=$_c" --meta kernel=$_k \
                    -o "$1/$_b-$_k-$_r.csv" 2>/dev/null || return 1
            done
        done
    done
}

# started FILE: wait (up to 60 s) for FILE's header row.  tb-record writes
# it once its signal handlers are in place, so a signal sent after this
# meets them -- also when the recorder starts slowly (under valgrind).
started() {
    wait_until "grep -qv '^#' '$1' 2>/dev/null" 1200 ||
        { echo "# started: no header row in $1 after 60 s"; return 1; }
}

# alive_pid PID: that process is running (not a zombie).
alive_pid() {
    [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v '^Z')" ]
}

# The text of a PLplot SVG, a line a string, its entities decoded (any
# character past ASCII becomes "?").
svg_text() {
    grep -o '<tspan[^>]*>[^<]*</tspan>' "$1" | sed 's/<[^>]*>//g' | awk '{
        while (match($0, /&#x[0-9a-f]+;/)) {
            h = substr($0, RSTART + 3, RLENGTH - 4); v = 0
            for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
            $0 = substr($0, 1, RSTART - 1) (v < 128 ? sprintf("%c", v) : "?") substr($0, RSTART + RLENGTH)
        }
        print }'
}
# A number of this run, to tell its processes from any other's.
u=$$

tap_done() {
    echo "1..$tap_n"
    [ "$tap_failed" -eq 0 ]
}

: "${top_srcdir:=.}" "${top_builddir:=.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tbkit-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# program PATH: the program PATH (DIR/NAME) itself.  In a shared,
# uninstalled build PATH is libtool's wrapper script, a shell started
# before each run; the program is DIR/.libs/NAME, which needs the tree's
# lib/.libs on LD_LIBRARY_PATH.  A static build's PATH is the program.
program() {
    if [ -x "${1%/*}/.libs/${1##*/}" ]; then
        echo "${1%/*}/.libs/${1##*/}"
    else
        echo "$1"
    fi
}

# TB_MEMCHECK=DIR runs every tool under valgrind memcheck: the tests see a
# build tree of wrappers, and each run leaves its report in DIR (empty when
# clean), so the suite's own checks of output and status stay as they are.
# --fair-sched: valgrind runs one thread at a time, and without it a thread
# that never blocks (tb-load's) can starve the others for many seconds.
# The program libtool built into .libs runs directly, with the library's
# path set as libtool's wrapper would: "libtool --mode=execute" costs a
# third of a second a run, a thousand runs.
# plain_builddir is the build tree itself, never under valgrind: for a run
# that takes again, on the same kind of input, a path a checked run took
# already (memcheck costs some 50 times the CPU, and CI's time is finite).
plain_builddir=$top_builddir
if [ -n "${TB_MEMCHECK:-}" ]; then
    real=$(cd "$top_builddir" && pwd)
    srcabs=$(cd "$top_srcdir" && pwd)
    mkdir -p "$TB_MEMCHECK"
    for t in fit/tb-info fit/tb-fit fit/tb-ident compare/tb-compare sim/tb-sim plot/tb-plot report/tb-report record/tb-record record/tb-series load/tb-load; do
        mkdir -p "$tmp/vg/${t%/*}"
        bin=$(program "$real/$t")
        printf '#!/bin/sh\nLD_LIBRARY_PATH="%s/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\nexport LD_LIBRARY_PATH\nexec valgrind -q --fair-sched=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=%s/tests/valgrind.supp --log-file="%s/%s.%%p" "%s" "$@"\n' \
            "$real" "$srcabs" "$TB_MEMCHECK" "${t#*/}" "$bin" >"$tmp/vg/$t"
        chmod +x "$tmp/vg/$t"
    done
    ln -s "$real/tests" "$tmp/vg/tests"
    top_builddir=$tmp/vg
fi
