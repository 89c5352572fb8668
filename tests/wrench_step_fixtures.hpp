#pragma once
// Fixtures for the wrench-space step's tests: a planar foot (MJCF written to a temporary file)
// and synthetic wrench sets (boxes in wrench space). Synthetic on purpose: these tests check the
// step's mechanics (contact detection, eq. 2, integration), not a medium.

#include <unistd.h>

#include <Eigen/Dense>
#include <filesystem>
#include <fstream>
#include <string>

#include "robot/mujoco_model.hpp"
#include "wrench/wrench_set_predictor.hpp"

namespace talus::wrench::testing {

/// The paper's foot (§IV-C1: 7.357 kg, 0.061 kg m^2), a cylinder of length 0.5 m standing on its
/// bottom centre (the body origin and site "bottom"), centre of mass at p_r = 0.25 m up the axis.
/// Planar: slide x, slide z, hinge y at the bottom centre. `z0` and `tilt` set the initial pose.
/// The MJCF goes through a scratch file, removed once loaded.
inline robot::MujocoModel load_foot_model(const std::string& tag, double z0 = 0.0,
                                          double tilt_rad = 0.0, double timestep = 1e-3) {
  // The process id keeps concurrent test runs (ctest -j, Release and ASan builds) apart.
  const auto path = std::filesystem::temp_directory_path() /
                    ("talus_wrench_foot_" + std::to_string(::getpid()) + "_" + tag + ".xml");
  std::ofstream out(path);
  out << "<mujoco model=\"foot\">\n"
      << "  <compiler angle=\"radian\"/>\n"
      << "  <option timestep=\"" << timestep << "\" gravity=\"0 0 -9.81\"/>\n"
      << "  <worldbody>\n"
      << "    <body name=\"foot\" pos=\"0 0 " << z0 << "\" euler=\"0 " << tilt_rad << " 0\">\n"
      << "      <joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>\n"
      << "      <joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/>\n"
      << "      <joint name=\"ry\" type=\"hinge\" axis=\"0 1 0\"/>\n"
      << "      <inertial pos=\"0 0 0.25\" mass=\"7.357\" diaginertia=\"0.061 0.061 0.01\"/>\n"
      << "      <geom type=\"cylinder\" fromto=\"0 0 0 0 0 0.5\" size=\"0.04\" contype=\"0\" "
         "conaffinity=\"0\"/>\n"
      << "      <site name=\"bottom\" pos=\"0 0 0\"/>\n"
      << "    </body>\n"
      << "  </worldbody>\n"
      << "</mujoco>\n";
  out.close();
  auto model = robot::MujocoModel::load(path);
  std::filesystem::remove(path);
  return model;
}

/// W(theta) = the box [lo, hi] (8 corners) in (f_x, f_z, tau_y), scaled by (-d / depth_ref) when
/// depth_ref > 0 (resistance growing with depth), else the same at every theta.
class BoxWrenchSet : public WrenchSetPredictor {
 public:
  BoxWrenchSet(Eigen::Vector3d lo, Eigen::Vector3d hi, double depth_ref = 0.0)
      : lo_(std::move(lo)), hi_(std::move(hi)), depth_ref_(depth_ref) {}
  int wrench_dimension() const override { return 3; }
  Eigen::Vector2d depth_range() const override { return {-0.1, 0.0}; }
  Eigen::Vector2d tilt_range() const override { return {-1.0, 1.0}; }
  Eigen::Vector3d reference_point_m() const override { return {0.0, 0.0, 0.25}; }
  Eigen::MatrixXd predict_wrenches(const Eigen::Vector2d& theta) const override {
    Eigen::MatrixXd w(8, 3);
    for (int c = 0; c < 8; ++c) {
      for (int a = 0; a < 3; ++a) w(c, a) = (c >> a) & 1 ? hi_[a] : lo_[a];
    }
    if (depth_ref_ > 0.0) w *= -theta[0] / depth_ref_;
    return w;
  }

 private:
  Eigen::Vector3d lo_, hi_;
  double depth_ref_;
};

/// |f_x| <= 50 N, f_z in [-20, 200] N, |tau_y| <= 10 N m: contains 0 and holds the paper's foot's
/// weight (72 N) at rest.
inline BoxWrenchSet friction_box() {
  return BoxWrenchSet(Eigen::Vector3d(-50, -20, -10), Eigen::Vector3d(50, 200, 10));
}

}  // namespace talus::wrench::testing
