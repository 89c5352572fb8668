#include "particles/particle_model.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::particles {
namespace {

void require(bool ok, const char* field, double value, const std::string& expected) {
  if (!ok) {
    throw std::invalid_argument(fmt::format("particle model: {} = {} {}", field, value, expected));
  }
}

}  // namespace

void validate(const ParticleModel& model) {
  require(model.gravity_m_per_s2.allFinite(), "gravity_m_per_s2", model.gravity_m_per_s2.norm(),
          "is not finite");
  require(std::isfinite(model.time_step_s) && model.time_step_s > 0.0, "time_step_s",
          model.time_step_s, "is not finite and > 0");
  require(model.iterations >= 1, "iterations", model.iterations, "is not >= 1");
  require(model.baumgarte >= 0.0 && model.baumgarte <= 1.0, "baumgarte", model.baumgarte,
          "is not in [0, 1]");
  require(model.max_pushout_speed_m_per_s > 0.0, "max_pushout_speed_m_per_s",
          model.max_pushout_speed_m_per_s, "is not > 0");
  require(std::isfinite(model.friction) && model.friction >= 0.0, "friction", model.friction,
          "is not finite and >= 0");
  require(std::isfinite(model.wall_friction) && model.wall_friction >= 0.0, "wall_friction",
          model.wall_friction, "is not finite and >= 0");
  require(std::isfinite(model.body_friction) && model.body_friction >= 0.0, "body_friction",
          model.body_friction, "is not finite and >= 0");
  require(std::isfinite(model.rolling_friction) && model.rolling_friction >= 0.0,
          "rolling_friction", model.rolling_friction, "is not finite and >= 0");
  require(model.warm_start >= 0.0 && model.warm_start <= 1.0, "warm_start", model.warm_start,
          "is not in [0, 1]");
  require(model.relaxation > 0.0 && model.relaxation < 2.0, "relaxation", model.relaxation,
          "is not in (0, 2)");
  require(std::isfinite(model.contact_margin_m) && model.contact_margin_m >= 0.0,
          "contact_margin_m", model.contact_margin_m, "is not finite and >= 0");
  require(std::isfinite(model.hash_table_factor) && model.hash_table_factor > 0.0,
          "hash_table_factor", model.hash_table_factor, "is not finite and > 0");
  require(std::isfinite(model.neighbour_skin_radii) && model.neighbour_skin_radii >= 0.0,
          "neighbour_skin_radii", model.neighbour_skin_radii, "is not finite and >= 0");
  require(model.sort_every_steps >= 0, "sort_every_steps", model.sort_every_steps,
          "is not >= 0 (0: never sort)");
  require(model.threads >= 0 && model.threads <= ParticleModel::kMaxThreads, "threads",
          model.threads, fmt::format("is not in [0, {}]", ParticleModel::kMaxThreads));
  require(std::isfinite(model.overlap_tolerance) && model.overlap_tolerance >= 0.0,
          "overlap_tolerance", model.overlap_tolerance, "is not finite and >= 0");
  require(std::isfinite(model.expected_speed_m_per_s) && model.expected_speed_m_per_s > 0.0,
          "expected_speed_m_per_s", model.expected_speed_m_per_s, "is not finite and > 0");
  require(!std::isnan(model.max_kinetic_energy_J) && model.max_kinetic_energy_J > 0.0,
          "max_kinetic_energy_J", model.max_kinetic_energy_J, "is not > 0");

  const Container& c = model.container;
  if (c.kind != Container::Kind::kNone) {
    if (!c.box.lo.allFinite() || !c.box.hi.allFinite() ||
        !(c.box.lo.array() < c.box.hi.array()).all()) {
      throw std::invalid_argument(fmt::format(
          "particle model: container.box lo ({}, {}, {}) is not below hi ({}, {}, {}) "
          "on every axis",
          c.box.lo.x(), c.box.lo.y(), c.box.lo.z(), c.box.hi.x(), c.box.hi.y(), c.box.hi.z()));
    }
  }
  if (c.kind == Container::Kind::kCylinder) {
    require(std::isfinite(c.cylinder_radius_m) && c.cylinder_radius_m > 0.0,
            "container.cylinder_radius_m", c.cylinder_radius_m, "is not finite and > 0");
    require(c.cylinder_axis_xy_m.allFinite(), "container.cylinder_axis_xy_m",
            c.cylinder_axis_xy_m.norm(), "is not finite");
  }
  if (model.periodic_axis != -1) {
    require(model.periodic_axis >= 0 && model.periodic_axis <= 2, "periodic_axis",
            model.periodic_axis, "is not -1 (none), 0 (x), 1 (y) or 2 (z)");
    if (c.kind != Container::Kind::kBox) {
      throw std::invalid_argument(
          "particle model: periodic_axis needs a box container (container.kind = box)");
    }
  }
  for (const CoupledBody& body : model.bodies) {
    try {
      talus::validate(body.shape);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(
          fmt::format("particle model: body '{}': {}", body.name, e.what()));
    }
    if (!body.p_BR.allFinite()) {
      throw std::invalid_argument(
          fmt::format("particle model: body '{}': p_BR is not finite", body.name));
    }
  }
}

}  // namespace talus::particles
