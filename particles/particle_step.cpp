#include "particles/particle_step.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/stopwatch.hpp"
#include "particles/particle_order.hpp"
#include "particles/projected_jacobi.hpp"
#include "particles/projected_jacobi_rotating.hpp"

namespace talus::particles {
namespace {

using Clock = StopwatchClock;

// Particles per block of the fixed-block sums: the blocks, not the threads, fix the order in
// which doubles are added, so the totals are the same for any thread count.
constexpr std::int64_t kBlock = 1024;

// Stage: predict. v* = v + dt g, the velocity before contact impulses (§II-A eq. (1), b).
void predict_velocities(const ParticleModel& model, const ParticleState& s, ParticleWorkspace& w,
                        int threads) {
  const std::size_t n = s.size();
  w.vpx.resize(n);
  w.vpy.resize(n);
  w.vpz.resize(n);
  const float gx = static_cast<float>(model.gravity_m_per_s2.x() * model.time_step_s);
  const float gy = static_cast<float>(model.gravity_m_per_s2.y() * model.time_step_s);
  const float gz = static_cast<float>(model.gravity_m_per_s2.z() * model.time_step_s);
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) {
    w.vpx[i] = s.vx_m_per_s[i] + gx;
    w.vpy[i] = s.vy_m_per_s[i] + gy;
    w.vpz[i] = s.vz_m_per_s[i] + gz;
  }
}

// Stage: broadphase (§II-B). Keeps the neighbour list while it covers the particles, refreshes
// the rows of those that moved, or bins all particles into the hash and rebuilds the list from it
// (at every step without a skin: no list). Returns the list the detection pass reads, or nullptr
// when it searches the hash itself.
const NeighbourList* bin_particles(const ParticleModel& model, const ParticleState& s,
                                   ParticleWorkspace& w, int threads) {
  const std::size_t n = s.size();
  const auto count = static_cast<std::int64_t>(n);
  float max_r = 0.0f;
  const float* r = s.radius_m.data();
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max : max_r)
  for (std::int64_t i = 0; i < count; ++i) max_r = std::max(max_r, r[i]);
  const float skin = neighbour_skin_m(model, max_r);
  if (skin > 0.0f) {
    switch (neighbour_list_need(w.neighbours, model, s, skin, threads)) {
      case NeighbourListNeed::kNothing:
        return &w.neighbours;
      case NeighbourListNeed::kRefresh:
        refresh_neighbour_list(w.neighbours, w.hash, model, s, skin, threads);
        return &w.neighbours;
      case NeighbourListNeed::kBuild:
        break;
    }
  }
  build_spatial_hash(w.hash, model.broadphase, make_cell_grid(model, max_r, skin),
                     model.hash_table_factor, s.x_m.data(), s.y_m.data(), s.z_m.data(), n, threads);
  if (skin <= 0.0f) {
    w.neighbours.built = false;
    return nullptr;
  }
  build_neighbour_list(w.neighbours, w.hash, model, s, skin, threads);
  return &w.neighbours;
}

// Stage: wrenches. The force on body b is minus the impulses its contacts gave particles, over
// dt, acting at the contact point on the particle's surface; torque about R (p_WR = X_WB p_BR).
std::vector<Wrench> body_wrenches(const ParticleModel& model, const ParticleState& s,
                                  std::span<const BodyMotion> motions, ParticleWorkspace& w,
                                  int threads) {
  const std::size_t bodies = model.bodies.size();
  std::vector<Vec3> p_WR(bodies);
  for (std::size_t b = 0; b < bodies; ++b) p_WR[b] = motions[b].X_WB * model.bodies[b].p_BR;
  const auto count = static_cast<std::int64_t>(s.size());
  const std::int64_t blocks = (count + kBlock - 1) / kBlock;
  w.body_block_sums.assign(static_cast<std::size_t>(blocks) * bodies * 6, 0.0);
  if (bodies > 0) {
    const ContactList& c = w.contacts;
    const double inv_dt = 1.0 / model.time_step_s;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      double* sum = w.body_block_sums.data() + blk * static_cast<std::int64_t>(bodies) * 6;
      const std::int64_t end = std::min(count, (blk + 1) * kBlock);
      for (std::int64_t i = blk * kBlock; i < end; ++i) {
        // A row's body slots come last (canonical order: particles, walls, bodies): found from
        // the row's end, one test for a row without any, then summed in row order. Testing every
        // slot was 2 % of Bulldozing-v0's push.
        std::int32_t first_body = c.end[i];
        while (first_body > c.start[i] && partner_body(c.partner[first_body - 1]) >= 0) {
          --first_body;
        }
        for (std::int32_t k = first_body; k < c.end[i]; ++k) {
          const std::int32_t b = partner_body(c.partner[k]);
          const float* ng = c.normal_gap.data() + static_cast<std::size_t>(k) * kSlotStride;
          const float* l = c.impulse.data() + static_cast<std::size_t>(k) * kSlotStride;
          const Vec3 n(ng[0], ng[1], ng[2]);
          const Vec3 f = -inv_dt * Vec3(l[0], l[1], l[2]);
          // The contact point: on the particle's surface (paper 001's grains); for rotating
          // grains the body's nearest surface point, where the particle's torque acts too
          // (contact_lever), so that the two balance exactly.
          const double lever =
              model.rotation ? contact_lever(s.radius_m[i], ng[3], false) : double(s.radius_m[i]);
          const Vec3 p = Vec3(s.x_m[i], s.y_m[i], s.z_m[i]) - lever * n;
          Vec3 tau = (p - p_WR[b]).cross(f);
          if (model.rotation) {  // the rolling resistance's torque on the body
            const float* e = c.rolling.data() + static_cast<std::size_t>(k) * kSlotStride;
            tau -= inv_dt * Vec3(e[0], e[1], e[2]);
          }
          double* sb = sum + b * 6;
          for (int a = 0; a < 3; ++a) {
            sb[a] += f[a];
            sb[3 + a] += tau[a];
          }
        }
      }
    }
  }
  std::vector<Wrench> out(bodies);
  for (std::size_t b = 0; b < bodies; ++b) {
    Wrench wr = Wrench::about(p_WR[b]);
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      const double* sb =
          w.body_block_sums.data() + (blk * static_cast<std::int64_t>(bodies) + b) * 6;
      wr.f_W += Vec3(sb[0], sb[1], sb[2]);
      wr.tau_W += Vec3(sb[3], sb[4], sb[5]);
    }
    out[b] = wr;
  }
  return out;
}

// Stage: integrate (symplectic Euler, §II-A eq. (4), (5)) into the workspace, then check; the
// state takes the new arrays only when they pass.
void integrate_and_check(const ParticleModel& model, ParticleState& s, ParticleWorkspace& w,
                         int final_buffer, int threads) {
  const std::size_t n = s.size();
  const auto count = static_cast<std::int64_t>(n);
  for (auto* a : {&w.new_x, &w.new_y, &w.new_z, &w.new_vx, &w.new_vy, &w.new_vz}) a->resize(n);
  const bool rotation = model.rotation;
  for (auto* a : {&w.new_wx, &w.new_wy, &w.new_wz}) a->resize(rotation ? n : 0);
  const float* spin = rotation ? w.spin[final_buffer].data() : nullptr;
  const float dt = static_cast<float>(model.time_step_s);
  const int pa = model.periodic_axis;
  const float lo = pa >= 0 ? static_cast<float>(model.container.box.lo[pa]) : 0.0f;
  const float hi = pa >= 0 ? static_cast<float>(model.container.box.hi[pa]) : 0.0f;
  const float period = hi - lo;
  const float* it = w.iterate[final_buffer].data();
  std::int64_t first_bad = count;
  const std::int64_t blocks = (count + kBlock - 1) / kBlock;
  std::vector<double> energy(static_cast<std::size_t>(blocks), 0.0);
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : first_bad)
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    const std::int64_t end = std::min(count, (blk + 1) * kBlock);
    double e = 0.0;
    for (std::int64_t i = blk * kBlock; i < end; ++i) {
      const float* rec = it + static_cast<std::size_t>(i) * kIterateStride;
      const float vx = rec[kIterW], vy = rec[kIterW + 1], vz = rec[kIterW + 2];
      float p[3] = {s.x_m[i] + dt * (vx + rec[kIterS]), s.y_m[i] + dt * (vy + rec[kIterS + 1]),
                    s.z_m[i] + dt * (vz + rec[kIterS + 2])};
      if (pa >= 0) {
        if (p[pa] < lo) p[pa] += period;
        if (p[pa] >= hi) p[pa] -= period;
      }
      w.new_x[i] = p[0];
      w.new_y[i] = p[1];
      w.new_z[i] = p[2];
      w.new_vx[i] = vx;
      w.new_vy[i] = vy;
      w.new_vz[i] = vz;
      if (!(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]) &&
            std::isfinite(vx) && std::isfinite(vy) && std::isfinite(vz))) {
        first_bad = std::min(first_bad, i);
      }
      e += 0.5 * (double(vx) * vx + double(vy) * vy + double(vz) * vz) / s.inv_mass_per_kg[i];
      if (rotation) {
        const float* om = spin + static_cast<std::size_t>(i) * kSpinStride;
        w.new_wx[i] = om[0];
        w.new_wy[i] = om[1];
        w.new_wz[i] = om[2];
        if (!(std::isfinite(om[0]) && std::isfinite(om[1]) && std::isfinite(om[2]))) {
          first_bad = std::min(first_bad, i);
        }
        const double r = om[kSpinRadius];
        e += 0.2 * r * r * (double(om[0]) * om[0] + double(om[1]) * om[1] + double(om[2]) * om[2]) /
             s.inv_mass_per_kg[i];
      }
    }
    energy[static_cast<std::size_t>(blk)] = e;
  }
  const std::int64_t step = s.step + 1;
  if (first_bad < count) {
    const auto i = static_cast<std::size_t>(first_bad);
    throw ParticleDivergence(
        step, s.id_of(i),
        fmt::format("particle step {}: particle {} diverged: position ({}, {}, {}) m, velocity "
                    "({}, {}, {}) m/s{} is not finite; the state is kept at step {}",
                    step, s.id_of(i), w.new_x[i], w.new_y[i], w.new_z[i], w.new_vx[i], w.new_vy[i],
                    w.new_vz[i],
                    rotation ? fmt::format(", angular velocity ({}, {}, {}) rad/s", w.new_wx[i],
                                           w.new_wy[i], w.new_wz[i])
                             : std::string(),
                    s.step));
  }
  double total = 0.0;
  for (double e : energy) total += e;
  if (total > model.max_kinetic_energy_J) {
    std::size_t worst = 0;
    double worst_e = -1.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double vx = w.new_vx[i], vy = w.new_vy[i], vz = w.new_vz[i];
      const double e = (vx * vx + vy * vy + vz * vz) / s.inv_mass_per_kg[i];  // twice 1/2 m v^2
      if (e > worst_e) {
        worst_e = e;
        worst = i;
      }
    }
    throw ParticleDivergence(
        step, s.id_of(worst),
        fmt::format("particle step {}: kinetic energy {} J exceeds max_kinetic_energy_J = {} J; "
                    "particle {} moves fastest ({} m/s); the state is kept at step {}",
                    step, total, model.max_kinetic_energy_J, s.id_of(worst),
                    std::sqrt(worst_e * s.inv_mass_per_kg[worst]), s.step));
  }
  s.x_m.swap(w.new_x);
  s.y_m.swap(w.new_y);
  s.z_m.swap(w.new_z);
  s.vx_m_per_s.swap(w.new_vx);
  s.vy_m_per_s.swap(w.new_vy);
  s.vz_m_per_s.swap(w.new_vz);
  if (rotation) {
    s.wx_rad_per_s.swap(w.new_wx);
    s.wy_rad_per_s.swap(w.new_wy);
    s.wz_rad_per_s.swap(w.new_wz);
  }
  s.step = step;
  s.time_s += model.time_step_s;
}

// Stage: order (particle_order.hpp). Puts the particles along a Morton curve of cells one contact
// reach wide, carrying identities and warm-start contacts; the neighbour list is by index, so it
// is built afresh at the next step.
void sort_spatially(const ParticleModel& model, ParticleState& s, ParticleWorkspace& w) {
  if (s.size() == 0) return;
  const float max_r = *std::max_element(s.radius_m.begin(), s.radius_m.end());
  reorder_particles(s, spatial_order(s, 2.0f * max_r + float(model.contact_margin_m)));
  w.neighbours.built = false;
}

}  // namespace

void step(const ParticleModel& model, ParticleState& state, std::span<const BodyMotion> motions,
          ParticleWorkspace& workspace) {
  if (motions.size() != model.bodies.size()) {
    throw std::invalid_argument(fmt::format("particle step: {} body motions given for {} bodies",
                                            motions.size(), model.bodies.size()));
  }
  const int threads = model.threads > 0 ? model.threads : omp_get_max_threads();
  const std::size_t n = state.size();
  ParticleWorkspace& w = workspace;
  // The detection pass writes every record of iterate[0] (s = 0 included): no clearing here.
  for (auto& buffer : w.iterate) buffer.resize(n * kIterateStride);
  for (auto& buffer : w.spin) buffer.resize(model.rotation ? n * kSpinStride : 0);
  w.body_omega.resize(3 * motions.size());
  for (std::size_t b = 0; b < motions.size(); ++b) {
    for (int a = 0; a < 3; ++a)
      w.body_omega[3 * b + a] = static_cast<float>(motions[b].V_WB.w_W[a]);
  }
  w.residual_per_iteration.clear();

  auto t0 = Clock::now();
  predict_velocities(model, state, w, threads);
  w.times.integrate_s += seconds_since(t0);

  t0 = Clock::now();
  const NeighbourList* neighbours = bin_particles(model, state, w, threads);
  w.times.broadphase_s += seconds_since(t0);

  t0 = Clock::now();
  detect_contacts(model, state, motions, w.hash, neighbours, &state.contacts, w.vpx.data(),
                  w.vpy.data(), w.vpz.data(), w.iterate[0].data(),
                  model.rotation ? w.spin[0].data() : nullptr, w.contacts, threads);
  w.times.contacts_s += seconds_since(t0);

  t0 = Clock::now();
  const SpinSolve spin{{w.spin[0].data(), w.spin[1].data()},
                       state.wx_rad_per_s.data(),
                       state.wy_rad_per_s.data(),
                       state.wz_rad_per_s.data(),
                       w.body_omega.data(),
                       static_cast<float>(model.rolling_friction)};
  const int final_buffer = solve_projected_jacobi(
      model, state.inv_mass_per_kg.data(), w.vpx.data(), w.vpy.data(), w.vpz.data(), w.iterate,
      w.contacts, n, model.iterations, model.relaxation, w.residual_per_iteration, threads,
      model.rotation ? &spin : nullptr);
  w.times.solve_s += seconds_since(t0);

  t0 = Clock::now();
  std::vector<Wrench> wrenches = body_wrenches(model, state, motions, w, threads);
  integrate_and_check(model, state, w, final_buffer, threads);
  state.body_wrenches = std::move(wrenches);
  // This step's contacts warm-start the next; the last step's buffer is reused for the next list.
  std::swap(state.contacts, w.contacts);
  w.times.integrate_s += seconds_since(t0);

  t0 = Clock::now();
  if (spatial_sort_due(model, state.step)) sort_spatially(model, state, w);
  w.times.broadphase_s += seconds_since(t0);
}

std::vector<BodyMotion> motions_at(std::span<const Driver> drivers, double t_s) {
  std::vector<BodyMotion> motions;
  motions.reserve(drivers.size());
  for (const Driver& d : drivers) motions.push_back(BodyMotion{pose_at(d, t_s), twist_at(d, t_s)});
  return motions;
}

}  // namespace talus::particles
