#include "scm/border_flow.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace talus::scm {

void border_flow(double shear_band_m, double dt_s, FlowWindow& w, BorderFlowScratch& s) {
  const std::size_t n = w.size();
  std::fill(w.deposited_volume_m3.begin(), w.deposited_volume_m3.end(), 0.0);
  std::fill(w.volumetric_flow_W.begin(), w.volumetric_flow_W.end(), Vec3::Zero());
  std::fill(w.flow_depth_m.begin(), w.flow_depth_m.end(), 0.0);
  std::fill(w.flow_velocity_W.begin(), w.flow_velocity_W.end(), Vec3::Zero());
  s.label.assign(n, -1);
  s.volume.clear();
  s.border_count.clear();

  // Patches: 4-connected components of the contact nodes, labelled in row-major order. The box
  // of the contact nodes, grown by one node, holds every border node: the scans below stay in
  // it rather than visiting the whole window (which is wider by the erosion margin).
  int ci0 = w.nx, cj0 = w.ny, ci1 = -1, cj1 = -1;
  for (int j = 0; j < w.ny; ++j) {
    for (int i = 0; i < w.nx; ++i) {
      const std::size_t k0 = w.index(i, j);
      if (!w.in_contact[k0]) continue;
      ci0 = std::min(ci0, i);
      ci1 = std::max(ci1, i);
      cj0 = std::min(cj0, j);
      cj1 = std::max(cj1, j);
      if (s.label[k0] >= 0) continue;
      const int patch = static_cast<int>(s.volume.size());
      s.volume.push_back(0.0);
      s.border_count.push_back(0);
      s.stack.assign(1, static_cast<int>(k0));
      s.label[k0] = patch;
      while (!s.stack.empty()) {
        const int k = s.stack.back();
        s.stack.pop_back();
        s.volume[static_cast<std::size_t>(patch)] +=
            w.displaced_volume_m3[static_cast<std::size_t>(k)];
        const int ci = k % w.nx, cj = k / w.nx;
        const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; ++d) {
          const int ni = ci + di[d], nj = cj + dj[d];
          if (ni < 0 || nj < 0 || ni >= w.nx || nj >= w.ny) continue;
          const std::size_t kn = w.index(ni, nj);
          if (w.in_contact[kn] && s.label[kn] < 0) {
            s.label[kn] = patch;
            s.stack.push_back(static_cast<int>(kn));
          }
        }
      }
    }
  }
  if (s.volume.empty()) return;
  const int bi0 = std::max(ci0 - 1, 0), bi1 = std::min(ci1 + 1, w.nx - 1);
  const int bj0 = std::max(cj0 - 1, 0), bj1 = std::min(cj1 + 1, w.ny - 1);

  // Border nodes of each patch: not in contact, with a node of the patch among the 8 neighbours;
  // a node touching a patch through several neighbours counts once for that patch. One scan
  // records each (node, patch) pair and counts it; the deposits then replay the pairs in the scan's
  // order (two scans of the neighbours, count then deposit, were half of this function's time).
  s.border.clear();
  const int* label = s.label.data();
  const std::uint8_t* in_contact = w.in_contact.data();
  const int nx = w.nx, ny = w.ny;
  for (int j = bj0; j <= bj1; ++j) {
    for (int i = bi0; i <= bi1; ++i) {
      const std::size_t k = w.index(i, j);
      if (in_contact[k]) continue;
      int seen[8];
      int n_seen = 0;
      for (int nj = std::max(j - 1, 0); nj <= std::min(j + 1, ny - 1); ++nj) {
        for (int ni = std::max(i - 1, 0); ni <= std::min(i + 1, nx - 1); ++ni) {
          if (ni == i && nj == j) continue;
          const int p = label[w.index(ni, nj)];
          if (p < 0 || std::find(seen, seen + n_seen, p) != seen + n_seen) continue;
          seen[n_seen++] = p;
          s.border.emplace_back(k, p);
          ++s.border_count[static_cast<std::size_t>(p)];
        }
      }
    }
  }
  for (const auto& [k, p] : s.border) {
    w.deposited_volume_m3[k] +=
        s.volume[static_cast<std::size_t>(p)] / s.border_count[static_cast<std::size_t>(p)];
  }
  // The passes below visit contact nodes only: they stay in the contact nodes' box, in the same
  // row-major order as over the whole window, so the sums are the same.
  const auto for_each_contact_box_node = [&](auto&& visit) {
    for (int j = cj0; j <= cj1; ++j) {
      for (int i = ci0; i <= ci1; ++i) visit(i, j, w.index(i, j));
    }
  };
  // A patch filling the window keeps its soil (spread evenly over its own nodes).
  std::vector<int>& own = s.own_count;
  own.assign(s.volume.size(), 0);
  for_each_contact_box_node([&](int, int, std::size_t k) {
    if (s.label[k] >= 0 && s.border_count[static_cast<std::size_t>(s.label[k])] == 0) {
      ++own[static_cast<std::size_t>(s.label[k])];
    }
  });
  for_each_contact_box_node([&](int, int, std::size_t k) {
    const int p = s.label[k];
    if (p >= 0 && s.border_count[static_cast<std::size_t>(p)] == 0) {
      w.deposited_volume_m3[k] +=
          s.volume[static_cast<std::size_t>(p)] / own[static_cast<std::size_t>(p)];
    }
  });

  // Sheared soil moves with the body (see the header): row-major order, so the sums are the same
  // for any thread count.
  for_each_contact_box_node([&](int i, int j, std::size_t k) {
    if (!w.in_contact[k] || shear_band_m <= 0.0) return;
    const Vec3& v = w.contact_velocity_W[k];
    const double speed = std::hypot(v.x(), v.y());
    if (!(speed > 0.0)) return;
    const double q = std::min(speed * dt_s, w.cell_size_m) * w.cell_size_m * shear_band_m;
    // Target point one cell downstream: node (i, j) plus the unit direction (dx, dy), split
    // bilinearly over the four nodes around it. The fractions come from the direction alone, not
    // from i + dx, whose rounding would depend on where the window starts (the step's windows are
    // placed by the bodies' contact boxes), so the same soil moves the same in any window.
    const double dx = v.x() / speed, dy = v.y() / speed;
    const double floor_x = std::floor(dx), floor_y = std::floor(dy);
    const int a = i + static_cast<int>(floor_x), c = j + static_cast<int>(floor_y);
    if (a < 0 || c < 0 || a + 1 >= w.nx || c + 1 >= w.ny) return;
    const double fx = dx - floor_x, fy = dy - floor_y;
    w.deposited_volume_m3[k] -= q;
    w.deposited_volume_m3[w.index(a, c)] += q * (1 - fx) * (1 - fy);
    w.deposited_volume_m3[w.index(a + 1, c)] += q * fx * (1 - fy);
    w.deposited_volume_m3[w.index(a, c + 1)] += q * (1 - fx) * fy;
    w.deposited_volume_m3[w.index(a + 1, c + 1)] += q * fx * fy;
    w.flow_depth_m[k] = shear_band_m;
  });

  for_each_contact_box_node([&](int, int, std::size_t k) {
    if (!w.in_contact[k]) return;
    w.flow_velocity_W[k] = w.contact_velocity_W[k];
    const double speed = w.contact_velocity_W[k].norm();
    if (speed > 0.0) {
      w.volumetric_flow_W[k] = w.contact_velocity_W[k] * (w.displaced_volume_m3[k] / speed);
    }
  });
}

}  // namespace talus::scm
