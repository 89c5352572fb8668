// The particle tier's Verlet neighbour list: it lists exactly the pairs within reach plus skin,
// goes stale when the two largest moves (periodic minimum image) reach the skin, a radius changed
// or a position was edited, refreshes only the rows of the particles that moved (the same list a
// full build at the reference positions makes), is reused in a bed at rest, and never changes a
// result bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <utility>

#include "core/driver.hpp"
#include "particles/neighbour_list.hpp"
#include "particles_fixtures.hpp"

namespace talus::particles {
namespace {

using testing::box_model;
using testing::expect_identical;
using testing::kRadius;

// The list built for `state` (hash with cells of reach + skin), with 2 threads.
NeighbourList list_for(const ParticleModel& model, const ParticleState& state, float skin) {
  SpatialHash hash;
  const float max_r = *std::max_element(state.radius_m.begin(), state.radius_m.end());
  build_spatial_hash(hash, model.broadphase, make_cell_grid(model, max_r, skin), 2.0,
                     state.x_m.data(), state.y_m.data(), state.z_m.data(), state.size(), 2);
  // A box container gives the sorted cells their dense index, whose search reads the candidates'
  // copied records (NeighbourList::search_records); the linked hash reads them by index.
  EXPECT_EQ(hash.dense, model.broadphase == Broadphase::kSortedCells);
  NeighbourList list;
  build_neighbour_list(list, hash, model, state, skin, 2);
  EXPECT_EQ(list.search_records.size(), hash.dense ? 4 * state.size() : 0);
  return list;
}

// `bed` with every centre moved by up to 0.35 radii along each axis (a fixed seed): the lattice's
// distances (2.1 radii to a face neighbour, 2.97 diagonally) spread over the list's reach, so
// that a search that misjudges a distance by a few percent lists a different set.
ParticleState scattered(ParticleState bed) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> move(-0.35f * float(kRadius), 0.35f * float(kRadius));
  for (std::size_t i = 0; i < bed.size(); ++i) {
    bed.x_m[i] += move(rng);
    bed.y_m[i] += move(rng);
    bed.z_m[i] += move(rng);
  }
  return bed;
}

TEST(NeighbourList, ListsExactlyThePairsWithinReachPlusSkinInIncreasingOrder) {
  // Both hash layouts, and x periodic (the dense hash's runs are then single cells that wrap).
  for (Broadphase kind : {Broadphase::kSortedCells, Broadphase::kLinkedHash}) {
    for (int periodic_axis : {-1, 0}) {
      ParticleModel model = box_model(0.06, 0.1);
      model.broadphase = kind;
      const ParticleState state = scattered(testing::box_bed(0.06, 0.04));
      if (periodic_axis == 0) {  // a period that leaves 2.2 radii between the bed's x ends
        const auto [lo, hi] = std::minmax_element(state.x_m.begin(), state.x_m.end());
        model.periodic_axis = 0;
        model.container.box.hi.x() = *hi - *lo + 2.2 * kRadius;
      }
      const MinimumImage image(model);
      const float skin = 0.4f * static_cast<float>(kRadius);
      const NeighbourList list = list_for(model, state, skin);
      ASSERT_EQ(list.particles(), state.size());
      const float reach_margin = static_cast<float>(model.contact_margin_m) + skin;
      std::size_t pairs = 0, across_the_seam = 0;
      for (std::size_t i = 0; i < state.size(); ++i) {
        std::set<std::int32_t> expected;
        for (std::size_t j = 0; j < state.size(); ++j) {
          if (j == i) continue;
          float d[3] = {state.x_m[i] - state.x_m[j], state.y_m[i] - state.y_m[j],
                        state.z_m[i] - state.z_m[j]};
          const bool apart = periodic_axis == 0 && std::abs(d[0]) > 0.5f * image.period_m;
          image.apply(d);
          const float reach = state.radius_m[i] + state.radius_m[j] + reach_margin;
          if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach) {
            expected.insert(std::int32_t(j));
            across_the_seam += apart ? 1 : 0;
          }
        }
        const std::vector<std::int32_t> got(list.partner.begin() + list.start[i],
                                            list.partner.begin() + list.start[i + 1]);
        EXPECT_TRUE(std::is_sorted(got.begin(), got.end())) << "particle " << i;
        EXPECT_EQ(std::set<std::int32_t>(got.begin(), got.end()), expected) << "particle " << i;
        EXPECT_EQ(got.size(), expected.size()) << "particle " << i;
        pairs += got.size();
      }
      EXPECT_GT(pairs, 3 * state.size());  // a lattice bed: its face neighbours, fewer at the sides
      if (periodic_axis == 0) {
        EXPECT_GT(across_the_seam, 0u);
      }
    }
  }
}

TEST(NeighbourList,
     GoesStaleWhenTwoMovesSumToTheSkinOnARadiusChangeAndAcrossTheSeamOnlyByDistance) {
  ParticleModel model = box_model(0.1, 0.1);
  model.periodic_axis = 0;
  model.gravity_m_per_s2 = Vec3::Zero();
  ParticleState state;
  const double m = sphere_mass_kg(kRadius, 1631.0);
  state.add(Vec3(0.03, 0.05, 0.05), Vec3::Zero(), kRadius, m);
  state.add(Vec3(0.0999, 0.05, 0.05), Vec3::Zero(), kRadius, m);  // at the x seam
  const float skin = 0.3f * static_cast<float>(kRadius);
  const NeighbourList list = list_for(model, state, skin);
  EXPECT_EQ(neighbour_list_need(list, model, state, skin, 1), NeighbourListNeed::kNothing);
  EXPECT_EQ(neighbour_list_need(list, model, state, 0.5f * skin, 1),
            NeighbourListNeed::kBuild);  // another skin

  // Stale when the two largest moves sum to the skin: one particle alone may move almost all of it.
  ParticleState moved = state;
  moved.y_m[0] += 0.9f * skin;
  EXPECT_EQ(neighbour_list_need(list, model, moved, skin, 2), NeighbourListNeed::kNothing);
  moved.z_m[1] += 0.09f * skin;
  EXPECT_EQ(neighbour_list_need(list, model, moved, skin, 2), NeighbourListNeed::kNothing);
  moved.z_m[1] = state.z_m[1] + 0.11f * skin;
  EXPECT_EQ(neighbour_list_need(list, model, moved, skin, 2), NeighbourListNeed::kRefresh);

  // Across the seam: 0.0999 -> 0.0001 is a move of 0.2 mm (< skin = 1.5 mm), not 0.0998 m.
  ParticleState wrapped = state;
  wrapped.x_m[1] = 0.0001f;
  EXPECT_EQ(neighbour_list_need(list, model, wrapped, skin, 1), NeighbourListNeed::kNothing);
  wrapped.x_m[1] = 0.0016f;  // 1.7 mm
  EXPECT_EQ(neighbour_list_need(list, model, wrapped, skin, 1), NeighbourListNeed::kRefresh);

  ParticleState grown = state;
  grown.radius_m[1] *= 1.01f;
  EXPECT_EQ(neighbour_list_need(list, model, grown, skin, 1), NeighbourListNeed::kBuild);

  ParticleState more = state;
  more.add(Vec3(0.06, 0.05, 0.05), Vec3::Zero(), kRadius, m);
  EXPECT_EQ(neighbour_list_need(list, model, more, skin, 1), NeighbourListNeed::kBuild);
}

// The particles of `state` moved: particle 0 across the bed, particles 1 and 2 by a third of the
// skin, every other one by a tenth of it (below a mover's quarter), in varied directions.
ParticleState moved_bed(const ParticleState& state, float skin) {
  ParticleState moved = state;
  moved.x_m[0] = state.x_m[state.size() - 1];
  moved.y_m[0] = state.y_m[state.size() - 1] + 0.5f * skin;
  moved.z_m[0] = state.z_m[state.size() - 1] + 2.0f * static_cast<float>(kRadius);
  moved.x_m[1] += 0.34f * skin;
  moved.z_m[2] -= 0.34f * skin;
  for (std::size_t i = 3; i < state.size(); ++i) {
    const float a = 0.7f * static_cast<float>(i);
    moved.x_m[i] += 0.1f * skin * std::cos(a);
    moved.y_m[i] += 0.1f * skin * std::sin(a);
  }
  return moved;
}

TEST(NeighbourList, ARefreshReSearchesTheMoversAndEqualsAFullBuildAtTheReferencePositions) {
  for (Broadphase kind : {Broadphase::kSortedCells, Broadphase::kLinkedHash}) {
    for (int threads : {1, 2}) {
      ParticleModel model = box_model(0.06, 0.1);
      model.broadphase = kind;
      const ParticleState state = testing::box_bed(0.06, 0.04);
      const float skin = 0.4f * static_cast<float>(kRadius);
      NeighbourList list = list_for(model, state, skin);
      const ParticleState moved = moved_bed(state, skin);
      ASSERT_EQ(neighbour_list_need(list, model, moved, skin, threads),
                NeighbourListNeed::kRefresh);
      SpatialHash hash;
      refresh_neighbour_list(list, hash, model, moved, skin, threads);
      EXPECT_EQ(list.refreshes, 1);
      EXPECT_EQ(list.builds, 1);
      // Movers (0, 1, 2) take their current positions as reference; the rest keep theirs.
      ParticleState reference = moved;
      for (std::size_t i = 0; i < state.size(); ++i) {
        const ParticleState& expected = i < 3 ? moved : state;
        EXPECT_EQ(list.x0_m[i], expected.x_m[i]) << "particle " << i;
        EXPECT_EQ(list.y0_m[i], expected.y_m[i]) << "particle " << i;
        EXPECT_EQ(list.z0_m[i], expected.z_m[i]) << "particle " << i;
        reference.x_m[i] = list.x0_m[i];
        reference.y_m[i] = list.y0_m[i];
        reference.z_m[i] = list.z0_m[i];
      }
      const NeighbourList full = list_for(model, reference, skin);
      EXPECT_EQ(list.start, full.start);
      EXPECT_EQ(list.partner, full.partner);
      // Particle 0 left its old neighbours for new ones.
      const auto row0 = [](const NeighbourList& l) {
        return std::vector<std::int32_t>(l.partner.begin() + l.start[0],
                                         l.partner.begin() + l.start[1]);
      };
      EXPECT_NE(row0(list), row0(list_for(model, state, skin)));
      EXPECT_FALSE(row0(list).empty());
      // The refreshed list covers the moved bed again.
      EXPECT_EQ(neighbour_list_need(list, model, moved, skin, threads),
                NeighbourListNeed::kNothing);
    }
  }
}

TEST(NeighbourList, IsBuiltAfreshWhenMostParticlesMoved) {
  ParticleModel model = box_model(0.06, 0.1);
  const ParticleState state = testing::box_bed(0.06, 0.04);
  const float skin = 0.4f * static_cast<float>(kRadius);
  const NeighbourList list = list_for(model, state, skin);
  ParticleState shaken = state;
  for (std::size_t i = 0; i < state.size(); ++i)
    shaken.z_m[i] += (i % 3 == 0 ? 0.1f : 0.55f) * skin;
  // Two in three particles moved more than a mover's quarter of the skin (and two of them sum to
  // more than the skin): a full build is cheaper than re-searching them.
  EXPECT_EQ(neighbour_list_need(list, model, shaken, skin, 2), NeighbourListNeed::kBuild);
  for (std::size_t i = 0; i < state.size(); ++i) shaken.z_m[i] = state.z_m[i];
  shaken.z_m[5] += 0.6f * skin;
  shaken.z_m[7] += 0.6f * skin;
  EXPECT_EQ(neighbour_list_need(list, model, shaken, skin, 2), NeighbourListNeed::kRefresh);
}

// A bed with a sphere pushed through it (particles stream around it, so the list is refreshed
// or rebuilt often) for `steps` steps.
ParticleState pushed_bed(double skin_radii, int threads, int steps, std::int64_t* builds,
                         std::int64_t* refreshes = nullptr) {
  ParticleModel model = box_model(0.06, 0.2);
  model.threads = threads;
  model.warm_start = 0.8;
  model.neighbour_skin_radii = skin_radii;
  model.bodies.push_back(CoupledBody{"ball", SphereShape{0.012}, Vec3::Zero()});
  ParticleState state = testing::box_bed(0.06, 0.05);
  const Driver driver = ConstantTwistDriver{make_pose(Vec3(0.0, 0.03, 0.04)),
                                            Twist{Vec3(0.0, 0.0, 2.0), Vec3(0.3, 0.0, 0.0)}};
  ParticleWorkspace w;
  for (int k = 0; k < steps; ++k) step(model, state, motions_at({&driver, 1}, state.time_s), w);
  *builds = w.neighbours.builds;
  if (refreshes != nullptr) *refreshes = w.neighbours.refreshes;
  return state;
}

TEST(NeighbourList, ResultsAreBitIdenticalForAnySkin) {
  std::int64_t builds_none = 0, builds_small = 0, builds_large = 0;
  std::int64_t refreshes_small = 0, refreshes_large = 0;
  const ParticleState none = pushed_bed(0.0, 2, 150, &builds_none);
  const ParticleState small = pushed_bed(0.3, 2, 150, &builds_small, &refreshes_small);
  const ParticleState large = pushed_bed(1.0, 1, 150, &builds_large, &refreshes_large);
  expect_identical(none, small);
  expect_identical(none, large);
  EXPECT_EQ(builds_none, 0);  // no list: the hash is searched at every step
  // Both lists were refreshed while particles moved (so refreshes were exercised) and reused in
  // between; the larger skin lasts longer.
  EXPECT_GT(refreshes_small, 1);
  EXPECT_GT(refreshes_large, 0);
  EXPECT_LT(builds_small + refreshes_small, 150);
  EXPECT_LT(builds_large + refreshes_large, builds_small + refreshes_small);
}

TEST(NeighbourList, ABedAtRestReusesItsList) {
  ParticleModel model = box_model(0.05, 0.1);
  ParticleState state = testing::box_bed(0.05, 0.03);
  ParticleWorkspace w;
  testing::run(model, state, w, 600);  // settle
  const std::int64_t before = w.neighbours.builds + w.neighbours.refreshes;
  testing::run(model, state, w, 400);
  // At rest particles move micrometres per step: a handful of refreshes in 400 steps, not 400.
  EXPECT_LE(w.neighbours.builds + w.neighbours.refreshes - before, 20)
      << "max speed " << testing::max_speed(state);
}

TEST(NeighbourList, PositionsEditedBetweenStepsAreSeen) {
  ParticleModel model = box_model(0.1, 0.1);
  model.gravity_m_per_s2 = Vec3::Zero();
  ParticleState state;
  const double m = sphere_mass_kg(kRadius, 1631.0);
  state.add(Vec3(0.03, 0.05, 0.05), Vec3::Zero(), kRadius, m);
  state.add(Vec3(0.07, 0.05, 0.05), Vec3::Zero(), kRadius, m);  // 3 cm apart: not listed
  ParticleWorkspace w;
  step(model, state, {}, w);
  ASSERT_TRUE(w.neighbours.built);
  EXPECT_EQ(w.neighbours.start[1], w.neighbours.start[0]);  // particle 0 lists no partner
  // A user (Python view, a loaded file) moves particle 1 into particle 0 by 2 mm.
  state.x_m[1] = 0.038f;
  ParticleState unlisted = state;
  step(model, state, {}, w);
  EXPECT_GT(distinct_contact_count(state.contacts), 0u);
  EXPECT_LT(state.x_m[0], 0.03f);  // pushed apart
  EXPECT_GT(state.x_m[1], 0.038f);
  // The same as a step that searched the hash.
  ParticleModel no_list = model;
  no_list.neighbour_skin_radii = 0.0;
  ParticleWorkspace w2;
  ParticleState reference = unlisted;
  step(no_list, reference, {}, w2);
  EXPECT_EQ(reference.x_m, state.x_m);
}

TEST(NeighbourList, NegativeSkinIsRefusedByName) {
  ParticleModel model = box_model(0.1, 0.1);
  model.neighbour_skin_radii = -0.1;
  try {
    validate(model);
    FAIL() << "a negative skin was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("neighbour_skin_radii"), std::string::npos) << e.what();
  }
}

TEST(NeighbourList, SkinShrinksToFitThreeCellsInAPeriod) {
  ParticleModel model = box_model(0.1, 0.1);
  model.periodic_axis = 0;
  // 3 cells of 2 r + margin = 10.5 mm in a 32 mm period leave 0.167 mm of skin per cell.
  model.container.box.hi.x() = 0.032;
  model.neighbour_skin_radii = 1.0;
  const float skin = neighbour_skin_m(model, static_cast<float>(kRadius));
  EXPECT_NEAR(skin, 0.999 * (0.032 / 3.0 - 0.0105), 1e-7);
  EXPECT_NO_THROW(make_cell_grid(model, static_cast<float>(kRadius), skin));
  model.container.box.hi.x() = 0.5;
  EXPECT_FLOAT_EQ(neighbour_skin_m(model, static_cast<float>(kRadius)), 0.005f);
}

}  // namespace
}  // namespace talus::particles
