// Signed-distance grids of closed meshes and the MeshShape in the Shape vocabulary.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>

#include "core/mesh_sdf.hpp"
#include "core/shape.hpp"
#include "error_message.hpp"
#include "mesh_fixtures.hpp"

namespace talus {
namespace {

using test_support::icosphere;
using test_support::invalid_argument_of;
using test_support::mesh_data;

TEST(PointTriangleDistance, Regions) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.2, 0.2, 0.5), a, b, c), 0.5);         // face
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(-1, -1, 0), a, b, c), std::sqrt(2.0));  // vertex
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.5, -2, 0), a, b, c), 2.0);            // edge ab
  EXPECT_NEAR(point_triangle_distance(Vec3(1, 1, 0), a, b, c), std::sqrt(0.5), 1e-15);  // edge bc
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(2, 0, 0), a, b, c), 1.0);               // vertex b
}

TEST(TriangleBvh, MatchesBruteForce) {
  const TriangleMesh m = icosphere(1.0, 2);
  const TriangleBvh bvh(m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int n = 0; n < 200; ++n) {
    const Vec3 p(u(rng), u(rng), u(rng));
    double best = 1e9;
    for (const auto& t : m.triangles) {
      best = std::min(best, point_triangle_distance(p, m.vertices_m[t[0]], m.vertices_m[t[1]],
                                                    m.vertices_m[t[2]]));
    }
    EXPECT_EQ(bvh.distance(p), best);
  }
}

TEST(MeshSdfGrid, CubeNodesAreExactSignedDistances) {
  const auto grid = MeshSdfGrid::build(load_mesh(mesh_data("cube.stl")), 0.125);
  EXPECT_EQ(grid->dims(), Eigen::Vector3i(13, 13, 13));  // 1 m + 2 x 2 cells margin
  const BoxShape box{Vec3::Constant(0.5)};
  for (int k = 0; k < 13; ++k) {
    for (int j = 0; j < 13; ++j) {
      for (int i = 0; i < 13; ++i) {
        const Vec3 p = grid->grid_lo() + 0.125 * Vec3(i, j, k);
        const double exact = signed_distance(Shape(box), p - Vec3::Constant(0.5));
        ASSERT_NEAR(grid->node(i, j, k), exact, 1e-6) << i << " " << j << " " << k;
      }
    }
  }
}

TEST(MeshSdfGrid, InterpolationAndOutsideLowerBound) {
  const auto grid = MeshSdfGrid::build(load_mesh(mesh_data("cube.stl")), 0.1);
  const BoxShape box{Vec3::Constant(0.5)};
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.15, 1.15);
  for (int n = 0; n < 500; ++n) {
    const Vec3 p(u(rng), u(rng), u(rng));
    const double exact = signed_distance(Shape(box), p - Vec3::Constant(0.5));
    EXPECT_NEAR(grid->distance(p), exact, 0.1) << p.transpose();  // within a cell
    if (std::abs(exact) > 0.1) {
      EXPECT_EQ(grid->distance(p) < 0.0, exact < 0.0);
    }
  }
  // Far outside the grid box: a lower bound, continuous at the box face, exact straight out.
  for (const Vec3& p : {Vec3(3.0, 0.5, 0.5), Vec3(2.0, 2.0, -1.0), Vec3(-0.5, 0.3, 5.0)}) {
    const double exact = signed_distance(Shape(box), p - Vec3::Constant(0.5));
    EXPECT_LE(grid->distance(p), exact + 1e-9) << p.transpose();
    EXPECT_GT(grid->distance(p), 0.6 * exact) << p.transpose();
  }
  // q = (1.2, 0.5, 0.5) is a node at 0.2 m from the cube; e = 1.8 m beyond it.
  EXPECT_NEAR(grid->distance(Vec3(3.0, 0.5, 0.5)), std::sqrt(1.8 * 1.8 + 0.2 * 0.2), 1e-6);
  const Vec3 face(grid->grid_hi().x(), 0.5, 0.5);
  EXPECT_NEAR(grid->distance(face + Vec3(1e-9, 0, 0)), grid->distance(face), 1e-8);
}

TEST(MeshSdfGrid, NormalsPointOutOfTheFaces) {
  const auto grid = MeshSdfGrid::build(load_mesh(mesh_data("cube_binary.stl")), 0.05);
  EXPECT_TRUE(grid->normal(Vec3(0.5, 0.5, 1.02)).isApprox(Vec3::UnitZ(), 1e-6));
  EXPECT_TRUE(grid->normal(Vec3(-0.03, 0.4, 0.6)).isApprox(-Vec3::UnitX(), 1e-6));
  EXPECT_TRUE(grid->normal(Vec3(0.45, 0.97, 0.5)).isApprox(Vec3::UnitY(), 1e-6));
  EXPECT_TRUE(grid->normal(Vec3(0.5, 0.5, 4.0)).isApprox(Vec3::UnitZ(), 1e-6));  // outside grid
}

TEST(MeshSdfGrid, SphereErrorShrinksWithTheCell) {
  const TriangleMesh sphere = icosphere(0.1, 3);  // 1280 triangles; facets within 0.3 mm
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.105, 0.105);  // inside both grids' boxes
  double worst[2] = {0.0, 0.0};
  const TriangleBvh bvh(sphere);
  const double cells[2] = {0.02, 0.007};
  for (int c = 0; c < 2; ++c) {
    const auto grid = MeshSdfGrid::build(sphere, cells[c]);
    for (int n = 0; n < 300; ++n) {
      const Vec3 p(u(rng), u(rng), u(rng));
      const double exact = p.norm() < 0.099 ? -bvh.distance(p) : bvh.distance(p);
      if (std::abs(p.norm() - 0.1) < 0.002) continue;  // facet-level sign ambiguity
      worst[c] = std::max(worst[c], std::abs(grid->distance(p) - exact));
    }
  }
  EXPECT_LT(worst[1], worst[0]);
  EXPECT_LT(worst[1], 0.002);
}

TEST(MeshSdfGrid, SameGridForOneAndTwoThreads) {
  const TriangleMesh sphere = icosphere(0.1, 2);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = MeshSdfGrid::build(sphere, 0.01);
  omp_set_num_threads(2);
  const auto two = MeshSdfGrid::build(sphere, 0.01);
  omp_set_num_threads(before);
  ASSERT_EQ(one->dims(), two->dims());
  for (int k = 0; k < one->dims().z(); ++k) {
    for (int j = 0; j < one->dims().y(); ++j) {
      for (int i = 0; i < one->dims().x(); ++i) ASSERT_EQ(one->node(i, j, k), two->node(i, j, k));
    }
  }
}

TEST(MeshSdfGrid, RefusesOpenMeshesAndBadCells) {
  const std::string open = invalid_argument_of(
      [] { MeshSdfGrid::build(load_mesh(mesh_data("open_box.obj")), 0.1, -1.0, "open_box.obj"); });
  EXPECT_NE(open.find("open_box.obj: is not closed"), std::string::npos) << open;
  const std::string cell = invalid_argument_of(
      [] { MeshSdfGrid::build(load_mesh(mesh_data("cube.stl")), 0.0, -1.0, "c"); });
  EXPECT_NE(cell.find("sdf cell size must be finite and > 0"), std::string::npos) << cell;
  const std::string margin = invalid_argument_of(
      [] { MeshSdfGrid::build(load_mesh(mesh_data("cube.stl")), 0.1, std::nan(""), "c"); });
  EXPECT_NE(margin.find("sdf margin must be finite"), std::string::npos) << margin;
  const std::string huge = invalid_argument_of(
      [] { MeshSdfGrid::build(load_mesh(mesh_data("cube.stl")), 1e-4, -1.0, "c"); });
  EXPECT_NE(huge.find("more than 2^28 grid nodes"), std::string::npos) << huge;
}

TEST(MeshShape, BehavesLikeTheBoxItSamples) {
  TriangleMesh cube = load_mesh(mesh_data("cube.stl"));
  for (Vec3& v : cube.vertices_m) v = 0.2 * v - Vec3::Constant(0.1);  // centred, 0.2 m
  const Shape mesh = MeshShape{MeshSdfGrid::build(cube, 0.01), "cube"};
  const Shape box = BoxShape{Vec3::Constant(0.1)};
  validate(mesh);
  EXPECT_EQ(shape_kind(mesh), "mesh");
  EXPECT_DOUBLE_EQ(lipschitz_bound(mesh), MeshSdfGrid::kLipschitz);
  EXPECT_NEAR(signed_distance(mesh, Vec3(0.0, 0.0, 0.11)), 0.01, 1e-6);
  EXPECT_NEAR(signed_distance(mesh, Vec3(0.0, 0.0, -0.05)), -0.05, 1e-6);
  EXPECT_TRUE(outward_normal(mesh, Vec3(0.13, 0.0, 0.0)).isApprox(Vec3::UnitX(), 1e-6));
  const Pose X_WB = make_pose(Vec3(1.0, 2.0, 0.5), 0.3, -0.2, 0.7);
  const Aabb bm = world_bounds(mesh, X_WB);
  const Aabb bb = world_bounds(box, X_WB);
  EXPECT_TRUE(bm.lo.isApprox(bb.lo, 1e-12));
  EXPECT_TRUE(bm.hi.isApprox(bb.hi, 1e-12));
  // The lowest point on vertical lines matches the exact box within the grid's accuracy.
  int hits = 0;
  for (double x = 0.85; x <= 1.15; x += 0.02) {
    for (double y = 1.85; y <= 2.15; y += 0.02) {
      const double zb = lowest_point_z(box, X_WB, x, y);
      const double zm = lowest_point_z(mesh, X_WB, x, y);
      if (std::isinf(zb)) {
        EXPECT_TRUE(std::isinf(zm) || zm > 0.3) << x << " " << y;  // grazing the corner only
        continue;
      }
      ++hits;
      EXPECT_NEAR(zm, zb, 0.01) << x << " " << y;
    }
  }
  EXPECT_GT(hits, 100);
  EXPECT_EQ(lowest_point_z(mesh, X_WB, 5.0, 5.0), std::numeric_limits<double>::infinity());
  const std::string msg = invalid_argument_of([] {
    validate(Shape(MeshShape{nullptr, "gone.stl"}));
  });
  EXPECT_NE(msg.find("mesh gone.stl: has no signed-distance grid"), std::string::npos);
}

}  // namespace
}  // namespace talus
