#pragma once
// Node forces and body wrenches (paper 002 §3.2, eq. 34-38).

#include <span>
#include <vector>

#include "core/wrench.hpp"
#include "scm/scm_contact.hpp"

namespace talus::scm {

/// Force [N] the soil exerts on the body at one contact node: the normal stress sigma (eq. 34)
/// acts against the body's outward normal, scaled so that its vertical part is sigma * A_grid
/// (the stress is a pressure on the node's horizontal area; docs/scm.md §Forces), plus the
/// horizontal shear stress of eq. 35 on A_grid: Mohr-Coulomb strength c + sigma tan(phi)
/// mobilised by Janosi-Hanamoto's 1 - exp(-|j| / K), opposing the shear displacement j.
Vec3 node_force(const SoilParameters& soil, double area_m2, const ContactNode& c, double shear_x_m,
                double shear_y_m);

/// Sums the node forces of each body into its wrench about the body's reference point R
/// (eq. 37-38). `wrenches` has one entry per body. Deterministic: fixed summation order.
void body_wrenches(const ScmModel& model, std::span<const BodyMotion> motions,
                   std::span<const ContactNode> contacts, std::span<Wrench> wrenches);

}  // namespace talus::scm
