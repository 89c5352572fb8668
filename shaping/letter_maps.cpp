#include "shaping/letter_maps.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <stdexcept>
#include <vector>

namespace talus::shaping {
namespace {

struct Letter {
  char name;
  std::array<const char*, 7> rows;
};

// '#' = cell to trench. Optimal single strokes (free start), see docs/trench_planner.md:
// A 22 steps (paper 23), S 28 (paper 27), T 18 (paper 18), R 25 (paper 25).
constexpr std::array<Letter, 4> kLetters = {{
    {'A',
     {"...#...",  //
      "..###..",  //
      ".##.##.",  //
      ".#####.",  //
      ".#...#.",  //
      ".#...#.",  //
      ".#...#."}},
    {'S',
     {".######",  //
      "##.....",  //
      "##.....",  //
      "#######",  //
      ".....##",  //
      ".....##",  //
      "######."}},
    {'T',
     {"#######",  //
      "..##...",  //
      "..##...",  //
      "..##...",  //
      "..##...",  //
      "..##...",  //
      "..##..."}},
    {'R',
     {"######.",  //
      "#....#.",  //
      "#....#.",  //
      "######.",  //
      "#.##...",  //
      "#..##..",  //
      "#...##."}},
}};

}  // namespace

BinaryMap letter_map(char letter) {
  const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
  for (const Letter& l : kLetters) {
    if (l.name == up)
      return BinaryMap::from_rows(std::vector<std::string>(l.rows.begin(), l.rows.end()));
  }
  throw std::invalid_argument(
      fmt::format("letter_map: no map for letter '{}'; available: {}", letter, letter_map_names()));
}

std::string letter_map_names() {
  std::string out;
  for (const Letter& l : kLetters) {
    if (!out.empty()) out += ", ";
    out += l.name;
  }
  return out;
}

}  // namespace talus::shaping
