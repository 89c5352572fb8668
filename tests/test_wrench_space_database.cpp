// Tests of the wrench-space database: HDF5 round trip and checks, CSV import, velocity direction
// sets, the phi mirror symmetry and the acquisition plan (wrench/wrench_database.hpp,
// wrench/velocity_directions.hpp).

// GCC 12 reports -Wmaybe-uninitialized / -Warray-bounds inside Eigen's AVX-512 kernels under
// -march=native (GCC bug 105593, false positives in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_database.hpp"

namespace talus::wrench {
namespace {

namespace fs = std::filesystem;

fs::path temp_path(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("talus_wrench_db_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  return dir / name;
}

MediumDescription sand() { return MediumDescription{"sand", 0.002, 2650.0, 0.5, "unit test"}; }

// A fake measurer: resistance grows with depth against the velocity. Mirror symmetric by
// construction: w(d, -phi, v) = mirror_x(w(d, phi, mirror_x(v))).
Eigen::VectorXd fake_wrench(const AcquisitionRun& run) {
  const double k = 1000.0 * -run.depth_m;
  const Eigen::Vector3d v = run.velocity;  // (v_x, v_z, omega_y)
  const double s = std::sin(run.tilt_rad);
  const double c = std::cos(run.tilt_rad);
  // The sin(phi) terms are odd in phi and couple x to z, so a wrong mirror shows.
  return Eigen::Vector3d(-k * v[0] * (1.0 + 0.3 * c * v[1]) + 0.2 * k * s * v[1],
                         -k * v[1] * (1.0 + 0.1 * c) + k * s * v[0],
                         -k * v[2] - 0.25 * k * v[0] * c + 0.1 * k * s);
}

AcquisitionSpec small_spec() {
  AcquisitionSpec spec;
  spec.depths_m = {0.0, -0.01, -0.03};
  spec.tilts_rad = {-0.6, -0.3, 0.0, 0.3, 0.6};
  spec.velocity_directions = velocity_directions(26);
  spec.velocity_scale = Eigen::Vector3d(0.02, 0.02, 0.3);
  spec.medium = sand();
  return spec;
}

TEST(WrenchSpaceDirections, CubeAndSphericalSetsHaveTheDocumentedCountsAndAreUnit) {
  const Eigen::MatrixXd cube = velocity_directions(26);
  const Eigen::MatrixXd sphere = velocity_directions(58);
  ASSERT_EQ(cube.rows(), 26);
  ASSERT_EQ(sphere.rows(), 58);
  EXPECT_EQ(spherical_grid_directions(3, 8).rows(), 26);
  for (const Eigen::MatrixXd* set : {&cube, &sphere}) {
    for (Eigen::Index i = 0; i < set->rows(); ++i) {
      EXPECT_NEAR(set->row(i).norm(), 1.0, 1e-12);
      for (Eigen::Index j = 0; j < i; ++j) EXPECT_GT((set->row(i) - set->row(j)).norm(), 0.1);
    }
    // Balanced on the sphere: the directions sum to zero.
    EXPECT_LT(set->colwise().sum().norm(), 1e-12);
  }
  // Cube: 6 axis directions, 12 with two non-zero components, 8 corners.
  int faces = 0, edges = 0, corners = 0;
  for (Eigen::Index i = 0; i < 26; ++i) {
    const long nonzero = (cube.row(i).array().abs() > 1e-12).count();
    (nonzero == 1 ? faces : nonzero == 2 ? edges : corners)++;
  }
  EXPECT_EQ(faces, 6);
  EXPECT_EQ(edges, 12);
  EXPECT_EQ(corners, 8);
  EXPECT_THROW(velocity_directions(30), std::invalid_argument);
  const Eigen::MatrixXd v = scaled_velocities(cube, Eigen::Vector3d(0.02, 0.02, 0.3));
  EXPECT_NEAR(v.col(2).cwiseAbs().maxCoeff(), 0.3, 1e-15);
}

TEST(WrenchSpaceDirections, MirrorFlipsForceXAndTheTorquesLikeACrossProduct) {
  // Planar: (f_x, f_z, tau_y) -> (-f_x, f_z, -tau_y), as the paper states.
  EXPECT_EQ(mirror_x(Eigen::Vector3d(1, 2, 3)), Eigen::Vector3d(-1, 2, -3));
  // Spatial: derive from tau = r x f with the mirrored r and f (S = diag(-1, 1, 1)).
  std::mt19937 rng(1);
  std::normal_distribution<double> normal;
  const Eigen::Matrix3d S = Eigen::Vector3d(-1, 1, 1).asDiagonal();
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector3d r(normal(rng), normal(rng), normal(rng));
    const Eigen::Vector3d f(normal(rng), normal(rng), normal(rng));
    // Element-wise fills: Eigen's comma initialiser of fixed 3-vectors into a 6-vector trips a
    // GCC 12 -Warray-bounds false positive in the AVX-512 kernels.
    const Eigen::Vector3d tau = r.cross(f);
    const Eigen::Vector3d f_m = S * f;
    const Eigen::Vector3d tau_m = (S * r).cross(S * f);
    Eigen::VectorXd w(6);
    Eigen::VectorXd expected(6);
    for (int k = 0; k < 3; ++k) {
      w[k] = f[k];
      w[3 + k] = tau[k];
      expected[k] = f_m[k];
      expected[3 + k] = tau_m[k];
    }
    EXPECT_LT((mirror_x(w) - expected).norm(), 1e-12);
    // The planar case is the x-z slice with tau_y.
    const Eigen::Vector3d r_p(r.x(), 0.0, r.z());
    const Eigen::Vector3d f_p(f.x(), 0.0, f.z());
    const Eigen::Vector3d m = (S * r_p).cross(S * f_p);
    EXPECT_LT((mirror_x(Eigen::Vector3d(f_p.x(), f_p.z(), r_p.cross(f_p).y())) -
               Eigen::Vector3d(-f_p.x(), f_p.z(), m.y()))
                  .norm(),
              1e-12);
  }
  EXPECT_THROW(mirror_x(Eigen::Vector4d::Zero()), std::invalid_argument);
  // Both direction sets are closed under the mirror; partners are involutions.
  for (const int m : {26, 58}) {
    const Eigen::MatrixXd dirs = velocity_directions(m);
    const Eigen::VectorXi partner = mirror_partners(dirs);
    for (Eigen::Index i = 0; i < m; ++i) EXPECT_EQ(partner[partner[i]], i);
  }
  Eigen::MatrixXd lopsided(1, 3);
  lopsided << 1, 0, 0;
  EXPECT_THROW(mirror_partners(lopsided), std::invalid_argument);
}

TEST(WrenchSpaceAcquisition, ZeroDepthAndSymmetryHalveTheRuns) {
  AcquisitionSpec spec = small_spec();
  int calls = 0;
  const WrenchDatabase db = acquire_database(spec, [&](const AcquisitionRun& run) {
    ++calls;
    EXPECT_LT(run.depth_m, 0.0);
    EXPECT_GE(run.tilt_rad, 0.0);
    return fake_wrench(run);
  });
  // 2 non-zero depths x 3 non-negative tilts x 26 directions.
  EXPECT_EQ(calls, 2 * 3 * 26);
  EXPECT_EQ(static_cast<int>(planned_runs(spec).size()), calls);
  ASSERT_EQ(db.configuration_count(), 15);
  // Zero depth: zero wrenches.
  for (int t = 0; t < 5; ++t) EXPECT_EQ(db.wrenches[static_cast<size_t>(t)].norm(), 0.0);
  // Mirrored configurations equal what the (symmetric) measurer gives directly.
  const Eigen::MatrixXd velocities =
      scaled_velocities(spec.velocity_directions, spec.velocity_scale);
  for (int j = 0; j < db.configuration_count(); ++j) {
    for (int i = 0; i < 26; ++i) {
      AcquisitionRun run{j, i, db.configurations(j, 0), db.configurations(j, 1),
                         velocities.row(i).transpose()};
      const Eigen::VectorXd expected =
          run.depth_m == 0.0 ? Eigen::VectorXd::Zero(3) : fake_wrench(run);
      EXPECT_LT((db.wrenches[static_cast<size_t>(j)].row(i).transpose() - expected).norm(), 1e-9)
          << "configuration " << j << " direction " << i;
    }
  }
  spec.use_symmetry = false;
  EXPECT_EQ(planned_runs(spec).size(), 2u * 5u * 26u);
}

TEST(WrenchSpaceAcquisition, PathStartsSoThatTheTargetIsPassedAtEightTenths) {
  const Eigen::Vector3d target(0.0, -0.03, 0.3);
  const Eigen::Vector3d v(0.014, -0.014, 0.0);
  const Eigen::VectorXd start = acquisition_start(target, v, 5.0);
  EXPECT_LT((start + 0.8 * 5.0 * v - target).norm(), 1e-15);
  EXPECT_THROW(acquisition_start(target, v, 0.0), DatabaseError);
}

TEST(WrenchSpaceDatabase, Hdf5RoundTripKeepsEveryField) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("sand.h5");
  save_database(db, path);
  const WrenchDatabase back = load_database(path);
  EXPECT_EQ(back.configurations, db.configurations);
  EXPECT_EQ(back.velocity_directions, db.velocity_directions);
  EXPECT_EQ(back.velocity_scale, db.velocity_scale);
  ASSERT_EQ(back.wrenches.size(), db.wrenches.size());
  for (size_t j = 0; j < db.wrenches.size(); ++j) EXPECT_EQ(back.wrenches[j], db.wrenches[j]);
  EXPECT_EQ(back.reference_point_m, db.reference_point_m);
  EXPECT_EQ(back.medium.name, "sand");
  EXPECT_EQ(back.medium.source, "unit test");
  EXPECT_EQ(back.medium.grain_radius_m, 0.002);
  EXPECT_EQ(back.medium.density_kg_m3, 2650.0);
  EXPECT_EQ(back.medium.friction, 0.5);
  fs::remove_all(path.parent_path());
}

TEST(WrenchSpaceDatabase, DepthsAtTheLowestPointConvertToTheBottomCentreAndBack) {
  const double r = 0.04;
  // Upright: both points at one depth; on its side the bottom centre is a radius higher.
  EXPECT_EQ(configuration_depth(DepthReference::kLowestPoint, r, -0.01, 0.0), -0.01);
  EXPECT_NEAR(configuration_depth(DepthReference::kLowestPoint, r, 0.01, M_PI / 2), -0.03, 1e-15);
  EXPECT_NEAR(configuration_depth(DepthReference::kLowestPoint, r, 0.01, -M_PI / 2), -0.03, 1e-15);
  EXPECT_EQ(configuration_depth(DepthReference::kBottomCentre, r, 0.01, M_PI / 2), 0.01);
  for (const double tilt : {-1.2, -0.3, 0.0, 0.6, 1.5}) {
    EXPECT_NEAR(bottom_centre_depth(
                    DepthReference::kLowestPoint, r,
                    configuration_depth(DepthReference::kLowestPoint, r, -0.02, tilt), tilt),
                -0.02, 1e-15);
  }
  EXPECT_STREQ(depth_reference_name(DepthReference::kLowestPoint), "lowest_point");
  EXPECT_STREQ(depth_reference_name(DepthReference::kBottomCentre), "bottom_centre");
  for (const DepthReference reference :
       {DepthReference::kBottomCentre, DepthReference::kLowestPoint}) {
    EXPECT_EQ(parse_depth_reference(depth_reference_name(reference)), reference);
  }
  EXPECT_FALSE(parse_depth_reference("Lowest_point").has_value());
  EXPECT_FALSE(parse_depth_reference("").has_value());
}

TEST(WrenchSpaceAcquisition, RunsAtLowestPointDepthsPoseTheFootByItsBottomCentre) {
  AcquisitionSpec spec = small_spec();
  spec.depth_reference = DepthReference::kLowestPoint;
  spec.foot_radius_m = 0.04;
  const std::vector<AcquisitionRun> runs = planned_runs(spec);
  ASSERT_FALSE(runs.empty());
  for (const AcquisitionRun& run : runs) {
    EXPECT_NEAR(run.bottom_centre_depth_m(), run.depth_m + 0.04 * std::sin(std::abs(run.tilt_rad)),
                1e-15);
  }
  const WrenchDatabase db = acquire_database(spec, fake_wrench);
  EXPECT_EQ(db.depth_reference, DepthReference::kLowestPoint);
  EXPECT_EQ(db.foot_radius_m, 0.04);
  // Without a radius the lowest point is unknown: refused.
  spec.foot_radius_m = 0.0;
  EXPECT_THROW(planned_runs(spec), DatabaseError);
}

TEST(WrenchSpaceDatabase, TheDepthReferenceRoundTripsAndVersionOneFilesMeanTheBottomCentre) {
  AcquisitionSpec spec = small_spec();
  spec.depth_reference = DepthReference::kLowestPoint;
  spec.foot_radius_m = 0.04;
  const WrenchDatabase db = acquire_database(spec, fake_wrench);
  const fs::path path = temp_path("lowest.h5");
  save_database(db, path);
  const WrenchDatabase back = load_database(path);
  EXPECT_EQ(back.depth_reference, DepthReference::kLowestPoint);
  EXPECT_EQ(back.foot_radius_m, 0.04);
  // A version 1 file (written before the depth reference existed) has neither attribute.
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    H5Adelete(file, "depth_reference");
    H5Adelete(file, "foot_radius_m");
    const hid_t attr = H5Aopen(file, "format_version", H5P_DEFAULT);
    const int one = 1;
    H5Awrite(attr, H5T_NATIVE_INT, &one);
    H5Aclose(attr);
    H5Fclose(file);
  }
  const WrenchDatabase old = load_database(path);
  EXPECT_EQ(old.depth_reference, DepthReference::kBottomCentre);
  EXPECT_EQ(old.foot_radius_m, 0.0);
  EXPECT_EQ(old.configurations, db.configurations);
  fs::remove_all(path.parent_path());
}

// Rewrites one part of a saved file with the HDF5 C API, to test the loader's checks.
void delete_object(const fs::path& path, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Ldelete(file, name, H5P_DEFAULT);
  H5Fclose(file);
}

void expect_load_error(const fs::path& path, const std::string& needle) {
  try {
    load_database(path);
    FAIL() << "expected an error mentioning " << needle;
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

// Replaces dataset `name` of a saved database by one of `file_type`, shape `dims` and creation
// properties `create_plist` (chunked data is made extendible, as h5py's maxshape=None makes it),
// holding `values` (of `memory_type`) unless `values` is null.
void replace_dataset(const fs::path& path, const char* name, hid_t file_type,
                     const std::vector<hsize_t>& dims, hid_t create_plist, hid_t memory_type,
                     const void* values) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(file, name, H5P_DEFAULT);
  const std::vector<hsize_t> unlimited(dims.size(), H5S_UNLIMITED);
  const bool chunked = H5Pget_layout(create_plist) == H5D_CHUNKED;
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(),
                                       chunked ? unlimited.data() : nullptr);
  const hid_t set =
      H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, create_plist, H5P_DEFAULT);
  if (values != nullptr) H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
}

TEST(WrenchSpaceDatabase, LoadNamesTheMissingOrInconsistentField) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("broken.h5");
  for (const char* name : {"wrenches", "configurations", "velocity_directions", "medium"}) {
    save_database(db, path);
    delete_object(path, name);
    expect_load_error(path, std::string(name) + ": missing");
  }
  // Inconsistent shapes: wrenches of another database with fewer directions.
  save_database(db, path);
  const std::vector<double> zeros(15 * 25 * 3, 0.0);
  replace_dataset(path, "wrenches", H5T_IEEE_F64LE, {15, 25, 3}, H5P_DEFAULT, H5T_NATIVE_DOUBLE,
                  zeros.data());
  expect_load_error(path, "wrenches: shape 15x25x3, expected 15x26x3");
  // Version.
  save_database(db, path);
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t attr = H5Aopen(file, "format_version", H5P_DEFAULT);
    const int future = 99;
    H5Awrite(attr, H5T_NATIVE_INT, &future);
    H5Aclose(attr);
    H5Fclose(file);
  }
  expect_load_error(path, "format_version: 99 is not supported");
  save_database(db, path);
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(file, "depth_reference");
    H5Fclose(file);
  }
  expect_load_error(path, "depth_reference: missing attribute");
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 6);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(file, "depth_reference", type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, "middle");
    H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(file);
  }
  expect_load_error(path, "depth_reference: \"middle\", expected \"bottom_centre\" or");
  {
    std::ofstream junk(path);
    junk << "not hdf5\n";
  }
  expect_load_error(path, "not an HDF5 file");
  fs::remove_all(path.parent_path());
}

// Found by fuzz/fuzz_wrench_database: a corrupted file for which HDF5 asks for a 1 TB buffer.
// The allocation fails (under AddressSanitizer: allocator_may_return_null=1, set by `make asan`
// and scripts/fuzz.sh) and the load must end in a DatabaseError naming the file, not a crash.
TEST(WrenchSpaceDatabase, FuzzFoundHugeAllocationIsRefused) {
  const fs::path path =
      fs::path(TALUS_SOURCE_DIR) / "tests/data/fuzz/wrench_database_huge_allocation.h5";
  try {
    load_database(path);
    FAIL() << "expected a DatabaseError";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

// Found by fuzz/fuzz_wrench_database: a corrupted dataset shape claiming 1.2e17 values used to
// reach std::vector's allocation (out of memory); it is refused before anything is allocated.
TEST(WrenchSpaceDatabase, FuzzFoundHugeShapeIsRefusedBeforeAllocating) {
  const fs::path path =
      fs::path(TALUS_SOURCE_DIR) / "tests/data/fuzz/wrench_database_huge_shape.h5";
  expect_load_error(path, "more than this machine's memory allows; the file is corrupted");
}

// Found by fuzz/fuzz_wrench_database: a 15 kB file whose dataset shape claims 3.2 GB of values;
// contiguous data must lie in the file, so the shape is refused before the allocation.
TEST(WrenchSpaceDatabase, FuzzFoundShapeBeyondTheStoredBytesIsRefused) {
  const fs::path path =
      fs::path(TALUS_SOURCE_DIR) / "tests/data/fuzz/wrench_database_shape_beyond_storage.h5";
  expect_load_error(path, "the file is corrupted");
}

// Replaces the saved database's wrenches dataset (n x m x 3) by one created with `create_plist`
// (chunking, filters), holding the database's own values unless `write` is false.
void rewrite_wrenches(const fs::path& path, const WrenchDatabase& db, hid_t create_plist,
                      bool write) {
  std::vector<double> values;
  for (const Eigen::MatrixXd& w : db.wrenches) {
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
      for (Eigen::Index k = 0; k < w.cols(); ++k) values.push_back(w(i, k));
    }
  }
  replace_dataset(path, "wrenches", H5T_IEEE_F64LE,
                  {static_cast<hsize_t>(db.configuration_count()),
                   static_cast<hsize_t>(db.direction_count()), 3},
                  create_plist, H5T_NATIVE_DOUBLE, write ? values.data() : nullptr);
}

// Files written by other tools may be chunked and compressed with gzip (h5py's
// compression="gzip"): they load as written.
TEST(WrenchSpaceDatabase, GzipCompressedChunkedDataLoads) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("gzip.h5");
  save_database(db, path);
  const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
  const hsize_t chunk[3] = {4, 26, 3};
  H5Pset_chunk(plist, 3, chunk);
  H5Pset_shuffle(plist);
  H5Pset_deflate(plist, 6);
  rewrite_wrenches(path, db, plist, true);
  H5Pclose(plist);
  const WrenchDatabase loaded = load_database(path);
  ASSERT_EQ(loaded.wrenches.size(), db.wrenches.size());
  for (size_t j = 0; j < db.wrenches.size(); ++j) {
    EXPECT_EQ(loaded.wrenches[j], db.wrenches[j]) << "configuration " << j;
  }
  fs::remove_all(path.parent_path());
}

// Found by fuzz/fuzz_wrench_database in CI: inputs of a few kilobytes made the loader allocate
// over 4 GB for chunked data the file does not hold. A dataset whose chunks were never written
// is refused before anything is allocated for it, and so is a filter talus cannot bound.
TEST(WrenchSpaceDatabase, DataTheFileDoesNotHoldIsRefusedBeforeAllocating) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("unwritten.h5");
  save_database(db, path);
  const hid_t chunked = H5Pcreate(H5P_DATASET_CREATE);
  const hsize_t chunk[3] = {1, 26, 3};
  H5Pset_chunk(chunked, 3, chunk);
  rewrite_wrenches(path, db, chunked, false);
  expect_load_error(path, "wrenches: the file stores no data for some of its values");
  H5Pset_nbit(chunked);
  save_database(db, path);
  rewrite_wrenches(path, db, chunked, true);
  expect_load_error(path, "wrenches: stored with HDF5 filter 5, which talus does not read");
  H5Pclose(chunked);
  fs::remove_all(path.parent_path());
}

// Numbers must be stored as one of HDF5's standard types: an unusual one (here a 32-bit integer
// with 20 bits of precision) is refused before HDF5's conversion code reads it.
TEST(WrenchSpaceDatabase, NumbersOfAnUnusualTypeAreRefused) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("types.h5");
  save_database(db, path);
  const hid_t odd = H5Tcopy(H5T_STD_I32LE);
  ASSERT_GE(H5Tset_precision(odd, 20), 0);
  const int scale[3] = {1, 1, 3};
  replace_dataset(path, "velocity_scale", odd, {3}, H5P_DEFAULT, H5T_NATIVE_INT, scale);
  H5Tclose(odd);
  expect_load_error(path, "velocity_scale: expected numbers (IEEE 32- or 64-bit floats");
  fs::remove_all(path.parent_path());
}

// Found by fuzz/fuzz_wrench_database: a dataset of 0 x 10^18 values holds nothing, but the loops
// over its rows ran for ever. Empty datasets are refused.
TEST(WrenchSpaceDatabase, AnEmptyDatasetIsRefused) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("empty.h5");
  save_database(db, path);
  replace_dataset(path, "velocity_directions", H5T_IEEE_F64LE, {hsize_t{1} << 60, 0}, H5P_DEFAULT,
                  H5T_NATIVE_DOUBLE, nullptr);
  expect_load_error(path, "velocity_directions: holds no values (a dimension is 0)");
  fs::remove_all(path.parent_path());
}

// An attribute is read into one value: one that holds several is refused, not read past the end.
TEST(WrenchSpaceDatabase, AnAttributeHoldingSeveralValuesIsRefused) {
  const WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  const fs::path path = temp_path("attribute.h5");
  save_database(db, path);
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(file, "format_version");
    const hsize_t count = 1000;
    const hid_t space = H5Screate_simple(1, &count, nullptr);
    const hid_t attr =
        H5Acreate2(file, "format_version", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const std::vector<int> versions(count, 1);
    H5Awrite(attr, H5T_NATIVE_INT, versions.data());
    H5Aclose(attr);
    H5Sclose(space);
    H5Fclose(file);
  }
  expect_load_error(path, "format_version: expected one value, the attribute holds 1000");
  fs::remove_all(path.parent_path());
}

TEST(WrenchSpaceDatabase, ValidateRejectsInconsistentData) {
  WrenchDatabase db = acquire_database(small_spec(), fake_wrench);
  WrenchDatabase bad = db;
  bad.configurations(3, 0) = 0.01;
  EXPECT_THROW(bad.validate("x"), DatabaseError);
  bad = db;
  bad.configurations.row(4) = bad.configurations.row(3);
  EXPECT_THROW(bad.validate("x"), DatabaseError);
  bad = db;
  bad.velocity_directions(0, 0) *= 2.0;
  EXPECT_THROW(bad.validate("x"), DatabaseError);
  bad = db;
  bad.wrenches.pop_back();
  EXPECT_THROW(bad.validate("x"), DatabaseError);
  bad = db;
  bad.medium.grain_radius_m = 0.0;
  try {
    bad.validate("x");
    FAIL();
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("medium.grain_radius_m"), std::string::npos);
  }
  bad = db;
  bad.depth_reference = DepthReference::kLowestPoint;  // but no foot radius
  try {
    bad.validate("x");
    FAIL();
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("foot_radius_m"), std::string::npos) << e.what();
  }
  bad.foot_radius_m = 0.04;
  EXPECT_NO_THROW(bad.validate("x"));
  EXPECT_NO_THROW(db.validate("x"));
}

TEST(WrenchSpaceDatabase, ImportsSensorCsvAndReportsFileAndLine) {
  const fs::path path = temp_path("sensor.csv");
  const Eigen::MatrixXd dirs = velocity_directions(26);
  {
    std::ofstream csv(path);
    csv << "# Robosimian foot in sand\n";
    csv << "depth_m,tilt_rad,v_x,v_z,omega_y,f_x,f_z,tau_y\n";
    for (const double depth : {-0.01, -0.03}) {
      for (Eigen::Index i = 25; i >= 0; --i) {  // any order within a configuration
        csv << depth << ",0.3," << dirs(i, 0) << "," << dirs(i, 1) << "," << dirs(i, 2) << ","
            << 10.0 * static_cast<double>(i) << ",-5,0.5\n";
      }
    }
  }
  const Eigen::Vector3d scale(0.02, 0.02, 0.3);
  const WrenchDatabase db = import_csv(path, sand(), scale);
  EXPECT_EQ(db.configuration_count(), 2);
  EXPECT_EQ(db.direction_count(), 26);
  EXPECT_EQ(db.wrench_dimension(), 3);
  // First configuration's order is kept: row 0 is the file's first direction (index 25).
  EXPECT_LT((db.velocity_directions.row(0) - dirs.row(25)).norm(), 1e-6);
  EXPECT_NEAR(db.wrenches[1](0, 0), 250.0, 1e-12);

  auto expect_csv_error = [&](const std::string& body, const std::string& needle) {
    {
      std::ofstream csv(path);
      csv << body;
    }
    try {
      import_csv(path, sand(), scale);
      FAIL() << "expected " << needle;
    } catch (const DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const std::string header = "depth_m,tilt_rad,v_x,v_z,omega_y,f_x,f_z,tau_y\n";
  expect_csv_error("depth,tilt\n", ":1: header must be");
  expect_csv_error(header + "-0.01,0,1,0,0,1,2\n", ":2: 7 fields, the header has 8");
  expect_csv_error(header + "-0.01,0,1,0,0,1,abc,3\n", ":2: f_z: expected a finite number");
  expect_csv_error(header + "-0.01,0,2,0,0,1,2,3\n", ":2: the velocity columns have norm 2");
  expect_csv_error(header + "0.01,0,1,0,0,1,2,3\n", ":2: depth_m: 0.01 > 0");
  expect_csv_error(header + "-0.01,0,1,0,0,1,2,3\n-0.01,0,1,0,0,1,2,3\n",
                   ":3: direction repeats line 2");
  expect_csv_error(header + "-0.01,0,1,0,0,1,2,3\n-0.01,0,0,1,0,1,2,3\n-0.02,0,1,0,0,1,2,3\n",
                   "lacks direction 1 of line 3");
  expect_csv_error(header + "-0.01,0,1,0,0,1,2,3\n-0.02,0,0,1,0,1,2,3\n",
                   ":3: direction not measured at the first configuration");
  expect_csv_error(header, "no measurements");
  fs::remove_all(path.parent_path());
}

}  // namespace
}  // namespace talus::wrench
