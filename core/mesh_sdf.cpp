#include "core/mesh_sdf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace talus {

// ---------------------------------------------------------------- point-triangle distance

double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  // Ericson §5.1.5: classify p against the Voronoi regions of the vertices, edges and face.
  const Vec3 ab = b - a;
  const Vec3 ac = c - a;
  const Vec3 ap = p - a;
  const double d1 = ab.dot(ap);
  const double d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return ap.norm();  // vertex a
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp);
  const double d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return bp.norm();  // vertex b
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {  // edge ab
    const double t = d1 / (d1 - d3);
    return (p - (a + t * ab)).norm();
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp);
  const double d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return cp.norm();  // vertex c
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {  // edge ac
    const double t = d2 / (d2 - d6);
    return (p - (a + t * ac)).norm();
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {  // edge bc
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return (p - (b + t * (c - b))).norm();
  }
  const double denom = va + vb + vc;  // face interior
  if (!(denom > 0.0)) {  // a degenerate (zero-area) triangle: its edges bound the distance
    auto seg = [&p](const Vec3& s, const Vec3& e) {
      const Vec3 d = e - s;
      const double l2 = d.squaredNorm();
      const double t = l2 > 0.0 ? std::clamp((p - s).dot(d) / l2, 0.0, 1.0) : 0.0;
      return (p - (s + t * d)).norm();
    };
    return std::min({seg(a, b), seg(b, c), seg(c, a)});
  }
  const double v = vb / denom;
  const double w = vc / denom;
  return (p - (a + v * ab + w * ac)).norm();
}

// ---------------------------------------------------------------- BVH

namespace {
constexpr int kLeafSize = 4;
}

TriangleBvh::TriangleBvh(const TriangleMesh& mesh) : mesh_(&mesh) {
  const auto n = static_cast<int>(mesh.triangles.size());
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  std::vector<Vec3> centroids(n);
  for (int t = 0; t < n; ++t) {
    const auto& tri = mesh.triangles[t];
    centroids[t] =
        (mesh.vertices_m[tri[0]] + mesh.vertices_m[tri[1]] + mesh.vertices_m[tri[2]]) / 3.0;
  }
  nodes_.reserve(2 * static_cast<std::size_t>(n) / kLeafSize + 2);
  if (n > 0) build(0, n, centroids);
}

int TriangleBvh::build(int first, int count, std::vector<Vec3>& centroids) {
  const int id = static_cast<int>(nodes_.size());
  nodes_.push_back({});
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = -lo;
  Vec3 clo = lo;
  Vec3 chi = hi;
  for (int i = first; i < first + count; ++i) {
    for (int v : mesh_->triangles[order_[i]]) {
      lo = lo.cwiseMin(mesh_->vertices_m[v]);
      hi = hi.cwiseMax(mesh_->vertices_m[v]);
    }
    clo = clo.cwiseMin(centroids[order_[i]]);
    chi = chi.cwiseMax(centroids[order_[i]]);
  }
  nodes_[id].lo = lo;
  nodes_[id].hi = hi;
  if (count <= kLeafSize) {
    nodes_[id].first = first;
    nodes_[id].count = count;
    return id;
  }
  Eigen::Index axis = 0;
  (chi - clo).maxCoeff(&axis);
  const int mid = first + count / 2;
  // Ties broken by triangle index, so the tree does not depend on nth_element's implementation.
  std::nth_element(order_.begin() + first, order_.begin() + mid, order_.begin() + first + count,
                   [&](int a, int b) {
                     const double ca = centroids[a][axis];
                     const double cb = centroids[b][axis];
                     return ca < cb || (ca == cb && a < b);
                   });
  const int left = build(first, mid - first, centroids);
  const int right = build(mid, first + count - mid, centroids);
  nodes_[id].first = left;
  nodes_[id].right = right;
  nodes_[id].count = 0;
  return id;
}

double TriangleBvh::box_distance_sq(const Node& n, const Vec3& p) const {
  const Vec3 d = (n.lo - p).cwiseMax(p - n.hi).cwiseMax(0.0);
  return d.squaredNorm();
}

double TriangleBvh::distance(const Vec3& p, double upper_bound) const {
  double best = upper_bound;
  if (nodes_.empty()) return std::numeric_limits<double>::infinity();
  int stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& n = nodes_[stack[--top]];
    if (box_distance_sq(n, p) >= best * best) continue;
    if (n.count > 0) {
      for (int i = n.first; i < n.first + n.count; ++i) {
        const auto& t = mesh_->triangles[order_[i]];
        best = std::min(best,
                        point_triangle_distance(p, mesh_->vertices_m[t[0]], mesh_->vertices_m[t[1]],
                                                mesh_->vertices_m[t[2]]));
      }
      continue;
    }
    // Push the farther child first so the nearer one is searched first and prunes more.
    const int a = n.first;
    const int b = n.right;
    const double da = box_distance_sq(nodes_[a], p);
    const double db = box_distance_sq(nodes_[b], p);
    if (da <= db) {
      stack[top++] = b;
      stack[top++] = a;
    } else {
      stack[top++] = a;
      stack[top++] = b;
    }
  }
  // Nothing nearer than the bound (it was not one): search again without it.
  if (best >= upper_bound && std::isfinite(upper_bound)) return distance(p);
  return best;
}

// ---------------------------------------------------------------- sign by ray parity

namespace {

// Offsets of the rays from the node lines, as fractions of a cell: small irrational numbers, so
// that a ray through a mesh laid out on round coordinates (a cube's edges on grid lines) does not
// run exactly through its edges and vertices.
constexpr double kJitterU = 1.4142135623730951e-5;
constexpr double kJitterV = 1.7320508075688772e-5;

// Adds, for every node, 1 when the ray from the node along +axis crosses the surface an odd number
// of times. The crossings of each line of nodes are found by scanning every triangle over the lines
// its projection covers (2D point-in-triangle by edge functions).
void add_parity_votes(const TriangleMesh& mesh, const Vec3& lo, double h,
                      const Eigen::Vector3i& dims, int axis, std::vector<std::uint8_t>& votes) {
  const int u = (axis + 1) % 3;
  const int v = (axis + 2) % 3;
  const int nu = dims[u];
  const int nv = dims[v];
  const double ju = kJitterU * h;
  const double jv = kJitterV * h;
  std::vector<std::vector<double>> crossings(static_cast<std::size_t>(nu) * nv);
  for (const auto& t : mesh.triangles) {
    const Vec3& a = mesh.vertices_m[t[0]];
    const Vec3& b = mesh.vertices_m[t[1]];
    const Vec3& c = mesh.vertices_m[t[2]];
    const double area = (b[u] - a[u]) * (c[v] - a[v]) - (b[v] - a[v]) * (c[u] - a[u]);
    if (area == 0.0) continue;  // seen edge-on: the ray crosses its neighbours instead
    const double umin = std::min({a[u], b[u], c[u]});
    const double umax = std::max({a[u], b[u], c[u]});
    const double vmin = std::min({a[v], b[v], c[v]});
    const double vmax = std::max({a[v], b[v], c[v]});
    const int iu0 = std::max(0, static_cast<int>(std::ceil((umin - lo[u] - ju) / h)));
    const int iu1 = std::min(nu - 1, static_cast<int>(std::floor((umax - lo[u] - ju) / h)));
    const int iv0 = std::max(0, static_cast<int>(std::ceil((vmin - lo[v] - jv) / h)));
    const int iv1 = std::min(nv - 1, static_cast<int>(std::floor((vmax - lo[v] - jv) / h)));
    for (int iv = iv0; iv <= iv1; ++iv) {
      const double qv = lo[v] + iv * h + jv;
      for (int iu = iu0; iu <= iu1; ++iu) {
        const double qu = lo[u] + iu * h + ju;
        auto edge = [&](const Vec3& s, const Vec3& e) {
          return (e[u] - s[u]) * (qv - s[v]) - (e[v] - s[v]) * (qu - s[u]);
        };
        const double wa = edge(b, c);
        const double wb = edge(c, a);
        const double wc = edge(a, b);
        const bool inside = area > 0.0 ? (wa >= 0.0 && wb >= 0.0 && wc >= 0.0)
                                       : (wa <= 0.0 && wb <= 0.0 && wc <= 0.0);
        if (!inside) continue;
        const double s = (wa * a[axis] + wb * b[axis] + wc * c[axis]) / area;
        crossings[static_cast<std::size_t>(iv) * nu + iu].push_back(s);
      }
    }
  }
  for (int iv = 0; iv < nv; ++iv) {
    for (int iu = 0; iu < nu; ++iu) {
      auto& line = crossings[static_cast<std::size_t>(iv) * nu + iu];
      std::sort(line.begin(), line.end());
      std::size_t next = 0;  // crossings below the node are passed; those above count
      for (int ia = 0; ia < dims[axis]; ++ia) {
        const double s = lo[axis] + ia * h;
        while (next < line.size() && line[next] <= s) ++next;
        if ((line.size() - next) % 2 == 1) {
          Eigen::Vector3i ijk;
          ijk[axis] = ia;
          ijk[u] = iu;
          ijk[v] = iv;
          votes[(static_cast<std::size_t>(ijk.z()) * dims.y() + ijk.y()) * dims.x() + ijk.x()] += 1;
        }
      }
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- grid

std::shared_ptr<const MeshSdfGrid> MeshSdfGrid::build(TriangleMesh mesh, double cell_m,
                                                      double margin_m, const std::string& name) {
  if (!std::isfinite(cell_m) || cell_m <= 0.0) {
    throw std::invalid_argument(
        fmt::format("mesh {}: sdf cell size must be finite and > 0 m, got {}", name, cell_m));
  }
  require_closed(mesh, name);
  auto grid = std::shared_ptr<MeshSdfGrid>(new MeshSdfGrid());
  grid->mesh_ = std::move(mesh);
  grid->mesh_bounds_ = grid->mesh_.bounds();
  const double margin = margin_m < 0.0 ? 2.0 * cell_m : margin_m;
  const Vec3 lo = grid->mesh_bounds_[0] - Vec3::Constant(margin);
  const Vec3 extent = grid->mesh_bounds_[1] + Vec3::Constant(margin) - lo;
  Eigen::Vector3i dims;
  double nodes = 1.0;
  for (int a = 0; a < 3; ++a) {
    const double n = std::ceil(extent[a] / cell_m) + 1.0;
    nodes *= n;
    if (nodes > static_cast<double>(1 << 28)) {
      throw std::invalid_argument(fmt::format(
          "mesh {}: sdf cell size {} m gives more than 2^28 grid nodes over a {:.4g} x {:.4g} x "
          "{:.4g} m box; choose a larger cell",
          name, cell_m, extent.x(), extent.y(), extent.z()));
    }
    dims[a] = static_cast<int>(n);
  }
  grid->lo_ = lo;
  grid->cell_ = cell_m;
  grid->dims_ = dims;
  const std::size_t count = static_cast<std::size_t>(dims.x()) * dims.y() * dims.z();

  std::vector<std::uint8_t> votes(count, 0);
  for (int axis = 0; axis < 3; ++axis) {
    add_parity_votes(grid->mesh_, lo, cell_m, dims, axis, votes);
  }

  const TriangleBvh bvh(grid->mesh_);
  grid->values_.resize(count);
  float* values = grid->values_.data();
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < dims.z(); ++k) {
    for (int j = 0; j < dims.y(); ++j) {
      // Along a row, the distance grows by at most the cell size from node to node (1-Lipschitz):
      // the previous node's distance bounds the search for the next.
      double previous = std::numeric_limits<double>::infinity();
      for (int i = 0; i < dims.x(); ++i) {
        const std::size_t id = (static_cast<std::size_t>(k) * dims.y() + j) * dims.x() + i;
        const double d =
            bvh.distance(lo + cell_m * Vec3(i, j, k), previous + cell_m * (1.0 + 1e-9));
        previous = d;
        values[id] = static_cast<float>(votes[id] >= 2 ? -d : d);
      }
    }
  }
  return grid;
}

double MeshSdfGrid::interpolate(const Vec3& q, Vec3* gradient) const {
  const Vec3 s = (q - lo_) / cell_;
  int c[3];
  double f[3];
  for (int a = 0; a < 3; ++a) {
    const int last_cell = dims_[a] - 2;
    c[a] = std::clamp(static_cast<int>(std::floor(s[a])), 0, last_cell);
    f[a] = std::clamp(s[a] - c[a], 0.0, 1.0);
  }
  const std::size_t sx = 1;
  const auto sy = static_cast<std::size_t>(dims_.x());
  const std::size_t sz = sy * static_cast<std::size_t>(dims_.y());
  const float* p = values_.data() + index(c[0], c[1], c[2]);
  const double v000 = p[0], v100 = p[sx], v010 = p[sy], v110 = p[sx + sy];
  const double v001 = p[sz], v101 = p[sx + sz], v011 = p[sy + sz], v111 = p[sx + sy + sz];
  const double x = f[0], y = f[1], z = f[2];
  // Along x first, then y, then z.
  const double v00 = v000 + x * (v100 - v000);
  const double v10 = v010 + x * (v110 - v010);
  const double v01 = v001 + x * (v101 - v001);
  const double v11 = v011 + x * (v111 - v011);
  const double v0 = v00 + y * (v10 - v00);
  const double v1 = v01 + y * (v11 - v01);
  if (gradient != nullptr) {
    const double dx0 = (1 - y) * (v100 - v000) + y * (v110 - v010);
    const double dx1 = (1 - y) * (v101 - v001) + y * (v111 - v011);
    (*gradient) =
        Vec3((1 - z) * dx0 + z * dx1, (1 - z) * (v10 - v00) + z * (v11 - v01), v1 - v0) / cell_;
  }
  return v0 + z * (v1 - v0);
}

double MeshSdfGrid::distance(const Vec3& p_B) const {
  const Vec3 q = p_B.cwiseMax(lo_).cwiseMin(grid_hi());
  const double d = interpolate(q, nullptr);
  const double e2 = (p_B - q).squaredNorm();
  if (e2 == 0.0) return d;
  return std::sqrt(e2 + d * d);
}

Vec3 MeshSdfGrid::normal(const Vec3& p_B) const {
  const Vec3 q = p_B.cwiseMax(lo_).cwiseMin(grid_hi());
  Vec3 g;
  const double d = interpolate(q, &g);
  const Vec3 e = p_B - q;
  if (e.squaredNorm() > 0.0) {
    // Gradient of sqrt(|e|^2 + d(q)^2): e moves freely, q follows p only along the box faces.
    for (int a = 0; a < 3; ++a) {
      if (e[a] != 0.0) g[a] = 0.0;
    }
    g = e + d * g;
  }
  const double n = g.norm();
  return n > 0.0 ? Vec3(g / n) : Vec3(Vec3::UnitZ());
}

}  // namespace talus
