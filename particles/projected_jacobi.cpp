#include "particles/projected_jacobi.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

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
  const float* cnx = contacts.nx.data();
  const float* cny = contacts.ny.data();
  const float* cnz = contacts.nz.data();
  const float* gap = contacts.gap_m.data();
  float* push = contacts.push.data();
  const float* cux = contacts.ux.data();
  const float* cuy = contacts.uy.data();
  const float* cuz = contacts.uz.data();
  const float* cmu = contacts.mu.data();
  float* lx = contacts.lx.data();
  float* ly = contacts.ly.data();
  float* lz = contacts.lz.data();
  contacts.m_eff.resize(contacts.partner.size());
  float* meff = contacts.m_eff.data();
  float* buffers[2] = {iterate[0].data(), iterate[1].data()};
  constexpr std::size_t S = kIterateStride;

  // Per sweep and thread: the largest impulse change (max is order independent: deterministic for
  // any thread count).
  const int max_team = std::max(threads, 1);
  std::vector<float> change(static_cast<std::size_t>(std::max(iterations, 0)) * max_team, 0.0f);
#pragma omp parallel num_threads(threads)
  {
    // Thread-local copies: the outlined region otherwise reloads the shared constants through a
    // pointer after every store to the impulse arrays (possible aliasing).
    const float l_omega = omega, l_inv_dt = inv_dt, l_alpha = alpha, l_max_pushout = max_pushout;
    const float l_mu_particle = mu_particle;
    const int t = omp_get_thread_num();
    // Effective masses, once per step: the split inverse masses do not change between sweeps, so
    // the per-slot division and the partner's split-mass gather leave the sweep loop.
    {
      const float* a = buffers[0];
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < count; ++i) {
        const float ki = a[static_cast<std::size_t>(i) * S + kIterSplit];
        for (std::int32_t k = start[i]; k < row_end[i]; ++k) {
          const std::int32_t j = partner[k];
          const float k_sum = j >= 0 ? ki + a[static_cast<std::size_t>(j) * S + kIterSplit] : ki;
          meff[k] = l_omega / k_sum;
        }
      }
    }
    int cur = 0;
    for (int it = 0; it < iterations; ++it) {
      const float* a = buffers[cur];
      float* b = buffers[1 - cur];
      float sweep_change = 0.0f;
      // The implicit barrier at the end of the loop: every record of b is written before any
      // thread reads it as a in the next sweep.
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < count; ++i) {
        const float* ai = a + static_cast<std::size_t>(i) * S;
        const float wix = ai[kIterW], wiy = ai[kIterW + 1], wiz = ai[kIterW + 2];
        const float ki = ai[kIterSplit];  // carried to the next record
        const float qix = ai[kIterS], qiy = ai[kIterS + 1], qiz = ai[kIterS + 2];
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        float px = 0.0f, py = 0.0f, pz = 0.0f;
        const std::int32_t end = row_end[i];
        for (std::int32_t k = start[i]; k < end; ++k) {
          const std::int32_t j = partner[k];
          float ux, uy, uz, mu;
          float vx = qix, vy = qiy, vz = qiz;  // relative pseudo-velocity
          // Relative velocity of i with respect to its partner. For a particle pair both copies
          // evaluate the same expressions with negated vectors, so their impulses are exact
          // negatives (and both effective masses are equal: ki + kj and kj + ki are equal in
          // IEEE arithmetic).
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
            ux = wix - cux[k];
            uy = wiy - cuy[k];
            uz = wiz - cuz[k];
            mu = cmu[k];
          }
          // Both candidates computed, then selected: the sign of a resting contact's gap is
          // random, and as branches these mispredicted.
          const float g = gap[k];
          const float open_target = -g * l_inv_dt;
          const float overlap_pushout = std::min(-l_alpha * g * l_inv_dt, l_max_pushout);
          const float target = g > 0.0f ? open_target : 0.0f;
          const float pushout = g < 0.0f ? overlap_pushout : 0.0f;
          const float nx = cnx[k], ny = cny[k], nz = cnz[k];
          const float m_eff = meff[k];
          const float un = ux * nx + uy * ny + uz * nz;
          const float ox = lx[k], oy = ly[k], oz = lz[k];
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
          lx[k] = nlx;
          ly[k] = nly;
          lz[k] = nlz;
          sx += nlx;
          sy += nly;
          sz += nlz;
          // Split impulse: push-out on the pseudo-velocities, normal only.
          const float pn =
              std::max(0.0f, push[k] + m_eff * (pushout - (vx * nx + vy * ny + vz * nz)));
          push[k] = pn;
          px += pn * nx;
          py += pn * ny;
          pz += pn * nz;
        }
        float* bi = b + static_cast<std::size_t>(i) * S;
        // The average of the particle's split sub-velocities (mass splitting).
        bi[kIterW] = vpx[i] + inv_mass[i] * sx;
        bi[kIterW + 1] = vpy[i] + inv_mass[i] * sy;
        bi[kIterW + 2] = vpz[i] + inv_mass[i] * sz;
        bi[kIterSplit] = ki;
        bi[kIterS] = inv_mass[i] * px;
        bi[kIterS + 1] = inv_mass[i] * py;
        bi[kIterS + 2] = inv_mass[i] * pz;
        bi[kIterS + 3] = 0.0f;
      }
      change[static_cast<std::size_t>(it) * max_team + t] = sweep_change;
      cur = 1 - cur;
    }
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
