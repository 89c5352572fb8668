#include "particles/projected_jacobi_rotating.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#if defined(__AVX2__)
#include "particles/simd_records.hpp"
#endif

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

}  // namespace

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

#if defined(__AVX2__)
namespace {

// The 8-lane form: the same IEEE operations in the same order as solve_slot_rotating on each
// lane (this file is compiled with -ffp-contract=off too), so a slot's bits do not depend on which
// form computed it.

// 8 lanes of three components, and the operations of V3 on them.
struct V8 {
  __m256 x, y, z;
};
inline __m256 add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
inline __m256 sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
inline __m256 mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
inline __m256 pick(__m256 cond, __m256 x, __m256 y) { return _mm256_blendv_ps(y, x, cond); }
inline __m256 max_of(__m256 a, __m256 b) { return _mm256_max_ps(b, a); }  // std::max(a, b)
inline __m256 min_of(__m256 a, __m256 b) { return _mm256_min_ps(b, a); }  // std::min(a, b)
inline V8 sub(V8 a, V8 b) { return {sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; }
inline V8 mul(__m256 s, V8 a) { return {mul(s, a.x), mul(s, a.y), mul(s, a.z)}; }
inline V8 pick(__m256 c, V8 a, V8 b) {
  return {pick(c, a.x, b.x), pick(c, a.y, b.y), pick(c, a.z, b.z)};
}
inline __m256 dot(V8 a, V8 b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }
inline V8 cross(V8 a, V8 b) {
  return {sub(mul(a.y, b.z), mul(a.z, b.y)), sub(mul(a.z, b.x), mul(a.x, b.z)),
          sub(mul(a.x, b.y), mul(a.y, b.x))};
}
inline V8 onto_cone(V8 v, __m256 cap) {
  const __m256 v2 = dot(v, v);
  const __m256 scale = pick(_mm256_cmp_ps(v2, mul(cap, cap), _CMP_GT_OQ),
                            _mm256_div_ps(cap, _mm256_sqrt_ps(v2)), _mm256_set1_ps(1.0f));
  return mul(scale, v);
}
inline __m256 abs_diff(__m256 a, __m256 b) {
  return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), sub(a, b));
}

// solve_slot_rotating for the 8 list entries q .. q + 7; returns the largest change per lane.
__m256 solve_slots8_rotating(const SlotPass& p, const SpinPass& r, std::int64_t q) {
  constexpr std::size_t S = kIterateStride;
  constexpr std::size_t R = kSlotStride;
  const std::int32_t* k = p.slot + q;
  const std::int32_t* i = p.row + q;
  std::int32_t j_safe[8];
  const __m256i is_particle = particle_partner_lanes(p.partner + q, i, j_safe);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 particle = _mm256_castsi256_ps(is_particle);
  const int particle_bits = _mm256_movemask_ps(particle);
  // Per lane, a wall's (0) or a body's angular velocity: only where a lane has no particle
  // partner (in a bed, most blocks of 8 have none).
  V8 partner_omega{zero, zero, zero};
  if (particle_bits != 0xff) {
    alignas(32) float partner_om[3][8];
    for (int l = 0; l < 8; ++l) {
      const std::int32_t b = partner_body(p.partner[q + l]);
      for (int a = 0; a < 3; ++a) {
        partner_om[a][l] = b >= 0 ? r.body_omega[3 * static_cast<std::size_t>(b) + a] : 0.0f;
      }
    }
    partner_omega = {_mm256_load_ps(partner_om[0]), _mm256_load_ps(partner_om[1]),
                     _mm256_load_ps(partner_om[2])};
  }
  __m256 wi[4], si[4], wj[4], sj[4], oi[4], oj[4], sk[4], ng[4], lk[4], ek[4];
  load_records(p.a, S, kIterW, i, wi);
  load_records(p.a, S, kIterS, i, si);
  load_records(p.a, S, kIterW, j_safe, wj);
  load_records(p.a, S, kIterS, j_safe, sj);
  load_records(r.a, kSpinStride, 0, i, oi);
  load_records(r.a, kSpinStride, 0, j_safe, oj);
  // A wall's or body's surface velocity and friction: unread where every lane is a pair.
  if (particle_bits != 0xff) {
    load_records(p.surface, R, 0, k, sk);
  } else {
    sk[0] = sk[1] = sk[2] = sk[3] = zero;
  }
  load_records(p.normal_gap, R, 0, k, ng);
  load_records(p.impulse, R, 0, k, lk);
  load_records(r.rolling, R, 0, k, ek);
  const V8 n{ng[0], ng[1], ng[2]};
  const __m256 g = ng[3];
  const __m256 half = _mm256_set1_ps(0.5f);
  const __m256 ri = oi[kSpinRadius];
  const __m256 rj = pick(particle, oj[kSpinRadius], zero);
  const __m256 lever_i = add(ri, pick(particle, mul(half, g), g));
  const __m256 lever_j = pick(particle, add(rj, mul(half, g)), zero);
  const V8 om_i{oi[0], oi[1], oi[2]};
  const V8 om_j = pick(particle, V8{oj[0], oj[1], oj[2]}, partner_omega);
  const V8 own_lever = mul(lever_i, om_i);
  const V8 spin_lever =
      pick(particle,
           V8{add(own_lever.x, mul(lever_j, om_j.x)), add(own_lever.y, mul(lever_j, om_j.y)),
              add(own_lever.z, mul(lever_j, om_j.z))},
           own_lever);
  const V8 u = sub(sub(V8{wi[0], wi[1], wi[2]},
                       pick(particle, V8{wj[0], wj[1], wj[2]}, V8{sk[0], sk[1], sk[2]})),
                   cross(spin_lever, n));
  const V8 v =
      sub(V8{si[0], si[1], si[2]}, pick(particle, V8{sj[0], sj[1], sj[2]}, V8{zero, zero, zero}));
  const __m256 mu = pick(particle, _mm256_set1_ps(p.mu_particle), sk[3]);
  const __m256 m_eff =
      _mm256_div_ps(_mm256_set1_ps(p.omega), add(wi[3], pick(particle, wj[3], zero)));
  const float spin_shares = r.mu_roll > 0.0f ? 2.0f : 1.0f;
  const __m256 m_tangential = _mm256_div_ps(m_eff, _mm256_set1_ps(1.0f + 2.5f * spin_shares));
  const __m256 inv_dt = _mm256_set1_ps(p.inv_dt);
  const __m256 target = pick(_mm256_cmp_ps(g, zero, _CMP_GT_OQ),
                             mul(_mm256_xor_ps(g, _mm256_set1_ps(-0.0f)), inv_dt), zero);
  const __m256 pushout = pick(
      _mm256_cmp_ps(g, zero, _CMP_LT_OQ),
      min_of(mul(mul(_mm256_set1_ps(-p.alpha), g), inv_dt), _mm256_set1_ps(p.max_pushout)), zero);
  const V8 old{lk[0], lk[1], lk[2]};
  const __m256 un = dot(u, n);
  const __m256 on = dot(old, n);
  const __m256 ln = max_of(zero, add(on, mul(m_eff, sub(target, un))));
  const V8 t =
      onto_cone(sub(sub(old, mul(on, n)), mul(m_tangential, sub(u, mul(un, n)))), mul(mu, ln));
  const V8 lambda{add(mul(ln, n.x), t.x), add(mul(ln, n.y), t.y), add(mul(ln, n.z), t.z)};
  const __m256 pn = max_of(zero, add(lk[3], mul(m_eff, sub(pushout, dot(v, n)))));
  const V8 eta_old{ek[0], ek[1], ek[2]};
  const V8 om_rel = sub(om_i, om_j);
  const V8 om_rolling = sub(om_rel, mul(dot(om_rel, n), n));
  const __m256 two_and_half = _mm256_set1_ps(2.5f);
  const __m256 inv_inertia_split =
      mul(_mm256_set1_ps(spin_shares),
          add(_mm256_div_ps(mul(two_and_half, wi[3]), mul(ri, ri)),
              pick(particle, _mm256_div_ps(mul(two_and_half, wj[3]), mul(rj, rj)), zero)));
  const __m256 m_rolling = _mm256_div_ps(_mm256_set1_ps(p.omega), inv_inertia_split);
  const __m256 r_eff = pick(particle, _mm256_div_ps(mul(ri, rj), add(ri, rj)), ri);
  const V8 eta = onto_cone(sub(sub(eta_old, mul(dot(eta_old, n), n)), mul(m_rolling, om_rolling)),
                           mul(mul(_mm256_set1_ps(r.mu_roll), r_eff), ln));
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m128 own[8], mirrored[8], own_eta[8], mirrored_eta[8];
  to_records({lambda.x, lambda.y, lambda.z, pn}, own);
  to_records({_mm256_xor_ps(lambda.x, sign), _mm256_xor_ps(lambda.y, sign),
              _mm256_xor_ps(lambda.z, sign), pn},
             mirrored);
  to_records({eta.x, eta.y, eta.z, zero}, own_eta);
  to_records(
      {_mm256_xor_ps(eta.x, sign), _mm256_xor_ps(eta.y, sign), _mm256_xor_ps(eta.z, sign), zero},
      mirrored_eta);
  for (int l = 0; l < 8; ++l) {
    const std::size_t at = static_cast<std::size_t>(k[l]) * R;
    _mm_storeu_ps(p.impulse + at, own[l]);
    _mm_storeu_ps(r.rolling + at, own_eta[l]);
    if (particle_bits & (1 << l)) {
      const std::size_t m = static_cast<std::size_t>(p.mirror[q + l]) * R;
      _mm_storeu_ps(p.impulse + m, mirrored[l]);
      _mm_storeu_ps(r.rolling + m, mirrored_eta[l]);
    }
  }
  return max_of(abs_diff(lambda.x, old.x),
                max_of(abs_diff(lambda.y, old.y), abs_diff(lambda.z, old.z)));
}

}  // namespace
#endif

float solve_slots_rotating(const SlotPass& p, const SpinPass& r, std::int64_t begin,
                           std::int64_t end) {
  float change = 0.0f;
  std::int64_t q = begin;
#if defined(__AVX2__)
  __m256 lane_change = _mm256_setzero_ps();
  for (; q + 8 <= end; q += 8) {
    lane_change = _mm256_max_ps(solve_slots8_rotating(p, r, q), lane_change);
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, lane_change);
  for (const float c : lane) change = std::max(change, c);
#endif
  for (; q < end; ++q) change = std::max(change, solve_slot_rotating(p, r, q));
  return change;
}

}  // namespace talus::particles
