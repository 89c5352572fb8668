// Planning and assembling a wrench-space database from acquisition runs (paper 000, §III-B2 and
// §IV-A): zero depth needs no run, and the mirror phi -> -phi halves the runs.

// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <fmt/format.h>

#include <cmath>

#include "wrench/velocity_directions.hpp"
#include "wrench/wrench_database.hpp"

namespace talus::wrench {

namespace {

// For tilt index t: the index of -tilt on the grid when it is a run we can skip (tilt < 0 and
// its positive partner exists), else -1.
int mirror_source(const std::vector<double>& tilts, size_t t) {
  if (!(tilts[t] < 0.0)) return -1;
  for (size_t s = 0; s < tilts.size(); ++s) {
    if (std::abs(tilts[s] + tilts[t]) < 1e-12) return static_cast<int>(s);
  }
  return -1;
}

void check_spec(const AcquisitionSpec& spec) {
  if (spec.depths_m.empty() || spec.tilts_rad.empty()) {
    throw DatabaseError("acquisition: depths_m and tilts_rad must not be empty");
  }
  if (spec.velocity_directions.rows() == 0) {
    throw DatabaseError("acquisition: no velocity directions");
  }
  if (spec.depth_reference == DepthReference::kLowestPoint && !(spec.foot_radius_m > 0.0)) {
    throw DatabaseError("acquisition: depths at the lowest point need foot_radius_m > 0");
  }
  if (spec.velocity_scale.size() != spec.velocity_directions.cols()) {
    throw DatabaseError(fmt::format("acquisition: velocity_scale has {} entries, directions {}",
                                    spec.velocity_scale.size(), spec.velocity_directions.cols()));
  }
}

}  // namespace

std::vector<AcquisitionRun> planned_runs(const AcquisitionSpec& spec) {
  check_spec(spec);
  const Eigen::MatrixXd velocities =
      scaled_velocities(spec.velocity_directions, spec.velocity_scale);
  std::vector<AcquisitionRun> runs;
  int configuration = 0;
  for (const double depth : spec.depths_m) {
    for (size_t t = 0; t < spec.tilts_rad.size(); ++t, ++configuration) {
      if (depth == 0.0) continue;
      if (spec.use_symmetry && mirror_source(spec.tilts_rad, t) >= 0) continue;
      for (Eigen::Index i = 0; i < velocities.rows(); ++i) {
        runs.push_back(AcquisitionRun{configuration, static_cast<int>(i), depth, spec.tilts_rad[t],
                                      velocities.row(i).transpose(), spec.depth_reference,
                                      spec.foot_radius_m});
      }
    }
  }
  return runs;
}

WrenchDatabase acquire_database(const AcquisitionSpec& spec, const WrenchMeasurer& measure) {
  check_spec(spec);
  const auto m = spec.velocity_directions.rows();
  const auto D = spec.velocity_directions.cols();
  const Eigen::VectorXi partner =
      spec.use_symmetry ? mirror_partners(spec.velocity_directions) : Eigen::VectorXi();
  const size_t tilts = spec.tilts_rad.size();

  WrenchDatabase db;
  db.configurations.resize(static_cast<Eigen::Index>(spec.depths_m.size() * tilts), 2);
  db.velocity_directions = spec.velocity_directions;
  db.velocity_scale = spec.velocity_scale;
  db.reference_point_m = spec.reference_point_m;
  db.medium = spec.medium;
  db.depth_reference = spec.depth_reference;
  db.foot_radius_m = spec.foot_radius_m;
  db.wrenches.assign(spec.depths_m.size() * tilts, Eigen::MatrixXd::Zero(m, D));

  std::vector<AcquisitionRun> runs = planned_runs(spec);
  size_t next_run = 0;
  for (size_t di = 0; di < spec.depths_m.size(); ++di) {
    for (size_t t = 0; t < tilts; ++t) {
      const size_t j = di * tilts + t;
      db.configurations.row(static_cast<Eigen::Index>(j)) << spec.depths_m[di], spec.tilts_rad[t];
      if (spec.depths_m[di] == 0.0) continue;  // zero depth: zero wrench (paper §IV-A)
      if (spec.use_symmetry && mirror_source(spec.tilts_rad, t) >= 0) continue;  // filled below
      for (Eigen::Index i = 0; i < m; ++i) {
        const AcquisitionRun& run = runs[next_run++];
        const Eigen::VectorXd w = measure(run);
        if (w.size() != D || !w.allFinite()) {
          throw DatabaseError(fmt::format(
              "acquisition: run (d = {}, phi = {}, direction {}) returned {} components{}, "
              "expected {} finite ones",
              run.depth_m, run.tilt_rad, run.direction, w.size(),
              w.allFinite() ? "" : " with NaN/inf", D));
        }
        db.wrenches[j].row(i) = w.transpose();
      }
    }
  }
  if (spec.use_symmetry) {
    // w(d, -phi, i) = mirror(w(d, phi, partner(i))): moving in direction i at -phi is the mirror
    // image of moving in the mirrored direction at +phi.
    for (size_t di = 0; di < spec.depths_m.size(); ++di) {
      for (size_t t = 0; t < tilts; ++t) {
        const int source = mirror_source(spec.tilts_rad, t);
        if (spec.depths_m[di] == 0.0 || source < 0) continue;
        const auto& from = db.wrenches[di * tilts + static_cast<size_t>(source)];
        auto& to = db.wrenches[di * tilts + t];
        for (Eigen::Index i = 0; i < m; ++i) {
          to.row(i) = mirror_x(from.row(partner[i]).transpose()).transpose();
        }
      }
    }
  }
  db.validate("acquisition");
  return db;
}

Eigen::VectorXd acquisition_start(const Eigen::VectorXd& target, const Eigen::VectorXd& velocity,
                                  double duration_s) {
  if (target.size() != velocity.size()) {
    throw DatabaseError(fmt::format("acquisition_start: target has {} entries, velocity {}",
                                    target.size(), velocity.size()));
  }
  if (!(duration_s > 0.0)) {
    throw DatabaseError(fmt::format("acquisition_start: duration {} s, expected > 0", duration_s));
  }
  return target - 0.8 * duration_s * velocity;
}

}  // namespace talus::wrench
