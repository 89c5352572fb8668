#include "scm/scm_forces.hpp"

#include <algorithm>
#include <cmath>

namespace talus::scm {
namespace {

/// tan(phi) of intact and of loosened soil: computed once per call of body_wrenches instead of
/// once per contact node (tan was 1.8 % of RoverSlope-v0's step); the same values, so the same
/// bits.
struct FrictionTangents {
  double intact;
  double loosened;
  explicit FrictionTangents(const SoilParameters& soil)
      : intact(std::tan(soil.friction_angle_rad)),
        loosened(std::tan(soil.residual_friction_angle_rad)) {}
};

Vec3 node_force(const SoilParameters& soil, const FrictionTangents& tangents, double area_m2,
                const ContactNode& c, double jx, double jy) {
  // Normal part (eq. 34, 36): the outward normal n points into the soil (n_z < 0 on the lower
  // surface where the lowest point lies). A pressure sigma on the inclined surface element
  // A_grid / |n_z| gives the force sigma * A_grid / |n_z| * (-n): its vertical part is exactly
  // sigma * A_grid, as for a flat plate, and its horizontal part is the bulldozing / compaction
  // resistance of an inclined face. |n_z| is bounded below by 0.5 (faces steeper than 60 deg)
  // to keep a grazing face from producing unbounded horizontal force.
  Vec3 f = Vec3::Zero();
  const double nz = c.n_W.z();
  if (nz < 0.0) {
    f = -c.n_W * (c.sigma_pa * area_m2 / std::max(-nz, 0.5));
  } else {
    f.z() = c.sigma_pa * area_m2;
  }
  // Shear part (eq. 35, 36): along -j, isotropic in the horizontal plane (docs/scm.md explains
  // why the vector form replaces the paper's per-axis form).
  const double j = std::hypot(jx, jy);
  if (j > 0.0) {
    const double cohesion = c.loosened ? soil.residual_cohesion_pa : soil.cohesion_pa;
    const double tan_phi = c.loosened ? tangents.loosened : tangents.intact;
    const double tau =
        (cohesion + c.sigma_pa * tan_phi) * (1.0 - std::exp(-j / soil.janosi_shear_modulus_m));
    f.x() -= tau * area_m2 * jx / j;
    f.y() -= tau * area_m2 * jy / j;
  }
  return f;
}

}  // namespace

Vec3 node_force(const SoilParameters& soil, double area_m2, const ContactNode& c, double jx,
                double jy) {
  return node_force(soil, FrictionTangents(soil), area_m2, c, jx, jy);
}

void body_wrenches(const ScmModel& m, std::span<const BodyMotion> motions,
                   std::span<const ContactNode> contacts, std::span<Wrench> wrenches) {
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    wrenches[b] = Wrench::about(motions[b].X_WB * m.bodies[b].p_BR);
  }
  const double area = m.cell_area_m2();
  const FrictionTangents tangents(m.soil);
  for (const ContactNode& c : contacts) {
    const Vec3 f = node_force(m.soil, tangents, area, c, c.shear_x_m, c.shear_y_m);
    wrenches[static_cast<std::size_t>(c.body)].add_force_at(f, c.p_W);  // eq. 37-38
  }
}

}  // namespace talus::scm
