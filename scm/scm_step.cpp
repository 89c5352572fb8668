#include "scm/scm_step.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>

#include "core/erosion.hpp"
#include "scm/border_flow.hpp"
#include "scm/node_bands.hpp"
#include "scm/scm_forces.hpp"
#include "scm/soil_flow.hpp"

namespace talus::scm {

namespace {

// Merges overlapping boxes until no two overlap; empty boxes are dropped. Every input box lies
// inside exactly one output box. The order depends only on the input order (deterministic).
// Work is done per merged box, not on one box around all bodies: the four wheels of a rover
// are far apart, and one box around them would gather, deform and erode the soil between them.
std::vector<IndexBox> disjoint_boxes(std::vector<IndexBox> boxes) {
  std::erase_if(boxes, [](const IndexBox& f) { return f.empty(); });
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t a = 0; a < boxes.size() && !merged; ++a) {
      for (std::size_t b = a + 1; b < boxes.size(); ++b) {
        if (!boxes[a].overlaps(boxes[b])) continue;
        boxes[a] = united(boxes[a], boxes[b]);
        boxes.erase(boxes.begin() + static_cast<std::ptrdiff_t>(b));
        merged = true;
        break;
      }
    }
  }
  return boxes;
}

void resize_block(NodeBlock& b, const IndexBox& f) { b.resize(f.i0, f.j0, f.width(), f.height()); }

// Runs stage(boxes[b], scratch) for every box, then merge(b, scratch) with the scratch the stage
// left (ScmBoxWork), box after box in order. Two or more boxes run side by side on the OpenMP
// team, each with scratch of its own, unless a team is running already (a vector env steps its
// instances on the threads): the rover's four wheels are four boxes in each stage, each a few
// hundred to two thousand nodes, too few to split one box's passes (node_bands.hpp) but enough to
// give each thread whole wheels. On one thread every box reuses one scratch, which stays in the
// cache (four of them made the serial step 7 % slower). A stage reads and writes only its own
// box's nodes of the state (the boxes are disjoint, their tiles allocated here first in box order,
// as the stage's scatters would: ScmState::allocate_tiles) and its scratch, and merge runs in box
// order either way, so every result is the same bits on any team. What a box throws on the team
// is rethrown once all ran, the first box's in order.
template <class Stage, class Merge>
void for_each_box(ScmState& state, const std::vector<IndexBox>& boxes, ScmWorkspace& work,
                  const Stage& stage, const Merge& merge) {
  const std::size_t count = boxes.size();
  if (count < 2 || !team_can_start()) {
    if (work.boxes.empty()) work.boxes.resize(1);
    for (std::size_t b = 0; b < count; ++b) {
      stage(boxes[b], work.boxes.front());
      merge(b, work.boxes.front());
    }
    return;
  }
  if (work.boxes.size() < count) work.boxes.resize(count);
  for (const IndexBox& box : boxes) state.allocate_tiles(box);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t b = 0; b < count; ++b) {
    ScmBoxWork& bw = work.boxes[b];
    bw.error = nullptr;
    try {
      stage(boxes[b], bw);
    } catch (...) {
      bw.error = std::current_exception();
    }
  }
  for (std::size_t b = 0; b < count; ++b) {
    if (work.boxes[b].error) std::rethrow_exception(work.boxes[b].error);
  }
  for (std::size_t b = 0; b < count; ++b) merge(b, work.boxes[b]);
}

// The bound from which a deformation window's per-node passes (copies, element-wise updates) run
// in bands on the team (scm/node_bands.hpp). The flow fields keep the team busy every step (their
// local fields and superposition), so its threads are awake for the passes around them: banded,
// the rover's fields run took 1.12 s against 1.20 s serial (medians of 5). The border path runs
// nothing else on the team: waking it for each copy of a merged window of 4,000-8,000 nodes made
// a scripted RoverSlope-v0 episode 2.11 s against 1.66 s serial (docs/scm.md, Speed).
std::size_t window_banding(const ScmModel& m) {
  return m.method == FlowMethod::Fields ? kBandedPassMinNodes : kNeverBanded;
}

// Nodes that were in contact and are not any more are released: j and its peak reset, and soil
// sheared past failure is loosened for the next contact (docs/scm.md §Multipass).
void release_nodes(const SoilParameters& soil, NodeBlock& b, const std::vector<std::uint8_t>& was) {
  for (std::size_t k = 0; k < b.size(); ++k) {
    if (!was[k] || b.in_contact[k]) continue;
    if (b.peak_shear_m[k] >= soil.failure_shear_m) b.loosened[k] = 1;
    b.shear_x_m[k] = b.shear_y_m[k] = b.peak_shear_m[k] = 0.0;
  }
}

void fill_window(const ScmModel& m, const NodeBlock& b, std::span<const ContactNode> contacts,
                 FlowWindow& w) {
  w.i0 = b.i0;
  w.j0 = b.j0;
  w.cell_size_m = m.cell_size_m;
  // Every input is written below (the methods write every output).
  w.reshape(b.nx, b.ny);
  // Loops over raw pointers, one array pair at a time: through the vectors, every byte store
  // (in_contact) may alias the vectors' own pointers, so GCC reloaded them per node and kept the
  // pass scalar (a fields window at 1 cm has 10,000 nodes). Bands of nodes on the threads for a
  // large window (scm/node_bands.hpp).
  for_node_bands(b.size(), b.size(), window_banding(m), [&](std::size_t begin, std::size_t end) {
    const std::size_t n = end - begin;
    std::copy_n(b.height_m.data() + begin, n, w.height_m.data() + begin);
    std::copy_n(b.in_contact.data() + begin, n, w.in_contact.data() + begin);
    std::fill_n(w.contact_velocity_W.data() + begin, n, Vec3::Zero());
    // Outside the contact block the stored V_zeta is an earlier step's: only contact nodes
    // displaced soil in this one.
    const std::uint8_t* contact = b.in_contact.data() + begin;
    const double* displaced = b.displaced_m3.data() + begin;
    double* __restrict window_displaced = w.displaced_volume_m3.data() + begin;
    for (std::size_t k = 0; k < n; ++k) window_displaced[k] = contact[k] ? displaced[k] : 0.0;
    const double* vx = b.flow_vx.data() + begin;
    const double* vy = b.flow_vy.data() + begin;
    const double* vz = b.flow_vz.data() + begin;
    double* __restrict previous = w.previous_flow_velocity_W.data()->data() + 3 * begin;  // Vec3s
    for (std::size_t k = 0; k < n; ++k) {
      previous[3 * k] = vx[k];
      previous[3 * k + 1] = vy[k];
      previous[3 * k + 2] = vz[k];
    }
  });
  // Every contact of the step, each flow box of a window picking its own (the node's index is
  // stored with the contact: rounding its coordinates back to a node took 3 % of a RoverSlope-v0
  // episode).
  for (const ContactNode& c : contacts) {
    const int i = c.i, j = c.j;
    if (i < w.i0 || j < w.j0 || i >= w.i0 + w.nx || j >= w.j0 + w.ny) continue;  // other window
    w.contact_velocity_W[w.index(i - w.i0, j - w.j0)] = c.v_W;
  }
}

// A height change dh of a node's soil that no body pressed: a deposit (dh > 0) is loose; a
// removal takes the loose layer first, then exposes the soil below at its plastic sinkage.
void add_loose(double& loose_layer_m, double dh_m) {
  loose_layer_m = std::max(0.0, loose_layer_m + dh_m);
}

// Erosion (paper 002 §3.1, last paragraph): nodes not in contact relax to the angle of repose,
// with the Jacobi erosion the shaping tier uses too, on the window's own grid (contact nodes
// blocked). Returns updates.
int erode_window(const ScmModel& m, NodeBlock& b, std::vector<double>& scratch) {
  if (m.erosion_max_updates == 0) return 0;
  const HeightmapGrid window{b.nx, b.ny, m.cell_size_m, m.x(b.i0), m.y(b.j0)};
  ErosionParameters p;
  p.repose_angle_rad = m.soil.repose_angle_rad;
  p.tolerance_m = m.erosion_tolerance_m;
  p.max_updates = m.erosion_max_updates;
  p.min_cells_for_threads = m.erosion_min_cells_for_threads;
  return erode_to_steady_state(window, p, b.height_m, b.in_contact, window.whole(), scratch)
      .updates;
}

// 1 when x is not finite (NaN or infinite): exactly when its exponent bits are all ones, a test
// that needs no branch, so a pass can OR it over every node and name the node only on failure.
inline std::uint64_t non_finite_bit(double x) {
  constexpr std::uint64_t kExponent = 0x7ff0000000000000ULL;
  return static_cast<std::uint64_t>((std::bit_cast<std::uint64_t>(x) & kExponent) == kExponent);
}

void check_finite(const NodeBlock& b, long step_number) {
  for (std::size_t k = 0; k < b.size(); ++k) {
    const double v[] = {b.height_m[k], b.plastic_sinkage_m[k], b.shear_x_m[k], b.shear_y_m[k],
                        b.flow_vx[k],  b.flow_vy[k],           b.flow_vz[k],   b.flow_depth_m[k]};
    for (double x : v) {
      if (!std::isfinite(x)) {
        throw std::runtime_error(fmt::format(
            "step {}: node ({}, {}) has a non-finite state (height {}, sinkage {}, shear ({}, {}), "
            "flow velocity ({}, {}, {}), flow depth {})",
            step_number, b.i0 + static_cast<int>(k % static_cast<std::size_t>(b.nx)),
            b.j0 + static_cast<int>(k / static_cast<std::size_t>(b.nx)), v[0], v[1], v[2], v[3],
            v[4], v[5], v[6], v[7]));
      }
    }
  }
}

// How far [m] the soil disturbed in contact block cb can erode at the angle of repose phi. On
// level ground a relief dz (the highest minus the lowest node of the block) slumps over about
// dz / tan(phi). On a base terrain of slope beta the base's own relief is no berm (beta < phi
// stands), but a disturbance of relief d (of height minus base) reaches further on the uphill side
// of a rut, where its wall, rising at tan(phi), meets a surface that itself rises at tan(beta):
// d / (tan(phi) - tan(beta)) (on the downhill side d / (tan(phi) + tan(beta))). The reach is the
// smaller of that and dz / tan(phi), the rule for level ground applied to the whole relief (which
// it was until 2026-12-03: on RoverSlope-v0's 15 degree ramp it counted the ramp's rise across a
// wheel's block as a berm, and the four wheels' windows merged into one of 90 x 82 nodes). On a
// level base both are dz / tan(phi), computed exactly as before.
double erosion_reach_m(const ScmModel& m, const NodeBlock& cb) {
  const double tan_repose = std::tan(m.soil.repose_angle_rad);
  double lowest = cb.height_m[0], highest = lowest;
  // The base terrain in the block: its relief, its steepest rise between a node and its -x, -y
  // neighbours [m], and the relief of height minus base (low, high).
  double base_low = m.base_height(cb.i0, cb.j0), base_high = base_low;
  double steepest = 0.0;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (int j = cb.j0; j < cb.j0 + cb.ny; ++j) {
    for (int i = cb.i0; i < cb.i0 + cb.nx; ++i) {
      const double h = cb.height_m[cb.index(i, j)];
      lowest = std::min(lowest, h);
      highest = std::max(highest, h);
      if (m.base_image_m.empty()) continue;  // a level base: heights alone decide
      const double base = m.base_height(i, j);
      base_low = std::min(base_low, base);
      base_high = std::max(base_high, base);
      low = std::min(low, h - base);
      high = std::max(high, h - base);
      const double rise_x = i > cb.i0 ? base - m.base_height(i - 1, j) : 0.0;
      const double rise_y = j > cb.j0 ? base - m.base_height(i, j - 1) : 0.0;
      // hypot(x, +-0) is |x| exactly (C17 7.12.7.3): a base sloped along one axis (RoverSlope-v0's
      // ramp) or level takes no library call per node.
      const double rise =
          rise_x == 0.0 || rise_y == 0.0 ? std::abs(rise_x + rise_y) : std::hypot(rise_x, rise_y);
      steepest = std::max(steepest, rise);
    }
  }
  const double level_reach = (highest - lowest) / tan_repose;
  if (base_high == base_low) return level_reach;  // level base: the rule as it always was
  const double tan_base = steepest / m.cell_size_m;
  if (!(tan_base < tan_repose)) return level_reach;
  return std::min(level_reach, (high - low) / (tan_repose - tan_base));
}

// Stage 1 on one box of nodes that holds the footprints of some bodies (and the nodes they were
// in contact with last step, so that nodes a body left are released): the bodies cut and load
// the nodes in body order; the contacts get the nodes' final shear displacement; each body gets
// the bounding box of its contact nodes and the relief of its box (for the deformation window).
// Writes the box's nodes of the state, its own ScmBoxWork and, of `work`, the contact boxes and
// erosion reaches of the bodies whose footprints it holds (no other box holds them).
void contact_box(const ScmModel& m, ScmState& state, const IndexBox& box,
                 std::span<const BodyMotion> motions, double dt_s, long step_number,
                 ScmWorkspace& work, ScmBoxWork& bw) {
  // Every field but the flow's, which this stage neither reads nor writes (the deformation window
  // writes them): a third less to copy in and out of the tiles. The displaced and deposited
  // volumes are written (zeroed below, then cut) but never read: they are scattered, not
  // gathered.
  constexpr unsigned kContactFields = kAllNodeFields & ~(kFlowVelocity | kFlowDepth);
  constexpr unsigned kZeroedFields = kDisplaced | kDeposited;
  NodeBlock& cb = bw.contact_block;
  resize_block(cb, box);
  state.gather(cb, kContactFields & ~kZeroedFields);
  bw.was_in_contact = cb.in_contact;
  std::fill(cb.in_contact.begin(), cb.in_contact.end(), 0);
  std::fill(cb.displaced_m3.begin(), cb.displaced_m3.end(), 0.0);
  std::fill(cb.deposited_m3.begin(), cb.deposited_m3.end(), 0.0);
  bw.contacts.clear();
  bw.nodes_visited = 0;
  for (std::size_t b = 0; b < m.bodies.size(); ++b) {
    const IndexBox& fp = work.footprints[b];
    if (!box.contains(fp)) continue;
    bw.nodes_visited += static_cast<int>(fp.count());
    contact_body(m, static_cast<int>(b), motions[b], fp, dt_s, cb, bw.rows, bw.contacts);
  }
  release_nodes(m.soil, cb, bw.was_in_contact);
  // The node states only this stage writes (sinkage, shear) are checked here, on the contact
  // block; the deformation window checks what it writes (check_finite names the first bad node).
  std::uint64_t non_finite = 0;
  for (std::size_t k = 0; k < cb.size(); ++k) {
    non_finite |= non_finite_bit(cb.height_m[k]) | non_finite_bit(cb.plastic_sinkage_m[k]) |
                  non_finite_bit(cb.shear_x_m[k]) | non_finite_bit(cb.shear_y_m[k]);
  }
  if (non_finite != 0) check_finite(cb, step_number);

  const double erosion_reach = erosion_reach_m(m, cb);
  for (ContactNode& c : bw.contacts) {
    c.shear_x_m = cb.shear_x_m[c.k];
    c.shear_y_m = cb.shear_y_m[c.k];
    const int i = c.i, j = c.j;
    const auto b = static_cast<std::size_t>(c.body);
    work.body_contact_boxes[b] = united(work.body_contact_boxes[b], IndexBox{i, j, i + 1, j + 1});
    work.body_erosion_reach_m[b] = erosion_reach;
  }
  state.scatter(cb, kContactFields);
}

// The deformation window of one body: its contact nodes' box grown by the reach of the flow
// fields (their hard cap: flow_reach_m at the deepest failure surface the fields allow,
// FlowParameters::max_flow_depth_m) or by the border path's margin, which also leaves room for
// the berm and the rut to erode (erosion_reach_m; window edges are closed walls for the erosion).
IndexBox deformation_box(const ScmModel& m, const IndexBox& contact_nodes, double erosion_reach_m) {
  const int margin =
      m.method == FlowMethod::Fields
          ? static_cast<int>(
                std::ceil(flow_reach_m(m.flow, m.flow.max_flow_depth_m) / m.cell_size_m)) +
                2
          : m.border_margin_nodes + static_cast<int>(std::ceil(erosion_reach_m / m.cell_size_m));
  return m.clamped(grown(contact_nodes, margin));
}

// The boxes of window `box` whose nodes the deformation method writes. The flow fields carry soil
// across the whole window (its margin is their reach): one box, the window. The border path writes
// only near its patches: border nodes lie one node off a patch and a sheared node's target at
// most two nodes downstream (border_flow), so each body's contact box grown by two holds every
// node it changes for that body; the rest of the window is there for the erosion
// (deformation_box). The grown boxes are merged where they overlap (disjoint_boxes), so a node
// bordering two bodies' patches is in one box and takes both. Each box is deformed on its own:
// once the erosion's reach merged the rover's four wheel windows on the slope into one, a single
// box around all four contact patches scanned the soil between the wheels in every border_flow
// call. Per box, border_flow gives every node the same bits as over one box around them all: its
// patches, their scan order restricted to a box and the shear transport's targets are the same.
// Every body's contact box lies in exactly one window (its own grown box, merged).
std::vector<IndexBox> flow_boxes(const ScmModel& m, const IndexBox& box,
                                 std::span<const IndexBox> body_contact_boxes) {
  if (m.method == FlowMethod::Fields) return {box};
  std::vector<IndexBox> grown_contacts;
  for (const IndexBox& f : body_contact_boxes) {
    if (!box.contains(f)) continue;  // another window's body, or a body without contact
    const IndexBox g = grown(f, 2);
    grown_contacts.push_back({std::max(g.i0, box.i0), std::max(g.j0, box.j0),
                              std::min(g.i1, box.i1), std::min(g.j1, box.j1)});
  }
  return disjoint_boxes(std::move(grown_contacts));
}

// Stages 3-4 on one flow box of a deformation window (flow_boxes): the method moves the displaced
// soil, eq. 30 adds it, and what this stage wrote is checked for NaN. Leaves the box's nodes in
// `wb`, not yet scattered; only reads the state.
void deform_flow_box(const ScmModel& m, const ScmState& state, const IndexBox& box, double dt_s,
                     long step_number, std::span<const ContactNode> contacts, NodeBlock& wb,
                     ScmBoxWork& bw) {
  // The block copies only what this stage reads (the step's inputs); the other fields were
  // settled (and checked) by the contact stage, and the block's copies of them would be unchanged.
  constexpr unsigned kRead = kHeight | kFlowVelocity | kDisplaced | kInContact | kLooseLayer;
  resize_block(wb, box);
  const std::size_t banding = window_banding(m);
  state.gather(wb, kRead, banding);
  fill_window(m, wb, contacts, bw.window);
  if (m.method == FlowMethod::Fields) {
    // The Rankine angles of eq. 9-11 use the soil's friction angle.
    FlowParameters flow = m.flow;
    flow.friction_angle_rad = m.soil.friction_angle_rad;
    flow_by_local_fields(flow, dt_s, bw.window);
  } else {
    border_flow(m.soil.shear_band_m, dt_s, bw.window, bw.border);
  }

  // Height update (eq. 30). The cut V_zeta / A_grid was already applied in the contact stage (the
  // block's heights are after the cut), so only the deposits are added here.
  // Then a non-finite node state is looked for in what this stage wrote (before erosion, which
  // would spread a NaN); check_finite names the first such node and the step. Raw pointers and one
  // concern per loop, as in fill_window, so that each loop vectorises. Bands of nodes on the
  // threads for a large block (scm/node_bands.hpp); the flags' OR is exact in any order.
  const FlowWindow& w = bw.window;
  const std::size_t n = wb.size();
  const double area = m.cell_area_m2();
  std::atomic<std::uint64_t> non_finite{0};
  for_node_bands(n, n, banding, [&](std::size_t begin, std::size_t end) {
    const std::size_t count = end - begin;
    const double* deposited = w.deposited_volume_m3.data() + begin;
    const double* flow_velocity = w.flow_velocity_W.data()->data() + 3 * begin;  // packed Vec3s
    const double* flow_depth = w.flow_depth_m.data() + begin;
    // Distinct arrays (the block's and the window's own vectors): restrict lets GCC vectorise
    // without checking them for overlap at run time.
    double* __restrict height = wb.height_m.data() + begin;
    double* __restrict loose = wb.loose_layer_m.data() + begin;
    double* __restrict vx = wb.flow_vx.data() + begin;
    double* __restrict vy = wb.flow_vy.data() + begin;
    double* __restrict vz = wb.flow_vz.data() + begin;
    for (std::size_t k = 0; k < count; ++k) {
      height[k] += deposited[k] / area;
      add_loose(loose[k], deposited[k] / area);
    }
    for (std::size_t k = 0; k < count; ++k) {
      vx[k] = flow_velocity[3 * k];
      vy[k] = flow_velocity[3 * k + 1];
      vz[k] = flow_velocity[3 * k + 2];
    }
    std::uint64_t band_non_finite = 0;
    for (std::size_t k = 0; k < count; ++k) {
      band_non_finite |= non_finite_bit(height[k]) | non_finite_bit(vx[k]) | non_finite_bit(vy[k]) |
                         non_finite_bit(vz[k]) | non_finite_bit(flow_depth[k]);
    }
    non_finite.fetch_or(band_non_finite, std::memory_order_relaxed);
    std::copy_n(w.displaced_volume_m3.data() + begin, count, wb.displaced_m3.data() + begin);
    std::copy_n(deposited, count, wb.deposited_m3.data() + begin);
    std::copy_n(flow_depth, count, wb.flow_depth_m.data() + begin);
  });
  // The deposits' total is summed by the step from the blocks, in node order on one thread: the
  // report is the same bits for any team.
  if (non_finite.load(std::memory_order_relaxed) != 0) {
    // The message shows every state of the node; the block did not copy the contact stage's.
    state.gather(wb, kPlasticSinkage | kShearX | kShearY);
    check_finite(wb, step_number);
  }
}

// Stages 3-6 on one deformation window: the flow and the height update on its flow boxes
// (deform_flow_box), then the erosion of the nodes not in contact to the angle of repose over the
// whole window. Outside the flow boxes the method writes no soil, so there its outputs are zero
// (no flow, no deposit, no displaced soil): they are written as zeros without a pass over a block,
// and the erosion's block copies the heights, contacts and loose layers only. The heights, and
// every output, are the bits of one block over the whole window.
// Reads and writes the window's nodes of the state only (the flow boxes lie inside it), and its own
// ScmBoxWork: bw.flow_blocks[f] for f < bw.flow_box_count hold each flow box's outputs after it.
void deform_window(const ScmModel& m, ScmState& state, const IndexBox& box, double dt_s,
                   long step_number, std::span<const ContactNode> contacts,
                   std::span<const IndexBox> body_contact_boxes, ScmBoxWork& bw) {
  constexpr unsigned kMethodOutputs = kFlowVelocity | kFlowDepth | kDeposited | kDisplaced;
  constexpr unsigned kWritten = kHeight | kLooseLayer | kMethodOutputs;
  const std::vector<IndexBox> flows = flow_boxes(m, box, body_contact_boxes);
  const std::size_t banding = window_banding(m);
  bw.flow_box_count = flows.size();
  // Every flow box is deformed before any is written back: zero_fields below clears the soil
  // the contact stage displaced, which the flow reads.
  if (bw.flow_blocks.size() < flows.size()) bw.flow_blocks.resize(flows.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    deform_flow_box(m, state, flows[f], dt_s, step_number, contacts, bw.flow_blocks[f], bw);
  }
  NodeBlock* eroded = &bw.erosion_block;
  unsigned eroded_fields = kHeight | kLooseLayer;
  if (flows.size() == 1 && flows.front() == box) {
    eroded = &bw.flow_blocks.front();
    eroded_fields = kWritten;
  } else {
    state.zero_fields(box, kMethodOutputs);
    for (std::size_t f = 0; f < flows.size(); ++f) {
      state.scatter(bw.flow_blocks[f], kWritten, banding);
    }
    resize_block(*eroded, box);
    state.gather(*eroded, kHeight | kInContact | kLooseLayer, banding);
  }
  NodeBlock& eb = *eroded;
  const std::size_t n = eb.size();
  bw.heights_before_erosion.assign(eb.height_m.begin(), eb.height_m.end());

  // Erosion of the nodes not in contact to the angle of repose (keeps finite heights finite);
  // what it moves is loose where it lands and taken from the loose layer where it leaves.
  bw.erosion_updates = erode_window(m, eb, bw.erosion_scratch);
  for_node_bands(n, n, banding, [&](std::size_t begin, std::size_t end) {
    const double* height = eb.height_m.data() + begin;
    const double* before = bw.heights_before_erosion.data() + begin;
    double* __restrict loose = eb.loose_layer_m.data() + begin;
    for (std::size_t k = 0; k < end - begin; ++k) add_loose(loose[k], height[k] - before[k]);
  });
  state.scatter(eb, eroded_fields, banding);
}

}  // namespace

ScmStepReport step(const ScmModel& model, ScmState& state, std::span<const BodyMotion> motions,
                   std::span<Wrench> wrenches, ScmWorkspace& work) {
  return step(model, state, model.time_step_s, motions, wrenches, work);
}

ScmStepReport step(const ScmModel& m, ScmState& state, double dt_s,
                   std::span<const BodyMotion> start, std::span<Wrench> wrenches,
                   ScmWorkspace& work) {
  if (start.size() != m.bodies.size() || wrenches.size() != m.bodies.size()) {
    throw std::invalid_argument(fmt::format("step: {} bodies but {} motions and {} wrenches",
                                            m.bodies.size(), start.size(), wrenches.size()));
  }
  if (!(dt_s > 0.0) || !std::isfinite(dt_s)) {
    throw std::invalid_argument(
        fmt::format("step: time_step_s = {}: expected a time > 0 [s]", dt_s));
  }
  // The motions are the bodies' at the start of the step, as every tier takes them
  // (core/contact_tier.hpp). SCM is a position-level model: the soil answers the sinkage each
  // body has at the end of the step, at the pose it reaches moving with its twist.
  work.end_motions.clear();
  for (const BodyMotion& s : start) {
    work.end_motions.push_back({advanced(s.X_WB, s.V_WB, dt_s), s.V_WB});
  }
  const std::span<const BodyMotion> motions = work.end_motions;
  const long step_number = state.step + 1;
  const std::size_t n_bodies = m.bodies.size();
  ScmStepReport report;

  // 1. Contact (§3, eq. 1-2, 31, 34): visit only the nodes under each body, on boxes of
  // overlapping footprints and last step's contact boxes (grown by one node).
  std::vector<IndexBox> boxes;
  work.footprints.clear();
  for (std::size_t b = 0; b < n_bodies; ++b) {
    work.footprints.push_back(body_footprint(m, m.bodies[b], motions[b].X_WB));
    boxes.push_back(m.clamped(grown(work.footprints.back(), 1)));
  }
  for (const IndexBox& f : state.contact_boxes) boxes.push_back(m.clamped(grown(f, 1)));
  work.body_contact_boxes.assign(n_bodies, IndexBox{});
  work.body_erosion_reach_m.assign(n_bodies, 0.0);
  const std::vector<IndexBox> contact_boxes = disjoint_boxes(std::move(boxes));
  work.contacts.clear();
  for_each_box(
      state, contact_boxes, work,
      [&](const IndexBox& box, ScmBoxWork& bw) {
        contact_box(m, state, box, motions, dt_s, step_number, work, bw);
      },
      [&](std::size_t, const ScmBoxWork& bw) {
        work.contacts.insert(work.contacts.end(), bw.contacts.begin(), bw.contacts.end());
        report.nodes_visited += bw.nodes_visited;
        // The displaced volumes, box after box in node order, from the box's block: the report's
        // total is the same bits whether the boxes ran side by side or not.
        const NodeBlock& cb = bw.contact_block;
        for (std::size_t k = 0; k < cb.size(); ++k) {
          if (!cb.in_contact[k]) continue;
          report.displaced_volume_m3 += cb.displaced_m3[k];
          report.max_flow_depth_m = std::max(report.max_flow_depth_m, cb.plastic_sinkage_m[k]);
        }
      });
  report.nodes_in_contact = static_cast<int>(work.contacts.size());

  // 2. Forces (§3.2, eq. 34-38).
  body_wrenches(m, motions, work.contacts, wrenches);

  state.contact_boxes.clear();
  std::vector<IndexBox> windows;
  for (std::size_t b = 0; b < n_bodies; ++b) {
    const IndexBox& f = work.body_contact_boxes[b];
    if (f.empty()) continue;
    state.contact_boxes.push_back(f);
    windows.push_back(deformation_box(m, f, work.body_erosion_reach_m[b]));
  }
  state.step = step_number;
  state.time_s += dt_s;

  // 3-6. Deformation (§3.1: flow fields or border path), height update (eq. 30), finite check and
  // erosion, on the disjoint windows around the bodies' contact patches.
  const std::vector<IndexBox> deformation_windows = disjoint_boxes(std::move(windows));
  for_each_box(
      state, deformation_windows, work,
      [&](const IndexBox& box, ScmBoxWork& bw) {
        deform_window(m, state, box, dt_s, step_number, work.contacts, work.body_contact_boxes, bw);
      },
      [&](std::size_t b, const ScmBoxWork& bw) {
        report.window_nodes += static_cast<int>(deformation_windows[b].count());
        report.erosion_updates = std::max(report.erosion_updates, bw.erosion_updates);
        // The deposits' total, window after window, flow box after flow box, in node order.
        for (std::size_t f = 0; f < bw.flow_box_count; ++f) {
          for (const double v : bw.flow_blocks[f].deposited_m3) report.deposited_volume_m3 += v;
        }
      });
  return report;
}

}  // namespace talus::scm
