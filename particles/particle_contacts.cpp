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

// A body as the detection pass needs it, precomputed once per step.
struct BodyQuery {
  const Shape* shape = nullptr;
  Pose X_WB;
  Pose X_BW;
  Twist V_WB;
  bool bounded = true;
  Aabb bounds;  // world bounds inflated by the largest contact reach
};

// The container's walls as contact partners: per axis whether its two faces exist, and the
// cylinder's side.
struct Walls {
  bool face[3] = {false, false, false};
  float lo[3] = {0.0f, 0.0f, 0.0f};
  float hi[3] = {0.0f, 0.0f, 0.0f};
  bool cylinder = false;
  float cyl_r = 0.0f, cyl_x = 0.0f, cyl_y = 0.0f;

  explicit Walls(const ParticleModel& model) {
    const Container& box = model.container;
    if (box.kind == Container::Kind::kBox) {
      for (int a = 0; a < 3; ++a) face[a] = a != model.periodic_axis;
    } else if (box.kind == Container::Kind::kCylinder) {
      face[2] = true;
    }
    for (int a = 0; a < 3; ++a) {
      lo[a] = static_cast<float>(box.box.lo[a]);
      hi[a] = static_cast<float>(box.box.hi[a]);
    }
    cylinder = box.kind == Container::Kind::kCylinder;
    cyl_r = static_cast<float>(box.cylinder_radius_m);
    cyl_x = static_cast<float>(box.cylinder_axis_xy_m.x());
    cyl_y = static_cast<float>(box.cylinder_axis_xy_m.y());
  }
};

// Everything the per-particle detection reads, gathered once per step.
struct Detection {
  const float* x;
  const float* y;
  const float* z;
  const float* r;
  const float* inv_mass;
  float margin;
  float mu_particle, mu_wall, mu_body;
  MinimumImage image;
  Walls walls;
  std::vector<BodyQuery> bodies;
  const SpatialHash& hash;
  const NeighbourList* neighbours;
  const ContactList* previous;  // last step's rows, read for the warm start when `warm`
  bool warm;
  bool warm_spin;  // the previous rows hold rolling impulses (they were stepped rotating)
  float warm_factor;
  // Rotating grains (ParticleModel::rotation): angular velocities, rolling friction.
  bool rotation;
  const float* wx;
  const float* wy;
  const float* wz;
  float mu_roll;
};

std::vector<BodyQuery> body_queries(const ParticleModel& model, std::span<const BodyMotion> motions,
                                    double reach_m) {
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
      q.bounds.lo.array() -= reach_m;
      q.bounds.hi.array() += reach_m;
    }
  }
  return bodies;
}

// One particle's contact candidates: its particle pairs first (sorted through `order`), then its
// wall and body contacts in generation order.
struct Candidates {
  Candidate cand[kMaxCandidates + 1];  // + 1: the listed loop writes before it tests
  std::uint64_t order[kMaxCandidates];
  int found = 0;
  int pairs = 0;
  bool too_many = false;

  const Candidate& slot(int s) const { return s < pairs ? cand[order[s] & 0xffu] : cand[s]; }
};

// Narrowphase, particle partners (§II-D): the pairs of particle i closer than the sum of radii
// plus the margin, from the neighbour list or, without one, the hash's 27 cells.
void find_particle_pairs(const Detection& d, std::int64_t i, Candidates& out) {
  const float xi = d.x[i], yi = d.y[i], zi = d.z[i], ri = d.r[i];
  // The offset o = x_i - x_j (periodic minimum image); returns |o|^2.
  auto offset = [&](std::int32_t j, float(&o)[3]) {
    o[0] = xi - d.x[j];
    o[1] = yi - d.y[j];
    o[2] = zi - d.z[j];
    d.image.apply(o);
    return o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
  };
  auto reach2 = [&](std::int32_t j) {
    const float reach = ri + d.r[j] + d.margin;
    return reach * reach;
  };
  // Candidate j's contact geometry, from its offset, into cand[found].
  auto write_candidate = [&](std::int32_t j, const float(&o)[3], float dist2) {
    const float dist = std::sqrt(dist2);
    Candidate& c = out.cand[out.found];
    c.partner = j;
    if (dist > 0.0f) {
      const float inv = 1.0f / dist;
      c.nx = o[0] * inv;
      c.ny = o[1] * inv;
      c.nz = o[2] * inv;
    } else {  // coincident centres: opposite normals for the two copies
      c.nx = 0.0f;
      c.ny = 0.0f;
      c.nz = i < j ? 1.0f : -1.0f;
    }
    c.gap_m = dist - (ri + d.r[j]);
    c.mu = d.mu_particle;  // the surface velocity (ux, uy, uz) is for walls and bodies only
  };
  if (d.neighbours != nullptr) {
    // The listed candidates (never i itself) are written unconditionally and kept by advancing
    // `found`: about 2 in 3 are contacts in a bed at rest, at random, and as a branch this
    // mispredicted; a geometry computed for a non-contact costs less.
    const std::int64_t list_end = d.neighbours->start[i + 1];
    for (std::int64_t a = d.neighbours->start[i]; a < list_end; ++a) {
      const std::int32_t j = d.neighbours->partner[a];
      float o[3];
      const float dist2 = offset(j, o);
      write_candidate(j, o, dist2);
      out.found += dist2 < reach2(j) ? 1 : 0;
      if (out.found > kMaxCandidates) {  // refused on the 257th contact, as the search does
        out.too_many = true;
        out.found = kMaxCandidates;
        break;
      }
    }
  } else {
    // Searching the hash's 27 cells: most candidates are far (no geometry for them).
    d.hash.for_each_in_neighbourhood(d.hash.cx[i], d.hash.cy[i], d.hash.cz[i], [&](std::int32_t j) {
      if (j == i) return;
      float o[3];
      const float dist2 = offset(j, o);
      if (dist2 >= reach2(j)) return;
      if (out.found == kMaxCandidates) {
        out.too_many = true;
        return;
      }
      write_candidate(j, o, dist2);
      ++out.found;
    });
  }
  out.pairs = out.found;
}

// Canonical order of the pairs: the hash lists' order depends on thread timing (kLinkedHash).
// Sorted as 64-bit keys (partner, candidate index), by insertion sort: a bed's sorted cells
// deliver the candidates nearly in order, where this is linear, and the 36-byte candidates are
// not moved. The new key stays in a register while larger ones shift up (an in-place swap form
// stored and reloaded overlapping keys: a store-forwarding stall per candidate, ~12 % of the
// detection pass in a profile).
void sort_particle_pairs(Candidates& out) {
  for (int a = 0; a < out.pairs; ++a) {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(out.cand[a].partner) << 8) | static_cast<unsigned>(a);
    int b = a;
    for (; b > 0 && out.order[b - 1] > key; --b) out.order[b] = out.order[b - 1];
    out.order[b] = key;
  }
}

// A wall or body contact, kept when its gap is under the margin.
void add_external(const Detection& d, Candidates& out, const Candidate& c) {
  if (c.gap_m >= d.margin) return;
  if (out.found == kMaxCandidates) {
    out.too_many = true;
    return;
  }
  out.cand[out.found++] = c;
}

// Narrowphase, container walls: the box's faces (those that exist) and the cylinder's side.
void find_wall_contacts(const Detection& d, std::int64_t i, Candidates& out) {
  const Walls& w = d.walls;
  const float p[3] = {d.x[i], d.y[i], d.z[i]};
  const float ri = d.r[i];
  for (int a = 0; a < 3; ++a) {
    if (!w.face[a]) continue;
    float n_lo[3] = {0.0f, 0.0f, 0.0f};
    n_lo[a] = 1.0f;
    add_external(d, out,
                 {wall_partner(2 * a), n_lo[0], n_lo[1], n_lo[2], p[a] - w.lo[a] - ri, 0.0f, 0.0f,
                  0.0f, d.mu_wall});
    add_external(d, out,
                 {wall_partner(2 * a + 1), -n_lo[0], -n_lo[1], -n_lo[2], w.hi[a] - p[a] - ri, 0.0f,
                  0.0f, 0.0f, d.mu_wall});
  }
  if (w.cylinder) {
    const float dx = p[0] - w.cyl_x, dy = p[1] - w.cyl_y;
    const float rho = std::sqrt(dx * dx + dy * dy);
    if (rho > 0.0f) {
      add_external(d, out,
                   {wall_partner(6), -dx / rho, -dy / rho, 0.0f, w.cyl_r - rho - ri, 0.0f, 0.0f,
                    0.0f, d.mu_wall});
    }
  }
}

// Narrowphase, bodies (§II-C): the signed distance of each body's shape at the particle centre
// mapped into B, minus the radius; normal from outward_normal; the body's velocity at its
// nearest surface point from its twist.
void find_body_contacts(const Detection& d, std::int64_t i, Candidates& out) {
  const float ri = d.r[i];
  for (std::size_t b = 0; b < d.bodies.size(); ++b) {
    const BodyQuery& q = d.bodies[b];
    const Vec3 p_W(d.x[i], d.y[i], d.z[i]);
    if (q.bounded && !q.bounds.contains(p_W)) continue;
    const Vec3 p_B = q.X_BW * p_W;
    const double dist = signed_distance(*q.shape, p_B);
    if (dist - ri >= d.margin) continue;
    const Vec3 n_W = q.X_WB.linear() * outward_normal(*q.shape, p_B);
    const Vec3 p_WQ = p_W - dist * n_W;  // nearest surface point of the body
    const Vec3 u_W = q.V_WB.velocity_of_point(q.X_WB, p_WQ);
    add_external(
        d, out,
        {body_partner(static_cast<std::int32_t>(b)), float(n_W.x()), float(n_W.y()), float(n_W.z()),
         static_cast<float>(dist - ri), float(u_W.x()), float(u_W.y()), float(u_W.z()), d.mu_body});
  }
}

// The last step's slot of the same (particle, partner) pair as candidate c, or -1. `ps` walks the
// last step's row of the particle: both lists are in canonical (key) order.
std::int32_t previous_slot(const Detection& d, const Candidate& c, std::int32_t& ps,
                           std::int32_t prev_end) {
  const ContactList& previous = *d.previous;
  const std::uint32_t key = partner_key(c.partner);
  while (ps < prev_end && partner_key(previous.partner[ps]) < key) ++ps;
  return ps < prev_end && previous.partner[ps] == c.partner ? ps : -1;
}

// The warm-start impulse of candidate c (§II-A): the impulse of its last step's slot `ps`,
// scaled by the warm-start factor and projected onto the new normal and friction cone; zero
// without one (ps < 0). Returns its normal part.
float warm_impulse(const Detection& d, const Candidate& c, std::int32_t ps, float (&l)[3]) {
  l[0] = l[1] = l[2] = 0.0f;
  if (ps < 0) return 0.0f;
  const float* pl = d.previous->impulse.data() + static_cast<std::size_t>(ps) * kSlotStride;
  const float ox = d.warm_factor * pl[0], oy = d.warm_factor * pl[1], oz = d.warm_factor * pl[2];
  const float ln = std::max(0.0f, ox * c.nx + oy * c.ny + oz * c.nz);
  const float on = ox * c.nx + oy * c.ny + oz * c.nz;
  float tx = ox - on * c.nx, ty = oy - on * c.ny, tz = oz - on * c.nz;
  const float lt = std::sqrt(tx * tx + ty * ty + tz * tz);
  const float cap = c.mu * ln;
  // Onto the cone, branch-free (x 1 is exact): whether a resting contact's impulse sits on its
  // cone is random, and as a branch this mispredicted. lt > cap >= 0 where the quotient is taken.
  const float cone_scale = cap / lt;
  const float scale = lt > cap ? cone_scale : 1.0f;
  tx *= scale;
  ty *= scale;
  tz *= scale;
  l[0] = ln * c.nx + tx;
  l[1] = ln * c.ny + ty;
  l[2] = ln * c.nz + tz;
  return ln;
}

// The warm-start rolling impulse of candidate c: its last step's slot's (ps), scaled by the
// warm-start factor, projected off the new normal and onto the rolling cone
// |eta| <= mu_r R_eff ln (ln: the warm normal impulse); zero without one.
void warm_rolling(const Detection& d, const Candidate& c, std::int32_t ps, float ln, float r_eff,
                  float (&eta)[3]) {
  eta[0] = eta[1] = eta[2] = 0.0f;
  if (ps < 0) return;
  const float* pe = d.previous->rolling.data() + static_cast<std::size_t>(ps) * kSlotStride;
  float ex = d.warm_factor * pe[0], ey = d.warm_factor * pe[1], ez = d.warm_factor * pe[2];
  const float en = ex * c.nx + ey * c.ny + ez * c.nz;
  ex -= en * c.nx;
  ey -= en * c.ny;
  ez -= en * c.nz;
  const float e = std::sqrt(ex * ex + ey * ey + ez * ez);
  const float cap = d.mu_roll * r_eff * ln;
  const float scale = e > cap ? cap / e : 1.0f;
  eta[0] = ex * scale;
  eta[1] = ey * scale;
  eta[2] = ez * scale;
}

// The slot arrays of the list being written, and the region of them one thread owns.
struct SlotWriter {
  std::int32_t* partner;
  float* normal_gap;
  float* surface;
  float* impulse;
  float* rolling;  // rotating grains only, else null
  std::int64_t region_end;
};

// Particle i's initial angular iterate record (rotating grains): omega + I^-1 tau, tau the warm
// impulses' angular impulse sum, and its radius.
void write_spin_record(const Detection& d, std::int64_t i, const float (&tau)[3], float* spin) {
  const float inv_inertia = inverse_inertia(d.inv_mass[i], d.r[i]);
  float* rec = spin + static_cast<std::size_t>(i) * kSpinStride;
  rec[0] = d.wx[i] + inv_inertia * tau[0];
  rec[1] = d.wy[i] + inv_inertia * tau[1];
  rec[2] = d.wz[i] + inv_inertia * tau[2];
  rec[kSpinRadius] = d.r[i];
}

// Writes particle i's row from slot k on (slots past the region are only counted) and its
// initial Jacobi iterate records: w = v* + M^-1 sum(lambda), the split inverse mass, s = 0, and
// with rotating grains the angular record (write_spin_record). Returns the next free slot.
std::int64_t write_row(const Detection& d, std::int64_t i, const Candidates& in, std::int64_t k,
                       const SlotWriter& out, std::int32_t* row_start, std::int32_t* row_end,
                       const float* vpx, const float* vpy, const float* vpz, float* iterate,
                       float* spin) {
  std::int32_t ps = d.warm ? d.previous->start[i] : 0;
  const std::int32_t prev_end = d.warm ? d.previous->end[i] : 0;
  float sx = 0.0f, sy = 0.0f, sz = 0.0f;
  float tau[3] = {0.0f, 0.0f, 0.0f};  // angular impulse sum (rotating grains)
  const float ri = d.r[i];
  row_start[i] = static_cast<std::int32_t>(std::min(k, out.region_end));
  for (int s = 0; s < in.found; ++s, ++k) {
    const Candidate& c = in.slot(s);
    float l[3] = {0.0f, 0.0f, 0.0f};
    float eta[3] = {0.0f, 0.0f, 0.0f};
    if (d.warm) {
      const std::int32_t matched = previous_slot(d, c, ps, prev_end);
      const float ln = warm_impulse(d, c, matched, l);
      if (d.warm_spin) {
        const float r_eff = c.partner >= 0 ? ri * d.r[c.partner] / (ri + d.r[c.partner]) : ri;
        warm_rolling(d, c, matched, ln, r_eff, eta);
      }
    }
    if (d.rotation) {
      // The contact acts at -lever n from the centre: torque -lever n x lambda, plus rolling.
      const float lever = contact_lever(ri, c.gap_m, c.partner >= 0);
      tau[0] += eta[0] - lever * (c.ny * l[2] - c.nz * l[1]);
      tau[1] += eta[1] - lever * (c.nz * l[0] - c.nx * l[2]);
      tau[2] += eta[2] - lever * (c.nx * l[1] - c.ny * l[0]);
    }
    if (k < out.region_end) {
      const std::size_t at = static_cast<std::size_t>(k) * kSlotStride;
      out.partner[k] = c.partner;
      out.normal_gap[at] = c.nx;
      out.normal_gap[at + 1] = c.ny;
      out.normal_gap[at + 2] = c.nz;
      out.normal_gap[at + 3] = c.gap_m;
      if (c.partner < 0) {
        out.surface[at] = c.ux;
        out.surface[at + 1] = c.uy;
        out.surface[at + 2] = c.uz;
        out.surface[at + 3] = c.mu;
      }
      out.impulse[at] = l[0];
      out.impulse[at + 1] = l[1];
      out.impulse[at + 2] = l[2];
      out.impulse[at + 3] = 0.0f;
      if (d.rotation) {
        out.rolling[at] = eta[0];
        out.rolling[at + 1] = eta[1];
        out.rolling[at + 2] = eta[2];
        out.rolling[at + 3] = 0.0f;
      }
    }
    sx += l[0];
    sy += l[1];
    sz += l[2];
  }
  row_end[i] = static_cast<std::int32_t>(std::min(k, out.region_end));
  float* rec = iterate + static_cast<std::size_t>(i) * kIterateStride;
  rec[kIterW + 0] = vpx[i] + d.inv_mass[i] * sx;
  rec[kIterW + 1] = vpy[i] + d.inv_mass[i] * sy;
  rec[kIterW + 2] = vpz[i] + d.inv_mass[i] * sz;
  rec[kIterSplit] = d.inv_mass[i] * static_cast<float>(in.found);
  rec[kIterS + 0] = 0.0f;
  rec[kIterS + 1] = 0.0f;
  rec[kIterS + 2] = 0.0f;
  rec[kIterS + 3] = 0.0f;
  if (d.rotation) write_spin_record(d, i, tau, spin);
  return k;
}

// Sizes the slot arrays for `regions` regions of `region` slots each (the rolling impulses only
// with rotating grains) and returns their writer pointers.
SlotWriter size_slots(ContactList& contacts, std::int64_t region, int regions, bool rotation) {
  if (region * regions > std::numeric_limits<std::int32_t>::max()) {
    throw std::runtime_error("particle contacts: more than 2^31 contact slots");
  }
  const auto slots = static_cast<std::size_t>(region * regions);
  contacts.partner.resize(slots);
  for (auto* arr : {&contacts.normal_gap, &contacts.surface, &contacts.impulse}) {
    arr->resize(slots * kSlotStride);
  }
  contacts.rolling.resize(rotation ? slots * kSlotStride : 0);
  return SlotWriter{contacts.partner.data(),
                    contacts.normal_gap.data(),
                    contacts.surface.data(),
                    contacts.impulse.data(),
                    rotation ? contacts.rolling.data() : nullptr,
                    0};
}

}  // namespace

int ChunkClaims::next() const {
  const int per = parts / team;
  for (int c = t * per; c < (t + 1) * per; ++c) {
    if (!claimed[c].exchange(true, std::memory_order_relaxed)) return c;
  }
  for (int u = 1; u < team; ++u) {
    const int other = (t + u) % team;
    for (int c = (other + 1) * per - 1; c >= other * per; --c) {
      if (!claimed[c].exchange(true, std::memory_order_relaxed)) return c;
    }
  }
  return -1;
}

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
                     const float* vpy, const float* vpz, float* iterate, float* spin,
                     ContactList& contacts, int threads) {
  const std::size_t n = state.size();
  const auto count = static_cast<std::int64_t>(n);
  const float max_r =
      n > 0 ? *std::max_element(state.radius_m.begin(), state.radius_m.end()) : 0.0f;
  const bool warm =
      model.warm_start > 0.0 && previous != nullptr && previous->particles() == n && n > 0;
  const Detection d{state.x_m.data(),
                    state.y_m.data(),
                    state.z_m.data(),
                    state.radius_m.data(),
                    state.inv_mass_per_kg.data(),
                    static_cast<float>(model.contact_margin_m),
                    static_cast<float>(model.friction),
                    static_cast<float>(model.wall_friction),
                    static_cast<float>(model.body_friction),
                    MinimumImage(model),
                    Walls(model),
                    body_queries(model, motions, double(max_r) + float(model.contact_margin_m)),
                    hash,
                    neighbours,
                    previous,
                    warm,
                    warm && model.rotation && previous->rolling.size() == previous->impulse.size(),
                    static_cast<float>(model.warm_start),
                    model.rotation,
                    state.wx_rad_per_s.data(),
                    state.wy_rad_per_s.data(),
                    state.wz_rad_per_s.data(),
                    static_cast<float>(model.rolling_friction)};

  // The particles are cut into contiguous chunks of about equal work (from the previous step's
  // rows: contacts move little per step), several per thread, and each thread takes the next
  // chunk as it comes free (a static split left one thread waiting at the pass's end: a body's
  // signed-distance queries cost more than their slots, and the host slows one core at times).
  // Chunk c writes its rows directly into its own region of the slot arrays, [c region,
  // (c + 1) region); the unused tail of each region is a gap no row covers. No staging buffer and
  // no copy (staging then copying took ~20 % of this pass). The region size is guessed from the
  // previous step's slot counts with a margin; a chunk that runs past its region keeps counting,
  // and the pass is redone with regions that fit (rare: the contact count grew by more than the
  // margin). Row placement depends on the chunk count, the rows' contents and order do not, so
  // the solve gives the same bits for any thread count.
  contacts.start.resize(n);
  contacts.end.resize(n);
  std::int32_t* row_start = contacts.start.data();
  std::int32_t* row_end = contacts.end.data();
  const int max_team = std::max(threads, 1);
  const int parts = detection_chunk_count(max_team);
  std::vector<std::int64_t> uniform;
  const bool balanced = previous != nullptr && previous->particles() == n &&
                        previous->detection_bounds.size() == static_cast<std::size_t>(parts) + 1;
  if (!balanced) {
    uniform.resize(static_cast<std::size_t>(parts) + 1);
    for (int c = 0; c <= parts; ++c) uniform[static_cast<std::size_t>(c)] = count * c / parts;
  }
  const std::span<const std::int64_t> chunk =
      balanced ? std::span<const std::int64_t>(previous->detection_bounds) : uniform;
  const std::int64_t guess =
      previous != nullptr && previous->used_slots > 0
          ? std::max(previous->used_slots / parts, previous->largest_region_slots)
          : 8 * count / parts;
  std::int64_t region = guess * 5 / 4 + 256;
  std::vector<std::int64_t> needed(static_cast<std::size_t>(parts), 0);
  for (;;) {
    const SlotWriter slots = size_slots(contacts, region, parts, model.rotation);
    bool too_many = false;
    std::vector<std::atomic<bool>> claimed(static_cast<std::size_t>(parts));
#pragma omp parallel num_threads(threads) reduction(|| : too_many)
    {
      const int t = omp_get_thread_num();
      const int team = omp_get_num_threads();
      const ChunkClaims claims{claimed.data(), parts, team == max_team ? t : 0,
                               team == max_team ? max_team : 1};
      for (int c = claims.next(); c >= 0; c = claims.next()) {
        const std::int64_t region_begin = region * c;
        SlotWriter mine = slots;
        mine.region_end = region_begin + region;
        std::int64_t k = region_begin;  // next slot; past region_end only counts
        for (std::int64_t i = chunk[c]; i < chunk[c + 1]; ++i) {
          Candidates candidates;
          find_particle_pairs(d, i, candidates);
          sort_particle_pairs(candidates);
          find_wall_contacts(d, i, candidates);
          find_body_contacts(d, i, candidates);
          too_many = too_many || candidates.too_many;
          k = write_row(d, i, candidates, k, mine, row_start, row_end, vpx, vpy, vpz, iterate,
                        spin);
        }
        needed[static_cast<std::size_t>(c)] = k - region_begin;
      }
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
      // The solver's split for max_team threads is every kDetectionChunksPerThread-th bound of
      // the detection's: balanced_chunks cuts at the same prefix sums.
      balanced_chunks(contacts, parts, contacts.detection_bounds);
      const int per_thread = parts / max_team;
      contacts.chunk_bounds.resize(static_cast<std::size_t>(max_team) + 1);
      for (int t = 0; t <= max_team; ++t) {
        contacts.chunk_bounds[static_cast<std::size_t>(t)] =
            contacts.detection_bounds[static_cast<std::size_t>(t * per_thread)];
      }
      return;
    }
    region = most * 5 / 4 + 256;
  }
}

}  // namespace talus::particles
