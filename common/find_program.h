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

#endif
