/*
 * figure.c -- what every tb-plot figure shares: the output file and its
 * driver, the page, colours, fonts, axes and the legend.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"
#include "figure.h"
#include "output.h"
#include "output_file.h"
#include "svg_compact.h"

static const char *output_path;
static char *temp_path;   /* where PLplot draws it, renamed to output_path when whole */
static int drawn;         /* figure_end() was reached */
static int vector_text;   /* the SVG driver: text stays text */
static double pen_scale = 1;   /* device units of the page per pixel of the 1280 x 800 one */
static double page_cm[2];      /* the page's width and height */
static int vector_page;        /* PDF or SVG: long series are thinned */
/* The legend's band: when no place inside the plot is free of data the
 * figure is drawn again with a band of rows above its first panel. */
static int band_rows;          /* this figure's band, in legend rows; 0: none */
static int band_taken;         /* the first panel has made room for it */
static int band_here;          /* ... and is the current one */
static int legends_drawn;      /* since figure_begin() */
static int band_wanted;        /* rows the first legend wanted outside */
static double band_entry;      /* the width of its entries, of the page */

/* The default page, 16 x 10 cm at 80 pixels a centimetre, and how much
 * taller it grows for each panel stacked under the first. */
#define PAGE_WIDTH 1280.0
#define PAGE_HEIGHT 800.0
#define ROW_GROWTH 0.7
#define POINTS_PER_PIXEL (72 / 203.2)   /* 80 px/cm = 203.2 dpi */
#define REFERENCE_CHAR 7.338            /* PLplot's character height on that page */

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
        return TB_EXIT_INPUT;
    }
    /* A file of its own beside the figure (so that the rename stays on one
     * file system); the figure itself, or a link's target, is not touched
     * until the new one is whole.  A device or a pipe (/dev/stdout) is
     * drawn into as it is. */
    free(temp_path);
    temp_path = NULL;
    output_path = path;
    if (tb_output_written_through(path)) {
        /* drawn into as it is: it must open, or PLplot tries eleven times */
        int fd = open(path, O_WRONLY | O_NOCTTY);
        if (fd < 0) {
            snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
            return TB_EXIT_OUTPUT;
        }
        close(fd);
        return 0;
    }
    if (asprintf(&temp_path, "%s.XXXXXX", path) < 0) {
        temp_path = NULL;
        snprintf(err, errlen, "out of memory");
        return TB_EXIT_OUTPUT;
    }
    int fd = mkstemp(temp_path);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        free(temp_path);
        temp_path = NULL;
        return TB_EXIT_OUTPUT;
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
    if (keep && figure_whole(temp_path, driver_for(output_path)) && vector_text &&
        svg_merge_polylines(temp_path) < 0) {
        fprintf(stderr, "tb-plot: %s: cannot write: %s\n", output_path, strerror(errno));
        keep = 0;
        status = TB_EXIT_OUTPUT;
    }
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

int figure_parse_size(const char *arg, struct figure *fig, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        double pixels;   /* 1280 x 800 pixels is 16 x 10 cm */
    } units[] = {{"", 1}, {"px", 1}, {"cm", 80}, {"mm", 8}, {"in", 203.2}};
    double w, h;
    int used = 0;
    if (sscanf(arg, "%lfx%lf%n", &w, &h, &used) == 2 && used > 0) {
        for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
            if (strcmp(arg + used, units[i].name) != 0)
                continue;
            w *= units[i].pixels;
            h *= units[i].pixels;
            if (w >= 200 && h >= 150 && w <= 10000 && h <= 10000) {
                fig->width = w;
                fig->height = h;
                return 0;
            }
            break;
        }
    }
    snprintf(err, errlen, "--size wants WIDTHxHEIGHT in pixels (1280x800) or with cm, mm or in "
             "(16x10cm), from 200x150 to 10000x10000 pixels at 80 a centimetre, not '%s'", arg);
    return -1;
}

static double row_growth(int rows)
{
    return 1 + ROW_GROWTH * (rows > 1 ? rows - 1 : 0);
}

double figure_text_scale(const struct figure *fig, int rows, double *min_height)
{
    double grow = row_growth(rows);
    double w = fig->width > 0 ? fig->width : PAGE_WIDTH;
    double h = fig->height > 0 ? fig->height : PAGE_HEIGHT * grow;
    if (min_height)
        *min_height = ceil(FIGURE_READABLE * PAGE_HEIGHT * grow);
    return fmin(w / PAGE_WIDTH, h / (PAGE_HEIGHT * grow));
}

void figure_pen(double w)
{
    plwidth(w * pen_scale);
}

double figure_lines(double lines)
{
    PLFLT def, ht, x0, x1, y0, y1;
    plgchr(&def, &ht);
    plgspa(&x0, &x1, &y0, &y1);
    return lines * ht / (y1 - y0);
}

double figure_chars(double chars)
{
    return figure_lines_across(0.62 * chars);   /* glyphs average 0.62 of the height */
}

void figure_begin(const struct figure *fig, int rows)
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
    /* PDF and SVG are paper: their text does not grow past 9.5 pt */
    int vector = strcmp(driver_for(fig->path), "pngcairo") != 0;
    double scale = figure_text_scale(fig, rows, NULL), unit = vector ? POINTS_PER_PIXEL : 1;
    double w = fig->width > 0 ? fig->width : PAGE_WIDTH;
    double h = fig->height > 0 ? fig->height : PAGE_HEIGHT * row_growth(rows);
    if (vector)
        scale = fmin(scale, 1);
    pen_scale = scale * unit;
    page_cm[0] = w / 80;
    page_cm[1] = h / 80;
    vector_page = vector;
    snprintf(geometry, sizeof geometry, "%.0fx%.0f", w * unit, h * unit);
    plsetopt("geometry", geometry);
    plscmap0(r, g, b, C_COUNT);
    plscolbg(255, 255, 255);
    plinit();
    plfont(1);
    band_taken = band_here = legends_drawn = band_wanted = 0;
    if (!band_rows)
        band_entry = 0;   /* measured again on a figure's first drawing */
    /* PLplot sizes text and ticks by the page's width plus height: a tall
     * page of many panels would have large text; set them as on the
     * default page instead */
    plschr(REFERENCE_CHAR * pen_scale, 1.0);
    plsmaj(0.4 * REFERENCE_CHAR * pen_scale, 1.0);
    plsmin(0.22 * REFERENCE_CHAR * pen_scale, 1.0);
}

void figure_end(void)
{
    plend();
    drawn = 1;
    band_rows = 0;   /* asked for each figure */
}

void figure_draw(const struct figure *fig, int rows, void (*draw)(void *ctx), void *ctx)
{
    for (int band = 0;;) {
        band_rows = band;
        figure_begin(fig, rows);
        draw(ctx);
        figure_end();
        if (band || !(band = band_wanted))
            break;
    }
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

double figure_tick_chars(double lo, double hi)
{
    /* PLplot steps by 1, 2 or 5 times a power of ten, about six ticks to
     * the span, and writes each number with the step's decimals */
    double span = fabs(hi - lo), raw = span / 6;
    if (!(raw > 0) || !isfinite(raw))
        return 4;
    double mag = pow(10, floor(log10(raw))), m = raw / mag;
    double step = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * mag;
    int decimals = (int)fmax(0, -floor(log10(step) + 1e-9));
    double big = fmax(fabs(lo), fabs(hi));
    int whole = big >= 1 ? (int)floor(log10(big)) + 1 : 1;
    if (whole > 5)   /* PLplot writes an exponent apart past five digits */
        whole = 5;
    return whole + (decimals ? decimals + 1 : 0) + (lo < 0 || hi < 0);
}

double figure_axis_margin(double lo, double hi)
{
    return figure_lines_across(NUMBER_WIDTH * figure_tick_chars(lo, hi) + 3.4);
}

double figure_lines_across(double lines)
{
    PLFLT def, ht, x0, x1, y0, y1;
    plgchr(&def, &ht);
    plgspa(&x0, &x1, &y0, &y1);
    return lines * ht / (x1 - x0);
}

/* The band's height in lines of text: its rows and a gap. */
static double band_lines(void)
{
    return band_rows ? 1.45 * band_rows + 0.6 : 0;
}

double figure_title_lines(double lines)
{
    return lines + (band_here ? band_lines() + 0.5 : 0);
}

void draw_axes(double vx0, double vx1, double vy0, double vy1,
               double x0, double x1, double y0, double y1,
               const char *xopt, const char *yopt,
               const char *xlabel, const char *ylabel)
{
    /* room for the numbers of the y axis and its label, however long */
    int numbers = strchr(yopt, 'n') && !strchr(yopt, 'l');
    if (numbers)
        vx0 = fmax(vx0, figure_axis_margin(y0, y1));
    band_here = band_rows && !band_taken;
    if (band_here) {   /* the first panel makes room for the legend */
        vy1 -= figure_lines(band_lines());
        band_taken = 1;
    }
    plvpor(vx0, vx1, vy0, vy1);
    plwind(x0, x1, y0, y1);
    memset(occupied, 0, sizeof occupied);
    plcol0(C_GRID);
    figure_pen(1);
    plbox("g", 0, 0, "g", 0, 0);
    plcol0(C_BLACK);
    figure_pen(1.5);
    plbox(xopt, 0, 0, yopt, 0, 0);
    if (xlabel)
        plmtex("b", 3.0, 0.5, 0.5, xlabel);
    if (ylabel)
        plmtex("l", numbers ? NUMBER_WIDTH * figure_tick_chars(y0, y1) + 2.0 : 4.2, 0.5, 0.5, ylabel);
}

static void draw_line_as_is(size_t n, const double *x, const double *y, double gap,
                            int colour, int style, double width);

/* A vector figure's series is thinned to what the eye can tell apart:
 * its cells this many millimetres wide (and high, for points). */
#define THIN_LINE_MM 0.5
#define THIN_POINT_MM 0.3

/* The cell of world point (X, Y) on a grid of CELL_MM millimetres over
 * the viewport: its column in *CX, its row in *CY. */
static void thin_cell(double x, double y, double cell_mm, long *cx, long *cy)
{
    PLFLT vx0, vx1, vy0, vy1, wx0, wx1, wy0, wy1;
    plgvpd(&vx0, &vx1, &vy0, &vy1);
    plgvpw(&wx0, &wx1, &wy0, &wy1);
    double w_mm = (vx1 - vx0) * page_cm[0] * 10, h_mm = (vy1 - vy0) * page_cm[1] * 10;
    *cx = lround(floor((x - wx0) / (wx1 - wx0) * w_mm / cell_mm));
    *cy = lround(floor((y - wy0) / (wy1 - wy0) * h_mm / cell_mm));
}

/* The points of a line that a cell THIN_LINE_MM wide shows: each column's
 * first, lowest, highest and last, in their order, so its envelope is
 * kept; their indices into KEEP (N of them at most), their count returned. */
static size_t thin_line(size_t n, const double *x, const double *y, size_t *keep)
{
    size_t m = 0, i = 0;
    while (i < n) {
        long col, row, c2;
        thin_cell(x[i], y[i], THIN_LINE_MM, &col, &row);
        size_t first = i, lo = i, hi = i, last = i;
        for (i++; i < n; i++) {
            thin_cell(x[i], y[i], THIN_LINE_MM, &c2, &row);
            if (c2 != col || !isfinite(y[i]) != !isfinite(y[first]))
                break;
            last = i;
            if (y[i] < y[lo])
                lo = i;
            if (y[i] > y[hi])
                hi = i;
        }
        size_t pick[4] = {first, lo < hi ? lo : hi, lo < hi ? hi : lo, last};
        for (int k = 0; k < 4; k++)
            if (m == 0 || keep[m - 1] != pick[k])
                keep[m++] = pick[k];
    }
    return m;
}

void draw_line(size_t n, const double *x, const double *y, double gap,
               int colour, int style, double width)
{
    size_t *keep = vector_page && n > 1000 ? malloc(n * sizeof *keep) : NULL;
    double *tx = keep ? malloc(2 * n * sizeof *tx) : NULL;
    if (tx) {
        /* the thinned line is drawn in its place (a gap wider than a
         * column stays a gap: the points either side of it are kept) */
        size_t m = thin_line(n, x, y, keep);
        for (size_t i = 0; i < m; i++) {
            tx[i] = x[keep[i]];
            tx[n + i] = y[keep[i]];
        }
        free(keep);
        draw_line_as_is(m, tx, tx + n, gap, colour, style, width);
        free(tx);
        return;
    }
    free(keep);
    draw_line_as_is(n, x, y, gap, colour, style, width);
}

/* The dashes of STYLE 2 (dashed) and 3 (long dashes) on paper, in mm. */
static const double dash_mm[2][2] = {{1.6, 1.0}, {3.5, 1.5}};

/* World point (X, Y) in millimetres on the page's viewport. */
static void viewport_mm(double x, double y, double *mx, double *my)
{
    PLFLT vx0, vx1, vy0, vy1, wx0, wx1, wy0, wy1;
    plgvpd(&vx0, &vx1, &vy0, &vy1);
    plgvpw(&wx0, &wx1, &wy0, &wy1);
    *mx = (x - wx0) / (wx1 - wx0) * (vx1 - vx0) * page_cm[0] * 10;
    *my = (y - wy0) / (wy1 - wy0) * (vy1 - vy0) * page_cm[1] * 10;
}

/* The N points as a dashed line, each dash one polyline through the
 * points it spans: PLplot's own dashes break at every point (an SVG
 * element each) and are under a millimetre on paper. */
static void dashed_line(size_t n, const double *x, const double *y, int style)
{
    const double *d = dash_mm[style - 2];
    /* a dash: its start, the points it passes, its end (N + 1 at most) */
    double *px = malloc(2 * (n + 2) * sizeof *px), *py = px ? px + n + 2 : NULL;
    if (!px) {
        plline((PLINT)n, x, y);
        return;
    }
    double along = 0;   /* into the pattern's period, mm */
    size_t m = 0;       /* points of the dash being drawn */
    px[m] = x[0];
    py[m++] = y[0];
    for (size_t i = 1; i < n; i++) {
        double ax, ay, bx, by;
        viewport_mm(x[i - 1], y[i - 1], &ax, &ay);
        viewport_mm(x[i], y[i], &bx, &by);
        double len = hypot(bx - ax, by - ay), done = 0;
        while (isfinite(len) && len - done > 0) {
            int on = along < d[0];
            double step = fmin((on ? d[0] : d[0] + d[1]) - along, len - done);
            done += step;
            along += step;
            double u = done / len, cx = x[i - 1] + u * (x[i] - x[i - 1]), cy = y[i - 1] + u * (y[i] - y[i - 1]);
            if (on) {
                px[m] = cx;
                py[m++] = cy;
                if (along >= d[0]) {   /* the dash ends */
                    plline((PLINT)m, px, py);
                    m = 0;
                }
            } else if (along >= d[0] + d[1]) {   /* the next dash starts */
                along = 0;
                m = 0;
                px[m] = cx;
                py[m++] = cy;
            }
        }
        /* a dash that goes on through this point keeps it */
        if (m > 0 && (px[m - 1] != x[i] || py[m - 1] != y[i]) && along < d[0]) {
            px[m] = x[i];
            py[m++] = y[i];
        }
    }
    if (m >= 2)
        plline((PLINT)m, px, py);
    free(px);
}

static void draw_line_as_is(size_t n, const double *x, const double *y, double gap,
                            int colour, int style, double width)
{
    plcol0(colour);
    pllsty(style == 2 || style == 3 ? 1 : style);
    figure_pen(width);
    size_t start = 0;
    for (size_t i = 1; i <= n; i++) {
        if (i == n || (isfinite(gap) && x[i] - x[i - 1] > gap)) {
            if (i - start >= 2) {
                if (style == 2 || style == 3)
                    dashed_line(i - start, x + start, y + start, style);
                else
                    plline((PLINT)(i - start), x + start, y + start);
            }
            for (size_t j = start + 1; j < i; j++)
                occupy_segment(x[j - 1], y[j - 1], x[j], y[j], 1);
            start = i;
        }
    }
    pllsty(1);
}

/* The points of a vector figure that are not in a cell of THIN_POINT_MM
 * already drawn into, into TX and TY; their count, or N (all of them,
 * copied) when memory runs out.  The cells are few: a small open hash
 * finds the ones drawn. */
static size_t thin_points(size_t n, const double *x, const double *y, double *tx, double *ty)
{
    size_t m = 0, cap = 1;
    while (cap < 4 * n)
        cap <<= 1;
    long *seen = malloc(2 * cap * sizeof *seen);
    unsigned char *used = calloc(cap, 1);
    if (!seen || !used) {
        free(seen);
        free(used);
        memcpy(tx, x, n * sizeof *tx);
        memcpy(ty, y, n * sizeof *ty);
        return n;
    }
    for (size_t i = 0; i < n; i++) {
        long cx, cy;
        if (!(isfinite(x[i]) && isfinite(y[i])))
            continue;
        thin_cell(x[i], y[i], THIN_POINT_MM, &cx, &cy);
        size_t h = ((size_t)cx * 2654435761u ^ (size_t)cy * 40503u) & (cap - 1);
        while (used[h] && !(seen[2 * h] == cx && seen[2 * h + 1] == cy))
            h = (h + 1) & (cap - 1);
        if (used[h])
            continue;
        used[h] = 1;
        seen[2 * h] = cx;
        seen[2 * h + 1] = cy;
        tx[m] = x[i];
        ty[m++] = y[i];
    }
    free(seen);
    free(used);
    return m;
}

/* A dot a point, a stroke a hair long with round caps: a marker is text,
 * and thousands of them spend the figure's time laying out glyphs (and,
 * in SVG, take 1 kB each).  The stroke has the ink of the bullet it stands
 * for, measured on the figures of each driver's font. */
static void draw_dots(size_t n, const double *x, const double *y, double dot)
{
    PLFLT wx0, wx1, wy0, wy1, def, ht;
    plgvpw(&wx0, &wx1, &wy0, &wy1);
    plgchr(&def, &ht);
    double hair = (wx1 - wx0) * 1e-4;
    pllsty(1);
    plwidth(ht * dot * (vector_text ? 0.55 : 0.37) * 72 / 25.4);
    for (size_t i = 0; i < n; i++) {
        double px[2] = {x[i], x[i] + hair}, py[2] = {y[i], y[i]};
        plline(2, px, py);
    }
}

void draw_points(size_t n, const double *x, const double *y, int colour)
{
    occupy_points(n, x, y, 2);
    plcol0(colour);
    double dot = n > 1000 ? 0.4 : 0.6;   /* in character heights */
    /* a vector figure keeps one dot a cell: the same picture in a
     * fraction of the file (svg_merge_polylines() makes SVG's one path) */
    double *tx = vector_page ? malloc(2 * (n ? n : 1) * sizeof *tx) : NULL;
    size_t m = tx ? thin_points(n, x, y, tx, tx + n) : n;
    const double *px = tx ? tx : x, *py = tx ? tx + n : y;
    if (vector_text || !vector_page) {
        draw_dots(m, px, py, dot);
    } else {
        plschr(0, dot);
        plstring((PLINT)m, px, py, "•");
        plschr(0, 1.0);
    }
    free(tx);
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

static double legend_place(const struct legend *l, int position, double x, double y, int columns);
static size_t legend_longest(const struct legend *l);

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
    int first = legends_drawn++ == 0;
    if (first && band_taken) {   /* its band, made for it */
        legend_draw_outside_top(l);
        return;
    }
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
    double w = legend_place(l, best | PL_POSITION_INSIDE,
                            best & (PL_POSITION_LEFT | PL_POSITION_RIGHT) ? 0.02 : 0,
                            best & (PL_POSITION_TOP | PL_POSITION_BOTTOM) ? 0.03 : 0, 0);
    if (first && best_score > 0 && w > 0) {   /* no place free: a band next time */
        PLFLT vx0, vx1, vy0, vy1;
        plgvpd(&vx0, &vx1, &vy0, &vy1);
        band_entry = w * (vx1 - vx0) * 1.05;   /* pllegend's columns are that much wider */
        int columns = legend_outside_columns(l);
        band_wanted = (l->n + columns - 1) / columns;
    }
}

static size_t legend_longest(const struct legend *l)
{
    size_t longest = 0;
    for (int i = 0; i < l->n; i++) {
        size_t w = tb_display_width(l->text[i]);
        longest = w > longest ? w : longest;
    }
    return longest;
}

int legend_outside_columns(const struct legend *l)
{
    /* an entry as wide as the legend of one column measured on the first
     * drawing, with the gap between columns; else from its text, as
     * pllegend() lays out its columns (measured: its symbol and gaps are
     * about 5 characters, SVG's glyphs a sixth wider than cairo's) */
    double entry = band_entry > 0 ? band_entry
                                  : figure_chars((vector_text ? 1.45 : 1.25) *
                                                 (double)legend_longest(l) + 5.5);
    int columns = entry > 0 ? (int)(0.9 / entry) : l->n;
    return columns < 1 ? 1 : columns > l->n ? l->n : columns;
}

void legend_draw_outside_top(const struct legend *l)
{
    legend_place(l, PL_POSITION_TOP | PL_POSITION_OUTSIDE, 0, 0.02, legend_outside_columns(l));
}

/* Draw it; its width as a fraction of the viewport's (0: not drawn). */
static double legend_place(const struct legend *l, int position, double x, double y, int columns)
{
    PLFLT w = 0, h;
    size_t n = l->n > 0 ? (size_t)l->n : 1;
    PLFLT *scales = malloc(n * sizeof *scales), *widths = malloc(n * sizeof *widths);
    PLINT *text_colours = malloc(n * sizeof *text_colours);
    PLINT *sym_numbers = malloc(n * sizeof *sym_numbers);
    if (!scales || !widths || !text_colours || !sym_numbers || l->n == 0) {
        free(scales);
        free(widths);
        free(text_colours);
        free(sym_numbers);
        return 0;
    }
    for (int i = 0; i < l->n; i++) {
        scales[i] = 0.8;
        widths[i] = l->width[i] * pen_scale;
        text_colours[i] = C_BLACK;
        sym_numbers[i] = 3;
    }
    /* pllegend() takes the text's offset in character widths measured
     * across the page's height: on a tall page it shrinks, so widen it */
    PLFLT sx0, sx1, sy0, sy1;
    plgspa(&sx0, &sx1, &sy0, &sy1);
    double offset = fmax(1.0, (sy1 - sy0) / (sx1 - sx0) / 0.625);
    pllsty(1);
    figure_pen(1);
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX |
                         (columns > 1 ? PL_LEGEND_ROW_MAJOR : 0),
             position | PL_POSITION_VIEWPORT, x, y, 0.08,
             C_WHITE, C_BLACK, 1, columns > 1 ? (l->n + columns - 1) / columns : 0, columns > 1 ? columns : 0, l->n, l->opt,
             offset, 0.85, 1.6, 0.0,
             text_colours, (const char **)l->text, NULL, NULL, NULL, NULL,
             l->colour, l->style, widths, l->colour, scales, sym_numbers,
             (const char **)l->symbol);
    free(scales);
    free(widths);
    free(text_colours);
    free(sym_numbers);
    return w;
}

const char *figure_file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}
