// ShapingStrokes-v0's bed, goals and batch (shaping/stroke_env*.hpp), bound into talus.shaping.
// Strokes cross the boundary as float64 rows (x0, y0, x1, y1) in bed cell coordinates.

#include <memory>

#include "bind_common.hpp"
#include "shaping/stroke_env_batch.hpp"

namespace talus::python {

using namespace talus::shaping;

namespace {

py::array_t<double> stroke_rows(const std::vector<Stroke>& strokes) {
  py::array_t<double> out({static_cast<py::ssize_t>(strokes.size()), py::ssize_t{4}});
  for (std::size_t k = 0; k < strokes.size(); ++k) {
    const auto i = static_cast<py::ssize_t>(k);
    out.mutable_at(i, 0) = strokes[k].start_cell.x();
    out.mutable_at(i, 1) = strokes[k].start_cell.y();
    out.mutable_at(i, 2) = strokes[k].end_cell.x();
    out.mutable_at(i, 3) = strokes[k].end_cell.y();
  }
  return out;
}

std::vector<Stroke> strokes_of(
    const py::array_t<double, py::array::c_style | py::array::forcecast>& rows) {
  if (rows.ndim() != 2 || rows.shape(1) != 4 || rows.shape(0) < 1) {
    throw std::invalid_argument(
        "strokes: expected an array of rows (x0, y0, x1, y1), at least one");
  }
  std::vector<Stroke> strokes;
  for (py::ssize_t i = 0; i < rows.shape(0); ++i) {
    for (py::ssize_t c = 0; c < 4; ++c) {
      if (!std::isfinite(rows.at(i, c))) {
        throw std::invalid_argument("strokes: a coordinate is NaN or infinite");
      }
    }
    strokes.push_back({Vec2(rows.at(i, 0), rows.at(i, 1)), Vec2(rows.at(i, 2), rows.at(i, 3))});
  }
  return strokes;
}

py::array_t<double> grid_copy(const std::vector<double>& h, int cells) {
  py::array_t<double> out({cells, cells});
  std::copy(h.begin(), h.end(), out.mutable_data());
  return out;
}

void bind_bed_and_goals(py::module_& m) {
  py::class_<StrokeBed>(m, "StrokeBed", "The sand bed and blade of ShapingStrokes-v0.")
      .def(py::init([](int cells, double cell_size_m, double sand_height_m, double trench_depth_m,
                       double blade_width_m, double blade_thickness_m, double repose_angle_rad,
                       double tolerance_m) {
             StrokeBed b{cells,         cell_size_m,       sand_height_m,    trench_depth_m,
                         blade_width_m, blade_thickness_m, repose_angle_rad, tolerance_m};
             validate(b);
             return b;
           }),
           py::arg("cells") = 32, py::arg("cell_size_m") = 0.01, py::arg("sand_height_m") = 0.05,
           py::arg("trench_depth_m") = 0.006, py::arg("blade_width_m") = 0.03,
           py::arg("blade_thickness_m") = 0.015,
           py::arg("repose_angle_rad") = StrokeBed{}.repose_angle_rad,
           py::arg("erosion_tolerance_m") = StrokeBed{}.erosion_tolerance_m)
      .def_readonly("cells", &StrokeBed::cells)
      .def_readonly("cell_size_m", &StrokeBed::cell_size_m)
      .def_readonly("sand_height_m", &StrokeBed::sand_height_m)
      .def_readonly("trench_depth_m", &StrokeBed::trench_depth_m)
      .def_readonly("blade_width_m", &StrokeBed::blade_width_m)
      .def_readonly("blade_thickness_m", &StrokeBed::blade_thickness_m)
      .def_readonly("repose_angle_rad", &StrokeBed::repose_angle_rad)
      .def_readonly("erosion_tolerance_m", &StrokeBed::erosion_tolerance_m)
      .def_property_readonly("heightmap", &stroke_bed_heightmap,
                             "The bed's HeightmapModel (8-connected erosion).");
  m.def(
      "letter_strokes",
      [](char letter, int cells) { return stroke_rows(letter_strokes(letter, cells)); },
      py::arg("letter"), py::arg("cells") = 32,
      "A capital letter's strokes on a cells x cells bed: rows (x0, y0, x1, y1) in cell "
      "coordinates, in drawing order.");
  m.def("stroke_letter_names", &stroke_letter_names);
  m.def(
      "stroke_of_action",
      [](const StrokeBed& bed, const std::array<double, 4>& a) {
        return stroke_rows({stroke_of_action(bed, a)});
      },
      py::arg("bed"), py::arg("action"), "The stroke (1 x 4 row) an action in [-1, 1]^4 names.");
  m.def(
      "execute_stroke",
      [](const StrokeBed& bed, HeightmapState& state,
         const py::array_t<double, py::array::c_style | py::array::forcecast>& rows) {
        const HeightmapModel hm = stroke_bed_heightmap(bed);
        for (const Stroke& s : strokes_of(rows)) execute_stroke(bed, hm, state, s);
      },
      py::arg("bed"), py::arg("state"), py::arg("strokes"),
      "Executes strokes (rows (x0, y0, x1, y1) in cell coordinates) on a bed's HeightmapState.");
  py::class_<StrokeGoal, std::shared_ptr<StrokeGoal>>(m, "StrokeGoal",
                                                      "An episode's goal: strokes and heightmap.")
      .def(py::init([](const StrokeBed& bed,
                       const py::array_t<double, py::array::c_style | py::array::forcecast>& rows,
                       int letter_index) {
             return std::make_shared<StrokeGoal>(
                 make_stroke_goal(bed, strokes_of(rows), letter_index));
           }),
           py::arg("bed"), py::arg("strokes"), py::arg("letter_index") = -1,
           "The goal `strokes` make on the flat bed (ValueError when they leave it flat).")
      .def_property_readonly("strokes", [](const StrokeGoal& g) { return stroke_rows(g.strokes); })
      .def_property_readonly("l1_from_flat_m3",
                             [](const StrokeGoal& g) { return g.l1_from_flat_m3; })
      .def_property_readonly("letter_index", [](const StrokeGoal& g) { return g.letter_index; })
      .def(
          "heights", [](const StrokeGoal& g, int cells) { return grid_copy(g.height_m, cells); },
          py::arg("cells"), "The goal heightmap [m], (cells, cells) indexed [j, i].");
  py::class_<StrokeGoalSource>(m, "StrokeGoalSource", "Where ShapingStrokes-v0 draws its goals.")
      .def_static("of_letters", &StrokeGoalSource::of_letters, py::arg("bed"), py::arg("letters"))
      .def_static("random", &StrokeGoalSource::random, py::arg("bed"), py::arg("min_strokes"),
                  py::arg("max_strokes"))
      .def_readonly("letters", &StrokeGoalSource::letters);
}

py::dict slot_info(const StrokeEnvBatch& b, int i) {
  const StrokeEnvSlot& s = b.slot(i);
  py::dict d;
  d["strokes"] = s.strokes;
  d["max_strokes"] = s.max_strokes(b.rules());
  d["l1_fraction"] = s.l1_fraction();
  d["letter_index"] = s.goal->letter_index;
  d["last_stroke"] = py::make_tuple(s.last_stroke.start_cell.x(), s.last_stroke.start_cell.y(),
                                    s.last_stroke.end_cell.x(), s.last_stroke.end_cell.y());
  return d;
}

void bind_stroke_batch(py::module_& m) {
  using F32 = py::array_t<float, py::array::c_style>;
  py::class_<StrokeEnvBatch>(m, "StrokeEnvBatch",
                             "num_envs ShapingStrokes-v0 beds stepped in one call (next-step "
                             "autoreset); arrays are written in place.")
      .def(py::init([](StrokeBed bed, StrokeGoalSource source, double step_cost, int extra_strokes,
                       double success_fraction, int num_envs) {
             return StrokeEnvBatch(bed, std::move(source),
                                   StrokeEnvRules{step_cost, extra_strokes, success_fraction},
                                   num_envs);
           }),
           py::arg("bed"), py::arg("source"), py::arg("step_cost"), py::arg("extra_strokes"),
           py::arg("success_fraction"), py::arg("num_envs"))
      .def_property_readonly("num_envs", &StrokeEnvBatch::num_envs)
      .def_property_readonly("cells", &StrokeEnvBatch::cells)
      .def(
          "reset",
          [](StrokeEnvBatch& b, py::array_t<std::uint64_t, py::array::c_style>& seeds,
             F32& achieved, F32& desired) {
            const py::ssize_t n = b.num_envs(), c = b.cells();
            const std::uint64_t* s = checked(seeds, {n}, "seeds");
            float* a = checked(achieved, {n, c, c}, "achieved");
            float* d = checked(desired, {n, c, c}, "desired");
            b.reset({s, static_cast<std::size_t>(n)}, a, d);
          },
          py::arg("seeds"), py::arg("achieved"), py::arg("desired"))
      .def(
          "step",
          [](StrokeEnvBatch& b, py::array_t<double, py::array::c_style>& actions, F32& achieved,
             F32& desired, py::array_t<double, py::array::c_style>& rewards,
             py::array_t<bool, py::array::c_style>& terminated,
             py::array_t<bool, py::array::c_style>& truncated, int threads) {
            const py::ssize_t n = b.num_envs(), c = b.cells();
            const double* act = checked(actions, {n, 4}, "actions");
            float* a = checked(achieved, {n, c, c}, "achieved");
            float* d = checked(desired, {n, c, c}, "desired");
            double* r = checked(rewards, {n}, "rewards");
            auto* te = reinterpret_cast<std::uint8_t*>(checked(terminated, {n}, "terminated"));
            auto* tr = reinterpret_cast<std::uint8_t*>(checked(truncated, {n}, "truncated"));
            py::gil_scoped_release release;
            b.step({act, static_cast<std::size_t>(4 * n)}, a, d, r, te, tr, threads);
          },
          py::arg("actions"), py::arg("achieved"), py::arg("desired"), py::arg("rewards"),
          py::arg("terminated"), py::arg("truncated"), py::arg("threads") = 1)
      .def(
          "redraw",
          [](StrokeEnvBatch& b, int i, F32& achieved, F32& desired) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("redraw: no such env");
            const py::ssize_t c = b.cells();
            b.redraw(i, checked(achieved, {c, c}, "achieved"), checked(desired, {c, c}, "desired"));
          },
          py::arg("index"), py::arg("achieved"), py::arg("desired"))
      .def(
          "set_goal",
          [](StrokeEnvBatch& b, int i, std::shared_ptr<StrokeGoal> goal, F32& achieved,
             F32& desired) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("set_goal: no such env");
            const py::ssize_t c = b.cells();
            b.set_goal(i, std::move(goal), checked(achieved, {c, c}, "achieved"),
                       checked(desired, {c, c}, "desired"));
          },
          py::arg("index"), py::arg("goal"), py::arg("achieved"), py::arg("desired"))
      .def(
          "info",
          [](const StrokeEnvBatch& b) {
            const auto n = static_cast<py::ssize_t>(b.num_envs());
            py::array_t<std::int64_t> strokes(n), max_strokes(n), letter(n);
            py::array_t<double> l1(n), last({n, py::ssize_t{4}});
            for (py::ssize_t i = 0; i < n; ++i) {
              const StrokeEnvSlot& s = b.slot(static_cast<int>(i));
              strokes.mutable_at(i) = s.strokes;
              max_strokes.mutable_at(i) = s.max_strokes(b.rules());
              letter.mutable_at(i) = s.goal->letter_index;
              l1.mutable_at(i) = s.l1_fraction();
              last.mutable_at(i, 0) = s.last_stroke.start_cell.x();
              last.mutable_at(i, 1) = s.last_stroke.start_cell.y();
              last.mutable_at(i, 2) = s.last_stroke.end_cell.x();
              last.mutable_at(i, 3) = s.last_stroke.end_cell.y();
            }
            py::dict d;
            d["strokes"] = strokes;
            d["max_strokes"] = max_strokes;
            d["l1_fraction"] = l1;
            d["letter_index"] = letter;
            d["last_stroke"] = last;
            return d;
          },
          "Per environment (arrays): strokes, max_strokes, l1_fraction, letter_index (-1: not a "
          "letter of the source), last_stroke (x0, y0, x1, y1).")
      .def(
          "info_of",
          [](const StrokeEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("info_of: no such env");
            return slot_info(b, i);
          },
          py::arg("index"))
      .def(
          "goal_of",
          [](const StrokeEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("goal_of: no such env");
            return std::const_pointer_cast<StrokeGoal>(b.slot(i).goal);
          },
          py::arg("index"), "Environment `index`'s goal (shared, do not change it).")
      .def(
          "sand_of",
          [](const StrokeEnvBatch& b, int i) {
            if (i < 0 || i >= b.num_envs()) throw std::invalid_argument("sand_of: no such env");
            return grid_copy(b.slot(i).sand.height_m, b.cells());
          },
          py::arg("index"), "Environment `index`'s sand heights [m] in float64, [j, i].");
}

}  // namespace

void bind_stroke_env(py::module_& m) {
  bind_bed_and_goals(m);
  bind_stroke_batch(m);
}

}  // namespace talus::python
