#include "particles/projected_jacobi.hpp"

#include <algorithm>
#include <cmath>

namespace talus::particles {

int solve_projected_jacobi(const ParticleModel& model, const float* inv_mass, const float* vpx,
                           const float* vpy, const float* vpz, std::vector<float> (&wx)[2],
                           std::vector<float> (&wy)[2], std::vector<float> (&wz)[2],
                           std::vector<float> (&psx)[2], std::vector<float> (&psy)[2],
                           std::vector<float> (&psz)[2], ContactList& contacts, std::size_t n,
                           int iterations, double relaxation, std::vector<double>& residual,
                           int threads) {
  (void)model;
  const auto count = static_cast<std::int64_t>(n);
  const float omega = static_cast<float>(relaxation);
  const std::int32_t capacity = contacts.capacity;
  const std::int32_t* slots_used = contacts.count.data();
  const std::int32_t* partner = contacts.partner.data();
  const float* cnx = contacts.nx.data();
  const float* cny = contacts.ny.data();
  const float* cnz = contacts.nz.data();
  const float* target = contacts.target_m_per_s.data();
  const float* pushout = contacts.pushout_m_per_s.data();
  float* push = contacts.push.data();
  const float* cux = contacts.ux.data();
  const float* cuy = contacts.uy.data();
  const float* cuz = contacts.uz.data();
  const float* cmu = contacts.mu.data();
  const float* split = contacts.split_inv_mass.data();
  float* lx = contacts.lx.data();
  float* ly = contacts.ly.data();
  float* lz = contacts.lz.data();

  int cur = 0;
  for (int it = 0; it < iterations; ++it) {
    const float* ax = wx[cur].data();
    const float* ay = wy[cur].data();
    const float* az = wz[cur].data();
    float* bx = wx[1 - cur].data();
    float* by = wy[1 - cur].data();
    float* bz = wz[1 - cur].data();
    const float* qx = psx[cur].data();
    const float* qy = psy[cur].data();
    const float* qz = psz[cur].data();
    float* rx = psx[1 - cur].data();
    float* ry = psy[1 - cur].data();
    float* rz = psz[1 - cur].data();
    float change = 0.0f;  // max is order independent: deterministic for any thread count
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max : change)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::size_t base = static_cast<std::size_t>(i) * capacity;
      const std::int32_t used = slots_used[i];
      const float wix = ax[i], wiy = ay[i], wiz = az[i];
      const float ki = split[i];
      const float qix = qx[i], qiy = qy[i], qiz = qz[i];
      float sx = 0.0f, sy = 0.0f, sz = 0.0f;
      float px = 0.0f, py = 0.0f, pz = 0.0f;
      for (std::int32_t s = 0; s < used; ++s) {
        const std::size_t k = base + s;
        const std::int32_t j = partner[k];
        float ux, uy, uz, k_sum;
        float vx = qix, vy = qiy, vz = qiz;  // relative pseudo-velocity
        // Relative velocity of i with respect to its partner, and the split inverse masses. For a
        // particle pair both copies evaluate the same expressions with negated vectors, so their
        // impulses are exact negatives (the sums ki + kj and kj + ki are equal in IEEE arithmetic).
        if (j >= 0) {
          ux = wix - ax[j];
          uy = wiy - ay[j];
          uz = wiz - az[j];
          k_sum = ki + split[j];
          vx -= qx[j];
          vy -= qy[j];
          vz -= qz[j];
        } else {
          ux = wix - cux[k];
          uy = wiy - cuy[k];
          uz = wiz - cuz[k];
          k_sum = ki;
        }
        const float nx = cnx[k], ny = cny[k], nz = cnz[k];
        const float m_eff = omega / k_sum;
        const float un = ux * nx + uy * ny + uz * nz;
        const float ox = lx[k], oy = ly[k], oz = lz[k];
        const float on = ox * nx + oy * ny + oz * nz;
        // Normal: clamp at zero after adding the correction toward the target speed (Alg. 1, l.5).
        const float ln = std::max(0.0f, on + m_eff * (target[k] - un));
        // Tangential: remove the sliding velocity, then project onto the Coulomb cone (Alg. 1,
        // l.6-7).
        float tx = (ox - on * nx) - m_eff * (ux - un * nx);
        float ty = (oy - on * ny) - m_eff * (uy - un * ny);
        float tz = (oz - on * nz) - m_eff * (uz - un * nz);
        const float lt2 = tx * tx + ty * ty + tz * tz;
        const float cap = cmu[k] * ln;
        if (lt2 > cap * cap) {
          const float scale = cap / std::sqrt(lt2);
          tx *= scale;
          ty *= scale;
          tz *= scale;
        }
        const float nlx = ln * nx + tx, nly = ln * ny + ty, nlz = ln * nz + tz;
        change = std::max(
            change, std::max(std::abs(nlx - ox), std::max(std::abs(nly - oy), std::abs(nlz - oz))));
        lx[k] = nlx;
        ly[k] = nly;
        lz[k] = nlz;
        sx += nlx;
        sy += nly;
        sz += nlz;
        // Split impulse: push-out on the pseudo-velocities, normal only.
        const float pn =
            std::max(0.0f, push[k] + m_eff * (pushout[k] - (vx * nx + vy * ny + vz * nz)));
        push[k] = pn;
        px += pn * nx;
        py += pn * ny;
        pz += pn * nz;
      }
      rx[i] = inv_mass[i] * px;
      ry[i] = inv_mass[i] * py;
      rz[i] = inv_mass[i] * pz;
      // The average of the particle's split sub-velocities (mass splitting).
      bx[i] = vpx[i] + inv_mass[i] * sx;
      by[i] = vpy[i] + inv_mass[i] * sy;
      bz[i] = vpz[i] + inv_mass[i] * sz;
    }
    residual.push_back(change);
    cur = 1 - cur;
  }
  return cur;
}

}  // namespace talus::particles
