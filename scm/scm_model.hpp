#pragma once
// The Soil Contact Model's immutable description (paper 002 §3): the node grid, the base terrain
// the soil lies on before anything touches it, the soil's Bekker / Mohr-Coulomb / Janosi
// parameters and the flow parameters. Everything in SI units; angles in radians.
//
// The node grid is core/heightmap_grid.hpp's, shared with the shaping tier: node (i, j),
// 0 <= i < nx, 0 <= j < ny, sits at (x0_m + i * cell_size_m, y0_m + j * cell_size_m) and stands
// for the area A_grid = cell_size_m^2 around it (eq. 1, HeightmapGrid::cell_area_m2).

#include <string>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/heightmap_grid.hpp"
#include "scm/flow_window.hpp"

namespace talus::scm {

/// Soil parameters. The pressure-sinkage law is Bekker's p = (kc / b + kphi) z^n (paper 002 eq. 34
/// with k = kc / b + kphi); shear strength is Mohr-Coulomb c + sigma tan(phi) mobilised by
/// Janosi-Hanamoto's 1 - exp(-j / K) (eq. 35).
struct SoilParameters {
  double kc = 0.0;                       ///< cohesive modulus kc [N / m^(n+1)], >= 0
  double kphi = 0.0;                     ///< frictional modulus kphi [N / m^(n+2)], >= 0
  double contact_width_m = 0.2;          ///< b, the smaller dimension of the contact patch [m], > 0
  double exponent_n = 1.0;               ///< n, sinkage exponent [-], > 0
  double cohesion_pa = 0.0;              ///< c [Pa], >= 0
  double friction_angle_rad = 0.5;       ///< phi, in (0, pi/2)
  double janosi_shear_modulus_m = 0.01;  ///< K [m], > 0
  double repose_angle_rad = 0.55;        ///< angle of repose for erosion, in (0, pi/2)
  /// Stiffness of elastic unloading and reloading below the yield stress [Pa / m], > 0: a node
  /// pressed to plastic sinkage z_p carries sigma_y - K_e * gap when the body lifts by `gap`.
  double unloading_stiffness_pa_per_m = 4e7;
  /// Soil sheared past failure (|j| >= failure_shear_m during one contact) is loosened: a later
  /// contact meets the residual strength below instead of c and phi (paper 002 §4.3's multipass
  /// loosening; see docs/scm.md).
  double failure_shear_m = 0.01;
  double residual_cohesion_pa = 0.0;          ///< [Pa], in [0, cohesion_pa]
  double residual_friction_angle_rad = 0.45;  ///< in (0, friction_angle_rad]
  /// Thickness of the soil band that a contact drags along with it (border path's transport of
  /// sheared soil; the source of slip sinkage there) [m], >= 0.
  double shear_band_m = 0.01;

  /// k = kc / b + kphi [N / m^(n+2)], the stiffness of eq. 34.
  double bekker_k() const { return kc / contact_width_m + kphi; }
};

/// A named parameter set: "dry_sand" or "lunar_regolith". docs/scm.md gives the sources. Throws
/// std::invalid_argument naming the known sets for any other name.
SoilParameters named_soil(const std::string& name);
/// The names named_soil knows.
std::vector<std::string> named_soil_names();

enum class FlowMethod { Fields, Border };
/// "fields" or "border".
std::string flow_method_name(FlowMethod method);

/// The node grid (HeightmapGrid's fields: nx, ny nodes spanning the map's extent, storage grows
/// only where touched; cell_size_m; x0_m, y0_m of node (0, 0)) and what lies on it.
struct ScmModel : HeightmapGrid {
  /// Base terrain height [m]: base_height_m everywhere, plus base_image_m (nx * ny values,
  /// row-major j * nx + i) when it is not empty.
  double base_height_m = 0.0;
  std::vector<double> base_image_m;
  SoilParameters soil;
  FlowParameters flow;
  FlowMethod method = FlowMethod::Border;
  /// Erosion of non-contact nodes after each step (core/erosion.hpp's Jacobi erosion, which the
  /// shaping tier uses too).
  double erosion_tolerance_m = 1e-5;
  /// Erosion updates per step at most; what is left continues in the next steps (a wheel adds
  /// little per step, so a few updates keep up; docs/scm.md §Speed).
  int erosion_max_updates = 4;
  /// Not a model parameter (results are bit-identical either way): the erosion of a deformation
  /// window uses threads only from this many nodes. An update costs about 1 ns per node, so the
  /// windows of a 2 cm or 1 cm wheel (2,600 / 10,300 nodes) take 3-12 us per update, less than a
  /// parallel region's fork and join on a busy machine (docs/scm.md, Speed).
  long erosion_min_cells_for_threads = 32768;
  /// Nodes added around the contact patches for the border path's deposits and erosion.
  int border_margin_nodes = 4;
  double time_step_s = 1e-3;        ///< dt of step() [s]
  std::vector<CoupledBody> bodies;  ///< the bodies step() expects motions for, in order

  double base_height(int i, int j) const {
    return base_image_m.empty() ? base_height_m : base_height_m + base_image_m[index(i, j)];
  }
};

/// Throws std::invalid_argument naming the field and the expected range for non-physical soil
/// (negative stiffness, kc = kphi = 0, n <= 0, phi outside (0, 90) deg, K <= 0, ...), a bad grid
/// or flow parameters.
void validate(const SoilParameters& soil);
void validate(const ScmModel& model);

/// Base-terrain heights from a greyscale PNG: the red channel 0..255 maps linearly to
/// [0, relief_m]; pixel row 0 is the top of the picture (largest y). The image must be nx by ny.
std::vector<double> base_image_from_png(const std::string& path, int nx, int ny, double relief_m);

}  // namespace talus::scm
