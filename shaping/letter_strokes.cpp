#include "shaping/letter_strokes.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace talus::shaping {
namespace {

// One stroke in letter units: (x0, y0) -> (x1, y1), x in [0, 4] across, y in [0, 6] up.
struct UnitStroke {
  int x0, y0, x1, y1;
};

// The 26 letters, strokes in drawing order. Data, not code: a letter is changed here only
// together with docs/envs.md's picture and the trained agent's evaluation.
const std::array<std::vector<UnitStroke>, 26>& letter_table() {
  static const std::array<std::vector<UnitStroke>, 26> table = {{
      {{0, 0, 2, 6}, {2, 6, 4, 0}, {1, 3, 3, 3}},                                            // A
      {{0, 0, 0, 6}, {0, 6, 3, 6}, {3, 6, 3, 3}, {0, 3, 4, 3}, {4, 3, 4, 0}, {4, 0, 0, 0}},  // B
      {{4, 6, 0, 6}, {0, 6, 0, 0}, {0, 0, 4, 0}},                                            // C
      {{0, 0, 0, 6}, {0, 6, 3, 6}, {3, 6, 4, 3}, {4, 3, 3, 0}, {3, 0, 0, 0}},                // D
      {{0, 0, 0, 6}, {0, 6, 4, 6}, {0, 3, 3, 3}, {0, 0, 4, 0}},                              // E
      {{0, 0, 0, 6}, {0, 6, 4, 6}, {0, 3, 3, 3}},                                            // F
      {{4, 6, 0, 6}, {0, 6, 0, 0}, {0, 0, 4, 0}, {4, 0, 4, 3}, {4, 3, 2, 3}},                // G
      {{0, 0, 0, 6}, {4, 0, 4, 6}, {0, 3, 4, 3}},                                            // H
      {{2, 0, 2, 6}, {0, 6, 4, 6}, {0, 0, 4, 0}},                                            // I
      {{4, 6, 4, 0}, {4, 0, 0, 0}, {0, 0, 0, 2}},                                            // J
      {{0, 0, 0, 6}, {0, 3, 4, 6}, {0, 3, 4, 0}},                                            // K
      {{0, 6, 0, 0}, {0, 0, 4, 0}},                                                          // L
      {{0, 0, 0, 6}, {0, 6, 2, 3}, {2, 3, 4, 6}, {4, 6, 4, 0}},                              // M
      {{0, 0, 0, 6}, {0, 6, 4, 0}, {4, 0, 4, 6}},                                            // N
      {{0, 0, 0, 6}, {0, 6, 4, 6}, {4, 6, 4, 0}, {4, 0, 0, 0}},                              // O
      {{0, 0, 0, 6}, {0, 6, 4, 6}, {4, 6, 4, 3}, {4, 3, 0, 3}},                              // P
      {{0, 0, 0, 6}, {0, 6, 4, 6}, {4, 6, 4, 0}, {4, 0, 0, 0}, {2, 2, 4, 0}},                // Q
      {{0, 0, 0, 6}, {0, 6, 4, 6}, {4, 6, 4, 3}, {4, 3, 0, 3}, {2, 3, 4, 0}},                // R
      {{4, 6, 0, 6}, {0, 6, 0, 3}, {0, 3, 4, 3}, {4, 3, 4, 0}, {4, 0, 0, 0}},                // S
      {{0, 6, 4, 6}, {2, 6, 2, 0}},                                                          // T
      {{0, 6, 0, 0}, {0, 0, 4, 0}, {4, 0, 4, 6}},                                            // U
      {{0, 6, 2, 0}, {2, 0, 4, 6}},                                                          // V
      {{0, 6, 1, 0}, {1, 0, 2, 4}, {2, 4, 3, 0}, {3, 0, 4, 6}},                              // W
      {{0, 0, 4, 6}, {0, 6, 4, 0}},                                                          // X
      {{0, 6, 2, 3}, {4, 6, 2, 3}, {2, 3, 2, 0}},                                            // Y
      {{0, 6, 4, 6}, {4, 6, 0, 0}, {0, 0, 4, 0}},                                            // Z
  }};
  return table;
}

}  // namespace

std::string stroke_letter_names() { return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"; }

std::vector<Stroke> letter_strokes(char letter, int cells) {
  const int upper = std::toupper(static_cast<unsigned char>(letter));
  if (upper < 'A' || upper > 'Z') {
    throw std::invalid_argument(fmt::format("letter strokes: no letter '{}'; expected one of {}",
                                            letter, stroke_letter_names()));
  }
  if (cells < 14) {
    throw std::invalid_argument(fmt::format(
        "letter strokes: a {} x {} bed is too small for a letter (at least 14)", cells, cells));
  }
  // Centre the 4 x 6 unit box (4 cells of margin above and below the letter's 6 units), rounded
  // down to whole cells so that on the default bed every end lies on a cell centre (an end on a
  // cell boundary would leave to rounding which cells the blade covers).
  const double unit = (cells - 8) / 6.0;
  const double x_offset = std::floor(0.5 * (cells - 1 - 4.0 * unit));
  const double y_offset = std::floor(0.5 * (cells - 1 - 6.0 * unit));
  std::vector<Stroke> strokes;
  for (const UnitStroke& s : letter_table()[static_cast<std::size_t>(upper - 'A')]) {
    strokes.push_back({Vec2(x_offset + s.x0 * unit, y_offset + s.y0 * unit),
                       Vec2(x_offset + s.x1 * unit, y_offset + s.y1 * unit)});
  }
  return strokes;
}

}  // namespace talus::shaping
