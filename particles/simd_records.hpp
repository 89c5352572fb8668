#pragma once
// The solver's 8-lane record loads and stores (AVX2 builds only), shared by paper 001's pass
// (projected_jacobi_slots.cpp) and the rotating grains' pass (projected_jacobi_rotating.cpp):
// 16-byte records gathered by index and transposed in registers, which is faster than hardware
// gathers on this CPU (projected_jacobi_slots.hpp says why the lanes are hand-written).

#if defined(__AVX2__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace talus::particles {

// The four floats at base + stride * index[l] + offset for the 8 lanes l, as four vectors
// (component 0 .. 3 across the lanes): one 16-byte load per lane and a 4 x 4 transpose in each
// 128-bit half (lanes 0-3 low, 4-7 high).
inline void load_records(const float* base, std::size_t stride, std::size_t offset,
                         const std::int32_t* index, __m256 (&c)[4]) {
  __m256 r[4];
  for (int l = 0; l < 4; ++l) {
    const float* lo = base + stride * static_cast<std::size_t>(index[l]) + offset;
    const float* hi = base + stride * static_cast<std::size_t>(index[l + 4]) + offset;
    r[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
  }
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]);
  const __m256 t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]);
  const __m256 t3 = _mm256_unpackhi_ps(r[2], r[3]);
  c[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  c[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
  c[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  c[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}

// Per lane l, whether its partner code partner[l] is a particle's (all bits set; walls and bodies
// have negative codes) and, in j_safe[l], the particle whose records the lane reads: the partner,
// or for a wall or body the lane's own row[l] (a safe address whose values the lane ignores).
// One blend and one store: built lane by lane, the loads of the records waited on the scalar
// stores (store forwarding), a tenth of the rotating kernel in a profile.
inline __m256i particle_partner_lanes(const std::int32_t* partner, const std::int32_t* row,
                                      std::int32_t (&j_safe)[8]) {
  const __m256i code = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(partner));
  const __m256i is_particle = _mm256_cmpgt_epi32(code, _mm256_set1_epi32(-1));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(j_safe),
                      _mm256_blendv_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)),
                                         code, is_particle));
  return is_particle;
}

// The inverse of load_records: lane l's four components as one 16-byte record, in r[l].
inline void to_records(const __m256 (&c)[4], __m128 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]);
  const __m256 t1 = _mm256_unpackhi_ps(c[0], c[1]);
  const __m256 t2 = _mm256_unpacklo_ps(c[2], c[3]);
  const __m256 t3 = _mm256_unpackhi_ps(c[2], c[3]);
  const __m256 q[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                       _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xEE)};
  for (int l = 0; l < 4; ++l) {
    r[l] = _mm256_castps256_ps128(q[l]);
    r[l + 4] = _mm256_extractf128_ps(q[l], 1);
  }
}

}  // namespace talus::particles
#endif
