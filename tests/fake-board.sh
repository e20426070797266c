# tests/fake-board.sh -- sourced: the README's strategies block run on
# tb-sim's fake board, as tests/readme.test and tools/make-figures run it.
#
# fake_board_start DIR NET OPP: a board under DIR, of the network NET and
# operating points OPP at 35 °C (0.5 W idle), under step_wise with trips
# at 50 and 60 °C, idle until a benchmark writes DIR/tbsim/load, 900
# times faster than real time; waits until its tree is there.
# fake_board_block FILE: the README block FILE, for that board: tb-series
# on DIR, 30-minute runs of 2 s (30 simulated minutes) sampled every 10 ms,
# the cool-down's timeout 20 s, the work counter the board's, and tb-load
# replaced by a benchmark that keeps the board's CPUs busy while it runs.
# fake_board_stop: the board stopped.
# SPDX-License-Identifier: GPL-3.0-or-later
fake_board_start() {
    fake_board_dir=$1
    "${TB_SIM:-tb-sim}" --sysfs "$1" --network "$2" --opp "$3" --idle-power 0.5W --ambient 35 \
        --policy "step_wise trips=50,60" --load 0 --speed 900 --duration 1e7 >/dev/null 2>&1 &
    fake_board_pid=$!
    n=0
    while [ ! -f "$1/tbsim/load" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
    cat >"$1.busy.sh" <<BUSY
echo 1 >"$1/tbsim/load"
trap 'echo 0 >"$1/tbsim/load"; exit 0' TERM INT EXIT
sleep 100000 & wait
BUSY
}
fake_board_block() {
    sed -e "s|^tb-series |tb-series --sysfs-root $fake_board_dir |" \
        -e 's/^\(time *=\) *30m$/\1 2s/; s/^\(period *=\) *500$/\1 10/; s/^\(cooldown *=\) *38C 20m$/\1 38C 20s/' \
        -e "s|-c 'CPU\*_work_done'|-S '$fake_board_dir/tbsim/work_done CPU0_work_done'|" \
        -e "s|^run = tb-load .*|run = sh $fake_board_dir.busy.sh|" "$1"
}
fake_board_stop() {
    kill "$fake_board_pid" 2>/dev/null
    wait "$fake_board_pid" 2>/dev/null
}
