#pragma once
// Anti-aliased lines and real-font text on talus's RgbImage, drawn by Cairo (a packaged 2-D
// graphics library, LGPL-2.1 / MPL-1.1, dynamically linked) with the DejaVu Sans face found by
// fontconfig. Plots (core/plot.hpp) and labelled heightmaps (core/colormap.hpp) use it; talus
// keeps only the layout (where things go) and its colour maps.
//
// Coordinates are image pixels with y down, as RgbImage's: pixel (x, y) covers the square
// [x, x + 1) x [y, y + 1), so a 1-pixel line through its centre runs along y + 0.5.
//
// Text: UTF-8, '\n' starts a new line. At `scale` s the face is 9.6 s px (its capitals 7 s px
// tall). A text box's top is the capitals' top line: text drawn at (x, y) has its first baseline
// at y + text_cap_height_px(s); text_height_px counts the descent below the last baseline.

#include <string_view>
#include <utility>
#include <vector>

#include "core/image.hpp"

typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;

namespace talus {

/// Height of capital letters [px] at `scale` (>= 1).
int text_cap_height_px(int scale);
/// Width [px] of the widest line of `text` at `scale`; 0 for empty text.
int text_width_px(std::string_view text, int scale);
/// Height [px] of `text` at `scale`: capitals' top of the first line to the descent below the
/// last; 0 for empty text.
int text_height_px(std::string_view text, int scale);

/// Draws on an image through Cairo: the image's pixels are copied into a Cairo surface when the
/// canvas is made and copied back by finish() (or the destructor). Draw on the image itself
/// only after that.
class CairoCanvas {
 public:
  explicit CairoCanvas(RgbImage& image);
  ~CairoCanvas();
  CairoCanvas(const CairoCanvas&) = delete;
  CairoCanvas& operator=(const CairoCanvas&) = delete;

  /// An open polyline through the points (pixel coordinates, y down), round joins and caps,
  /// anti-aliased; `width_px` > 0.
  void stroke(const std::vector<std::pair<double, double>>& points, Rgb colour, double width_px);
  /// Fills the rectangle [x, x + w) x [y, y + h) exactly (no anti-aliasing at integer edges).
  void fill_rect(double x, double y, double w, double h, Rgb colour);
  /// The 1-pixel outline of the rectangle [x, x + w) x [y, y + h), exactly.
  void draw_rect(int x, int y, int w, int h, Rgb colour);
  /// Fills the closed polygon through the points (pixel coordinates, y down). Without
  /// `antialias` its edges are hard, so polygons sharing an edge leave no seam between them (a
  /// tessellated surface).
  void fill_polygon(const std::vector<std::pair<double, double>>& points, Rgb colour,
                    bool antialias);
  /// Fills the disc of `radius_px` around pixel (cx, cy)'s centre, anti-aliased.
  void fill_circle(double cx, double cy, double radius_px, Rgb colour);
  /// Text with its box's top-left at (x, y) (see above); with `up`, rotated 90 degrees
  /// counter-clockwise (reading bottom to top) with its box's top-left at (x, y), the box
  /// text_height_px wide and text_width_px tall.
  void text(double x, double y, std::string_view text, Rgb colour, int scale, bool up = false);
  /// Copies the drawing back into the image (once; later calls do nothing).
  void finish();

 private:
  RgbImage* image_;
  cairo_surface_t* surface_ = nullptr;
  cairo_t* cr_ = nullptr;
};

}  // namespace talus
