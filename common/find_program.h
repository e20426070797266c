/*
 * find_program.h -- find another tbkit program (tb-compare runs tb-plot)
 * where the running one is installed or built, or on PATH: never in the
 * current directory, where anyone could have put a program of that name.
 * Part of libtbtools, the host programs' shared code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_FIND_PROGRAM_H
#define TB_FIND_PROGRAM_H

/*
 * The absolute path of the program NAME (to free()): beside the running
 * program (/proc/self/exe), as installed; then in the build tree, in the
 * folder SUBDIR beside the running program's own folder (or beside its
 * .libs, where libtool runs it from); then in PATH's absolute folders.
 * NULL when it is in none of them.
 */
char *tb_find_program(const char *name, const char *subdir);

/*
 * Run the program ARGV[0] (a path, as tb_find_program() gives) with its
 * arguments and wait for it: its standard output into the file OUT (NULL:
 * tbkit's own), its standard error appended to the file ERRS (NULL:
 * tbkit's own).  Its exit status, or -1 when it could not be run or was
 * killed; PROG names the caller in the line said when it cannot start.
 */
int tb_run_program(char *const *argv, const char *out, const char *errs, const char *prog);

#endif
