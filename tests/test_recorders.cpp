// Tests of the recorders: images (drawing, font, PNG), colormap and heightmap pictures, line
// plots and CSV logs.

#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/cairo_draw.hpp"
#include "core/colormap.hpp"
#include "core/csv_writer.hpp"
#include "core/image.hpp"
#include "core/plot.hpp"
#include "scratch_files.hpp"

namespace talus {
namespace {

namespace fs = std::filesystem;

using namespace testing_files;  // NOLINT: the scratch-file helpers

// ------------------------------------------------------------------------------------ images

TEST(ImagePng, RoundTripKeepsEveryPixel) {
  ScratchDir scratch;
  RgbImage image(37, 23);
  std::mt19937 rng(7);
  for (auto& byte : image.rgb) byte = static_cast<std::uint8_t>(rng() & 0xFF);
  const fs::path file = scratch.path() / "noise.png";
  write_png(file, image);
  const RgbImage back = read_png(file);
  EXPECT_EQ(back.width, 37);
  EXPECT_EQ(back.height, 23);
  EXPECT_TRUE(back == image);
}

TEST(ImagePng, WriteErrorNamesThePathAndTheReason) {
  ScratchDir scratch;
  const fs::path file = scratch.path() / "no_such_folder" / "x.png";
  const std::string message = runtime_error_of([&] { write_png(file, RgbImage(4, 4)); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
  EXPECT_NE(
      runtime_error_of([&] { write_png(scratch.path() / "e.png", RgbImage()); }).find("empty"),
      std::string::npos);
  EXPECT_FALSE(fs::exists(scratch.path() / "e.png"));
}

TEST(ImagePng, WriteFailureOnAFullDeviceIsReported) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  // Written through a link of the user's to the full device: the error names the path and the
  // cause, and the failed write removes nothing that is not a file talus wrote (the link is the
  // user's; removing "the failed file" would take it, whatever the process's privileges).
  ScratchDir scratch;
  const fs::path link = scratch.path() / "picture.png";
  fs::create_symlink("/dev/full", link);
  const std::string message = runtime_error_of([&] { write_png(link, RgbImage(64, 64)); });
  EXPECT_NE(message.find(link.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(ENOSPC)), std::string::npos) << message;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << "the user's link was removed";
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(ImagePng, ReadsGreyAndTransparentPngsAsRgb) {
  ScratchDir scratch;
  const fs::path file = scratch.path() / "rgba.png";
  // Written with libpng directly: one opaque red pixel, one fully transparent pixel.
  const std::uint8_t rgba[8] = {255, 0, 0, 255, 0, 0, 255, 0};
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = 2;
  png.height = 1;
  png.format = PNG_FORMAT_RGBA;
  ASSERT_NE(png_image_write_to_file(&png, file.c_str(), 0, rgba, 8, nullptr), 0) << png.message;
  RgbImage image = read_png(file);
  ASSERT_EQ(image.width, 2);
  EXPECT_EQ(image.at(0, 0), (Rgb{255, 0, 0}));
  EXPECT_EQ(image.at(1, 0), (Rgb{255, 255, 255}));  // transparency composited onto white

  const fs::path grey_file = scratch.path() / "grey.png";
  const std::uint8_t grey[3] = {0, 128, 255};
  png_image g{};
  g.version = PNG_IMAGE_VERSION;
  g.width = 3;
  g.height = 1;
  g.format = PNG_FORMAT_GRAY;
  ASSERT_NE(png_image_write_to_file(&g, grey_file.c_str(), 0, grey, 3, nullptr), 0) << g.message;
  image = read_png(grey_file);
  EXPECT_EQ(image.at(0, 0), (Rgb{0, 0, 0}));
  EXPECT_EQ(image.at(1, 0), (Rgb{128, 128, 128}));
  EXPECT_EQ(image.at(2, 0), (Rgb{255, 255, 255}));
}

TEST(ImagePng, ReadErrorsNameThePath) {
  ScratchDir scratch;
  const fs::path missing = scratch.path() / "missing.png";
  std::string message = runtime_error_of([&] { read_png(missing); });
  EXPECT_NE(message.find(missing.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
  const fs::path not_png = scratch.path() / "text.png";
  write_text(not_png, "this is not a PNG file at all");
  message = runtime_error_of([&] { read_png(not_png); });
  EXPECT_NE(message.find(not_png.string()), std::string::npos) << message;
}

TEST(ImageDraw, SetClipsAndAtChecksBounds) {
  RgbImage image(3, 2, Rgb{1, 2, 3});
  image.set(-1, 0, 9, 9, 9);
  image.set(3, 1, 9, 9, 9);
  image.set(0, 2, 9, 9, 9);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) EXPECT_EQ(image.at(x, y), (Rgb{1, 2, 3}));
  }
  image.set(2, 1, 10, 20, 30);
  EXPECT_EQ(image.at(2, 1), (Rgb{10, 20, 30}));
  EXPECT_EQ(image.rgb[(1 * 3 + 2) * 3 + 1], 20);  // row-major, row 0 first
  EXPECT_THROW(image.at(3, 0), std::runtime_error);
  EXPECT_THROW(RgbImage(-1, 5), std::runtime_error);
}

TEST(ImageDraw, FillRectCoversExactlyItsClippedArea) {
  RgbImage image(10, 8);
  image.fill_rect(-3, 6, 5, 10, Rgb{0, 0, 0});  // columns 0..1, rows 6..7 after clipping
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 10; ++x) {
      const bool inside = x <= 1 && y >= 6;
      EXPECT_EQ(image.at(x, y) == (Rgb{0, 0, 0}), inside) << x << "," << y;
    }
  }
}

TEST(ImageDraw, BlitClips) {
  RgbImage small(2, 2, Rgb{5, 5, 5});
  RgbImage big(4, 4);
  big.blit(small, 3, -1);
  EXPECT_EQ(big.at(3, 0), (Rgb{5, 5, 5}));
  EXPECT_EQ(big.at(2, 0), (Rgb{255, 255, 255}));
  EXPECT_EQ(big.at(3, 1), (Rgb{255, 255, 255}));
}

TEST(CairoCanvas, LinesAndDiscsAreAntiAliasedAndClipped) {
  const Rgb ink{0, 0, 0};
  const Rgb paper{255, 255, 255};
  RgbImage image(40, 20, paper);
  {
    CairoCanvas canvas(image);
    // A 3 px line along row 10 from column 5 to 30 (pixel centres), round caps.
    canvas.stroke({{5, 10}, {30, 10}}, ink, 3.0);
    // Far outside the image: clipped, no crash, nothing drawn.
    canvas.stroke({{-1e5, -1e5}, {-1e5 + 1, -1e5}}, ink, 3.0);
  }
  EXPECT_EQ(image.at(15, 10), ink);
  EXPECT_EQ(image.at(15, 9), ink);
  EXPECT_EQ(image.at(15, 11), ink);
  EXPECT_EQ(image.at(15, 13), paper);
  EXPECT_EQ(image.at(15, 7), paper);
  EXPECT_EQ(image.at(36, 10), paper);  // past the round cap
  RgbImage disc(21, 21, paper);
  {
    CairoCanvas canvas(disc);
    canvas.fill_circle(10, 10, 5.0, ink);
  }
  EXPECT_EQ(disc.at(10, 10), ink);
  EXPECT_EQ(disc.at(10, 6), ink);
  EXPECT_EQ(disc.at(10, 2), paper);
  EXPECT_EQ(disc.at(15, 15), paper);  // outside the radius along the diagonal
  // Its edge is blended (anti-aliased), neither ink nor paper.
  bool blended = false;
  for (int x = 0; x < 21; ++x)
    blended = blended || (disc.at(x, 10) != ink && disc.at(x, 10) != paper);
  EXPECT_TRUE(blended);
  // fill_rect and draw_rect at integer edges are exact.
  RgbImage rect(10, 10, paper);
  {
    CairoCanvas canvas(rect);
    canvas.fill_rect(2, 2, 3, 3, ink);
    canvas.draw_rect(6, 6, 3, 3, ink);
  }
  EXPECT_EQ(rect.at(2, 2), ink);
  EXPECT_EQ(rect.at(4, 4), ink);
  EXPECT_EQ(rect.at(5, 4), paper);
  EXPECT_EQ(rect.at(7, 7), paper);  // the outline's inside
  EXPECT_EQ(rect.at(8, 7), ink);
}

// The bounding box of the pixels differing from `paper`; width 0 when there are none.
PixelRect inked_box(const RgbImage& image, Rgb paper) {
  int x0 = image.width, y0 = image.height, x1 = -1, y1 = -1;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (image.at(x, y) == paper) continue;
      x0 = std::min(x0, x);
      y0 = std::min(y0, y);
      x1 = std::max(x1, x);
      y1 = std::max(y1, y);
    }
  }
  return x1 < 0 ? PixelRect{} : PixelRect{x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

TEST(ImageText, DrawTextInksTheBoxItsMetricsGive) {
  const Rgb ink{200, 0, 0};
  const Rgb paper{255, 255, 255};
  const int scale = 2, x0 = 10, y0 = 8;
  RgbImage image(200, 80, paper);
  image.draw_text(x0, y0, "Hg", ink, scale);
  const PixelRect box = inked_box(image, paper);
  ASSERT_GT(box.width, 0);
  // The capitals' top line is y0 and the 'g' descends below the baseline, within the metrics.
  EXPECT_NEAR(box.y, y0, 1);
  EXPECT_NEAR(box.x, x0, 3);
  EXPECT_LE(box.x + box.width, x0 + text_width_px("Hg", scale) + 1);
  EXPECT_GT(box.y + box.height, y0 + text_cap_height_px(scale) + 2);
  EXPECT_LE(box.y + box.height, y0 + text_height_px("Hg", scale) + 1);
  // Anti-aliased: some pixels are full ink, some between ink and paper.
  bool full = false, blended = false;
  for (int y = box.y; y < box.y + box.height; ++y) {
    for (int x = box.x; x < box.x + box.width; ++x) {
      const Rgb c = image.at(x, y);
      full = full || c == ink;
      blended = blended || (c != ink && c != paper);
    }
  }
  EXPECT_TRUE(full);
  EXPECT_TRUE(blended);

  // A second line starts one line advance lower.
  RgbImage lines(100, 100, paper);
  lines.draw_text(0, 0, "I\nI", ink, scale);
  const PixelRect two = inked_box(lines, paper);
  EXPECT_NEAR(
      two.height,
      text_height_px("I\nI", scale) - (text_height_px("I", scale) - text_cap_height_px(scale)), 2);
}

TEST(ImageText, DrawTextUpRotatesCounterClockwise) {
  const Rgb ink{0, 0, 0};
  const Rgb paper{255, 255, 255};
  RgbImage image(60, 200, paper);
  image.draw_text_up(10, 20, "Length", ink, 2);
  const PixelRect box = inked_box(image, paper);
  ASSERT_GT(box.width, 0);
  // Reading bottom to top: the box is text_height_px wide and text_width_px tall.
  EXPECT_GT(box.height, 3 * box.width);
  EXPECT_GE(box.x, 9);
  EXPECT_LE(box.x + box.width, 10 + text_height_px("Length", 2) + 1);
  EXPECT_GE(box.y, 19);
  EXPECT_LE(box.y + box.height, 20 + text_width_px("Length", 2) + 1);

  // A lone 'L' turned counter-clockwise: its stem lies along the bottom of the box, its foot
  // rises along the right side, and the top left is empty (turned clockwise, the stem would be
  // at the top).
  RgbImage ell(80, 80, paper);
  ell.draw_text_up(10, 10, "L", ink, 4);
  const PixelRect l = inked_box(ell, paper);
  ASSERT_GT(l.width, 4);
  int bottom_row_ink = 0, top_left_ink = 0;
  for (int x = l.x; x < l.x + l.width; ++x)
    bottom_row_ink += ell.at(x, l.y + l.height - 2) != paper;
  for (int y = l.y; y < l.y + l.height / 2; ++y) {
    for (int x = l.x; x < l.x + l.width / 2; ++x) top_left_ink += ell.at(x, y) != paper;
  }
  EXPECT_GT(bottom_row_ink, l.width * 3 / 4);
  EXPECT_EQ(top_left_ink, 0);
}

TEST(ImageText, MetricsGrowWithTextAndLines) {
  EXPECT_EQ(text_width_px("", 2), 0);
  EXPECT_EQ(text_height_px("", 2), 0);
  EXPECT_GT(text_width_px("abcd", 1), text_width_px("ab", 1));
  EXPECT_EQ(text_width_px("ab\nabcd", 2), text_width_px("abcd", 2));
  EXPECT_NEAR(text_width_px("ab", 4), 2 * text_width_px("ab", 2), 2);
  EXPECT_GT(text_height_px("a\nb", 1), text_height_px("a", 1));
  EXPECT_NEAR(text_cap_height_px(2), 14, 1);  // capitals 7 px per text scale
  // UTF-8: the micro and degree signs are one glyph each (narrower than their two bytes drawn
  // as replacement marks would be).
  EXPECT_LT(text_width_px("\u00B5m", 2), text_width_px("??m", 2));
  EXPECT_GT(text_width_px("45\u00B0", 2), text_width_px("45", 2));
  // Malformed UTF-8 (a stray byte, a truncated sequence, an overlong form) is drawn as U+FFFD,
  // one mark per bad byte, and later text still measures and draws (Cairo would otherwise stop
  // the context for good).
  EXPECT_EQ(text_width_px("a\xFF"
                          "b",
                          2),
            text_width_px("a\uFFFD"
                          "b",
                          2));
  EXPECT_EQ(text_width_px("a\xC3", 2), text_width_px("a\uFFFD", 2));
  EXPECT_EQ(text_width_px("\xC0\xAF", 2), text_width_px("\uFFFD\uFFFD", 2));
  EXPECT_GT(text_width_px("ab", 2), 0);
  RgbImage after(60, 30, Rgb{255, 255, 255});
  after.draw_text(2, 2, "\xFF", Rgb{0, 0, 0}, 2);
  after.draw_text(20, 2, "H", Rgb{0, 0, 0}, 2);
  EXPECT_GT(inked_box(after, Rgb{255, 255, 255}).width, 18);
}

TEST(CairoCanvas, FarAwayPolylinePointsAreCutNotOverflowed) {
  // A line from far outside to far outside, crossing the image: the part inside is drawn along
  // its true direction (Cairo's 24.8 fixed point would overflow at 1e9 px).
  RgbImage image(40, 40, Rgb{255, 255, 255});
  {
    CairoCanvas canvas(image);
    canvas.stroke({{-1e9, 20}, {1e9, 20}, {1e9, 1e9}}, Rgb{0, 0, 0}, 2.0);
  }
  for (int x = 2; x < 38; ++x) EXPECT_EQ(image.at(x, 20), (Rgb{0, 0, 0})) << x;
  EXPECT_EQ(image.at(20, 30), (Rgb{255, 255, 255}));
}

// ------------------------------------------------------------------ colormap and heightmaps

TEST(RecorderColormap, EndpointsAndMonotoneLuminance) {
  EXPECT_EQ(height_colormap(0.0), (Rgb{68, 1, 84}));     // viridis' dark purple
  EXPECT_EQ(height_colormap(1.0), (Rgb{253, 231, 37}));  // viridis' yellow
  EXPECT_EQ(height_colormap(-3.0), height_colormap(0.0));
  EXPECT_EQ(height_colormap(7.0), height_colormap(1.0));
  EXPECT_EQ(height_colormap(std::nan("")), (Rgb{128, 128, 128}));
  // Strictly rising in steps of 1/100; at finer steps 8-bit rounding of each channel may dip by
  // a fraction of one level, never more.
  double previous = -1.0;
  for (int k = 0; k <= 100; ++k) {
    const double y = relative_luminance(height_colormap(k / 100.0));
    EXPECT_GT(y, previous) << "t = " << k / 100.0;
    previous = y;
  }
  previous = -1.0;
  for (int k = 0; k <= 1000; ++k) {
    const double y = relative_luminance(height_colormap(k / 1000.0));
    EXPECT_GE(y, previous - 1e-3) << "t = " << k / 1000.0;
    previous = y;
  }
  EXPECT_GT(relative_luminance(height_colormap(1.0)),
            10 * relative_luminance(height_colormap(0.0)));
}

// A Gaussian hill, 0..30 mm high, on an n x n grid of 5 mm cells.
std::vector<double> gaussian_hill(int n) {
  std::vector<double> h(static_cast<std::size_t>(n) * n);
  const double c = (n - 1) / 2.0, sigma = n / 6.0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double r2 = (i - c) * (i - c) + (j - c) * (j - c);
      h[static_cast<std::size_t>(j) * n + i] = 0.03 * std::exp(-r2 / (2 * sigma * sigma));
    }
  }
  return h;
}

TEST(RecorderHeightmap, PlusYIsDrawnUp) {
  const int nx = 20, ny = 10;
  std::vector<double> h(nx * ny, 0.0);
  for (int i = 0; i < nx; ++i) h[(ny - 1) * nx + i] = 0.01;  // a raised strip at the highest j
  HeightmapImageOptions options;
  options.hill_shade = false;
  HeightmapImageLayout layout;
  const RgbImage image = render_heightmap(h.data(), nx, ny, 0.01, options, &layout);
  EXPECT_EQ(layout.pixels_per_cell, 30);  // 600 px / 20 cells
  EXPECT_EQ(layout.pixel_y(ny - 1), layout.map_y + 15);
  EXPECT_EQ(image.at(layout.map_x + 5, layout.map_y + 2), height_colormap(1.0));  // top row
  EXPECT_EQ(image.at(layout.map_x + 5, layout.map_y + ny * 30 - 2), height_colormap(0.0));
  EXPECT_EQ(image.at(layout.pixel_x(3), layout.pixel_y(ny - 1)), height_colormap(1.0));
  EXPECT_EQ(image.at(layout.pixel_x(3), layout.pixel_y(ny - 2)), height_colormap(0.0));
  EXPECT_GE(image.width, 600);
}

TEST(RecorderHeightmap, HillShadingDarkensTheSlopeFacingAwayFromTheLight) {
  const int n = 61;
  const std::vector<double> h = gaussian_hill(n);
  HeightmapImageLayout layout;
  const RgbImage shaded = render_heightmap(h.data(), n, n, 0.005, {}, &layout);
  HeightmapImageOptions plain_options;
  plain_options.hill_shade = false;
  const RgbImage plain = render_heightmap(h.data(), n, n, 0.005, plain_options);
  // Light from azimuth 315 deg = from -x, +y (upper left). Compare the flanks at (c-d, c+d),
  // facing the light, and (c+d, c-d), facing away: equally high, so equally coloured unshaded.
  const int c = n / 2, d = 6;
  const Rgb lit = shaded.at(layout.pixel_x(c - d), layout.pixel_y(c + d));
  const Rgb dark = shaded.at(layout.pixel_x(c + d), layout.pixel_y(c - d));
  const Rgb lit_plain = plain.at(layout.pixel_x(c - d), layout.pixel_y(c + d));
  const Rgb dark_plain = plain.at(layout.pixel_x(c + d), layout.pixel_y(c - d));
  EXPECT_EQ(lit_plain, dark_plain);
  EXPECT_LT(relative_luminance(dark), relative_luminance(dark_plain));
  EXPECT_GT(relative_luminance(lit), relative_luminance(lit_plain));
  EXPECT_LT(relative_luminance(dark), 0.7 * relative_luminance(lit));
  // Moving the light to the opposite side swaps them.
  HeightmapImageOptions opposite;
  opposite.light_azimuth_deg = 135.0;
  const RgbImage flipped = render_heightmap(h.data(), n, n, 0.005, opposite);
  EXPECT_GT(relative_luminance(flipped.at(layout.pixel_x(c + d), layout.pixel_y(c - d))),
            relative_luminance(flipped.at(layout.pixel_x(c - d), layout.pixel_y(c + d))));
}

TEST(RecorderHeightmap, FlatGroundKeepsTheColormapColour) {
  std::vector<double> h(40 * 30, 0.02);
  h[0] = 0.0;  // gives the range a bottom; the far corner is flat
  HeightmapImageOptions options;
  options.z_min_m = 0.0;
  options.z_max_m = 0.04;
  HeightmapImageLayout layout;
  const RgbImage image = render_heightmap(h.data(), 40, 30, 0.01, options, &layout);
  EXPECT_EQ(image.at(layout.pixel_x(30), layout.pixel_y(20)), height_colormap(0.5));
  EXPECT_DOUBLE_EQ(layout.z_min_m, 0.0);
  EXPECT_DOUBLE_EQ(layout.z_max_m, 0.04);
}

TEST(RecorderHeightmap, FixedRangeClampsAndMissingDataIsGrey) {
  std::vector<double> h = {0.0, 0.5, std::numeric_limits<double>::quiet_NaN(), 0.1};
  HeightmapImageOptions options;
  options.z_min_m = 0.0;
  options.z_max_m = 0.1;
  options.hill_shade = false;
  options.pixels_per_cell = 4;
  HeightmapImageLayout layout;
  const RgbImage image = render_heightmap(h.data(), 2, 2, 0.1, options, &layout);
  EXPECT_EQ(layout.pixels_per_cell, 4);
  EXPECT_EQ(image.at(layout.pixel_x(1), layout.pixel_y(0)), height_colormap(1.0));  // 0.5 > max
  EXPECT_EQ(image.at(layout.pixel_x(0), layout.pixel_y(1)), (Rgb{128, 128, 128}));  // NaN
  EXPECT_EQ(image.at(layout.pixel_x(0), layout.pixel_y(0)), height_colormap(0.0));
}

TEST(RecorderHeightmap, OverlaysAreDrawnOnTheMap) {
  std::vector<double> h(30 * 20, 0.0);
  HeightmapImageOptions options;
  HeightmapPolyline path;
  path.points_ij = {{2.0, 10.0}, {27.0, 10.0}};
  path.colour = Rgb{255, 0, 255};
  options.polylines.push_back(path);
  HeightmapMarker marker;
  marker.i = 15.0;
  marker.j = 3.0;
  marker.colour = Rgb{0, 255, 255};
  marker.label = "tool";
  options.markers.push_back(marker);
  HeightmapImageLayout layout;
  const RgbImage image = render_heightmap(h.data(), 30, 20, 0.01, options, &layout);
  EXPECT_EQ(image.at(layout.pixel_x(10.0), layout.pixel_y(10.0)), (Rgb{255, 0, 255}));
  EXPECT_EQ(image.at(layout.pixel_x(15.0), layout.pixel_y(3.0)), (Rgb{0, 255, 255}));
  EXPECT_NE(image.at(layout.pixel_x(10.0), layout.pixel_y(12.0)), (Rgb{255, 0, 255}));
}

// True when some pixel of the rectangle is (near) black text.
bool has_dark_pixels(const RgbImage& image, PixelRect r) {
  for (int y = r.y; y < r.y + r.height; ++y) {
    for (int x = r.x; x < r.x + r.width; ++x) {
      const Rgb c = image.at(x, y);
      if (c.r < 60 && c.g < 60 && c.b < 60) return true;
    }
  }
  return false;
}

TEST(RecorderHeightmap, TitleColourBarAndScaleBar) {
  const std::vector<double> h = gaussian_hill(40);
  HeightmapImageOptions options;
  options.title = "Hill";
  HeightmapImageLayout layout;
  const RgbImage image = render_heightmap(h.data(), 40, 40, 0.005, options, &layout);
  const PixelRect bar = layout.colour_bar;
  ASSERT_GT(bar.height, 100);
  EXPECT_GT(bar.x, layout.map_x + 40 * layout.pixels_per_cell);
  EXPECT_EQ(image.at(bar.x + bar.width / 2, bar.y), height_colormap(1.0));
  EXPECT_EQ(image.at(bar.x + bar.width / 2, bar.y + bar.height - 1), height_colormap(0.0));
  EXPECT_TRUE(has_dark_pixels(image, {bar.x + bar.width + 8, bar.y - 8, 60, 16}));  // max label
  EXPECT_TRUE(has_dark_pixels(image, {layout.map_x, 0, 60, layout.map_y - 2}));     // title
  const int map_bottom = layout.map_y + 40 * layout.pixels_per_cell;
  EXPECT_TRUE(has_dark_pixels(image, {layout.map_x, map_bottom + 4, 200, 40}));  // scale bar

  HeightmapImageOptions bare;
  bare.colour_bar = false;
  bare.scale_bar = false;
  HeightmapImageLayout bare_layout;
  const RgbImage plain = render_heightmap(h.data(), 40, 40, 0.005, bare, &bare_layout);
  EXPECT_EQ(bare_layout.colour_bar.width, 0);
  EXPECT_EQ(plain.width, 40 * layout.pixels_per_cell + 2 * bare_layout.map_x);
  EXPECT_EQ(plain.height, 40 * layout.pixels_per_cell + 2 * bare_layout.map_y);
  EXPECT_LT(plain.width, image.width);
}

TEST(RecorderHeightmap, TheColourBarNamesItsQuantityAndMarksZeroWhereTheRangeSpansIt) {
  // Heights from -10 mm to +30 mm: 0 lies a quarter of the way up from the bottom tick.
  std::vector<double> h(40 * 40);
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = -0.01 + 0.04 * double(k % 40) / 39.0;
  HeightmapImageOptions options;
  options.colour_bar_quantity = "z - base z";
  HeightmapImageLayout layout;
  const RgbImage image = render_heightmap(h.data(), 40, 40, 0.005, options, &layout);
  const PixelRect bar = layout.colour_bar;
  ASSERT_GT(bar.y, layout.map_y + 8);  // the name sits above the bar, beside the map's top
  EXPECT_TRUE(has_dark_pixels(image, {bar.x, layout.map_y, 60, bar.y - layout.map_y - 4}));
  const int zero_row = bar.y + static_cast<int>(std::lround((bar.height - 1) * 0.75));
  EXPECT_EQ(image.at(bar.x + bar.width + 3, zero_row), (Rgb{0, 0, 0}));                // the tick
  EXPECT_TRUE(has_dark_pixels(image, {bar.x + bar.width + 8, zero_row - 6, 40, 12}));  // "0 mm"

  // Without a name the bar starts level with the map, and a range above 0 has no zero tick.
  for (double& z : h) z += 0.02;
  options.colour_bar_quantity.clear();
  const RgbImage above = render_heightmap(h.data(), 40, 40, 0.005, options, &layout);
  EXPECT_EQ(layout.colour_bar.y, layout.map_y);
  EXPECT_NE(above.at(layout.colour_bar.x + layout.colour_bar.width + 3,
                     layout.colour_bar.y +
                         static_cast<int>(std::lround((layout.colour_bar.height - 1) * 0.75))),
            (Rgb{0, 0, 0}));
}

TEST(RecorderHeightmap, RejectsBadArguments) {
  std::vector<double> h(4, 0.0);
  EXPECT_THROW(render_heightmap(nullptr, 2, 2, 0.1), std::runtime_error);
  EXPECT_THROW(render_heightmap(h.data(), 0, 2, 0.1), std::runtime_error);
  EXPECT_THROW(render_heightmap(h.data(), 2, 2, 0.0), std::runtime_error);
  HeightmapImageOptions empty_range;
  empty_range.z_min_m = 0.1;
  empty_range.z_max_m = 0.1;
  EXPECT_THROW(render_heightmap(h.data(), 2, 2, 0.1, empty_range), std::runtime_error);
  HeightmapImageOptions bad_light;
  bad_light.light_altitude_deg = 0.0;
  EXPECT_THROW(render_heightmap(h.data(), 2, 2, 0.1, bad_light), std::runtime_error);
}

// ------------------------------------------------------------------------------------- plots

TEST(RecorderPlot, NiceStepsTicksAndLabels) {
  EXPECT_DOUBLE_EQ(nice_step(0.7), 1.0);
  EXPECT_DOUBLE_EQ(nice_step(1.0), 1.0);
  EXPECT_DOUBLE_EQ(nice_step(1.3), 2.0);
  EXPECT_DOUBLE_EQ(nice_step(3.0), 5.0);
  EXPECT_DOUBLE_EQ(nice_step(0.031), 0.05);
  EXPECT_DOUBLE_EQ(nice_step(700.0), 1000.0);
  EXPECT_THROW(nice_step(0.0), std::runtime_error);
  const std::vector<double> ticks = nice_ticks(-0.13, 0.41, 0.1);
  ASSERT_EQ(ticks.size(), 6u);
  EXPECT_DOUBLE_EQ(ticks.front(), -0.1);
  EXPECT_EQ(ticks[1], 0.0);
  EXPECT_FALSE(std::signbit(ticks[1]));
  EXPECT_DOUBLE_EQ(ticks.back(), 0.4);
  EXPECT_EQ(format_tick(0.30000000000000004, 0.1), "0.3");
  EXPECT_EQ(format_tick(-20.0, 5.0), "-20");
  EXPECT_EQ(format_tick(0.0, 0.5), "0");
  EXPECT_EQ(format_tick(2.5e6, 5e5), "2.5e+06");
}

TEST(RecorderPlot, SeriesLandWhereTheLayoutSays) {
  PlotSpec spec;
  spec.title = "force";
  spec.x_label = "t [s]";
  spec.y_label = "F [N]";
  PlotSeries line;
  line.name = "fx";
  line.colour = Rgb{0, 0, 200};
  line.line_width_px = 3;
  for (int k = 0; k <= 100; ++k) {
    line.x.push_back(k * 0.1);
    line.y.push_back(2.0 * k * 0.1 - 5.0);  // -5 .. 15
  }
  spec.series.push_back(line);
  PlotLayout layout;
  const RgbImage image = plot_lines(spec, &layout);
  EXPECT_EQ(image.width, 800);
  EXPECT_EQ(image.height, 500);
  EXPECT_LT(layout.x_min, 0.0);
  EXPECT_GT(layout.x_max, 10.0);
  EXPECT_LT(layout.y_min, -5.0);
  EXPECT_GT(layout.y_max, 15.0);
  EXPECT_EQ(image.at(layout.pixel_x(5.0), layout.pixel_y(5.0)), (Rgb{0, 0, 200}));
  EXPECT_NE(image.at(layout.pixel_x(5.0), layout.pixel_y(12.0)), (Rgb{0, 0, 200}));
  ASSERT_GE(layout.x_ticks.size(), 3u);
  ASSERT_GE(layout.y_ticks.size(), 3u);
  EXPECT_EQ(layout.pixel_x(layout.x_min), layout.area.x);
  EXPECT_EQ(layout.pixel_y(layout.y_min), layout.area.y + layout.area.height - 1);
  EXPECT_TRUE(has_dark_pixels(image, {layout.area.x, 0, layout.area.width, layout.area.y - 4}));
  EXPECT_TRUE(has_dark_pixels(image, {0, layout.area.y, 30, layout.area.height}));  // y title
  EXPECT_TRUE(has_dark_pixels(
      image, {layout.area.x, image.height - 30, layout.area.width, 30}));  // x title
  // The line rises to the upper right, so the best legend corner is the upper left.
  EXPECT_LT(layout.legend.x, layout.area.x + layout.area.width / 2);
  EXPECT_LT(layout.legend.y, layout.area.y + layout.area.height / 2);
  EXPECT_GT(layout.legend.width, 0);
}

TEST(RecorderPlot, ALegendThatWouldHideDataMovesOutOfTheDataArea) {
  // Data in every corner of the area: no corner is free, so Best puts the legend to the right of
  // the frame, where it covers no data, and the data area narrows to make room.
  PlotSpec spec;
  PlotSeries a, b;
  a.name = "a rising line";
  b.name = "a falling line";
  for (int k = 0; k <= 50; ++k) {
    a.x.push_back(k);
    a.y.push_back(k);
    b.x.push_back(k);
    b.y.push_back(50 - k);
  }
  spec.series = {a, b};
  PlotLayout layout;
  const RgbImage image = plot_lines(spec, &layout);
  ASSERT_GT(layout.legend.width, 0);
  EXPECT_GE(layout.legend.x, layout.area.x + layout.area.width);
  EXPECT_LE(layout.legend.x + layout.legend.width, image.width);
  EXPECT_EQ(image.width, 800);

  // With one free corner the legend stays inside, in that corner.
  spec.series = {a};
  const RgbImage inside = plot_lines(spec, &layout);
  EXPECT_LT(layout.legend.x, layout.area.x + layout.area.width / 2);
  EXPECT_LT(layout.legend.y, layout.area.y + layout.area.height / 2);
}

TEST(RecorderPlot, FixedRangesGapsAndClipping) {
  PlotSpec spec;
  spec.legend = LegendPlacement::None;
  spec.x_min = 0.0;
  spec.x_max = 4.0;
  spec.y_min = 0.0;
  spec.y_max = 1.0;
  PlotSeries s;
  s.colour = Rgb{255, 0, 0};
  s.x = {0.0, 1.0, 2.0, 3.0, 4.0};
  s.y = {0.5, 0.5, std::nan(""), 0.5, 50.0};  // a gap between 1 and 3; a spike leaving the area
  spec.series.push_back(s);
  PlotLayout layout;
  const RgbImage image = plot_lines(spec, &layout);
  EXPECT_DOUBLE_EQ(layout.x_min, 0.0);
  EXPECT_DOUBLE_EQ(layout.y_max, 1.0);
  EXPECT_EQ(image.at(layout.pixel_x(0.5), layout.pixel_y(0.5)), (Rgb{255, 0, 0}));
  EXPECT_NE(image.at(layout.pixel_x(2.0), layout.pixel_y(0.5)), (Rgb{255, 0, 0}));
  for (int x = 0; x < image.width; ++x) {  // nothing red above the frame
    for (int y = 0; y < layout.area.y - 1; ++y) ASSERT_NE(image.at(x, y), (Rgb{255, 0, 0}));
  }
  EXPECT_EQ(layout.legend.width, 0);
}

TEST(RecorderPlot, EqualAspectGivesBothAxesTheSameScale) {
  PlotSpec spec;
  spec.equal_aspect = true;
  PlotSeries section;
  section.name = "trench";
  section.x = {-100.0, -40.0, -20.0, 20.0, 40.0, 100.0};  // mm
  section.y = {0.0, 0.0, -30.0, -30.0, 0.0, 0.0};
  spec.series.push_back(section);
  PlotLayout layout;
  plot_lines(spec, &layout);
  const double ux = (layout.x_max - layout.x_min) / (layout.area.width - 1);
  const double uy = (layout.y_max - layout.y_min) / (layout.area.height - 1);
  EXPECT_NEAR(ux, uy, 1e-12 * ux);
  EXPECT_LE(layout.x_min, -100.0);
  EXPECT_GE(layout.x_max, 100.0);
  EXPECT_LE(layout.y_min, -30.0);
  EXPECT_GE(layout.y_max, 0.0);
}

TEST(RecorderPlot, RejectsMismatchedSeriesAndEmptyRanges) {
  PlotSpec spec;
  PlotSeries s;
  s.name = "bad";
  s.x = {1.0, 2.0};
  s.y = {1.0};
  spec.series.push_back(s);
  EXPECT_NE(runtime_error_of([&] { plot_lines(spec); }).find("'bad'"), std::string::npos);
  PlotSpec empty;
  empty.x_min = 1.0;
  empty.x_max = 1.0;
  EXPECT_THROW(plot_lines(empty), std::runtime_error);
  PlotSpec tiny;
  tiny.width_px = 50;
  EXPECT_THROW(plot_lines(tiny), std::runtime_error);
}

// --------------------------------------------------------------------------------------- CSV

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST(CsvWriter, RoundTripsDoublesExactly) {
  ScratchDir scratch;
  const fs::path file = scratch.path() / "values.csv";
  std::vector<double> values = {0.1,
                                1.0 / 3.0,
                                -0.0,
                                1e-300,
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::lowest(),
                                123456789.0,
                                2.0 / 3.0 * 1e-7};
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  for (int k = 0; k < 200; ++k) values.push_back(dist(rng));
  {
    CsvWriter csv(file, {"v", "twice"});
    for (double v : values) csv.write_row({v, 2.0 * v});
    EXPECT_EQ(csv.rows_written(), values.size());
    csv.close();
  }
  const std::vector<std::string> lines = split_lines(read_text(file));
  ASSERT_EQ(lines.size(), values.size() + 1);
  EXPECT_EQ(lines[0], "v,twice");
  EXPECT_EQ(lines[1], "0.1,0.2");
  EXPECT_EQ(lines[8], "123456789,246913578");
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string& line = lines[k + 1];
    const auto comma = line.find(',');
    const double a = std::strtod(line.substr(0, comma).c_str(), nullptr);
    const double b = std::strtod(line.substr(comma + 1).c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&a, &values[k], sizeof a), 0) << line;
    const double twice = 2.0 * values[k];
    EXPECT_EQ(std::memcmp(&b, &twice, sizeof b), 0) << line;
  }
  EXPECT_EQ(format_csv_number(std::nan("")), "nan");
  EXPECT_EQ(format_csv_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_csv_number(-0.0), "-0");
}

TEST(CsvWriter, QuotesTextFieldsPerRfc4180) {
  EXPECT_EQ(quote_csv_field("plain"), "plain");
  EXPECT_EQ(quote_csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(quote_csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(quote_csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(quote_csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(quote_csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(quote_csv_field(""), "");
  ScratchDir scratch;
  const fs::path file = scratch.path() / "mixed.csv";
  {
    CsvWriter csv(file, {"name", "force, N"});
    csv.write_row(std::vector<CsvCell>{std::string("blade \"A\""), 1.5});
    csv.write_row(std::vector<CsvCell>{std::string("plain"), 0.25});
  }
  EXPECT_EQ(read_text(file), "name,\"force, N\"\n\"blade \"\"A\"\"\",1.5\nplain,0.25\n");
}

TEST(CsvWriter, ErrorsNameThePath) {
  ScratchDir scratch;
  const fs::path file = scratch.path() / "log.csv";
  CsvWriter csv(file, {"a", "b", "c"});
  std::string message = runtime_error_of([&] { csv.write_row({1.0, 2.0}); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("2 values"), std::string::npos) << message;
  EXPECT_NE(message.find("has 3"), std::string::npos) << message;
  EXPECT_THROW(csv.write_row(std::vector<CsvCell>{1.0, 2.0, 3.0, 4.0}), std::runtime_error);
  csv.write_row({1.0, 2.0, 3.0});
  csv.close();
  EXPECT_THROW(csv.write_row({1.0, 2.0, 3.0}), std::runtime_error);
  EXPECT_EQ(read_text(file), "a,b,c\n1,2,3\n");  // the rejected rows wrote nothing

  if (fs::exists("/dev/full")) {  // a full disc shows up at a write, flush or close
    message = runtime_error_of([&] {
      CsvWriter full("/dev/full", {"a"});
      for (int k = 0; k < 10000; ++k) full.write_row({1.0});
      full.close();
    });
    EXPECT_NE(message.find("/dev/full"), std::string::npos) << message;
    EXPECT_NE(message.find(std::strerror(ENOSPC)), std::string::npos) << message;
  }

  const fs::path bad = scratch.path() / "missing" / "log.csv";
  message = runtime_error_of([&] { CsvWriter nope(bad, {"a"}); });
  EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(ENOENT)), std::string::npos) << message;
  EXPECT_THROW(CsvWriter(scratch.path() / "x.csv", {}), std::runtime_error);
}

}  // namespace
}  // namespace talus

namespace talus {
namespace {

// A range only a little wider than one coarse step used to get a single tick ([-48, 16] with a
// step of 50: only 0), an axis nobody can read. Every axis has at least two numbered ticks.
TEST(PlotLines, EveryAxisHasAtLeastTwoTicks) {
  PlotSpec p;
  p.width_px = 900;
  p.height_px = 300;
  p.title = "title";
  p.x_label = "time [s]";
  p.y_label = "f_x [N]";
  PlotSeries line;
  line.name = "a";
  line.x = {0.0, 1.0};
  line.y = {-45.5, 15.2};
  p.series.push_back(line);
  PlotLayout layout;
  plot_lines(p, &layout);
  EXPECT_GE(layout.y_ticks.size(), 2u);
  EXPECT_GE(layout.x_ticks.size(), 2u);
  for (const double lo : {-1.0, -47.9, -0.3, -130.0}) {
    p.series[0].y = {lo, 0.33 * -lo};
    plot_lines(p, &layout);
    EXPECT_GE(layout.y_ticks.size(), 2u) << lo;
  }
}

}  // namespace
}  // namespace talus
