#include "scm/scm_contact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace talus::scm {

IndexBox body_footprint(const ScmModel& m, const CoupledBody& body, const Pose& X_WB) {
  const Aabb box = world_bounds(body.shape, X_WB);
  const IndexBox fp = m.samples_within(box.lo.x(), box.lo.y(), box.hi.x(), box.hi.y());
  if (box.lo.x() < m.x0_m || box.lo.y() < m.y0_m || fp.i1 > m.nx || fp.j1 > m.ny) {
    throw std::runtime_error(fmt::format(
        "body '{}' spans x [{:.4g}, {:.4g}] m, y [{:.4g}, {:.4g}] m: outside the map x [{:.4g}, "
        "{:.4g}] m, y [{:.4g}, {:.4g}] m",
        body.name, box.lo.x(), box.hi.x(), box.lo.y(), box.hi.y(), m.x0_m, m.x(m.nx - 1), m.y0_m,
        m.y(m.ny - 1)));
  }
  const int across_x = fp.width(), across_y = fp.height();
  if (across_x < 3 || across_y < 3) {
    throw std::runtime_error(fmt::format(
        "body '{}' covers {} x {} nodes: the grid (cell_size_m = {}) is too coarse, at least 3 "
        "nodes across the contact are needed along x and y",
        body.name, across_x, across_y, m.cell_size_m));
  }
  return fp;
}

double bekker_stress(const SoilParameters& soil, double sinkage_m) {
  return sinkage_m > 0.0 ? soil.bekker_k() * std::pow(sinkage_m, soil.exponent_n) : 0.0;
}

void contact_body(const ScmModel& m, int body_index, const BodyMotion& motion, const IndexBox& fp,
                  double dt_s, NodeBlock& b, std::vector<std::vector<ContactNode>>& rows,
                  std::vector<ContactNode>& out) {
  const CoupledBody& body = m.bodies[static_cast<std::size_t>(body_index)];
  const SoilParameters& soil = m.soil;
  const double area = m.cell_area_m2();
  const int n_rows = fp.height();
  if (static_cast<int>(rows.size()) < n_rows) rows.resize(static_cast<std::size_t>(n_rows));
  const Pose X_BW = motion.X_WB.inverse();
  const int n_cols = fp.width();

#pragma omp parallel for schedule(static) if (n_rows * n_cols >= 4096)
  for (int r = 0; r < n_rows; ++r) {
    std::vector<ContactNode>& row = rows[static_cast<std::size_t>(r)];
    row.clear();
    const int j = fp.j0 + r;
    const double y = m.y(j);
    for (int i = fp.i0; i < fp.i1; ++i) {
      const double x = m.x(i);
      const double z_obj = lowest_point_z(body.shape, motion.X_WB, x, y);
      if (!(z_obj < std::numeric_limits<double>::infinity())) continue;
      const std::size_t k = b.index(i, j);
      const double h = b.height_m[k];
      double sigma = 0.0;
      if (z_obj < h) {
        // Plastic loading: the node follows the body down; the cut is displaced soil (eq. 2).
        // What it cuts below the node's loose layer adds to the plastic sinkage that Bekker's
        // law turns into stress (eq. 34). The loose layer is soil deposited on the node (a bow
        // wave, a berm eroded into the rut, the rut refilled behind a wheel): cutting it moves
        // it again without compacting the soil under it. Counting it as compaction made the
        // border path's wheel ride on its own deposits, 9 mm higher than the flow fields' at
        // the same slip (docs/scm.md, "Border path against flow fields").
        const double cut = h - z_obj;
        b.displaced_m3[k] += cut * area;
        const double loose_cut = std::min(cut, b.loose_layer_m[k]);
        b.loose_layer_m[k] -= loose_cut;
        b.plastic_sinkage_m[k] += cut - loose_cut;
        b.height_m[k] = z_obj;
        sigma = bekker_stress(soil, b.plastic_sinkage_m[k]);
      } else {
        // Elastic unloading / reloading below the yield stress sigma_y = k z_p^n: the stress
        // falls linearly with the gap between body and surface and vanishes at sigma_y / K_e.
        const double sigma_y = bekker_stress(soil, b.plastic_sinkage_m[k]);
        sigma = sigma_y - soil.unloading_stiffness_pa_per_m * (z_obj - h);
        if (sigma <= 0.0) continue;
      }
      ContactNode c;
      c.k = k;
      c.i = i;
      c.j = j;
      c.body = body_index;
      c.p_W = Vec3(x, y, z_obj);
      c.n_W = motion.X_WB.linear() * outward_normal(body.shape, X_BW * c.p_W);
      c.v_W = motion.V_WB.velocity_of_point(motion.X_WB, c.p_W);
      c.sigma_pa = sigma;
      c.loosened = b.loosened[k] != 0;
      // Shear displacement (eq. 31): the soil at a contact node moves with the body
      // (assumption 3), so j integrates the body's horizontal velocity there. A node that was
      // not in contact in the previous step starts from j = 0 (reset when it was released).
      b.shear_x_m[k] += c.v_W.x() * dt_s;
      b.shear_y_m[k] += c.v_W.y() * dt_s;
      b.peak_shear_m[k] = std::max(b.peak_shear_m[k], std::hypot(b.shear_x_m[k], b.shear_y_m[k]));
      b.in_contact[k] = 1;
      row.push_back(c);
    }
  }
  for (int r = 0; r < n_rows; ++r) {
    const auto& row = rows[static_cast<std::size_t>(r)];
    out.insert(out.end(), row.begin(), row.end());
  }
}

}  // namespace talus::scm
