// How far talus's speed approximations of the soil flow (FlowParameters::cluster_nodes,
// field_stride; docs/soil_flow.md, Approximations) move its outputs from the exact path (the
// paper's model, one field per displacing node evaluated on every node), on one call for the
// benchmark's wheel window (bench/bench_soil_flow.cpp) on 2 cm and 1 cm grids and for a strip
// load (a 0.1 m x 1 m strip sunk 2 cm, every strip node displacing, sinking at 5 cm/s).
//
//   talus_soil_flow_accuracy OUT_DIR
//
// Prints, per window and setting, the relative L2 difference to the exact path per node and on
// 6 cm blocks (sums over the block's nodes), for the deposit V_delta, the flow depth h_delta, the
// volumetric flow Q_delta and the flow velocity v_delta; the row "seed 2" is the exact path with
// another chord-set rotation seed (eq. 3's alpha_RND), the model's own node-to-node noise. Writes
// centre-line plots of the wheel window (2 cm) into OUT_DIR.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/plot.hpp"
#include "core/units.hpp"
#include "scm/flow_window.hpp"
#include "scm/soil_flow.hpp"

namespace {

using talus::Vec3;
using talus::scm::FlowParameters;
using talus::scm::FlowWindow;

constexpr double kRadius = 0.25, kHalfWidth = 0.1, kSinkage = 0.02, kSpeed = 0.5, kSlip = 0.2;
constexpr double kDt = 1e-3;

double wheel_bottom(double x, double y, double x_c) {
  const double dx = x - x_c;
  if (std::abs(y) > kHalfWidth || std::abs(dx) >= kRadius) return 1e9;
  return kRadius - kSinkage - std::sqrt(kRadius * kRadius - dx * dx);
}

FlowWindow window(double cell, double half_x, double half_y, int i0, int j0) {
  FlowWindow w;
  w.resize(2 * static_cast<int>(std::ceil(half_x / cell)) + 1,
           2 * static_cast<int>(std::ceil(half_y / cell)) + 1);
  w.cell_size_m = cell;
  w.i0 = i0;
  w.j0 = j0;
  return w;
}

FlowWindow wheel(double cell, const FlowParameters& p) {
  const double margin = talus::scm::flow_reach_m(p, p.max_flow_depth_m) + cell;
  FlowWindow w =
      window(cell, std::sqrt(2.0 * kRadius * kSinkage) + margin, kHalfWidth + margin, 1000, 0);
  w.j0 = -w.ny / 2;
  const double omega = kSpeed / (kRadius * (1.0 - kSlip)), z_c = kRadius - kSinkage;
  for (int j = 0; j < w.ny; ++j) {
    for (int i = 0; i < w.nx; ++i) {
      const double x = (i - w.nx / 2) * cell, y = (j - w.ny / 2) * cell;
      const std::size_t k = w.index(i, j);
      const double z = wheel_bottom(x, y, 0.0);
      if (z >= 0.0) continue;
      w.height_m[k] = z;
      w.in_contact[k] = 1;
      w.contact_velocity_W[k] = Vec3(kSpeed + omega * (z - z_c), 0.0, -omega * x);
      w.displaced_volume_m3[k] =
          std::max(std::min(wheel_bottom(x, y, -kSpeed * kDt), 0.0) - z, 0.0) * cell * cell;
    }
  }
  return w;
}

FlowWindow strip(double cell, const FlowParameters& p) {
  const double margin = talus::scm::flow_reach_m(p, p.max_flow_depth_m) + cell;
  FlowWindow w = window(cell, 0.05 + margin, 0.5 + margin, 3, 7);
  for (int j = 0; j < w.ny; ++j) {
    for (int i = 0; i < w.nx; ++i) {
      const double x = (i - w.nx / 2) * cell, y = (j - w.ny / 2) * cell;
      if (std::abs(x) > 0.05 + 1e-9 || std::abs(y) > 0.5 + 1e-9) continue;
      const std::size_t k = w.index(i, j);
      w.height_m[k] = -0.02;
      w.in_contact[k] = 1;
      w.contact_velocity_W[k] = Vec3(0.0, 0.0, -0.05);
      w.displaced_volume_m3[k] = 0.05 * kDt * cell * cell;
    }
  }
  return w;
}

/// Component c of a node's output: 0 deposit, 1 flow depth, 2-4 Q, 5-7 v.
double value(const FlowWindow& w, std::size_t k, int c) {
  if (c == 0) return w.deposited_volume_m3[k];
  if (c == 1) return w.flow_depth_m[k];
  if (c < 5) return w.volumetric_flow_W[k][c - 2];
  return w.flow_velocity_W[k][c - 5];
}

/// Relative L2 difference of components [c0, c1) summed over b x b blocks (b = 1: per node).
double difference(const FlowWindow& a, const FlowWindow& b, int c0, int c1, int blk) {
  double diff2 = 0.0, ref2 = 0.0;
  for (int bj = 0; bj + blk <= a.ny; bj += blk) {
    for (int bi = 0; bi + blk <= a.nx; bi += blk) {
      for (int c = c0; c < c1; ++c) {
        double sa = 0.0, sb = 0.0;
        for (int j = bj; j < bj + blk; ++j) {
          for (int i = bi; i < bi + blk; ++i) {
            sa += value(a, a.index(i, j), c);
            sb += value(b, b.index(i, j), c);
          }
        }
        diff2 += (sa - sb) * (sa - sb);
        ref2 += sa * sa;
      }
    }
  }
  return std::sqrt(diff2 / ref2);
}

struct Setting {
  std::string name;
  int cluster, stride;
  std::uint64_t seed;
  bool plotted = true;  ///< drawn in the 2 cm centre-line plots
};

FlowParameters parameters(const Setting& s) {
  FlowParameters p;
  p.friction_angle_rad = talus::deg_to_rad(30.5);
  p.cluster_nodes = s.cluster;
  p.field_stride = s.stride;
  p.seed = s.seed;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: talus_soil_flow_accuracy OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  const std::vector<Setting> settings = {{"exact", 1, 1, 1},
                                         {"seed 2", 1, 1, 2, false},
                                         {"clusters 3", 3, 1, 1},
                                         {"stride 2", 1, 2, 1},
                                         // The defaults on 2 cm (cluster_span_m 0.06 m,
                                         // field_spacing_m 0.04 m), and on 1 cm.
                                         {"clusters 3, stride 2", 3, 2, 1},
                                         {"clusters 7, stride 4", 7, 4, 1, false}};
  struct Case {
    std::string name;
    double cell;
    bool is_wheel;
  };
  std::printf(
      "| window | setting | V_delta node / block | h_delta node | Q_delta node / block | "
      "v_delta node / block |\n|---|---|---|---|---|---|\n");
  for (const Case& c : {Case{"wheel 2 cm", 0.02, true}, Case{"wheel 1 cm", 0.01, true},
                        Case{"strip 2 cm", 0.02, false}}) {
    std::vector<FlowWindow> runs;
    for (const Setting& s : settings) {
      const FlowParameters p = parameters(s);
      runs.push_back(c.is_wheel ? wheel(c.cell, p) : strip(c.cell, p));
      talus::scm::flow_by_local_fields(p, kDt, runs.back());
    }
    const int blk = static_cast<int>(std::lround(0.06 / c.cell));
    for (std::size_t s = 1; s < settings.size(); ++s) {
      const FlowWindow& e = runs[0];
      const FlowWindow& a = runs[s];
      std::printf("| %s | %s | %.3f / %.3f | %.3f | %.3f / %.3f | %.3f / %.3f |\n", c.name.c_str(),
                  settings[s].name.c_str(), difference(e, a, 0, 1, 1), difference(e, a, 0, 1, blk),
                  difference(e, a, 1, 2, 1), difference(e, a, 2, 5, 1), difference(e, a, 2, 5, blk),
                  difference(e, a, 5, 8, 1), difference(e, a, 5, 8, blk));
    }
    if (c.name != "wheel 2 cm") continue;
    // Centre line (y = 0) of the wheel window: deposit, flow depth, flow velocity along x.
    const char* titles[3] = {"wheel, 2 cm grid: deposit on the centre line",
                             "wheel, 2 cm grid: flow depth on the centre line",
                             "wheel, 2 cm grid: flow velocity on the centre line"};
    const char* labels[3] = {"V_delta [mm^3]", "h_delta [mm]", "v_delta,x [mm/s]"};
    const char* files[3] = {"soil_flow_approx_deposit.png", "soil_flow_approx_depth.png",
                            "soil_flow_approx_velocity.png"};
    const double scale[3] = {1e9, 1e3, 1e3};
    for (int q = 0; q < 3; ++q) {
      talus::PlotSpec spec;
      spec.title = titles[q];
      spec.x_label = "x from the wheel axle [m]";
      spec.y_label = labels[q];
      for (std::size_t s = 0; s < settings.size(); ++s) {
        if (!settings[s].plotted) continue;
        talus::PlotSeries line;
        line.name = settings[s].name;
        const FlowWindow& w = runs[s];
        for (int i = 0; i < w.nx; ++i) {
          const std::size_t k = w.index(i, w.ny / 2);
          line.x.push_back((i - w.nx / 2) * c.cell);
          line.y.push_back(scale[q] * (q == 0   ? w.deposited_volume_m3[k]
                                       : q == 1 ? w.flow_depth_m[k]
                                                : w.flow_velocity_W[k].x()));
        }
        line.markers = true;
        spec.series.push_back(line);
      }
      talus::write_png(out / files[q], talus::plot_lines(spec));
    }
  }
  return 0;
}
