# bench/programs.sh -- sourced by the benchmarks that time whole programs:
# program DIR/NAME prints the path of the program itself.  In a shared,
# uninstalled build, DIR/NAME is libtool's wrapper script, a shell that
# costs about 60 ms a start before the program runs; the program is
# DIR/.libs/NAME, with the tree's libraries on LD_LIBRARY_PATH (exported
# here once).  A static build's DIR/NAME is the program already.
# SPDX-License-Identifier: GPL-3.0-or-later
if [ -d lib/.libs ]; then
    LD_LIBRARY_PATH=$PWD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
program() {
    if [ -x "$(dirname "$1")/.libs/$(basename "$1")" ]; then
        echo "$(dirname "$1")/.libs/$(basename "$1")"
    else
        echo "$1"
    fi
}
