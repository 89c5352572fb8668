#include "particles/neighbour_list.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace talus::particles {

float neighbour_skin_m(const ParticleModel& model, float max_radius_m) {
  float skin = static_cast<float>(model.neighbour_skin_radii) * max_radius_m;
  if (model.periodic_axis >= 0 && skin > 0.0f) {
    const int a = model.periodic_axis;
    const double period = model.container.box.hi[a] - model.container.box.lo[a];
    // Three cells of 2 r + margin + skin must fit in the period (make_cell_grid's requirement).
    const double room = period / 3.0 - (2.0 * double(max_radius_m) + model.contact_margin_m);
    skin = static_cast<float>(std::clamp(room * 0.999, 0.0, double(skin)));
  }
  return skin;
}

bool neighbour_list_stale(const NeighbourList& list, const ParticleModel& model,
                          const ParticleState& state, float skin_m, int threads) {
  const std::size_t n = state.size();
  if (!list.built || list.particles() != n || list.skin_m != skin_m || skin_m <= 0.0f) return true;
  const auto count = static_cast<std::int64_t>(n);
  const MinimumImage image(model);
  const float* x = state.x_m.data();
  const float* y = state.y_m.data();
  const float* z = state.z_m.data();
  const float* r = state.radius_m.data();
  float max_move2 = 0.0f;
  bool radius_changed = false;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(max          \
                                                                         : max_move2) \
    reduction(||                                                                      \
              : radius_changed)
  for (std::int64_t i = 0; i < count; ++i) {
    float d[3] = {x[i] - list.x0_m[i], y[i] - list.y0_m[i], z[i] - list.z0_m[i]};
    image.apply(d);
    max_move2 = std::max(max_move2, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    radius_changed = radius_changed || r[i] != list.radius0_m[i];
  }
  // Two particles that each moved less than (skin - allowance) / 2 closed a listed-out pair's
  // distance by less than the skin (the radii are those of the build, or the list is stale).
  const float max_move = std::sqrt(max_move2);
  return radius_changed || !std::isfinite(max_move) || 2.0f * max_move >= skin_m - list.allowance_m;
}

void build_neighbour_list(NeighbourList& list, const SpatialHash& hash, const ParticleModel& model,
                          const ParticleState& state, float skin_m, int threads) {
  const std::size_t n = state.size();
  const auto count = static_cast<std::int64_t>(n);
  const float* x = state.x_m.data();
  const float* y = state.y_m.data();
  const float* z = state.z_m.data();
  const float* r = state.radius_m.data();
  const float margin = static_cast<float>(model.contact_margin_m) + skin_m;
  const MinimumImage image(model);

  list.start.resize(n + 1);
  std::int64_t* start = list.start.data();
  const int team_size = std::max(threads, 1);
  // Each thread lists a contiguous range of particles into its own buffer; the buffers are then
  // concatenated in thread order, so the list does not depend on the thread count.
  std::vector<std::vector<std::int32_t>> found(static_cast<std::size_t>(team_size));
  std::vector<std::int64_t> offset(static_cast<std::size_t>(team_size) + 1, 0);
#pragma omp parallel num_threads(team_size)
  {
    const int t = omp_get_thread_num();
    const int team = omp_get_num_threads();
    const std::int64_t lo = count * t / team;
    const std::int64_t hi = count * (t + 1) / team;
    std::vector<std::int32_t>& mine = found[static_cast<std::size_t>(t)];
    mine.clear();
    mine.reserve(static_cast<std::size_t>(hi - lo) * 16);
    for (std::int64_t i = lo; i < hi; ++i) {
      start[i] = static_cast<std::int64_t>(mine.size());  // local; shifted below
      const std::size_t first = mine.size();
      const float xi = x[i], yi = y[i], zi = z[i], ri = r[i];
      hash.for_each_in_neighbourhood(hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t j) {
        if (j == i) return;
        float d[3] = {xi - x[j], yi - y[j], zi - z[j]};
        image.apply(d);
        const float reach = ri + r[j] + margin;
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach) mine.push_back(j);
      });
      // Increasing partner index: the detection pass's canonical row order (sorted cells deliver
      // nearly sorted runs; the linked hash any order).
      std::sort(mine.begin() + static_cast<std::ptrdiff_t>(first), mine.end());
    }
    offset[static_cast<std::size_t>(t) + 1] = static_cast<std::int64_t>(mine.size());
#pragma omp barrier
#pragma omp single
    {
      for (int u = 0; u < team; ++u) {
        offset[static_cast<std::size_t>(u) + 1] += offset[static_cast<std::size_t>(u)];
      }
      list.partner.resize(static_cast<std::size_t>(offset[static_cast<std::size_t>(team)]));
      start[count] = offset[static_cast<std::size_t>(team)];
    }
    const std::int64_t shift = offset[static_cast<std::size_t>(t)];
    for (std::int64_t i = lo; i < hi; ++i) start[i] += shift;
    std::copy(mine.begin(), mine.end(), list.partner.begin() + shift);
  }
  list.x0_m = state.x_m;
  list.y0_m = state.y_m;
  list.z0_m = state.z_m;
  list.radius0_m = state.radius_m;
  list.skin_m = skin_m;
  // The rounding allowance of the staleness test: float distances the build and the detection
  // pass compute are off by ~1e-7 of the reach; 1e-4 of the largest reach is ample.
  const float max_r =
      n > 0 ? *std::max_element(state.radius_m.begin(), state.radius_m.end()) : 0.0f;
  list.allowance_m = 1e-4f * (2.0f * max_r + margin);
  list.built = true;
  ++list.builds;
}

}  // namespace talus::particles
