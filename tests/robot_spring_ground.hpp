#pragma once
// Test-only terrain tier: a linear spring-damper half-space z <= ground_z. Each body touches it at
// its lowest point (the support point of its shape in -z); the normal force is
// k * depth + c * (-v_z), never pulling, plus optional regularised Coulomb friction
// f_t = -min(mu N, c_t |v_t|) v_t / |v_t|. It has no state of its own, so the coupling's
// momentum balance is exact: the impulse it gives is what the body receives.

#include <algorithm>
#include <cmath>
#include <span>
#include <variant>
#include <vector>

#include "core/contact_tier.hpp"

namespace talus::test_support {

struct SpringGroundParams {
  double stiffness_n_per_m = 1e5;
  double damping_n_s_per_m = 0.0;
  double ground_z_m = 0.0;
  double friction_coefficient = 0.0;          ///< mu; 0: frictionless
  double tangential_damping_n_s_per_m = 0.0;  ///< c_t of the regularised friction
};

/// Support point (farthest point along direction d_B) of a convex shape, in its body frame.
inline Vec3 support_point(const Shape& shape, const Vec3& d_B) {
  auto sgn = [](double x) { return x >= 0.0 ? 1.0 : -1.0; };
  // Disc of radius r perpendicular to axis `a` (unit): the rim point farthest along d.
  auto disc = [](const Vec3& d, const Vec3& a, double r) -> Vec3 {
    const Vec3 radial = d - d.dot(a) * a;
    return radial.norm() > 1e-12 ? Vec3(r * radial.normalized()) : Vec3::Zero();
  };
  if (const auto* b = std::get_if<BoxShape>(&shape)) {
    return Vec3(sgn(d_B.x()) * b->half_extents_m.x(), sgn(d_B.y()) * b->half_extents_m.y(),
                sgn(d_B.z()) * b->half_extents_m.z());
  }
  if (const auto* s = std::get_if<SphereShape>(&shape)) return s->radius_m * d_B.normalized();
  if (const auto* c = std::get_if<CylinderShape>(&shape)) {
    return disc(d_B, Vec3::UnitZ(), c->radius_m) + Vec3(0, 0, sgn(d_B.z()) * c->half_length_m);
  }
  if (const auto* c = std::get_if<CapsuleShape>(&shape)) {
    return c->radius_m * d_B.normalized() + Vec3(0, 0, sgn(d_B.z()) * c->half_length_m);
  }
  if (const auto* w = std::get_if<WheelShape>(&shape)) {  // the rim; grousers ignored
    return disc(d_B, Vec3::UnitY(), w->radius_m) + Vec3(0, sgn(d_B.y()) * 0.5 * w->width_m, 0);
  }
  return Vec3::Zero();
}

class SpringGroundTier final : public ContactTier {
 public:
  SpringGroundTier(std::vector<CoupledBody> bodies, SpringGroundParams params)
      : bodies_(std::move(bodies)), params_(params) {}

  std::span<const CoupledBody> bodies() const override { return bodies_; }

  void step(double dt_s, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override {
    ++steps;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      const BodyMotion& m = motions[i];
      const Vec3 p_WR = m.X_WB * bodies_[i].p_BR;
      Wrench w = Wrench::about(p_WR);
      const Vec3 down_B = m.X_WB.linear().transpose() * Vec3(0, 0, -1);
      const Vec3 p_WQ = m.X_WB * support_point(bodies_[i].shape, down_B);
      const double depth = params_.ground_z_m - p_WQ.z();
      if (depth > 0.0) {
        const Vec3 v_Q = m.V_WB.velocity_of_point(m.X_WB, p_WQ);
        const double normal =
            std::max(0.0, params_.stiffness_n_per_m * depth - params_.damping_n_s_per_m * v_Q.z());
        Vec3 f(0, 0, normal);
        const Vec3 v_t(v_Q.x(), v_Q.y(), 0.0);
        if (params_.friction_coefficient > 0.0 && v_t.norm() > 0.0) {
          const double mag = std::min(params_.friction_coefficient * normal,
                                      params_.tangential_damping_n_s_per_m * v_t.norm());
          f -= mag * v_t.normalized();
        }
        w.add_force_at(f, p_WQ);
        contact_points_W.resize(bodies_.size());
        contact_points_W[i] = p_WQ;
      }
      wrenches[i] = w;
      impulse_N_s += dt_s * w.f_W;
    }
  }

  Vec3 impulse_N_s = Vec3::Zero();  ///< sum over steps and bodies of f dt
  std::vector<Vec3> contact_points_W;
  int steps = 0;

 private:
  std::vector<CoupledBody> bodies_;
  SpringGroundParams params_;
};

}  // namespace talus::test_support
