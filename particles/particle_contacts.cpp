#include "particles/particle_contacts.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace talus::particles {
namespace {

// The most contact candidates one particle may have before its slots are sorted: far above the
// kissing number of equal spheres (12); reached only with extreme size ratios or deep overlaps.
constexpr int kMaxCandidates = 256;
static_assert(kMaxCandidates <= 256, "candidate indices are sorted in the low 8 bits of a key");

struct Candidate {
  std::int32_t partner;
  float nx, ny, nz;
  float gap_m;
  float ux, uy, uz;  // surface velocity: set for walls and bodies only
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

}  // namespace

void balanced_chunks(const ContactList& rows, int parts, std::vector<std::int64_t>& bounds) {
  const auto n = static_cast<std::int64_t>(rows.particles());
  parts = std::max(parts, 1);
  bounds.assign(static_cast<std::size_t>(parts) + 1, n);
  bounds[0] = 0;
  const std::int64_t total = rows.used_slots + kChunkBaseWork * n;
  std::int64_t done = 0;
  int next = 1;
  for (std::int64_t i = 0; i < n && next < parts; ++i) {
    done += rows.end[i] - rows.start[i] + kChunkBaseWork;
    // Chunk `next` starts after the particle whose prefix first reaches next / parts of the work.
    while (next < parts && done * parts >= total * next)
      bounds[static_cast<std::size_t>(next++)] = i + 1;
  }
}

std::span<const std::int64_t> chunks_for(const ContactList* rows, std::size_t n, int parts,
                                         std::vector<std::int64_t>& uniform) {
  parts = std::max(parts, 1);
  if (rows != nullptr && rows->particles() == n &&
      rows->chunk_bounds.size() == static_cast<std::size_t>(parts) + 1) {
    return rows->chunk_bounds;
  }
  const auto count = static_cast<std::int64_t>(n);
  uniform.resize(static_cast<std::size_t>(parts) + 1);
  for (int t = 0; t <= parts; ++t) uniform[static_cast<std::size_t>(t)] = count * t / parts;
  return uniform;
}

std::size_t distinct_contact_count(const ContactList& contacts) {
  std::size_t pair_slots = 0;
  std::size_t external = 0;
  for (std::size_t i = 0; i < contacts.particles(); ++i) {
    for (std::int32_t k = contacts.start[i]; k < contacts.end[i]; ++k) {
      if (contacts.partner[static_cast<std::size_t>(k)] >= 0) {
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
                     const NeighbourList* neighbours, const ContactList* previous, const float* vpx,
                     const float* vpy, const float* vpz, float* iterate, ContactList& contacts,
                     int threads) {
  const std::size_t n = state.size();
  const auto count = static_cast<std::int64_t>(n);
  const float* x = state.x_m.data();
  const float* y = state.y_m.data();
  const float* z = state.z_m.data();
  const float* r = state.radius_m.data();
  const float* inv_mass = state.inv_mass_per_kg.data();
  const float margin = static_cast<float>(model.contact_margin_m);
  const float mu_particle = static_cast<float>(model.friction);
  const float mu_wall = static_cast<float>(model.wall_friction);
  const float mu_body = static_cast<float>(model.body_friction);
  const int pa = model.periodic_axis;
  const MinimumImage image(model);
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
  const bool warm =
      model.warm_start > 0.0 && previous != nullptr && previous->particles() == n && n > 0;

  // Each thread takes one contiguous chunk of particles (its own chunk bounds, not the OpenMP
  // schedule's, so that the chunk -> region mapping is explicit) and writes their rows directly
  // into its own region of the slot arrays: thread t's region is [t region, (t + 1) region).
  // Rows are [start[i], end[i]); the unused tail of each region is a gap no row covers. No
  // staging buffer and no copy (staging then copying took ~20 % of this pass). The region size
  // is guessed from the previous step's slot count with a margin; a thread that runs past its
  // region keeps counting, and the pass is redone with regions that fit (rare: the contact count
  // grew by more than the margin). Row placement depends on the thread count, the rows' contents
  // and order do not, so the solve gives the same bits for any thread count.
  contacts.start.resize(n);
  contacts.end.resize(n);
  std::int32_t* row_start = contacts.start.data();
  std::int32_t* row_end = contacts.end.data();
  const int max_team = std::max(threads, 1);
  // Chunks of about equal work, from the previous step's rows (contacts move little per step).
  std::vector<std::int64_t> uniform;
  const std::span<const std::int64_t> chunk = chunks_for(previous, n, max_team, uniform);
  const std::int64_t guess =
      previous != nullptr && previous->used_slots > 0
          ? std::max(previous->used_slots / max_team, previous->largest_region_slots)
          : 8 * count / max_team;
  std::int64_t region = guess * 5 / 4 + 256;
  std::vector<std::int64_t> needed(static_cast<std::size_t>(max_team), 0);
  for (;;) {
    if (region * max_team > std::numeric_limits<std::int32_t>::max()) {
      throw std::runtime_error("particle contacts: more than 2^31 contact slots");
    }
    const auto slots = static_cast<std::size_t>(region * max_team);
    contacts.partner.resize(slots);
    for (auto* arr : {&contacts.normal_gap, &contacts.surface, &contacts.impulse}) {
      arr->resize(slots * kSlotStride);
    }
    std::int32_t* c_partner = contacts.partner.data();
    float* c_normal_gap = contacts.normal_gap.data();
    float* c_surface = contacts.surface.data();
    float* c_impulse = contacts.impulse.data();
    bool too_many = false;
#pragma omp parallel num_threads(threads) reduction(|| : too_many)
    {
      const int t = omp_get_thread_num();
      const int team = omp_get_num_threads();
      // A team smaller than asked for (OpenMP may give fewer threads) splits evenly.
      const std::int64_t begin = team == max_team ? chunk[t] : count * t / team;
      const std::int64_t end = team == max_team ? chunk[t + 1] : count * (t + 1) / team;
      const std::int64_t region_begin = region * t;
      const std::int64_t region_end = region_begin + region;
      std::int64_t k = region_begin;  // next slot; past region_end only counts
      for (std::int64_t i = begin; i < end; ++i) {
        Candidate cand[kMaxCandidates + 1];  // + 1: the listed loop writes before it tests
        int found = 0;
        const float xi = x[i], yi = y[i], zi = z[i], ri = r[i];
        // The offset d = x_i - x_j (periodic minimum image); returns |d|^2.
        auto offset = [&](std::int32_t j, float(&d)[3]) {
          d[0] = xi - x[j];
          d[1] = yi - y[j];
          d[2] = zi - z[j];
          image.apply(d);
          return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        };
        auto reach2 = [&](std::int32_t j) {
          const float reach = ri + r[j] + margin;
          return reach * reach;
        };
        // Candidate j's contact geometry, from its offset, into cand[found].
        auto write_candidate = [&](std::int32_t j, const float(&d)[3], float dist2) {
          const float dist = std::sqrt(dist2);
          Candidate& c = cand[found];
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
          c.mu = mu_particle;  // the surface velocity (ux, uy, uz) is for walls and bodies only
        };
        if (neighbours != nullptr) {
          // The listed candidates (never i itself) are written unconditionally and kept by
          // advancing `found`: about 2 in 3 are contacts in a bed at rest, at random, and as a
          // branch this mispredicted; a geometry computed for a non-contact costs less.
          const std::int64_t list_end = neighbours->start[i + 1];
          for (std::int64_t a = neighbours->start[i]; a < list_end; ++a) {
            const std::int32_t j = neighbours->partner[a];
            float d[3];
            const float dist2 = offset(j, d);
            write_candidate(j, d, dist2);
            found += dist2 < reach2(j) ? 1 : 0;
            if (found > kMaxCandidates) {  // refused on the 257th contact, as the search does
              too_many = true;
              found = kMaxCandidates;
              break;
            }
          }
        } else {
          // Searching the hash's 27 cells: most candidates are far (no geometry for them).
          hash.for_each_in_neighbourhood(hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t j) {
            if (j == i) return;
            float d[3];
            const float dist2 = offset(j, d);
            if (dist2 >= reach2(j)) return;
            if (found == kMaxCandidates) {
              too_many = true;
              return;
            }
            write_candidate(j, d, dist2);
            ++found;
          });
        }
        // Canonical order: the hash lists' order depends on thread timing (kLinkedHash). Sorted
        // as 64-bit keys (partner, candidate index), by insertion sort: a bed's sorted cells
        // deliver the candidates nearly in order, where this is linear, and the 36-byte candidates
        // are not moved. The new key stays in a register while larger ones shift up (an in-place
        // swap form stored and reloaded overlapping keys: a store-forwarding stall per candidate,
        // ~12 % of the detection pass in a profile).
        const int pairs = found;
        std::uint64_t order[kMaxCandidates];
        for (int a = 0; a < pairs; ++a) {
          const std::uint64_t key =
              (static_cast<std::uint64_t>(cand[a].partner) << 8) | static_cast<unsigned>(a);
          int b = a;
          for (; b > 0 && order[b - 1] > key; --b) order[b] = order[b - 1];
          order[b] = key;
        }

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
          add_external(wall_partner(2 * a), n_lo[0], n_lo[1], n_lo[2], p[a] - lo[a] - ri, 0.0f,
                       0.0f, 0.0f, mu_wall);
          add_external(wall_partner(2 * a + 1), -n_lo[0], -n_lo[1], -n_lo[2], hi[a] - p[a] - ri,
                       0.0f, 0.0f, 0.0f, mu_wall);
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
                       float(n_W.z()), static_cast<float>(dist - ri), float(u_W.x()),
                       float(u_W.y()), float(u_W.z()), mu_body);
        }

        std::int32_t ps = warm ? previous->start[i] : 0;
        const std::int32_t prev_end = warm ? previous->end[i] : 0;
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        row_start[i] = static_cast<std::int32_t>(std::min(k, region_end));
        for (int s = 0; s < found; ++s, ++k) {
          const Candidate& c = s < pairs ? cand[order[s] & 0xffu] : cand[s];
          float lx = 0.0f, ly = 0.0f, lz = 0.0f;
          if (warm) {
            // Merge walk: both slot lists are in canonical (key) order.
            const std::uint32_t key = partner_key(c.partner);
            while (ps < prev_end && partner_key(previous->partner[ps]) < key) ++ps;
            if (ps < prev_end && previous->partner[ps] == c.partner) {
              const float* pl =
                  previous->impulse.data() + static_cast<std::size_t>(ps) * kSlotStride;
              const float ox = warm_factor * pl[0], oy = warm_factor * pl[1],
                          oz = warm_factor * pl[2];
              const float ln = std::max(0.0f, ox * c.nx + oy * c.ny + oz * c.nz);
              const float on = ox * c.nx + oy * c.ny + oz * c.nz;
              float tx = ox - on * c.nx, ty = oy - on * c.ny, tz = oz - on * c.nz;
              const float lt = std::sqrt(tx * tx + ty * ty + tz * tz);
              const float cap = c.mu * ln;
              // Onto the cone, branch-free (x 1 is exact): whether a resting contact's impulse
              // sits on its cone is random, and as a branch this mispredicted. lt > cap >= 0
              // where the quotient is taken.
              const float cone_scale = cap / lt;
              const float scale = lt > cap ? cone_scale : 1.0f;
              tx *= scale;
              ty *= scale;
              tz *= scale;
              lx = ln * c.nx + tx;
              ly = ln * c.ny + ty;
              lz = ln * c.nz + tz;
            }
          }
          if (k < region_end) {
            const std::size_t at = static_cast<std::size_t>(k) * kSlotStride;
            c_partner[k] = c.partner;
            c_normal_gap[at] = c.nx;
            c_normal_gap[at + 1] = c.ny;
            c_normal_gap[at + 2] = c.nz;
            c_normal_gap[at + 3] = c.gap_m;
            if (c.partner < 0) {
              c_surface[at] = c.ux;
              c_surface[at + 1] = c.uy;
              c_surface[at + 2] = c.uz;
              c_surface[at + 3] = c.mu;
            }
            c_impulse[at] = lx;
            c_impulse[at + 1] = ly;
            c_impulse[at + 2] = lz;
            c_impulse[at + 3] = 0.0f;
          }
          sx += lx;
          sy += ly;
          sz += lz;
        }
        row_end[i] = static_cast<std::int32_t>(std::min(k, region_end));
        float* rec = iterate + static_cast<std::size_t>(i) * kIterateStride;
        rec[kIterW + 0] = vpx[i] + inv_mass[i] * sx;
        rec[kIterW + 1] = vpy[i] + inv_mass[i] * sy;
        rec[kIterW + 2] = vpz[i] + inv_mass[i] * sz;
        rec[kIterSplit] = inv_mass[i] * static_cast<float>(found);
        rec[kIterS + 0] = 0.0f;
        rec[kIterS + 1] = 0.0f;
        rec[kIterS + 2] = 0.0f;
        rec[kIterS + 3] = 0.0f;
      }
      needed[static_cast<std::size_t>(t)] = k - region_begin;
    }
    if (too_many) {
      throw std::runtime_error(fmt::format(
          "particle contacts: a particle has more than {} contacts (deep overlaps or extreme "
          "radius ratios)",
          kMaxCandidates));
    }
    std::int64_t most = 0, used = 0;
    for (const std::int64_t u : needed) {
      most = std::max(most, u);
      used += u;
    }
    if (most <= region) {
      contacts.used_slots = used;
      contacts.largest_region_slots = most;
      balanced_chunks(contacts, max_team, contacts.chunk_bounds);
      return;
    }
    region = most * 5 / 4 + 256;
  }
}

}  // namespace talus::particles
