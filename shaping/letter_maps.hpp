#pragma once
// Goal maps for the single-stroke trench planner and the learning environments: the 26 capital
// letters drawn as 4-connected trenches on 7x7 grids. A, R, S and T are those of paper 003 §4.3
// (Fig. 6); the paper's figure did not survive text extraction, so these are our drawings;
// docs/trench_planner.md shows them and compares their optimal plans with the paper's numbers.

#include <string>

#include "shaping/trench_planner.hpp"

namespace talus::shaping {

/// The 7x7 goal map of a capital letter A-Z (upper or lower case accepted). Throws
/// std::invalid_argument for any other letter, listing the available ones.
BinaryMap letter_map(char letter);

/// The available letters, "A, B, ..., Z".
std::string letter_map_names();

}  // namespace talus::shaping
