#include "particles/particle_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "particles/particle_contacts.hpp"

namespace talus::particles {
namespace {

// The 21 low bits of v spread to every third bit: one coordinate of a 3-D Morton key.
std::uint64_t spread_bits3(std::uint64_t v) {
  v &= 0x1fffffu;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

// The cell of coordinate v counted from lo in cells of edge `cell`, clamped to the key's 21 bits.
std::uint32_t cell_of(float v, float lo, float cell) {
  const float c = std::floor((v - lo) / cell);
  return static_cast<std::uint32_t>(std::clamp(c, 0.0f, float((1u << 21) - 1)));
}

// new_index[order[k]] = k; throws unless order is a permutation of 0 .. n-1.
std::vector<std::uint32_t> inverse_permutation(std::span<const std::uint32_t> order,
                                               std::size_t n) {
  if (order.size() != n) {
    throw std::invalid_argument(fmt::format(
        "reorder_particles: the order holds {} indices for {} particles", order.size(), n));
  }
  constexpr std::uint32_t kUnset = 0xffffffffu;
  std::vector<std::uint32_t> new_index(n, kUnset);
  for (std::size_t k = 0; k < n; ++k) {
    if (order[k] >= n || new_index[order[k]] != kUnset) {
      throw std::invalid_argument(fmt::format(
          "reorder_particles: order[{}] = {} is out of range or repeated (a permutation of 0 .. "
          "{} expected)",
          k, order[k], n - 1));
    }
    new_index[order[k]] = static_cast<std::uint32_t>(k);
  }
  return new_index;
}

template <class T>
void permute(std::vector<T>& values, std::span<const std::uint32_t> order) {
  std::vector<T> moved(values.size());
  for (std::size_t k = 0; k < order.size(); ++k) moved[k] = values[order[k]];
  values.swap(moved);
}

// Copies the kSlotStride floats of slot `from` of `in` to slot `to` of `out` (both the same
// per-slot array, or `in` empty).
void copy_record(const std::vector<float>& in, std::vector<float>& out, std::size_t from,
                 std::size_t to) {
  if (in.empty()) return;
  std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(from * kSlotStride), kSlotStride,
              out.begin() + static_cast<std::ptrdiff_t>(to * kSlotStride));
}

}  // namespace

std::uint64_t morton_key(std::uint32_t cx, std::uint32_t cy, std::uint32_t cz) {
  return spread_bits3(cx) | spread_bits3(cy) << 1 | spread_bits3(cz) << 2;
}

std::vector<std::uint32_t> spatial_order(const ParticleState& state, float cell_m) {
  if (!(cell_m > 0.0f) || !std::isfinite(cell_m)) {
    throw std::invalid_argument(fmt::format("spatial_order: cell_m = {} is not > 0", cell_m));
  }
  const std::size_t n = state.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  if (n == 0) return order;
  const float lo_x = *std::min_element(state.x_m.begin(), state.x_m.end());
  const float lo_y = *std::min_element(state.y_m.begin(), state.y_m.end());
  const float lo_z = *std::min_element(state.z_m.begin(), state.z_m.end());
  std::vector<std::uint64_t> key(n);
  for (std::size_t i = 0; i < n; ++i) {
    key[i] = morton_key(cell_of(state.x_m[i], lo_x, cell_m), cell_of(state.y_m[i], lo_y, cell_m),
                        cell_of(state.z_m[i], lo_z, cell_m));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
  return order;
}

ContactList reordered_contacts(const ContactList& contacts, std::span<const std::uint32_t> order,
                               std::span<const std::uint32_t> new_index) {
  const std::size_t n = order.size();
  if (contacts.particles() != n || new_index.size() != n) {
    throw std::invalid_argument(fmt::format(
        "reordered_contacts: a list of {} rows and {} new indices for an order of {} particles",
        contacts.particles(), new_index.size(), n));
  }
  ContactList out;
  out.start.resize(n);
  out.end.resize(n);
  std::int64_t slots = 0;
  for (std::size_t i = 0; i < n; ++i) slots += contacts.slots(i);
  const auto total = static_cast<std::size_t>(slots);
  out.partner.resize(total);
  const bool rolling = !contacts.rolling.empty();
  for (auto* a : {&out.normal_gap, &out.surface, &out.impulse}) a->resize(total * kSlotStride);
  out.rolling.resize(rolling ? total * kSlotStride : 0);
  // A row's slots with their renumbered partners, sorted into canonical order (rows hold a
  // dozen slots: a sort per row is cheap, and the sort is occasional).
  std::vector<std::pair<std::uint32_t, std::int32_t>> row;
  std::int32_t next = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t i = order[k];
    row.clear();
    for (std::int32_t s = contacts.start[i]; s < contacts.end[i]; ++s) {
      const std::int32_t p = contacts.partner[s];
      const std::int32_t renumbered = p >= 0 ? static_cast<std::int32_t>(new_index[p]) : p;
      row.emplace_back(partner_key(renumbered), s);
    }
    std::sort(row.begin(), row.end());
    out.start[k] = next;
    for (const auto& [key, s] : row) {
      const std::int32_t p = contacts.partner[s];
      out.partner[next] = p >= 0 ? static_cast<std::int32_t>(new_index[p]) : p;
      const auto from = static_cast<std::size_t>(s), to = static_cast<std::size_t>(next);
      copy_record(contacts.normal_gap, out.normal_gap, from, to);
      copy_record(contacts.surface, out.surface, from, to);
      copy_record(contacts.impulse, out.impulse, from, to);
      if (rolling) copy_record(contacts.rolling, out.rolling, from, to);
      ++next;
    }
    out.end[k] = next;
  }
  out.used_slots = slots;
  return out;
}

void reorder_particles(ParticleState& state, std::span<const std::uint32_t> order) {
  const std::size_t n = state.size();
  const std::vector<std::uint32_t> new_index = inverse_permutation(order, n);
  const auto values = float_arrays(state);
  for (const auto* a : values) {
    if (a->size() != n) {
      throw std::invalid_argument("reorder_particles: the per-particle arrays differ in length");
    }
  }
  for (auto* a : values) permute(*a, order);
  if (state.id.empty()) {
    state.id.resize(n);
    std::iota(state.id.begin(), state.id.end(), std::uint32_t{0});
  }
  permute(state.id, order);
  state.contacts = state.contacts.particles() == n
                       ? reordered_contacts(state.contacts, order, new_index)
                       : ContactList{};
}

}  // namespace talus::particles
