#include "core/scenario_bodies.hpp"

#include <fmt/format.h>

#include "core/mesh_sdf.hpp"
#include "core/units.hpp"

namespace talus {

namespace {

// Runs a library validator and reports its complaint at the table's place in the file.
template <typename T>
void validate_at(const ScenarioTable& table, const std::string& key, const T& value) {
  try {
    validate(value);
  } catch (const std::invalid_argument& e) {
    table.fail(key, e.what());
  }
}

Pose read_pose(const ScenarioTable& t, const std::string& position_key) {
  const Vec3 p = t.vec3(position_key, any_finite("[m]"));
  Vec3 rpy = Vec3::Zero();
  if (t.has("rpy_deg")) rpy = t.vec3("rpy_deg", any_finite("[deg]"));
  return make_pose(p, deg_to_rad(rpy.x()), deg_to_rad(rpy.y()), deg_to_rad(rpy.z()));
}

}  // namespace

Shape read_shape(const ScenarioTable& t) {
  const std::string kind =
      t.choice("kind", {"box", "sphere", "cylinder", "capsule", "wheel", "mesh"});
  Shape shape;
  if (kind == "mesh") {
    // file is relative to the scenario file; scale converts file units to metres.
    const std::filesystem::path file = t.file().parent_path() / t.string("file");
    const double scale = t.number_or("scale", 1.0, positive(""));
    const double cell = t.number("sdf_cell_m", positive("[m]"));
    try {
      shape = MeshShape{MeshSdfGrid::build(load_mesh(file, scale), cell, -1.0, file.string()),
                        file.string()};
    } catch (const std::exception& e) {
      t.fail("file", e.what());
    }
  } else if (kind == "box") {
    shape = BoxShape{0.5 * t.vec3("size_m", positive("[m]"))};
  } else if (kind == "sphere") {
    shape = SphereShape{t.number("radius_m", positive("[m]"))};
  } else if (kind == "cylinder") {
    shape = CylinderShape{t.number("radius_m", positive("[m]")),
                          0.5 * t.number("length_m", positive("[m]"))};
  } else if (kind == "capsule") {
    shape = CapsuleShape{t.number("radius_m", positive("[m]")),
                         0.5 * t.number("length_m", non_negative("[m]"))};
  } else {
    const double radius = t.number("radius_m", positive("[m]"));
    const double width = t.number("width_m", positive("[m]"));
    const int count = t.integer_or("grouser_count", 0, 0, 1000);
    const double height = t.number_or("grouser_height_m", 0.0, non_negative("[m]"));
    if (t.has("grouser_fraction") && t.has("grouser_thickness_m")) {
      t.fail("grouser_fraction", "give grouser_fraction or grouser_thickness_m, not both");
    }
    if (t.has("grouser_fraction")) {
      const double fraction = t.number("grouser_fraction", in_open_range(0.0, 1.0, ""));
      try {
        shape = wheel_with_grouser_fraction(radius, width, count, height, fraction);
      } catch (const std::invalid_argument& e) {
        t.fail("grouser_fraction", e.what());
      }
    } else {
      shape = WheelShape{radius, width, count, height,
                         t.number_or("grouser_thickness_m", 0.005, positive("[m]"))};
    }
  }
  t.refuse_unknown_keys();
  validate_at(t, "", shape);
  return shape;
}

namespace {

// The motions every tier reads: kind "waypoints" (times_s, positions_m, optional rpy_deg) or
// "constant_twist" (position_m, optional rpy_deg, velocity_m_per_s, angular_velocity_rad_per_s).
Driver read_common_driver(const ScenarioTable& t, const std::string& kind) {
  Driver driver;
  if (kind == "waypoints") {
    WaypointDriver d;
    d.times_s = t.numbers("times_s", 0, any_finite("[s]"));
    const auto positions = t.number_rows("positions_m", 3, any_finite("[m]"));
    if (positions.size() != d.times_s.size()) {
      t.fail("positions_m", fmt::format("expected one position per time ({}), got {}",
                                        d.times_s.size(), positions.size()));
    }
    std::vector<std::vector<double>> rpy(positions.size(), std::vector<double>(3, 0.0));
    if (t.has("rpy_deg")) {
      rpy = t.number_rows("rpy_deg", 3, any_finite("[deg]"));
      if (rpy.size() != d.times_s.size()) {
        t.fail("rpy_deg", fmt::format("expected one orientation per time ({}), got {}",
                                      d.times_s.size(), rpy.size()));
      }
    }
    for (std::size_t k = 0; k < positions.size(); ++k) {
      d.poses.push_back(make_pose(Vec3(positions[k][0], positions[k][1], positions[k][2]),
                                  deg_to_rad(rpy[k][0]), deg_to_rad(rpy[k][1]),
                                  deg_to_rad(rpy[k][2])));
    }
    validate_at(t, "times_s", Driver(d));
    driver = d;
  } else {  // constant_twist
    ConstantTwistDriver d;
    d.X_WB0 = read_pose(t, "position_m");
    d.V_WB.v_WBo = t.vec3("velocity_m_per_s", any_finite("[m/s]"));
    if (t.has("angular_velocity_rad_per_s")) {
      d.V_WB.w_W = t.vec3("angular_velocity_rad_per_s", any_finite("[rad/s]"));
    }
    driver = d;
  }
  validate_at(t, "", driver);
  return driver;
}

bool is_common_motion(const std::string& kind) {
  return kind == "waypoints" || kind == "constant_twist";
}

}  // namespace

ScenarioBody read_body(const ScenarioTable& t, const BodyRules& rules) {
  ScenarioBody body;
  body.name = t.string("name");
  const ScenarioTable motion = t.table("motion");
  const std::string kind = motion.choice("kind", rules.motion_kinds);
  std::optional<Shape> sized;
  if (rules.motion_sized_shape) sized = rules.motion_sized_shape(motion, kind);
  if (sized) {
    if (t.has("shape")) {
      t.fail("shape", fmt::format("a {} motion sizes its body; expected no [body.shape]", kind));
    }
    body.shape = *sized;
  } else {
    const ScenarioTable shape = t.table("shape");
    body.shape = rules.read_body_shape ? rules.read_body_shape(shape) : read_shape(shape);
  }
  body.driver = is_common_motion(kind) ? read_common_driver(motion, kind)
                                       : rules.read_tier_motion(motion, kind, body.shape);
  if (rules.reference_point && t.has("reference_point_m")) {
    body.p_BR = t.vec3("reference_point_m", any_finite("[m]"));
  }
  motion.refuse_unknown_keys();
  t.refuse_unknown_keys();
  return body;
}

std::vector<ScenarioBody> read_bodies(const ScenarioTable& root, const BodyRules& rules) {
  if (root.has("tool")) root.fail("tool", std::string("renamed to ") + kBodyTable);
  std::vector<ScenarioBody> bodies;
  for (const ScenarioTable& t : root.tables("body")) {
    bodies.push_back(read_body(t, rules));
    for (std::size_t k = 0; k + 1 < bodies.size(); ++k) {
      if (bodies[k].name == bodies.back().name) {
        t.fail("name", fmt::format("body '{}' is named twice", bodies.back().name));
      }
    }
  }
  return bodies;
}

}  // namespace talus
