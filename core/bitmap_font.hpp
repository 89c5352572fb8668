#pragma once
// A small fixed-width bitmap font for labelling talus's images (heightmaps, plots) without a font
// library or font files. The glyph data is talus's own (core/bitmap_font.cpp), drawn by hand for
// this project.
//
// Metrics, in font pixels (multiply by the drawing scale for image pixels):
//   - each glyph is 5 columns wide and 9 rows tall; rows 0..6 hold capitals, digits and
//     ascenders (cap height 7), lower-case letters sit on rows 2..6 (x-height 5), and rows 7..8
//     hold descenders (g, j, p, q, y, comma, semicolon, underscore);
//   - glyphs advance 6 columns (one blank column between glyphs); lines advance 11 rows.
//
// Coverage: printable ASCII (U+0020..U+007E) plus the degree sign (U+00B0) and micro sign
// (U+00B5). Text is UTF-8; any other code point, and any malformed byte, is drawn as '?'.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace talus {

inline constexpr int kFontGlyphWidth = 5;    ///< glyph columns [font px]
inline constexpr int kFontGlyphHeight = 9;   ///< glyph rows, descenders included [font px]
inline constexpr int kFontCapHeight = 7;     ///< rows above the baseline [font px]
inline constexpr int kFontAdvance = 6;       ///< horizontal advance per glyph [font px]
inline constexpr int kFontLineAdvance = 11;  ///< vertical advance per line [font px]

/// One glyph: kFontGlyphHeight rows, top first; in each row bit 4 (0x10) is the leftmost column
/// and bit 0 the rightmost.
using FontGlyph = std::array<std::uint8_t, kFontGlyphHeight>;

/// True when the font has a glyph of its own for this code point.
bool font_has_glyph(char32_t code_point);

/// The glyph for a code point; code points without a glyph of their own get the glyph of '?'.
const FontGlyph& font_glyph(char32_t code_point);

/// True when font pixel (column, row) of the glyph is set; false outside the 5 x 9 cell.
bool font_pixel(const FontGlyph& glyph, int column, int row);

/// Decodes UTF-8 leniently: each malformed or truncated sequence becomes U+FFFD (drawn as '?').
std::u32string decode_utf8(std::string_view text);

/// Width [image px] of the widest line of `text` drawn at `scale` (lines split at '\n'); a line
/// of n glyphs is (n * kFontAdvance - 1) * scale wide, so no trailing blank column is counted.
int text_width_px(std::string_view text, int scale);

/// Height [image px] of `text` drawn at `scale`: the last line's full glyph height (descenders
/// included) plus kFontLineAdvance * scale for each line before it; 0 for empty text.
int text_height_px(std::string_view text, int scale);

}  // namespace talus
