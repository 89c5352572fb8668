#pragma once
// Goals of ShapingStrokes-v0 (paper 003 §4.4-4.5): the 26 capital letters drawn as trenches made
// of straight strokes. The paper's letters (its Fig. 7) did not survive text extraction, so these
// are our drawings: block capitals on a 4 x 6 letter box, every stroke a straight push between two
// of its lattice points (curves drawn as polygons), 2 (L, T, V, X) to 6 (B) strokes. Each stroke
// has a direction: the blade pushes from its start to its end, leaving the sand it cut in a pile
// at the end, so a goal's heightmap depends on the strokes' order and direction as listed.
// docs/envs.md shows them.

#include <string>
#include <vector>

#include "core/pose.hpp"

namespace talus::shaping {

/// A straight stroke on a square sand bed, in bed cell coordinates: (u, v) is the point
/// x = x0 + u * cell size, y = y0 + v * cell size, so integer (u, v) is the centre of cell (i, j)
/// = (u, v) and v grows with y (up in the pictures).
struct Stroke {
  Vec2 start_cell = Vec2::Zero();
  Vec2 end_cell = Vec2::Zero();
};

/// The strokes of a capital letter A-Z (either case) scaled onto a `cells` x `cells` bed: the
/// letter box (4 x 6 units) is centred (rounded down to whole cells), one unit = (cells - 8) / 6
/// cells (4 cells on the default 32 x 32 bed, where the letter spans cells 7-23 across and 3-27
/// up). Throws
/// std::invalid_argument for another character or a bed under 14 cells.
std::vector<Stroke> letter_strokes(char letter, int cells);

/// The letters letter_strokes knows: "ABC...Z".
std::string stroke_letter_names();

}  // namespace talus::shaping
