// GCC 12 reports -Wmaybe-uninitialized inside Eigen's AVX-512 matrix-product kernels under
// -march=native (GCC bug 105593, a false positive in <avx512fintrin.h>); silenced for this file.
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning (the fuzz build)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "wrench/velocity_directions.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/units.hpp"

namespace talus::wrench {

Eigen::MatrixXd cube_directions() {
  Eigen::MatrixXd out(26, 3);
  int row = 0;
  for (int a = -1; a <= 1; ++a) {
    for (int b = -1; b <= 1; ++b) {
      for (int c = -1; c <= 1; ++c) {
        if (a == 0 && b == 0 && c == 0) continue;
        out.row(row++) = Eigen::RowVector3d(a, b, c).normalized();
      }
    }
  }
  return out;
}

Eigen::MatrixXd spherical_grid_directions(int rings, int longitudes) {
  if (rings < 1 || longitudes < 1) {
    throw std::invalid_argument(fmt::format(
        "spherical grid: need rings >= 1 and longitudes >= 1, got {} and {}", rings, longitudes));
  }
  Eigen::MatrixXd out(2 + rings * longitudes, 3);
  int row = 0;
  out.row(row++) << 0.0, 1.0, 0.0;  // +v_z pole
  for (int k = 1; k <= rings; ++k) {
    const double polar = kPi * k / (rings + 1);
    for (int l = 0; l < longitudes; ++l) {
      const double azimuth = 2.0 * kPi * l / longitudes;
      out.row(row++) << std::sin(polar) * std::cos(azimuth), std::cos(polar),
          std::sin(polar) * std::sin(azimuth);
    }
  }
  out.row(row++) << 0.0, -1.0, 0.0;  // -v_z pole
  // Exact zeros where cos/sin of multiples of pi/2 leave round-off, so mirror partners match.
  for (Eigen::Index i = 0; i < out.size(); ++i) {
    if (std::abs(out.data()[i]) < 1e-15) out.data()[i] = 0.0;
  }
  return out;
}

Eigen::MatrixXd velocity_directions(int m) {
  if (m == 26) return cube_directions();
  if (m == 58) return spherical_grid_directions(7, 8);
  throw std::invalid_argument(
      fmt::format("velocity directions: m = {} is not supported (26 or 58)", m));
}

Eigen::MatrixXd scaled_velocities(const Eigen::MatrixXd& directions, const Eigen::VectorXd& scale) {
  if (scale.size() != directions.cols()) {
    throw std::invalid_argument(fmt::format("velocity scale has {} entries, directions have {}",
                                            scale.size(), directions.cols()));
  }
  return directions * scale.asDiagonal();
}

Eigen::VectorXd mirror_x(const Eigen::VectorXd& w) {
  Eigen::VectorXd out = w;
  if (w.size() == 3) {
    out[0] = -w[0];  // f_x (polar)
    out[2] = -w[2];  // tau_y (axial: -S tau, S = diag(-1, 1, 1))
  } else if (w.size() == 6) {
    out[0] = -w[0];  // f_x
    out[4] = -w[4];  // tau_y
    out[5] = -w[5];  // tau_z
  } else {
    throw std::invalid_argument(
        fmt::format("mirror_x: expected a 3- or 6-component wrench or twist, got {}", w.size()));
  }
  return out;
}

Eigen::VectorXi mirror_partners(const Eigen::MatrixXd& directions) {
  Eigen::VectorXi partner(directions.rows());
  for (Eigen::Index i = 0; i < directions.rows(); ++i) {
    const Eigen::VectorXd mirrored = mirror_x(directions.row(i).transpose());
    partner[i] = -1;
    for (Eigen::Index j = 0; j < directions.rows(); ++j) {
      if ((directions.row(j).transpose() - mirrored).norm() < 1e-9) {
        partner[i] = static_cast<int>(j);
        break;
      }
    }
    if (partner[i] < 0) {
      throw std::invalid_argument(fmt::format(
          "velocity direction {} has no mirror image in the set: phi symmetry cannot be used", i));
    }
  }
  return partner;
}

}  // namespace talus::wrench
