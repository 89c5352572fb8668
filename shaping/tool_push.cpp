#include "shaping/tool_push.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/units.hpp"

namespace talus::shaping {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Below this horizontal speed [m/s] a tool point is taken as not moving sideways, and sand it
// cuts is moved radially outward instead.
constexpr double kStillSpeed_m_per_s = 1e-9;
// Passes along the tools' own motion before any sand still carried is sent radially outward.
// Uniform motion needs one pass; a rolling, slipping wheel two or three.
constexpr int kMaxDirectedPasses = 4;

struct GridStep {
  int di, dj;
};
// The eight neighbours, counter-clockwise from +x, 45 degrees apart.
constexpr std::array<GridStep, 8> kSteps = {
    {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}};

// The footprint box's own bookkeeping: maps between grid cells and box-local indices.
struct Footprint {
  IndexBox box;
  int size() const { return static_cast<int>(box.count()); }
  bool contains(int i, int j) const { return box.contains(i, j); }
  int local(int i, int j) const { return (j - box.j0) * box.width() + (i - box.i0); }
};

// Stage a: the tool's lowest point above each cell of its footprint (+inf where it misses).
void sample_tool_bottom(const HeightmapModel& model, const ToolPlacement& tool, const Footprint& fp,
                        PushWorkspace& work) {
  work.tool_bottom_z_m.assign(static_cast<std::size_t>(fp.size()), kInf);
  for (int j = fp.box.j0; j < fp.box.j1; ++j) {
    for (int i = fp.box.i0; i < fp.box.i1; ++i) {
      work.tool_bottom_z_m[fp.local(i, j)] =
          lowest_point_z(*tool.shape, tool.X_WB, model.x(i), model.y(j));
    }
  }
}

// Stage b1: cut every column down to the tool's bottom; the removed height starts being carried.
void cut_columns(const HeightmapModel& model, HeightmapState& state, const Footprint& fp,
                 PushWorkspace& work, PushResult& result) {
  work.carried_m.assign(static_cast<std::size_t>(fp.size()), 0.0);
  for (int j = fp.box.j0; j < fp.box.j1; ++j) {
    for (int i = fp.box.i0; i < fp.box.i1; ++i) {
      const int c = fp.local(i, j);
      double& h = state.height_m[model.index(i, j)];
      const double bottom = work.tool_bottom_z_m[c];
      if (h > bottom) {
        work.carried_m[c] = h - bottom;
        result.displaced_volume_m3 += (h - bottom) * model.cell_area_m2();
        h = bottom;
        ++result.cells_in_contact;
      }
    }
  }
}

// The horizontal direction sand at cell (i, j) is pushed in: the tool's velocity there, or
// radially away from the tool's origin.
Vec2 push_direction(const HeightmapModel& model, const ToolPlacement& tool, int i, int j,
                    double bottom_z, bool radial) {
  const Vec3 p_WQ(model.x(i), model.y(j), bottom_z);
  if (!radial) {
    const Vec3 v = tool.V_WB.velocity_of_point(tool.X_WB, p_WQ);
    const Vec2 v_xy(v.x(), v.y());
    if (v_xy.norm() > kStillSpeed_m_per_s) return v_xy.normalized();
  }
  Vec2 out(p_WQ.x() - tool.X_WB.translation().x(), p_WQ.y() - tool.X_WB.translation().y());
  if (out.norm() > 1e-12 * model.cell_size_m) return out.normalized();
  const Vec3 v = tool.V_WB.v_WBo;
  return Vec2(v.x(), v.y()).norm() > kStillSpeed_m_per_s ? Vec2(v.x(), v.y()).normalized()
                                                         : Vec2(1.0, 0.0);
}

struct Carrier {
  const HeightmapModel& model;
  HeightmapState& state;
  const Footprint& fp;
  PushWorkspace& work;

  // Gives `amount` of height to cell (i, j): it settles there up to the tool's bottom (no limit
  // outside the tool) and the rest is carried on from there.
  void give(int i, int j, double amount) {
    double& h = state.height_m[model.index(i, j)];
    if (!fp.contains(i, j)) {
      h += amount;
      return;
    }
    const int c = fp.local(i, j);
    const double room = std::max(work.tool_bottom_z_m[c] - h, 0.0);
    if (amount <= room) {
      h += amount;
    } else {
      h += room;
      work.carried_m[c] += amount - room;
    }
  }

  bool inside(int i, int j) const { return i >= 0 && i < model.nx && j >= 0 && j < model.ny; }

  // Sends `amount` from (i, j) to the two neighbours whose directions bracket `d`, split by angle
  // (so a push at 30 degrees sends 1/3 diagonally and 2/3 straight). At the grid's edge it goes to
  // the in-grid neighbour best aligned with `d`, and stays in place only if there is none ahead.
  void send(int i, int j, double amount, const Vec2& d) {
    double sector = std::atan2(d.y(), d.x()) / (kPi / 4.0);
    if (sector < 0) sector += 8.0;
    const int k0 = static_cast<int>(std::floor(sector)) % 8;
    const int k1 = (k0 + 1) % 8;
    const double w1 = sector - std::floor(sector);
    const bool in0 = inside(i + kSteps[k0].di, j + kSteps[k0].dj);
    const bool in1 = inside(i + kSteps[k1].di, j + kSteps[k1].dj);
    if (in0 && in1) {
      const double a1 = amount * w1;
      give(i + kSteps[k1].di, j + kSteps[k1].dj, a1);
      give(i + kSteps[k0].di, j + kSteps[k0].dj, amount - a1);
      return;
    }
    if (in0 || in1) {
      const int k = in0 ? k0 : k1;
      give(i + kSteps[k].di, j + kSteps[k].dj, amount);
      return;
    }
    int best = -1;
    double best_dot = 0.0;
    for (int k = 0; k < 8; ++k) {
      if (!inside(i + kSteps[k].di, j + kSteps[k].dj)) continue;
      const double dot =
          (d.x() * kSteps[k].di + d.y() * kSteps[k].dj) / std::hypot(kSteps[k].di, kSteps[k].dj);
      if (dot > best_dot) {
        best_dot = dot;
        best = k;
      }
    }
    if (best < 0) {
      state.height_m[model.index(i, j)] += amount;
    } else {
      give(i + kSteps[best].di, j + kSteps[best].dj, amount);
    }
  }
};

// Orders the footprint so that sand is passed downstream within one pass: along each cell's
// push direction (uniform motion needs one pass), or by distance from the tool's origin when
// pushing radially (then every target is farther out, so one pass always empties the tool).
void order_cells(const HeightmapModel& model, const ToolPlacement& tool, const Footprint& fp,
                 bool radial, PushWorkspace& work) {
  const std::size_t n = static_cast<std::size_t>(fp.size());
  work.direction.resize(n);
  work.order_key.resize(n);
  work.order.resize(n);
  const Vec2 c_W(tool.X_WB.translation().x(), tool.X_WB.translation().y());
  for (int j = fp.box.j0; j < fp.box.j1; ++j) {
    for (int i = fp.box.i0; i < fp.box.i1; ++i) {
      const int c = fp.local(i, j);
      const Vec2 d = push_direction(model, tool, i, j, work.tool_bottom_z_m[c], radial);
      const Vec2 r = Vec2(model.x(i), model.y(j)) - c_W;
      work.direction[c] = d;
      work.order_key[c] = radial ? r.norm() : r.dot(d);
    }
  }
  std::iota(work.order.begin(), work.order.end(), 0);
  // Stable sort on an exact key: the order, and so the result, is deterministic.
  std::stable_sort(work.order.begin(), work.order.end(),
                   [&](int a, int b) { return work.order_key[a] < work.order_key[b]; });
}

// Stage b2: carries the cut sand through the footprint until it settles. Returns true when all
// of it has settled.
bool carry_sand(Carrier& carrier, PushWorkspace& work) {
  for (const int c : work.order) {
    const double amount = work.carried_m[c];
    if (amount <= 0.0) continue;
    work.carried_m[c] = 0.0;
    const int i = carrier.fp.box.i0 + c % carrier.fp.box.width();
    const int j = carrier.fp.box.j0 + c / carrier.fp.box.width();
    carrier.send(i, j, amount, work.direction[c]);
  }
  return std::all_of(work.carried_m.begin(), work.carried_m.end(),
                     [](double a) { return a <= 0.0; });
}

// Last resort at the grid's edge, where no neighbour lies ahead: what is still carried stays in
// its column (on the tool), so no sand is lost.
void drop_in_place(const HeightmapModel& model, HeightmapState& state, const Footprint& fp,
                   PushWorkspace& work) {
  for (int c = 0; c < fp.size(); ++c) {
    const int i = fp.box.i0 + c % fp.box.width();
    const int j = fp.box.j0 + c / fp.box.width();
    state.height_m[model.index(i, j)] += work.carried_m[c];
    work.carried_m[c] = 0.0;
  }
}

// Stage c: cells where the tool reaches the sand are blocked for erosion.
int block_occupied(const HeightmapModel& model, HeightmapState& state, const Footprint& fp,
                   const PushWorkspace& work) {
  int blocked = 0;
  for (int j = fp.box.j0; j < fp.box.j1; ++j) {
    for (int i = fp.box.i0; i < fp.box.i1; ++i) {
      const std::size_t g = model.index(i, j);
      const double bottom = work.tool_bottom_z_m[fp.local(i, j)];
      // A relative tolerance: the cut sets h to exactly `bottom`; later deposits may leave it a
      // rounding error below.
      if (std::isfinite(bottom) && bottom <= state.height_m[g] + 1e-12 * (1.0 + std::abs(bottom))) {
        state.blocked[g] = 1;
        ++blocked;
      }
    }
  }
  return blocked;
}

}  // namespace

IndexBox footprint_box(const HeightmapModel& model, const ToolPlacement& tool) {
  const Aabb b = world_bounds(*tool.shape, tool.X_WB);
  const IndexBox box = model.clamped(model.samples_within(b.lo.x(), b.lo.y(), b.hi.x(), b.hi.y()));
  return box.empty() ? IndexBox{} : box;
}

PushResult push_sand(const HeightmapModel& model, HeightmapState& state, const ToolPlacement& tool,
                     bool first_contact, PushWorkspace& work) {
  PushResult result;
  const Footprint fp{footprint_box(model, tool)};
  if (fp.box.empty()) return result;

  sample_tool_bottom(model, tool, fp, work);
  cut_columns(model, state, fp, work, result);
  if (result.cells_in_contact > 0) {
    Carrier carrier{model, state, fp, work};
    order_cells(model, tool, fp, first_contact, work);
    bool settled = false;
    for (int pass = 0; pass < kMaxDirectedPasses && !settled; ++pass) {
      settled = carry_sand(carrier, work);
    }
    if (!settled) {
      // Opposing push directions can pass sand back and forth under the tool; outward it must go.
      order_cells(model, tool, fp, /*radial=*/true, work);
      settled = carry_sand(carrier, work);
    }
    if (!settled) drop_in_place(model, state, fp, work);
    // Sand reaches at most one cell beyond the footprint (or stays on the tool at the grid edge).
    result.touched = model.clamped(grown(fp.box, 1));
  }
  result.cells_blocked = block_occupied(model, state, fp, work);
  return result;
}

}  // namespace talus::shaping
