// The SCM step's stages on disjoint boxes (the contact stage's boxes of footprints, the
// deformation windows) run side by side on the OpenMP team (scm_step.cpp, for_each_box): four
// bodies give the same bits for 1, 2 and 3 threads, and an error in a box is reported as the
// step on one thread reports it.

#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "scm/scm_step.hpp"
#include "scratch_files.hpp"

namespace talus::scm {
namespace {

constexpr double kCell = 1.0 / 64.0;  // exact binary fractions: every body meets the grid alike

// A 3 x 2 m map of dry sand with four 12.5 cm boxes 1.5 m and 1 m apart (far enough that even the
// flow fields' windows, the contact boxes grown by 0.4 m, stay apart), each sliding its own way.
ScmModel four_box_map(FlowMethod method) {
  ScmModel m;
  m.cell_size_m = kCell;
  m.nx = 193;
  m.ny = 129;
  m.soil = named_soil("dry_sand");
  m.time_step_s = 1e-3;
  m.method = method;
  const Shape box = BoxShape{Vec3(4 * kCell, 4 * kCell, 4 * kCell)};
  for (const char* name : {"a", "b", "c", "d"})
    m.bodies.push_back(CoupledBody{name, box, Vec3::Zero()});
  return m;
}

// Where each box starts and how it moves (each its own way, so that boxes mixed up would show).
const std::array<Vec3, 4> kStart{Vec3(0.5, 0.5, 0), Vec3(2.0, 0.5, 0), Vec3(0.5, 1.5, 0),
                                 Vec3(2.0, 1.5, 0)};
const std::array<Vec3, 4> kVelocity{Vec3(2.0, 0.0, -0.2), Vec3(-1.0, 1.0, -0.3),
                                    Vec3(0.0, -2.0, -0.1), Vec3(1.5, 0.5, -0.25)};

// Box b's motion at step k (1 ms steps), its bottom 2 mm into the surface at the start.
BodyMotion box_motion(std::size_t b, int k) {
  BodyMotion motion;
  motion.X_WB = make_pose(kStart[b] + kVelocity[b] * (k * 1e-3) + Vec3(0, 0, 4 * kCell - 0.002));
  motion.V_WB.v_WBo = kVelocity[b];
  return motion;
}

struct FourBoxRun {
  std::vector<ScmStepReport> reports;
  std::vector<Wrench> wrenches;  // every body's, every step
  NodeBlock soil;                // every node of the map at the end
  std::vector<std::array<int, 2>> tiles;
  std::size_t boxes = 0;  // ScmBoxWork scratches the step used
};

FourBoxRun four_boxes(int threads, FlowMethod method, int steps = 30) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  const ScmModel m = four_box_map(method);
  ScmState state(m);
  ScmWorkspace work;
  std::vector<BodyMotion> motion(4);
  std::vector<Wrench> wrench(4);
  FourBoxRun run;
  for (int k = 1; k <= steps; ++k) {
    for (std::size_t b = 0; b < 4; ++b) motion[b] = box_motion(b, k);
    run.reports.push_back(step(m, state, 1e-3, motion, wrench, work));
    run.wrenches.insert(run.wrenches.end(), wrench.begin(), wrench.end());
  }
  run.soil.resize(0, 0, m.nx, m.ny);
  state.gather(run.soil);
  run.tiles = state.tile_coordinates();
  run.boxes = work.boxes.size();
  omp_set_num_threads(before);
  return run;
}

void expect_same_bits(const FourBoxRun& a, const FourBoxRun& b, int threads) {
  ASSERT_EQ(a.reports.size(), b.reports.size());
  for (std::size_t k = 0; k < a.reports.size(); ++k) {
    const ScmStepReport &x = a.reports[k], &y = b.reports[k];
    EXPECT_EQ(x.nodes_in_contact, y.nodes_in_contact) << k;
    EXPECT_EQ(x.nodes_visited, y.nodes_visited) << k;
    EXPECT_EQ(x.window_nodes, y.window_nodes) << k;
    EXPECT_EQ(x.displaced_volume_m3, y.displaced_volume_m3) << k;
    EXPECT_EQ(x.deposited_volume_m3, y.deposited_volume_m3) << k;
    EXPECT_EQ(x.erosion_updates, y.erosion_updates) << k;
    EXPECT_EQ(x.max_flow_depth_m, y.max_flow_depth_m) << k;
  }
  ASSERT_EQ(a.wrenches.size(), b.wrenches.size());
  for (std::size_t k = 0; k < a.wrenches.size(); ++k) {
    EXPECT_EQ(a.wrenches[k].f_W, b.wrenches[k].f_W) << "step " << k / 4 << ", body " << k % 4;
    EXPECT_EQ(a.wrenches[k].tau_W, b.wrenches[k].tau_W) << "step " << k / 4 << ", body " << k % 4;
  }
  EXPECT_EQ(a.soil.height_m, b.soil.height_m) << threads;
  EXPECT_EQ(a.soil.plastic_sinkage_m, b.soil.plastic_sinkage_m) << threads;
  EXPECT_EQ(a.soil.loose_layer_m, b.soil.loose_layer_m) << threads;
  EXPECT_EQ(a.soil.shear_x_m, b.soil.shear_x_m) << threads;
  EXPECT_EQ(a.soil.flow_vx, b.soil.flow_vx) << threads;
  EXPECT_EQ(a.soil.flow_depth_m, b.soil.flow_depth_m) << threads;
  EXPECT_EQ(a.soil.deposited_m3, b.soil.deposited_m3) << threads;
  EXPECT_EQ(a.soil.in_contact, b.soil.in_contact) << threads;
  // Tiles are allocated in the order the step on one thread allocates them.
  EXPECT_EQ(a.tiles, b.tiles) << threads;
}

TEST(ScmBoxesOnThreads, FourBodiesGiveTheSameBitsOnOneTwoAndThreeThreads) {
  for (const FlowMethod method : {FlowMethod::Border, FlowMethod::Fields}) {
    const FourBoxRun serial = four_boxes(1, method);
    EXPECT_EQ(serial.boxes, 1u);  // on one thread every box reuses one scratch
    ASSERT_GT(serial.reports.back().nodes_in_contact, 0);
    ASSERT_GT(serial.reports.back().deposited_volume_m3, 0.0);
    for (const int threads : {2, 3}) {
      SCOPED_TRACE(method == FlowMethod::Border ? "border" : "fields");
      const FourBoxRun team = four_boxes(threads, method);
      EXPECT_EQ(team.boxes, 4u);  // four boxes in a stage, side by side on the team
      expect_same_bits(serial, team, threads);
    }
  }
}

// Each box's results are its own body's: the soil under each box and its wrench are those of a
// run of that body alone (a box's results swapped with another's, or one box's scratch reused by
// another on the team, would show here).
TEST(ScmBoxesOnThreads, EachBoxCarriesItsOwnBodysResults) {
  const FourBoxRun all = four_boxes(2, FlowMethod::Border, 10);
  for (std::size_t b = 0; b < 4; ++b) {
    ScmModel alone = four_box_map(FlowMethod::Border);
    alone.bodies = {alone.bodies[b]};
    ScmState state(alone);
    ScmWorkspace work;
    std::vector<BodyMotion> motion(1);
    std::vector<Wrench> wrench(1);
    for (int k = 1; k <= 10; ++k) {
      motion[0] = box_motion(b, k);
      step(alone, state, 1e-3, motion, wrench, work);
      EXPECT_EQ(wrench[0].f_W, all.wrenches[static_cast<std::size_t>(k - 1) * 4 + b].f_W)
          << "body " << b << ", step " << k;
    }
    // The body's quarter of the map.
    const int i0 = b % 2 == 0 ? 0 : 97, j0 = b < 2 ? 0 : 65;
    for (int j = j0; j < j0 + 64; ++j) {
      for (int i = i0; i < i0 + 96; ++i) {
        ASSERT_EQ(state.height(i, j), all.soil.height_m[all.soil.index(i, j)])
            << "body " << b << ", node " << i << ", " << j;
      }
    }
  }
}

// Two bodies over non-finite base terrain (the second and the fourth box): on the team, the step
// throws what the step on one thread throws, naming the first box's node.
TEST(ScmBoxesOnThreads, AnErrorInABoxIsTheOneTheSerialStepReports) {
  auto error_with = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    ScmModel m = four_box_map(FlowMethod::Border);
    m.base_image_m.assign(static_cast<std::size_t>(m.nx * m.ny), 0.0);
    const auto node = [&](double x, double y) {
      return static_cast<std::size_t>(std::lround(y / kCell) * m.nx + std::lround(x / kCell));
    };
    m.base_image_m[node(2.0, 0.5)] = std::numeric_limits<double>::quiet_NaN();
    m.base_image_m[node(2.0, 1.5)] = std::numeric_limits<double>::quiet_NaN();
    ScmState state(m);
    ScmWorkspace work;
    std::vector<BodyMotion> motion(4);
    std::vector<Wrench> wrench(4);
    for (std::size_t b = 0; b < 4; ++b) motion[b] = box_motion(b, 0);
    const std::string error =
        talus::testing_files::runtime_error_of([&] { step(m, state, 1e-3, motion, wrench, work); });
    omp_set_num_threads(before);
    return error;
  };
  const std::string serial = error_with(1);
  EXPECT_NE(serial.find("step 1: node (128, 32)"), std::string::npos) << serial;
  for (const int threads : {2, 3}) EXPECT_EQ(error_with(threads), serial) << threads;
}

}  // namespace
}  // namespace talus::scm
