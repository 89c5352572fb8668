#include "core/colormap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/cairo_draw.hpp"
#include "core/plot.hpp"
#include "core/units.hpp"

namespace talus {
namespace {

// Viridis sampled at t = k / 8 (k = 0..8), rounded to 8 bits; joined linearly in between.
constexpr Rgb kHeightStops[] = {
    {68, 1, 84},    {72, 40, 120},  {62, 73, 137},  {49, 104, 142}, {38, 130, 142},
    {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {253, 231, 37},
};
constexpr int kStopCount = static_cast<int>(sizeof(kHeightStops) / sizeof(kHeightStops[0]));

constexpr Rgb kNoData{128, 128, 128};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kText{20, 20, 20};
constexpr int kTextScale = 2;
constexpr int kMargin = 16;

std::uint8_t to_byte(double v) {
  return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

double srgb_to_linear(std::uint8_t c) {
  const double v = c / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

// The largest 1, 2 or 5 times a power of ten that is <= x (> 0).
double nice_floor(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  const double m = x / p;
  return (m >= 5.0 ? 5.0 : m >= 2.0 ? 2.0 : 1.0) * p;
}

int auto_pixels_per_cell(int nx, int ny) {
  const int for_width = (600 + nx - 1) / nx;
  const int for_height = std::max(1, 2400 / ny);
  return std::max(1, std::min(for_width, for_height));
}

// Height difference along one axis between the neighbours of a cell, per metre; one-sided next
// to an edge or a missing neighbour, 0 when neither neighbour is usable.
double slope(const double* h, int centre, int stride, bool has_lo, bool has_hi, double cell_m) {
  const double c = h[centre];
  const bool lo = has_lo && std::isfinite(h[centre - stride]);
  const bool hi = has_hi && std::isfinite(h[centre + stride]);
  if (lo && hi) return (h[centre + stride] - h[centre - stride]) / (2.0 * cell_m);
  if (hi) return (h[centre + stride] - c) / cell_m;
  if (lo) return (c - h[centre - stride]) / cell_m;
  return 0.0;
}

Rgb shade(Rgb colour, double lambert, double flat_lambert, double strength) {
  const double d = lambert - flat_lambert;
  auto apply = [&](std::uint8_t c) {
    if (d < 0.0) return to_byte(c * (1.0 + strength * d / flat_lambert));
    if (flat_lambert >= 1.0 - 1e-12) return c;
    return to_byte(c + (255.0 - c) * 0.5 * strength * d / (1.0 - flat_lambert));
  };
  return {apply(colour.r), apply(colour.g), apply(colour.b)};
}

// Decimals that make labels of values `spacing` apart distinct, at least one significant digit.
int decimals_for(double spacing) {
  if (!(spacing > 0.0)) return 0;
  return std::clamp(static_cast<int>(std::ceil(-std::log10(spacing))) + 1, 0, 6);
}

// "250 mm", "2 m", "0.5 mm": a length [m] from the 1-2-5 series in the friendliest unit.
std::string format_length(double length_m) {
  if (length_m >= 1.0) return fmt::format("{:.6g} m", length_m);
  return fmt::format("{:.6g} mm", length_m * 1e3);
}

void draw_arrow(CairoCanvas& canvas, int x0, int y0, int x1, int y1, Rgb colour) {
  canvas.stroke({{x0, y0}, {x1, y1}}, colour, 2.0);
  const double angle = std::atan2(y1 - y0, x1 - x0);
  for (double side : {-1.0, 1.0}) {
    const double a = angle + kPi + side * 0.5;
    canvas.stroke({{x1 + 7.0 * std::cos(a), y1 + 7.0 * std::sin(a)}, {x1, y1}}, colour, 2.0);
  }
}

void validate_heightmap(const double* height_m, int nx, int ny, double cell_size_m,
                        const HeightmapImageOptions& options) {
  if (height_m == nullptr) throw std::runtime_error("render_heightmap: height_m is null");
  if (nx <= 0 || ny <= 0) {
    throw std::runtime_error(
        fmt::format("render_heightmap: grid size {} x {} must be positive", nx, ny));
  }
  if (!(cell_size_m > 0.0) || !std::isfinite(cell_size_m)) {
    throw std::runtime_error(
        fmt::format("render_heightmap: cell_size_m = {} must be positive and finite", cell_size_m));
  }
  if (options.pixels_per_cell < 0 || options.pixels_per_cell > 256) {
    throw std::runtime_error(
        fmt::format("render_heightmap: pixels_per_cell = {} must be in [0, 256] (0 = automatic)",
                    options.pixels_per_cell));
  }
  if (!(options.light_altitude_deg > 0.0 && options.light_altitude_deg <= 90.0)) {
    throw std::runtime_error(
        fmt::format("render_heightmap: light_altitude_deg = {} must be in (0, 90]",
                    options.light_altitude_deg));
  }
  if (!std::isfinite(options.light_azimuth_deg)) {
    throw std::runtime_error("render_heightmap: light_azimuth_deg must be finite");
  }
  if (!(options.hill_shade_strength >= 0.0 && options.hill_shade_strength <= 1.0)) {
    throw std::runtime_error(
        fmt::format("render_heightmap: hill_shade_strength = {} must be in [0, 1]",
                    options.hill_shade_strength));
  }
  if (!std::isfinite(options.z_exaggeration)) {
    throw std::runtime_error("render_heightmap: z_exaggeration must be finite");
  }
  for (const auto& end : {options.z_min_m, options.z_max_m}) {
    if (end && !std::isfinite(*end)) {
      throw std::runtime_error("render_heightmap: a fixed z range end is not finite");
    }
  }
  if (options.z_min_m && options.z_max_m && !(*options.z_max_m > *options.z_min_m)) {
    throw std::runtime_error(fmt::format("render_heightmap: fixed z range [{}, {}] m is empty",
                                         *options.z_min_m, *options.z_max_m));
  }
}

// Heights at the two ends of the colour ramp: the fixed ends, the others from the finite data.
struct ColourRange {
  double z_lo = 0.0;
  double z_hi = 0.0;
};

ColourRange colour_range(const double* height_m, std::size_t cells,
                         const HeightmapImageOptions& options) {
  double data_min = INFINITY, data_max = -INFINITY;
  for (std::size_t k = 0; k < cells; ++k) {
    if (std::isfinite(height_m[k])) {
      data_min = std::min(data_min, height_m[k]);
      data_max = std::max(data_max, height_m[k]);
    }
  }
  if (!std::isfinite(data_min)) data_min = data_max = 0.0;  // no finite data at all
  double z_lo = options.z_min_m.value_or(data_min);
  double z_hi = options.z_max_m.value_or(data_max);
  if (!(z_hi > z_lo)) {  // flat data, or one fixed end beyond the data: open up 1 mm
    if (options.z_min_m) {
      z_hi = z_lo + 1e-3;
    } else if (options.z_max_m) {
      z_lo = z_hi - 1e-3;
    } else {
      z_lo -= 0.5e-3;
      z_hi += 0.5e-3;
    }
  }
  return {z_lo, z_hi};
}

// Where everything goes in the picture, and the texts whose widths decide it.
struct HeightmapFrame {
  int ppc = 1;  ///< pixels per cell
  int map_x = 0, map_y = 0, map_w = 0, map_h = 0;
  int text_h = 0, cap_h = 0;
  std::string labels[3];  ///< colour bar: max, mid, min
  int label_w = 0;
  std::string quantity;          ///< the colour bar's name, above it
  int tick_rows[3] = {0, 0, 0};  ///< image rows of the max, mid and min ticks
  int zero_row = -1;             ///< image row of the bar's 0 mm tick; -1 without one
  int bar_x = 0, bar_y = 0, bar_h = 0;
  int content_h = 0;  ///< height of the map and colour bar row
  int scale_px = 0;   ///< length of the scale bar
  std::string scale_label, grid_info;
  int width = 0, height = 0;
};
constexpr int kBarGap = 24, kBarWidth = 22, kTickLength = 5;
constexpr int kAxesWidth = 44;  // the axis arrows left of the scale bar

// The map's size in pixels: each cell a square of ppc pixels, at most 30000 px either way.
void place_map(int nx, int ny, const HeightmapImageOptions& options, HeightmapFrame& f) {
  f.ppc = options.pixels_per_cell > 0 ? options.pixels_per_cell : auto_pixels_per_cell(nx, ny);
  const long long map_w_ll = static_cast<long long>(nx) * f.ppc;
  const long long map_h_ll = static_cast<long long>(ny) * f.ppc;
  if (map_w_ll > 30000 || map_h_ll > 30000) {
    throw std::runtime_error(fmt::format(
        "render_heightmap: the map would be {} x {} px (over 30000); lower pixels_per_cell",
        map_w_ll, map_h_ll));
  }
  f.map_w = static_cast<int>(map_w_ll);
  f.map_h = static_cast<int>(map_h_ll);
  f.text_h = text_height_px("0", kTextScale);
  f.cap_h = text_cap_height_px(kTextScale);

  const int title_h = options.title.empty() ? 0 : text_height_px(options.title, kTextScale) + 12;
  f.map_x = kMargin;
  f.map_y = kMargin + title_h;
}

// Colour bar labels: the quantity's name above the bar, max at the top, mid in the middle, min at
// the bottom, and 0 where the range spans it (a heightmap relative to the initial surface reads
// against it) unless that tick would crowd another's label.
void label_colour_bar(const ColourRange& range, const std::string& quantity, HeightmapFrame& f) {
  const double z_lo = range.z_lo, z_hi = range.z_hi;
  const double range_mm = (z_hi - z_lo) * 1e3;
  const int decimals = decimals_for(range_mm / 2.0);
  const double label_values_mm[3] = {z_hi * 1e3, 0.5 * (z_lo + z_hi) * 1e3, z_lo * 1e3};
  for (int k = 0; k < 3; ++k) {
    double v = label_values_mm[k];
    if (std::abs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0.0;  // no "-0.0"
    f.labels[k] = fmt::format("{:.{}f} mm", v, decimals);
    f.label_w = std::max(f.label_w, text_width_px(f.labels[k], kTextScale));
  }
  f.quantity = quantity;
  const int quantity_h = quantity.empty() ? 0 : f.text_h + 8;
  f.bar_x = f.map_x + f.map_w + kBarGap;
  f.bar_y = f.map_y + quantity_h;
  f.bar_h = std::max(f.map_h - quantity_h, 160);
  f.tick_rows[0] = f.bar_y;
  f.tick_rows[1] = f.bar_y + (f.bar_h - 1) / 2;
  f.tick_rows[2] = f.bar_y + f.bar_h - 1;
  f.zero_row = -1;
  if (z_lo < 0.0 && 0.0 < z_hi) {
    const int row = f.bar_y + static_cast<int>(std::lround((f.bar_h - 1) * z_hi / (z_hi - z_lo)));
    bool clear = true;
    for (const int t : f.tick_rows) clear = clear && std::abs(row - t) > f.text_h;
    if (clear) f.zero_row = row;
  }
}

// The picture's layout: the map under the title, the colour bar right of it, the scale bar row
// below, and the picture's size to hold them all.
HeightmapFrame frame_layout(int nx, int ny, double cell_size_m,
                            const HeightmapImageOptions& options, const ColourRange& range) {
  HeightmapFrame f;
  place_map(nx, ny, options, f);
  label_colour_bar(range, options.colour_bar_quantity, f);
  const int quantity_w = text_width_px(options.colour_bar_quantity, kTextScale);
  const int colour_bar_w =
      options.colour_bar ? kBarGap + std::max(kBarWidth + kTickLength + 4 + f.label_w, quantity_w)
                         : 0;

  // Scale bar: the longest 1-2-5 length that fits in a quarter of the map (at least 40 px).
  const double map_width_m = nx * cell_size_m;
  const double bar_len_m = nice_floor(map_width_m / 4.0);
  f.scale_px = std::max(1, static_cast<int>(std::lround(bar_len_m / cell_size_m * f.ppc)));
  f.scale_label = format_length(bar_len_m);
  f.grid_info = fmt::format("{} x {} cells of {}, {} x {}", nx, ny, format_length(cell_size_m),
                            format_length(map_width_m), format_length(ny * cell_size_m));
  const int bottom_row_w = kAxesWidth + 16 + f.scale_px + 8 +
                           text_width_px(f.scale_label, kTextScale) + 24 +
                           text_width_px(f.grid_info, kTextScale);
  f.content_h =
      options.colour_bar ? std::max(f.map_h, f.bar_y - f.map_y + f.bar_h + f.text_h / 2) : f.map_h;
  const int bottom_h = options.scale_bar ? 56 : 0;

  f.width = f.map_x + f.map_w + colour_bar_w + kMargin;
  if (options.scale_bar) f.width = std::max(f.width, f.map_x + bottom_row_w + kMargin);
  if (!options.title.empty()) {
    f.width = std::max(f.width, 2 * kMargin + text_width_px(options.title, kTextScale));
  }
  f.height = f.map_y + f.content_h + bottom_h + kMargin;
  return f;
}

// The map's cells in their colours, hill-shaded (Lambertian, see render_heightmap's header);
// non-finite heights stay grey.
RgbImage shaded_map(const double* height_m, int nx, int ny, double cell_size_m,
                    const HeightmapImageOptions& options, const ColourRange& range,
                    const HeightmapFrame& f) {
  const double z_lo = range.z_lo, z_hi = range.z_hi;
  const int ppc = f.ppc;
  RgbImage map(f.map_w, f.map_h, kNoData);
  const double az = deg_to_rad(options.light_azimuth_deg);
  const double alt = deg_to_rad(options.light_altitude_deg);
  const double light_x = std::sin(az) * std::cos(alt);
  const double light_y = std::cos(az) * std::cos(alt);
  const double light_z = std::sin(alt);
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const int k = j * nx + i;
      const double h = height_m[k];
      if (!std::isfinite(h)) continue;  // stays grey
      Rgb colour = height_colormap((h - z_lo) / (z_hi - z_lo));
      if (options.hill_shade && options.hill_shade_strength > 0.0) {
        const double gx =
            options.z_exaggeration * slope(height_m, k, 1, i > 0, i < nx - 1, cell_size_m);
        const double gy =
            options.z_exaggeration * slope(height_m, k, nx, j > 0, j < ny - 1, cell_size_m);
        // Normal of z = h(x, y) is (-gx, -gy, 1) / |.|.
        const double lambert = std::max(
            0.0, (-gx * light_x - gy * light_y + light_z) / std::sqrt(gx * gx + gy * gy + 1.0));
        colour = shade(colour, lambert, light_z, options.hill_shade_strength);
      }
      map.fill_rect(i * ppc, (ny - 1 - j) * ppc, ppc, ppc, colour);
    }
  }
  return map;
}

// The polylines on the map (local: the map's own pixel coordinates), each with a black border.
void draw_polylines(const std::vector<HeightmapPolyline>& polylines,
                    const HeightmapImageLayout& local, CairoCanvas& map) {
  for (const HeightmapPolyline& line : polylines) {
    const int w = std::max(1, line.width_px);
    std::vector<std::pair<double, double>> points;
    for (const auto& p : line.points_ij)
      points.emplace_back(local.pixel_x(p[0]), local.pixel_y(p[1]));
    if (points.size() >= 2) {
      map.stroke(points, kBlack, w + 2);  // black border first, then the colour on top
      map.stroke(points, line.colour, w);
    } else if (points.size() == 1) {
      map.fill_circle(points[0].first, points[0].second, w / 2 + 1, line.colour);
    }
  }
}

// The markers on the map, each a ringed dot with its label boxed beside it, inside the map.
void draw_markers(const std::vector<HeightmapMarker>& markers, const HeightmapImageLayout& local,
                  int cap_h, int map_width, int map_height, CairoCanvas& map) {
  for (const HeightmapMarker& marker : markers) {
    const int cx = local.pixel_x(marker.i);
    const int cy = local.pixel_y(marker.j);
    const int r = std::max(1, marker.radius_px);
    map.fill_circle(cx, cy, r + 2, kBlack);
    map.fill_circle(cx, cy, r, marker.colour);
    if (!marker.label.empty()) {
      // Right of the marker, or left of it where the label would leave the map.
      const int tw = text_width_px(marker.label, kTextScale);
      int tx = cx + r + 6;
      if (tx + tw + 3 > map_width) tx = std::max(3, cx - r - 6 - tw);
      const int ty = std::clamp(cy - cap_h / 2, 3, std::max(3, map_height - cap_h - 3));
      map.fill_rect(tx - 3, ty - 3, tw + 6, cap_h + 6, kWhite);
      map.draw_rect(tx - 3, ty - 3, tw + 6, cap_h + 6, kBlack);
      map.text(tx, ty, marker.label, kText, kTextScale);
    }
  }
}

// The colour ramp (max at the top) under its quantity's name, with its ticks and their labels.
void draw_colour_bar(const HeightmapFrame& f, CairoCanvas& image) {
  const int bar_x = f.bar_x, bar_y = f.bar_y, bar_h = f.bar_h;
  for (int row = 0; row < bar_h; ++row) {
    const double t = bar_h == 1 ? 1.0 : 1.0 - static_cast<double>(row) / (bar_h - 1);
    image.fill_rect(bar_x, bar_y + row, kBarWidth, 1, height_colormap(t));
  }
  image.draw_rect(bar_x - 1, bar_y - 1, kBarWidth + 2, bar_h + 2, kBlack);
  auto tick = [&](int row, const std::string& label) {
    image.fill_rect(bar_x + kBarWidth + 1, row, kTickLength, 1, kBlack);
    image.text(bar_x + kBarWidth + kTickLength + 4, row - f.cap_h / 2, label, kText, kTextScale);
  };
  for (int k = 0; k < 3; ++k) tick(f.tick_rows[k], f.labels[k]);
  if (f.zero_row >= 0) tick(f.zero_row, "0 mm");
  if (!f.quantity.empty()) image.text(bar_x, f.map_y, f.quantity, kText, kTextScale);
}

// The row below the map: axis arrows, the scale bar with its length, and the grid's size.
void draw_scale_bar(const HeightmapFrame& f, CairoCanvas& image) {
  const int map_x = f.map_x, cap_h = f.cap_h, scale_px = f.scale_px;
  const int base_y = f.map_y + f.content_h + 14;  // top of the bottom row
  // Axis arrows: +x to the right, +y up, from a common origin.
  const int ox = map_x + 4;
  const int oy = base_y + 34;
  draw_arrow(image, ox, oy, ox + 28, oy, kText);
  draw_arrow(image, ox, oy, ox, oy - 28, kText);
  image.text(ox + 32, oy - cap_h + 2, "x", kText, kTextScale);
  image.text(ox + 9, oy - 30, "y", kText, kTextScale);
  // Scale bar: a filled bar with end ticks, labelled with its length.
  const int sx = map_x + kAxesWidth + 16;
  const int sy = base_y + 17;
  image.fill_rect(sx, sy, scale_px, 6, kText);
  image.fill_rect(sx, sy - 4, 2, 14, kText);
  image.fill_rect(sx + scale_px - 2, sy - 4, 2, 14, kText);
  image.text(sx + scale_px + 8, sy + 3 - cap_h / 2, f.scale_label, kText, kTextScale);
  const int info_x = sx + scale_px + 8 + text_width_px(f.scale_label, kTextScale) + 24;
  image.text(info_x, sy + 3 - cap_h / 2, f.grid_info, Rgb{90, 90, 90}, kTextScale);
}

}  // namespace

Rgb height_colormap(double t) {
  if (std::isnan(t)) return kNoData;
  t = std::clamp(t, 0.0, 1.0);
  const double s = t * (kStopCount - 1);
  const int k = std::min(static_cast<int>(s), kStopCount - 2);
  const double f = s - k;
  const Rgb a = kHeightStops[k];
  const Rgb b = kHeightStops[k + 1];
  return {to_byte(a.r + f * (b.r - a.r)), to_byte(a.g + f * (b.g - a.g)),
          to_byte(a.b + f * (b.b - a.b))};
}

double relative_luminance(Rgb colour) {
  return 0.2126 * srgb_to_linear(colour.r) + 0.7152 * srgb_to_linear(colour.g) +
         0.0722 * srgb_to_linear(colour.b);
}

int HeightmapImageLayout::pixel_x(double i) const {
  return map_x + static_cast<int>(std::floor((i + 0.5) * pixels_per_cell));
}

int HeightmapImageLayout::pixel_y(double j) const {
  return map_y + static_cast<int>(std::floor((ny - 0.5 - j) * pixels_per_cell));
}

RgbImage render_heightmap(const double* height_m, int nx, int ny, double cell_size_m,
                          const HeightmapImageOptions& options, HeightmapImageLayout* layout) {
  validate_heightmap(height_m, nx, ny, cell_size_m, options);
  const std::size_t cells = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  const ColourRange range = colour_range(height_m, cells, options);
  const HeightmapFrame f = frame_layout(nx, ny, cell_size_m, options, range);
  RgbImage image(f.width, f.height, kWhite);

  // The map: colour, shading, overlays (drawn on the map alone so they clip at its edge).
  RgbImage map = shaded_map(height_m, nx, ny, cell_size_m, options, range, f);
  // Overlays are placed in map-local coordinates (the map's top left pixel at 0, 0).
  const HeightmapImageLayout local{0, 0, f.ppc, nx, ny, range.z_lo, range.z_hi, {}};
  {
    CairoCanvas on_map(map);
    draw_polylines(options.polylines, local, on_map);
    draw_markers(options.markers, local, f.cap_h, map.width, map.height, on_map);
  }
  image.blit(map, f.map_x, f.map_y);
  image.draw_rect(f.map_x - 1, f.map_y - 1, f.map_w + 2, f.map_h + 2, kBlack);

  CairoCanvas canvas(image);
  if (!options.title.empty()) canvas.text(kMargin, kMargin, options.title, kText, kTextScale);
  if (options.colour_bar) draw_colour_bar(f, canvas);
  if (options.scale_bar) draw_scale_bar(f, canvas);
  canvas.finish();

  if (layout != nullptr) {
    *layout = HeightmapImageLayout{f.map_x, f.map_y, f.ppc, nx, ny, range.z_lo, range.z_hi, {}};
    if (options.colour_bar) layout->colour_bar = PixelRect{f.bar_x, f.bar_y, kBarWidth, f.bar_h};
  }
  return image;
}

}  // namespace talus
