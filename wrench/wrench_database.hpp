#pragma once
// Wrench-space database (paper 000, §III-B1): for n configurations theta_j = (d_j, phi_j) and m
// velocity directions, the measured resistance wrenches w_ij on the boundary of W(theta_j), in the
// frame F_r (origin p_r on the foot's axis, axes of the contact frame F_c). Stored as HDF5 (layout
// in docs/wrench_space.md, attribute format_version = 1), importable from force/torque-sensor CSV,
// and generated through acquire_database() with a measuring callback (the particle tier's runs).

#include <Eigen/Dense>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/scenario_file.hpp"

namespace talus::wrench {

/// Written since the depth reference (below) was added; version 1 files (no depth_reference
/// attribute) are read as kBottomCentre.
inline constexpr int kDatabaseFormatVersion = 2;

class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the wrenches were measured in (paper §IV-A).
struct MediumDescription {
  std::string name;             ///< e.g. "beads", "pebbles"
  double grain_radius_m = 0.0;  ///< mean grain radius [m]
  double density_kg_m3 = 0.0;   ///< grain material density [kg/m^3]
  double friction = 0.0;        ///< grain-grain friction coefficient [-]
  std::string source;           ///< "talus particle tier ...", "force/torque sensor ...", ...
};

/// Throws DatabaseError "<where>: medium.<field>: ..." unless the medium has a name, a grain radius
/// and a density > 0 and a friction >= 0 (all finite).
void validate_medium(const MediumDescription& medium, const std::string& where);

/// Which point of the foot a configuration's depth d is measured at.
enum class DepthReference {
  /// The bottom face's centre p_center (paper 000 §III-A): the foot is in contact when d < 0. A
  /// tilted foot's rim is below the surface before that, and a foot lying on its side (phi =
  /// pi/2) touches with its centre a radius above it, so this reference suits small tilts only.
  kBottomCentre,
  /// The foot's lowest point, d = d_center - r sin|phi| (the bottom rim of a cylinder of radius
  /// r whose axis is tilted by phi): d < 0 is contact at every tilt up to a foot on its side.
  kLowestPoint,
};

/// "bottom_centre" or "lowest_point" (the HDF5 attribute's and the scenario key's values).
const char* depth_reference_name(DepthReference reference);
/// The reference depth_reference_name gives `name`; none for any other name.
std::optional<DepthReference> parse_depth_reference(std::string_view name);

/// The configuration depth of a foot whose bottom centre is `bottom_centre_depth_m` from the
/// surface (< 0 below) with tilt `tilt_rad`, and its inverse.
double configuration_depth(DepthReference reference, double foot_radius_m,
                           double bottom_centre_depth_m, double tilt_rad);
double bottom_centre_depth(DepthReference reference, double foot_radius_m, double depth_m,
                           double tilt_rad);

struct WrenchDatabase {
  /// n x 2: depth d [m] (<= 0 in contact, 0 at the surface; measured at `depth_reference`) and
  /// tilt phi [rad].
  Eigen::MatrixX2d configurations;
  DepthReference depth_reference = DepthReference::kBottomCentre;
  /// r of the cylindrical foot [m]: needed (> 0) with kLowestPoint, 0 where unknown.
  double foot_radius_m = 0.0;
  /// m x D unit velocity directions (D = 3: v_x, v_z, omega_y; D = 6: v, omega), see
  /// velocity_directions.hpp.
  Eigen::MatrixXd velocity_directions;
  /// D per-axis scales turning directions into the commanded velocities [m/s, rad/s].
  Eigen::VectorXd velocity_scale;
  /// n entries of m x D: wrench of direction i at configuration j, in F_r [N, N m].
  std::vector<Eigen::MatrixXd> wrenches;
  /// p_r in the foot's body frame [m] (paper: on the axis, 0.25 m above the bottom centre).
  Eigen::Vector3d reference_point_m = Eigen::Vector3d(0.0, 0.0, 0.25);
  MediumDescription medium;

  int configuration_count() const { return static_cast<int>(configurations.rows()); }
  int direction_count() const { return static_cast<int>(velocity_directions.rows()); }
  int wrench_dimension() const { return static_cast<int>(velocity_directions.cols()); }

  /// Throws DatabaseError "<where>: <field>: <what is wrong>" for missing or inconsistent data:
  /// D not 3 or 6, shapes that disagree, non-finite numbers, non-unit directions, repeated
  /// configurations, positive depths, bad medium numbers, kLowestPoint without a foot radius.
  void validate(const std::string& where) const;
};

/// Writes `db` (validated first) to an HDF5 file, replacing it.
void save_database(const WrenchDatabase& db, const std::filesystem::path& path);
/// Reads and validates; errors name the file and the missing or inconsistent dataset/attribute.
WrenchDatabase load_database(const std::filesystem::path& path);

/// load_database for a file a scenario names: any problem with the file (missing, not HDF5, a
/// field missing, NaN) is refused as a ScenarioError at `table`.`key`, the line that points at it.
WrenchDatabase load_database_at(const ScenarioTable& table, const std::string& key,
                                const std::filesystem::path& path);

/// One database of the configurations of `parts` (databases of the same medium, velocity
/// directions, scales and reference point, acquired separately: a sweep's runs, one per tilt),
/// ordered by depth (surface first) then tilt (ascending), as one acquisition of the whole grid
/// orders them. `names` name the parts in errors. Throws DatabaseError naming the part and the
/// field that differs, or a configuration measured twice.
WrenchDatabase merge_databases(const std::vector<WrenchDatabase>& parts,
                               const std::vector<std::string>& names);

/// Imports measurements from a force/torque sensor as CSV. First line: the header
///   planar:  depth_m,tilt_rad,v_x,v_z,omega_y,f_x,f_z,tau_y
///   spatial: depth_m,tilt_rad,v_x,v_y,v_z,omega_x,omega_y,omega_z,f_x,f_y,f_z,tau_x,tau_y,tau_z
/// then one row per run; the velocity columns are unit directions, the wrench columns in F_r.
/// Lines starting with '#' and blank lines are skipped. Every configuration must have the same
/// set of directions, each once (the first configuration's order is kept). Errors read
/// "file:line: what is wrong".
WrenchDatabase import_csv(const std::filesystem::path& path, const MediumDescription& medium,
                          const Eigen::VectorXd& velocity_scale,
                          const Eigen::Vector3d& reference_point_m = Eigen::Vector3d(0, 0, 0.25));

/// One particle-tier run to perform: move at `velocity` (= direction .* scale, in F_c) along a
/// constant-velocity path that passes theta = (depth, tilt) at 0.8 of its duration (§III-B2).
struct AcquisitionRun {
  int configuration = 0;
  int direction = 0;
  double depth_m = 0.0;  ///< the configuration's depth, at `depth_reference`
  double tilt_rad = 0.0;
  Eigen::VectorXd velocity;
  DepthReference depth_reference = DepthReference::kBottomCentre;
  double foot_radius_m = 0.0;  ///< r [m], for kLowestPoint

  /// Where the foot's bottom centre is at the configuration [m].
  double bottom_centre_depth_m() const {
    return bottom_centre_depth(depth_reference, foot_radius_m, depth_m, tilt_rad);
  }
};

/// Measures one run's filtered resistance wrench at theta, in F_r (D components).
using WrenchMeasurer = std::function<Eigen::VectorXd(const AcquisitionRun&)>;

struct AcquisitionSpec {
  std::vector<double> depths_m;         ///< grid of depths (<= 0)
  std::vector<double> tilts_rad;        ///< grid of tilts
  Eigen::MatrixXd velocity_directions;  ///< m x D unit directions
  Eigen::VectorXd velocity_scale;       ///< D
  Eigen::Vector3d reference_point_m = Eigen::Vector3d(0.0, 0.0, 0.25);
  MediumDescription medium;
  /// Where depths_m are measured (the runs pose the foot by its bottom centre, converted).
  DepthReference depth_reference = DepthReference::kBottomCentre;
  double foot_radius_m = 0.0;  ///< r [m]; needed with kLowestPoint
  /// Use the phi -> -phi mirror (mirror_x) for tilts whose mirror image is also on the grid.
  bool use_symmetry = true;
};

/// The runs acquire_database() would perform, in order: zero depth and, with use_symmetry, the
/// negative tilts whose positive partner is on the grid need no run.
std::vector<AcquisitionRun> planned_runs(const AcquisitionSpec& spec);

/// Builds the database for the grid depths x tilts: zero depth gives zero wrenches without a run;
/// with use_symmetry, w(d, -phi, direction i) = mirror_x(w(d, phi, partner(i))); every other
/// wrench comes from `measure`. Configurations are ordered depth-major as given.
WrenchDatabase acquire_database(const AcquisitionSpec& spec, const WrenchMeasurer& measure);

/// Start of the acquisition path in F_c coordinates of the configuration space, so that the foot
/// passes `target` at 0.8 of `duration_s` moving at `velocity` (§III-B2 step 2):
/// start = target - 0.8 duration velocity.
Eigen::VectorXd acquisition_start(const Eigen::VectorXd& target, const Eigen::VectorXd& velocity,
                                  double duration_s);

}  // namespace talus::wrench
