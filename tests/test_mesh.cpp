// Mesh loading (STL ascii and binary, OBJ) and the closedness check.

#include <gtest/gtest.h>

#include "core/mesh.hpp"
#include "core/mesh_sdf.hpp"
#include "core/scenario_bodies.hpp"
#include "error_message.hpp"
#include "mesh_fixtures.hpp"
#include "scratch_files.hpp"

namespace talus {
namespace {

using test_support::invalid_argument_of;
using test_support::mesh_data;

std::string mesh_runtime_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

void expect_unit_cube(const TriangleMesh& m, double scale) {
  EXPECT_EQ(m.vertices_m.size(), 8u);  // STL's 36 corners joined to 8
  EXPECT_EQ(m.triangles.size(), 12u);
  const auto b = m.bounds();
  EXPECT_TRUE(b[0].isApprox(Vec3::Zero()));
  EXPECT_TRUE(b[1].isApprox(Vec3::Constant(scale)));
  EXPECT_NEAR(m.signed_volume(), scale * scale * scale, 1e-12);
  EXPECT_TRUE(check_closedness(m).closed());
}

TEST(MeshLoad, AsciiStlCubeJoinsCorners) { expect_unit_cube(load_mesh(mesh_data("cube.stl")), 1); }

TEST(MeshLoad, BinaryStlCube) { expect_unit_cube(load_mesh(mesh_data("cube_binary.stl")), 1); }

TEST(MeshLoad, ObjQuadsAreTriangulated) {
  expect_unit_cube(load_mesh(mesh_data("cube_quads.obj")), 1);
}

TEST(MeshLoad, ScaleConvertsToMetres) {
  expect_unit_cube(load_mesh(mesh_data("cube.stl"), 0.001), 0.001);
}

TEST(MeshLoad, ErrorsNameTheFile) {
  const std::string missing =
      mesh_runtime_error_of([] { load_mesh(mesh_data("no_such_mesh.stl")); });
  EXPECT_NE(missing.find("no_such_mesh.stl"), std::string::npos) << missing;
  EXPECT_NE(missing.find("no such file"), std::string::npos) << missing;
  const std::string junk = mesh_runtime_error_of([] { load_mesh(mesh_data("../CMakeLists.txt")); });
  EXPECT_NE(junk.find("CMakeLists.txt"), std::string::npos) << junk;
  const std::string scale = invalid_argument_of([] { load_mesh(mesh_data("cube.stl"), -1.0); });
  EXPECT_NE(scale.find("scale must be finite and > 0"), std::string::npos) << scale;
}

TEST(MeshLoad, AFolderIsNotAMesh) {
  const std::string folder = mesh_runtime_error_of([] { load_mesh(mesh_data("..")); });
  EXPECT_NE(folder.find("is a folder, expected a mesh file"), std::string::npos) << folder;
}

TEST(MeshLoad, ANonFiniteVertexIsNamed) {
  testing_files::ScratchDir scratch;
  const auto stl = scratch.path() / "nan.stl";
  testing_files::write_text(stl,
                            "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"
                            "vertex 1 0 0\nvertex nan 1 0\nendloop\nendfacet\nendsolid t\n");
  const std::string message = mesh_runtime_error_of([&] { load_mesh(stl); });
  EXPECT_NE(message.find("nan.stl"), std::string::npos) << message;
  EXPECT_NE(message.find("is not finite"), std::string::npos) << message;
}

TEST(MeshClosedness, OpenBoxIsRefusedWithItsBoundaryEdges) {
  TriangleMesh m = load_mesh(mesh_data("open_box.obj"));
  const ClosednessReport r = check_closedness(m);
  EXPECT_EQ(r.boundary_edges, 4u);
  EXPECT_EQ(r.non_manifold_edges, 0u);
  EXPECT_EQ(r.misoriented_edges, 0u);
  // Every boundary edge lies on the missing top face (z = 1).
  EXPECT_EQ(r.example_edge[0].z(), 1.0);
  EXPECT_EQ(r.example_edge[1].z(), 1.0);
  const std::string msg = invalid_argument_of([&] { require_closed(m, "open_box.obj"); });
  EXPECT_NE(msg.find("mesh open_box.obj: is not closed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4 boundary edges"), std::string::npos) << msg;
  EXPECT_NE(msg.find("e.g. the edge from ("), std::string::npos) << msg;
}

TEST(MeshClosedness, NonManifoldEdgeIsCounted) {
  TriangleMesh m = load_mesh(mesh_data("non_manifold.obj"));
  const ClosednessReport r = check_closedness(m);
  EXPECT_EQ(r.non_manifold_edges, 1u);
  EXPECT_EQ(r.boundary_edges, 2u);
  const std::string msg = invalid_argument_of([&] { require_closed(m, "nm"); });
  EXPECT_NE(msg.find("1 non-manifold edges"), std::string::npos) << msg;
}

TEST(MeshClosedness, FlippedTriangleIsMisoriented) {
  TriangleMesh m = load_mesh(mesh_data("cube.stl"));
  std::swap(m.triangles[0][1], m.triangles[0][2]);
  const ClosednessReport r = check_closedness(m);
  EXPECT_EQ(r.misoriented_edges, 3u);
  EXPECT_EQ(r.boundary_edges, 0u);
  EXPECT_NE(invalid_argument_of([&] { require_closed(m, "x"); }).find("3 misoriented edges"),
            std::string::npos);
}

TEST(MeshClosedness, InsideOutMeshIsTurnedOutward) {
  TriangleMesh m = load_mesh(mesh_data("cube.stl"));
  for (auto& t : m.triangles) std::swap(t[1], t[2]);
  EXPECT_LT(m.signed_volume(), 0.0);
  require_closed(m, "inside-out cube");
  EXPECT_NEAR(m.signed_volume(), 1.0, 1e-12);
}

TEST(MeshClosedness, BadIndexIsReported) {
  TriangleMesh m;
  m.vertices_m = {Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY()};
  m.triangles = {{0, 1, 5}};
  EXPECT_NE(invalid_argument_of([&] { check_closedness(m); }).find("triangle 0 indexes vertex 5"),
            std::string::npos);
}

std::string scenario_error_of(const std::string& toml) {
  try {
    // The document stands for a file in tests/data, so mesh paths resolve there.
    const auto doc = ScenarioDocument::parse(toml, mesh_data("scenario.toml"));
    read_shape(doc->root().table("shape"));
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(MeshScenario, ReadsAMeshShapeRelativeToTheFile) {
  const auto doc = ScenarioDocument::parse(
      "[shape]\nkind = \"mesh\"\nfile = \"cube.stl\"\nscale = 0.1\nsdf_cell_m = 0.01\n",
      mesh_data("scenario.toml"));
  const Shape shape = read_shape(doc->root().table("shape"));
  ASSERT_TRUE(std::holds_alternative<MeshShape>(shape));
  const MeshShape& m = std::get<MeshShape>(shape);
  EXPECT_DOUBLE_EQ(m.sdf->cell_m(), 0.01);
  EXPECT_TRUE(m.sdf->mesh_bounds()[1].isApprox(Vec3::Constant(0.1)));
  EXPECT_NEAR(signed_distance(shape, Vec3(0.05, 0.05, 0.05)), -0.05, 1e-6);
}

TEST(MeshScenario, OpenMeshAndBadKeysAreReportedAtTheirPlace) {
  const std::string open =
      scenario_error_of("[shape]\nkind = \"mesh\"\nfile = \"open_box.obj\"\nsdf_cell_m = 0.1\n");
  EXPECT_NE(open.find("scenario.toml:3:"), std::string::npos) << open;
  EXPECT_NE(open.find("shape.file"), std::string::npos) << open;
  EXPECT_NE(open.find("4 boundary edges"), std::string::npos) << open;
  const std::string cell =
      scenario_error_of("[shape]\nkind = \"mesh\"\nfile = \"cube.stl\"\nsdf_cell_m = -1\n");
  EXPECT_NE(cell.find("shape.sdf_cell_m"), std::string::npos) << cell;
  const std::string missing =
      scenario_error_of("[shape]\nkind = \"mesh\"\nfile = \"nope.stl\"\nsdf_cell_m = 0.1\n");
  EXPECT_NE(missing.find("nope.stl: no such file"), std::string::npos) << missing;
}

}  // namespace
}  // namespace talus
