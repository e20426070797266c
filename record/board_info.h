/*
 * board_info.h -- which board a run came from: the metadata tb-record
 * writes of it (see board_info.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_BOARD_INFO_H
#define TB_BOARD_INFO_H

#include <stddef.h>

#define BOARD_INFO_MAX 16

/* "KEY=VALUE" strings, as --meta gives them: board, compatible,
 * board_revision, firmware, cpu, cpu_clusters, cpufreq_governor, cmdline,
 * thermal_governor, each where the board shows it. */
struct board_info {
    char *kv[BOARD_INFO_MAX];
    size_t n;
};

/* Read the board under SYSFS_ROOT (NULL: /sys; a faked root's /proc is
 * the directory "proc" beside it) into B: 0, or -1 when memory runs out
 * (B is then empty).  What cannot be read is left out. */
int board_info_read(struct board_info *b, const char *sysfs_root);

void board_info_free(struct board_info *b);

#endif
