#include "core/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/cairo_draw.hpp"

namespace talus {
namespace {

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kText{20, 20, 20};
constexpr Rgb kGrid{228, 228, 228};
constexpr Rgb kZeroLine{170, 170, 170};
constexpr int kMargin = 12;
constexpr int kTickLength = 5;

// Ten distinct colours, chosen for talus (dark enough on white, told apart in a legend).
constexpr Rgb kPalette[] = {
    {31, 100, 200}, {230, 120, 20}, {40, 160, 60},   {210, 40, 40},  {140, 80, 190},
    {140, 90, 60},  {220, 90, 180}, {100, 100, 100}, {160, 160, 30}, {20, 170, 190},
};

struct Range {
  double lo = 0.0;
  double hi = 1.0;
};

// The range an axis shows: fixed ends as given, automatic ends from the data plus 4%.
Range axis_range(std::optional<double> fixed_lo, std::optional<double> fixed_hi, double data_lo,
                 double data_hi, const char* axis) {
  for (const auto& end : {fixed_lo, fixed_hi}) {
    if (end && !std::isfinite(*end)) {
      throw std::runtime_error(fmt::format("plot_lines: a fixed {} range end is not finite", axis));
    }
  }
  if (fixed_lo && fixed_hi) {
    if (!(*fixed_hi > *fixed_lo)) {
      throw std::runtime_error(
          fmt::format("plot_lines: fixed {} range [{}, {}] is empty", axis, *fixed_lo, *fixed_hi));
    }
    return {*fixed_lo, *fixed_hi};
  }
  if (!(data_hi >= data_lo)) data_lo = data_hi = 0.0;  // no finite data
  if (fixed_lo) {                                      // automatic upper end
    const double lo = *fixed_lo;
    if (!(data_hi > lo)) return {lo, lo + std::max(std::abs(lo) * 0.2, 1.0)};
    return {lo, data_hi + 0.04 * (data_hi - lo)};
  }
  if (fixed_hi) {  // automatic lower end
    const double hi = *fixed_hi;
    if (!(data_lo < hi)) return {hi - std::max(std::abs(hi) * 0.2, 1.0), hi};
    return {data_lo - 0.04 * (hi - data_lo), hi};
  }
  if (!(data_hi > data_lo)) {  // a single value: centre it
    const double half = std::max(std::abs(data_lo) * 0.1, 0.5);
    return {data_lo - half, data_lo + half};
  }
  const double span = data_hi - data_lo;
  return {data_lo - 0.04 * span, data_hi + 0.04 * span};
}

double to_pixel(double v, double lo, double hi, int first_px, int span_px, bool flip) {
  const double f = (v - lo) / (hi - lo);
  return first_px + (flip ? 1.0 - f : f) * (span_px - 1);
}

int round_px(double v) { return static_cast<int>(std::lround(std::clamp(v, -1e8, 1e8))); }

// Ticks for one axis: start from about `target` ticks, then widen the step until labels fit
// `min_spacing_px(labels)` apart.
template <typename SpacingFn>
std::vector<double> choose_ticks(const Range& r, int span_px, int target, SpacingFn min_spacing,
                                 double* step_out) {
  double step = nice_step((r.hi - r.lo) / std::max(target, 1));
  // A step as wide as the range can leave a single tick (e.g. [-48, 16] with step 50: only 0), and
  // an axis with one number cannot be read: take the next smaller nice step until two fit.
  for (int guard = 0; guard < 8 && nice_ticks(r.lo, r.hi, step).size() < 2; ++guard) {
    const double p = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double m = step / p;
    step = m > 4.5 ? 2.0 * p : (m > 1.5 ? p : 0.5 * p);
  }
  for (int guard = 0; guard < 64; ++guard) {
    std::vector<double> ticks = nice_ticks(r.lo, r.hi, step);
    const double spacing_px = step / (r.hi - r.lo) * (span_px - 1);
    if (spacing_px >= min_spacing(ticks, step) || ticks.size() <= 2) {
      *step_out = step;
      return ticks;
    }
    step = nice_step(step * 1.0001);
  }
  *step_out = step;
  return nice_ticks(r.lo, r.hi, step);
}

void validate_plot_size(const PlotSpec& spec) {
  if (spec.width_px < 200 || spec.height_px < 150 || spec.width_px > 20000 ||
      spec.height_px > 20000) {
    throw std::runtime_error(
        fmt::format("plot_lines: size {} x {} px is outside 200 x 150 .. 20000", spec.width_px,
                    spec.height_px));
  }
  if (spec.text_scale < 1 || spec.text_scale > 8) {
    throw std::runtime_error(
        fmt::format("plot_lines: text_scale = {} must be in 1..8", spec.text_scale));
  }
}

// The ranges the axes show before any equal aspect: from the finite points of every series (whose
// x and y must pair up) and the spec's fixed ends.
struct BaseRanges {
  Range x, y;
};

BaseRanges base_ranges(const PlotSpec& spec) {
  double x_data_lo = std::numeric_limits<double>::infinity(), x_data_hi = -x_data_lo;
  double y_data_lo = x_data_lo, y_data_hi = -x_data_lo;
  for (std::size_t s = 0; s < spec.series.size(); ++s) {
    const PlotSeries& series = spec.series[s];
    if (series.x.size() != series.y.size()) {
      throw std::runtime_error(
          fmt::format("plot_lines: series {} ('{}') has {} x values but {} y values", s,
                      series.name, series.x.size(), series.y.size()));
    }
    for (std::size_t k = 0; k < series.x.size(); ++k) {
      if (!std::isfinite(series.x[k]) || !std::isfinite(series.y[k])) continue;
      x_data_lo = std::min(x_data_lo, series.x[k]);
      x_data_hi = std::max(x_data_hi, series.x[k]);
      y_data_lo = std::min(y_data_lo, series.y[k]);
      y_data_hi = std::max(y_data_hi, series.y[k]);
    }
  }
  return {axis_range(spec.x_min, spec.x_max, x_data_lo, x_data_hi, "x"),
          axis_range(spec.y_min, spec.y_max, y_data_lo, y_data_hi, "y")};
}

// The data area, the ranges it shows and the ticks on them.
struct PlotFrame {
  PixelRect area;
  Range xr, yr;
  std::vector<double> x_ticks, y_ticks;
  double x_step = 1.0, y_step = 1.0;
};

// With equal_aspect both axes take the larger of the two units per pixel, about the same centres.
void equalise_aspect(PlotFrame& f) {
  const PixelRect& area = f.area;
  Range& xr = f.xr;
  Range& yr = f.yr;
  const double ux = (xr.hi - xr.lo) / (area.width - 1);
  const double uy = (yr.hi - yr.lo) / (area.height - 1);
  const double u = std::max(ux, uy);
  const double cx = 0.5 * (xr.lo + xr.hi), cy = 0.5 * (yr.lo + yr.hi);
  xr = {cx - 0.5 * u * (area.width - 1), cx + 0.5 * u * (area.width - 1)};
  yr = {cy - 0.5 * u * (area.height - 1), cy + 0.5 * u * (area.height - 1)};
}

// Ticks for both axes of f's area: y labels a line of text and some space apart, x labels their
// widest label and three characters apart.
void choose_plot_ticks(int S, int text_h, PlotFrame& f) {
  f.y_ticks = choose_ticks(
      f.yr, f.area.height, std::max(2, f.area.height / (3 * text_h)),
      [&](const std::vector<double>&, double) { return text_h + 8.0; }, &f.y_step);
  f.x_ticks = choose_ticks(
      f.xr, f.area.width, std::max(2, f.area.width / 100),
      [&](const std::vector<double>& ticks, double step) {
        int widest = 0;
        for (double t : ticks) widest = std::max(widest, text_width_px(format_tick(t, step), S));
        return widest + 3.0 * text_width_px("0", S);
      },
      &f.x_step);
}

// Layout: margins depend on tick labels, which depend on the area; iterate to a fixpoint.
PlotFrame fit_frame(const PlotSpec& spec, const BaseRanges& base, int legend_w = 0) {
  const int S = spec.text_scale;
  const int text_h = text_height_px("0", S);
  const int cap_h = text_cap_height_px(S);
  const int title_h = spec.title.empty() ? 0 : text_height_px(spec.title, S) + 10;
  const int top = kMargin + title_h + cap_h / 2 + 2;
  const int bottom = kTickLength + 5 + text_h + (spec.x_label.empty() ? 0 : 8 + text_h) + kMargin;
  int left = kMargin + 40;
  int right = kMargin + 16 + legend_w;
  PlotFrame f;
  f.xr = base.x;
  f.yr = base.y;
  for (int pass = 0; pass < 6; ++pass) {
    f.area = {left, top, spec.width_px - left - right, spec.height_px - top - bottom};
    if (f.area.width < 40 || f.area.height < 40) {
      throw std::runtime_error(
          fmt::format("plot_lines: {} x {} px leaves no room for the data at text_scale {}",
                      spec.width_px, spec.height_px, S));
    }
    f.xr = base.x;
    f.yr = base.y;
    if (spec.equal_aspect) equalise_aspect(f);
    choose_plot_ticks(S, text_h, f);
    int y_label_w = 0;
    for (double t : f.y_ticks)
      y_label_w = std::max(y_label_w, text_width_px(format_tick(t, f.y_step), S));
    const int last_x_label_w =
        f.x_ticks.empty() ? 0 : text_width_px(format_tick(f.x_ticks.back(), f.x_step), S);
    const int new_left =
        kMargin + (spec.y_label.empty() ? 0 : text_h + 8) + y_label_w + 4 + kTickLength;
    const int new_right = kMargin + std::max(8, last_x_label_w / 2) + legend_w;
    if (new_left == left && new_right == right) break;
    left = new_left;
    right = new_right;
  }
  return f;
}

// The data area: grid, then series, drawn on their own image so they clip at the frame.
RgbImage draw_data_area(const PlotSpec& spec, const PlotFrame& f) {
  const PixelRect& area = f.area;
  const Range& xr = f.xr;
  const Range& yr = f.yr;
  RgbImage data(area.width, area.height, kWhite);
  auto local_x = [&](double x) { return to_pixel(x, xr.lo, xr.hi, 0, area.width, false); };
  auto local_y = [&](double y) { return to_pixel(y, yr.lo, yr.hi, 0, area.height, true); };
  for (double t : f.x_ticks) {
    const int px = round_px(local_x(t));
    data.fill_rect(px, 0, 1, area.height, t == 0.0 ? kZeroLine : kGrid);
  }
  for (double t : f.y_ticks) {
    const int py = round_px(local_y(t));
    data.fill_rect(0, py, area.width, 1, t == 0.0 ? kZeroLine : kGrid);
  }
  CairoCanvas canvas(data);
  for (std::size_t s = 0; s < spec.series.size(); ++s) {
    const PlotSeries& series = spec.series[s];
    const Rgb colour = series.colour.value_or(series_colour(static_cast<int>(s)));
    const int pen = std::clamp(series.line_width_px, 1, 32);
    // The series as polylines broken at non-finite points; the canvas cuts them at the data
    // area's edge (grown by the pen, so thick lines reach the frame).
    std::vector<std::pair<double, double>> line;
    auto flush = [&] {
      if (line.size() >= 2) canvas.stroke(line, colour, pen);
      line.clear();
    };
    for (std::size_t k = 0; k < series.x.size(); ++k) {
      if (!std::isfinite(series.x[k]) || !std::isfinite(series.y[k])) {
        flush();
        continue;
      }
      line.emplace_back(local_x(series.x[k]), local_y(series.y[k]));
    }
    flush();
    if (series.markers) {
      const int m = pen + 4;
      for (std::size_t k = 0; k < series.x.size(); ++k) {
        if (!std::isfinite(series.x[k]) || !std::isfinite(series.y[k])) continue;
        canvas.fill_rect(round_px(local_x(series.x[k])) - m / 2,
                         round_px(local_y(series.y[k])) - m / 2, m, m, colour);
      }
    }
  }
  canvas.finish();
  return data;
}

// Ticks below and left of the data area, with their labels.
void draw_ticks(const PlotSpec& spec, const PlotLayout& layout, const PlotFrame& f,
                CairoCanvas& canvas) {
  const int S = spec.text_scale;
  const int cap_h = text_cap_height_px(S);
  const PixelRect& area = f.area;
  for (double t : f.x_ticks) {
    const int px = layout.pixel_x(t);
    canvas.fill_rect(px, area.y + area.height, 1, kTickLength + 1, kBlack);
    const std::string label = format_tick(t, f.x_step);
    canvas.text(px - text_width_px(label, S) / 2, area.y + area.height + kTickLength + 5, label,
                kText, S);
  }
  for (double t : f.y_ticks) {
    const int py = layout.pixel_y(t);
    canvas.fill_rect(area.x - 1 - kTickLength, py, kTickLength, 1, kBlack);
    const std::string label = format_tick(t, f.y_step);
    canvas.text(area.x - 1 - kTickLength - 4 - text_width_px(label, S), py - cap_h / 2, label,
                kText, S);
  }
}

// The title centred above the data area, the x label below it and the y label up its left side.
void draw_titles(const PlotSpec& spec, const PixelRect& area, CairoCanvas& canvas) {
  const int S = spec.text_scale;
  const int text_h = text_height_px("0", S);
  if (!spec.title.empty()) {
    const int w = text_width_px(spec.title, S);
    canvas.text(std::max(kMargin, area.x + (area.width - w) / 2), kMargin, spec.title, kText, S);
  }
  if (!spec.x_label.empty()) {
    const int w = text_width_px(spec.x_label, S);
    canvas.text(area.x + (area.width - w) / 2, spec.height_px - kMargin - text_h, spec.x_label,
                kText, S);
  }
  if (!spec.y_label.empty()) {
    const int w = text_width_px(spec.y_label, S);
    canvas.text(kMargin, area.y + (area.height - w) / 2, spec.y_label, kText, S, true);
  }
}

constexpr std::array<LegendPlacement, 4> kLegendCorners = {
    LegendPlacement::TopRight, LegendPlacement::TopLeft, LegendPlacement::BottomRight,
    LegendPlacement::BottomLeft};

// The legend's box in a corner of the data area, inset a little, or (Right) outside it, to the
// right of the frame at its top.
PixelRect legend_rect(const PixelRect& area, LegendPlacement p, int box_w, int box_h) {
  const int inset = 8;
  if (p == LegendPlacement::Right) return PixelRect{area.x + area.width + 12, area.y, box_w, box_h};
  const bool right_side = p == LegendPlacement::TopRight || p == LegendPlacement::BottomRight;
  const bool top_side = p == LegendPlacement::TopRight || p == LegendPlacement::TopLeft;
  return PixelRect{right_side ? area.x + area.width - inset - box_w : area.x + inset,
                   top_side ? area.y + inset : area.y + area.height - inset - box_h, box_w, box_h};
}

// The legend's rows: the named series and the box they need.
struct LegendBox {
  std::vector<std::size_t> named;
  int width = 0, height = 0, sample_w = 0, row_h = 0;
};

LegendBox legend_box(const PlotSpec& spec) {
  const int S = spec.text_scale;
  LegendBox b;
  int name_w = 0;
  for (std::size_t s = 0; s < spec.series.size(); ++s) {
    if (spec.series[s].name.empty()) continue;
    b.named.push_back(s);
    name_w = std::max(name_w, text_width_px(spec.series[s].name, S));
  }
  b.sample_w = 14 * S;
  b.row_h = text_height_px("0", S) + 2 * S;
  b.width = 8 + b.sample_w + 8 + name_w + 8;
  b.height = 8 + static_cast<int>(b.named.size()) * b.row_h - 2 * S + 8;
  return b;
}

// The data samples (points and every ~3 px along segments) inside each corner's legend box.
std::array<long long, 4> corner_coverage(const PlotSpec& spec, const PlotLayout& layout, int box_w,
                                         int box_h) {
  std::array<long long, 4> covered{};
  for (const PlotSeries& series : spec.series) {
    for (std::size_t k = 0; k < series.x.size(); ++k) {
      if (!std::isfinite(series.x[k]) || !std::isfinite(series.y[k])) continue;
      const double x1 = layout.pixel_x(series.x[k]), y1 = layout.pixel_y(series.y[k]);
      double x0 = x1, y0 = y1;
      if (k > 0 && std::isfinite(series.x[k - 1]) && std::isfinite(series.y[k - 1])) {
        x0 = layout.pixel_x(series.x[k - 1]);
        y0 = layout.pixel_y(series.y[k - 1]);
      }
      const int samples = std::clamp(static_cast<int>(std::hypot(x1 - x0, y1 - y0) / 3.0), 1, 4000);
      for (int q = 1; q <= samples; ++q) {
        const double f = static_cast<double>(q) / samples;
        const int px = round_px(x0 + f * (x1 - x0)), py = round_px(y0 + f * (y1 - y0));
        for (std::size_t c = 0; c < kLegendCorners.size(); ++c) {
          if (legend_rect(layout.area, kLegendCorners[c], box_w, box_h).contains(px, py)) {
            ++covered[c];
          }
        }
      }
    }
  }
  return covered;
}

// The legend of the named series (a line sample, a marker if drawn, the name) at `place`;
// records its box in layout.
void draw_legend(const PlotSpec& spec, const LegendBox& legend, LegendPlacement place,
                 PlotLayout& layout, CairoCanvas& canvas) {
  const int S = spec.text_scale;
  const int cap_h = text_cap_height_px(S);
  const PixelRect box = legend_rect(layout.area, place, legend.width, legend.height);
  canvas.fill_rect(box.x, box.y, box.width, box.height, kWhite);
  canvas.draw_rect(box.x, box.y, box.width, box.height, Rgb{150, 150, 150});
  for (std::size_t r = 0; r < legend.named.size(); ++r) {
    const PlotSeries& series = spec.series[legend.named[r]];
    const Rgb colour = series.colour.value_or(series_colour(static_cast<int>(legend.named[r])));
    const int row_y = box.y + 8 + static_cast<int>(r) * legend.row_h;
    const int mid_y = row_y + cap_h / 2;
    const int pen = std::clamp(series.line_width_px, 1, 8);
    canvas.stroke({{box.x + 8, mid_y}, {box.x + 8 + legend.sample_w, mid_y}}, colour, pen);
    if (series.markers) {
      const int m = pen + 4;
      canvas.fill_rect(box.x + 8 + legend.sample_w / 2 - m / 2, mid_y - m / 2, m, m, colour);
    }
    canvas.text(box.x + 8 + legend.sample_w + 8, row_y, series.name, kText, S);
  }
  layout.legend = box;
}

}  // namespace

double nice_step(double raw_step) {
  if (!(raw_step > 0.0) || !std::isfinite(raw_step)) {
    throw std::runtime_error(fmt::format("nice_step: raw_step = {} must be positive", raw_step));
  }
  const double p = std::pow(10.0, std::floor(std::log10(raw_step)));
  const double m = raw_step / p;
  constexpr double kTol = 1e-9;
  if (m <= 1.0 + kTol) return p;
  if (m <= 2.0 + kTol) return 2.0 * p;
  if (m <= 5.0 + kTol) return 5.0 * p;
  return 10.0 * p;
}

std::vector<double> nice_ticks(double lo, double hi, double step) {
  std::vector<double> ticks;
  if (!(step > 0.0) || !(hi >= lo)) return ticks;
  const double tol = 1e-9;
  const double first = std::ceil(lo / step - tol);
  const double last = std::floor(hi / step + tol);
  if (last - first > 10000) return ticks;  // absurd request; no ticks rather than a hang
  for (double k = first; k <= last; k += 1.0) {
    double v = k * step;
    if (std::abs(v) < tol * step) v = 0.0;
    ticks.push_back(v);
  }
  return ticks;
}

std::string format_tick(double value, double step) {
  if (value == 0.0) return "0";
  const double magnitude = std::max(std::abs(value), step);
  if (magnitude >= 1e6 || step < 1e-5) {
    const int significant = std::clamp(static_cast<int>(std::floor(std::log10(magnitude) + 1e-9) -
                                                        std::floor(std::log10(step) + 1e-9)) +
                                           1,
                                       1, 15);
    return fmt::format("{:.{}g}", value, significant);
  }
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", value, decimals);
}

Rgb series_colour(int index) {
  constexpr int n = static_cast<int>(sizeof(kPalette) / sizeof(kPalette[0]));
  return kPalette[((index % n) + n) % n];
}

int PlotLayout::pixel_x(double x) const {
  return round_px(to_pixel(x, x_min, x_max, area.x, area.width, false));
}

int PlotLayout::pixel_y(double y) const {
  return round_px(to_pixel(y, y_min, y_max, area.y, area.height, true));
}

PlotLayout layout_of(const PlotFrame& f) {
  PlotLayout layout;
  layout.area = f.area;
  layout.x_min = f.xr.lo;
  layout.x_max = f.xr.hi;
  layout.y_min = f.yr.lo;
  layout.y_max = f.yr.hi;
  layout.x_ticks = f.x_ticks;
  layout.y_ticks = f.y_ticks;
  return layout;
}

RgbImage plot_lines(const PlotSpec& spec, PlotLayout* layout_out) {
  validate_plot_size(spec);
  const BaseRanges base = base_ranges(spec);
  PlotFrame f = fit_frame(spec, base);
  PlotLayout layout = layout_of(f);

  // Where the legend goes: Best takes the inside corner that covers the fewest data samples, and
  // when every corner covers some, the legend moves out to the right (the data area narrows), so
  // it never hides data.
  const LegendBox legend = legend_box(spec);
  LegendPlacement place = legend.named.empty() ? LegendPlacement::None : spec.legend;
  if (place == LegendPlacement::Best) {
    const auto covered = corner_coverage(spec, layout, legend.width, legend.height);
    std::size_t best = 0;
    for (std::size_t c = 1; c < kLegendCorners.size(); ++c) {
      if (covered[c] < covered[best]) best = c;
    }
    place = covered[best] == 0 ? kLegendCorners[best] : LegendPlacement::Right;
  }
  if (place == LegendPlacement::Right) {
    f = fit_frame(spec, base, legend.width + 12);
    layout = layout_of(f);
  }

  RgbImage image(spec.width_px, spec.height_px, kWhite);
  image.blit(draw_data_area(spec, f), f.area.x, f.area.y);
  image.draw_rect(f.area.x - 1, f.area.y - 1, f.area.width + 2, f.area.height + 2, kBlack);
  CairoCanvas canvas(image);
  draw_ticks(spec, layout, f, canvas);
  draw_titles(spec, f.area, canvas);
  if (place != LegendPlacement::None) draw_legend(spec, legend, place, layout, canvas);
  canvas.finish();

  if (layout_out != nullptr) *layout_out = std::move(layout);
  return image;
}

RgbImage stack_vertically(const std::vector<RgbImage>& panels) {
  int width = 0, height = 0;
  for (const RgbImage& p : panels) {
    width = std::max(width, p.width);
    height += p.height;
  }
  if (width == 0 || height == 0) return RgbImage{};
  RgbImage sheet(width, height);
  int y = 0;
  for (const RgbImage& p : panels) {
    sheet.blit(p, 0, y);
    y += p.height;
  }
  return sheet;
}

}  // namespace talus
