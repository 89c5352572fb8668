#pragma once
// The Soil Contact Model's changing state: per-node soil state stored in tiles of 32 x 32 nodes
// that are allocated the first time a step touches them. Untouched nodes read as the base terrain
// with every other quantity zero, so memory grows with the area the bodies have touched, not with
// the map (a 1 km drive costs the track's tiles only).
//
// Tiles are found through a hash map from tile coordinate to tile slot; each tile holds one flat
// array per field (structure of arrays), row-major inside the tile. The step never scans all
// tiles: it gathers the nodes of a dense window around the bodies, works on the window, and
// scatters it back, so the cost of a step does not grow with the distance driven.

#include <array>
#include <cstdint>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "scm/node_bands.hpp"
#include "scm/scm_model.hpp"

namespace talus::scm {

inline constexpr int kTileNodes = 32;  ///< tile edge in nodes
inline constexpr int kTileSize = kTileNodes * kTileNodes;

/// One tile's node fields, each kTileSize values, index (j % 32) * 32 + (i % 32).
struct ScmTile {
  std::vector<double> height_m;                   ///< surface height [m]
  std::vector<double> plastic_sinkage_m;          ///< total plastic sinkage of the node [m]
  std::vector<double> shear_x_m, shear_y_m;       ///< accumulated shear displacement j (eq. 31) [m]
  std::vector<double> flow_vx, flow_vy, flow_vz;  ///< flow velocity v_delta (eq. 29) [m/s]
  std::vector<double> flow_depth_m;               ///< h_delta (eq. 27) [m]
  std::vector<double> deposited_m3;  ///< V_delta of the last step (eq. 24 / border path) [m^3]
  std::vector<double> displaced_m3;  ///< V_zeta of the last step (eq. 2) [m^3]
  std::vector<double> peak_shear_m;  ///< largest |j| of the current contact [m]
  /// Deposited soil on top of the node that no body has pressed since [m] (>= 0): a body cuts
  /// it without compacting (it is not plastic sinkage); removals take it first.
  std::vector<double> loose_layer_m;
  std::vector<std::uint8_t> in_contact;  ///< 1 if a body loaded the node in the last step
  std::vector<std::uint8_t> loosened;    ///< 1 once the soil was sheared past failure and released
};

// Moving a tile must move its arrays' buffers (never copy them): allocated_tile's promise.
static_assert(std::is_nothrow_move_constructible_v<ScmTile>);

/// Bytes one node costs in a tile (all fields).
std::size_t bytes_per_node();

/// Every field of a dense rectangle of nodes [i0, i0 + nx) x [j0, j0 + ny), row-major.
struct NodeBlock {
  int i0 = 0, j0 = 0, nx = 0, ny = 0;
  std::vector<double> height_m, plastic_sinkage_m, shear_x_m, shear_y_m, flow_vx, flow_vy, flow_vz,
      flow_depth_m, deposited_m3, displaced_m3, peak_shear_m, loose_layer_m;
  std::vector<std::uint8_t> in_contact, loosened;
  std::size_t size() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny); }
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(j - j0) * static_cast<std::size_t>(nx) +
           static_cast<std::size_t>(i - i0);
  }
  /// Sets the rectangle and sizes every field; the values are unspecified until gathered.
  void resize(int i0_, int j0_, int nx_, int ny_);
};

/// Bits naming NodeBlock's fields, for copying some of them only (ScmState::gather, scatter).
enum NodeField : unsigned {
  kHeight = 1u << 0,
  kPlasticSinkage = 1u << 1,
  kShearX = 1u << 2,
  kShearY = 1u << 3,
  kFlowVx = 1u << 4,
  kFlowVy = 1u << 5,
  kFlowVz = 1u << 6,
  kFlowDepth = 1u << 7,
  kDeposited = 1u << 8,
  kDisplaced = 1u << 9,
  kPeakShear = 1u << 10,
  kLooseLayer = 1u << 11,
  kInContact = 1u << 12,
  kLoosened = 1u << 13,
};
inline constexpr unsigned kAllNodeFields = (1u << 14) - 1;
inline constexpr unsigned kFlowVelocity = kFlowVx | kFlowVy | kFlowVz;  ///< the flow field's v

class ScmState {
 public:
  /// Untouched soil over the model's base terrain (the base image, if any, is copied).
  explicit ScmState(const ScmModel& model);

  double time_s = 0.0;
  long step = 0;
  int nx() const { return nx_; }  ///< nodes along x of the map (the model's)
  int ny() const { return ny_; }  ///< nodes along y
  /// Bounding box of each body's nodes in contact after the last step (bodies without contact
  /// have none): the next step revisits them so nodes a body left are released.
  std::vector<IndexBox> contact_boxes;

  int tile_count() const { return static_cast<int>(tiles_.size()); }
  /// Bytes held by allocated tiles (fields only; the index adds a few words per tile).
  std::size_t tile_bytes() const { return tiles_.size() * kTileSize * bytes_per_node(); }
  /// Nodes in allocated tiles.
  std::size_t allocated_nodes() const { return tiles_.size() * kTileSize; }

  /// Tile coordinates (ti, tj) of every allocated tile, in allocation order. Tile (ti, tj) holds
  /// the nodes i in [32 ti, 32 ti + 32), j in [32 tj, 32 tj + 32) (those past the map's edge in
  /// an edge tile are unused).
  std::vector<std::array<int, 2>> tile_coordinates() const;
  /// The allocated tile (ti, tj), or nullptr when no step has touched it. Its field arrays keep
  /// their addresses for the state's life (tiles are never freed, and the tile list grows by
  /// moving tiles, which keeps each array's buffer), so a caller may hold views of them across
  /// steps (the Python module's tile views); the step scatters its results into them.
  ScmTile* allocated_tile(int ti, int tj);

  /// Height of node (i, j) [m]: the tile's value, or the base terrain if untouched.
  double height(int i, int j) const;
  double plastic_sinkage(int i, int j) const;

  /// Copies the nodes of `block`'s rectangle (which must lie inside the map) into it; untouched
  /// nodes read as base terrain. `fields` (NodeField bits) chooses the fields copied; the others
  /// are left as they were.
  void gather(NodeBlock& block, unsigned fields = kAllNodeFields,
              std::size_t banded_min_nodes = kBandedPassMinNodes) const;
  /// Writes the chosen fields of every node of `block` back, allocating tiles on first touch.
  /// Both copy a block of banded_min_nodes or more on the OpenMP team, in bands of its rows
  /// (the same bits for any thread count; scm/node_bands.hpp).
  void scatter(const NodeBlock& block, unsigned fields = kAllNodeFields,
               std::size_t banded_min_nodes = kBandedPassMinNodes);
  /// Allocates the tiles of `box` (inside the map) that no step has touched, in the order a scatter
  /// of the box would. Stages that scatter into disjoint boxes side by side on the threads call it
  /// first for each box: a scatter into allocated tiles only looks them up, so the tile list does
  /// not grow (and move) under another thread.
  void allocate_tiles(const IndexBox& box);
  /// Sets the chosen double fields (NodeField bits of the doubles only) of every node of `box`
  /// (inside the map) to zero, allocating tiles on first touch: a scatter of a block of zeros
  /// without the block.
  void zero_fields(const IndexBox& box, unsigned fields);

  /// The box of the nodes whose height differs from the base terrain by more than tolerance_m
  /// (empty when none): where the soil was deformed or deposited, for pictures of it.
  IndexBox moved_nodes(double tolerance_m) const;
  /// The largest |height - base terrain| [m] over the map's outermost ring of nodes: soil that
  /// reached the edge of the grid, where the map's boundary (not the soil) decides where it goes.
  double largest_change_at_edge_m() const;

 private:
  // gather and scatter on the block's rows [j_begin, j_end) (global node indices) only; scatter's
  // tiles must be allocated.
  void gather_rows(NodeBlock& block, unsigned fields, int j_begin, int j_end) const;
  void scatter_rows(const NodeBlock& block, unsigned fields, int j_begin, int j_end);
  const ScmTile* find_tile(int ti, int tj) const;
  ScmTile& tile(int ti, int tj);  // allocating
  static std::uint64_t key(int ti, int tj) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(ti)) << 32) |
           static_cast<std::uint32_t>(tj);
  }

  double base_height(int i, int j) const {
    return base_image_.empty()
               ? base_height_
               : base_height_ +
                     base_image_[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx_) +
                                 static_cast<std::size_t>(i)];
  }

  // The map's extent and base terrain, copied from the model so the state stands alone.
  int nx_ = 0, ny_ = 0;
  double base_height_ = 0.0;
  std::vector<double> base_image_;
  std::unordered_map<std::uint64_t, int> index_;
  std::vector<ScmTile> tiles_;
};

}  // namespace talus::scm
