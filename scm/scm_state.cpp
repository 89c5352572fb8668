#include "scm/scm_state.hpp"

#include <algorithm>

namespace talus::scm {

namespace {

constexpr std::size_t kDoubleFields = 11;
constexpr std::size_t kByteFields = 2;

std::size_t tile_offset(int i, int j) {
  return static_cast<std::size_t>(j % kTileNodes) * kTileNodes +
         static_cast<std::size_t>(i % kTileNodes);
}

}  // namespace

std::size_t bytes_per_node() { return kDoubleFields * sizeof(double) + kByteFields; }

void NodeBlock::resize(int i0_, int j0_, int nx_, int ny_) {
  i0 = i0_;
  j0 = j0_;
  nx = nx_;
  ny = ny_;
  const std::size_t n = size();
  for (auto* v : {&height_m, &plastic_sinkage_m, &shear_x_m, &shear_y_m, &flow_vx, &flow_vy,
                  &flow_vz, &flow_depth_m, &deposited_m3, &displaced_m3, &peak_shear_m}) {
    v->assign(n, 0.0);
  }
  in_contact.assign(n, 0);
  loosened.assign(n, 0);
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

ScmTile& ScmState::tile(int ti, int tj) {
  const auto [it, inserted] = index_.try_emplace(key(ti, tj), static_cast<int>(tiles_.size()));
  if (inserted) {
    ScmTile t;
    for (auto* v :
         {&t.height_m, &t.plastic_sinkage_m, &t.shear_x_m, &t.shear_y_m, &t.flow_vx, &t.flow_vy,
          &t.flow_vz, &t.flow_depth_m, &t.deposited_m3, &t.displaced_m3, &t.peak_shear_m}) {
      v->assign(kTileSize, 0.0);
    }
    t.in_contact.assign(kTileSize, 0);
    t.loosened.assign(kTileSize, 0);
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

void ScmState::gather(NodeBlock& b) const {
  const int i1 = b.i0 + b.nx, j1 = b.j0 + b.ny;
  for (int tj = b.j0 / kTileNodes; tj * kTileNodes < j1; ++tj) {
    for (int ti = b.i0 / kTileNodes; ti * kTileNodes < i1; ++ti) {
      const ScmTile* t = find_tile(ti, tj);
      const int ia = std::max(b.i0, ti * kTileNodes), ib = std::min(i1, (ti + 1) * kTileNodes);
      const int ja = std::max(b.j0, tj * kTileNodes), jb = std::min(j1, (tj + 1) * kTileNodes);
      for (int j = ja; j < jb; ++j) {
        for (int i = ia; i < ib; ++i) {
          const std::size_t k = b.index(i, j);
          if (!t) {
            b.height_m[k] = base_height(i, j);
            b.plastic_sinkage_m[k] = b.shear_x_m[k] = b.shear_y_m[k] = 0.0;
            b.flow_vx[k] = b.flow_vy[k] = b.flow_vz[k] = b.flow_depth_m[k] = 0.0;
            b.deposited_m3[k] = b.displaced_m3[k] = b.peak_shear_m[k] = 0.0;
            b.in_contact[k] = b.loosened[k] = 0;
            continue;
          }
          const std::size_t o = tile_offset(i, j);
          b.height_m[k] = t->height_m[o];
          b.plastic_sinkage_m[k] = t->plastic_sinkage_m[o];
          b.shear_x_m[k] = t->shear_x_m[o];
          b.shear_y_m[k] = t->shear_y_m[o];
          b.flow_vx[k] = t->flow_vx[o];
          b.flow_vy[k] = t->flow_vy[o];
          b.flow_vz[k] = t->flow_vz[o];
          b.flow_depth_m[k] = t->flow_depth_m[o];
          b.deposited_m3[k] = t->deposited_m3[o];
          b.displaced_m3[k] = t->displaced_m3[o];
          b.peak_shear_m[k] = t->peak_shear_m[o];
          b.in_contact[k] = t->in_contact[o];
          b.loosened[k] = t->loosened[o];
        }
      }
    }
  }
}

void ScmState::scatter(const NodeBlock& b) {
  const int i1 = b.i0 + b.nx, j1 = b.j0 + b.ny;
  for (int tj = b.j0 / kTileNodes; tj * kTileNodes < j1; ++tj) {
    for (int ti = b.i0 / kTileNodes; ti * kTileNodes < i1; ++ti) {
      ScmTile& t = tile(ti, tj);
      const int ia = std::max(b.i0, ti * kTileNodes), ib = std::min(i1, (ti + 1) * kTileNodes);
      const int ja = std::max(b.j0, tj * kTileNodes), jb = std::min(j1, (tj + 1) * kTileNodes);
      for (int j = ja; j < jb; ++j) {
        for (int i = ia; i < ib; ++i) {
          const std::size_t k = b.index(i, j);
          const std::size_t o = tile_offset(i, j);
          t.height_m[o] = b.height_m[k];
          t.plastic_sinkage_m[o] = b.plastic_sinkage_m[k];
          t.shear_x_m[o] = b.shear_x_m[k];
          t.shear_y_m[o] = b.shear_y_m[k];
          t.flow_vx[o] = b.flow_vx[k];
          t.flow_vy[o] = b.flow_vy[k];
          t.flow_vz[o] = b.flow_vz[k];
          t.flow_depth_m[o] = b.flow_depth_m[k];
          t.deposited_m3[o] = b.deposited_m3[k];
          t.displaced_m3[o] = b.displaced_m3[k];
          t.peak_shear_m[o] = b.peak_shear_m[k];
          t.in_contact[o] = b.in_contact[k];
          t.loosened[o] = b.loosened[k];
        }
      }
    }
  }
}

}  // namespace talus::scm
