#pragma once
// What a run records for `talus view` (issue 21): the talus-view format, version 1, documented in
// docs/viewer.md. A run folder holds view/manifest.json (the scene: tier, times, particle count
// and radii, heightmap grid, body shapes, plots) and one binary frame file per recorded instant,
// view/frames/NNNNNN.tvf (particle positions and speeds, heights, body poses), so that the viewer
// streams a run frame by frame instead of loading it whole.
//
// Every tier records through this one class: a tier says what its scene holds (ViewLayout) once,
// then hands frames (ViewFrame) of its state; the recorder checks each frame against the layout,
// writes it, and writes the manifest last (finish()), so a run that stops early has no manifest
// and the viewer refuses it rather than showing half a run as whole.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/pose.hpp"

namespace talus {

class OutputDir;

inline constexpr const char* kViewFormatName = "talus-view";
inline constexpr int kViewFormatVersion = 1;
inline constexpr const char* kViewManifestPath = "view/manifest.json";
/// Bytes of a frame file's fixed header (magic, version, flags, counts; view_recorder.cpp writes
/// it, view_check.cpp reads it back).
inline constexpr std::size_t kViewFrameHeaderBytes = 32;

/// The regular grid of a heightmap: node (ix, iy) at (origin_x_m + ix cell_m, origin_y_m + iy
/// cell_m); heights are row-major, index iy nx + ix.
struct ViewHeightmapGrid {
  int nx = 0;
  int ny = 0;
  double cell_m = 0.0;
  double origin_x_m = 0.0;
  double origin_y_m = 0.0;
};

/// One drawn body: its name, colour (r, g, b in [0, 1]) and shape in its own frame, as the
/// manifest's shape object ({"kind": "box", "size_m": [...]}, ... see docs/viewer.md; view_shape()
/// in core/view_shapes.hpp makes it from a talus Shape).
struct ViewBody {
  std::string name;
  std::array<double, 3> colour{0.75, 0.45, 0.2};
  nlohmann::json shape;
};

/// What a run's scene holds, fixed for the whole run.
struct ViewLayout {
  std::string tier;      ///< "particles", "scm", "shaping", "robots" or "wrench"
  std::string scenario;  ///< the scenario's name
  std::string title;     ///< one line for the page's header
  std::size_t particle_count = 0;
  /// Particle radii [m]: empty when there are no particles, one value when all are equal, else
  /// one per particle (written to view/radii.f32).
  std::vector<float> particle_radii_m;
  std::optional<ViewHeightmapGrid> heightmap;
  std::vector<ViewBody> bodies;
  /// Particle positions as 16-bit steps of the frame's bounding box (a third of the bytes of
  /// float32 for positions; the step is at most the box's extent / 65535).
  bool quantised = false;
};

/// One recorded instant. Particle arrays are the state's structure of arrays (all of
/// layout.particle_count, or all empty when the layout has none); heights have nx ny values;
/// body poses one per layout body, X_WB.
struct ViewFrame {
  double time_s = 0.0;
  std::span<const float> x_m, y_m, z_m;
  std::span<const float> vx_m_per_s, vy_m_per_s, vz_m_per_s;
  std::span<const double> heights_m;
  std::span<const Pose> X_WB;
};

/// The heightmap a viewer gets of a grid of nx x ny nodes `cell_m` apart from (x0, y0): every
/// stride-th node, at most kViewHeightmapNodes along a side (a finer map would make each frame
/// megabytes of detail that a screen cannot show).
inline constexpr int kViewHeightmapNodes = 400;
struct ViewHeightmapSampling {
  ViewHeightmapGrid grid;
  int stride = 1;
};
ViewHeightmapSampling view_heightmap_sampling(int nx, int ny, double cell_m, double x0_m,
                                              double y0_m);

/// The sampled nodes of a row-major nx x ny map (nx the full grid's width), into `out`.
void sample_heightmap(std::span<const double> heights_m, int nx, const ViewHeightmapSampling& s,
                      std::vector<double>& out);

/// How many of a run's steps lie between two view frames so that about `frames` are recorded
/// over `steps` steps (at least 1; 0 when frames is 0: nothing recorded).
long view_frame_interval(long steps, int frames);

/// The PNG pictures at the top of a run's folder so far (names, sorted): the plots the viewer
/// shows beside the scene.
std::vector<std::string> run_pictures(const OutputDir& out);

class ViewRecorder {
 public:
  /// Checks the layout (std::invalid_argument naming what is wrong) and writes radii.f32 when
  /// the radii differ. Files go under `folder` of the run ("view"; a run of several cases puts
  /// each in "view/<case>" and lists them with write_view_cases).
  ViewRecorder(OutputDir& out, ViewLayout layout, std::string folder = "view");

  /// Writes <folder>/frames/NNNNNN.tvf. Throws std::invalid_argument when the frame's array sizes
  /// do not match the layout or its time does not increase; std::runtime_error when the file cannot
  /// be written.
  void add_frame(const ViewFrame& frame);

  /// Writes <folder>/manifest.json listing the frames, the scene's bounds over all frames and
  /// `plots` (PNG files of the run, relative to its folder), and returns it. No frame may be
  /// added after.
  nlohmann::json finish(const std::vector<std::string>& plots);

  std::size_t frame_count() const { return times_s_.size(); }

 private:
  OutputDir& out_;
  ViewLayout layout_;
  std::string folder_;
  std::vector<double> times_s_;
  std::array<double, 3> lo_m_;
  std::array<double, 3> hi_m_;
  bool finished_ = false;

  void grow_bounds(double x, double y, double z);
};

/// A layout's head: `tier`, the scenario's name and the title "name: description" (the name alone
/// when there is no description).
ViewLayout view_layout_head(std::string tier, const std::string& name,
                            const std::string& description);

/// A tier run's recording: off when [view] frames = 0, else a ViewRecorder started by start()
/// and fed frames at the steps due() names.
class ViewRecording {
 public:
  /// About `frames` frames over a run of `steps` steps (view_frame_interval).
  ViewRecording(long steps, int frames)
      : steps_(steps), every_steps_(view_frame_interval(steps, frames)) {}

  bool on() const { return every_steps_ > 0; }
  /// Makes the recorder (call only when on()).
  void start(OutputDir& out, ViewLayout layout, std::string folder = "view") {
    recorder_.emplace(out, std::move(layout), std::move(folder));
  }
  /// Whether the state after `step` steps (0: the start) is recorded: every every_steps-th and
  /// the last.
  bool due(long step) const {
    return recorder_.has_value() && (step % every_steps_ == 0 || step == steps_);
  }
  ViewRecorder& recorder() { return *recorder_; }
  /// Writes the manifest with the run's pictures so far; returns the manifest (null when off).
  nlohmann::json finish(const OutputDir& out);
  std::size_t frame_count() const { return recorder_ ? recorder_->frame_count() : 0; }

 private:
  long steps_;
  long every_steps_;
  std::optional<ViewRecorder> recorder_;
};

/// For a run of several cases each recorded in "view/<case>": writes view/manifest.json as the
/// first case's scene (`first_manifest`, what its finish() returned) plus "cases" ([{name,
/// manifest}], in order), so that a viewer that knows nothing of cases plays the first, and one
/// that does offers them all.
void write_view_cases(OutputDir& out, nlohmann::json first_manifest,
                      const std::vector<std::string>& case_names);

}  // namespace talus
