// SCM's loose layer (scm/scm_state.hpp ScmTile::loose_layer_m): soil deposited on a node is
// loose; a body that cuts it moves it again without compacting the soil under it, so only the
// cut below the loose layer adds to the plastic sinkage of Bekker's law (docs/scm.md, "Border
// path against flow fields").

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "scm/scm_model.hpp"
#include "scm/scm_state.hpp"
#include "scm/scm_step.hpp"

namespace talus::scm {
namespace {

// A 10 x 10 cm plate on a 1 cm border-path map, erosion off (deposits stay where they land).
ScmModel plate_map() {
  ScmModel m;
  m.cell_size_m = 0.01;
  m.nx = m.ny = 41;
  m.soil = named_soil("dry_sand");
  m.method = FlowMethod::Border;
  m.soil.shear_band_m = 0.0;  // no shear transport: the plate does not move sideways while cutting
  m.erosion_max_updates = 0;
  m.time_step_s = 1e-3;
  m.bodies = {CoupledBody{"plate", BoxShape{Vec3(0.05, 0.05, 0.02)}, Vec3::Zero()}};
  validate(m);
  return m;
}

// Presses the plate (its bottom `depth_m` below the original surface, centred at x) for a step.
void press(const ScmModel& m, ScmState& s, ScmWorkspace& work, double x_m, double depth_m) {
  std::vector<BodyMotion> motion(1);
  motion[0].X_WB = Pose::Identity();
  motion[0].X_WB.translation() = Vec3(x_m, 0.2, 0.02 - depth_m);
  std::vector<Wrench> wrench(1);
  step(m, s, motion, wrench, work);
}

NodeBlock node(const ScmState& s, int i, int j) {
  NodeBlock b;
  b.resize(i, j, 1, 1);
  s.gather(b);
  return b;
}

TEST(ScmLooseLayer, DepositsAreLooseAndCuttingThemAgainDoesNotCompact) {
  const ScmModel m = plate_map();
  ScmState s(m);
  ScmWorkspace work;
  // Plate over nodes 15..24 (x 0.15..0.24 m; edges midway between nodes), 5 mm deep.
  press(m, s, work, 0.195, 0.005);
  EXPECT_NEAR(s.plastic_sinkage(20, 20), 0.005, 1e-12);
  // Node 25 borders the patch: it received a deposit, all of it loose.
  const NodeBlock border = node(s, 25, 20);
  ASSERT_GT(border.height_m[0], 1e-4);
  EXPECT_NEAR(border.loose_layer_m[0], border.height_m[0], 1e-15);
  EXPECT_EQ(border.plastic_sinkage_m[0], 0.0);
  const NodeBlock pressed = node(s, 20, 20);
  EXPECT_EQ(pressed.loose_layer_m[0], 0.0);

  // The plate moves one node on (now over 16..25), as deep: at node 25 it cuts the deposit and
  // 5 mm of the soil below; only those 5 mm compact it.
  const double deposit_m = border.height_m[0];
  press(m, s, work, 0.205, 0.005);
  const NodeBlock recut = node(s, 25, 20);
  EXPECT_NEAR(recut.height_m[0], -0.005, 1e-12);
  EXPECT_NEAR(recut.plastic_sinkage_m[0], 0.005, 1e-12) << "deposit " << deposit_m << " m";
  EXPECT_EQ(recut.loose_layer_m[0], 0.0);
}

TEST(ScmLooseLayer, ARemovalTakesTheLooseLayerFirst) {
  // A deposit that erosion carries off again: the loose layer shrinks with the height and never
  // goes negative; the soil below keeps its plastic sinkage.
  ScmModel m = plate_map();
  m.erosion_max_updates = 50;
  ScmState s(m);
  ScmWorkspace work;
  press(m, s, work, 0.195, 0.02);  // 2 cm deep: the border spike erodes to the angle of repose
  EXPECT_NEAR(s.plastic_sinkage(20, 20), 0.02, 1e-12);  // the pressed soil is not loose
  int eroded_onto = 0;
  for (int j = 10; j < 31; ++j) {
    for (int i = 10; i < 31; ++i) {
      const NodeBlock b = node(s, i, j);
      EXPECT_GE(b.loose_layer_m[0], 0.0) << i << ", " << j;
      // Never pressed, only deposited on: all its soil above the original surface is loose.
      if (b.plastic_sinkage_m[0] == 0.0 && b.height_m[0] > 0.0) {
        EXPECT_NEAR(b.loose_layer_m[0], b.height_m[0], 1e-12) << i << ", " << j;
        // Two nodes out from the patch only the erosion brings soil: it is loose too.
        if (std::abs(i - 20) >= 7 || std::abs(j - 20) >= 7) ++eroded_onto;
      }
    }
  }
  EXPECT_GT(eroded_onto, 0);
}

}  // namespace
}  // namespace talus::scm
