#pragma once
// A plain 8-bit RGB raster for talus's picture outputs (heightmaps, plots), with the few drawing
// primitives they need and PNG input/output through libpng.
//
// Pixel (x, y) has x growing to the right and y growing DOWN: row 0 is the top of the picture,
// as in the PNG file. Every drawing primitive clips to the image, so callers may draw partly or
// wholly outside it.

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace talus {

/// An 8-bit sRGB colour.
struct Rgb {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// A rectangle of pixels: columns [x, x + width), rows [y, y + height).
struct PixelRect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
  bool contains(int px, int py) const {
    return px >= x && px < x + width && py >= y && py < y + height;
  }
};

struct RgbImage {
  int width = 0;                  ///< columns [px]
  int height = 0;                 ///< rows [px]
  std::vector<std::uint8_t> rgb;  ///< width * height * 3 bytes, row-major, row 0 = top

  RgbImage() = default;
  /// A width x height image filled with `background`; throws std::runtime_error when a size is
  /// negative or the image would exceed 2^28 pixels.
  RgbImage(int width_px, int height_px, Rgb background = {255, 255, 255});

  bool contains(int x, int y) const { return x >= 0 && x < width && y >= 0 && y < height; }

  /// Sets pixel (x, y); a pixel outside the image is ignored (clipping).
  void set(int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b);
  void set(int x, int y, Rgb colour) { set(x, y, colour.r, colour.g, colour.b); }

  /// The colour of pixel (x, y); throws std::runtime_error when (x, y) is outside the image.
  Rgb at(int x, int y) const;

  /// Fills columns [x, x + w) and rows [y, y + h), clipped to the image.
  void fill_rect(int x, int y, int w, int h, Rgb colour);

  /// Draws the 1-pixel outline of the rectangle [x, x + w) x [y, y + h), clipped.
  void draw_rect(int x, int y, int w, int h, Rgb colour);

  /// Draws UTF-8 text, anti-aliased in DejaVu Sans through Cairo (core/cairo_draw.hpp: at `scale`
  /// s the capitals are 7 s px tall), with its box's top-left corner (the capitals' top line) at
  /// (x, y); '\n' starts a new line. Blended over the background. Clipped. Several labels on one
  /// picture are cheaper through one CairoCanvas.
  void draw_text(int x, int y, std::string_view text, Rgb colour, int scale = 1);

  /// Draws text rotated 90 degrees counter-clockwise (reading bottom to top, as a y-axis title),
  /// such that its bounding box of text_height_px x text_width_px pixels has its top-left corner
  /// at (x, y). Single line; clipped.
  void draw_text_up(int x, int y, std::string_view text, Rgb colour, int scale = 1);

  /// Copies `source` with its top-left pixel at (x, y), clipped.
  void blit(const RgbImage& source, int x, int y);

  friend bool operator==(const RgbImage&, const RgbImage&) = default;
};

/// Cuts the segment (x0, y0) -> (x1, y1) to the box [lo_x, hi_x] x [lo_y, hi_y] in place
/// (Liang-Barsky); returns false, leaving the ends unspecified, when no part lies in the box.
bool clip_segment(double& x0, double& y0, double& x1, double& y1, double lo_x, double lo_y,
                  double hi_x, double hi_y);

/// Writes the image as an 8-bit RGB PNG. Throws std::runtime_error naming the path, with the OS
/// reason when the file cannot be created or written, or libpng's message; a partly written
/// regular file is removed. Writing an empty (0 x 0) image is an error.
void write_png(const std::filesystem::path& path, const RgbImage& image);

/// Reads any PNG (grey, palette, with or without alpha, 8 or 16 bit) as 8-bit RGB; transparency
/// is composited onto white. Throws std::runtime_error naming the path and the reason.
RgbImage read_png(const std::filesystem::path& path);

}  // namespace talus
