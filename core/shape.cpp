#include "core/shape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/mesh_sdf.hpp"
#include "core/units.hpp"

// Signed distances and exact line intersections are written by hand: Eigen has no SDFs, and the
// packaged geometry libraries (fcl, CGAL) answer distance between meshes, not the vertical-line
// query the heightmap tier needs per cell.

namespace talus {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Sphere tracing: distance [m] at which the march stops stepping by the distance and creeps in
// steps of this size; only parts thinner than this along the line could be stepped over.
constexpr double kTouch_m = 1e-7;
// Sphere tracing: creeping steps after which a line still within kTouch_m of the surface is taken
// to run along it (64 steps: 6.4 um, crossed by any surface met at less than ~89 deg incidence).
constexpr int kMaxCreepSteps = 64;
// Sphere tracing: a line running nearly parallel to a face at a small distance f advances only f
// per step (a 5 mm grouser face at 0.2 um is 25000 steps). After this many consecutive steps closer
// than kNear_m the line is taken to run along the surface and counts as touching where that run
// began: at most a 10 um error, far below any heightmap cell, for a bounded 1000 steps.
constexpr double kNear_m = 1e-5;
constexpr int kMaxNearSteps = 1000;
// Sphere tracing: width [m] to which a bracketed crossing is refined.
constexpr double kRefineTol_m = 1e-10;
// Sphere tracing: start this far [m] below the bounding volume so the first sample is outside.
constexpr double kStartMargin_m = 1e-6;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

double sign_of(double v) { return v < 0.0 ? -1.0 : 1.0; }

// ---------------------------------------------------------------- validation

void require_positive(const std::string& field, double value) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument(fmt::format("{} must be finite, got {}", field, value));
  }
  if (value <= 0.0) {
    throw std::invalid_argument(fmt::format("{} must be > 0, got {}", field, value));
  }
}

void require_non_negative(const std::string& field, double value) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument(fmt::format("{} must be finite, got {}", field, value));
  }
  if (value < 0.0) {
    throw std::invalid_argument(fmt::format("{} must be >= 0, got {}", field, value));
  }
}

// Largest grouser thickness [m] for which neighbouring plates meet only inside the rim: two plates
// 2 pi / n apart overlap out to radius t / (2 sin(pi / n)), which must stay below the rim radius.
double max_grouser_thickness(double radius_m, int count) {
  return count == 1 ? 2.0 * radius_m : 2.0 * radius_m * std::sin(kPi / count);
}

void validate_wheel(const WheelShape& w) {
  require_positive("wheel.radius_m", w.radius_m);
  require_positive("wheel.width_m", w.width_m);
  if (w.grouser_count < 0) {
    throw std::invalid_argument(
        fmt::format("wheel.grouser_count must be >= 0, got {}", w.grouser_count));
  }
  if (w.grouser_count == 0) {
    require_non_negative("wheel.grouser_height_m", w.grouser_height_m);
    return;
  }
  require_positive("wheel.grouser_height_m", w.grouser_height_m);
  require_positive("wheel.grouser_thickness_m", w.grouser_thickness_m);
  const double t_max = max_grouser_thickness(w.radius_m, w.grouser_count);
  if (w.grouser_thickness_m >= t_max) {
    throw std::invalid_argument(fmt::format(
        "wheel.grouser_thickness_m must be < {} m (2 radius_m sin(pi / grouser_count)) so that "
        "{} grousers do not overlap outside the rim, got {}",
        t_max, w.grouser_count, w.grouser_thickness_m));
  }
}

// ---------------------------------------------------------------- exact distances of parts

double box_distance(const Vec3& half_m, const Vec3& p) {
  const Vec3 q = p.cwiseAbs() - half_m;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

Vec3 box_gradient(const Vec3& half_m, const Vec3& p) {
  const Vec3 q = p.cwiseAbs() - half_m;
  if (q.maxCoeff() > 0.0) {  // outside: direction from the nearest point on the box
    Vec3 g = q.cwiseMax(0.0);
    for (int i = 0; i < 3; ++i) g[i] *= sign_of(p[i]);
    return g.normalized();
  }
  Eigen::Index axis = 0;  // inside: the face with the least depth
  q.maxCoeff(&axis);
  Vec3 g = Vec3::Zero();
  g[axis] = sign_of(p[axis]);
  return g;
}

// A solid cylinder seen in its meridian half-plane: rho is the distance from the axis, a the
// coordinate along it.
double cylinder_distance(double rho, double a, double radius_m, double half_length_m) {
  const double dr = rho - radius_m;
  const double da = std::abs(a) - half_length_m;
  const double out_r = std::max(dr, 0.0);
  const double out_a = std::max(da, 0.0);
  return std::sqrt(out_r * out_r + out_a * out_a) + std::min(std::max(dr, da), 0.0);
}

// Gradient of cylinder_distance as (radial, axial) components.
Vec2 cylinder_gradient(double rho, double a, double radius_m, double half_length_m) {
  const double dr = rho - radius_m;
  const double da = std::abs(a) - half_length_m;
  if (dr > 0.0 || da > 0.0) {
    return Vec2(std::max(dr, 0.0), std::max(da, 0.0) * sign_of(a)).normalized();
  }
  return dr > da ? Vec2(1.0, 0.0) : Vec2(0.0, sign_of(a));
}

// ---------------------------------------------------------------- wheel parts

double outer_radius(const WheelShape& w) { return w.radius_m + w.grouser_height_m; }

// A wheel's distance function with its per-shape constants worked out once, so a sphere trace
// pays for them once per query rather than once per step.
struct WheelSdf {
  double radius = 0.0;             // rim radius [m]
  double half_width = 0.0;         // [m]
  int count = 0;                   // grousers
  double spacing = 0.0;            // angle between grousers [rad]
  double centre_s = 0.0;           // radial coordinate of a plate's centre [m]
  Vec3 plate_half = Vec3::Zero();  // plate half extents: radial, tangential, axial [m]

  explicit WheelSdf(const WheelShape& w)
      : radius(w.radius_m), half_width(0.5 * w.width_m), count(w.grouser_count) {
    if (count == 0) return;
    spacing = 2.0 * kPi / count;
    // The plate's inner face is pushed inward until its corners touch the rim circle
    // (sqrt(r^2 - (t/2)^2)), so no sliver of gap is left between the flat plate and the curved
    // rim; the extension lies inside the rim and does not change the union.
    const double c = 0.5 * w.grouser_thickness_m;
    const double r_in = std::sqrt(w.radius_m * w.radius_m - c * c);
    const double r_out = outer_radius(w);
    centre_s = 0.5 * (r_in + r_out);
    plate_half = Vec3(0.5 * (r_out - r_in), c, half_width);
  }

  double rim(const Vec3& p) const {
    return cylinder_distance(std::sqrt(p.x() * p.x() + p.z() * p.z()), p.y(), radius, half_width);
  }

  // The grouser at the angle nearest the point's (angle theta_k, from -z_B toward -x_B) and the
  // point in that plate's frame: radial, tangential, axial, origin at the plate's centre.
  //
  // That grouser is also the nearest in distance: reflecting across the plane through the axle
  // that bisects two grousers' angles swaps them, and a valid plate lies wholly within +-pi/n of
  // its own angle (validate_wheel), so a point is at least as close to the grouser on its side of
  // that plane as to the mirror image on the other. The minimum over this one plate and the rim
  // therefore equals the minimum over all parts.
  Vec3 nearest_plate(const Vec3& p, double& theta_k) const {
    const double theta = std::atan2(-p.x(), -p.z());
    theta_k = std::round(theta / spacing) * spacing;
    const double rho = std::sqrt(p.x() * p.x() + p.z() * p.z());
    const double phi = theta - theta_k;  // the point's angle from the plate, in [-pi/n, pi/n]
    return Vec3(rho * std::cos(phi) - centre_s, rho * std::sin(phi), p.y());
  }

  double operator()(const Vec3& p) const {
    const double d_rim = rim(p);
    if (count == 0) return d_rim;
    double theta_k = 0.0;
    return std::min(d_rim, box_distance(plate_half, nearest_plate(p, theta_k)));
  }

  Vec3 gradient(const Vec3& p) const {
    if (count > 0) {
      double theta_k = 0.0;
      const Vec3 p_G = nearest_plate(p, theta_k);
      if (box_distance(plate_half, p_G) < rim(p)) {
        const Vec3 n_G = box_gradient(plate_half, p_G);
        // Radial d_k = (-sin, 0, -cos) and tangential e_k = d(d_k)/d(theta) = (-cos, 0, sin).
        const Vec3 d_k(-std::sin(theta_k), 0.0, -std::cos(theta_k));
        const Vec3 e_k(-std::cos(theta_k), 0.0, std::sin(theta_k));
        return n_G.x() * d_k + n_G.y() * e_k + n_G.z() * Vec3::UnitY();
      }
    }
    const double rho = std::sqrt(p.x() * p.x() + p.z() * p.z());
    const Vec3 radial = rho > 0.0 ? Vec3(p.x() / rho, 0.0, p.z() / rho) : Vec3(0.0, 0.0, -1.0);
    const Vec2 g = cylinder_gradient(rho, p.y(), radius, half_width);
    return g.x() * radial + g.y() * Vec3::UnitY();
  }
};

// ---------------------------------------------------------------- per-kind signed distance

double distance(const PlaneShape&, const Vec3& p) { return p.z(); }
double distance(const BoxShape& b, const Vec3& p) { return box_distance(b.half_extents_m, p); }
double distance(const SphereShape& s, const Vec3& p) { return p.norm() - s.radius_m; }
double distance(const CylinderShape& c, const Vec3& p) {
  return cylinder_distance(std::sqrt(p.x() * p.x() + p.y() * p.y()), p.z(), c.radius_m,
                           c.half_length_m);
}
double distance(const CapsuleShape& c, const Vec3& p) {
  const double z_axis = std::clamp(p.z(), -c.half_length_m, c.half_length_m);
  return (p - Vec3(0.0, 0.0, z_axis)).norm() - c.radius_m;
}
double distance(const WheelShape& w, const Vec3& p) { return WheelSdf(w)(p); }
double distance(const MeshShape& m, const Vec3& p) { return m.sdf->distance(p); }

// The wheel's distance function along one sphere-traced line. Successive samples move little, so
// the nearest plate is tracked by climbing from the previous one to a neighbour (its direction
// rotated by +-spacing) while that neighbour's radial coordinate rho cos(theta - theta_k) is
// larger, instead of an atan2 and a sincos per sample. That coordinate is unimodal in k around the
// wheel, so the climb stops at the plate nearest in angle, the one WheelSdf picks.
class WheelTracer {
 public:
  explicit WheelTracer(const WheelShape& w)
      : sdf_(w), cos_step_(std::cos(sdf_.spacing)), sin_step_(std::sin(sdf_.spacing)) {}

  double operator()(const Vec3& p) {
    const double d_rim = sdf_.rim(p);
    if (sdf_.count == 0) return d_rim;
    double s = radial(p, sin_k_, cos_k_);
    // At most count moves: more would mean rounding drift, and any plate near the best is fine.
    for (int moves = 0; moves < sdf_.count; ++moves) {
      const double sin_up = sin_k_ * cos_step_ + cos_k_ * sin_step_;
      const double cos_up = cos_k_ * cos_step_ - sin_k_ * sin_step_;
      const double s_up = radial(p, sin_up, cos_up);
      if (s_up > s) {
        sin_k_ = sin_up;
        cos_k_ = cos_up;
        s = s_up;
        continue;
      }
      const double sin_down = sin_k_ * cos_step_ - cos_k_ * sin_step_;
      const double cos_down = cos_k_ * cos_step_ + sin_k_ * sin_step_;
      const double s_down = radial(p, sin_down, cos_down);
      if (!(s_down > s)) break;
      sin_k_ = sin_down;
      cos_k_ = cos_down;
      s = s_down;
    }
    const double u = -p.x() * cos_k_ + p.z() * sin_k_;  // along e_k = (-cos, 0, sin)
    return std::min(d_rim, box_distance(sdf_.plate_half, Vec3(s - sdf_.centre_s, u, p.y())));
  }

 private:
  // Coordinate of p along plate k's outward direction d_k = (-sin theta_k, 0, -cos theta_k).
  static double radial(const Vec3& p, double sin_k, double cos_k) {
    return -p.x() * sin_k - p.z() * cos_k;
  }

  WheelSdf sdf_;
  double cos_step_;
  double sin_step_;
  double sin_k_ = 0.0;  // the tracked plate starts at grouser 0, straight down
  double cos_k_ = 1.0;
};

// ---------------------------------------------------------------- exact line intersections
// The vertical world line through (x_W, y_W) is p_B(z) = o_B + z d_B in the body frame, with z the
// world height, o_B = R_WB^T ((x_W, y_W, 0) - p_WB) and d_B = R_WB^T e_z (unit). Each helper
// returns the closed interval of z for which p_B(z) lies in a convex part.

struct Interval {
  double lo = kInf;
  double hi = -kInf;
  bool empty() const { return !(lo <= hi); }
};

constexpr Interval kWholeLine{-kInf, kInf};
constexpr Interval kNoPart{kInf, -kInf};

Interval intersect(const Interval& a, const Interval& b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

// z with |o + z d| <= h (one coordinate).
Interval slab(double o, double d, double h) {
  if (d == 0.0) return std::abs(o) <= h ? kWholeLine : kNoPart;
  const double a = (-h - o) / d;
  const double b = (h - o) / d;
  return a < b ? Interval{a, b} : Interval{b, a};
}

// z with (o1 + z d1)^2 + (o2 + z d2)^2 <= r^2: the line inside an infinite cylinder (or, with
// three coordinates folded into o and d by the caller, inside a ball). Roots of
// qa z^2 + 2 qb z + qc = 0 in the cancellation-free form (Numerical Recipes §5.6).
Interval quadratic_inside(double qa, double qb, double qc) {
  if (qa == 0.0) return qc <= 0.0 ? kWholeLine : kNoPart;
  const double disc = qb * qb - qa * qc;
  if (disc < 0.0) return kNoPart;
  const double q = -(qb + std::copysign(std::sqrt(disc), qb));
  if (q == 0.0) return {0.0, 0.0};  // qb == 0 and qc == 0: a single touching point at z = 0
  const double z1 = q / qa;
  const double z2 = qc / q;
  return z1 < z2 ? Interval{z1, z2} : Interval{z2, z1};
}

// z with |o + z d - centre| <= r. d is a unit vector (a rotated axis), so the quadratic's leading
// coefficient is 1 and the roots are -b -+ sqrt(b^2 - c); the cancellation in the upper root only
// costs absolute precision of order 1e-16 |b|, which is all the caller needs.
Interval ball_interval(const Vec3& o, const Vec3& d, const Vec3& centre, double r) {
  const Vec3 oc = o - centre;
  const double b = oc.dot(d);
  const double disc = b * b - (oc.squaredNorm() - r * r);
  if (disc < 0.0) return kNoPart;
  const double root = std::sqrt(disc);
  return {-b - root, -b + root};
}

// Cylinder about z_B.
Interval cylinder_interval(const Vec3& o, const Vec3& d, double r, double half_length) {
  const Interval disc =
      quadratic_inside(d.x() * d.x() + d.y() * d.y(), o.x() * d.x() + o.y() * d.y(),
                       o.x() * o.x() + o.y() * o.y() - r * r);
  return intersect(disc, slab(o.z(), d.z(), half_length));
}

double lowest(const Interval& i) { return i.empty() ? kInf : i.lo; }

// Smallest world z where the body-frame line meets the wheel's bounding cylinder (about y_B,
// through the grouser corners), as an interval.
Interval wheel_bound_interval(const WheelShape& w, const Vec3& o, const Vec3& d);

// ---------------------------------------------------------------- sphere tracing

// Refines a crossing bracketed by f(a) > 0 >= f(b) with the Illinois variant of regula falsi
// (secant steps that halve a stale end's value, so the bracket keeps shrinking on both sides).
template <class Sdf>
double refine_crossing(Sdf& sdf, const Vec3& o, const Vec3& d, double a, double fa, double b,
                       double fb) {
  int stale_side = 0;
  for (int it = 0; it < 64 && b - a > kRefineTol_m; ++it) {
    double c = (a * fb - b * fa) / (fb - fa);
    if (!(c > a && c < b)) c = 0.5 * (a + b);
    const double fc = sdf(o + c * d);
    if (fc > 0.0) {
      a = c;
      fa = fc;
      if (stale_side == 1) fb *= 0.5;
      stale_side = 1;
    } else {
      b = c;
      fb = fc;
      if (fc == 0.0) break;
      if (stale_side == -1) fa *= 0.5;
      stale_side = -1;
    }
  }
  return b;
}

// Marches up the line from z_start (below the shape) to z_end (above it) by the signed distance
// f. A step of f(z) cannot pass a surface (f is a lower bound of the distance to the solid), so a
// step that lands inside landed exactly on the first surface point. Once f < kTouch_m the march
// creeps in steps of kTouch_m: a step that lands inside brackets the crossing, which is refined.
// A line that runs along the surface instead (within kTouch_m for kMaxCreepSteps creeping steps,
// or within kNear_m for kMaxNearSteps steps) counts as touching where that run began, which is at
// or below the true lowest point.
template <class Sdf>
double march_up(Sdf& sdf, const Vec3& o, const Vec3& d, double z_start, double z_end) {
  double z = z_start;
  double f = sdf(o + z * d);
  if (f <= 0.0) return z;
  int near_steps = 0;
  double z_near = z;  // where the current run of steps closer than kNear_m began
  while (z < z_end) {
    if (f >= kTouch_m) {
      if (f >= kNear_m) {
        near_steps = 0;
      } else if (near_steps++ == 0) {
        z_near = z;
      } else if (near_steps > kMaxNearSteps) {
        return z_near;
      }
      const double z_next = z + f;
      const double f_next = sdf(o + z_next * d);
      if (f_next <= 0.0) return z_next;
      z = z_next;
      f = f_next;
      continue;
    }
    const double z_touch = near_steps > 0 ? z_near : z;
    for (int i = 0; i < kMaxCreepSteps && f < kTouch_m; ++i) {
      const double z_next = z + kTouch_m;
      const double f_next = sdf(o + z_next * d);
      if (f_next <= 0.0) return refine_crossing(sdf, o, d, z, f, z_next, f_next);
      z = z_next;
      f = f_next;
    }
    if (f < kTouch_m) return z_touch;
  }
  return kInf;
}

struct BodyLine {
  Vec3 o_B;
  Vec3 d_B;
};

BodyLine body_line(const Pose& X_WB, double x_W, double y_W) {
  const Mat3 R_WB = X_WB.linear();
  return {R_WB.transpose() * (Vec3(x_W, y_W, 0.0) - X_WB.translation()), R_WB.row(2).transpose()};
}

double plane_lowest(const BodyLine& line) {
  const double dz = line.d_B.z();  // world-up expressed in B, z component: n_W . e_z
  if (dz < 0.0) return -line.o_B.z() / dz;
  if (dz > 0.0) return -kInf;
  return line.o_B.z() <= 0.0 ? -kInf : kInf;
}

template <class S>
double trace_in_box(const S& shape, const Pose& X_WB, const BodyLine& line, double x_W,
                    double y_W) {
  const Aabb box = world_bounds(Shape(shape), X_WB);
  if (x_W < box.lo.x() || x_W > box.hi.x() || y_W < box.lo.y() || y_W > box.hi.y()) return kInf;
  auto sdf = [&shape](const Vec3& p_B) { return distance(shape, p_B); };
  return march_up(sdf, line.o_B, line.d_B, box.lo.z() - kStartMargin_m,
                  box.hi.z() + kStartMargin_m);
}

// A mesh grid's interpolated field falls by up to sqrt(3) per metre along a line, so the march
// steps by f / sqrt(3) outside; inside values are kept as they are (the sign is what matters).
double trace_mesh(const MeshShape& m, const Pose& X_WB, const BodyLine& line, double x_W,
                  double y_W) {
  const Aabb box = world_bounds(Shape(m), X_WB);
  if (x_W < box.lo.x() || x_W > box.hi.x() || y_W < box.lo.y() || y_W > box.hi.y()) return kInf;
  const MeshSdfGrid& grid = *m.sdf;
  auto sdf = [&grid](const Vec3& p_B) {
    const double f = grid.distance(p_B);
    return f > 0.0 ? f / MeshSdfGrid::kLipschitz : f;
  };
  return march_up(sdf, line.o_B, line.d_B, box.lo.z() - kStartMargin_m,
                  box.hi.z() + kStartMargin_m);
}

double trace_wheel(const WheelShape& w, const BodyLine& line) {
  const Interval bound = wheel_bound_interval(w, line.o_B, line.d_B);
  if (bound.empty()) return kInf;
  WheelTracer sdf(w);
  return march_up(sdf, line.o_B, line.d_B, bound.lo - kStartMargin_m, bound.hi + kStartMargin_m);
}

double wheel_bound_radius(const WheelShape& w) {
  if (w.grouser_count == 0) return w.radius_m;
  const double r_out = outer_radius(w);
  const double c = 0.5 * w.grouser_thickness_m;
  return std::sqrt(r_out * r_out + c * c);  // the plates' outer corners
}

Interval wheel_bound_interval(const WheelShape& w, const Vec3& o, const Vec3& d) {
  // The cylinder about y_B is the z_B cylinder with coordinates (x, z, y).
  const Vec3 o_c(o.x(), o.z(), o.y());
  const Vec3 d_c(d.x(), d.z(), d.y());
  return cylinder_interval(o_c, d_c, wheel_bound_radius(w), 0.5 * w.width_m);
}

// ---------------------------------------------------------------- bounds

Aabb centred_box(const Vec3& centre, const Vec3& half) { return {centre - half, centre + half}; }

// Half extents along the world axes of a cylinder (or, with end_radius, a capsule) whose unit axis
// in world is a_W: the axis segment contributes half_length |a_i| and a disc of radius r
// perpendicular to a contributes r sqrt(1 - a_i^2) (a capsule's end balls contribute r).
Vec3 cylinder_half_extents(const Vec3& a_W, double r, double half_length) {
  Vec3 h;
  for (int i = 0; i < 3; ++i) {
    h[i] = half_length * std::abs(a_W[i]) + r * std::sqrt(std::max(0.0, 1.0 - a_W[i] * a_W[i]));
  }
  return h;
}

// Annulus area share of one grouser: integral over |u| <= c of the radial chord between the two
// circles, using int_{-c}^{c} sqrt(a^2 - u^2) du = c sqrt(a^2 - c^2) + a^2 asin(c / a).
double grouser_fraction_unchecked(double r, double h, int n, double t) {
  if (n == 0) return 0.0;
  const double big_r = r + h;
  const double c = 0.5 * t;
  const auto half_disc_strip = [c](double a) {
    return c * std::sqrt(a * a - c * c) + a * a * std::asin(c / a);
  };
  const double one = half_disc_strip(big_r) - half_disc_strip(r);
  return n * one / (kPi * (big_r * big_r - r * r));
}

}  // namespace

void validate(const Shape& shape) {
  std::visit(Overloaded{
                 [](const PlaneShape&) {},
                 [](const BoxShape& b) {
                   const Vec3& h = b.half_extents_m;
                   if (!h.allFinite() || (h.array() <= 0.0).any()) {
                     throw std::invalid_argument(fmt::format(
                         "box.half_extents_m must be finite and > 0 in every component, got "
                         "({}, {}, {})",
                         h.x(), h.y(), h.z()));
                   }
                 },
                 [](const SphereShape& s) { require_positive("sphere.radius_m", s.radius_m); },
                 [](const CylinderShape& c) {
                   require_positive("cylinder.radius_m", c.radius_m);
                   require_positive("cylinder.half_length_m", c.half_length_m);
                 },
                 [](const CapsuleShape& c) {
                   require_positive("capsule.radius_m", c.radius_m);
                   require_non_negative("capsule.half_length_m", c.half_length_m);
                 },
                 [](const WheelShape& w) { validate_wheel(w); },
                 [](const MeshShape& m) {
                   if (m.sdf == nullptr) {
                     throw std::invalid_argument(
                         fmt::format("mesh {}: has no signed-distance grid", m.source));
                   }
                 },
             },
             shape);
}

std::string shape_kind(const Shape& shape) {
  return std::visit(Overloaded{
                        [](const PlaneShape&) { return std::string("plane"); },
                        [](const BoxShape&) { return std::string("box"); },
                        [](const SphereShape&) { return std::string("sphere"); },
                        [](const CylinderShape&) { return std::string("cylinder"); },
                        [](const CapsuleShape&) { return std::string("capsule"); },
                        [](const WheelShape&) { return std::string("wheel"); },
                        [](const MeshShape&) { return std::string("mesh"); },
                    },
                    shape);
}

double signed_distance(const Shape& shape, const Vec3& p_B) {
  return std::visit([&p_B](const auto& s) { return distance(s, p_B); }, shape);
}

Vec3 outward_normal(const Shape& shape, const Vec3& p_B) {
  return std::visit(
      Overloaded{
          [](const PlaneShape&) -> Vec3 { return Vec3::UnitZ(); },
          [&p_B](const BoxShape& b) -> Vec3 { return box_gradient(b.half_extents_m, p_B); },
          [&p_B](const SphereShape&) -> Vec3 {
            const double n = p_B.norm();
            return n > 0.0 ? Vec3(p_B / n) : Vec3(Vec3::UnitZ());
          },
          [&p_B](const CylinderShape& c) -> Vec3 {
            const double rho = std::sqrt(p_B.x() * p_B.x() + p_B.y() * p_B.y());
            const Vec3 radial = rho > 0.0 ? Vec3(p_B.x() / rho, p_B.y() / rho, 0.0) : Vec3(1, 0, 0);
            const Vec2 g = cylinder_gradient(rho, p_B.z(), c.radius_m, c.half_length_m);
            return g.x() * radial + g.y() * Vec3::UnitZ();
          },
          [&p_B](const CapsuleShape& c) -> Vec3 {
            const double z_axis = std::clamp(p_B.z(), -c.half_length_m, c.half_length_m);
            const Vec3 v = p_B - Vec3(0.0, 0.0, z_axis);
            const double n = v.norm();
            if (n > 0.0) return v / n;
            return p_B.z() == 0.0 ? Vec3(Vec3::UnitX()) : Vec3(0.0, 0.0, sign_of(p_B.z()));
          },
          [&p_B](const WheelShape& w) -> Vec3 { return WheelSdf(w).gradient(p_B); },
          [&p_B](const MeshShape& m) -> Vec3 { return m.sdf->normal(p_B); },
      },
      shape);
}

Aabb world_bounds(const Shape& shape, const Pose& X_WB) {
  const Mat3 R_WB = X_WB.linear();
  const Vec3 p_WB = X_WB.translation();
  return std::visit(
      Overloaded{
          [](const PlaneShape&) -> Aabb {
            throw std::invalid_argument("world_bounds: a plane is unbounded and has no bounds");
          },
          [&](const BoxShape& b) -> Aabb {
            return centred_box(p_WB, R_WB.cwiseAbs() * b.half_extents_m);
          },
          [&](const SphereShape& s) -> Aabb {
            return centred_box(p_WB, Vec3::Constant(s.radius_m));
          },
          [&](const CylinderShape& c) -> Aabb {
            return centred_box(p_WB,
                               cylinder_half_extents(R_WB.col(2), c.radius_m, c.half_length_m));
          },
          [&](const CapsuleShape& c) -> Aabb {
            return centred_box(
                p_WB, c.half_length_m * R_WB.col(2).cwiseAbs() + Vec3::Constant(c.radius_m));
          },
          [&](const WheelShape& w) -> Aabb {
            return centred_box(
                p_WB, cylinder_half_extents(R_WB.col(1), wheel_bound_radius(w), 0.5 * w.width_m));
          },
          [&](const MeshShape& m) -> Aabb {
            const auto& b = m.sdf->mesh_bounds();
            return centred_box(X_WB * (0.5 * (b[0] + b[1])),
                               R_WB.cwiseAbs() * (0.5 * (b[1] - b[0])));
          },
      },
      shape);
}

double lipschitz_bound(const Shape& shape) {
  return std::holds_alternative<MeshShape>(shape) ? MeshSdfGrid::kLipschitz : 1.0;
}

double grouser_volume_fraction(const WheelShape& wheel) {
  validate_wheel(wheel);
  return grouser_fraction_unchecked(wheel.radius_m, wheel.grouser_height_m, wheel.grouser_count,
                                    wheel.grouser_thickness_m);
}

WheelShape wheel_with_grouser_fraction(double radius_m, double width_m, int grouser_count,
                                       double grouser_height_m, double fraction) {
  require_positive("wheel.radius_m", radius_m);
  require_positive("wheel.width_m", width_m);
  if (grouser_count < 1) {
    throw std::invalid_argument(fmt::format(
        "wheel.grouser_count must be >= 1 to reach a grouser fraction, got {}", grouser_count));
  }
  require_positive("wheel.grouser_height_m", grouser_height_m);
  const double t_max = max_grouser_thickness(radius_m, grouser_count);
  const double f_max = grouser_fraction_unchecked(radius_m, grouser_height_m, grouser_count, t_max);
  if (!(fraction > 0.0 && fraction < f_max)) {
    throw std::invalid_argument(fmt::format(
        "grouser fraction must be in (0, {}) for {} grousers of height {} m on radius {} m "
        "(thicker plates would overlap), got {}",
        f_max, grouser_count, grouser_height_m, radius_m, fraction));
  }
  // The fraction grows strictly with thickness; bisection to the last bit is deterministic.
  double lo = 0.0;
  double hi = t_max;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (grouser_fraction_unchecked(radius_m, grouser_height_m, grouser_count, mid) < fraction) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  WheelShape w;
  w.radius_m = radius_m;
  w.width_m = width_m;
  w.grouser_count = grouser_count;
  w.grouser_height_m = grouser_height_m;
  w.grouser_thickness_m = 0.5 * (lo + hi);
  validate_wheel(w);
  return w;
}

double lowest_point_z(const Shape& shape, const Pose& X_WB, double x_W, double y_W) {
  const BodyLine line = body_line(X_WB, x_W, y_W);
  const Vec3& o = line.o_B;
  const Vec3& d = line.d_B;
  return std::visit(
      Overloaded{
          [&](const PlaneShape&) { return plane_lowest(line); },
          [&](const BoxShape& b) {
            const Vec3& h = b.half_extents_m;
            return lowest(intersect(intersect(slab(o.x(), d.x(), h.x()), slab(o.y(), d.y(), h.y())),
                                    slab(o.z(), d.z(), h.z())));
          },
          [&](const SphereShape& s) {
            return lowest(ball_interval(o, d, Vec3::Zero(), s.radius_m));
          },
          [&](const CylinderShape& c) {
            return lowest(cylinder_interval(o, d, c.radius_m, c.half_length_m));
          },
          [&](const CapsuleShape& c) {
            // A capsule is the union of its side cylinder and two end balls.
            const Vec3 top(0.0, 0.0, c.half_length_m);
            return std::min({lowest(cylinder_interval(o, d, c.radius_m, c.half_length_m)),
                             lowest(ball_interval(o, d, top, c.radius_m)),
                             lowest(ball_interval(o, d, -top, c.radius_m))});
          },
          [&](const WheelShape& w) { return trace_wheel(w, line); },
          [&](const MeshShape& m) { return trace_mesh(m, X_WB, line, x_W, y_W); },
      },
      shape);
}

double lowest_point_z_traced(const Shape& shape, const Pose& X_WB, double x_W, double y_W) {
  const BodyLine line = body_line(X_WB, x_W, y_W);
  return std::visit(Overloaded{
                        [&](const PlaneShape&) { return plane_lowest(line); },
                        [&](const WheelShape& w) { return trace_wheel(w, line); },
                        [&](const MeshShape& m) { return trace_mesh(m, X_WB, line, x_W, y_W); },
                        [&](const auto& s) { return trace_in_box(s, X_WB, line, x_W, y_W); },
                    },
                    shape);
}

}  // namespace talus
