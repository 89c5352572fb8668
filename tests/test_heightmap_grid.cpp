// The one grid convention of the shaping and SCM tiers (core/heightmap_grid.hpp): where a sample
// lies, how world coordinates round to indices, and the half-open index boxes.

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "core/heightmap_grid.hpp"

namespace talus {
namespace {

// 10 x 4 samples 0.5 m apart, sample (0, 0) at (1, -2).
HeightmapGrid sample_grid() { return {10, 4, 0.5, 1.0, -2.0}; }

TEST(HeightmapGrid, SampleIJLiesAtTheOriginPlusIJCells) {
  const HeightmapGrid g = sample_grid();
  EXPECT_DOUBLE_EQ(g.x(0), 1.0);
  EXPECT_DOUBLE_EQ(g.x(3), 2.5);
  EXPECT_DOUBLE_EQ(g.y(0), -2.0);
  EXPECT_DOUBLE_EQ(g.y(2), -1.0);
  EXPECT_EQ(g.index(3, 2), 23u);  // row-major: j * nx + i
  EXPECT_EQ(g.sample_count(), 40);
  EXPECT_DOUBLE_EQ(g.cell_area_m2(), 0.25);
  // The cell each sample stands for is centred on it: the cells start half a cell before it.
  EXPECT_DOUBLE_EQ(g.lo_x_m(), 0.75);
  EXPECT_DOUBLE_EQ(g.lo_y_m(), -2.25);
}

TEST(HeightmapGrid, GridOfCellsPutsTheSamplesAtTheCellCentres) {
  // A bed whose lower-left corner is (0, -0.1), 4 cells of 5 cm: centres at 0.025, 0.075, ...
  const HeightmapGrid g = grid_of_cells(0.0, -0.1, 4, 3, 0.05);
  EXPECT_EQ(g.nx, 4);
  EXPECT_EQ(g.ny, 3);
  EXPECT_DOUBLE_EQ(g.x0_m, 0.025);
  EXPECT_DOUBLE_EQ(g.y0_m, -0.075);
  EXPECT_DOUBLE_EQ(g.x(3), 0.175);
  EXPECT_DOUBLE_EQ(g.lo_x_m(), 0.0);
  EXPECT_DOUBLE_EQ(g.lo_y_m(), -0.1);
}

TEST(HeightmapGrid, ContinuousIndexIsZeroAtSampleZeroAndOneACellLater) {
  const HeightmapGrid g = sample_grid();
  EXPECT_DOUBLE_EQ(g.u(1.0), 0.0);
  EXPECT_DOUBLE_EQ(g.u(2.25), 2.5);
  EXPECT_DOUBLE_EQ(g.v(-2.5), -1.0);
}

TEST(HeightmapGrid, NearestSampleIsTheCellThatHoldsThePoint) {
  const HeightmapGrid g = sample_grid();
  EXPECT_EQ(g.nearest_i(1.0), 0);
  EXPECT_EQ(g.nearest_i(1.24), 0);  // inside cell 0 (which ends at 1.25)
  EXPECT_EQ(g.nearest_i(1.26), 1);  // inside cell 1
  EXPECT_EQ(g.nearest_i(1.25), 1);  // on the edge: away from zero, as std::lround
  EXPECT_EQ(g.nearest_i(0.5), -1);  // not clamped: left of the grid
  EXPECT_EQ(g.nearest_i(9.0), 16);  // not clamped: right of the grid
  EXPECT_EQ(g.nearest_j(-1.6), 1);
}

TEST(HeightmapGrid, SamplesWithinARectangleIncludeSamplesOnItsEdges) {
  const HeightmapGrid g = sample_grid();
  // x in [1.5, 2.5] holds samples 1, 2, 3 (at 1.5, 2.0, 2.5): [1, 4).
  IndexBox b = g.samples_within(1.5, -2.0, 2.5, -1.0);
  EXPECT_EQ(b.i0, 1);
  EXPECT_EQ(b.i1, 4);
  EXPECT_EQ(b.j0, 0);
  EXPECT_EQ(b.j1, 3);
  // Strictly between samples: ceil of the low end, floor of the high end.
  b = g.samples_within(1.6, -1.9, 2.4, -1.1);
  EXPECT_EQ(b.i0, 2);
  EXPECT_EQ(b.i1, 3);
  EXPECT_EQ(b.j0, 1);
  EXPECT_EQ(b.j1, 2);
  // A rectangle between two samples holds none.
  EXPECT_TRUE(g.samples_within(1.6, -1.9, 1.9, -1.6).empty());
  // Not clamped: the caller decides what leaving the grid means.
  b = g.samples_within(0.0, -3.0, 99.0, 99.0);
  EXPECT_EQ(b.i0, -2);
  EXPECT_EQ(b.j0, -2);
  EXPECT_EQ(b.i1, 197);
}

TEST(HeightmapGrid, ClampedCutsABoxToTheGrid) {
  const HeightmapGrid g = sample_grid();
  const IndexBox c = g.clamped({-3, 1, 12, 9});
  EXPECT_EQ(c.i0, 0);
  EXPECT_EQ(c.j0, 1);
  EXPECT_EQ(c.i1, 10);
  EXPECT_EQ(c.j1, 4);
  EXPECT_TRUE(g.clamped({20, 0, 30, 4}).empty());
  const IndexBox w = g.whole();
  EXPECT_EQ(w.count(), g.sample_count());
}

TEST(IndexBox, IsHalfOpen) {
  const IndexBox b{2, 3, 5, 4};
  EXPECT_EQ(b.width(), 3);
  EXPECT_EQ(b.height(), 1);
  EXPECT_EQ(b.count(), 3);
  EXPECT_TRUE(b.contains(2, 3));
  EXPECT_TRUE(b.contains(4, 3));
  EXPECT_FALSE(b.contains(5, 3));  // i1 is one past the last column
  EXPECT_FALSE(b.contains(2, 4));
  EXPECT_TRUE((IndexBox{2, 3, 2, 9}.empty()));
  EXPECT_TRUE((IndexBox{2, 3, 1, 9}.empty()));
  EXPECT_EQ((IndexBox{2, 3, 1, 9}.count()), 0);
  EXPECT_TRUE(IndexBox{}.empty());
}

TEST(IndexBox, OverlapNeedsASharedSampleNotJustATouchingEdge) {
  const IndexBox a{0, 0, 4, 4};
  EXPECT_TRUE(a.overlaps({3, 3, 6, 6}));
  EXPECT_FALSE(a.overlaps({4, 0, 6, 4}));  // adjacent columns share no sample
  EXPECT_FALSE(a.overlaps({}));
  EXPECT_TRUE(a.contains(IndexBox{1, 1, 4, 4}));
  EXPECT_FALSE(a.contains(IndexBox{1, 1, 5, 4}));
  EXPECT_FALSE(a.contains(IndexBox{}));
}

TEST(IndexBox, UnitedAndGrown) {
  const IndexBox u = united({0, 0, 2, 2}, {5, 1, 6, 8});
  EXPECT_EQ(u.i0, 0);
  EXPECT_EQ(u.j0, 0);
  EXPECT_EQ(u.i1, 6);
  EXPECT_EQ(u.j1, 8);
  // An empty box adds nothing, whatever its coordinates.
  const IndexBox e{100, 100, 0, 0};
  const IndexBox v = united(e, {1, 2, 3, 4});
  EXPECT_EQ(v.i0, 1);
  EXPECT_EQ(v.i1, 3);
  const IndexBox g = grown({1, 2, 3, 4}, 2);
  EXPECT_EQ(g.i0, -1);
  EXPECT_EQ(g.j0, 0);
  EXPECT_EQ(g.i1, 5);
  EXPECT_EQ(g.j1, 6);
}

void expect_invalid(const HeightmapGrid& g, const std::string& field) {
  try {
    validate(g);
    FAIL() << "no error for " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(HeightmapGrid, ValidateNamesTheField) {
  EXPECT_NO_THROW(validate(sample_grid()));
  HeightmapGrid g = sample_grid();
  g.nx = 0;
  expect_invalid(g, "HeightmapGrid.nx must be >= 1");
  g = sample_grid();
  g.cell_size_m = -1.0;
  expect_invalid(g, "HeightmapGrid.cell_size_m must be > 0");
  g = sample_grid();
  g.x0_m = std::numeric_limits<double>::infinity();
  expect_invalid(g, "HeightmapGrid.x0_m must be a finite coordinate");
  g = sample_grid();
  g.y0_m = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(g, "HeightmapGrid.y0_m must be a finite coordinate");
}

}  // namespace
}  // namespace talus
