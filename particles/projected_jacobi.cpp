#include "particles/projected_jacobi.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "particles/projected_jacobi_rotating.hpp"
#include "particles/projected_jacobi_slots.hpp"

namespace talus::particles {
namespace {

using Float4 = float __attribute__((vector_size(16)));
using Float8 = float __attribute__((vector_size(32)));

/// The contact rows as the solver walks them: row i's slots are [start[i], end[i]), slot k's
/// partner particle is partner[k] (< 0: a wall or body).
struct ContactRows {
  const std::int32_t* start;
  const std::int32_t* end;
  const std::int32_t* partner;
};

/// The computed slots' list (ContactList::own_*): per entry the slot, its row, its partner and
/// the pair's mirror slot in the partner's row (-1 for a wall or body).
struct OwnSlotList {
  std::int32_t* slot;
  std::int32_t* row;
  std::int32_t* partner;
  std::int32_t* mirror;
};

/// What one thread's list_own_slots found: its part of the list, [begin, end), and the checks
/// that every pair is listed in both rows.
struct OwnSlots {
  std::int64_t begin = 0, end = 0;
  bool unpaired = false;
  /// Pairs across chunks found by this thread's scans minus those its cursors skipped; the sum
  /// over the threads is 0 when every such pair is in both rows.
  std::int64_t cross_chunk_balance = 0;
};

/// The computed slots' list: at most one entry per slot (each thread's entries start at its first
/// row's first slot, so the threads' parts never overlap), with room for every slot.
OwnSlotList own_slot_list(ContactList& contacts, std::size_t n) {
  const std::size_t slots = contacts.partner.size();
  contacts.own_slot.resize(slots);
  contacts.own_row.resize(slots);
  contacts.own_partner.resize(slots);
  contacts.own_mirror.resize(slots);
  contacts.pair_cursor.resize(n);
  return {contacts.own_slot.data(), contacts.own_row.data(), contacts.own_partner.data(),
          contacts.own_mirror.data()};
}

/// Once per step, for rows [lo, hi) of one thread: the list of slots this thread computes, with
/// their rows, partners and the pairs' mirror slots. A pair (i, j), i < j, is computed in row i
/// only; its copy in row j (canonical order: found among the first slots of that row) receives
/// the negated impulse. The other copy's value is exactly what row j would have computed itself
/// (the two copies evaluate the same expressions with negated vectors, see solve_slots), so the
/// results are those of the per-row solve at half the arithmetic. Each mirror slot is written by
/// one row only.
///
/// The mirror slot is found by a cursor per row: row j's lower partners i < j come first, by
/// increasing i, and this thread meets its pairs (i, j) by increasing i, so for j in its own
/// chunk the next unmatched lower-partner slot of row j (starting after partners of earlier
/// chunks) is the mirror. Only a partner in a later chunk (near the chunk boundary) is found
/// by scanning its row. A search of row j for every pair was ~1/4 of the solve.
///
/// A pair listed in one row only (a detection bug) is refused, whichever row lacks it: a
/// cursor or scan that does not land on i; a cursor left on a lower partner that never came;
/// and, across chunks, a count: every pair whose rows lie in different chunks is skipped once
/// by the higher row's cursor and found once by the lower row's scan.
OwnSlots list_own_slots(const ContactRows& rows, std::int64_t lo, std::int64_t hi,
                        std::int32_t* cursor, const OwnSlotList& own) {
  const std::int32_t* start = rows.start;
  const std::int32_t* row_end = rows.end;
  const std::int32_t* partner = rows.partner;
  OwnSlots out;
  std::int64_t skipped_from_earlier_chunks = 0;
  std::int64_t found_in_later_chunks = 0;
  for (std::int64_t j = lo; j < hi; ++j) {
    std::int32_t m = start[j];
    while (m < row_end[j] && partner[m] >= 0 && partner[m] < lo) ++m;
    skipped_from_earlier_chunks += m - start[j];
    cursor[j] = m;
  }
  out.begin = lo < hi ? start[lo] : 0;
  std::int64_t list_end = out.begin;
  for (std::int64_t i = lo; i < hi; ++i) {
    std::int32_t k = start[i];
    const std::int32_t end = row_end[i];
    while (k < end && partner[k] >= 0 && partner[k] < i) ++k;
    for (; k < end; ++k) {
      const std::int32_t j = partner[k];
      std::int32_t m = -1;
      if (j >= 0) {
        if (j < hi) {
          m = cursor[j]++;
        } else {
          m = start[j];
          while (m < row_end[j] && partner[m] != i) ++m;
          ++found_in_later_chunks;
        }
        if (m >= row_end[j] || partner[m] != i) {
          out.unpaired = true;
          continue;
        }
      }
      own.slot[list_end] = k;
      own.row[list_end] = static_cast<std::int32_t>(i);
      own.partner[list_end] = j;
      own.mirror[list_end] = m;
      ++list_end;
    }
  }
  for (std::int64_t j = lo; j < hi; ++j) {
    const std::int32_t m = cursor[j];
    if (m < row_end[j] && partner[m] >= 0 && partner[m] < j) out.unpaired = true;
  }
  out.end = list_end;
  out.cross_chunk_balance = found_in_later_chunks - skipped_from_earlier_chunks;
  return out;
}

/// A range [begin, end) of the computed slots' list.
struct OwnRange {
  std::int64_t begin = 0, end = 0;
};

/// The fewest computed slots for which the sweeps' passes are cut into claimed parts: below it one
/// part per thread, its own. A small solve's records stay in the cores' caches from pass to pass
/// and sweep to sweep, and a claimed part moves them to the other core: Bulldozing-v0's push
/// (about 17,000 entries) took 8-10 % longer in its solve with claimed parts (four alternated
/// pairs), the 10,000-grain column (about 43,000) within the noise, the 50,000-grain column
/// (about 250,000, beyond the caches) 10 % less where one core ran slow.
constexpr std::int64_t kClaimedPartsMinEntries = 100000;

/// The entries [from, to) of the computed slots' list, counted across the threads' parts
/// (own_begin[u], own_end[u]) in thread order, as ranges of list positions.
std::vector<OwnRange> own_ranges(const std::vector<std::int64_t>& own_begin,
                                 const std::vector<std::int64_t>& own_end, std::int64_t from,
                                 std::int64_t to) {
  std::vector<OwnRange> parts;
  std::int64_t before = 0;  // list entries in the parts before part u
  for (std::size_t u = 0; u < own_begin.size(); ++u) {
    const std::int64_t length = own_end[u] - own_begin[u];
    const std::int64_t lo = std::max(from, before), hi = std::min(to, before + length);
    if (lo < hi) parts.push_back({own_begin[u] + lo - before, own_begin[u] + hi - before});
    before += length;
  }
  return parts;
}

/// Pass 1's shares: `parts` equal parts of the computed slots' list, taken across the threads'
/// parts in thread order; the threads claim them as they come free (ChunkClaims), their own run
/// first. The rows' chunks balance every slot of a row (pass 2's work), but a pair is computed in
/// its lower particle's row only, so the chunk of lower indices held 58 % of pass 1's entries in
/// Bulldozing-v0's push (its thread computed 1.6 x the other's): hence equal parts of the list.
/// And equal parts are not equal times: on a 2-core AMD EPYC (family 26 model 2) the master
/// thread took 1.6 x the other's time for the same entries of the 50k column, whichever half it
/// had, and the other waited at the barrier 5 of the step's 28 ms. Each entry is computed alike
/// wherever it falls (the 8-lane and the scalar forms give the same bits,
/// projected_jacobi_slots.hpp), so no split or claim order changes a result.
std::vector<std::vector<OwnRange>> pass1_parts(const std::vector<std::int64_t>& own_begin,
                                               const std::vector<std::int64_t>& own_end,
                                               int parts) {
  std::int64_t total = 0;
  for (std::size_t u = 0; u < own_begin.size(); ++u) total += own_end[u] - own_begin[u];
  // Entry `at` of the concatenated list moved back to a whole number of 8-lane blocks from the
  // start of its thread's part, so that a cut leaves no scalar tail inside a part.
  auto block_aligned = [&](std::int64_t at) {
    std::int64_t before = 0;
    for (std::size_t u = 0; u < own_begin.size(); ++u) {
      const std::int64_t length = own_end[u] - own_begin[u];
      if (at < before + length) return before + (at - before) / 8 * 8;
      before += length;
    }
    return total;
  };
  std::vector<std::vector<OwnRange>> out(static_cast<std::size_t>(parts));
  for (int c = 0; c < parts; ++c) {
    out[static_cast<std::size_t>(c)] =
        own_ranges(own_begin, own_end, block_aligned(total * c / parts),
                   block_aligned(total * (c + 1) / parts));
  }
  return out;
}

/// What sum_rows reads besides the rows: the slots' impulses and normal/gap records, the
/// particles' unconstrained velocities and inverse masses.
struct RowSumInputs {
  const float* impulse;
  const float* normal_gap;
  const float* vpx;
  const float* vpy;
  const float* vpz;
  const float* inv_mass;
};

/// Pass 2 for particles [lo, hi): each particle's sums over its whole row, from iterate record a
/// into its next iterate record b.
void sum_rows(const ContactRows& rows, const RowSumInputs& in, const float* a, float* b,
              std::int64_t lo, std::int64_t hi) {
  constexpr std::size_t R = kSlotStride;
  constexpr std::size_t S = kIterateStride;
  const float* impulse = in.impulse;
  const float* normal_gap = in.normal_gap;
  const float* inv_mass = in.inv_mass;
  for (std::int64_t i = lo; i < hi; ++i) {
    // Slot records as GCC/Clang vector types (AVX on x86, two NEON registers on ARM, scalar
    // code elsewhere; no library offers less), two records per 8-lane vector: lanes 0-2 of
    // each half of `impulse_pairs` sum lambda and of `pushout_pairs` p n (lane 3 unused).
    // The row is summed as (sum of its even slots + sum of its odd slots), plus the last
    // slot when the count is odd: a fixed order (the row's contents decide it, never the
    // threads) with two independent chains, where one sequential sum waited on the adder's
    // latency at every slot.
    Float8 impulse_pairs = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    Float8 pushout_pairs = impulse_pairs;
    const std::int32_t end = rows.end[i];
    std::int32_t k = rows.start[i];
    for (; k + 2 <= end; k += 2) {
      Float8 lk, ngk;
      std::memcpy(&lk, impulse + static_cast<std::size_t>(k) * R, sizeof lk);
      std::memcpy(&ngk, normal_gap + static_cast<std::size_t>(k) * R, sizeof ngk);
      impulse_pairs += lk;
      pushout_pairs += __builtin_shufflevector(lk, lk, 3, 3, 3, 3, 7, 7, 7, 7) * ngk;
    }
    Float4 impulse_sum = __builtin_shufflevector(impulse_pairs, impulse_pairs, 0, 1, 2, 3) +
                         __builtin_shufflevector(impulse_pairs, impulse_pairs, 4, 5, 6, 7);
    Float4 pushout_sum = __builtin_shufflevector(pushout_pairs, pushout_pairs, 0, 1, 2, 3) +
                         __builtin_shufflevector(pushout_pairs, pushout_pairs, 4, 5, 6, 7);
    if (k < end) {
      Float4 lk, ngk;
      std::memcpy(&lk, impulse + static_cast<std::size_t>(k) * R, sizeof lk);
      std::memcpy(&ngk, normal_gap + static_cast<std::size_t>(k) * R, sizeof ngk);
      impulse_sum += lk;
      pushout_sum += lk[3] * ngk;
    }
    const float sx = impulse_sum[0], sy = impulse_sum[1], sz = impulse_sum[2];
    const float px = pushout_sum[0], py = pushout_sum[1], pz = pushout_sum[2];
    const float* ai = a + static_cast<std::size_t>(i) * S;
    float* bi = b + static_cast<std::size_t>(i) * S;
    // The average of the particle's split sub-velocities (mass splitting).
    bi[kIterW] = in.vpx[i] + inv_mass[i] * sx;
    bi[kIterW + 1] = in.vpy[i] + inv_mass[i] * sy;
    bi[kIterW + 2] = in.vpz[i] + inv_mass[i] * sz;
    bi[kIterSplit] = ai[kIterSplit];
    bi[kIterS] = inv_mass[i] * px;
    bi[kIterS + 1] = inv_mass[i] * py;
    bi[kIterS + 2] = inv_mass[i] * pz;
    bi[kIterS + 3] = 0.0f;
  }
}

/// Pass 2's angular part for rotating grains, particles [lo, hi): each particle's angular iterate
/// om_i = om_i* + I_i^-1 sum_c (eta_c - l_c n_c x lambda_c) over its whole row, in row order, from
/// record a (its radius) into record b; l_c is the slot's lever arm (contact_lever).
void sum_spin_rows(const ContactRows& rows, const RowSumInputs& in, const float* rolling,
                   const SpinSolve& spin, const float* a, float* b, std::int64_t lo,
                   std::int64_t hi) {
  constexpr std::size_t R = kSlotStride;
  for (std::int64_t i = lo; i < hi; ++i) {
    const float* ai = a + static_cast<std::size_t>(i) * kSpinStride;
    const float r = ai[kSpinRadius];
    float tx = 0.0f, ty = 0.0f, tz = 0.0f;
    for (std::int32_t k = rows.start[i]; k < rows.end[i]; ++k) {
      const float* n = in.normal_gap + static_cast<std::size_t>(k) * R;
      const float* l = in.impulse + static_cast<std::size_t>(k) * R;
      const float* e = rolling + static_cast<std::size_t>(k) * R;
      const float lever = contact_lever(r, n[3], rows.partner[k] >= 0);
      tx += e[0] - lever * (n[1] * l[2] - n[2] * l[1]);
      ty += e[1] - lever * (n[2] * l[0] - n[0] * l[2]);
      tz += e[2] - lever * (n[0] * l[1] - n[1] * l[0]);
    }
    const float inv_inertia = inverse_inertia(in.inv_mass[i], r);
    float* bi = b + static_cast<std::size_t>(i) * kSpinStride;
    bi[0] = spin.wx[i] + inv_inertia * tx;
    bi[1] = spin.wy[i] + inv_inertia * ty;
    bi[2] = spin.wz[i] + inv_inertia * tz;
    bi[kSpinRadius] = r;
  }
}

/// Appends each sweep's largest impulse change over the threads to residual (max is order
/// independent: deterministic for any thread count).
void append_residuals(const std::vector<float>& change, int iterations, int max_team,
                      std::vector<double>& residual) {
  for (int it = 0; it < iterations; ++it) {
    float sweep = 0.0f;
    for (int t = 0; t < max_team; ++t) {
      sweep = std::max(sweep, change[static_cast<std::size_t>(it) * max_team + t]);
    }
    residual.push_back(sweep);
  }
}

}  // namespace

int solve_projected_jacobi(const ParticleModel& model, const float* inv_mass, const float* vpx,
                           const float* vpy, const float* vpz, std::vector<float> (&iterate)[2],
                           ContactList& contacts, std::size_t n, int iterations, double relaxation,
                           std::vector<double>& residual, int threads, const SpinSolve* spin) {
  const auto count = static_cast<std::int64_t>(n);
  const float omega = static_cast<float>(relaxation);
  // Target and push-out speeds from the stored gap, the same expressions the detection pass used
  // to store (docs/particles.md §2): one array read per slot instead of two.
  const float inv_dt = static_cast<float>(1.0 / model.time_step_s);
  const float alpha = static_cast<float>(model.baumgarte);
  const float max_pushout = static_cast<float>(std::min(model.max_pushout_speed_m_per_s, 1e30));
  const float mu_particle = static_cast<float>(model.friction);
  const ContactRows rows{contacts.start.data(), contacts.end.data(), contacts.partner.data()};
  // Slot records of kSlotStride floats (particle_contacts.hpp).
  const float* normal_gap = contacts.normal_gap.data();
  const float* surface = contacts.surface.data();
  float* impulse = contacts.impulse.data();
  const OwnSlotList own = own_slot_list(contacts, n);
  std::int32_t* cursor = contacts.pair_cursor.data();
  const RowSumInputs row_inputs{impulse, normal_gap, vpx, vpy, vpz, inv_mass};
  float* buffers[2] = {iterate[0].data(), iterate[1].data()};

  // Per sweep and thread: the largest impulse change.
  const int max_team = std::max(threads, 1);
  std::vector<float> change(static_cast<std::size_t>(std::max(iterations, 0)) * max_team, 0.0f);
  std::vector<std::int64_t> uniform;
  const std::span<const std::int64_t> chunk = chunks_for(&contacts, n, max_team, uniform);
  std::atomic<bool> unpaired{false};
  std::atomic<std::int64_t> cross_chunk_balance{0};
  // Each thread's part of the computed slots' list, [begin, end) in list positions.
  std::vector<std::int64_t> own_begin(static_cast<std::size_t>(max_team), 0);
  std::vector<std::int64_t> own_end(static_cast<std::size_t>(max_team), 0);
  // Both passes of a sweep are cut into `parts` pieces that the threads claim as they come free
  // (ChunkClaims: their own run first, so that balanced threads keep the rows they listed and sum
  // in their caches): pass 1 into equal parts of the computed slots' list (pass1_parts), pass 2
  // into the detection pass's chunks of rows (about equal work). A flag per piece, pass and sweep.
  const int parts = detection_chunk_count(max_team);
  std::vector<std::int64_t> uniform_rows;
  const std::span<const std::int64_t> row_parts =
      contacts.particles() == n &&
              contacts.detection_bounds.size() == static_cast<std::size_t>(parts) + 1
          ? std::span<const std::int64_t>(contacts.detection_bounds)
          : chunks_for(nullptr, n, parts, uniform_rows);
  std::vector<std::atomic<bool>> claimed(static_cast<std::size_t>(std::max(iterations, 0)) * 2 *
                                         static_cast<std::size_t>(parts));
  std::vector<std::vector<OwnRange>> pass1;
  std::span<const std::int64_t> rows_of_part;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    // Each thread lists the pairs of its chunk of rows (about equal work, balanced_chunks), or of
    // an even split when OpenMP gave a different team size.
    const int team = omp_get_num_threads();
    const std::int64_t lo = team == max_team ? chunk[t] : count * t / team;
    const std::int64_t hi = team == max_team ? chunk[t + 1] : count * (t + 1) / team;
    const OwnSlots mine = list_own_slots(rows, lo, hi, cursor, own);
    if (mine.unpaired) unpaired.store(true, std::memory_order_relaxed);
    cross_chunk_balance.fetch_add(mine.cross_chunk_balance, std::memory_order_relaxed);
    own_begin[static_cast<std::size_t>(t)] = mine.begin;
    own_end[static_cast<std::size_t>(t)] = mine.end;
#pragma omp barrier
#pragma omp single
    {
      std::int64_t entries = 0;
      for (int u = 0; u < max_team; ++u) entries += own_end[u] - own_begin[u];
      if (entries >= kClaimedPartsMinEntries) {
        pass1 = pass1_parts(own_begin, own_end, parts);
        rows_of_part = row_parts;
      } else {  // one part per thread, its own: the static split
        pass1 = pass1_parts(own_begin, own_end, max_team);
        rows_of_part = chunk;
      }
    }
    // (the single's implied barrier: every thread sees the parts)
    const int part_count = static_cast<int>(pass1.size());
    // Read after the pair pass's barrier: every thread sees the same values and skips the sweeps
    // together.
    const bool skip = unpaired.load(std::memory_order_relaxed) ||
                      cross_chunk_balance.load(std::memory_order_relaxed) != 0;
    const int claimant = team == max_team ? t : 0;
    const int claimants = team == max_team ? max_team : 1;
    int cur = 0;
    for (int it = 0; it < iterations && !skip; ++it) {
      const float* a = buffers[cur];
      float* b = buffers[1 - cur];
      std::atomic<bool>* flags = claimed.data() + static_cast<std::size_t>(it) * 2 * parts;
      // Pass 1: the new impulse of every contact, once (each pair in its lower particle's row),
      // in SIMD lanes where the target has them (projected_jacobi_slots.hpp).
      const SlotPass pass{a,       normal_gap,  surface,    impulse, own.slot,
                          own.row, own.partner, own.mirror, omega,   inv_dt,
                          alpha,   max_pushout, mu_particle};
      float sweep_change = 0.0f;
      const ChunkClaims pass1_claims{flags, part_count, claimant, claimants};
      for (int c = pass1_claims.next(); c >= 0; c = pass1_claims.next()) {
        for (const OwnRange& r : pass1[static_cast<std::size_t>(c)]) {
          const float change_r =
              spin != nullptr
                  ? solve_slots_rotating(pass,
                                         SpinPass{spin->iterate[cur], contacts.rolling.data(),
                                                  spin->body_omega, spin->rolling_friction},
                                         r.begin, r.end)
                  : solve_slots(pass, r.begin, r.end);
          sweep_change = std::max(sweep_change, change_r);
        }
      }
      // Pass 2, after a barrier (every slot of the sweep is written): each particle's sums over
      // its whole row into its next iterate record.
#pragma omp barrier
      const ChunkClaims pass2_claims{flags + parts, part_count, claimant, claimants};
      for (int c = pass2_claims.next(); c >= 0; c = pass2_claims.next()) {
        const std::int64_t row_lo = rows_of_part[static_cast<std::size_t>(c)];
        const std::int64_t row_hi = rows_of_part[static_cast<std::size_t>(c) + 1];
        sum_rows(rows, row_inputs, a, b, row_lo, row_hi);
        if (spin != nullptr) {
          sum_spin_rows(rows, row_inputs, contacts.rolling.data(), *spin, spin->iterate[cur],
                        spin->iterate[1 - cur], row_lo, row_hi);
        }
      }
      change[static_cast<std::size_t>(it) * max_team + t] = sweep_change;
      cur = 1 - cur;
      // Every record of b is written before any thread reads it as a in the next sweep.
#pragma omp barrier
    }
  }
  if (unpaired.load() || cross_chunk_balance.load() != 0) {
    throw std::logic_error(
        "particle solver: a particle pair is in one particle's contact row but not in the "
        "other's (the detection pass must store both copies)");
  }
  append_residuals(change, iterations, max_team, residual);
  return iterations % 2;
}

}  // namespace talus::particles
