#include "particles/particle_contacts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace talus::particles {
namespace {

// The most contact candidates one particle may have before its slots are sorted: far above the
// kissing number of equal spheres (12); reached only with extreme size ratios or deep overlaps.
constexpr int kMaxCandidates = 256;

struct Candidate {
  std::int32_t partner;
  float nx, ny, nz;
  float gap_m;
  float ux, uy, uz;
  float mu;
};

// Sort key of a partner code in canonical slot order: particles ascending, then walls, then
// bodies (both in generation order).
std::uint32_t partner_key(std::int32_t p) {
  return p >= 0 ? static_cast<std::uint32_t>(p) : 0x80000000u + static_cast<std::uint32_t>(-1 - p);
}

// A body as the detection pass needs it, precomputed once per step.
struct BodyQuery {
  const Shape* shape = nullptr;
  Pose X_WB;
  Pose X_BW;
  Twist V_WB;
  bool bounded = true;
  Aabb bounds;  // world bounds inflated by the largest contact reach
};

void resize_slots(ContactList& c, std::size_t n) {
  const std::size_t slots = n * static_cast<std::size_t>(c.capacity);
  c.count.resize(n);
  c.split_inv_mass.resize(n);
  c.partner.resize(slots);
  for (auto* a : {&c.nx, &c.ny, &c.nz, &c.target_m_per_s, &c.pushout_m_per_s, &c.ux, &c.uy, &c.uz,
                  &c.mu, &c.lx, &c.ly, &c.lz, &c.push}) {
    a->resize(slots);
  }
}

}  // namespace

std::size_t distinct_contact_count(const ContactList& contacts) {
  std::size_t pair_slots = 0;
  std::size_t external = 0;
  const std::size_t n = contacts.count.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t base = i * static_cast<std::size_t>(contacts.capacity);
    for (std::int32_t s = 0; s < contacts.count[i]; ++s) {
      if (contacts.partner[base + s] >= 0) {
        ++pair_slots;
      } else {
        ++external;
      }
    }
  }
  return pair_slots / 2 + external;
}

void detect_contacts(const ParticleModel& model, const ParticleState& state,
                     std::span<const BodyMotion> motions, const SpatialHash& hash,
                     const ContactList* previous, const float* vpx, const float* vpy,
                     const float* vpz, float* wx, float* wy, float* wz, ContactList& contacts,
                     int threads) {
  const std::size_t n = state.size();
  const auto count = static_cast<std::int64_t>(n);
  const float* x = state.x_m.data();
  const float* y = state.y_m.data();
  const float* z = state.z_m.data();
  const float* r = state.radius_m.data();
  const float* inv_mass = state.inv_mass_per_kg.data();
  const float margin = static_cast<float>(model.contact_margin_m);
  const float inv_dt = static_cast<float>(1.0 / model.dt_s);
  const float alpha = static_cast<float>(model.baumgarte);
  const float max_pushout = static_cast<float>(std::min(model.max_pushout_speed_m_per_s, 1e30));
  const float mu_particle = static_cast<float>(model.friction);
  const float mu_wall = static_cast<float>(model.wall_friction);
  const float mu_body = static_cast<float>(model.body_friction);
  const int pa = model.periodic_axis;
  const float period =
      pa >= 0 ? static_cast<float>(model.container.box.hi[pa] - model.container.box.lo[pa]) : 0.0f;
  const float inv_period = pa >= 0 ? 1.0f / period : 0.0f;
  const float max_r =
      n > 0 ? *std::max_element(state.radius_m.begin(), state.radius_m.end()) : 0.0f;

  // Walls: per axis whether its two faces exist.
  const Container& box = model.container;
  bool face[3] = {false, false, false};
  if (box.kind == Container::Kind::kBox) {
    for (int a = 0; a < 3; ++a) face[a] = a != pa;
  } else if (box.kind == Container::Kind::kCylinder) {
    face[2] = true;
  }
  const float lo[3] = {float(box.box.lo.x()), float(box.box.lo.y()), float(box.box.lo.z())};
  const float hi[3] = {float(box.box.hi.x()), float(box.box.hi.y()), float(box.box.hi.z())};
  const bool cylinder = box.kind == Container::Kind::kCylinder;
  const float cyl_r = static_cast<float>(box.cylinder_radius_m);
  const float cyl_x = static_cast<float>(box.cylinder_axis_xy_m.x());
  const float cyl_y = static_cast<float>(box.cylinder_axis_xy_m.y());

  std::vector<BodyQuery> bodies(model.bodies.size());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    BodyQuery& q = bodies[b];
    q.shape = &model.bodies[b].shape;
    q.X_WB = motions[b].X_WB;
    q.X_BW = motions[b].X_WB.inverse();
    q.V_WB = motions[b].V_WB;
    q.bounded = !std::holds_alternative<PlaneShape>(*q.shape);
    if (q.bounded) {
      q.bounds = world_bounds(*q.shape, q.X_WB);
      const double reach = double(max_r) + margin;
      q.bounds.lo.array() -= reach;
      q.bounds.hi.array() += reach;
    }
  }

  const float warm_factor = static_cast<float>(model.warm_start);
  const bool warm = model.warm_start > 0.0 && previous != nullptr && previous->count.size() == n;

  for (;;) {
    resize_slots(contacts, n);
    const std::int32_t capacity = contacts.capacity;
    std::int32_t needed = 0;
    bool too_many = false;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max       \
                                                                         : needed) \
    reduction(||                                                                   \
              : too_many)
    for (std::int64_t i = 0; i < count; ++i) {
      Candidate cand[kMaxCandidates];
      int found = 0;
      const float xi = x[i], yi = y[i], zi = z[i], ri = r[i];
      hash.for_each_in_neighbourhood(hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t j) {
        if (j == i) return;
        float d[3] = {xi - x[j], yi - y[j], zi - z[j]};
        if (pa >= 0) d[pa] -= period * std::rint(d[pa] * inv_period);
        const float reach = ri + r[j] + margin;
        const float dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (dist2 >= reach * reach) return;
        if (found == kMaxCandidates) {
          too_many = true;
          return;
        }
        const float dist = std::sqrt(dist2);
        Candidate& c = cand[found++];
        c.partner = j;
        if (dist > 0.0f) {
          const float inv = 1.0f / dist;
          c.nx = d[0] * inv;
          c.ny = d[1] * inv;
          c.nz = d[2] * inv;
        } else {  // coincident centres: opposite normals for the two copies
          c.nx = 0.0f;
          c.ny = 0.0f;
          c.nz = i < j ? 1.0f : -1.0f;
        }
        c.gap_m = dist - (ri + r[j]);
        c.ux = c.uy = c.uz = 0.0f;
        c.mu = mu_particle;
      });
      // Canonical order: the hash lists' order depends on thread timing (kLinkedHash).
      std::sort(cand, cand + found,
                [](const Candidate& a, const Candidate& b) { return a.partner < b.partner; });

      auto add_external = [&](std::int32_t partner, float nx, float ny, float nz, float gap,
                              float ux, float uy, float uz, float mu) {
        if (gap >= margin) return;
        if (found == kMaxCandidates) {
          too_many = true;
          return;
        }
        cand[found++] = Candidate{partner, nx, ny, nz, gap, ux, uy, uz, mu};
      };
      const float p[3] = {xi, yi, zi};
      for (int a = 0; a < 3; ++a) {
        if (!face[a]) continue;
        float n_lo[3] = {0.0f, 0.0f, 0.0f};
        n_lo[a] = 1.0f;
        add_external(wall_partner(2 * a), n_lo[0], n_lo[1], n_lo[2], p[a] - lo[a] - ri, 0.0f, 0.0f,
                     0.0f, mu_wall);
        add_external(wall_partner(2 * a + 1), -n_lo[0], -n_lo[1], -n_lo[2], hi[a] - p[a] - ri, 0.0f,
                     0.0f, 0.0f, mu_wall);
      }
      if (cylinder) {
        const float dx = xi - cyl_x, dy = yi - cyl_y;
        const float rho = std::sqrt(dx * dx + dy * dy);
        if (rho > 0.0f) {
          add_external(wall_partner(6), -dx / rho, -dy / rho, 0.0f, cyl_r - rho - ri, 0.0f, 0.0f,
                       0.0f, mu_wall);
        }
      }
      for (std::size_t b = 0; b < bodies.size(); ++b) {
        const BodyQuery& q = bodies[b];
        const Vec3 p_W(xi, yi, zi);
        if (q.bounded && !q.bounds.contains(p_W)) continue;
        const Vec3 p_B = q.X_BW * p_W;
        const double dist = signed_distance(*q.shape, p_B);
        if (dist - ri >= margin) continue;
        const Vec3 n_W = q.X_WB.linear() * outward_normal(*q.shape, p_B);
        const Vec3 p_WQ = p_W - dist * n_W;  // nearest surface point of the body
        const Vec3 u_W = q.V_WB.velocity_of_point(q.X_WB, p_WQ);
        add_external(body_partner(static_cast<std::int32_t>(b)), float(n_W.x()), float(n_W.y()),
                     float(n_W.z()), static_cast<float>(dist - ri), float(u_W.x()), float(u_W.y()),
                     float(u_W.z()), mu_body);
      }

      needed = std::max(needed, found);
      if (found > capacity) continue;  // redone with more slots after this pass
      const std::size_t base = static_cast<std::size_t>(i) * capacity;
      const std::size_t prev_base = warm ? static_cast<std::size_t>(i) * previous->capacity : 0;
      const std::int32_t prev_count = warm ? previous->count[i] : 0;
      std::int32_t ps = 0;
      float sx = 0.0f, sy = 0.0f, sz = 0.0f;
      for (int s = 0; s < found; ++s) {
        const Candidate& c = cand[s];
        const std::size_t k = base + s;
        contacts.partner[k] = c.partner;
        contacts.nx[k] = c.nx;
        contacts.ny[k] = c.ny;
        contacts.nz[k] = c.nz;
        contacts.target_m_per_s[k] = c.gap_m > 0.0f ? -c.gap_m * inv_dt : 0.0f;
        contacts.pushout_m_per_s[k] =
            c.gap_m < 0.0f ? std::min(-alpha * c.gap_m * inv_dt, max_pushout) : 0.0f;
        contacts.push[k] = 0.0f;
        contacts.ux[k] = c.ux;
        contacts.uy[k] = c.uy;
        contacts.uz[k] = c.uz;
        contacts.mu[k] = c.mu;
        float lx = 0.0f, ly = 0.0f, lz = 0.0f;
        if (warm) {
          // Merge walk: both slot lists are in canonical (key) order.
          const std::uint32_t key = partner_key(c.partner);
          while (ps < prev_count && partner_key(previous->partner[prev_base + ps]) < key) ++ps;
          if (ps < prev_count && previous->partner[prev_base + ps] == c.partner) {
            const std::size_t pk = prev_base + ps;
            const float ox = warm_factor * previous->lx[pk], oy = warm_factor * previous->ly[pk],
                        oz = warm_factor * previous->lz[pk];
            const float ln = std::max(0.0f, ox * c.nx + oy * c.ny + oz * c.nz);
            const float on = ox * c.nx + oy * c.ny + oz * c.nz;
            float tx = ox - on * c.nx, ty = oy - on * c.ny, tz = oz - on * c.nz;
            const float lt = std::sqrt(tx * tx + ty * ty + tz * tz);
            const float cap = c.mu * ln;
            if (lt > cap) {
              const float scale = lt > 0.0f ? cap / lt : 0.0f;
              tx *= scale;
              ty *= scale;
              tz *= scale;
            }
            lx = ln * c.nx + tx;
            ly = ln * c.ny + ty;
            lz = ln * c.nz + tz;
          }
        }
        contacts.lx[k] = lx;
        contacts.ly[k] = ly;
        contacts.lz[k] = lz;
        sx += lx;
        sy += ly;
        sz += lz;
      }
      contacts.count[i] = found;
      contacts.split_inv_mass[i] = inv_mass[i] * static_cast<float>(found);
      wx[i] = vpx[i] + inv_mass[i] * sx;
      wy[i] = vpy[i] + inv_mass[i] * sy;
      wz[i] = vpz[i] + inv_mass[i] * sz;
    }
    if (too_many) {
      throw std::runtime_error(fmt::format(
          "particle contacts: a particle has more than {} contacts (deep overlaps or extreme "
          "radius ratios)",
          kMaxCandidates));
    }
    if (needed <= capacity) return;
    contacts.capacity = needed + 4;
  }
}

}  // namespace talus::particles
