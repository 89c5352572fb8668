#include "core/cairo_draw.hpp"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace talus {
namespace {

constexpr const char* kFace = "DejaVu Sans";
constexpr double kSizePerScale = 9.6;   // px of the face per text scale: capitals ~7 px
constexpr double kLineAdvanceEm = 1.2;  // baseline to baseline, in font sizes

// The length of the well-formed UTF-8 sequence starting at s[i] (1-4 bytes), or 0 when it is
// malformed or truncated. Hand-written (a few lines) because Cairo puts a context into a permanent
// error state on malformed UTF-8, and no library talus links offers a validator.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) {
    n = 2;
    cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3;
    cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are malformed too.
  const std::uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

// Lines of `text` split at '\n', each byte of a malformed UTF-8 sequence replaced by U+FFFD.
std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines(1);
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\n') {
      lines.emplace_back();
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      lines.back() += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      lines.back().append(text.substr(i, n));
      i += n;
    }
  }
  return lines;
}

void select_face(cairo_t* cr, int scale) {
  cairo_select_font_face(cr, kFace, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, kSizePerScale * std::max(scale, 1));
}

// A context on a 1 x 1 surface for measuring text (Cairo's font metrics need a context).
struct Measurer {
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
  cairo_t* cr = cairo_create(surface);
  Measurer() {
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
      cairo_destroy(cr);
      cairo_surface_destroy(surface);
      throw std::runtime_error("cairo: cannot create a drawing context");
    }
  }
  ~Measurer() {
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
  }
};

struct FaceMetrics {
  double cap_height = 0.0;  // capitals above the baseline [px]
  double descent = 0.0;     // below the baseline [px]
  double line_advance = 0.0;
};

FaceMetrics face_metrics(cairo_t* cr, int scale) {
  select_face(cr, scale);
  cairo_text_extents_t h;
  cairo_text_extents(cr, "H", &h);
  cairo_font_extents_t f;
  cairo_font_extents(cr, &f);
  return {-h.y_bearing, f.descent, kLineAdvanceEm * kSizePerScale * std::max(scale, 1)};
}

double line_width(cairo_t* cr, const std::string& line) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, line.c_str(), &e);
  return e.x_advance;
}

std::uint32_t pack(Rgb c) {
  return (static_cast<std::uint32_t>(c.r) << 16) | (static_cast<std::uint32_t>(c.g) << 8) | c.b;
}

void set_colour(cairo_t* cr, Rgb c) {
  cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

// One measuring context per thread: layout asks for many widths per picture.
Measurer& measurer() {
  thread_local Measurer m;
  return m;
}

}  // namespace

int text_cap_height_px(int scale) {
  Measurer& m = measurer();
  return static_cast<int>(std::lround(face_metrics(m.cr, scale).cap_height));
}

int text_width_px(std::string_view text, int scale) {
  if (text.empty()) return 0;
  Measurer& m = measurer();
  select_face(m.cr, scale);
  double widest = 0.0;
  for (const std::string& line : lines_of(text)) widest = std::max(widest, line_width(m.cr, line));
  return static_cast<int>(std::ceil(widest));
}

int text_height_px(std::string_view text, int scale) {
  if (text.empty()) return 0;
  Measurer& m = measurer();
  const FaceMetrics f = face_metrics(m.cr, scale);
  const auto n = static_cast<double>(lines_of(text).size());
  return static_cast<int>(std::ceil(f.cap_height + f.descent + (n - 1.0) * f.line_advance));
}

CairoCanvas::CairoCanvas(RgbImage& image) : image_(&image) {
  if (image.width <= 0 || image.height <= 0) return;  // nothing to draw on
  surface_ = cairo_image_surface_create(CAIRO_FORMAT_RGB24, image.width, image.height);
  cr_ = cairo_create(surface_);
  if (cairo_status(cr_) != CAIRO_STATUS_SUCCESS) {
    cairo_destroy(cr_);
    cairo_surface_destroy(surface_);
    throw std::runtime_error("cairo: cannot create a drawing context");
  }
  cairo_surface_flush(surface_);
  unsigned char* data = cairo_image_surface_get_data(surface_);
  const int stride = cairo_image_surface_get_stride(surface_);
  for (int y = 0; y < image.height; ++y) {
    auto* row = reinterpret_cast<std::uint32_t*>(data + static_cast<std::ptrdiff_t>(y) * stride);
    for (int x = 0; x < image.width; ++x) row[x] = pack(image.at(x, y));
  }
  cairo_surface_mark_dirty(surface_);
}

CairoCanvas::~CairoCanvas() {
  finish();
  if (cr_ != nullptr) cairo_destroy(cr_);
  if (surface_ != nullptr) cairo_surface_destroy(surface_);
}

void CairoCanvas::stroke(const std::vector<std::pair<double, double>>& points, Rgb colour,
                         double width_px) {
  if (cr_ == nullptr || points.empty()) return;
  set_colour(cr_, colour);
  cairo_set_line_width(cr_, width_px);
  cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr_, CAIRO_LINE_CAP_ROUND);
  // Each segment is cut to the surface grown by the pen (Cairo's fixed-point coordinates
  // overflow far outside it); a cut end starts a new piece of the path.
  const double pad = width_px + 2.0;
  const double hi_x = cairo_image_surface_get_width(surface_) + pad;
  const double hi_y = cairo_image_surface_get_height(surface_) + pad;
  cairo_new_path(cr_);
  if (points.size() == 1) {
    const auto [x, y] = points[0];
    if (x >= -pad && x <= hi_x && y >= -pad && y <= hi_y) {
      cairo_move_to(cr_, x + 0.5, y + 0.5);
      cairo_line_to(cr_, x + 0.5, y + 0.5);
    }
  }
  bool open = false;
  for (std::size_t k = 1; k < points.size(); ++k) {
    double x0 = points[k - 1].first, y0 = points[k - 1].second;
    double x1 = points[k].first, y1 = points[k].second;
    if (!clip_segment(x0, y0, x1, y1, -pad, -pad, hi_x, hi_y)) {
      open = false;
      continue;
    }
    if (!open || x0 != points[k - 1].first || y0 != points[k - 1].second) {
      cairo_move_to(cr_, x0 + 0.5, y0 + 0.5);
    }
    cairo_line_to(cr_, x1 + 0.5, y1 + 0.5);
    open = x1 == points[k].first && y1 == points[k].second;
  }
  cairo_stroke(cr_);
}

void CairoCanvas::fill_rect(double x, double y, double w, double h, Rgb colour) {
  if (cr_ == nullptr) return;
  cairo_rectangle(cr_, x, y, w, h);
  set_colour(cr_, colour);
  cairo_fill(cr_);
}

void CairoCanvas::draw_rect(int x, int y, int w, int h, Rgb colour) {
  if (w <= 0 || h <= 0) return;
  fill_rect(x, y, w, 1, colour);
  fill_rect(x, y + h - 1, w, 1, colour);
  fill_rect(x, y, 1, h, colour);
  fill_rect(x + w - 1, y, 1, h, colour);
}

void CairoCanvas::fill_polygon(const std::vector<std::pair<double, double>>& points, Rgb colour,
                               bool antialias) {
  if (cr_ == nullptr || points.size() < 3) return;
  cairo_new_path(cr_);
  for (const auto& [x, y] : points) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    cairo_line_to(cr_, x, y);
  }
  cairo_close_path(cr_);
  cairo_set_antialias(cr_, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE);
  set_colour(cr_, colour);
  cairo_fill(cr_);
  cairo_set_antialias(cr_, CAIRO_ANTIALIAS_DEFAULT);
}

void CairoCanvas::fill_circle(double cx, double cy, double radius_px, Rgb colour) {
  if (cr_ == nullptr || !(radius_px > 0.0)) return;
  cairo_new_path(cr_);
  cairo_arc(cr_, cx + 0.5, cy + 0.5, radius_px, 0.0, 2.0 * M_PI);
  set_colour(cr_, colour);
  cairo_fill(cr_);
}

void CairoCanvas::text(double x, double y, std::string_view text, Rgb colour, int scale, bool up) {
  if (cr_ == nullptr || text.empty()) return;
  const FaceMetrics f = face_metrics(cr_, scale);
  cairo_save(cr_);
  if (up) {
    // The upright box (w x h) turned counter-clockwise: its top-left corner lands at the bottom
    // left of the turned box, (x, y + w).
    const double w = text_width_px(text, scale);
    cairo_translate(cr_, x, y + w);
    cairo_rotate(cr_, -M_PI / 2.0);
  } else {
    cairo_translate(cr_, x, y);
  }
  set_colour(cr_, colour);
  double baseline = f.cap_height;
  for (const std::string& line : lines_of(text)) {
    cairo_move_to(cr_, 0.0, baseline);
    cairo_show_text(cr_, line.c_str());
    baseline += f.line_advance;
  }
  cairo_restore(cr_);
}

void CairoCanvas::finish() {
  if (surface_ == nullptr || image_ == nullptr) return;
  cairo_surface_flush(surface_);
  const unsigned char* data = cairo_image_surface_get_data(surface_);
  const int stride = cairo_image_surface_get_stride(surface_);
  for (int y = 0; y < image_->height; ++y) {
    const auto* row =
        reinterpret_cast<const std::uint32_t*>(data + static_cast<std::ptrdiff_t>(y) * stride);
    for (int x = 0; x < image_->width; ++x) {
      const std::uint32_t p = row[x];
      image_->set(x, y, static_cast<std::uint8_t>(p >> 16), static_cast<std::uint8_t>(p >> 8),
                  static_cast<std::uint8_t>(p));
    }
  }
  image_ = nullptr;
}

}  // namespace talus
