#pragma once
// Simple 2D line charts as RGB images, for run reports (force histories, trench cross-sections):
// talus lays the chart out (ranges, ticks, legend place); Cairo draws it, anti-aliased, with
// DejaVu Sans text (core/cairo_draw.hpp).

#include <optional>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace talus {

/// One named line of a chart. Points with a non-finite x or y break the line into pieces.
struct PlotSeries {
  std::string name;  ///< legend entry; a series with an empty name is not listed
  std::vector<double> x;
  std::vector<double> y;      ///< same length as x
  std::optional<Rgb> colour;  ///< unset: the palette colour of the series' index
  int line_width_px = 2;
  bool markers = false;  ///< also draw a small square at every point
};

/// Best: the inside corner whose box covers no data, else Right. Right: outside the data area,
/// right of the frame at its top (the data area narrows to make room).
enum class LegendPlacement { Best, TopRight, TopLeft, BottomRight, BottomLeft, Right, None };

struct PlotSpec {
  std::string title;    ///< above the chart; none when empty
  std::string x_label;  ///< below the x axis; none when empty
  std::string y_label;  ///< left of the y axis, reading upwards; none when empty
  std::vector<PlotSeries> series;
  /// Axis ranges in data units; an unset end follows the finite data (plus a 4% margin).
  std::optional<double> x_min, x_max, y_min, y_max;
  /// One data unit spans the same number of pixels on both axes (e.g. a cross-section in mm);
  /// the axis that would be stretched is widened about its centre, so fixed ranges become the
  /// minimum shown.
  bool equal_aspect = false;
  int width_px = 800;   ///< whole image, at least 200
  int height_px = 500;  ///< whole image, at least 150
  int text_scale = 2;   ///< text size for all text (1..8): capitals 7 x text_scale px tall
  LegendPlacement legend = LegendPlacement::Best;
};

/// Where plot_lines put the data, for callers checking or annotating the picture.
struct PlotLayout {
  PixelRect area;  ///< the data rectangle (inside the frame)
  double x_min = 0.0, x_max = 1.0, y_min = 0.0, y_max = 1.0;  ///< ranges shown
  std::vector<double> x_ticks;
  std::vector<double> y_ticks;
  PixelRect legend;  ///< zero-sized when no legend was drawn

  /// Image column of data x (x_min maps to the area's left column, x_max to its right one).
  int pixel_x(double x) const;
  /// Image row of data y (y_max maps to the area's top row, y_min to its bottom one).
  int pixel_y(double y) const;
};

/// Draws a line chart: white background, grid, framed data area, ticks with numeric labels, axis
/// titles, title and legend. Throws std::runtime_error when a series' x and y differ in length,
/// a fixed range is empty or non-finite, or the size or text scale is out of range.
RgbImage plot_lines(const PlotSpec& spec, PlotLayout* layout = nullptr);

/// Panels one below the other (left-aligned, white where a panel is narrower than the widest):
/// several charts that share a time axis in one picture. Empty input gives an empty image.
RgbImage stack_vertically(const std::vector<RgbImage>& panels);

/// The smallest "nice" step, 1, 2 or 5 times a power of ten, that is >= raw_step (> 0).
double nice_step(double raw_step);

/// The multiples of step within [lo, hi] (both ends included, to a relative tolerance of 1e-9
/// of step), with values within that tolerance of zero written as exactly 0.
std::vector<double> nice_ticks(double lo, double hi, double step);

/// A tick label with just enough decimals to tell ticks `step` apart ("0.25", "-3", "1e+06").
std::string format_tick(double value, double step);

/// The default colour of the series at `index` (a palette of 10 distinct colours, repeating).
Rgb series_colour(int index);

}  // namespace talus
