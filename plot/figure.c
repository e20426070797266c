/*
 * figure.c -- what every tb-plot figure shares: the output file and its
 * driver, the page, colours, fonts, axes and the legend.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"
#include "figure.h"
#include "output_file.h"

static const char *output_path;
static char *temp_path;   /* where PLplot draws it, renamed to output_path when whole */
static int drawn;         /* figure_end() was reached */
static int vector_text;   /* the SVG driver: text stays text */

/* What the data cover in the current viewport, on a coarse grid, so that
 * the legend goes where it hides least of them. */
#define OCC_GRID 32
static unsigned occupied[OCC_GRID][OCC_GRID];   /* [x][y], weights */

/* The grid cell of world point (X, Y) in the current window, or -1. */
static int occ_cell(double x, double y, int *cx, int *cy)
{
    PLFLT x0, x1, y0, y1;
    plgvpw(&x0, &x1, &y0, &y1);
    double fx = (x - x0) / (x1 - x0), fy = (y - y0) / (y1 - y0);
    if (!(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1))
        return -1;
    *cx = (int)fmin(fx * OCC_GRID, OCC_GRID - 1);
    *cy = (int)fmin(fy * OCC_GRID, OCC_GRID - 1);
    return 0;
}

void occupy_segment(double xa, double ya, double xb, double yb, unsigned weight)
{
    PLFLT x0, x1, y0, y1;
    plgvpw(&x0, &x1, &y0, &y1);
    double dx = fabs(xb - xa) / fabs(x1 - x0), dy = fabs(yb - ya) / fabs(y1 - y0);
    int steps = (int)fmin(ceil(2 * OCC_GRID * fmax(dx, dy)), 4 * OCC_GRID) + 1;
    for (int i = 0; i <= steps; i++) {
        double u = (double)i / steps;
        int cx, cy;
        if (occ_cell(xa + u * (xb - xa), ya + u * (yb - ya), &cx, &cy) == 0)
            occupied[cx][cy] += weight;
    }
}

void occupy_points(size_t n, const double *x, const double *y, unsigned weight)
{
    for (size_t i = 0; i < n; i++) {
        int cx, cy;
        if (occ_cell(x[i], y[i], &cx, &cy) == 0)
            occupied[cx][cy] += weight;
    }
}

static const char *driver_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return NULL;
    if (strcmp(dot, ".png") == 0)
        return "pngcairo";
    /* PLplot's own SVG driver, not cairo's: it keeps text as <text>, so a
     * figure's words can be searched, copied and checked. */
    if (strcmp(dot, ".svg") == 0)
        return "svg";
    if (strcmp(dot, ".pdf") == 0)
        return "pdfcairo";
    return NULL;
}

int figure_check_output(const char *path, char *err, size_t errlen)
{
    if (!driver_for(path)) {
        snprintf(err, errlen, "%s: unknown extension: the figure can be .png, .svg or .pdf", path);
        return -1;
    }
    /* A file of its own beside the figure (so that the rename stays on one
     * file system); the figure itself, or a link's target, is not touched
     * until the new one is whole.  A device or a pipe (/dev/stdout) is
     * drawn into as it is. */
    free(temp_path);
    temp_path = NULL;
    output_path = path;
    if (tb_output_written_through(path))
        return 0;
    if (asprintf(&temp_path, "%s.XXXXXX", path) < 0) {
        temp_path = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fd = mkstemp(temp_path);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        free(temp_path);
        temp_path = NULL;
        return -1;
    }
    mode_t mask = umask(0);   /* the figure's mode as a new file's, not mkstemp's 0600 */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);
    output_path = path;
    return 0;
}

/* Whether the file at PATH ends as a whole figure of its format does: a
 * figure cut by a full disk does not. */
static int figure_whole(const char *path, const char *driver)
{
    unsigned char tail[64];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = 0;
    if (fseek(f, -(long)sizeof tail, SEEK_END) == 0 || fseek(f, 0, SEEK_SET) == 0)
        n = fread(tail, 1, sizeof tail, f);
    fclose(f);
    if (!strcmp(driver, "pngcairo"))
        return n >= 12 && memcmp(tail + n - 8, "IEND\xae\x42\x60\x82", 8) == 0;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        n--;
    if (!strcmp(driver, "pdfcairo"))
        return n >= 5 && memcmp(tail + n - 5, "%%EOF", 5) == 0;
    return n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
}

int figure_finish(int status)
{
    if (!temp_path)
        return status;
    int keep = drawn && (status == TB_EXIT_OK || status == TB_EXIT_FIT);
    if (keep && !figure_whole(temp_path, driver_for(output_path))) {
        fprintf(stderr, "tb-plot: %s: write error: the figure came out cut (a full disk?); "
                "the file there before is kept\n", output_path);
        keep = 0;
        status = TB_EXIT_OUTPUT;
    }
    if (keep && rename(temp_path, output_path) < 0) {
        fprintf(stderr, "tb-plot: %s: cannot write: %s\n", output_path, strerror(errno));
        keep = 0;
        status = TB_EXIT_OUTPUT;
    }
    if (!keep)
        unlink(temp_path);   /* no half-made figure left, the old one as it was */
    free(temp_path);
    temp_path = NULL;
    return status;
}

/* PLplot's own errors end the program: say so in one line, as ours do. */
static int on_plplot_exit(const char *msg)
{
    fprintf(stderr, "tb-plot: %s: PLplot: %s\n", output_path, msg);
    if (temp_path)
        unlink(temp_path);
    exit(TB_EXIT_INPUT);
}

void figure_begin(const struct figure *fig, int subpages)
{
    /* White, black, a light grid, then colours told apart by the colour
     * blind (Okabe-Ito) where there are enough of them. */
    static const PLINT r[C_COUNT] = {255, 0, 225, 0, 213, 0, 230, 204, 205, 128, 140, 86, 240, 128};
    static const PLINT g[C_COUNT] = {255, 0, 225, 114, 94, 158, 159, 121, 225, 128, 80, 180, 128, 128};
    static const PLINT b[C_COUNT] = {255, 0, 225, 178, 0, 115, 0, 167, 245, 128, 40, 233, 180, 0};
    char geometry[64];

    output_path = fig->path;
    vector_text = strcmp(driver_for(fig->path), "svg") == 0;
    plsexit(on_plplot_exit);
    plsdev(driver_for(fig->path));
    plsfnam(temp_path ? temp_path : fig->path);
    snprintf(geometry, sizeof geometry, "%dx%d", fig->width, fig->height);
    plsetopt("geometry", geometry);
    plscmap0(r, g, b, C_COUNT);
    plscolbg(255, 255, 255);
    plssub(1, subpages);
    plinit();
    plfont(1);
}

void figure_end(void)
{
    plend();
    drawn = 1;
}

double time_scale(double span_s, const char **label)
{
    if (span_s > 600) {
        *label = "time (min)";
        return 60;
    }
    *label = "time (s)";
    return 1;
}

void padded_range(double *lo, double *hi)
{
    /* A range a few ULP wide is as good as none: PLplot's ticks would
     * step by less than the numbers can, and never reach the end. */
    if (!(*hi - *lo > 1e-9 * fmax(fabs(*lo), fabs(*hi)))) {
        double mid = isfinite(*lo) && isfinite(*hi) ? *lo + (*hi - *lo) / 2 : 0;
        double half = fmax(1, fabs(mid) * 1e-6);
        *lo = mid - half;
        *hi = mid + half;
        return;
    }
    double pad = (*hi - *lo) / 20;
    *lo -= pad;
    *hi += pad;
}

void draw_axes(double vx0, double vx1, double vy0, double vy1,
               double x0, double x1, double y0, double y1,
               const char *xopt, const char *yopt,
               const char *xlabel, const char *ylabel)
{
    plvpor(vx0, vx1, vy0, vy1);
    plwind(x0, x1, y0, y1);
    memset(occupied, 0, sizeof occupied);
    plcol0(C_GRID);
    plwidth(1);
    plbox("g", 0, 0, "g", 0, 0);
    plcol0(C_BLACK);
    plwidth(1.5);
    plbox(xopt, 0, 0, yopt, 0, 0);
    if (xlabel)
        plmtex("b", 3.0, 0.5, 0.5, xlabel);
    if (ylabel)
        plmtex("l", 4.2, 0.5, 0.5, ylabel);
}

void draw_line(size_t n, const double *x, const double *y, double gap,
               int colour, int style, double width)
{
    plcol0(colour);
    pllsty(style);
    plwidth(width);
    size_t start = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i == n || (isfinite(gap) && x[i] - x[i - 1] > gap)) {
            if (i - start >= 2)
                plline((PLINT)(i - start), x + start, y + start);
            for (size_t j = start + 1; j < i; j++)
                occupy_segment(x[j - 1], y[j - 1], x[j], y[j], 1);
            start = i;
        }
    }
    pllsty(1);
}

void draw_points(size_t n, const double *x, const double *y, int colour)
{
    occupy_points(n, x, y, 2);
    plcol0(colour);
    if (vector_text && n > 100) {
        /* In SVG every marker is a <text> of its own (1 kB each): a long
         * series is drawn as a thin line through its points instead. */
        draw_line(n, x, y, NAN, colour, 1, 0.8);
        return;
    }
    plschr(0, n > 1000 ? 0.4 : 0.6);
    plstring((PLINT)n, x, y, "•");
    plschr(0, 1.0);
}

/* Grow each of the legend's arrays to CAP entries; 0, or -1. */
static int legend_grow(struct legend *l, int cap)
{
    void *p;
#define GROW(field) \
    if (!(p = realloc(l->field, (size_t)cap * sizeof *l->field))) \
        return -1; \
    l->field = p;
    GROW(opt) GROW(text) GROW(colour) GROW(style) GROW(width) GROW(symbol)
#undef GROW
    l->cap = cap;
    return 0;
}

/* An entry the legend has no room for is left out: only when memory runs
 * out, and the figure is still drawn. */
static void legend_add(struct legend *l, int opt, const char *text, int colour,
                       int style, double width, const char *symbol)
{
    char *copy;
    if ((l->n == l->cap && legend_grow(l, l->cap ? 2 * l->cap : 16) < 0) || !(copy = strdup(text)))
        return;
    l->opt[l->n] = opt;
    l->text[l->n] = copy;
    l->colour[l->n] = colour;
    l->style[l->n] = style;
    l->width[l->n] = width;
    l->symbol[l->n] = symbol;
    l->n++;
}

void legend_line(struct legend *l, const char *text, int colour, int style, double width)
{
    legend_add(l, PL_LEGEND_LINE, text, colour, style, width, "");
}

void legend_points(struct legend *l, const char *text, int colour)
{
    legend_add(l, PL_LEGEND_SYMBOL, text, colour, 1, 1, "•");
}

void legend_text(struct legend *l, const char *text)
{
    legend_add(l, PL_LEGEND_NONE, text, C_BLACK, 1, 1, "");
}

void legend_free(struct legend *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->text[i]);
    free(l->opt);
    free(l->text);
    free(l->colour);
    free(l->style);
    free(l->width);
    free(l->symbol);
    memset(l, 0, sizeof *l);
}

static void legend_place(const struct legend *l, int position, double x, double y, int columns);

/* The legend's size as fractions of the viewport, from PLplot's
 * character height and the longest text (pllegend() only tells after it
 * has drawn). */
static void legend_size(const struct legend *l, double *fw, double *fh)
{
    PLFLT def, ht, sx0, sx1, sy0, sy1, vx0, vx1, vy0, vy1;
    plgchr(&def, &ht);
    plgspa(&sx0, &sx1, &sy0, &sy1);
    plgvpd(&vx0, &vx1, &vy0, &vy1);
    double vw = (vx1 - vx0) * (sx1 - sx0), vh = (vy1 - vy0) * (sy1 - sy0);
    size_t longest = 0;
    for (int i = 0; i < l->n; i++) {
        size_t chars = 0;
        for (const char *c = l->text[i]; *c; c++)
            chars += ((unsigned char)*c & 0xC0) != 0x80;   /* UTF-8 characters */
        longest = chars > longest ? chars : longest;
    }
    /* glyphs average 0.62 of the height with cairo; PLplot's SVG driver
     * lays text out wider (measured against pllegend's own size) */
    double text_h = ht * 0.85, glyph = vector_text ? 1.0 : 0.62;
    *fw = 0.10 + ((double)longest * glyph + 3) * text_h / vw;
    *fh = 0.02 + ((double)l->n * 1.6 + 1.5) * text_h / vh;
}

void legend_draw(const struct legend *l, int position)
{
    /* the preferred place, the corners, then the middles of the sides: the
     * first that hides least of the data wins */
    static const int places[] = {
        PL_POSITION_BOTTOM | PL_POSITION_RIGHT, PL_POSITION_TOP | PL_POSITION_RIGHT,
        PL_POSITION_TOP | PL_POSITION_LEFT, PL_POSITION_BOTTOM | PL_POSITION_LEFT,
        PL_POSITION_RIGHT, PL_POSITION_LEFT, PL_POSITION_TOP, PL_POSITION_BOTTOM,
    };
    double fw, fh, best_score = INFINITY;
    int best = position;
    legend_size(l, &fw, &fh);
    for (int k = -1; k < (int)(sizeof places / sizeof *places); k++) {
        int pos = k < 0 ? position : places[k];
        double x0 = pos & PL_POSITION_LEFT ? 0.02 : pos & PL_POSITION_RIGHT ? 0.98 - fw : 0.5 - fw / 2;
        double y0 = pos & PL_POSITION_BOTTOM ? 0.03 : pos & PL_POSITION_TOP ? 0.97 - fh : 0.5 - fh / 2;
        double score = 0;
        for (int cx = 0; cx < OCC_GRID; cx++)
            for (int cy = 0; cy < OCC_GRID; cy++)
                if ((cx + 1.0) / OCC_GRID > x0 && (double)cx / OCC_GRID < x0 + fw &&
                    (cy + 1.0) / OCC_GRID > y0 && (double)cy / OCC_GRID < y0 + fh)
                    score += occupied[cx][cy];
        if (score < best_score) {
            best_score = score;
            best = pos;
        }
    }
    legend_place(l, best | PL_POSITION_INSIDE, best & (PL_POSITION_LEFT | PL_POSITION_RIGHT) ? 0.02 : 0,
                 best & (PL_POSITION_TOP | PL_POSITION_BOTTOM) ? 0.03 : 0, 0);
}

void legend_draw_outside_top(const struct legend *l)
{
    legend_place(l, PL_POSITION_TOP | PL_POSITION_OUTSIDE, 0, 0.02, l->n);
}

static void legend_place(const struct legend *l, int position, double x, double y, int columns)
{
    PLFLT w, h;
    size_t n = l->n > 0 ? (size_t)l->n : 1;
    PLFLT *scales = malloc(n * sizeof *scales), *widths = malloc(n * sizeof *widths);
    PLINT *text_colours = malloc(n * sizeof *text_colours);
    PLINT *sym_numbers = malloc(n * sizeof *sym_numbers);
    if (!scales || !widths || !text_colours || !sym_numbers || l->n == 0) {
        free(scales);
        free(widths);
        free(text_colours);
        free(sym_numbers);
        return;
    }
    for (int i = 0; i < l->n; i++) {
        scales[i] = 0.8;
        widths[i] = l->width[i];
        text_colours[i] = C_BLACK;
        sym_numbers[i] = 3;
    }
    pllsty(1);
    plwidth(1);
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX |
                         (columns > 1 ? PL_LEGEND_ROW_MAJOR : 0),
             position | PL_POSITION_VIEWPORT, x, y, 0.08,
             C_WHITE, C_BLACK, 1, columns > 1 ? 1 : 0, columns > 1 ? columns : 0, l->n, l->opt,
             1.0, 0.85, 1.6, 0.0,
             text_colours, (const char **)l->text, NULL, NULL, NULL, NULL,
             l->colour, l->style, widths, l->colour, scales, sym_numbers,
             (const char **)l->symbol);
    free(scales);
    free(widths);
    free(text_colours);
    free(sym_numbers);
}
