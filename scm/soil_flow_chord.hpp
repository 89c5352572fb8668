#pragma once
// One chord of a local flow field (paper 002 §3.1, eq. 3-21): the 2D path along which soil that a
// displacing node pushed away fails and flows in one horizontal direction. scm/soil_flow.cpp
// builds n_C of them per displacing node, interpolates them onto the grid (Fig. 5) and superposes
// the fields (eq. 22-29). Kept apart so that a chord can be checked against a hand computation.
//
// Conventions: e_C(alpha) = (sin alpha, cos alpha, 0) (eq. 4), so alpha is measured from +y
// towards +x. A chord's failure surface is stored as an elevation h_s [m] (eq. 7: it starts at
// the displacing node's surface and moves by d_s tan(gamma) per node, negative gamma = down);
// its flow depth at a node is the surface height there minus h_s.

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/pose.hpp"
#include "scm/flow_window.hpp"

namespace talus::scm {

/// gamma_a = pi/4 + phi/2, the inclination of RANKINE's active sliding surfaces (eq. 9).
double rankine_active_angle(double friction_angle_rad);
/// gamma_p = pi/4 - phi/2, the inclination of RANKINE's passive sliding surfaces (eq. 13).
double rankine_passive_angle(double friction_angle_rad);

/// alpha_RND in [0, 2 pi / n_C): the random rotation of node (gi, gj)'s chord set (eq. 3),
/// a hash of the seed and the node's global index, so it depends neither on the thread count nor
/// on where a window starts. (Rotating by more than one chord spacing gives the same set.)
double chord_set_rotation(std::uint64_t seed, int chord_count, long long gi, long long gj);

/// e_C (eq. 4).
inline Vec3 chord_direction(double alpha_rad) {
  return {std::sin(alpha_rad), std::cos(alpha_rad), 0.0};
}

/// f_C (eq. 17, reconstructed denominator |v|^2, see docs/soil_flow.md): how much of the
/// displaced soil goes along chord direction e_C when the contact moves with v_c. 1 along v_c's
/// horizontal part or for a purely vertical v_c, 0 perpendicular to or against it;
/// psi_angle sharpens the transition. For v_c = 0 every direction is equal: 1.
double chord_direction_weight(const Vec3& contact_velocity_W, const Vec3& e_C, double psi_angle);

/// The chords of one local field, built together, one chord per SIMD lane (build_chords). Chord c
/// has count[c] nodes; its node k is entry k * lanes + c of the per-node arrays (node 0 is the
/// displacing node). Vectors only grow (capacity reused between calls).
struct ChordBatch {
  int chords = 0;  ///< n_C
  int lanes = 0;   ///< chords rounded up to the SIMD width; lanes past n_C are idle
  int steps = 0;   ///< nodes per lane the walk may take (reach and window bound it)
  std::vector<int> count;
  std::vector<int> di, dj;             ///< offset from the displacing node [nodes]
  std::vector<double> distance_m;      ///< l_s (eq. 5-6)
  std::vector<double> failure_z_m;     ///< h_s (eq. 7)
  std::vector<double> shear_length_m;  ///< s_s (eq. 8)
  std::vector<double> angle_rad;       ///< gamma_s (eq. 11, 16)
  std::vector<double> sin_angle, cos_angle;
  std::vector<double> flow_depth_m;  ///< surface height minus h_s, clamped as in ChordNode
  // Per lane: direction, walk and the state of the last node (internal to build_chords).
  std::vector<double> e_x, e_y, minor_per_major;
  std::vector<int> major_step, x_major, active;
};

/// Builds the chords of directions alpha_rad[0 .. n_C) from window node (ic, jc) with contact
/// velocity contact_velocity_W into batch: the same walk and equations as build_chord, chord by
/// chord, but all chords advance one node at a time together so that the per-node work (eq.
/// 12-16 and the exp, sin and cos they need) runs in SIMD lanes. The exp, sin and cos are
/// talus's own polynomial kernels (soil_flow_chord.cpp; within about 1 ulp of libm's, which cannot
/// be vectorised; docs/soil_flow.md, Speed).
/// load_sign: chord_load_sign(window), -1 at loaded nodes and +1 at free ones (eq. 12), made once
/// per window (the lanes read it as doubles: a byte array does not vectorise).
void build_chords(const FlowParameters& params, const FlowWindow& window, const double* load_sign,
                  int ic, int jc, const Vec3& contact_velocity_W, const double* alpha_rad, int n_c,
                  double reach_m, ChordBatch& batch);

/// The sign of eq. 12 per window node for build_chords: -1 where window.in_contact, else +1.
void chord_load_sign(const FlowWindow& window, std::vector<double>& load_sign);

/// One node i_s of a chord: grid offset from the displacing node and the chord's state there.
struct ChordNode {
  int di = 0;                 ///< offset along x [nodes]
  int dj = 0;                 ///< offset along y [nodes]
  double distance_m = 0.0;    ///< l_s: horizontal distance along the chord (eq. 5-6)
  double failure_z_m = 0.0;   ///< h_s: elevation of the failure surface (eq. 7)
  double shear_length_m = 0;  ///< s_s: length along the failure surface (eq. 8)
  double angle_rad = 0.0;     ///< gamma_s: propagation angle, positive = upward (eq. 11, 16)
  double sin_angle = 0.0;     ///< sin(gamma_s)
  double cos_angle = 1.0;     ///< cos(gamma_s)
  double flow_depth_m = 0.0;  ///< surface height minus h_s, clamped to [0, max_flow_depth_m]
};

/// Builds the chord of direction alpha_rad from window node (ic, jc) into nodes (cleared; its
/// capacity is reused). nodes[0] is the displacing node itself. The chord steps one node along
/// its dominant axis at a time, to the node nearest the ray (so d_s of eq. 5 is the projection of
/// the actual step). It ends at the first node where the failure surface is above the surface
/// (the flow reached it), or on the last node before it would leave the window or exceed reach_m
/// (Euclidean distance from the displacing node), whichever comes first. The initial angle comes
/// from the contact velocity at (ic, jc) (eq. 10-11); the angle at each further node blends the
/// previous one with the load- and flow-dependent RANKINE angle (eq. 12-16).
void build_chord(const FlowParameters& params, const FlowWindow& window, int ic, int jc,
                 double alpha_rad, double reach_m, std::vector<ChordNode>& nodes);

/// As above with the contact velocity given (eq. 10) instead of read at (ic, jc): a cluster of
/// displacing nodes (FlowParameters::cluster_nodes) uses its members' volume-weighted velocity.
void build_chord(const FlowParameters& params, const FlowWindow& window, int ic, int jc,
                 const Vec3& contact_velocity_W, double alpha_rad, double reach_m,
                 std::vector<ChordNode>& nodes);

}  // namespace talus::scm
