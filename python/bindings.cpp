// The `talus` Python module: the same objects as the C++ API. Heightmap arrays are numpy views of
// the C++ state (no copies): writing to them changes the state.

#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "core/driver.hpp"
#include "core/image.hpp"
#include "core/mesh_sdf.hpp"
#include "core/plot.hpp"
#include "core/scenario_file.hpp"
#include "core/shape.hpp"
#include "core/threads.hpp"
#include "core/version.hpp"
#include "python/bind_common.hpp"
#include "runner/run_scenario.hpp"

namespace py = pybind11;

namespace talus::python {
void bind_scm(py::module_& m);      // python/bind_scm.cpp
void bind_shaping(py::module_& m);  // python/bind_shaping.cpp

std::vector<BodyMotion> motions_from(const std::vector<Eigen::Matrix4d>& X_WB,
                                     const std::vector<Twist>& V_WB, std::size_t bodies,
                                     const std::string& what) {
  const std::string many = what == "body" ? "bodies" : what + "s";
  if (X_WB.size() != bodies) {
    throw std::invalid_argument(
        fmt::format("{} {} poses given for {} {}", X_WB.size(), what, bodies, many));
  }
  if (!V_WB.empty() && V_WB.size() != bodies) {
    throw std::invalid_argument(
        fmt::format("{} {} twists given for {} {}", V_WB.size(), what, bodies, many));
  }
  std::vector<BodyMotion> motions(bodies);
  for (std::size_t b = 0; b < bodies; ++b) {
    const Eigen::Matrix4d& X = X_WB[b];
    const Eigen::Matrix3d R = X.block<3, 3>(0, 0);
    if (!X.allFinite() || !(R.transpose() * R).isApprox(Eigen::Matrix3d::Identity(), 1e-6) ||
        !(R.determinant() > 0.0) || X.row(3) != Eigen::RowVector4d(0, 0, 0, 1)) {
      throw std::invalid_argument(fmt::format(
          "{} {}: pose is not a finite rigid transform (4x4, rotation block orthonormal with "
          "determinant 1, last row 0 0 0 1)",
          what, b));
    }
    motions[b].X_WB = matrix_to_pose(X);
    if (!V_WB.empty()) motions[b].V_WB = V_WB[b];
    if (!motions[b].V_WB.w_W.allFinite() || !motions[b].V_WB.v_WBo.allFinite()) {
      throw std::invalid_argument(fmt::format("{} {}: twist is not finite", what, b));
    }
  }
  return motions;
}

py::array_t<double> wrench_array(const std::vector<Wrench>& wrenches) {
  py::array_t<double> a(
      {static_cast<py::ssize_t>(wrenches.size()), py::ssize_t{3}, py::ssize_t{3}});
  auto v = a.mutable_unchecked<3>();
  for (std::size_t b = 0; b < wrenches.size(); ++b) {
    const Vec3* rows[3] = {&wrenches[b].f_W, &wrenches[b].tau_W, &wrenches[b].p_W};
    for (py::ssize_t r = 0; r < 3; ++r) {
      for (py::ssize_t c = 0; c < 3; ++c) v(static_cast<py::ssize_t>(b), r, c) = (*rows[r])[c];
    }
  }
  return a;
}

}  // namespace talus::python
void bind_robot(py::module_& m);  // python/bind_robot.cpp

using namespace talus;
using namespace talus::python;

void bind_particles(py::module_& m);  // python/bind_particles.cpp
void bind_wrench(py::module_& m);     // python/bind_wrench.cpp

PYBIND11_MODULE(_talus, m) {
  m.doc() = "talus: robots in sand, soil and gravel (C++ core). SI units; poses are 4x4 matrices.";
  m.attr("__version__") = version();

  py::register_exception<ScenarioError>(m, "ScenarioError", PyExc_ValueError);
  py::register_exception<OutputTargetError>(m, "OutputTargetError", PyExc_ValueError);

  // ---------------------------------------------------------------- poses, shapes, drivers
  m.def(
      "make_pose",
      [](const Vec3& p, double roll, double pitch, double yaw) {
        return pose_to_matrix(make_pose(p, roll, pitch, yaw));
      },
      py::arg("p_WB"), py::arg("roll") = 0.0, py::arg("pitch") = 0.0, py::arg("yaw") = 0.0,
      "4x4 pose from a position [m] and roll, pitch, yaw [rad] (R = Rz(yaw) Ry(pitch) Rx(roll)).");

  py::class_<Twist>(m, "Twist", "Spatial velocity of a body in world: w_W [rad/s], v_WBo [m/s].")
      .def(py::init([](const Vec3& w_W, const Vec3& v_WBo) {
             return Twist{w_W, v_WBo};
           }),
           py::arg("w_W") = Vec3::Zero(), py::arg("v_WBo") = Vec3::Zero())
      .def_readwrite("w_W", &Twist::w_W)
      .def_readwrite("v_WBo", &Twist::v_WBo);

  py::class_<PlaneShape>(m, "PlaneShape", "Half-space z_B <= 0.").def(py::init<>());
  py::class_<BoxShape>(m, "BoxShape")
      .def(py::init([](const Vec3& half) { return BoxShape{half}; }), py::arg("half_extents_m"))
      .def_readwrite("half_extents_m", &BoxShape::half_extents_m);
  py::class_<SphereShape>(m, "SphereShape")
      .def(py::init([](double r) { return SphereShape{r}; }), py::arg("radius_m"))
      .def_readwrite("radius_m", &SphereShape::radius_m);
  py::class_<CylinderShape>(m, "CylinderShape", "Axis along z_B.")
      .def(py::init([](double r, double h) {
             return CylinderShape{r, h};
           }),
           py::arg("radius_m"), py::arg("half_length_m"))
      .def_readwrite("radius_m", &CylinderShape::radius_m)
      .def_readwrite("half_length_m", &CylinderShape::half_length_m);
  py::class_<CapsuleShape>(m, "CapsuleShape", "Segment along z_B.")
      .def(py::init([](double r, double h) {
             return CapsuleShape{r, h};
           }),
           py::arg("radius_m"), py::arg("half_length_m"))
      .def_readwrite("radius_m", &CapsuleShape::radius_m)
      .def_readwrite("half_length_m", &CapsuleShape::half_length_m);
  py::class_<WheelShape>(m, "WheelShape", "Wheel with grousers; axis along y_B, rolls along x_B.")
      .def(py::init([](double r, double w, int n, double gh, double gt) {
             return WheelShape{r, w, n, gh, gt};
           }),
           py::arg("radius_m"), py::arg("width_m"), py::arg("grouser_count") = 0,
           py::arg("grouser_height_m") = 0.0, py::arg("grouser_thickness_m") = 0.005)
      .def_readwrite("radius_m", &WheelShape::radius_m)
      .def_readwrite("width_m", &WheelShape::width_m)
      .def_readwrite("grouser_count", &WheelShape::grouser_count)
      .def_readwrite("grouser_height_m", &WheelShape::grouser_height_m)
      .def_readwrite("grouser_thickness_m", &WheelShape::grouser_thickness_m);
  py::class_<MeshShape>(m, "MeshShape", "Closed triangle mesh as a signed-distance grid.")
      .def(py::init([](const std::filesystem::path& file, double sdf_cell_m, double scale) {
             return MeshShape{
                 MeshSdfGrid::build(load_mesh(file, scale), sdf_cell_m, -1.0, file.string()),
                 file.string()};
           }),
           py::arg("file"), py::arg("sdf_cell_m"), py::arg("scale") = 1.0)
      .def_readonly("source", &MeshShape::source);
  m.def("wheel_with_grouser_fraction", &wheel_with_grouser_fraction, py::arg("radius_m"),
        py::arg("width_m"), py::arg("grouser_count"), py::arg("grouser_height_m"),
        py::arg("fraction"));
  m.def("grouser_volume_fraction", &grouser_volume_fraction);
  m.def("validate_shape", [](const Shape& s) { validate(s); });
  m.def("signed_distance", &signed_distance, py::arg("shape"), py::arg("p_B"),
        "Signed distance [m] from p_B (body frame) to the shape; negative inside.");
  m.def(
      "lowest_point_z",
      [](const Shape& s, const Eigen::Matrix4d& X, double x, double y) {
        return lowest_point_z(s, matrix_to_pose(X), x, y);
      },
      py::arg("shape"), py::arg("X_WB"), py::arg("x_W"), py::arg("y_W"),
      "World z [m] of the shape's lowest point on the vertical line through (x_W, y_W); inf if "
      "missed.");

  py::class_<ConstantTwistDriver>(m, "ConstantTwistDriver")
      .def(py::init([](const Eigen::Matrix4d& X0, const Twist& V) {
             return ConstantTwistDriver{matrix_to_pose(X0), V};
           }),
           py::arg("X_WB0"), py::arg("V_WB"));
  py::class_<WaypointDriver>(m, "WaypointDriver")
      .def(py::init([](std::vector<double> times, const std::vector<Eigen::Matrix4d>& poses) {
             WaypointDriver d;
             d.times_s = std::move(times);
             for (const auto& p : poses) d.poses.push_back(matrix_to_pose(p));
             validate(Driver(d));
             return d;
           }),
           py::arg("times_s"), py::arg("poses"));
  m.def(
      "pose_at", [](const Driver& d, double t) { return pose_to_matrix(pose_at(d, t)); },
      py::arg("driver"), py::arg("t_s"));
  m.def(
      "twist_at", [](const Driver& d, double t) { return twist_at(d, t); }, py::arg("driver"),
      py::arg("t_s"));

  bind_robot(m);

  bind_shaping(m);
  bind_particles(m);
  bind_wrench(m);

  // ---------------------------------------------------------------- pictures
  m.def(
      "write_png",
      [](const std::filesystem::path& path,
         const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& image,
         const std::string& title) {
        if (image.ndim() != 3 || image.shape(2) != 3 || image.shape(0) < 1 || image.shape(1) < 1) {
          throw std::invalid_argument("write_png: expected an H x W x 3 uint8 image");
        }
        const int width = static_cast<int>(image.shape(1));
        const int height = static_cast<int>(image.shape(0));
        const int band = title.empty() ? 0 : 20;  // the title above the picture, as talus's plots
        RgbImage out(width, height + band);
        std::copy(image.data(), image.data() + image.size(),
                  out.rgb.begin() + static_cast<std::ptrdiff_t>(band) * width * 3);
        if (!title.empty()) out.draw_text(4, 4, title, Rgb{0, 0, 0});
        py::gil_scoped_release release;
        write_png(path, out);
      },
      py::arg("path"), py::arg("image"), py::arg("title") = "",
      "Writes an H x W x 3 uint8 image (a render_mode='rgb_array' frame) as a PNG, with `title` in "
      "a band above it when given. Raises RuntimeError naming the path when it cannot be written.");

  m.def(
      "write_plot",
      [](const std::filesystem::path& path,
         const std::vector<std::tuple<std::string, std::vector<double>, std::vector<double>>>&
             series,
         const std::string& title, const std::string& x_label, const std::string& y_label,
         int width_px, int height_px) {
        PlotSpec spec;
        spec.title = title;
        spec.x_label = x_label;
        spec.y_label = y_label;
        spec.width_px = width_px;
        spec.height_px = height_px;
        for (const auto& [name, x, y] : series) {
          PlotSeries s;
          s.name = name;
          s.x = x;
          s.y = y;
          spec.series.push_back(std::move(s));
        }
        py::gil_scoped_release release;
        write_png(path, plot_lines(spec));
      },
      py::arg("path"), py::arg("series"), py::arg("title") = "", py::arg("x_label") = "",
      py::arg("y_label") = "", py::arg("width_px") = 800, py::arg("height_px") = 500,
      "Writes a line chart as a PNG with talus's plotter (core/plot.hpp): series is a list of "
      "(name, x, y); non-finite points break a line. Raises RuntimeError for series of unequal "
      "lengths or a path that cannot be written.");

  // ---------------------------------------------------------------- scenarios
  m.def(
      "run_scenario",
      [](const std::filesystem::path& file, const std::filesystem::path& out, bool replace,
         const std::string& tier, int threads) {
        if (threads < 0 || threads > kMaxThreads) {
          throw std::invalid_argument(fmt::format(
              "run_scenario: threads must be 0 (TALUS_THREADS, else OMP_NUM_THREADS, else every "
              "core) or in [1, {}], got {}",
              kMaxThreads, threads));
        }
        // As `talus run` chooses them, for this run only: OpenMP's default is process-wide, and
        // later calls from this interpreter keep theirs.
        RunThreads run_threads(threads);
        return run_scenario_file(
                   file,
                   OutputTarget(out, replace ? ExistingOutput::replace : ExistingOutput::refuse),
                   [&](long, long, double) {
                     // Ctrl-C: Python's handler raises KeyboardInterrupt here, between steps; the
                     // exception unwinds the run, which removes its partial output.
                     if (PyErr_CheckSignals() != 0) throw py::error_already_set();
                     run_threads.update();
                   },
                   tier)
            .dump();
      },
      py::arg("scenario"), py::arg("out"), py::arg("replace") = false, py::arg("tier") = "",
      py::arg("threads") = 0,
      "Runs a scenario file into `out` (a new or empty folder, or with replace=True an earlier "
      "talus output); returns summary.json's text. A non-empty `tier` runs the file on that tier "
      "instead of its [scenario] tier (a [terrain] file runs on shaping, scm and particles). "
      "`threads` as `talus run --threads` (0: TALUS_THREADS, else OMP_NUM_THREADS, else every "
      "core, fewer while other processes keep cores busy). Ctrl-C stops the run between steps "
      "(KeyboardInterrupt) and removes its partial output. Raises ValueError for bad input or a "
      "folder talus may not write.");
  m.def(
      "check_scenario",
      [](const std::filesystem::path& file, const std::string& tier) {
        return check_scenario_file(file, tier).dump();
      },
      py::arg("scenario"), py::arg("tier") = "");

  bind_scm(m);
}
