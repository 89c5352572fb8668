#include "particles/projected_jacobi_rotating.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace talus::particles {
namespace {

struct V3 {
  float x, y, z;
};
inline V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator*(float s, V3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 cross(V3 a, V3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline V3 load3(const float* p) { return {p[0], p[1], p[2]}; }

// Projects v onto the ball |v| <= cap (v unchanged inside it).
inline V3 onto_cone(V3 v, float cap) {
  const float v2 = dot(v, v);
  const float scale = v2 > cap * cap ? cap / std::sqrt(v2) : 1.0f;
  return scale * v;
}

inline float largest_change(V3 now, V3 before) {
  return std::max(std::abs(now.x - before.x),
                  std::max(std::abs(now.y - before.y), std::abs(now.z - before.z)));
}

float solve_slot_rotating(const SlotPass& p, const SpinPass& r, std::int64_t q) {
  constexpr std::size_t S = kIterateStride;
  constexpr std::size_t R = kSlotStride;
  const std::int32_t k = p.slot[q];
  const std::int32_t i = p.row[q];
  const std::int32_t j = p.partner[q];
  const bool particle = j >= 0;
  const float* ai = p.a + static_cast<std::size_t>(i) * S;
  const float* aj = p.a + static_cast<std::size_t>(particle ? j : i) * S;
  const float* oi = r.a + static_cast<std::size_t>(i) * kSpinStride;
  const float* oj = r.a + static_cast<std::size_t>(particle ? j : i) * kSpinStride;
  const float* sk = p.surface + static_cast<std::size_t>(k) * R;
  const float* ngk = p.normal_gap + static_cast<std::size_t>(k) * R;
  const V3 n = load3(ngk);
  const float g = ngk[3];
  const float ri = oi[kSpinRadius];
  const float rj = particle ? oj[kSpinRadius] : 0.0f;
  const float lever_i = contact_lever(ri, g, particle);
  const float lever_j = particle ? contact_lever(rj, g, true) : 0.0f;
  const V3 om_i = load3(oi);
  const std::int32_t body = partner_body(j);
  const V3 om_j = particle    ? load3(oj)
                  : body >= 0 ? load3(r.body_omega + 3 * static_cast<std::size_t>(body))
                              : V3{0.0f, 0.0f, 0.0f};
  // Contact-point velocity of i relative to the partner's surface.
  const V3 spin_lever =
      particle ? V3{lever_i * om_i.x + lever_j * om_j.x, lever_i * om_i.y + lever_j * om_j.y,
                    lever_i * om_i.z + lever_j * om_j.z}
               : lever_i * om_i;
  const V3 u =
      (load3(ai + kIterW) - (particle ? load3(aj + kIterW) : load3(sk))) - cross(spin_lever, n);
  const V3 v = load3(ai + kIterS) - (particle ? load3(aj + kIterS) : V3{0.0f, 0.0f, 0.0f});
  const float mu = particle ? p.mu_particle : sk[3];
  const float m_eff = p.omega / (ai[kIterSplit] + (particle ? aj[kIterSplit] : 0.0f));
  // Mass splitting of the spin: with rolling friction each contact holds two constraints on the
  // grains' angular velocities (friction through the lever, rolling), so the spin is split 2k
  // ways instead of k (projected_jacobi_rotating.hpp).
  const float spin_shares = r.mu_roll > 0.0f ? 2.0f : 1.0f;
  const float m_tangential = m_eff / (1.0f + 2.5f * spin_shares);
  const float target = g > 0.0f ? -g * p.inv_dt : 0.0f;
  const float pushout = g < 0.0f ? std::min(-p.alpha * g * p.inv_dt, p.max_pushout) : 0.0f;
  float* lk = p.impulse + static_cast<std::size_t>(k) * R;
  const V3 old = load3(lk);
  const float un = dot(u, n);
  const float on = dot(old, n);
  const float ln = std::max(0.0f, on + m_eff * (target - un));
  const V3 t = onto_cone((old - on * n) - m_tangential * (u - un * n), mu * ln);
  const V3 lambda{ln * n.x + t.x, ln * n.y + t.y, ln * n.z + t.z};
  const float pn = std::max(0.0f, lk[3] + m_eff * (pushout - dot(v, n)));
  // Rolling resistance on the relative angular velocity's tangential part.
  float* ek = r.rolling + static_cast<std::size_t>(k) * R;
  const V3 eta_old = load3(ek);
  const V3 om_rel = om_i - om_j;
  const V3 om_rolling = om_rel - dot(om_rel, n) * n;
  const float inv_inertia_split =
      spin_shares *
      (2.5f * ai[kIterSplit] / (ri * ri) + (particle ? 2.5f * aj[kIterSplit] / (rj * rj) : 0.0f));
  const float m_rolling = p.omega / inv_inertia_split;
  const float r_eff = particle ? ri * rj / (ri + rj) : ri;
  const V3 eta =
      onto_cone((eta_old - dot(eta_old, n) * n) - m_rolling * om_rolling, r.mu_roll * r_eff * ln);
  lk[0] = lambda.x;
  lk[1] = lambda.y;
  lk[2] = lambda.z;
  lk[3] = pn;
  ek[0] = eta.x;
  ek[1] = eta.y;
  ek[2] = eta.z;
  ek[3] = 0.0f;
  if (particle) {
    const std::size_t m = static_cast<std::size_t>(p.mirror[q]) * R;
    float* lm = p.impulse + m;
    lm[0] = -lambda.x;
    lm[1] = -lambda.y;
    lm[2] = -lambda.z;
    lm[3] = pn;
    float* em = r.rolling + m;
    em[0] = -eta.x;
    em[1] = -eta.y;
    em[2] = -eta.z;
    em[3] = 0.0f;
  }
  return largest_change(lambda, old);
}

}  // namespace

float solve_slots_rotating(const SlotPass& p, const SpinPass& r, std::int64_t begin,
                           std::int64_t end) {
  float change = 0.0f;
  for (std::int64_t q = begin; q < end; ++q)
    change = std::max(change, solve_slot_rotating(p, r, q));
  return change;
}

}  // namespace talus::particles
