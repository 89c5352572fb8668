#include "scm/scm_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/memory_budget.hpp"
#include "core/output_dir.hpp"
#include "core/scenario_bodies.hpp"
#include "core/scenario_head.hpp"
#include "core/scenario_terrain.hpp"
#include "core/steps.hpp"
#include "core/units.hpp"
#include "core/view_recorder.hpp"
#include "scm/rig_stability.hpp"

namespace talus::scm {

SoilParameters read_soil(const ScenarioTable& t) {
  SoilParameters s;
  if (t.has("preset")) {
    const std::string preset = t.choice("preset", named_soil_names());
    s = named_soil(preset);
  } else {
    // Without a preset every Bekker / Mohr-Coulomb parameter must be given.
    for (const char* key :
         {"n", "cohesion_pa", "friction_angle_deg", "janosi_k_m", "repose_angle_deg"}) {
      if (!t.has(key)) t.fail(key, "required when no preset is given");
    }
    if (!t.has("k") && !(t.has("kc") && t.has("kphi"))) {
      t.fail("",
             "give the Bekker stiffness: 'k' [N/m^(n+2)], or 'kc' and 'kphi' with "
             "'contact_width_m'");
    }
  }
  const NumberCheck finite = any_finite("");
  if (t.has("k")) {
    if (t.has("kc") || t.has("kphi")) t.fail("k", "give either 'k' or 'kc' and 'kphi', not both");
    s.kc = 0.0;
    s.kphi = t.number("k", finite);
  }
  s.kc = t.number_or("kc", s.kc, finite);
  s.kphi = t.number_or("kphi", s.kphi, finite);
  s.contact_width_m = t.number_or("contact_width_m", s.contact_width_m, finite);
  s.exponent_n = t.number_or("n", s.exponent_n, finite);
  s.cohesion_pa = t.number_or("cohesion_pa", s.cohesion_pa, finite);
  s.friction_angle_rad =
      deg_to_rad(t.number_or("friction_angle_deg", rad_to_deg(s.friction_angle_rad), finite));
  s.janosi_shear_modulus_m = t.number_or("janosi_k_m", s.janosi_shear_modulus_m, finite);
  s.repose_angle_rad =
      deg_to_rad(t.number_or("repose_angle_deg", rad_to_deg(s.repose_angle_rad), finite));
  s.unloading_stiffness_pa_per_m =
      t.number_or("unloading_stiffness_pa_per_m", s.unloading_stiffness_pa_per_m, finite);
  s.failure_shear_m = t.number_or("failure_shear_m", s.failure_shear_m, finite);
  s.residual_cohesion_pa = t.number_or("residual_cohesion_pa", s.residual_cohesion_pa, finite);
  s.residual_friction_angle_rad = deg_to_rad(t.number_or(
      "residual_friction_angle_deg", rad_to_deg(s.residual_friction_angle_rad), finite));
  s.shear_band_m = t.number_or("shear_band_m", s.shear_band_m, finite);
  t.refuse_unknown_keys();
  try {
    validate(s);
  } catch (const std::invalid_argument& e) {
    t.fail("", e.what());
  }
  return s;
}

namespace {

// The nodes of spacing `cell_size_m` spanning `size` [m]; `t` is where a grid too coarse or too
// large is reported (at cell_size_m).
void set_nodes(ScmModel& m, Vec2 size, double cell_size_m, const ScenarioTable& t) {
  m.cell_size_m = cell_size_m;
  const double nx = std::round(size.x() / m.cell_size_m) + 1;
  const double ny = std::round(size.y() / m.cell_size_m) + 1;
  if (nx < 3 || ny < 3 || nx > 2e9 || ny > 2e9) {
    t.fail("cell_size_m",
           fmt::format("gives {:g} x {:g} nodes for the grid's size; expected at least 3 x 3", nx,
                       ny));
  }
  m.nx = static_cast<int>(nx);
  m.ny = static_cast<int>(ny);
}

}  // namespace

void read_grid(const ScenarioTable& t, ScmModel& m) {
  const Vec2 size = t.vec2("size_m", positive("[m]"));
  set_nodes(m, size, t.number("cell_size_m", positive("[m]")), t);
  const double nx = m.nx;
  const double ny = m.ny;
  if (t.has("origin_m")) {
    const Vec2 o = t.vec2("origin_m", any_finite("[m]"));
    m.x0_m = o.x();  // origin_m: node (0, 0)
    m.y0_m = o.y();
  }
  m.base_height_m = t.number_or("base_height_m", 0.0, any_finite("[m]"));
  if (t.has("base_image") || t.has("slope_deg")) {
    // The base terrain is one dense image of the whole map (the tiles are sparse).
    check_memory_estimate(t, "size_m", nx * ny * static_cast<double>(sizeof(double)),
                          fmt::format("a base terrain of {:g} x {:g} nodes", nx, ny));
  }
  if (t.has("base_image")) {
    const std::filesystem::path image = t.file().parent_path() / t.string("base_image");
    const double relief = t.number("relief_m", non_negative("[m]"));
    try {
      m.base_image_m = base_image_from_png(image.string(), m.nx, m.ny, relief);
    } catch (const std::exception& e) {
      t.fail("base_image", e.what());
    }
  }
  if (t.has("slope_deg")) {
    // A ramp: flat up to x = slope_start_m, then rising at slope_deg along +x (paper 002 §4.3's
    // 15 deg slope), added to the base image when there is one.
    const double tan_a =
        std::tan(deg_to_rad(t.number("slope_deg", in_open_range(-90.0, 90.0, "[deg]"))));
    const double x0 = t.number("slope_start_m", any_finite("[m]"));
    if (m.base_image_m.empty()) {
      m.base_image_m.assign(static_cast<std::size_t>(m.nx) * static_cast<std::size_t>(m.ny), 0.0);
    }
    for (int j = 0; j < m.ny; ++j) {
      for (int i = 0; i < m.nx; ++i) {
        m.base_image_m[static_cast<std::size_t>(j) * static_cast<std::size_t>(m.nx) +
                       static_cast<std::size_t>(i)] += std::max(0.0, m.x(i) - x0) * tan_a;
      }
    }
  }
  m.erosion_tolerance_m =
      t.number_or("erosion_tolerance_m", m.erosion_tolerance_m, positive("[m]"));
  m.erosion_max_updates = t.integer_or("erosion_max_updates", m.erosion_max_updates, 0, 1000000);
  m.border_margin_nodes = t.integer_or("border_margin_nodes", m.border_margin_nodes, 2, 1000);
  t.refuse_unknown_keys();
}

void read_flow(const ScenarioTable& t, ScmModel& m) {
  m.method = t.choice("method", {"fields", "border"}) == "fields" ? FlowMethod::Fields
                                                                  : FlowMethod::Border;
  FlowParameters& f = m.flow;
  f.chord_count = t.integer_or("chord_count", f.chord_count, 3, 4096);
  f.psi_shape_m = t.number_or("psi_shape_m", f.psi_shape_m, positive("[m]"));
  f.psi_angle = t.number_or("psi_angle", f.psi_angle, non_negative(""));
  f.psi_distance = t.number_or("psi_distance", f.psi_distance, positive(""));
  f.seed = static_cast<std::uint64_t>(t.integer_or("seed", 1, 0, 2147483647));
  // Each approximation is sized in metres (the default) or, for a given grid, in nodes.
  if (t.has("cluster_nodes") && t.has("cluster_span_m")) {
    t.fail("cluster_nodes", "give cluster_nodes or cluster_span_m, not both");
  }
  if (t.has("field_stride") && t.has("field_spacing_m")) {
    t.fail("field_stride", "give field_stride or field_spacing_m, not both");
  }
  f.cluster_nodes = t.integer_or("cluster_nodes", f.cluster_nodes, 1, 64);
  f.cluster_span_m = t.number_or("cluster_span_m", f.cluster_span_m, non_negative("[m]"));
  f.field_stride = t.integer_or("field_stride", f.field_stride, 1, 64);
  f.field_spacing_m = t.number_or("field_spacing_m", f.field_spacing_m, non_negative("[m]"));
  t.refuse_unknown_keys();
}

namespace {

Vec2 read_xy(const ScenarioTable& t, const std::string& key, const ScmModel& m) {
  const Vec2 p = t.vec2(key, any_finite("[m]"));
  if (p.x() < m.x0_m || p.y() < m.y0_m || p.x() > m.x(m.nx - 1) || p.y() > m.y(m.ny - 1)) {
    t.fail(key, "lies outside the map");
  }
  return p;
}

void read_plate(const ScenarioTable& t, const ScmModel& m, PlateTest& p) {
  p.half_extents_m = 0.5 * t.vec3("size_m", positive("[m]"));
  p.centre_xy_m = read_xy(t, "centre_m", m);
  p.load_n = t.number("load_n", positive("[N]"));
  p.ramp_s = t.number_or("ramp_s", p.ramp_s, positive("[s]"));
  p.hold_s = t.number_or("hold_s", p.hold_s, non_negative("[s]"));
  p.damping_n_s_per_m =
      t.number_or("damping_n_s_per_m", 0.0, non_negative("[N s/m] (0 = critical)"));
  t.refuse_unknown_keys();
}

void read_wheel(const ScenarioTable& t, const ScmModel& m, WheelTest& w, bool needs_slip) {
  w.radius_m = t.number("radius_m", positive("[m]"));
  const double width = t.number("width_m", positive("[m]"));
  const int grousers = t.integer_or("grouser_count", 0, 0, 1000);
  if (grousers > 0) {
    WheelShape ws;
    ws.radius_m = w.radius_m;
    ws.width_m = width;
    ws.grouser_count = grousers;
    ws.grouser_height_m = t.number("grouser_height_m", positive("[m]"));
    ws.grouser_thickness_m = t.number("grouser_thickness_m", positive("[m]"));
    try {
      validate(Shape{ws});
    } catch (const std::invalid_argument& e) {
      t.fail("grouser_count", e.what());
    }
    w.shape = ws;
  } else {
    w.shape = CylinderShape{w.radius_m, 0.5 * width};
  }
  w.load_n = t.number("load_n", positive("[N]"));
  if (needs_slip) w.slip = t.number("slip", in_closed_range(0.0, 0.95, ""));
  w.speed_m_per_s = t.number("speed_m_per_s", positive("[m/s]"));
  w.start_xy_m = read_xy(t, "start_m", m);
  w.settle_s = t.number_or("settle_s", w.settle_s, non_negative("[s]"));
  w.drive_s = t.number("drive_s", positive("[s]"));
  w.damping_n_s_per_m =
      t.number_or("damping_n_s_per_m", w.damping_n_s_per_m, non_negative("[N s/m]"));
  const double end_x = w.start_xy_m.x() + w.speed_m_per_s * w.drive_s + w.radius_m * 1.2;
  if (end_x > m.x(m.nx - 1)) {
    t.fail("drive_s", fmt::format("the wheel would drive to x = {:.3g} m, past the map's end at "
                                  "{:.3g} m",
                                  end_x, m.x(m.nx - 1)));
  }
  t.refuse_unknown_keys();
}

// The body of a blade run or of a [terrain] file: the file's one [[body]]. A blade run's is a box
// moved along waypoints; a [terrain] file's (`experiment` null) any core shape moved along
// waypoints or at a constant twist, which needs [simulation] duration_s (read by the caller).
// A file without one is told at its [experiment] kind when it has one, else at its root.
void read_blade_body(const ScenarioTable& root, const ScenarioTable* experiment, BladeTest& b) {
  const std::vector<ScenarioTable> bodies = root.tables("body");
  if (bodies.size() != 1) {
    const std::string message =
        experiment
            ? fmt::format("a blade run moves exactly one [[body]], the blade; got {}",
                          bodies.size())
            : fmt::format("an SCM run of a [terrain] file moves exactly one [[body]]; got {}",
                          bodies.size());
    if (bodies.empty() && experiment) experiment->fail("kind", message);
    root.fail("body", message);
  }
  BodyRules rules;
  rules.motion_kinds = {"waypoints"};
  if (!experiment) rules.motion_kinds.push_back("constant_twist");
  ScenarioBody body = read_body(bodies[0], rules);
  if (experiment && !std::holds_alternative<BoxShape>(body.shape)) {
    bodies[0].table("shape").fail("kind", "the blade must be a shape of kind \"box\"");
  }
  b.name = std::move(body.name);
  b.shape = std::move(body.shape);
  b.driver = std::move(body.driver);
  if (const auto* d = std::get_if<WaypointDriver>(&b.driver)) {
    b.duration_s = d->times_s.back() - d->times_s.front();  // [simulation] duration_s may change it
  }
}

void read_blade(const ScenarioTable& root, const ScenarioTable& ex, BladeTest& b) {
  refuse_moved_key(ex, "size_m", kBodyTable);
  refuse_moved_key(ex, "motion", kBodyTable);
  refuse_moved_key(ex, "duration_s", "[simulation] duration_s");
  ex.refuse_unknown_keys();
  read_blade_body(root, &ex, b);
}

// The SCM ground of a [terrain]: nodes over the patch at its surface height, the named soil's
// Bekker-Wong parameters, and paper 002's soil flow (flow fields with its parameters, the
// FlowParameters defaults).
void set_terrain(const Terrain& terrain, const ScenarioTable& t, ScmModel& m) {
  set_nodes(m, terrain.hi_m - terrain.lo_m, terrain.cell_size_m, t);
  m.x0_m = terrain.lo_m.x();  // the patch's corner is node (0, 0)
  m.y0_m = terrain.lo_m.y();
  m.base_height_m = terrain.surface_z_m;
  m.soil = named_soil(terrain.material.name);
  m.method = FlowMethod::Fields;
}

void validate_model(const ScmModel& m, const ScenarioTable& root) {
  try {
    validate(m);
  } catch (const std::invalid_argument& e) {
    root.fail("", e.what());
  }
}

// Plate and wheel runs last their phases (`phases`, keys of [experiment]): a duration of its own
// would contradict them.
void refuse_duration(const ScenarioTable& sim, const std::string& kind, const char* phases) {
  if (sim.has("duration_s")) {
    sim.fail("duration_s",
             fmt::format("a {} run lasts [experiment] {}; set those instead", kind, phases));
  }
}

// [simulation] duration_s of a blade-like run, default its waypoints' span; a body at a constant
// twist never stops, so it needs one. Sets the steps too.
void set_blade_duration(const ScenarioTable& sim, ScmScenario& sc) {
  sc.blade.duration_s =
      std::holds_alternative<WaypointDriver>(sc.blade.driver)
          ? sim.number_or("duration_s", sc.blade.duration_s, positive("[s]"))
          : sim.number("duration_s", positive("[s] (a constant twist never ends)"));
  sc.steps = steps_for(sim, "time_step_s", sc.blade.duration_s, sc.model.time_step_s);
}

// [experiment]: the run's kind and its keys, and the steps the run takes.
void read_experiment(const ScenarioTable& root, const ScenarioTable& sim, ScmScenario& sc) {
  const ScenarioTable ex = root.table("experiment");
  const std::string kind = ex.choice(
      "kind", {"plate_sinkage", "single_wheel", "multipass", "slip_sweep", "strip_load", "blade"});
  const double dt = sc.model.time_step_s;
  if (kind == "plate_sinkage" || kind == "strip_load") {
    sc.experiment = kind == "plate_sinkage" ? Experiment::PlateSinkage : Experiment::StripLoad;
    read_plate(ex, sc.model, sc.plate);
    refuse_duration(sim, kind, "ramp_s + hold_s");
    sc.steps = steps_for(sim, "time_step_s", sc.plate.ramp_s + sc.plate.hold_s, dt);
  } else if (kind == "blade") {
    sc.experiment = Experiment::Blade;
    read_blade(root, ex, sc.blade);
    set_blade_duration(sim, sc);
  } else {
    sc.experiment = kind == "single_wheel" ? Experiment::SingleWheel
                    : kind == "multipass"  ? Experiment::Multipass
                                           : Experiment::SlipSweep;
    if (sc.experiment == Experiment::SlipSweep) {
      sc.slips = ex.numbers("slips", 0, in_closed_range(0.0, 0.95, ""));
      if (ex.has("compare_method")) {
        const FlowMethod other = ex.choice("compare_method", {"fields", "border"}) == "fields"
                                     ? FlowMethod::Fields
                                     : FlowMethod::Border;
        if (other == sc.model.method) {
          ex.fail("compare_method",
                  fmt::format("\"{}\" is [flow] method already: expected the other method",
                              flow_method_name(other)));
        }
        sc.compare_method = other;
      }
    }
    read_wheel(ex, sc.model, sc.wheel, sc.experiment != Experiment::SlipSweep);
    refuse_duration(sim, kind, "settle_s + drive_s");
    // The rig counts its settling and driving steps apart (scm_rigs.cpp): so does the total.
    const long one = steps_for(sim, "time_step_s", sc.wheel.settle_s, dt) +
                     steps_for(sim, "time_step_s", sc.wheel.drive_s, dt);
    sc.steps = sc.experiment == Experiment::SingleWheel ? one
               : sc.experiment == Experiment::Multipass
                   ? 2 * one
                   : one * static_cast<long>(sc.slips.size()) * (sc.compare_method ? 2 : 1);
  }
}

}  // namespace

ScmScenario load_scm_scenario(const ScenarioTable& root) {
  ScmScenario sc;
  sc.file = root.file();
  const ScenarioHead head = read_scenario_head(root, "scm");
  sc.name = head.name;
  sc.description = head.description;

  ScmModel& m = sc.model;
  const std::optional<Terrain> terrain = read_terrain_instead_of(root, {"grid", "soil", "flow"});
  if (terrain) {
    set_terrain(*terrain, root.table("terrain"), m);
    sc.grid_extent_keys = "[terrain] lo_m and hi_m";
  } else {
    read_grid(root.table("grid"), m);
    m.soil = read_soil(root.table("soil"));
    read_flow(root.table("flow"), m);
  }
  const ScenarioTable sim = root.table("simulation");
  m.time_step_s = sim.number("time_step_s", positive("[s]"));

  // A [terrain] file's body pushes the soil as a blade run's does (its one experiment there).
  if (terrain && !root.has("experiment")) {
    sc.experiment = Experiment::Blade;
    read_blade_body(root, nullptr, sc.blade);
    set_blade_duration(sim, sc);
  } else {
    read_experiment(root, sim, sc);
  }
  sim.refuse_unknown_keys();
  sc.view = read_view_options(root);
  root.refuse_unknown_keys();
  validate_model(m, root);
  return sc;
}

nlohmann::json check_scm(const ScenarioTable& root) {
  const ScmScenario sc = load_scm_scenario(root);
  nlohmann::json warnings = nlohmann::json::array();
  // The rigs' stability limit (scm/rig_stability.hpp): a longer step stops the run at the step
  // its body leaves what SCM models; say so before it starts.
  double dt_max = 0.0;
  switch (sc.experiment) {
    case Experiment::PlateSinkage:
    case Experiment::StripLoad:
      dt_max = plate_rig_dt_max_s(sc.model.soil, sc.plate);
      break;
    case Experiment::Blade:
      break;  // prescribed motion: no free rig
    default:
      dt_max = wheel_rig_dt_max_s(sc.model.soil, sc.wheel);
  }
  if (dt_max > 0.0 && sc.model.time_step_s > dt_max) {
    warnings.push_back(fmt::format(
        "{}: {:g} s is beyond the rig's stability limit of about {:.3g} s (docs/scm.md, Rig "
        "stability): the run is likely to stop where the body's motion blows up",
        root.table("simulation").where("time_step_s"), sc.model.time_step_s, dt_max));
  }
  return {{"tier", "scm"},
          {"name", sc.name},
          {"steps", sc.steps},
          {"view", experiment_records_view(sc.experiment) &&
                       view_frame_interval(sc.steps, sc.view.frames) > 0},
          {"warnings", warnings}};
}

nlohmann::json run_scm(const ScenarioTable& root, const OutputTarget& out_dir,
                       const RunProgress& progress) {
  const ScmScenario sc = load_scm_scenario(root);
  OutputDir out(out_dir);
  try {
    nlohmann::json summary = run_scm_scenario(sc, out, progress);
    out.commit();
    return summary;
  } catch (const ScmRunStopped&) {
    out.commit();  // the outputs up to the last good step, for the user to look at
    throw;
  }
}

}  // namespace talus::scm
