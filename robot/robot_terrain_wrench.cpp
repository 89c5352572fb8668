// The wrench-space tier (paper 000) as the terrain of a robots-tier scenario,
// [scenario] terrain = "wrench" (wrench/wrench_space_tier.hpp; docs/wrench_space.md §9):
//   [wrench_space] database (HDF5, relative to the scenario file), granular_inertia
//                  [kg, kg, kg m^2] (M_g of every foot, on (v_x, v_z, omega_y)), slope_rad or
//                  terrain_points_m [[x, z], ...] (wrench/terrain_profile.hpp)
// Every coupled link is a foot whose shape is a cylinder or capsule with its axis along z_S: the
// foot frame sits at the shape's lower end (p_center). The robot's inverse effective inertia at
// each foot, A = P M^-1 P^T, comes from MuJoCo at the initial configuration. Planar: the tier acts
// in the world x-z plane.

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "core/image.hpp"
#include "core/plot.hpp"
#include "robot/robot_terrain.hpp"
#include "wrench/wrench_database.hpp"
#include "wrench/wrench_space_model.hpp"
#include "wrench/wrench_space_tier.hpp"

namespace talus::robot {

namespace {

// A foot's length along its axis z_S and its radius [m]: a cylinder or a capsule; none for
// other shapes.
std::optional<std::pair<double, double>> foot_length_radius(const Shape& shape) {
  if (const auto* cylinder = std::get_if<CylinderShape>(&shape)) {
    return std::pair{2 * cylinder->half_length_m, cylinder->radius_m};
  }
  if (const auto* capsule = std::get_if<CapsuleShape>(&shape)) {
    return std::pair{2 * (capsule->half_length_m + capsule->radius_m), capsule->radius_m};
  }
  return std::nullopt;
}

// The foot frame in S: at the end of the link's cylinder or capsule (axis z_S) that is lower at
// the initial configuration, its z axis along the shape's axis pointing up into the foot. (MuJoCo
// points a fromto geom's z axis either way, so the end is chosen by the pose, not by the sign.)
Pose foot_frame(MujocoModel& robot, const CoupledLink& link, const ScenarioTable& coupling) {
  const auto foot = foot_length_radius(link.shape);
  if (!foot) {
    coupling.fail("", fmt::format("link '{}' is a {}; a foot on the wrench-space terrain is a "
                                  "cylinder or capsule with its axis along z (its lower end "
                                  "touches the medium)",
                                  link.name, shape_kind(link.shape)));
  }
  mj_kinematics(robot.model(), robot.data());
  const bool axis_down = link_pose(robot, link).linear().col(2).z() < 0.0;
  Pose X_SF = Pose::Identity();
  if (axis_down) X_SF.linear() = Eigen::AngleAxisd(M_PI, Vec3::UnitX()).toRotationMatrix();
  X_SF.translation() = Vec3(0.0, 0.0, (axis_down ? 0.5 : -0.5) * foot->first);
  return X_SF;
}

// Side view at the end: the terrain profile and each foot's outline in the x-z plane.
RgbImage side_view(const wrench::WrenchSpaceTier& tier, std::span<const BodyMotion> end,
                   const std::string& title) {
  PlotSpec plot;
  plot.title = title;
  plot.x_label = "x [m]";
  plot.y_label = "z [m]";
  plot.equal_aspect = true;
  plot.width_px = 900;
  plot.height_px = 480;
  double lo = 1e300, hi = -1e300;
  for (std::size_t f = 0; f < end.size(); ++f) {
    const Pose X_WF = end[f].X_WB * tier.model().feet[f].X_BF;
    const CoupledBody& body = tier.bodies()[f];
    const auto [length, radius] = foot_length_radius(body.shape).value();
    const Vec3 p = X_WF.translation(), x = X_WF.linear().col(0), z = X_WF.linear().col(2);
    PlotSeries outline;
    outline.name = fmt::format("foot '{}' at the end", body.name);
    const std::array<Vec3, 5> corners = {p - radius * x, p + radius * x,
                                         p + radius * x + length * z, p - radius * x + length * z,
                                         p - radius * x};
    for (const Vec3& q : corners) {
      outline.x.push_back(q.x()), outline.y.push_back(q.z());
      lo = std::min(lo, q.x()), hi = std::max(hi, q.x());
    }
    plot.series.push_back(std::move(outline));
  }
  const double pad = std::max(0.5, hi - lo);
  PlotSeries ground;
  ground.name = "surface";
  ground.colour = Rgb{120, 90, 50};
  for (int k = 0; k <= 100; ++k) {
    const double xk = lo - pad + (hi - lo + 2 * pad) * k / 100.0;
    ground.x.push_back(xk), ground.y.push_back(tier.model().terrain.height_at(xk));
  }
  plot.series.insert(plot.series.begin(), std::move(ground));
  return plot_lines(plot);
}

class WrenchTerrain final : public RobotTerrain {
 public:
  WrenchTerrain(wrench::WrenchDatabase database, wrench::WrenchTierModel model)
      : predictor_(std::move(database)), tier_(predictor_, std::move(model)) {}

  ContactTier& tier() override { return tier_; }
  nlohmann::json prepare(std::span<const BodyMotion>, const RunProgress&) override {
    return nlohmann::json::object();
  }
  double surface_z(double x_W, double) const override {
    return tier_.model().terrain.height_at(x_W);
  }
  bool covers_xy(double, double) const override { return true; }  // the profile's ends are rays
  long preparation_steps() const override { return 0; }

  void view_layout(ViewLayout& layout, const Vec3& robot_start_W) const override {
    view_grid_ = wrench::profile_view_grid(robot_start_W.x(), robot_start_W.y());
    layout.heightmap = view_grid_;
  }
  void view_frame(ViewFrame&, std::vector<double>& heights_m) const override {
    wrench::profile_view_heights(tier_.model().terrain, view_grid_, heights_m);
  }

  nlohmann::json finish(OutputDir& out, const std::string& title,
                        std::span<const BodyMotion> end) override {
    write_png(out.path("side_view.png"),
              side_view(tier_, end, title + ": side view at the end (x-z plane)"));
    const wrench::WrenchTierState& s = tier_.state();
    nlohmann::json feet = nlohmann::json::object();
    for (std::size_t f = 0; f < s.feet.size(); ++f) {
      const wrench::FootContact& foot = s.feet[f];
      const Eigen::Vector3d w = wrench::planar_components(foot.wrench);
      feet[tier_.bodies()[f].name] = {{"final_depth_m", foot.depth_m},
                                      {"final_tilt_rad", foot.tilt_rad},
                                      {"final_in_contact", foot.in_contact},
                                      {"final_wrench_W", {w[0], w[1], w[2]}}};
    }
    return {{"terrain", "wrench"},
            {"database_medium", predictor_.database().medium.name},
            {"contact_queries", s.contact_queries},
            {"clamped_queries", s.clamped_queries},
            {"feet", feet},
            {"pictures", {"side_view.png"}}};
  }

 private:
  wrench::WrenchSpaceModel predictor_;  // before tier_, which keeps a reference to it
  wrench::WrenchSpaceTier tier_;
  mutable ViewHeightmapGrid view_grid_;
};

}  // namespace

std::unique_ptr<RobotTerrain> read_wrench_terrain(const ScenarioTable& root, RobotScenario& robot) {
  const ScenarioTable t = root.table("wrench_space");
  const std::filesystem::path database =
      (root.file().parent_path() / t.string("database")).lexically_normal();
  wrench::WrenchDatabase db = wrench::load_database_at(t, "database", database);
  const Vec3 mg = t.vec3("granular_inertia", non_negative("[kg, kg, kg m^2]"));
  wrench::WrenchTierModel model;
  model.terrain = wrench::read_terrain_profile(t);
  t.refuse_unknown_keys();
  const std::vector<ScenarioTable> couplings = root.table("robot").tables("coupling");
  std::vector<CoupledBody> bodies = tier_bodies(robot.links);
  for (std::size_t l = 0; l < robot.links.size(); ++l) {
    wrench::WrenchTierFoot foot;
    foot.body = bodies[l];
    foot.X_BF = foot_frame(robot.model, robot.links[l], couplings[l]);
    foot.granular_inertia = Eigen::Vector3d(mg.x(), mg.y(), mg.z()).asDiagonal();
    foot.inverse_inertia = planar_inverse_inertia(robot.model, robot.links[l], foot.X_BF);
    model.feet.push_back(std::move(foot));
  }
  try {
    return std::make_unique<WrenchTerrain>(std::move(db), std::move(model));
  } catch (const std::invalid_argument& e) {
    root.table("robot").fail("coupling", e.what());
  }
}

}  // namespace talus::robot
