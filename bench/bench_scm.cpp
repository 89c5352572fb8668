// SCM tier step cost (issue 4's benchmark): one rigid wheel, 0.5 m diameter, 0.2 m wide, 500 N,
// slip 0.2, 0.5 m/s, dt = 1e-3 s, dry sand (Wong's LLL Bekker parameters), driving straight on a
// 2 cm or 1 cm grid; the wheel's vertical motion is free under the load (the test rig of
// paper 002 §4.2), so every step is a real step of a sinking, rolling wheel.
//
//   ScmWheelStep/cell_mm/method/threads   method 0 = border path, 1 = flow fields (defaults:
//     clusters spanning 6 cm and a 4 cm field lattice, 3 and 2 nodes on 2 cm, 7 and 4 on 1 cm),
//     2 = flow fields exact (cluster_nodes = field_stride = 1, the paper's model;
//     docs/soil_flow.md)
//     time per iteration = one SCM step; counters: nodes_visited (footprint nodes per step),
//     window_nodes (deformation window), node_updates_per_s = (visited + window) nodes / s.
//
// The wheel is settled and driven 0.3 s before timing starts. The map is 40 m long; only the
// track's tiles are ever allocated. A step that throws (e.g. the wheel leaving the map) is
// reported with SkipWithError, so the binary never aborts.

#include <benchmark/benchmark.h>
#include <omp.h>

#include <cmath>
#include <exception>

#include "core/units.hpp"
#include "scm/scm_rigs.hpp"

namespace talus::scm {
namespace {

void ScmWheelStep(benchmark::State& st) {
  const double cell = static_cast<double>(st.range(0)) * 1e-3;
  const bool fields = st.range(1) >= 1;
  const bool exact_fields = st.range(1) == 2;
  const int threads = static_cast<int>(st.range(2));
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);

  ScmModel m;
  m.cell_size_m = cell;
  m.nx = static_cast<int>(std::lround(40.0 / cell)) + 1;
  m.ny = static_cast<int>(std::lround(1.0 / cell)) + 1;
  m.soil = named_soil("dry_sand");
  m.method = fields ? FlowMethod::Fields : FlowMethod::Border;
  if (exact_fields) {
    m.flow.cluster_nodes = 1;
    m.flow.field_stride = 1;
  }
  m.time_step_s = 1e-3;
  WheelTest t;  // 0.25 m radius, 0.2 m wide cylinder, 500 N, slip 0.2, 0.5 m/s
  m = with_wheel(m, t);
  try {
    validate(m);
    ScmState state(m);
    ScmWorkspace work;
    VerticalRig rig;
    rig.mass_kg = t.load_n / kGravity_m_per_s2;
    rig.damping_n_s_per_m = t.damping_n_s_per_m;
    rig.z_m = t.radius_m;
    const double omega = t.speed_m_per_s / ((1.0 - t.slip) * t.radius_m);
    std::vector<BodyMotion> motion(1);
    std::vector<Wrench> wrench(1);
    double x = 0.5, angle = 0.0, fz = 0.0;
    ScmStepReport rep;
    auto one_step = [&] {
      rig.advance(fz, t.load_n, m.time_step_s);
      x += t.speed_m_per_s * m.time_step_s;
      angle += omega * m.time_step_s;
      motion[0].X_WB = make_pose(Vec3(x, 0.5, rig.z_m), kPi / 2.0, angle, 0.0);
      motion[0].V_WB.v_WBo = Vec3(t.speed_m_per_s, 0.0, rig.vz_m_per_s);
      motion[0].V_WB.w_W = Vec3(0.0, omega, 0.0);
      rep = step(m, state, motion, wrench, work);
      fz = wrench[0].f_W.z();
    };
    for (int k = 0; k < 300; ++k) one_step();
    double visited = 0.0, window = 0.0, erosion = 0.0;
    for (auto _ : st) {
      if (x > 39.0) {
        st.SkipWithError("wheel reached the end of the map");
        break;
      }
      one_step();
      visited += rep.nodes_visited;
      window += rep.window_nodes;
      erosion += rep.erosion_updates;
    }
    const double n = static_cast<double>(st.iterations());
    st.counters["nodes_visited"] = visited / n;
    st.counters["window_nodes"] = window / n;
    st.counters["erosion_updates"] = erosion / n;
    st.counters["node_updates_per_s"] =
        benchmark::Counter(visited + window, benchmark::Counter::kIsRate);
    st.counters["threads"] = threads;
    st.counters["bytes_per_node"] = static_cast<double>(bytes_per_node());
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
  }
  omp_set_num_threads(before);
}

BENCHMARK(ScmWheelStep)
    ->ArgNames({"cell_mm", "fields", "threads"})
    ->ArgsProduct({{20, 10}, {0, 1, 2}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace talus::scm
