#pragma once
// Goal maps for the single-stroke trench planner: the letters of paper 003 §4.3 (Fig. 6), drawn
// on 7x7 grids. The paper's figure did not survive text extraction, so these are our drawings;
// docs/trench_planner.md shows them and compares their optimal plans with the paper's numbers.

#include <string>

#include "shaping/trench_planner.hpp"

namespace talus::shaping {

/// The 7x7 goal map of a letter: 'A', 'S', 'T' or 'R' (upper or lower case). Throws
/// std::invalid_argument for any other letter, listing the available ones.
BinaryMap letter_map(char letter);

/// The available letters, e.g. "A, S, T, R".
std::string letter_map_names();

}  // namespace talus::shaping
