#include "scm/scm_model.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/image.hpp"
#include "core/scenario_terrain.hpp"
#include "core/units.hpp"
#include "scm/soil_flow.hpp"

namespace talus::scm {

namespace {

void require(bool ok, const std::string& field, double value, const std::string& expected) {
  if (!ok) {
    throw std::invalid_argument(fmt::format("{} = {}: expected {}", field, value, expected));
  }
}

}  // namespace

SoilParameters named_soil(const std::string& name) {
  SoilParameters s;
  if (name == "dry_sand") {
    // Wong, Theory of Ground Vehicles (4th ed., Wiley 2008), Table 2.3: "dry sand (Land
    // Locomotion Lab.)": n = 1.1, kc = 0.99 kN/m^(n+1), kphi = 1528.43 kN/m^(n+2), c = 1.04 kPa,
    // phi = 28 deg. K = 1 cm is within the range Wong lists for sand (§2.4); the angle of repose
    // 30.5 deg is paper 002 §4.1's sand. Unloading stiffness, failure shear and residual strength
    // are this project's choices (docs/scm.md).
    s.kc = 0.99e3;
    s.kphi = 1528.43e3;
    s.exponent_n = 1.1;
    s.cohesion_pa = 1.04e3;
    s.janosi_shear_modulus_m = 0.01;
    s.residual_cohesion_pa = 0.0;
    s.residual_friction_angle_rad = deg_to_rad(24.0);
  } else if (name == "lunar_regolith") {
    // Bekker's lunar soil model of the Apollo Lunar Roving Vehicle studies (M. G. Bekker,
    // Introduction to Terrain-Vehicle Systems, 1969; the set LRV performance analyses use):
    // n = 1, kc = 1.4 kN/m^2, kphi = 820 kN/m^3, c = 0.17 kPa, phi = 35 deg, K = 1.8 cm; angle of
    // repose 40 deg (loose regolith). docs/scm.md says how these were checked.
    s.kc = 1.4e3;
    s.kphi = 820e3;
    s.exponent_n = 1.0;
    s.cohesion_pa = 170.0;
    s.janosi_shear_modulus_m = 0.018;
    s.residual_cohesion_pa = 0.0;
    s.residual_friction_angle_rad = deg_to_rad(31.0);
  } else {
    throw std::invalid_argument(
        fmt::format("unknown soil '{}': expected one of dry_sand, lunar_regolith", name));
  }
  // phi and the angle of repose are the material's, which the other tiers read too ([terrain]).
  const TerrainMaterial material = terrain_material(name);
  s.friction_angle_rad = material.friction_angle_rad;
  s.repose_angle_rad = material.repose_angle_rad;
  s.failure_shear_m = s.janosi_shear_modulus_m;
  return s;
}

std::vector<std::string> named_soil_names() { return terrain_material_names(); }

std::string flow_method_name(FlowMethod method) {
  return method == FlowMethod::Fields ? "fields" : "border";
}

void validate(const SoilParameters& s) {
  const double half_pi = kPi / 2.0;
  require(std::isfinite(s.kc) && s.kc >= 0.0, "soil.kc", s.kc,
          "a finite stiffness >= 0 [N/m^(n+1)]");
  require(std::isfinite(s.kphi) && s.kphi >= 0.0, "soil.kphi", s.kphi,
          "a finite stiffness >= 0 [N/m^(n+2)]");
  require(std::isfinite(s.contact_width_m) && s.contact_width_m > 0.0, "soil.contact_width_m",
          s.contact_width_m, "a width > 0 [m]");
  require(s.bekker_k() > 0.0, "soil.kc / b + kphi", s.bekker_k(), "a stiffness > 0");
  require(std::isfinite(s.exponent_n) && s.exponent_n > 0.0, "soil.n", s.exponent_n,
          "an exponent > 0");
  require(std::isfinite(s.cohesion_pa) && s.cohesion_pa >= 0.0, "soil.cohesion_pa", s.cohesion_pa,
          "a cohesion >= 0 [Pa]");
  require(s.friction_angle_rad > 0.0 && s.friction_angle_rad < half_pi, "soil.friction_angle_deg",
          rad_to_deg(s.friction_angle_rad), "an angle in (0, 90) deg");
  require(std::isfinite(s.janosi_shear_modulus_m) && s.janosi_shear_modulus_m > 0.0,
          "soil.janosi_shear_modulus_m", s.janosi_shear_modulus_m, "a length > 0 [m]");
  require(s.repose_angle_rad > 0.0 && s.repose_angle_rad < half_pi, "soil.repose_angle_deg",
          rad_to_deg(s.repose_angle_rad), "an angle in (0, 90) deg");
  require(std::isfinite(s.unloading_stiffness_pa_per_m) && s.unloading_stiffness_pa_per_m > 0.0,
          "soil.unloading_stiffness_pa_per_m", s.unloading_stiffness_pa_per_m,
          "a stiffness > 0 [Pa/m]");
  require(std::isfinite(s.failure_shear_m) && s.failure_shear_m > 0.0, "soil.failure_shear_m",
          s.failure_shear_m, "a length > 0 [m]");
  require(std::isfinite(s.shear_band_m) && s.shear_band_m >= 0.0, "soil.shear_band_m",
          s.shear_band_m, "a thickness >= 0 [m]");
  require(s.residual_cohesion_pa >= 0.0 && s.residual_cohesion_pa <= s.cohesion_pa,
          "soil.residual_cohesion_pa", s.residual_cohesion_pa, "a cohesion in [0, cohesion_pa]");
  require(
      s.residual_friction_angle_rad > 0.0 && s.residual_friction_angle_rad <= s.friction_angle_rad,
      "soil.residual_friction_angle_deg", rad_to_deg(s.residual_friction_angle_rad),
      "an angle in (0, friction_angle_deg]");
}

void validate(const ScmModel& m) {
  if (m.nx < 2 || m.ny < 2) {
    throw std::invalid_argument(
        fmt::format("grid of {} x {} nodes: expected at least 2 x 2", m.nx, m.ny));
  }
  talus::validate(static_cast<const HeightmapGrid&>(m));
  require(std::isfinite(m.base_height_m), "base_height_m", m.base_height_m, "a finite height [m]");
  if (!m.base_image_m.empty() &&
      m.base_image_m.size() != static_cast<std::size_t>(m.nx) * static_cast<std::size_t>(m.ny)) {
    throw std::invalid_argument(fmt::format("base image holds {} heights: expected nx * ny = {}",
                                            m.base_image_m.size(), static_cast<long>(m.nx) * m.ny));
  }
  validate(m.soil);
  const FlowParameters& f = m.flow;
  if (f.chord_count < 3) {
    throw std::invalid_argument(
        fmt::format("flow.chord_count = {}: expected at least 3 chords", f.chord_count));
  }
  require(std::isfinite(f.psi_shape_m) && f.psi_shape_m > 0.0, "flow.psi_shape_m", f.psi_shape_m,
          "a length > 0 [m]");
  require(std::isfinite(f.psi_angle) && f.psi_angle >= 0.0, "flow.psi_angle", f.psi_angle,
          "an exponent >= 0");
  require(std::isfinite(f.psi_distance) && f.psi_distance > 0.0, "flow.psi_distance",
          f.psi_distance, "an exponent > 0");
  require(std::isfinite(f.cluster_span_m) && f.cluster_span_m >= 0.0, "flow.cluster_span_m",
          f.cluster_span_m, "a length >= 0 [m]");
  require(std::isfinite(f.field_spacing_m) && f.field_spacing_m >= 0.0, "flow.field_spacing_m",
          f.field_spacing_m, "a length >= 0 [m]");
  const int cluster = cluster_nodes_on(f, m.cell_size_m);
  if (cluster < 1 || cluster > 64) {
    throw std::invalid_argument(
        fmt::format("flow.cluster_nodes = {} (cluster_span_m {} m on a {} m grid): expected 1 (one "
                    "field per displacing node) to 64 nodes",
                    cluster, f.cluster_span_m, m.cell_size_m));
  }
  const int stride = field_stride_on(f, m.cell_size_m);
  if (stride < 1 || stride > 64) {
    throw std::invalid_argument(
        fmt::format("flow.field_stride = {} (field_spacing_m {} m on a {} m grid): expected 1 "
                    "(every grid node) to 64 nodes",
                    stride, f.field_spacing_m, m.cell_size_m));
  }
  require(std::isfinite(m.erosion_tolerance_m) && m.erosion_tolerance_m > 0.0,
          "erosion_tolerance_m", m.erosion_tolerance_m, "a length > 0 [m]");
  require(std::isfinite(m.time_step_s) && m.time_step_s > 0.0, "time_step_s", m.time_step_s,
          "a time > 0 [s]");
  if (m.border_margin_nodes < 2) {
    throw std::invalid_argument(
        fmt::format("border_margin_nodes = {}: expected >= 2", m.border_margin_nodes));
  }
  for (std::size_t k = 0; k < m.bodies.size(); ++k) {
    const CoupledBody& b = m.bodies[k];
    // Outputs and reports name bodies: two of one name could not be told apart.
    for (std::size_t j = 0; j < k; ++j) {
      if (m.bodies[j].name == b.name) {
        throw std::invalid_argument(fmt::format(
            "bodies[{}]: the name '{}' is already the name of bodies[{}]", k, b.name, j));
      }
    }
    try {
      talus::validate(b.shape);
      (void)world_bounds(b.shape, Pose::Identity());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("body '{}': {}", b.name, e.what()));
    }
  }
  if (m.erosion_max_updates < 0) {
    throw std::invalid_argument(
        fmt::format("erosion_max_updates = {}: expected >= 0", m.erosion_max_updates));
  }
}

std::vector<double> base_image_from_png(const std::string& path, int nx, int ny, double relief_m) {
  const RgbImage img = read_png(path);
  if (img.width != nx || img.height != ny) {
    throw std::invalid_argument(
        fmt::format("{}: image is {} x {} pixels: expected {} x {} (one "
                    "pixel per node)",
                    path, img.width, img.height, nx, ny));
  }
  std::vector<double> h(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny));
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const Rgb p = img.at(i, ny - 1 - j);
      h[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + static_cast<std::size_t>(i)] =
          relief_m * static_cast<double>(p.r) / 255.0;
    }
  }
  return h;
}

}  // namespace talus::scm
