/*
 * find_program.c -- another tbkit program, beside this one or on PATH.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "find_program.h"

/* PATH as a program, when it is an executable regular file. */
static char *program_at(const char *path)
{
    struct stat st;
    if (path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
        return strdup(path);
    return NULL;
}

char *tb_find_program(const char *name, const char *subdir)
{
    char self[PATH_MAX], path[PATH_MAX + 256];
    char *found = NULL;

    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        const char *here = dirname(self);   /* absolute: the kernel's path */
        const char *const places[] = {"%s/%s", "%s/../%s/%s", "%s/../../%s/%s"};
        for (size_t i = 0; i < 3 && !found; i++) {
            if (i == 0)
                snprintf(path, sizeof path, places[i], here, name);
            else
                snprintf(path, sizeof path, places[i], here, subdir, name);
            found = program_at(path);
        }
    }
    const char *env = getenv("PATH");
    char *dirs = env ? strdup(env) : NULL;
    for (char *save, *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        if (d[0] != '/')
            continue;   /* "", "." and relative folders: the current directory */
        snprintf(path, sizeof path, "%s/%s", d, name);
        found = program_at(path);
    }
    free(dirs);
    return found;
}

/* In the child: FD made a copy of the file PATH opened with FLAGS; 0 or
 * -1.  Only what is safe after fork() in a program with threads (tb-report
 * -j runs tools from several): no stdio, no malloc. */
static int redirect(int fd, const char *path, int flags)
{
    int f = open(path, flags | O_CLOEXEC, 0666);
    if (f < 0)
        return -1;
    int rc = dup2(f, fd) < 0 ? -1 : 0;   /* the copy keeps no O_CLOEXEC */
    close(f);
    return rc;
}

int tb_run_program(char *const *argv, const char *out, const char *errs, const char *prog)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if ((out && redirect(STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC) < 0) ||
            (errs && redirect(STDERR_FILENO, errs, O_WRONLY | O_CREAT | O_APPEND) < 0))
            _exit(127);
        execv(argv[0], argv);
        /* one write(), whole: stdio's buffers may be another thread's */
        char line[PATH_MAX + 128];
        int len = snprintf(line, sizeof line, "%s: cannot run %s: %s\n", prog, argv[0],
                           strerror(errno));
        if (len > 0 && write(STDERR_FILENO, line, (size_t)len < sizeof line ? (size_t)len
                                                                          : sizeof line - 1) < 0)
            _exit(127);
        _exit(127);
    }
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}
