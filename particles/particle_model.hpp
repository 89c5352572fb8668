#pragma once
// The particle tier's Model (paper 001, GranularGym): rigid frictional spheres whose contacts are
// solved implicitly with Projected Jacobi (§II-A), found with a spatial hash (§II-B), touching
// kinematically driven signed-distance bodies (§II-C), in a container of walls.
//
// The Model is plain data, validated once (validate()) and not changed while stepping; everything
// that changes lives in ParticleState (particles/particle_state.hpp). SI units, world frame W with
// gravity usually along -z_W. docs/particles.md describes the solver as built.

#include <limits>
#include <vector>

#include "core/contact_tier.hpp"
#include "core/pose.hpp"
#include "core/shape.hpp"
#include "core/threads.hpp"
#include "core/units.hpp"

namespace talus::particles {

/// How the broadphase groups particles into cells of edge >= the largest contact distance (both
/// use the Teschner hash of paper 001 eq. (6) with the table size below; both give the same
/// contact list, bit for bit).
enum class Broadphase {
  /// Counting sort of the particles by hash bucket, then each bucket's particles lie contiguous in
  /// index order. Deterministic by construction.
  kSortedCells,
  /// Paper 001 Algorithm 2: a linked list per bucket, built in parallel with an atomic
  /// compare-and-swap on the bucket heads. The list order depends on thread timing; the contact
  /// pass sorts each particle's contacts by partner index, so results do not.
  kLinkedHash,
};

/// The walls that hold the particles. Walls are frictional, immovable and infinitely heavy.
struct Container {
  enum class Kind {
    kNone,      ///< no walls (bodies, e.g. a plane, hold the particles)
    kBox,       ///< the six faces of `box` (the faces normal to the periodic axis are omitted)
    kCylinder,  ///< a vertical (z_W) cylinder of radius cylinder_radius_m about cylinder_axis_xy_m,
                ///< closed by floors at box.lo.z() and box.hi.z() (box.lo/hi x, y are ignored)
  };
  Kind kind = Kind::kBox;
  Aabb box{Vec3(-0.5, -0.5, 0.0), Vec3(0.5, 0.5, 1.0)};  ///< [m], world frame
  double cylinder_radius_m = 0.5;                        ///< kCylinder only [m]
  Vec2 cylinder_axis_xy_m = Vec2::Zero();                ///< kCylinder only: axis (x, y) [m]
};

/// Immutable parameters of a particle simulation.
struct ParticleModel {
  Vec3 gravity_m_per_s2{0.0, 0.0, -kGravity_m_per_s2};  ///< uniform gravity in W [m/s^2]
  double time_step_s = 1e-3;  ///< time step [s], > 0 ([simulation] time_step_s)
  int iterations = 4;         ///< Projected Jacobi sweeps per step, >= 1
  /// Baumgarte factor alpha (§II-A): a penetration psi is pushed out at alpha * psi / dt. Applied
  /// as a split impulse (positions only, projected_jacobi.hpp) rather than on the velocity as in
  /// paper 001, so push-out adds no kinetic energy. In [0, 1].
  double baumgarte = 0.2;
  /// Cap on the Baumgarte push-out speed alpha * psi / dt [m/s] (> 0): keeps a deep overlap from
  /// launching particles. +infinity disables the cap.
  double max_pushout_speed_m_per_s = 0.5;
  double friction = 0.5;       ///< Coulomb coefficient between particles, >= 0
  double wall_friction = 0.5;  ///< Coulomb coefficient between particles and walls, >= 0
  double body_friction = 0.5;  ///< Coulomb coefficient between particles and bodies, >= 0
  /// Whether grains rotate (docs/particles.md §7): an angular velocity per particle (moment of
  /// inertia 2/5 m r^2), contact velocities that include omega x r at both partners, tangential
  /// impulses that turn the grains. false is paper 001's model (spheres that translate only, as
  /// if their rolling resistance were unbounded), kept bit for bit.
  bool rotation = true;
  /// Rolling friction coefficient mu_r [-] (>= 0; rotation only), for every contact (particles,
  /// walls, bodies): a rolling torque of at most mu_r R_eff f_n opposes the relative rolling
  /// velocity (R_eff = r_i r_j / (r_i + r_j) between particles, r_i against walls and bodies),
  /// the constant-torque model of LIGGGHTS's `rolling_friction cdt`, solved implicitly as a cone
  /// on the contact's rolling angular impulse. 0 lets grains roll freely.
  double rolling_friction = 0.1;
  /// Relaxation factor omega in (0, 2) on each Jacobi contact update, applied on top of the
  /// mass-splitting average (docs/particles.md §2): below 1 damps, above 1 over-relaxes. Without
  /// the cone projections the split sweep is a weighted Jacobi iteration whose diagonal bounds
  /// the contact operator, so it converges for any omega under 2; over-relaxed, a deep bed's load
  /// crosses more layers per sweep. 1 (the default) is paper 001's update.
  double relaxation = 1.0;
  /// Warm starting, in [0, 1]: each contact's impulse starts from this fraction of the impulse the
  /// same pair (same partner) had at the end of the previous step; 0 starts cold. Not in paper
  /// 001: without it the few Jacobi sweeps cannot carry a column's weight and the bed creeps
  /// (docs/particles.md §2).
  double warm_start = 1.0;
  /// Pairs closer than the sum of radii plus this margin [m] (>= 0) become contacts (speculative
  /// contacts: a gap g > 0 lets the pair approach by at most g per step). It also sets the cell
  /// size: cells are 2 * largest radius + margin.
  double contact_margin_m = 0.0;

  Container container;
  /// Axis (0 = x, 1 = y, 2 = z) along which the box container is periodic with period box.hi -
  /// box.lo on that axis (minimum-image distances; positions wrap into [lo, hi)); -1 for none. The
  /// period must hold at least 3 cells. Only with a box container.
  int periodic_axis = -1;

  /// Kinematically driven bodies (§II-C): shape in B, name for messages, torque reference point
  /// p_BR. Their poses and twists are given to every step (BodyMotion), by a driver
  /// (motions_at()) or a coupled rigid-body engine (ParticleContactTier).
  std::vector<CoupledBody> bodies;

  Broadphase broadphase = Broadphase::kSortedCells;
  double hash_table_factor = 2.0;  ///< hash buckets per particle (paper 001 Fig. 3: 2), > 0
  /// Skin of the Verlet neighbour list (particles/neighbour_list.hpp) in units of the largest
  /// particle radius, >= 0: the hash is searched with the contact reach plus this skin, and the
  /// rows of the particles that moved are searched again only once the two largest moves sum to
  /// the skin. Results are bit-identical for any skin; 0 searches the hash at every step (paper
  /// 001). Larger skins list more partners per particle but refresh less often (docs/particles.md
  /// §4-5).
  double neighbour_skin_radii = 0.3;

  /// Every this many steps (>= 0; 0 never) the step puts the particles in spatial order, along a
  /// Morton curve of cells one contact reach wide (particle_order.hpp): a particle's partners then
  /// lie near it in memory, which a bed made in no order (random insertion) or a heap that mixes
  /// needs. Indices change, identities (ParticleState::id) do not; state files are written in
  /// identity order. A sorted run follows an unsorted one to rounding, not bit for bit; results
  /// stay the same for any thread count.
  int sort_every_steps = 0;

  /// OpenMP threads for the step, 0 to kMaxThreads; 0 uses the OpenMP default (OMP_NUM_THREADS).
  /// Results do not depend on it.
  int threads = 0;
  static constexpr int kMaxThreads = talus::kMaxThreads;  // core/threads.hpp

  // --- bad input and divergence guards ---
  /// Initial overlaps deeper than this fraction of the smaller radius are refused (>= 0).
  double overlap_tolerance = 0.05;
  /// The fastest a particle or body point is expected to move [m/s] (> 0): the no-tunnelling bound
  /// requires expected_speed * dt <= smallest radius (check_initial_state()).
  double expected_speed_m_per_s = 1.0;
  /// The step stops (ParticleDivergence) when the total kinetic energy would exceed this [J];
  /// +infinity (default) checks only for NaN and infinity.
  double max_kinetic_energy_J = std::numeric_limits<double>::infinity();
};

/// Throws std::invalid_argument naming the field and what was expected when a parameter is out of
/// range or not finite, a body shape is invalid (prefixing "body 'name': "), the container box is
/// empty, or the periodic axis is set without a box container.
void validate(const ParticleModel& model);

}  // namespace talus::particles
