#include "particles/neighbour_list.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace talus::particles {
namespace {

// A refresh re-searches the particles that moved this fraction of the usable skin: after it no
// particle has moved more, so the next refresh waits until two moves sum to the skin again
// (half of it is then still to go). Fast grains are re-searched at every refresh, slow ones when
// their creep reaches it.
constexpr float kMoverFraction = 0.25f;

// The pair test every build and refresh applies: j is listed for i when their centres (the given
// positions, periodic minimum image) are closer than ri + rj + contact_margin + skin.
struct PairTest {
  const float* x;
  const float* y;
  const float* z;
  const float* r;
  float margin;  // contact margin + skin [m]
  MinimumImage image;

  bool listed(std::int64_t i, std::int32_t j) const {
    return within_reach(x[i], y[i], z[i], r[i], x[j], y[j], z[j], r[j]);
  }
  // The test on values: from the arrays (listed) or from copied records (search_row), the same
  // expression on the same floats.
  bool within_reach(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                    float rj) const {
    float d[3] = {xi - xj, yi - yj, zi - zj};
    image.apply(d);
    const float reach = ri + rj + margin;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
  }
};

// Floats per record of NeighbourList::search_records: x, y, z, r.
constexpr std::size_t kSearchRecord = 4;

// Copies the tested positions and radii into `records` in the dense hash's `sorted` order (see
// NeighbourList::search_records): a neighbourhood is a few runs of `sorted`, and reading each
// candidate's four values through its index costs four scattered loads. The copy is made for
// every search, a refresh of a few movers included: in Bulldozing-v0's push (350-4,100 movers a
// refresh) copying only for searches of 1/16 of the rows or more measured 0.160-0.168 ms of
// broadphase per step against 0.158-0.160 ms copying always (four alternated pairs).
void copy_search_records(const SpatialHash& hash, const PairTest& test, int threads,
                         std::vector<float>& records) {
  const auto count = static_cast<std::int64_t>(hash.sorted.size());
  records.resize(static_cast<std::size_t>(count) * kSearchRecord);
  float* out = records.data();
  const std::int32_t* sorted = hash.sorted.data();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int32_t j = sorted[k];
    float* rec = out + static_cast<std::size_t>(k) * kSearchRecord;
    rec[0] = test.x[j];
    rec[1] = test.y[j];
    rec[2] = test.z[j];
    rec[3] = test.r[j];
  }
}

// Writes particle i's partners (the pair test over the hash's 27 cells around i's cell) from
// buf[used] on, in increasing index (the detection pass's canonical row order: sorted cells
// deliver nearly sorted runs, the linked hash any order), growing buf as needed; returns the new
// used length. Each candidate is written unconditionally and kept by advancing the end: about 1
// in 6 candidates of the 27 cells is within reach, at random, and as a branch this mispredicted
// (a third of the search's samples in a profile of Bulldozing-v0's push). With `records` (a dense
// hash's copy_search_records) the candidates' values are read from them in sequence, through the
// same PairTest::within_reach.
std::size_t search_row(const SpatialHash& hash, const PairTest& test, const float* records,
                       std::int64_t i, std::vector<std::int32_t>& buf, std::size_t used) {
  const std::size_t first = used;
  std::int32_t* out = buf.data();
  std::size_t room = buf.size();
  auto make_room = [&](std::size_t more) {
    if (used + more <= room) return;  // rare: the buffer doubles
    buf.resize(2 * (used + more) + 64);
    out = buf.data();
    room = buf.size();
  };
  if (records != nullptr) {
    const float xi = test.x[i], yi = test.y[i], zi = test.z[i], ri = test.r[i];
    const std::int32_t* sorted = hash.sorted.data();
    hash.for_each_run_in_neighbourhood(
        hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t k0, std::int32_t k1) {
          make_room(static_cast<std::size_t>(k1 - k0));
          for (std::int32_t k = k0; k < k1; ++k) {
            const float* rec = records + static_cast<std::size_t>(k) * kSearchRecord;
            const std::int32_t j = sorted[k];
            out[used] = j;
            used += static_cast<std::size_t>(
                (j != i) & test.within_reach(xi, yi, zi, ri, rec[0], rec[1], rec[2], rec[3]));
          }
        });
  } else {
    hash.for_each_in_neighbourhood(hash.cx[i], hash.cy[i], hash.cz[i], [&](std::int32_t j) {
      make_room(1);
      out[used] = j;
      used += static_cast<std::size_t>((j != i) & test.listed(i, j));
    });
  }
  std::sort(out + first, out + used);
  return used;
}

// Searches the rows of `rows` particles, the k-th being particle_of(k), into CSR form: row k is
// partner[start[k], start[k + 1]). Each thread searches a contiguous range of rows into its own
// buffer; the buffers are concatenated in thread order, so the result does not depend on the
// thread count. `records` is scratch for a dense hash's copy_search_records.
template <class ParticleOf>
void search_rows(const SpatialHash& hash, const PairTest& test, std::int64_t rows,
                 ParticleOf particle_of, int threads, std::vector<float>& records,
                 std::vector<std::int64_t>& start, std::vector<std::int32_t>& partner) {
  start.resize(static_cast<std::size_t>(rows) + 1);
  const int team_size = std::max(threads, 1);
  if (hash.dense) copy_search_records(hash, test, threads, records);
  const float* copied = hash.dense ? records.data() : nullptr;
  std::vector<std::vector<std::int32_t>> found(static_cast<std::size_t>(team_size));
  std::vector<std::int64_t> offset(static_cast<std::size_t>(team_size) + 1, 0);
#pragma omp parallel num_threads(team_size)
  {
    const int t = omp_get_thread_num();
    const int team = omp_get_num_threads();
    const std::int64_t lo = rows * t / team;
    const std::int64_t hi = rows * (t + 1) / team;
    std::vector<std::int32_t>& mine = found[static_cast<std::size_t>(t)];
    mine.resize(static_cast<std::size_t>(hi - lo) * 16 + 64);
    std::size_t used = 0;
    for (std::int64_t k = lo; k < hi; ++k) {
      start[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(used);  // shifted below
      used = search_row(hash, test, copied, particle_of(k), mine, used);
    }
    mine.resize(used);
    offset[static_cast<std::size_t>(t) + 1] = static_cast<std::int64_t>(used);
#pragma omp barrier
#pragma omp single
    {
      for (int u = 0; u < team; ++u) {
        offset[static_cast<std::size_t>(u) + 1] += offset[static_cast<std::size_t>(u)];
      }
      partner.resize(static_cast<std::size_t>(offset[static_cast<std::size_t>(team)]));
      start[static_cast<std::size_t>(rows)] = offset[static_cast<std::size_t>(team)];
    }
    const std::int64_t shift = offset[static_cast<std::size_t>(t)];
    for (std::int64_t k = lo; k < hi; ++k) start[static_cast<std::size_t>(k)] += shift;
    std::copy(mine.begin(), mine.end(), partner.begin() + shift);
  }
}

// The squared move of particle i since its reference position (periodic minimum image).
float squared_move(const NeighbourList& list, const MinimumImage& image, const ParticleState& s,
                   std::int64_t i) {
  float d[3] = {s.x_m[i] - list.x0_m[i], s.y_m[i] - list.y0_m[i], s.z_m[i] - list.z0_m[i]};
  image.apply(d);
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

// The move [m] at which a particle is a mover (see kMoverFraction).
float mover_move_m(const NeighbourList& list, float skin_m) {
  return kMoverFraction * (skin_m - list.allowance_m);
}

}  // namespace

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

NeighbourListNeed neighbour_list_need(const NeighbourList& list, const ParticleModel& model,
                                      const ParticleState& state, float skin_m, int threads) {
  const std::size_t n = state.size();
  if (!list.built || list.particles() != n || list.skin_m != skin_m || skin_m <= 0.0f) {
    return NeighbourListNeed::kBuild;
  }
  const auto count = static_cast<std::int64_t>(n);
  const MinimumImage image(model);
  const float* r = state.radius_m.data();
  const float mover = mover_move_m(list, skin_m);
  const float mover2 = mover * mover;
  // The two largest squared moves (a multiset: the same for any split over threads).
  float first2 = 0.0f, second2 = 0.0f;
  std::int64_t movers = 0;
  bool rebuild = false;  // a radius changed or a move is not finite
#pragma omp parallel num_threads(threads) reduction(+ : movers) reduction(|| : rebuild)
  {
    float mine1 = 0.0f, mine2 = 0.0f;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const float m2 = squared_move(list, image, state, i);
      rebuild = rebuild || !std::isfinite(m2) || r[i] != list.radius0_m[i];
      movers += m2 >= mover2 ? 1 : 0;
      if (m2 > mine1) {
        mine2 = mine1;
        mine1 = m2;
      } else if (m2 > mine2) {
        mine2 = m2;
      }
    }
#pragma omp critical
    {
      for (const float m2 : {mine1, mine2}) {
        if (m2 > first2) {
          second2 = first2;
          first2 = m2;
        } else if (m2 > second2) {
          second2 = m2;
        }
      }
    }
  }
  if (rebuild) return NeighbourListNeed::kBuild;
  // Two particles that moved a and b since their references closed a listed-out pair's distance
  // by at most a + b: below the skin (less the allowance) no such pair can touch.
  if (std::sqrt(first2) + std::sqrt(second2) < skin_m - list.allowance_m) {
    return NeighbourListNeed::kNothing;
  }
  return 2 * movers > count ? NeighbourListNeed::kBuild : NeighbourListNeed::kRefresh;
}

void build_neighbour_list(NeighbourList& list, const SpatialHash& hash, const ParticleModel& model,
                          const ParticleState& state, float skin_m, int threads) {
  const std::size_t n = state.size();
  const auto count = static_cast<std::int64_t>(n);
  const PairTest test{state.x_m.data(),
                      state.y_m.data(),
                      state.z_m.data(),
                      state.radius_m.data(),
                      static_cast<float>(model.contact_margin_m) + skin_m,
                      MinimumImage(model)};

  search_rows(
      hash, test, count, [](std::int64_t i) { return i; }, threads, list.search_records, list.start,
      list.partner);
  list.x0_m = state.x_m;
  list.y0_m = state.y_m;
  list.z0_m = state.z_m;
  list.radius0_m = state.radius_m;
  list.skin_m = skin_m;
  const float max_r =
      n > 0 ? *std::max_element(state.radius_m.begin(), state.radius_m.end()) : 0.0f;
  list.max_radius_m = max_r;
  // The rounding allowance of the move test: float distances the build and the detection pass
  // compute are off by ~1e-7 of the reach; 1e-4 of the largest reach is ample.
  list.allowance_m = 1e-4f * (2.0f * max_r + test.margin);
  list.built = true;
  ++list.builds;
}

void refresh_neighbour_list(NeighbourList& list, SpatialHash& hash, const ParticleModel& model,
                            const ParticleState& state, float skin_m, int threads) {
  const std::size_t n = state.size();
  const auto count = static_cast<std::int64_t>(n);
  const MinimumImage image(model);
  const float mover = mover_move_m(list, skin_m);
  const float mover2 = mover * mover;

  // 1. The movers, ascending (mover_of: a particle's place among them, or -1), take their
  // current position as reference.
  std::vector<std::int32_t> mover_of(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) {
    mover_of[i] = squared_move(list, image, state, i) >= mover2 ? 0 : -1;
  }
  std::vector<std::int32_t> movers;
  for (std::int64_t i = 0; i < count; ++i) {
    if (mover_of[i] < 0) continue;
    mover_of[i] = static_cast<std::int32_t>(movers.size());
    movers.push_back(static_cast<std::int32_t>(i));
    list.x0_m[i] = state.x_m[i];
    list.y0_m[i] = state.y_m[i];
    list.z0_m[i] = state.z_m[i];
  }

  // 2. The movers' rows, searched in a hash of the reference positions.
  build_spatial_hash(hash, model.broadphase, make_cell_grid(model, list.max_radius_m, skin_m),
                     model.hash_table_factor, list.x0_m.data(), list.y0_m.data(), list.z0_m.data(),
                     n, threads);
  const PairTest test{list.x0_m.data(),
                      list.y0_m.data(),
                      list.z0_m.data(),
                      state.radius_m.data(),
                      static_cast<float>(model.contact_margin_m) + skin_m,
                      image};
  const auto mover_count = static_cast<std::int64_t>(movers.size());
  std::vector<std::int64_t> row_start;  // the movers' rows in `rows`, in mover order
  std::vector<std::int32_t> rows;
  search_rows(
      hash, test, mover_count, [&](std::int64_t m) { return movers[static_cast<std::size_t>(m)]; },
      threads, list.search_records, row_start, rows);

  // 3. The movers each non-mover gains, ascending: scattered in mover order.
  std::vector<std::int64_t> gained_start(n + 1, 0);
  for (const std::int32_t j : rows) {
    if (mover_of[static_cast<std::size_t>(j)] < 0) ++gained_start[static_cast<std::size_t>(j) + 1];
  }
  for (std::size_t i = 0; i < n; ++i) gained_start[i + 1] += gained_start[i];
  std::vector<std::int32_t> gained(static_cast<std::size_t>(gained_start[n]));
  {
    std::vector<std::int64_t> cursor(gained_start.begin(), gained_start.end() - 1);
    for (std::int64_t m = 0; m < mover_count; ++m) {
      for (std::int64_t a = row_start[static_cast<std::size_t>(m)];
           a < row_start[static_cast<std::size_t>(m) + 1]; ++a) {
        const auto j = static_cast<std::size_t>(rows[static_cast<std::size_t>(a)]);
        if (mover_of[j] < 0) gained[static_cast<std::size_t>(cursor[j]++)] = movers[m];
      }
    }
  }

  // 4. The new rows: a mover's searched row; a non-mover's old partners that are not movers,
  // merged with the movers it gained (both ascending, disjoint).
  auto kept_of = [&](std::int64_t i, auto&& f) {
    for (std::int64_t a = list.start[i]; a < list.start[i + 1]; ++a) {
      const std::int32_t j = list.partner[static_cast<std::size_t>(a)];
      if (mover_of[static_cast<std::size_t>(j)] < 0) f(j);
    }
  };
  std::vector<std::int64_t> start(n + 1, 0);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int32_t m = mover_of[i];
    std::int64_t length = 0;
    if (m >= 0) {
      length = row_start[static_cast<std::size_t>(m) + 1] - row_start[static_cast<std::size_t>(m)];
    } else {
      kept_of(i, [&](std::int32_t) { ++length; });
      length += gained_start[i + 1] - gained_start[i];
    }
    start[i + 1] = length;
  }
  for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<std::int32_t> partner(static_cast<std::size_t>(start[n]));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i) {
    std::int32_t* out = partner.data() + start[i];
    const std::int32_t m = mover_of[i];
    if (m >= 0) {
      std::copy(rows.begin() + row_start[static_cast<std::size_t>(m)],
                rows.begin() + row_start[static_cast<std::size_t>(m) + 1], out);
      continue;
    }
    const std::int32_t* g = gained.data() + gained_start[i];
    const std::int32_t* g_end = gained.data() + gained_start[i + 1];
    kept_of(i, [&](std::int32_t j) {
      while (g != g_end && *g < j) *out++ = *g++;
      *out++ = j;
    });
    std::copy(g, g_end, out);
  }
  list.start.swap(start);
  list.partner.swap(partner);
  ++list.refreshes;
}

}  // namespace talus::particles
