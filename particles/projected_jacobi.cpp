#include "particles/projected_jacobi.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

namespace talus::particles {

int solve_projected_jacobi(const ParticleModel& model, const float* inv_mass, const float* vpx,
                           const float* vpy, const float* vpz, std::vector<float> (&iterate)[2],
                           ContactList& contacts, std::size_t n, int iterations, double relaxation,
                           std::vector<double>& residual, int threads) {
  const auto count = static_cast<std::int64_t>(n);
  const float omega = static_cast<float>(relaxation);
  // Target and push-out speeds from the stored gap, the same expressions the detection pass used
  // to store (docs/particles.md §2): one array read per slot instead of two.
  const float inv_dt = static_cast<float>(1.0 / model.dt_s);
  const float alpha = static_cast<float>(model.baumgarte);
  const float max_pushout = static_cast<float>(std::min(model.max_pushout_speed_m_per_s, 1e30));
  const float mu_particle = static_cast<float>(model.friction);
  const std::int32_t* start = contacts.start.data();
  const std::int32_t* row_end = contacts.end.data();
  const std::int32_t* partner = contacts.partner.data();
  // Slot records of kSlotStride floats (particle_contacts.hpp).
  constexpr std::size_t R = kSlotStride;
  const float* normal_gap = contacts.normal_gap.data();
  const float* surface = contacts.surface.data();
  float* impulse = contacts.impulse.data();
  const std::size_t slots = contacts.partner.size();
  contacts.m_eff.resize(slots);
  contacts.mirror.resize(slots);
  contacts.own_start.resize(n);
  float* meff = contacts.m_eff.data();
  std::int32_t* mirror = contacts.mirror.data();
  std::int32_t* own_start = contacts.own_start.data();
  float* buffers[2] = {iterate[0].data(), iterate[1].data()};
  constexpr std::size_t S = kIterateStride;

  // Per sweep and thread: the largest impulse change (max is order independent: deterministic for
  // any thread count).
  const int max_team = std::max(threads, 1);
  std::vector<float> change(static_cast<std::size_t>(std::max(iterations, 0)) * max_team, 0.0f);
  std::vector<std::int64_t> uniform;
  const std::span<const std::int64_t> chunk = chunks_for(&contacts, n, max_team, uniform);
  std::atomic<bool> unpaired{false};
#pragma omp parallel num_threads(threads)
  {
    // Thread-local copies: the outlined region otherwise reloads the shared constants through a
    // pointer after every store to the impulse arrays (possible aliasing).
    const float l_omega = omega, l_inv_dt = inv_dt, l_alpha = alpha, l_max_pushout = max_pushout;
    const float l_mu_particle = mu_particle;
    const int t = omp_get_thread_num();
    // Once per step: which slots each row computes, the pairs' mirror slots and the effective
    // masses. A pair (i, j), i < j, is computed in row i only; its copy in row j (canonical
    // order: found among the first slots of that row) receives the negated impulse. The other
    // copy's value is exactly what row j would have computed itself (the two copies evaluate the
    // same expressions with negated vectors, see below), so the results are those of the
    // per-row solve at half the arithmetic. Each mirror entry is written by one row only.
    // Each thread takes its chunk of about equal work (balanced_chunks) in every pass, or an even
    // split when OpenMP gave a different team size.
    const int team = omp_get_num_threads();
    const std::int64_t lo = team == max_team ? chunk[t] : count * t / team;
    const std::int64_t hi = team == max_team ? chunk[t + 1] : count * (t + 1) / team;
    {
      const float* a = buffers[0];
      for (std::int64_t i = lo; i < hi; ++i) {
        const float ki = a[static_cast<std::size_t>(i) * S + kIterSplit];
        std::int32_t k = start[i];
        const std::int32_t end = row_end[i];
        while (k < end && partner[k] >= 0 && partner[k] < i) ++k;
        own_start[i] = k;
        for (; k < end; ++k) {
          const std::int32_t j = partner[k];
          if (j < 0) {
            mirror[k] = -1;
            meff[k] = l_omega / ki;
            continue;
          }
          std::int32_t m = start[j];
          while (m < row_end[j] && partner[m] != i) ++m;
          if (m == row_end[j]) {
            unpaired.store(true, std::memory_order_relaxed);
            continue;
          }
          mirror[k] = m;
          mirror[m] = k;
          meff[k] = l_omega / (ki + a[static_cast<std::size_t>(j) * S + kIterSplit]);
        }
      }
    }
#pragma omp barrier
    // Read after the pair pass's barrier: every thread sees the same value and skips the sweeps
    // together.
    const bool skip = unpaired.load(std::memory_order_relaxed);
    int cur = 0;
    for (int it = 0; it < iterations && !skip; ++it) {
      const float* a = buffers[cur];
      float* b = buffers[1 - cur];
      float sweep_change = 0.0f;
      // Pass 1: the new impulse of every contact, once (each pair in its lower particle's row).
      for (std::int64_t i = lo; i < hi; ++i) {
        const float* ai = a + static_cast<std::size_t>(i) * S;
        const float wix = ai[kIterW], wiy = ai[kIterW + 1], wiz = ai[kIterW + 2];
        const float qix = ai[kIterS], qiy = ai[kIterS + 1], qiz = ai[kIterS + 2];
        const std::int32_t end = row_end[i];
        for (std::int32_t k = own_start[i]; k < end; ++k) {
          const std::int32_t j = partner[k];
          float ux, uy, uz, mu;
          float vx = qix, vy = qiy, vz = qiz;  // relative pseudo-velocity
          // Relative velocity of i with respect to its partner. Row j would evaluate the same
          // expressions with negated vectors (w_j - w_i, -n), so its impulse would be the exact
          // negative of this one (IEEE rounding is symmetric in sign; un and on, products of two
          // negated factors, are equal): the mirror slot takes -lambda and the same push-out p.
          if (j >= 0) {
            const float* aj = a + static_cast<std::size_t>(j) * S;
            ux = wix - aj[kIterW];
            uy = wiy - aj[kIterW + 1];
            uz = wiz - aj[kIterW + 2];
            vx -= aj[kIterS];
            vy -= aj[kIterS + 1];
            vz -= aj[kIterS + 2];
            mu = l_mu_particle;
          } else {
            const float* sk = surface + static_cast<std::size_t>(k) * R;
            ux = wix - sk[0];
            uy = wiy - sk[1];
            uz = wiz - sk[2];
            mu = sk[3];
          }
          const float* ngk = normal_gap + static_cast<std::size_t>(k) * R;
          float* lk = impulse + static_cast<std::size_t>(k) * R;
          // Both candidates computed, then selected: the sign of a resting contact's gap is
          // random, and as branches these mispredicted.
          const float g = ngk[3];
          const float open_target = -g * l_inv_dt;
          const float overlap_pushout = std::min(-l_alpha * g * l_inv_dt, l_max_pushout);
          const float target = g > 0.0f ? open_target : 0.0f;
          const float pushout = g < 0.0f ? overlap_pushout : 0.0f;
          const float nx = ngk[0], ny = ngk[1], nz = ngk[2];
          const float m_eff = meff[k];
          const float un = ux * nx + uy * ny + uz * nz;
          const float ox = lk[0], oy = lk[1], oz = lk[2];
          const float on = ox * nx + oy * ny + oz * nz;
          // Normal: clamp at zero after adding the correction toward the target speed (Alg. 1,
          // l.5).
          const float ln = std::max(0.0f, on + m_eff * (target - un));
          // Tangential: remove the sliding velocity, then project onto the Coulomb cone (Alg. 1,
          // l.6-7).
          float tx = (ox - on * nx) - m_eff * (ux - un * nx);
          float ty = (oy - on * ny) - m_eff * (uy - un * ny);
          float tz = (oz - on * nz) - m_eff * (uz - un * nz);
          const float lt2 = tx * tx + ty * ty + tz * tz;
          const float cap = mu * ln;
          // Scale computed unconditionally and selected (x 1 is exact), for the same reason:
          // whether a resting contact sits on its friction cone flickers from slot to slot.
          const float cone_scale = cap / std::sqrt(lt2);
          const float scale = lt2 > cap * cap ? cone_scale : 1.0f;
          tx *= scale;
          ty *= scale;
          tz *= scale;
          const float nlx = ln * nx + tx, nly = ln * ny + ty, nlz = ln * nz + tz;
          sweep_change = std::max(
              sweep_change,
              std::max(std::abs(nlx - ox), std::max(std::abs(nly - oy), std::abs(nlz - oz))));
          // Split impulse: push-out on the pseudo-velocities, normal only.
          const float pn =
              std::max(0.0f, lk[3] + m_eff * (pushout - (vx * nx + vy * ny + vz * nz)));
          lk[0] = nlx;
          lk[1] = nly;
          lk[2] = nlz;
          lk[3] = pn;
          if (j >= 0) {
            float* lm = impulse + static_cast<std::size_t>(mirror[k]) * R;
            lm[0] = -nlx;
            lm[1] = -nly;
            lm[2] = -nlz;
            lm[3] = pn;
          }
        }
      }
      // Pass 2, after a barrier (every slot of the sweep is written): each particle's sums over
      // its whole row, in row order, into its next iterate record.
#pragma omp barrier
      for (std::int64_t i = lo; i < hi; ++i) {
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        float px = 0.0f, py = 0.0f, pz = 0.0f;
        const std::int32_t end = row_end[i];
        for (std::int32_t k = start[i]; k < end; ++k) {
          const float* lk = impulse + static_cast<std::size_t>(k) * R;
          const float* ngk = normal_gap + static_cast<std::size_t>(k) * R;
          sx += lk[0];
          sy += lk[1];
          sz += lk[2];
          const float pn = lk[3];
          px += pn * ngk[0];
          py += pn * ngk[1];
          pz += pn * ngk[2];
        }
        const float* ai = a + static_cast<std::size_t>(i) * S;
        float* bi = b + static_cast<std::size_t>(i) * S;
        // The average of the particle's split sub-velocities (mass splitting).
        bi[kIterW] = vpx[i] + inv_mass[i] * sx;
        bi[kIterW + 1] = vpy[i] + inv_mass[i] * sy;
        bi[kIterW + 2] = vpz[i] + inv_mass[i] * sz;
        bi[kIterSplit] = ai[kIterSplit];
        bi[kIterS] = inv_mass[i] * px;
        bi[kIterS + 1] = inv_mass[i] * py;
        bi[kIterS + 2] = inv_mass[i] * pz;
        bi[kIterS + 3] = 0.0f;
      }
      change[static_cast<std::size_t>(it) * max_team + t] = sweep_change;
      cur = 1 - cur;
      // Every record of b is written before any thread reads it as a in the next sweep.
#pragma omp barrier
    }
  }
  if (unpaired.load()) {
    throw std::logic_error(
        "particle solver: a particle pair is in one particle's contact row but not in the "
        "other's (the detection pass must store both copies)");
  }
  for (int it = 0; it < iterations; ++it) {
    float sweep = 0.0f;
    for (int t = 0; t < max_team; ++t) {
      sweep = std::max(sweep, change[static_cast<std::size_t>(it) * max_team + t]);
    }
    residual.push_back(sweep);
  }
  return iterations % 2;
}

}  // namespace talus::particles
