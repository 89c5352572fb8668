// SCM soil as the terrain of a robots-tier scenario: [grid], [soil] and [flow] read by the SCM
// tier's own readers; the picture is the ruts (surface minus base terrain, seen from above).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/colormap.hpp"
#include "core/image.hpp"
#include "core/npy.hpp"
#include "robot/robot_terrain.hpp"
#include "scm/scm_contact_tier.hpp"
#include "scm/scm_scenario.hpp"
#include "scm/soil_at_edge.hpp"

namespace talus::robot {

namespace {

// The undisturbed surface: the base terrain, bilinear between nodes (clamped to the map).
double base_surface_z(const scm::ScmModel& m, double x, double y) {
  const double u = std::clamp(m.u(x), 0.0, m.nx - 1.0);
  const double v = std::clamp(m.v(y), 0.0, m.ny - 1.0);
  const int i = std::min(static_cast<int>(u), m.nx - 2),
            j = std::min(static_cast<int>(v), m.ny - 2);
  const double a = u - i, b = v - j;
  return (1 - a) * (1 - b) * m.base_height(i, j) + a * (1 - b) * m.base_height(i + 1, j) +
         (1 - a) * b * m.base_height(i, j + 1) + a * b * m.base_height(i + 1, j + 1);
}

// The soil's deformation (surface minus base terrain) over the nodes the robot drove across.
void write_ruts(OutputDir& out, const scm::ScmModel& m, const scm::ScmState& s,
                const std::string& title) {
  const IndexBox moved = s.moved_nodes(1e-4);
  const IndexBox crop_box = m.clamped(moved.empty() ? IndexBox{0, 0, m.nx, m.ny} : grown(moved, 5));
  scm::NodeBlock b;
  b.resize(crop_box.i0, crop_box.j0, crop_box.width(), crop_box.height());
  s.gather(b, scm::kHeight);
  const int nx = b.nx, ny = b.ny;
  std::vector<double> crop(b.size());
  for (int j = b.j0; j < b.j0 + ny; ++j) {
    for (int i = b.i0; i < b.i0 + nx; ++i) {
      crop[b.index(i, j)] = b.height_m[b.index(i, j)] - m.base_height(i, j);
    }
  }
  HeightmapImageOptions o;
  o.title = title;
  o.colour_bar_quantity = "z - base z";
  write_png(out.path("ruts.png"), render_heightmap(crop.data(), nx, ny, m.cell_size_m, o));
  write_npy(out.path("ruts.npy"), crop,
            {static_cast<std::size_t>(ny), static_cast<std::size_t>(nx)});
}

class ScmTerrain final : public RobotTerrain {
 public:
  ScmTerrain(scm::ScmModel model, std::filesystem::path file)
      : model_(model), tier_(std::move(model)), file_(std::move(file)) {}

  ContactTier& tier() override { return tier_; }
  nlohmann::json prepare(std::span<const BodyMotion>, const RunProgress&) override {
    return nlohmann::json::object();
  }
  bool covers_xy(double x_W, double y_W) const override {
    return x_W >= model_.x0_m && x_W <= model_.x(model_.nx - 1) && y_W >= model_.y0_m &&
           y_W <= model_.y(model_.ny - 1);
  }

  double surface_z(double x_W, double y_W) const override {
    return base_surface_z(model_, x_W, y_W);
  }
  long preparation_steps() const override { return 0; }

  void view_layout(ViewLayout& layout, const Vec3&) const override {
    view_sampling_ =
        view_heightmap_sampling(model_.nx, model_.ny, model_.cell_size_m, model_.x0_m, model_.y0_m);
    layout.heightmap = view_sampling_.grid;
  }
  void view_frame(ViewFrame&, std::vector<double>& heights_m) const override {
    view_block_.resize(0, 0, model_.nx, model_.ny);
    tier_.state().gather(view_block_, scm::kHeight);
    sample_heightmap(view_block_.height_m, model_.nx, view_sampling_, heights_m);
  }

  nlohmann::json finish(OutputDir& out, const std::string& title,
                        std::span<const BodyMotion>) override {
    write_ruts(out, model_, tier_.state(), title + ": ruts (surface minus base terrain)");
    nlohmann::json details = {{"terrain", "scm"},
                              {"flow_method", scm::flow_method_name(model_.method)},
                              {"cell_size_m", model_.cell_size_m},
                              {"pictures", {"ruts.png"}}};
    scm::record_soil_at_edge(file_, scm::kGridExtentKey, model_,
                             tier_.state().largest_change_at_edge_m(), details);
    return details;
  }

 private:
  scm::ScmModel model_;  // as built: the base terrain
  scm::ScmContactTier tier_;
  mutable ViewHeightmapSampling view_sampling_;
  mutable scm::NodeBlock view_block_;  // reused by view_frame
  std::filesystem::path file_;         // the scenario's, for warnings
};

}  // namespace

std::unique_ptr<RobotTerrain> read_scm_terrain(const ScenarioTable& root,
                                               std::vector<CoupledBody> bodies, double dt_s) {
  scm::ScmModel m;
  scm::read_grid(root.table("grid"), m);
  m.soil = scm::read_soil(root.table("soil"));
  scm::read_flow(root.table("flow"), m);
  m.bodies = std::move(bodies);
  m.time_step_s = dt_s;
  try {
    scm::validate(m);
  } catch (const std::invalid_argument& e) {
    root.fail("", e.what());
  }
  return std::make_unique<ScmTerrain>(std::move(m), root.file());
}

}  // namespace talus::robot
