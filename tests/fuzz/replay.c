/*
 * replay.c -- run a fuzz harness over the files named on the command line
 * (its corpus), for make check without clang.  TAP: one line a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        unsigned char *buf = NULL;
        size_t size = 0, cap = 0, n;
        if (!f) {
            printf("not ok %d - %s: cannot open\n", i, argv[i]);
            failed++;
            continue;
        }
        do {
            if (size + 4096 > cap) {
                unsigned char *nb = realloc(buf, cap = size + 65536);
                if (!nb)
                    break;
                buf = nb;
            }
            n = fread(buf + size, 1, cap - size, f);
            size += n;
        } while (n > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", size);
        free(buf);
        printf("ok %d - %s\n", i, argv[i]);
    }
    printf("1..%d\n", argc - 1);
    return failed ? 1 : 0;
}
