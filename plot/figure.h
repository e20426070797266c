/*
 * figure.h -- what every tb-plot figure shares: the output file and its
 * driver, the page, colours, fonts, axes and the legend.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_PLOT_FIGURE_H
#define TB_PLOT_FIGURE_H

#include <stddef.h>


/* Colours of cmap0, set by figure_begin(). */
enum colour {
    C_WHITE, C_BLACK, C_GRID, C_BLUE, C_RED, C_GREEN, C_ORANGE, C_PURPLE,
    C_BAND, C_GREY, C_BROWN, C_TEAL, C_PINK, C_OLIVE, C_COUNT
};

/* A figure is a page laid out as a 16 x 10 cm one is, with text at about
 * 9.5 pt: PDF and SVG are that page (in points), PNG that page drawn at 80
 * pixels a centimetre (1280 x 800).  --size sets another page in pixels
 * (at that resolution) or centimetres; a PNG's text grows with it, a PDF's
 * or SVG's stays 9.5 pt (it is paper) unless the page is smaller. */
struct figure {
    const char *path;
    double width, height;   /* --size in 1/80 cm (a PNG's pixels); 0: the default */
    const char *title;      /* NULL: the figure's own */
};

/* Parse --size: WxH in pixels, or WxHpx, WxHcm, WxHin, into FIG; 0, or
 * -1 with a message in ERR. */
int figure_parse_size(const char *arg, struct figure *fig, char *err, size_t errlen);

/* How much of the text's size a figure of ROWS stacked panels keeps in
 * FIG's page (1: as on the default page; the page of a figure without
 * --size grows with its rows, so it keeps 1); below FIGURE_READABLE the
 * text is too small to read.  When it is, the smallest height in
 * pixels that reads is put in *MIN_HEIGHT. */
#define FIGURE_READABLE 0.6
double figure_text_scale(const struct figure *fig, int rows, double *min_height);

/* Check that PATH's extension (.png, .svg, .pdf) names a driver and that
 * a file can be made beside it (the figure is drawn there, then renamed
 * over PATH by figure_finish()); 0, or the exit status with a message in
 * ERR: TB_EXIT_INPUT for the extension, TB_EXIT_OUTPUT for a figure that
 * cannot be written. */
int figure_check_output(const char *path, char *err, size_t errlen);

/* At the end, with the figure's exit STATUS: a figure drawn whole (and
 * STATUS 0 or 1) takes its place, atomically, over any file or link there;
 * otherwise the file there is left as it was.  Returns STATUS, or
 * TB_EXIT_OUTPUT (said) when the figure could not be written whole. */
int figure_finish(int status);

/* Open the page of ROWS stacked panels: driver, size, white background,
 * palette, fonts and pen widths scaled to the page. */
void figure_begin(const struct figure *fig, int rows);
void figure_end(void);

/* The pen of width W (as on the 1280 x 800 pixel page) on this page. */
void figure_pen(double w);

/* LINES lines of text (the current size) as a fraction of the page's
 * height; CHARS characters as a fraction of its width. */
double figure_lines(double lines);
double figure_chars(double chars);
/* LINES lines of text as a fraction of the page's width. */
double figure_lines_across(double lines);

/* How many characters the numbers of a linear axis from LO to HI take,
 * as PLplot writes them ("45.0002"); the fraction of the page's width
 * left of an axis that they and the axis's label need. */
double figure_tick_chars(double lo, double hi);
#define NUMBER_WIDTH 0.75   /* a digit's width in character heights, as cairo draws them */
double figure_axis_margin(double lo, double hi);

/* Time on the x axis in minutes when the span is over ten minutes: the
 * divisor for seconds and the axis label. */
double time_scale(double span_s, const char **label);

/* A lo..hi range padded by a twentieth on each side (and widened when
 * empty, or too narrow for the numbers to step through). */
void padded_range(double *lo, double *hi);

/* The viewport (in subpage fractions) and window, a light grid, a black
 * box with ticks and numbers (XOPT, YOPT as for plbox without grid), and
 * the labels. */
void draw_axes(double vx0, double vx1, double vy0, double vy1,
               double x0, double x1, double y0, double y1,
               const char *xopt, const char *yopt,
               const char *xlabel, const char *ylabel);

/* A line through the N points, broken where X jumps by over GAP (NaN: never
 * broken); COLOUR, line style (1 solid, 2 dashed...) and width. */
void draw_line(size_t n, const double *x, const double *y, double gap,
               int colour, int style, double width);

/* The N points as small dots. */
void draw_points(size_t n, const double *x, const double *y, int colour);

/* Mark what is drawn outside draw_line()/draw_points() (error bars,
 * markers) as covering the viewport, in world coordinates of the current
 * window; WEIGHT: how much hiding it would cost. */
void occupy_segment(double xa, double ya, double xb, double yb, unsigned weight);
void occupy_points(size_t n, const double *x, const double *y, unsigned weight);

/* Legend entries, as many as the data have (each text is copied), drawn
 * by legend_draw() inside the current viewport: at POSITION
 * (PL_POSITION_* flags) unless another corner hides less of the data
 * drawn since draw_axes().  Start from {0}; legend_free() when drawn. */
struct legend {
    int n, cap;
    int *opt;
    char **text;
    int *colour, *style;
    double *width;
    const char **symbol;
};
void legend_line(struct legend *l, const char *text, int colour, int style, double width);
void legend_points(struct legend *l, const char *text, int colour);
void legend_text(struct legend *l, const char *text);
void legend_draw(const struct legend *l, int position);
void legend_free(struct legend *l);

/* The legend above the viewport, in rows of as many entries as fit the
 * page's width (legend_outside_columns() of them). */
void legend_draw_outside_top(const struct legend *l);
int legend_outside_columns(const struct legend *l);

/* The page of ROWS panels (as figure_begin()) drawn by DRAW(CTX), then
 * ended.  When no place in the plot is free of data for its first legend
 * it is drawn again, the legend in a band above the first panel: the
 * first draw_axes() makes room and legend_draw() draws there.  A title
 * above the first panel goes figure_title_lines(LINES) above it. */
void figure_draw(const struct figure *fig, int rows, void (*draw)(void *ctx), void *ctx);
double figure_title_lines(double lines);

/* PATH as a default title names it: its file name, without the folders
 * (a title of the whole path runs off the page). */
const char *figure_file_name(const char *path);

#endif
