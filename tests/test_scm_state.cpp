// SCM storage and step mechanics: tiles on first touch, memory with touched area only, contact
// volume (eq. 2), wrench sums, bit-identical results for 1, 2 and 3 threads, NaN detection.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "scm/border_flow.hpp"
#include "scm/node_bands.hpp"
#include "scm/scm_contact_tier.hpp"
#include "scm/scm_forces.hpp"
#include "scm/scm_rigs.hpp"
#include "scratch_files.hpp"

namespace talus::scm {
namespace {

ScmModel map(double cell_m, int nx, int ny) {
  ScmModel m;
  m.cell_size_m = cell_m;
  m.nx = nx;
  m.ny = ny;
  m.soil = named_soil("dry_sand");
  m.time_step_s = 1e-3;
  return m;
}

// A 10 cm box at rest on a 41 x 41 map of 1 cm cells, its faces midway between nodes (10 x 10
// nodes under it) and its bottom 3 mm below the surface.
struct PressedBox {
  ScmModel m;
  ScmState s;
  ScmWorkspace w;
  std::vector<BodyMotion> motion = std::vector<BodyMotion>(1);
  std::vector<Wrench> wrench = std::vector<Wrench>(1);

  explicit PressedBox(ScmModel model) : m(with_box(std::move(model))), s(m) {
    motion[0].X_WB = make_pose(Vec3(0.205, 0.205, 0.05 - 0.003));
  }
  static ScmModel with_box(ScmModel model) {
    model.bodies = {CoupledBody{"box", BoxShape{Vec3(0.05, 0.05, 0.05)}, Vec3::Zero()}};
    return model;
  }
  ScmStepReport step() { return talus::scm::step(m, s, motion, wrench, w); }
};

TEST(ScmState, UntouchedNodesReadBaseTerrainWithoutTiles) {
  ScmModel m = map(0.01, 100, 80);
  m.base_height_m = 0.3;
  m.base_image_m.assign(100 * 80, 0.0);
  m.base_image_m[static_cast<std::size_t>(7 * 100 + 5)] = 0.02;
  const ScmState s(m);
  EXPECT_EQ(s.tile_count(), 0);
  EXPECT_DOUBLE_EQ(s.height(5, 7), 0.32);
  EXPECT_DOUBLE_EQ(s.height(6, 7), 0.3);
  EXPECT_DOUBLE_EQ(s.plastic_sinkage(5, 7), 0.0);
}

TEST(ScmState, ScatterAllocatesOnlyTouchedTilesAndRoundTrips) {
  const ScmModel m = map(0.01, 1000, 1000);
  ScmState s(m);
  NodeBlock b;
  b.resize(30, 40, 5, 3);  // crosses the tile boundary at i = 32
  s.gather(b);
  for (std::size_t k = 0; k < b.size(); ++k) {
    b.height_m[k] = 0.001 * static_cast<double>(k);
    b.shear_x_m[k] = -1.0 * static_cast<double>(k);
    b.loosened[k] = static_cast<std::uint8_t>(k % 2);
  }
  s.scatter(b);
  EXPECT_EQ(s.tile_count(), 2);
  EXPECT_EQ(s.tile_bytes(), 2u * kTileSize * bytes_per_node());
  NodeBlock c;
  c.resize(30, 40, 5, 3);
  s.gather(c);
  EXPECT_EQ(c.height_m, b.height_m);
  EXPECT_EQ(c.shear_x_m, b.shear_x_m);
  EXPECT_EQ(c.loosened, b.loosened);
  EXPECT_DOUBLE_EQ(s.height(100, 100), 0.0);
}

// A block of kBandedPassMinNodes or more is copied in bands of rows on the threads: with 1, 2 and
// 3 threads (bands that start and end inside tiles) a scatter then gather over a block that is
// not tile-aligned, half on touched and half on untouched tiles, gives the same nodes as a
// serial copy, and a band never drops a row (every node checked against what was written).
TEST(ScmState, LargeBlocksCopyTheSameNodesOnAnyThreadCount) {
  ScmModel m = map(0.01, 400, 300);
  m.base_height_m = 0.25;
  auto run = [&](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    ScmState s(m);
    NodeBlock touched;
    touched.resize(37, 29, 90, 41);  // touches the tiles of rows 29-69 only
    s.gather(touched);
    for (std::size_t k = 0; k < touched.size(); ++k) {
      touched.height_m[k] = 0.001 * static_cast<double>(k);
      touched.flow_vy[k] = -2.0 * static_cast<double>(k);
      touched.in_contact[k] = static_cast<std::uint8_t>(k % 3 == 0);
    }
    s.scatter(touched, kHeight | kFlowVy | kInContact);
    NodeBlock large;
    large.resize(21, 13, 101, 97);  // 9,797 nodes: rows 13-109, beyond the touched tiles
    EXPECT_GE(large.size(), kBandedPassMinNodes);
    s.gather(large);
    for (std::size_t k = 0; k < large.size(); ++k) large.shear_x_m[k] = static_cast<double>(k);
    s.scatter(large);
    NodeBlock out;
    out.resize(21, 13, 101, 97);
    s.gather(out);
    omp_set_num_threads(before);
    return std::make_pair(out, s.tile_count());
  };
  const auto [serial, serial_tiles] = run(1);
  for (int j = 13; j < 110; ++j) {
    for (int i = 21; i < 122; ++i) {
      const std::size_t k = serial.index(i, j);
      const bool was_touched = i >= 37 && i < 127 && j >= 29 && j < 70;
      const auto t = static_cast<std::size_t>((j - 29) * 90 + (i - 37));
      ASSERT_EQ(serial.height_m[k], was_touched ? 0.001 * static_cast<double>(t) : 0.25)
          << i << ", " << j;
      ASSERT_EQ(serial.flow_vy[k], was_touched ? -2.0 * static_cast<double>(t) : 0.0);
      ASSERT_EQ(serial.in_contact[k], was_touched ? (t % 3 == 0 ? 1 : 0) : 0);
      ASSERT_EQ(serial.shear_x_m[k], static_cast<double>(k));
    }
  }
  for (int threads : {2, 3}) {
    const auto [banded, tiles] = run(threads);
    EXPECT_EQ(tiles, serial_tiles) << threads;
    EXPECT_EQ(banded.height_m, serial.height_m) << threads;
    EXPECT_EQ(banded.flow_vy, serial.flow_vy) << threads;
    EXPECT_EQ(banded.in_contact, serial.in_contact) << threads;
    EXPECT_EQ(banded.shear_x_m, serial.shear_x_m) << threads;
  }
}

// A wheel driven twice as far touches about twice the tiles: memory follows the track, not the
// map (the map here is 100 m x 4 m: 10^7 nodes that are never allocated).
// zero_fields writes zeros into the chosen fields of the box's nodes only (the border path's
// window outside its flow box, scm_step.cpp), leaving every other field and node as it was.
TEST(ScmState, ZeroFieldsClearsTheChosenFieldsOfTheBoxOnly) {
  const ScmModel m = map(0.01, 70, 40);
  ScmState s(m);
  NodeBlock b;
  b.resize(0, 0, 70, 40);
  s.gather(b);
  for (std::size_t k = 0; k < b.size(); ++k) {
    b.deposited_m3[k] = 1.0 + static_cast<double>(k);
    b.flow_vx[k] = 2.0;
    b.height_m[k] = 0.5;
  }
  s.scatter(b);
  const IndexBox box{20, 5, 50, 37};  // across tile borders (32 nodes)
  s.zero_fields(box, kDeposited | kFlowVx);
  NodeBlock after;
  after.resize(0, 0, 70, 40);
  s.gather(after);
  for (int j = 0; j < 40; ++j) {
    for (int i = 0; i < 70; ++i) {
      const std::size_t k = after.index(i, j);
      const bool in = box.contains(i, j);
      EXPECT_EQ(after.deposited_m3[k], in ? 0.0 : 1.0 + static_cast<double>(k)) << i << ", " << j;
      EXPECT_EQ(after.flow_vx[k], in ? 0.0 : 2.0) << i << ", " << j;
      EXPECT_EQ(after.height_m[k], 0.5) << i << ", " << j;
    }
  }
}

TEST(ScmState, MemoryGrowsWithTouchedAreaOnly) {
  const ScmModel m = map(0.02, 5001, 201);
  auto tiles_after = [&](double drive_s) {
    ScmState state(m);
    WheelTest t;
    t.start_xy_m = Vec2(0.5, 2.0);
    t.settle_s = 0.05;
    t.drive_s = drive_s;
    t.speed_m_per_s = 2.0;
    t.slip = 0.2;
    run_wheel(m, state, t, 0.0);
    return state.tile_count();
  };
  const int short_run = tiles_after(0.5);  // 1 m
  const int long_run = tiles_after(1.5);   // 3 m
  EXPECT_LT(short_run, 12);
  EXPECT_GT(long_run, short_run + 3);
  EXPECT_LE(long_run, 3 * short_run + 3);
  EXPECT_LT(static_cast<long>(long_run) * kTileSize, static_cast<long>(m.nx) * m.ny / 50);
}

TEST(ScmContact, FlatBoxDisplacesItsOverlapTimesNodeArea) {
  PressedBox box(map(0.01, 41, 41));
  const ScmStepReport r = box.step();
  EXPECT_EQ(r.nodes_in_contact, 100);
  EXPECT_NEAR(r.displaced_volume_m3, 100 * 0.003 * 1e-4, 1e-15);
  EXPECT_NEAR(r.deposited_volume_m3, r.displaced_volume_m3, 1e-18);
  EXPECT_NEAR(box.s.height(20, 20), -0.003, 1e-12);
  // Bekker: 100 nodes * A * k * 0.003^n, vertical, no shear (the box does not move).
  const double k = box.m.soil.bekker_k();
  const Wrench& f = box.wrench[0];
  EXPECT_NEAR(f.f_W.z(), 100 * 1e-4 * k * std::pow(0.003, box.m.soil.exponent_n), 1e-9);
  EXPECT_NEAR(f.f_W.x(), 0.0, 1e-12);
  EXPECT_NEAR(f.tau_W.norm(), 0.0, 1e-9);  // symmetric about the box centre
}

TEST(ScmForces, ShearStressFollowsJanosiAndOpposesSlip) {
  const SoilParameters soil = named_soil("dry_sand");
  ContactNode c;
  c.n_W = Vec3(0, 0, -1);
  c.sigma_pa = 20e3;
  const double j = soil.janosi_shear_modulus_m;  // one K: 1 - 1/e mobilised
  const Vec3 f = node_force(soil, 1e-4, c, j, 0.0);
  const double tau =
      (soil.cohesion_pa + c.sigma_pa * std::tan(soil.friction_angle_rad)) * (1.0 - std::exp(-1.0));
  EXPECT_NEAR(f.x(), -tau * 1e-4, 1e-12);
  EXPECT_NEAR(f.y(), 0.0, 1e-15);
  EXPECT_NEAR(f.z(), c.sigma_pa * 1e-4, 1e-12);
  c.loosened = true;  // residual strength: its own cohesion and friction angle
  const Vec3 g = node_force(soil, 1e-4, c, j, 0.0);
  const double tau_r =
      (soil.residual_cohesion_pa + c.sigma_pa * std::tan(soil.residual_friction_angle_rad)) *
      (1.0 - std::exp(-1.0));
  EXPECT_NEAR(g.x(), -tau_r * 1e-4, 1e-12);
  EXPECT_GT(g.x(), f.x());
}

TEST(ScmContact, InclinedFaceAddsHorizontalResistance) {
  const SoilParameters soil = named_soil("dry_sand");
  ContactNode c;
  c.n_W = Vec3(std::sin(0.3), 0, -std::cos(0.3));  // front of a wheel: normal tilted forward
  c.sigma_pa = 10e3;
  const Vec3 f = node_force(soil, 1e-4, c, 0.0, 0.0);
  EXPECT_NEAR(f.z(), 1.0, 1e-12);  // vertical part sigma * A
  EXPECT_NEAR(f.x(), -std::tan(0.3), 1e-12);
}

struct WheelRun {
  std::vector<WheelSample> samples;
  NodeBlock soil;  // every node of the map after the run
};

WheelRun wheel_run(int threads, FlowMethod method = FlowMethod::Border) {
  omp_set_num_threads(threads);
  ScmModel m = map(0.01, 121, 61);
  m.method = method;
  ScmState state(m);
  WheelTest t;
  t.start_xy_m = Vec2(0.3, 0.3);
  t.settle_s = 0.02;
  t.drive_s = 0.08;
  WheelRun run{run_wheel(m, state, t, 0.0).samples, {}};
  run.soil.resize(0, 0, m.nx, m.ny);
  state.gather(run.soil);
  return run;
}

// The border path's windows here are serial copies; the flow fields' window (the patch grown by
// the 0.4 m reach, clamped to the 7,381-node map) is large enough for the banded passes
// (scm/node_bands.hpp), with bands that differ for 2 and 3 threads.
TEST(ScmStep, OneTwoAndThreeThreadsBitIdentical) {
  const int before = omp_get_max_threads();
  for (const FlowMethod method : {FlowMethod::Border, FlowMethod::Fields}) {
    const WheelRun a = wheel_run(1, method);
    for (const int threads : {2, 3}) {
      const WheelRun b = wheel_run(threads, method);
      ASSERT_EQ(a.samples.size(), b.samples.size());
      for (std::size_t k = 0; k < a.samples.size(); ++k) {
        EXPECT_EQ(a.samples[k].drawbar_pull_n, b.samples[k].drawbar_pull_n) << k;
        EXPECT_EQ(a.samples[k].torque_nm, b.samples[k].torque_nm) << k;
        EXPECT_EQ(a.samples[k].sinkage_m, b.samples[k].sinkage_m) << k;
        EXPECT_EQ(a.samples[k].deposited_m3, b.samples[k].deposited_m3) << k;
      }
      EXPECT_EQ(a.soil.height_m, b.soil.height_m) << threads;
      EXPECT_EQ(a.soil.loose_layer_m, b.soil.loose_layer_m) << threads;
      EXPECT_EQ(a.soil.flow_vx, b.soil.flow_vx) << threads;
      EXPECT_EQ(a.soil.flow_depth_m, b.soil.flow_depth_m) << threads;
    }
  }
  omp_set_num_threads(before);
}

// Two boxes sliding and sinking 0.75 m apart: each is deformed in a window of its own, so the
// soil between them is not visited, and each box's wrench and the soil around it are bit-identical
// to a run of that box alone (nothing of one body's window reaches into the other's).
TEST(ScmStep, DistantBodiesAreDeformedInWindowsOfTheirOwn) {
  // Cell, sizes and motions are exact binary fractions, so both boxes meet the grid alike.
  const double cell = 1.0 / 64.0;
  ScmModel m = map(cell, 101, 41);
  const Shape box = BoxShape{Vec3(4 * cell, 4 * cell, 4 * cell)};
  auto run = [&](bool both, std::vector<Wrench>& first_wrench, ScmState& state) {
    ScmModel mm = m;
    mm.bodies = {CoupledBody{"left", box, Vec3::Zero()}};
    if (both) mm.bodies.push_back(CoupledBody{"right", box, Vec3::Zero()});
    ScmWorkspace work;
    std::vector<BodyMotion> motion(mm.bodies.size());
    std::vector<Wrench> wrench(mm.bodies.size());
    ScmStepReport last;
    for (int k = 1; k <= 40; ++k) {
      const double sink = k / 4096.0, x = k / 512.0;
      motion[0].X_WB = make_pose(Vec3(0.25 + x, 0.3125, 4 * cell - sink));
      motion[0].V_WB.v_WBo = Vec3(2.0, 0.0, -0.2);
      if (both) {
        motion[1].X_WB = make_pose(Vec3(1.0 + x, 0.3125, 4 * cell - sink));
        motion[1].V_WB.v_WBo = Vec3(2.0, 0.0, -0.2);
      }
      last = step(mm, state, 1e-3, motion, wrench, work);
      first_wrench.push_back(wrench[0]);
    }
    return last;
  };
  ScmState alone_state(m), both_state(m);
  std::vector<Wrench> alone, with_other;
  const ScmStepReport r1 = run(false, alone, alone_state);
  const ScmStepReport r2 = run(true, with_other, both_state);
  ASSERT_GT(r1.nodes_in_contact, 0);
  EXPECT_EQ(r2.nodes_in_contact, 2 * r1.nodes_in_contact);
  // Two windows of one body's size, not one box spanning both bodies and the soil between.
  EXPECT_EQ(r2.window_nodes, 2 * r1.window_nodes);
  for (std::size_t k = 0; k < alone.size(); ++k) {
    EXPECT_EQ(alone[k].f_W, with_other[k].f_W) << k;
    EXPECT_EQ(alone[k].tau_W, with_other[k].tau_W) << k;
  }
  for (int j = 0; j < m.ny; ++j) {
    for (int i = 0; i < 40; ++i) {  // the left box's side of the map (x < 0.625 m)
      EXPECT_EQ(alone_state.height(i, j), both_state.height(i, j)) << i << ", " << j;
    }
  }
}

// The border path changes nodes at most two nodes off its contact patches, the bound the step's
// flow boxes rely on (scm_step.cpp, flow_boxes: each body's contact box grown by two). A patch
// sliding exactly along +x carries its front row's sheared soil to the next node, and the split
// over the four nodes around the target reaches one node further (with weight zero): in a window
// one node wider than the patch that soil stays at its source, in one two nodes wider it lands
// as in an unbounded window.
TEST(BorderFlow, APatchChangesNodesAtMostTwoNodesOffIt) {
  // A 4 x 3 patch with its first node at (margin, margin) in a window `margin` nodes wider on
  // every side; the deposits of the window's nodes by global index (the patch's first node at
  // (100, 100)).
  auto deposits = [](int margin) {
    FlowWindow w;
    w.cell_size_m = 0.02;
    w.resize(4 + 2 * margin, 3 + 2 * margin);
    for (int j = margin; j < margin + 3; ++j) {
      for (int i = margin; i < margin + 4; ++i) {
        const std::size_t k = w.index(i, j);
        w.in_contact[k] = 1;
        w.displaced_volume_m3[k] = 1e-6;
        w.contact_velocity_W[k] = Vec3(0.5, 0.0, -0.1);
      }
    }
    BorderFlowScratch scratch;
    border_flow(0.01, 0.04, w, scratch);
    std::map<std::pair<int, int>, double> by_node;
    for (int j = 0; j < w.ny; ++j) {
      for (int i = 0; i < w.nx; ++i) {
        const double v = w.deposited_volume_m3[w.index(i, j)];
        if (v != 0.0) by_node[{100 - margin + i, 100 - margin + j}] = v;
      }
    }
    return by_node;
  };
  const auto unbounded = deposits(6);
  EXPECT_EQ(deposits(2), unbounded);
  EXPECT_NE(deposits(1), unbounded);
  for (const auto& [node, v] : unbounded) {
    EXPECT_GE(node.first, 99);
    EXPECT_LE(node.first, 103 + 2);  // at most two nodes past the patch's last column (103)
    EXPECT_GE(node.second, 99);
    EXPECT_LE(node.second, 103);
  }
}

// Two boxes 0.75 m apart on the border path whose erosion margins are wide enough to merge their
// windows into one: the border path still deforms each box's own patch in a box of its own (the
// soil between them is not scanned: scm_step.cpp, flow_boxes), and with the erosion off (the only
// stage whose result depends on the window's extent) every node and both wrenches are the bits of
// the run with a window per box.
TEST(ScmStep, MergedBorderWindowsDeformEachBodysPatchAsSeparateWindowsDo) {
  const double cell = 1.0 / 64.0;
  const Shape box = BoxShape{Vec3(4 * cell, 4 * cell, 4 * cell)};
  struct Run {
    ScmStepReport last;
    std::vector<Wrench> wrenches;
    ScmState state;
  };
  auto run = [&](int margin_nodes) {
    ScmModel m = map(cell, 101, 41);
    m.erosion_max_updates = 0;
    m.border_margin_nodes = margin_nodes;
    m.bodies = {CoupledBody{"left", box, Vec3::Zero()}, CoupledBody{"right", box, Vec3::Zero()}};
    Run r{{}, {}, ScmState(m)};
    ScmWorkspace work;
    std::vector<BodyMotion> motion(2);
    std::vector<Wrench> wrench(2);
    for (int k = 1; k <= 40; ++k) {
      const double sink = k / 4096.0, x = k / 512.0;
      for (int b = 0; b < 2; ++b) {
        motion[static_cast<std::size_t>(b)].X_WB =
            make_pose(Vec3(0.25 + 0.75 * b + x, 0.3125 + b / 64.0, 4 * cell - sink));
        motion[static_cast<std::size_t>(b)].V_WB.v_WBo = Vec3(2.0, b == 0 ? 0.0 : -0.5, -0.2);
      }
      r.last = step(m, r.state, 1e-3, motion, wrench, work);
      r.wrenches.insert(r.wrenches.end(), wrench.begin(), wrench.end());
    }
    return r;
  };
  const Run apart = run(4), merged = run(40);
  ASSERT_GT(apart.last.nodes_in_contact, 0);
  // One window spanning both boxes and the soil between (the whole 101 x 41 map), against two
  // small ones.
  EXPECT_EQ(merged.last.window_nodes, 101 * 41);
  EXPECT_LT(apart.last.window_nodes, 101 * 41 / 2);
  ASSERT_EQ(apart.wrenches.size(), merged.wrenches.size());
  for (std::size_t k = 0; k < apart.wrenches.size(); ++k) {
    EXPECT_EQ(apart.wrenches[k].f_W, merged.wrenches[k].f_W) << k;
    EXPECT_EQ(apart.wrenches[k].tau_W, merged.wrenches[k].tau_W) << k;
  }
  for (int j = 0; j < 41; ++j) {
    for (int i = 0; i < 101; ++i) {
      ASSERT_EQ(apart.state.height(i, j), merged.state.height(i, j)) << i << ", " << j;
    }
  }
}

// The border path's window leaves room for the disturbed soil to erode, not for the base
// terrain's own slope: a box pressed 1 cm into a 15 degree ramp (tilted with it) gets a window of
// about the size it gets on level ground. Counting the ramp's rise across the box as relief (the
// rule until 2026-12-03) grew its margin from 6 to 14 nodes (RoverSlope-v0's four wheels then
// shared one window of 90 x 82 nodes on the slope).
TEST(ScmStep, ARampsOwnSlopeDoesNotWidenTheBorderWindow) {
  const double cell = 0.02, slope = 15.0 * M_PI / 180.0, sink = 0.01;
  const Shape box = BoxShape{Vec3(0.2, 0.1, 0.05)};  // half extents: 0.4 x 0.2 m, 5 cm high
  auto window_nodes = [&](bool ramp) {
    ScmModel m = map(cell, 101, 61);
    if (ramp) {
      m.base_image_m.assign(101 * 61, 0.0);
      for (int j = 0; j < 61; ++j) {
        for (int i = 0; i < 101; ++i) m.base_image_m[m.index(i, j)] = i * cell * std::tan(slope);
      }
    }
    m.bodies = {CoupledBody{"box", box, Vec3::Zero()}};
    ScmState state(m);
    ScmWorkspace work;
    // Centre above node (50, 30), the bottom face 1 cm below the surface there (and, tilted by the
    // ramp's angle, along it).
    const double x = 50 * cell + 0.5 * cell, y = 30 * cell + 0.5 * cell;
    const double surface = ramp ? x * std::tan(slope) : 0.0;
    const double pitch = ramp ? -slope : 0.0;  // the box's +x end up the ramp
    std::vector<BodyMotion> motion(1);
    motion[0].X_WB = make_pose(Vec3(x, y, surface + 0.05 / std::cos(pitch) - sink), 0.0, pitch);
    std::vector<Wrench> wrench(1);
    const ScmStepReport r = step(m, state, 1e-3, motion, wrench, work);
    EXPECT_GT(r.nodes_in_contact, 150) << (ramp ? "ramp" : "level");
    return r.window_nodes;
  };
  const int level = window_nodes(false), ramp = window_nodes(true);
  // The box's contact nodes span about 20 x 10; on level ground a 1 cm relief gives a margin of
  // 4 + 1 nodes (600 window nodes). On the ramp the disturbance's reach d / (tan(phi) - tan(beta))
  // adds one (682 nodes, measured 2026-12-03); the ramp's rise counted as relief gave 14 (1,786).
  EXPECT_GT(ramp, level);
  EXPECT_LT(ramp, level * 13 / 10) << "level window " << level << " nodes";
}

TEST(ScmContactTier, StepsLikeScmStepAndListsItsBodies) {
  ScmModel m = map(0.01, 41, 41);
  m.bodies = {CoupledBody{"box", BoxShape{Vec3(0.05, 0.05, 0.05)}, Vec3(0.0, 0.0, -0.05)}};
  ScmContactTier tier(m);
  ASSERT_EQ(tier.bodies().size(), 1u);
  EXPECT_EQ(tier.bodies()[0].name, "box");
  std::vector<BodyMotion> motion(1);
  motion[0].X_WB = make_pose(Vec3(0.205, 0.205, 0.05 - 0.003));
  std::vector<Wrench> a(1), b(1);
  tier.step(1e-3, motion, a);
  ScmState s(m);
  ScmWorkspace w;
  step(m, s, 1e-3, motion, b, w);
  EXPECT_EQ(a[0].f_W, b[0].f_W);
  EXPECT_EQ(a[0].tau_W, b[0].tau_W);
  EXPECT_NEAR(a[0].p_W.z(), 0.05 - 0.003 - 0.05, 1e-15);  // about the reference point
  EXPECT_EQ(tier.last_report().nodes_in_contact, 100);
  ScmModel bad = m;
  bad.soil.exponent_n = -1.0;
  EXPECT_THROW(ScmContactTier{bad}, std::invalid_argument);
}

TEST(ScmStep, NanStopsWithNodeAndStep) {
  ScmModel m = map(0.01, 41, 41);
  m.base_image_m.assign(41 * 41, 0.0);
  m.base_image_m[static_cast<std::size_t>(20 * 41 + 20)] = std::numeric_limits<double>::quiet_NaN();
  PressedBox box(m);
  const std::string error = talus::testing_files::runtime_error_of([&] { box.step(); });
  EXPECT_NE(error.find("step 1: node (20, 20)"), std::string::npos) << error;
}

// The shear displacement is written by the contact stage only, which checks it on its block (the
// deformation window does not copy it): a NaN there stops the step that meets it.
TEST(ScmStep, NanShearUnderTheBodyStopsWithNodeAndStep) {
  PressedBox box(map(0.01, 41, 41));
  box.step();
  ScmTile* tile = box.s.allocated_tile(0, 0);
  ASSERT_NE(tile, nullptr);
  tile->shear_x_m[static_cast<std::size_t>(20 * kTileNodes + 20)] =
      std::numeric_limits<double>::quiet_NaN();
  const std::string error = talus::testing_files::runtime_error_of([&] { box.step(); });
  EXPECT_NE(error.find("step 2: node (20, 20)"), std::string::npos) << error;
}

}  // namespace
}  // namespace talus::scm
