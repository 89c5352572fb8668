#include "core/image.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "core/cairo_draw.hpp"

namespace talus {
namespace {

constexpr long long kMaxPixels = 1LL << 28;

struct FileCloser {
  void operator()(std::FILE* file) const {
    if (file != nullptr) std::fclose(file);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Frees libpng's internal state of a simplified-API image on every exit path.
struct PngImageGuard {
  png_image* image;
  ~PngImageGuard() { png_image_free(image); }
};

}  // namespace

bool clip_segment(double& x0, double& y0, double& x1, double& y1, double lo_x, double lo_y,
                  double hi_x, double hi_y) {
  const double dx = x1 - x0;
  const double dy = y1 - y0;
  double t0 = 0.0;
  double t1 = 1.0;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {x0 - lo_x, hi_x - x0, y0 - lo_y, hi_y - y0};
  for (int k = 0; k < 4; ++k) {
    if (p[k] == 0.0) {
      if (q[k] < 0.0) return false;  // parallel to this edge and outside it
      continue;
    }
    const double t = q[k] / p[k];
    if (p[k] < 0.0) {
      if (t > t1) return false;
      t0 = std::max(t0, t);
    } else {
      if (t < t0) return false;
      t1 = std::min(t1, t);
    }
  }
  const double ax = x0;
  const double ay = y0;
  x0 = ax + t0 * dx;
  y0 = ay + t0 * dy;
  x1 = ax + t1 * dx;
  y1 = ay + t1 * dy;
  return true;
}

RgbImage::RgbImage(int width_px, int height_px, Rgb background)
    : width(width_px), height(height_px) {
  if (width_px < 0 || height_px < 0) {
    throw std::runtime_error(fmt::format("RgbImage: negative size {} x {}", width_px, height_px));
  }
  if (static_cast<long long>(width_px) * height_px > kMaxPixels) {
    throw std::runtime_error(fmt::format("RgbImage: size {} x {} exceeds the limit of 2^28 pixels",
                                         width_px, height_px));
  }
  rgb.resize(static_cast<std::size_t>(width_px) * static_cast<std::size_t>(height_px) * 3);
  for (std::size_t k = 0; k < rgb.size(); k += 3) {
    rgb[k] = background.r;
    rgb[k + 1] = background.g;
    rgb[k + 2] = background.b;
  }
}

void RgbImage::set(int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  if (!contains(x, y)) return;
  const std::size_t k = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x) * 3;
  rgb[k] = r;
  rgb[k + 1] = g;
  rgb[k + 2] = b;
}

Rgb RgbImage::at(int x, int y) const {
  if (!contains(x, y)) {
    throw std::runtime_error(fmt::format(
        "RgbImage::at: pixel ({}, {}) is outside the {} x {} image", x, y, width, height));
  }
  const std::size_t k = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x) * 3;
  return {rgb[k], rgb[k + 1], rgb[k + 2]};
}

void RgbImage::fill_rect(int x, int y, int w, int h, Rgb colour) {
  const long long x_begin = std::max<long long>(x, 0);
  const long long y_begin = std::max<long long>(y, 0);
  const long long x_end = std::min<long long>(static_cast<long long>(x) + w, width);
  const long long y_end = std::min<long long>(static_cast<long long>(y) + h, height);
  for (long long py = y_begin; py < y_end; ++py) {
    for (long long px = x_begin; px < x_end; ++px) {
      set(static_cast<int>(px), static_cast<int>(py), colour);
    }
  }
}

void RgbImage::draw_rect(int x, int y, int w, int h, Rgb colour) {
  if (w <= 0 || h <= 0) return;
  fill_rect(x, y, w, 1, colour);
  fill_rect(x, y + h - 1, w, 1, colour);
  fill_rect(x, y, 1, h, colour);
  fill_rect(x + w - 1, y, 1, h, colour);
}

void RgbImage::draw_text(int x, int y, std::string_view text, Rgb colour, int scale) {
  CairoCanvas canvas(*this);
  canvas.text(x, y, text, colour, std::max(scale, 1));
}

void RgbImage::draw_text_up(int x, int y, std::string_view text, Rgb colour, int scale) {
  CairoCanvas canvas(*this);
  canvas.text(x, y, text, colour, std::max(scale, 1), true);
}

void RgbImage::blit(const RgbImage& source, int x, int y) {
  for (int sy = 0; sy < source.height; ++sy) {
    const int ty = y + sy;
    if (ty < 0 || ty >= height) continue;
    for (int sx = 0; sx < source.width; ++sx) {
      const int tx = x + sx;
      if (tx < 0 || tx >= width) continue;
      const std::size_t k = (static_cast<std::size_t>(sy) * source.width + sx) * 3;
      set(tx, ty, source.rgb[k], source.rgb[k + 1], source.rgb[k + 2]);
    }
  }
}

void write_png(const std::filesystem::path& path, const RgbImage& image) {
  if (image.width <= 0 || image.height <= 0) {
    throw std::runtime_error(fmt::format("write_png '{}': the image is empty ({} x {})",
                                         path.string(), image.width, image.height));
  }
  if (image.rgb.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
    throw std::runtime_error(
        fmt::format("write_png '{}': the pixel buffer holds {} bytes, expected {} x {} x 3",
                    path.string(), image.rgb.size(), image.width, image.height));
  }
  FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("write_png: cannot create '{}': {}", path.string(), std::strerror(err)));
  }
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  bool ok = false;
  std::string reason;
  {
    PngImageGuard guard{&png};
    errno = 0;
    ok = png_image_write_to_stdio(&png, file.get(), 0, image.rgb.data(), image.width * 3,
                                  nullptr) != 0;
    if (!ok) {
      reason = png.message;
      if (errno != 0) reason += fmt::format(" ({})", std::strerror(errno));
    }
  }
  if (ok && std::fclose(file.release()) != 0) {
    ok = false;
    reason = std::strerror(errno);
  }
  if (!ok) {
    file.reset();
    std::error_code ignored;
    if (std::filesystem::is_regular_file(path, ignored)) std::filesystem::remove(path, ignored);
    throw std::runtime_error(
        fmt::format("write_png: cannot write '{}': {}", path.string(), reason));
  }
}

RgbImage read_png(const std::filesystem::path& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("read_png: cannot open '{}': {}", path.string(), std::strerror(err)));
  }
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  PngImageGuard guard{&png};
  if (png_image_begin_read_from_stdio(&png, file.get()) == 0) {
    throw std::runtime_error(
        fmt::format("read_png: cannot read '{}': {}", path.string(), png.message));
  }
  if (static_cast<long long>(png.width) * png.height > kMaxPixels) {
    throw std::runtime_error(fmt::format("read_png: '{}' is {} x {} pixels, over the limit of 2^28",
                                         path.string(), png.width, png.height));
  }
  png.format = PNG_FORMAT_RGB;
  RgbImage image(static_cast<int>(png.width), static_cast<int>(png.height));
  const png_color white{255, 255, 255};
  if (png_image_finish_read(&png, &white, image.rgb.data(), image.width * 3, nullptr) == 0) {
    throw std::runtime_error(
        fmt::format("read_png: cannot decode '{}': {}", path.string(), png.message));
  }
  return image;
}

}  // namespace talus
