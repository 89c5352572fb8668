#pragma once
// Colour-mapped, hill-shaded pictures of height fields (sand surfaces, soil heightmaps).
//
// The colormap is talus's own piecewise-linear approximation of matplotlib's "viridis": nine
// stops sampled from viridis at t = 0, 1/8, ..., 1 joined by straight lines in sRGB. Viridis is
// perceptually uniform and readable with colour-vision deficiencies; the approximation keeps its
// key property, luminance rising monotonically from dark purple (low) through blue and green to
// yellow (high), so a greyscale print still orders heights correctly. (Rounding each channel to
// 8 bits can dip the luminance of two colours less than 1/1000 apart by a fraction of a level;
// colours 1/100 apart are strictly ordered.)

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace talus {

/// The height colormap at t in [0, 1] (values outside are clamped; NaN gives mid grey).
Rgb height_colormap(double t);

/// Relative luminance Y in [0, 1] of an sRGB colour (sRGB decoding, Rec. 709 weights).
double relative_luminance(Rgb colour);

/// A polyline drawn over the height map, e.g. a planned tool path. Points are in grid-cell
/// coordinates (i, j): (i, j) is the centre of cell (i, j), fractional values lie between
/// centres, so (i - 0.5, j - 0.5) is that cell's lower-left corner.
struct HeightmapPolyline {
  std::vector<std::array<double, 2>> points_ij;
  Rgb colour{255, 40, 110};  ///< pink-red: stands out against every colour of the ramp
  int width_px = 3;          ///< drawn with a 1 px black border on each side
};

/// A point marker (a filled disc with a black ring) and an optional label beside it.
struct HeightmapMarker {
  double i = 0.0;  ///< grid-cell coordinates, as for HeightmapPolyline
  double j = 0.0;
  Rgb colour{255, 255, 255};
  int radius_px = 6;
  std::string label;
};

struct HeightmapImageOptions {
  /// Each cell becomes a square of this many pixels. 0 chooses one: the smallest making the map
  /// at least 600 px wide, reduced (not below 1) where the map would exceed 2400 px in height.
  int pixels_per_cell = 0;
  /// Heights [m] mapped to the two ends of the colormap; unset ends follow the finite data's
  /// minimum and maximum. Heights outside the range take the end colours.
  std::optional<double> z_min_m;
  std::optional<double> z_max_m;
  std::string title;  ///< a line above the map; none when empty

  /// A vertical colour bar right of the map: the quantity's name above it, its min/mid/max
  /// labelled in mm, and 0 mm too where the range spans zero.
  bool colour_bar = true;
  std::string colour_bar_quantity = "height z";  ///< the name above the colour bar
  bool scale_bar = true;  ///< a length scale bar, x/y axis arrows and grid size below the map

  bool hill_shade = true;
  /// Direction the light comes from, in degrees clockwise from +y (315 = from the upper left of
  /// the picture) and its elevation above the horizon, in (0, 90].
  double light_azimuth_deg = 315.0;
  double light_altitude_deg = 45.0;
  /// 0 (no shading) .. 1: how far a slope turned away from the light darkens towards black. Flat
  /// ground keeps its colormap colour exactly; slopes facing the light lighten (half as strongly).
  double hill_shade_strength = 0.6;
  double z_exaggeration = 1.0;  ///< multiplies slopes for shading only (not the colours)

  std::vector<HeightmapPolyline> polylines;
  std::vector<HeightmapMarker> markers;
};

/// Where render_heightmap put things, for callers placing their own marks or checking pixels.
struct HeightmapImageLayout {
  int map_x = 0;  ///< image column of the map's left edge [px]
  int map_y = 0;  ///< image row of the map's top edge [px]
  int pixels_per_cell = 1;
  int nx = 0;
  int ny = 0;
  double z_min_m = 0.0;  ///< heights at the ends of the colour ramp actually used
  double z_max_m = 0.0;
  PixelRect colour_bar;  ///< the colour ramp (top = z_max_m); zero-sized without a colour bar

  /// Image column of the centre of grid column i (fractional i allowed).
  int pixel_x(double i) const;
  /// Image row of the centre of grid row j: +y is drawn up, so j = ny - 1 is the top row.
  int pixel_y(double j) const;
};

/// Renders a height field as a colour-mapped, hill-shaded picture.
///
/// height_m holds nx * ny heights [m], row-major with index j * nx + i, where i grows along +x
/// and j along +y; cells are squares of cell_size_m [m]. The picture shows +x to the right and +y
/// UP (the image's top row is j = ny - 1). Non-finite heights are drawn grey and ignored for the
/// automatic range and the shading. Hill shading is Lambertian: the surface normal comes from
/// central differences of height over cell_size_m (one-sided at edges and next to missing
/// data), lit from options.light_azimuth_deg / light_altitude_deg, and blended with the colour as
/// described at HeightmapImageOptions::hill_shade_strength.
///
/// Throws std::runtime_error on a null pointer, non-positive sizes, a non-positive or non-finite
/// cell size, an empty fixed z range (z_max_m <= z_min_m), or out-of-range options.
RgbImage render_heightmap(const double* height_m, int nx, int ny, double cell_size_m,
                          const HeightmapImageOptions& options = {},
                          HeightmapImageLayout* layout = nullptr);

}  // namespace talus
