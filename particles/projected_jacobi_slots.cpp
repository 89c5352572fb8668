#include "particles/projected_jacobi_slots.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#if defined(__AVX2__)
#include "particles/simd_records.hpp"
#endif

namespace talus::particles {

float solve_slot(const SlotPass& p, std::int64_t q) {
  constexpr std::size_t S = kIterateStride;
  constexpr std::size_t R = kSlotStride;
  const std::int32_t k = p.slot[q];
  const std::int32_t i = p.row[q];
  const std::int32_t j = p.partner[q];
  const bool particle = j >= 0;
  const float* ai = p.a + static_cast<std::size_t>(i) * S;
  const float* aj = p.a + static_cast<std::size_t>(particle ? j : i) * S;
  const float* sk = p.surface + static_cast<std::size_t>(k) * R;
  // Relative velocity of i with respect to its partner (a wall's or body's from the slot's
  // surface record). Row j would evaluate the same expressions with negated vectors (w_j - w_i,
  // -n), so its impulse would be the exact negative of this one (IEEE rounding is symmetric in
  // sign; un and on, products of two negated factors, are equal): the mirror slot takes -lambda
  // and the same push-out p.
  const float ux = ai[kIterW] - (particle ? aj[kIterW] : sk[0]);
  const float uy = ai[kIterW + 1] - (particle ? aj[kIterW + 1] : sk[1]);
  const float uz = ai[kIterW + 2] - (particle ? aj[kIterW + 2] : sk[2]);
  // Relative pseudo-velocity (walls and bodies have none).
  const float vx = ai[kIterS] - (particle ? aj[kIterS] : 0.0f);
  const float vy = ai[kIterS + 1] - (particle ? aj[kIterS + 1] : 0.0f);
  const float vz = ai[kIterS + 2] - (particle ? aj[kIterS + 2] : 0.0f);
  const float mu = particle ? p.mu_particle : sk[3];
  // Effective mass omega / (k_i / m_i + k_j / m_j) (mass splitting; 1/m = 0 for walls).
  const float m_eff = p.omega / (ai[kIterSplit] + (particle ? aj[kIterSplit] : 0.0f));
  const float* ngk = p.normal_gap + static_cast<std::size_t>(k) * R;
  float* lk = p.impulse + static_cast<std::size_t>(k) * R;
  // Target and push-out speeds from the gap (docs/particles.md §2).
  const float g = ngk[3];
  const float open_target = -g * p.inv_dt;
  const float overlap_pushout = std::min(-p.alpha * g * p.inv_dt, p.max_pushout);
  const float target = g > 0.0f ? open_target : 0.0f;
  const float pushout = g < 0.0f ? overlap_pushout : 0.0f;
  const float nx = ngk[0], ny = ngk[1], nz = ngk[2];
  const float un = ux * nx + uy * ny + uz * nz;
  const float ox = lk[0], oy = lk[1], oz = lk[2];
  const float on = ox * nx + oy * ny + oz * nz;
  // Normal: clamp at zero after adding the correction toward the target speed (Alg. 1, l.5).
  const float ln = std::max(0.0f, on + m_eff * (target - un));
  // Tangential: remove the sliding velocity, then project onto the Coulomb cone (Alg. 1, l.6-7).
  float tx = (ox - on * nx) - m_eff * (ux - un * nx);
  float ty = (oy - on * ny) - m_eff * (uy - un * ny);
  float tz = (oz - on * nz) - m_eff * (uz - un * nz);
  const float lt2 = tx * tx + ty * ty + tz * tz;
  const float cap = mu * ln;
  // Scale computed unconditionally and selected (x 1 is exact): whether a resting contact sits on
  // its friction cone flickers from slot to slot, and as a branch this mispredicted.
  const float cone_scale = cap / std::sqrt(lt2);
  const float scale = lt2 > cap * cap ? cone_scale : 1.0f;
  tx *= scale;
  ty *= scale;
  tz *= scale;
  const float nlx = ln * nx + tx, nly = ln * ny + ty, nlz = ln * nz + tz;
  const float change =
      std::max(std::abs(nlx - ox), std::max(std::abs(nly - oy), std::abs(nlz - oz)));
  // Split impulse: push-out on the pseudo-velocities, normal only.
  const float pn = std::max(0.0f, lk[3] + m_eff * (pushout - (vx * nx + vy * ny + vz * nz)));
  lk[0] = nlx;
  lk[1] = nly;
  lk[2] = nlz;
  lk[3] = pn;
  if (particle) {
    float* lm = p.impulse + static_cast<std::size_t>(p.mirror[q]) * R;
    lm[0] = -nlx;
    lm[1] = -nly;
    lm[2] = -nlz;
    lm[3] = pn;
  }
  return change;
}

#if defined(__AVX2__)
namespace {

// std::max(a, b) and std::min(a, b) exactly: (a < b) ? b : a and (b < a) ? b : a.
inline __m256 max_of(__m256 a, __m256 b) { return _mm256_max_ps(b, a); }
inline __m256 min_of(__m256 a, __m256 b) { return _mm256_min_ps(b, a); }
// cond ? x : y per lane.
inline __m256 select(__m256 cond, __m256 x, __m256 y) { return _mm256_blendv_ps(y, x, cond); }

// solve_slot for the 8 list entries q .. q + 7 at once; returns the largest change per lane.
__m256 solve_slots8(const SlotPass& p, std::int64_t q) {
  constexpr std::size_t S = kIterateStride;
  constexpr std::size_t R = kSlotStride;
  const std::int32_t* k = p.slot + q;
  const std::int32_t* i = p.row + q;
  std::int32_t j_safe[8];  // a wall's or body's lane reads its own row's record (a safe address)
  const __m256i is_particle = particle_partner_lanes(p.partner + q, i, j_safe);
  const __m256 zero = _mm256_setzero_ps();
  const __m256 particle = _mm256_castsi256_ps(is_particle);
  const int particle_bits = _mm256_movemask_ps(particle);  // bit l: lane l has a particle partner
  __m256 wi[4], si[4], wj[4], sj[4], sk[4], ng[4], lk[4];
  load_records(p.a, S, kIterW, i, wi);  // w x, y, z, split
  load_records(p.a, S, kIterS, i, si);  // s x, y, z, 0
  load_records(p.a, S, kIterW, j_safe, wj);
  load_records(p.a, S, kIterS, j_safe, sj);
  // A wall's or body's surface velocity and friction: unread where every lane is a pair.
  if (particle_bits != 0xff) {
    load_records(p.surface, R, 0, k, sk);
  } else {
    sk[0] = sk[1] = sk[2] = sk[3] = zero;
  }
  load_records(p.normal_gap, R, 0, k, ng);
  load_records(p.impulse, R, 0, k, lk);

  const __m256 ux = _mm256_sub_ps(wi[0], select(particle, wj[0], sk[0]));
  const __m256 uy = _mm256_sub_ps(wi[1], select(particle, wj[1], sk[1]));
  const __m256 uz = _mm256_sub_ps(wi[2], select(particle, wj[2], sk[2]));
  const __m256 vx = _mm256_sub_ps(si[0], select(particle, sj[0], zero));
  const __m256 vy = _mm256_sub_ps(si[1], select(particle, sj[1], zero));
  const __m256 vz = _mm256_sub_ps(si[2], select(particle, sj[2], zero));
  const __m256 mu = select(particle, _mm256_set1_ps(p.mu_particle), sk[3]);
  const __m256 m_eff =
      _mm256_div_ps(_mm256_set1_ps(p.omega), _mm256_add_ps(wi[3], select(particle, wj[3], zero)));
  const __m256 g = ng[3];
  const __m256 inv_dt = _mm256_set1_ps(p.inv_dt);
  const __m256 open_target = _mm256_mul_ps(_mm256_xor_ps(g, _mm256_set1_ps(-0.0f)), inv_dt);
  const __m256 overlap_pushout =
      min_of(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(-p.alpha), g), inv_dt),
             _mm256_set1_ps(p.max_pushout));
  const __m256 target = select(_mm256_cmp_ps(g, zero, _CMP_GT_OQ), open_target, zero);
  const __m256 pushout = select(_mm256_cmp_ps(g, zero, _CMP_LT_OQ), overlap_pushout, zero);
  const __m256 nx = ng[0], ny = ng[1], nz = ng[2];
  auto dot = [](__m256 ax, __m256 ay, __m256 az, __m256 bx, __m256 by, __m256 bz) {
    return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ax, bx), _mm256_mul_ps(ay, by)),
                         _mm256_mul_ps(az, bz));
  };
  const __m256 un = dot(ux, uy, uz, nx, ny, nz);
  const __m256 ox = lk[0], oy = lk[1], oz = lk[2];
  const __m256 on = dot(ox, oy, oz, nx, ny, nz);
  const __m256 ln =
      max_of(zero, _mm256_add_ps(on, _mm256_mul_ps(m_eff, _mm256_sub_ps(target, un))));
  auto tangential = [&](__m256 o, __m256 n, __m256 u) {
    return _mm256_sub_ps(_mm256_sub_ps(o, _mm256_mul_ps(on, n)),
                         _mm256_mul_ps(m_eff, _mm256_sub_ps(u, _mm256_mul_ps(un, n))));
  };
  __m256 tx = tangential(ox, nx, ux);
  __m256 ty = tangential(oy, ny, uy);
  __m256 tz = tangential(oz, nz, uz);
  const __m256 lt2 = dot(tx, ty, tz, tx, ty, tz);
  const __m256 cap = _mm256_mul_ps(mu, ln);
  const __m256 cone_scale = _mm256_div_ps(cap, _mm256_sqrt_ps(lt2));
  const __m256 scale = select(_mm256_cmp_ps(lt2, _mm256_mul_ps(cap, cap), _CMP_GT_OQ), cone_scale,
                              _mm256_set1_ps(1.0f));
  tx = _mm256_mul_ps(tx, scale);
  ty = _mm256_mul_ps(ty, scale);
  tz = _mm256_mul_ps(tz, scale);
  const __m256 nl[3] = {_mm256_add_ps(_mm256_mul_ps(ln, nx), tx),
                        _mm256_add_ps(_mm256_mul_ps(ln, ny), ty),
                        _mm256_add_ps(_mm256_mul_ps(ln, nz), tz)};
  const __m256 sign = _mm256_set1_ps(-0.0f);
  auto abs_diff = [&](__m256 x, __m256 y) { return _mm256_andnot_ps(sign, _mm256_sub_ps(x, y)); };
  const __m256 change =
      max_of(abs_diff(nl[0], ox), max_of(abs_diff(nl[1], oy), abs_diff(nl[2], oz)));
  const __m256 pn = max_of(
      zero, _mm256_add_ps(
                lk[3], _mm256_mul_ps(m_eff, _mm256_sub_ps(pushout, dot(vx, vy, vz, nx, ny, nz)))));
  __m128 own[8], mirrored[8];
  to_records({nl[0], nl[1], nl[2], pn}, own);
  to_records(
      {_mm256_xor_ps(nl[0], sign), _mm256_xor_ps(nl[1], sign), _mm256_xor_ps(nl[2], sign), pn},
      mirrored);
  for (int l = 0; l < 8; ++l) {
    _mm_storeu_ps(p.impulse + static_cast<std::size_t>(k[l]) * R, own[l]);
    if (particle_bits & (1 << l)) {
      _mm_storeu_ps(p.impulse + static_cast<std::size_t>(p.mirror[q + l]) * R, mirrored[l]);
    }
  }
  return change;
}

}  // namespace
#endif

int slot_lanes() {
#if defined(__AVX2__)
  return 8;
#else
  return 1;
#endif
}

float solve_slots(const SlotPass& p, std::int64_t begin, std::int64_t end) {
  float change = 0.0f;
  std::int64_t q = begin;
#if defined(__AVX2__)
  __m256 lane_change = _mm256_setzero_ps();
  // max_ps(x, y) is x > y ? x : y: a NaN change leaves the lane's maximum as it is, as
  // std::max(change, x) does in the scalar form, so the residual does not depend on the split.
  for (; q + 8 <= end; q += 8) lane_change = _mm256_max_ps(solve_slots8(p, q), lane_change);
  alignas(32) float lane[8];
  _mm256_store_ps(lane, lane_change);
  for (const float c : lane) change = std::max(change, c);
#endif
  for (; q < end; ++q) change = std::max(change, solve_slot(p, q));
  return change;
}

}  // namespace talus::particles
