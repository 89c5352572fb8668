#include "scm/scm_state.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "scm/node_bands.hpp"

namespace talus::scm {

namespace {

std::size_t tile_offset(int i, int j) {
  return static_cast<std::size_t>(j % kTileNodes) * kTileNodes +
         static_cast<std::size_t>(i % kTileNodes);
}

// The per-node fields of a tile and of a block, listed once in the same order (that of the
// NodeField bits: the doubles, then the bytes), so gather and scatter copy every field and cannot
// drift apart when a field is added.
template <class Fields>
auto double_fields(Fields& f) {
  return std::array{&f.height_m,     &f.plastic_sinkage_m, &f.shear_x_m,    &f.shear_y_m,
                    &f.flow_vx,      &f.flow_vy,           &f.flow_vz,      &f.flow_depth_m,
                    &f.deposited_m3, &f.displaced_m3,      &f.peak_shear_m, &f.loose_layer_m};
}
template <class Fields>
auto byte_fields(Fields& f) {
  return std::array{&f.in_contact, &f.loosened};
}
constexpr std::size_t kDoubleFields = 12;  // NodeField's first bits; the byte fields follow
static_assert(std::tuple_size_v<decltype(double_fields(std::declval<NodeBlock&>()))> ==
              kDoubleFields);
static_assert(kAllNodeFields == (1u << (kDoubleFields + 2)) - 1);

}  // namespace

std::size_t bytes_per_node() {
  NodeBlock b;
  return double_fields(b).size() * sizeof(double) + byte_fields(b).size();
}

void NodeBlock::resize(int i0_, int j0_, int nx_, int ny_) {
  i0 = i0_;
  j0 = j0_;
  nx = nx_;
  ny = ny_;
  // Sizes only: ScmState::gather writes every value of every field, so zeroing here would be a
  // second full pass over the block each step.
  const std::size_t n = size();
  for (auto* v : double_fields(*this)) v->resize(n);
  for (auto* v : byte_fields(*this)) v->resize(n);
}

ScmState::ScmState(const ScmModel& model)
    : nx_(model.nx),
      ny_(model.ny),
      base_height_(model.base_height_m),
      base_image_(model.base_image_m) {}

const ScmTile* ScmState::find_tile(int ti, int tj) const {
  const auto it = index_.find(key(ti, tj));
  return it == index_.end() ? nullptr : &tiles_[static_cast<std::size_t>(it->second)];
}

std::vector<std::array<int, 2>> ScmState::tile_coordinates() const {
  std::vector<std::array<int, 2>> coords(tiles_.size());
  for (const auto& [k, slot] : index_) {
    coords[static_cast<std::size_t>(slot)] = {static_cast<int>(static_cast<std::int32_t>(k >> 32)),
                                              static_cast<int>(static_cast<std::int32_t>(k))};
  }
  return coords;
}

ScmTile* ScmState::allocated_tile(int ti, int tj) {
  // The non-const face of find_tile: this state is not const, so its tiles may be written.
  return const_cast<ScmTile*>(find_tile(ti, tj));
}

ScmTile& ScmState::tile(int ti, int tj) {
  const auto [it, inserted] = index_.try_emplace(key(ti, tj), static_cast<int>(tiles_.size()));
  if (inserted) {
    ScmTile t;
    for (auto* v : double_fields(t)) v->assign(kTileSize, 0.0);
    for (auto* v : byte_fields(t)) v->assign(kTileSize, 0);
    // Heights start as the base terrain (nodes past the map's edge in an edge tile stay unused).
    for (int b = 0; b < kTileNodes; ++b) {
      for (int a = 0; a < kTileNodes; ++a) {
        const int i = ti * kTileNodes + a, j = tj * kTileNodes + b;
        if (i < nx_ && j < ny_) {
          t.height_m[static_cast<std::size_t>(b * kTileNodes + a)] = base_height(i, j);
        }
      }
    }
    tiles_.push_back(std::move(t));
  }
  return tiles_[static_cast<std::size_t>(it->second)];
}

double ScmState::height(int i, int j) const {
  const ScmTile* t = find_tile(i / kTileNodes, j / kTileNodes);
  return t ? t->height_m[tile_offset(i, j)] : base_height(i, j);
}

double ScmState::plastic_sinkage(int i, int j) const {
  const ScmTile* t = find_tile(i / kTileNodes, j / kTileNodes);
  return t ? t->plastic_sinkage_m[tile_offset(i, j)] : 0.0;
}

// Gather and scatter copy whole row segments (one tile row at a time, every field): the block's
// row [ia, ib) of row j is contiguous both in the block and in the tile, so each field is a
// memcpy-like std::copy_n instead of a per-node loop with index arithmetic.
// A large block is copied in bands of its rows, one per thread (scm/node_bands.hpp): every node is
// copied from and to its own place, so the split cannot change a bit.
void ScmState::gather(NodeBlock& b, unsigned fields, std::size_t banded_min_nodes) const {
  for_node_bands(static_cast<std::size_t>(b.ny), b.size(), banded_min_nodes,
                 [&](std::size_t r0, std::size_t r1) {
                   gather_rows(b, fields, b.j0 + static_cast<int>(r0), b.j0 + static_cast<int>(r1));
                 });
}

void ScmState::gather_rows(NodeBlock& b, unsigned fields, int j_begin, int j_end) const {
  const int i1 = b.i0 + b.nx;
  auto block_doubles = double_fields(b);
  auto block_bytes = byte_fields(b);
  for (int tj = j_begin / kTileNodes; tj * kTileNodes < j_end; ++tj) {
    for (int ti = b.i0 / kTileNodes; ti * kTileNodes < i1; ++ti) {
      const ScmTile* t = find_tile(ti, tj);
      const int ia = std::max(b.i0, ti * kTileNodes), ib = std::min(i1, (ti + 1) * kTileNodes);
      const int ja = std::max(j_begin, tj * kTileNodes);
      const int jb = std::min(j_end, (tj + 1) * kTileNodes);
      const std::size_t run = static_cast<std::size_t>(ib - ia);
      for (int j = ja; j < jb; ++j) {
        const std::size_t k = b.index(ia, j);
        if (!t) {
          // Untouched soil: base terrain, every other quantity zero.
          for (std::size_t f = 0; f < block_doubles.size(); ++f) {
            if (fields & (1u << f)) std::fill_n(block_doubles[f]->begin() + k, run, 0.0);
          }
          for (std::size_t f = 0; f < block_bytes.size(); ++f) {
            if (fields & (1u << (kDoubleFields + f)))
              std::fill_n(block_bytes[f]->begin() + k, run, std::uint8_t{0});
          }
          if (fields & kHeight) {
            for (int i = ia; i < ib; ++i) b.height_m[b.index(i, j)] = base_height(i, j);
          }
          continue;
        }
        const std::size_t o = tile_offset(ia, j);
        const auto tile_doubles = double_fields(*t);
        const auto tile_bytes = byte_fields(*t);
        for (std::size_t f = 0; f < block_doubles.size(); ++f) {
          if (fields & (1u << f))
            std::copy_n(tile_doubles[f]->begin() + o, run, block_doubles[f]->begin() + k);
        }
        for (std::size_t f = 0; f < block_bytes.size(); ++f) {
          if (fields & (1u << (kDoubleFields + f)))
            std::copy_n(tile_bytes[f]->begin() + o, run, block_bytes[f]->begin() + k);
        }
      }
    }
  }
}

void ScmState::allocate_tiles(const IndexBox& box) {
  for (int tj = box.j0 / kTileNodes; tj * kTileNodes < box.j1; ++tj) {
    for (int ti = box.i0 / kTileNodes; ti * kTileNodes < box.i1; ++ti) tile(ti, tj);
  }
}

void ScmState::scatter(const NodeBlock& b, unsigned fields, std::size_t banded_min_nodes) {
  // The block's tiles are allocated first, on this thread: the bands then write into tiles that
  // exist, and the tile list does not grow (and move) while they hold pointers into it.
  allocate_tiles(IndexBox{b.i0, b.j0, b.i0 + b.nx, b.j0 + b.ny});
  for_node_bands(static_cast<std::size_t>(b.ny), b.size(), banded_min_nodes,
                 [&](std::size_t r0, std::size_t r1) {
                   scatter_rows(b, fields, b.j0 + static_cast<int>(r0),
                                b.j0 + static_cast<int>(r1));
                 });
}

void ScmState::scatter_rows(const NodeBlock& b, unsigned fields, int j_begin, int j_end) {
  const int i1 = b.i0 + b.nx;
  const auto block_doubles = double_fields(b);
  const auto block_bytes = byte_fields(b);
  for (int tj = j_begin / kTileNodes; tj * kTileNodes < j_end; ++tj) {
    for (int ti = b.i0 / kTileNodes; ti * kTileNodes < i1; ++ti) {
      ScmTile& t = *allocated_tile(ti, tj);
      auto tile_doubles = double_fields(t);
      auto tile_bytes = byte_fields(t);
      const int ia = std::max(b.i0, ti * kTileNodes), ib = std::min(i1, (ti + 1) * kTileNodes);
      const int ja = std::max(j_begin, tj * kTileNodes);
      const int jb = std::min(j_end, (tj + 1) * kTileNodes);
      const std::size_t run = static_cast<std::size_t>(ib - ia);
      for (int j = ja; j < jb; ++j) {
        const std::size_t k = b.index(ia, j);
        const std::size_t o = tile_offset(ia, j);
        for (std::size_t f = 0; f < block_doubles.size(); ++f) {
          if (fields & (1u << f))
            std::copy_n(block_doubles[f]->begin() + k, run, tile_doubles[f]->begin() + o);
        }
        for (std::size_t f = 0; f < block_bytes.size(); ++f) {
          if (fields & (1u << (kDoubleFields + f)))
            std::copy_n(block_bytes[f]->begin() + k, run, tile_bytes[f]->begin() + o);
        }
      }
    }
  }
}

void ScmState::zero_fields(const IndexBox& box, unsigned fields) {
  for (int tj = box.j0 / kTileNodes; tj * kTileNodes < box.j1; ++tj) {
    for (int ti = box.i0 / kTileNodes; ti * kTileNodes < box.i1; ++ti) {
      auto tile_doubles = double_fields(tile(ti, tj));
      const int ia = std::max(box.i0, ti * kTileNodes),
                ib = std::min(box.i1, (ti + 1) * kTileNodes);
      const int ja = std::max(box.j0, tj * kTileNodes),
                jb = std::min(box.j1, (tj + 1) * kTileNodes);
      for (int j = ja; j < jb; ++j) {
        const std::size_t o = tile_offset(ia, j);
        for (std::size_t f = 0; f < tile_doubles.size(); ++f) {
          if (fields & (1u << f))
            std::fill_n(tile_doubles[f]->begin() + o, static_cast<std::size_t>(ib - ia), 0.0);
        }
      }
    }
  }
}

double ScmState::largest_change_at_edge_m() const {
  double largest = 0.0;
  auto visit = [&](int i0, int j0, int width, int height) {
    NodeBlock edge;
    edge.resize(i0, j0, width, height);
    gather(edge, kHeight);
    for (int j = j0; j < j0 + height; ++j) {
      for (int i = i0; i < i0 + width; ++i) {
        largest = std::max(largest, std::abs(edge.height_m[edge.index(i, j)] - base_height(i, j)));
      }
    }
  };
  visit(0, 0, nx_, 1);
  visit(0, ny_ - 1, nx_, 1);
  visit(0, 0, 1, ny_);
  visit(nx_ - 1, 0, 1, ny_);
  return largest;
}

IndexBox ScmState::moved_nodes(double tolerance_m) const {
  // The whole map at once (once per run, for its pictures): untouched nodes gather as base.
  NodeBlock all;
  all.resize(0, 0, nx_, ny_);
  gather(all, kHeight);
  IndexBox moved{nx_, ny_, 0, 0};
  for (int j = 0; j < ny_; ++j) {
    for (int i = 0; i < nx_; ++i) {
      if (std::abs(all.height_m[all.index(i, j)] - base_height(i, j)) > tolerance_m) {
        moved = {std::min(moved.i0, i), std::min(moved.j0, j), std::max(moved.i1, i + 1),
                 std::max(moved.j1, j + 1)};
      }
    }
  }
  return moved;
}

}  // namespace talus::scm
