#pragma once
// The sparse mesh: only fluid nodes are stored, as 1-D arrays (SoA), with a neighbour
// table for pull streaming (link_codes.hpp). Built once on the host from a VoxelGrid and
// the requests of the plugins (periodic axes, boundary link classes).
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry/voxel_grid.hpp"
#include "core/mesh/link_codes.hpp"

namespace hemo::mesh {

enum class Ordering { lexicographic, morton };
const char* to_string(Ordering o);
Ordering ordering_from_string(const std::string& s);  // throws std::invalid_argument

/// How nodes are stored (docs/layouts.md): a list of fluid nodes with 18 neighbour codes
/// each, or bricks of 4^3 voxels (lattice_view.hpp) with implicit neighbours inside a
/// brick and holes where a slot's voxel is not fluid.
enum class Layout { nodes, bricks };
const char* to_string(Layout l);
Layout layout_from_string(const std::string& s);  // throws std::invalid_argument

/// A kind of boundary link that a plugin handles. `claims` receives the voxel the link
/// comes from (x - c_q, solid or outside the box; wrapped along periodic axes) and returns true
/// if that voxel belongs to this boundary. The first class that claims a voxel wins;
/// unclaimed solid voxels are plain walls.
/// A class may instead (or also) claim links between two fluid voxels, the pull from
/// `from` into `to` (claims_fluid): the VLBM's partial-volume streaming mixes such a pull
/// with a bounce-back, so it goes through a link value like a boundary does.
struct LinkClass {
  std::string name;
  /// The vessel wall as coded links (at most one class): wall_shear and the divergence
  /// report treat its links as the plain wall's (SparseMesh::pulls_from_wall).
  bool vessel_wall = false;
  std::function<bool(const std::array<int, 3>& voxel)> claims;
  std::function<bool(const std::array<int, 3>& from, const std::array<int, 3>& to)> claims_fluid;
};

/// Which rank owns each fluid voxel, for the mesh of one rank's part of the domain
/// (core/partition decides; the mesh only asks). Without a part, one rank owns all.
struct MeshPart {
  int rank = 0;
  std::function<int(int i, int j, int k)> owner;  // the rank owning fluid voxel (i, j, k)
};

/// What this rank exchanges with one neighbour rank each step (HemeLB's halo order,
/// seeds/001 sec. 3): the post-collision populations of `send` (owned nodes that the
/// neighbour pulls from) go out; those of the neighbour's nodes that this rank pulls from
/// arrive in the halo nodes receive_begin .. receive_begin + receive_count. Both lists are
/// in ascending global voxel index, so a send and the receive it feeds match entry by
/// entry without exchanging any index.
struct HaloNeighbour {
  int rank = 0;
  std::vector<std::uint32_t> send;
  std::uint32_t receive_begin = 0, receive_count = 0;
  /// The directions q (bit q) that cross to and from this neighbour: the populations a
  /// pull across the interface reads. A plane between two ranks needs 5 of the 19.
  std::uint32_t send_directions = 0, receive_directions = 0;
  /// Bricks: the halo slots that receive, entry by entry (they are not contiguous, as
  /// a brick holds a face's 16 voxels among its 64 slots); empty on the node list.
  std::vector<std::uint32_t> receive;
};

/// What plugins ask of the mesh before it is built.
struct MeshRequest {
  std::array<bool, 3> periodic{false, false, false};
  std::vector<LinkClass> link_classes;
  /// Adds a class and returns its id (its index).
  int add_link_class(std::string name, std::function<bool(const std::array<int, 3>&)> claims);
  /// Adds the class of the vessel wall's links (coded so that a plugin can give them
  /// values, as an interpolated bounce-back does) and returns its id; at most one.
  int add_vessel_wall_class(std::string name, std::function<bool(const std::array<int, 3>&)> claims);
  /// Adds a class of fluid-to-fluid links and returns its id.
  int add_fluid_link_class(std::string name,
                           std::function<bool(const std::array<int, 3>& from, const std::array<int, 3>& to)> claims);
};

/// Every coded link: the node it arrives at, its direction q, and the class that owns it.
/// Link k of the neighbour table (coded_link | k) is entry k here.
struct BoundaryLinks {
  std::vector<std::uint32_t> node;
  std::vector<std::uint8_t> direction;
  std::vector<std::uint16_t> link_class;
  /// The fluid node a fluid-to-fluid link pulls from; wall_link for boundary links.
  std::vector<std::uint32_t> source;
  std::vector<std::string> class_names;
  /// The vessel wall's class (LinkClass::vessel_wall), -1 where there is none.
  int wall_class = -1;
  std::size_t size() const { return node.size(); }
  /// Number of links of one class.
  std::size_t count(int link_class_id) const;
};

class SparseMesh {
 public:
  std::array<int, 3> dims{0, 0, 0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  double dx = 0.0;
  std::array<bool, 3> periodic{false, false, false};
  Ordering ordering = Ordering::lexicographic;
  Layout layout = Layout::nodes;

  // Nodes of this rank, in three ranges (docs/architecture.md, "Many ranks"):
  //   [0, num_interior)              interior: owned, no neighbour on another rank;
  //   [num_interior, num_nodes)      edge: owned, pulled from by another rank;
  //   [num_nodes, num_nodes + num_halo)  halo: other ranks' nodes this rank pulls from,
  //                                  grouped by owner rank, then by voxel index.
  // Kernels update [0, num_nodes); halo nodes only receive. On one rank there are no
  // edge or halo nodes, and num_nodes is every fluid node.
  // With bricks the ranges hold whole bricks (64 slots each), holes included: a hole is
  // never updated, its fields stay zero, and host loops over voxels use fluid_nodes.
  std::uint32_t num_nodes = 0;
  std::uint32_t num_interior = 0;
  std::uint32_t num_halo = 0;
  std::uint32_t stride = 0;  // padded_stride(num_nodes + num_halo): row length of every node array
  /// Owned fluid nodes: num_nodes on the node list, less the holes on bricks.
  std::uint32_t num_fluid() const {
    return layout == Layout::nodes ? num_nodes : static_cast<std::uint32_t>(fluid_nodes.size());
  }
  /// Bricks: the owned fluid slots, ascending; empty on the node list (where every owned
  /// node is fluid). Index with fluid_node().
  std::vector<std::uint32_t> fluid_nodes;
  int rank = 0;
  std::vector<HaloNeighbour> halo;          // by ascending neighbour rank

  std::vector<std::int32_t> i, j, k;        // global voxel coordinates of each node, halo included
  /// 18 rows of `stride` entries (halo rows unused). Built for both layouts (set-up code
  /// reads it on the host); only the node list's kernels read it on the device.
  std::vector<std::uint32_t> neighbours;
  // Bricks (lattice_view.hpp's BrickView), per stored brick (owned and halo): 27 brick ids,
  // the fluid mask, the mask of slots with coded links and the index of its first link;
  // per slot: the link word (coded directions, offset of the slot's first link).
  std::uint32_t num_bricks = 0;
  std::vector<std::uint32_t> brick_table;
  std::vector<std::uint64_t> fluid_mask, link_mask;
  std::vector<std::uint32_t> link_first, link_word;
  BoundaryLinks links;
  std::uint64_t wall_links = 0;             // links encoded as plain wall_link

  /// The node that node n pulls direction q (1..18) from, a plain pull or a coded link
  /// between two fluid nodes (lb_vlbm's pull plus a value), or wall_link; from the host's
  /// table, for owned nodes.
  std::uint32_t pulls_from(int q, std::uint32_t n) const {
    const std::uint32_t code = neighbours[std::size_t(q - 1) * stride + n];
    return is_coded_link(code) ? links.source[link_index(code)] : code;
  }
  /// Whether node n (owned) pulls direction q from the vessel wall: a halfway bounce-back
  /// (wall_link) or a link of the vessel wall's class (interpolated bounce-back). Iolets, moving
  /// walls, obstacles and lb_vlbm's pulls between fluid nodes are not the vessel wall.
  bool pulls_from_wall(int q, std::uint32_t n) const {
    const std::uint32_t code = neighbours[std::size_t(q - 1) * stride + n];
    return code == wall_link ||
           (is_coded_link(code) && links.wall_class >= 0 && int(links.link_class[link_index(code)]) == links.wall_class);
  }
  /// False only for a brick's holes.
  bool is_fluid(std::uint32_t node) const {
    return layout == Layout::nodes || (fluid_mask[node >> 6] >> (node & 63u) & 1u);
  }
  /// The owned fluid node of index f < num_fluid() (ascending node id).
  std::uint32_t fluid_node(std::uint32_t f) const { return layout == Layout::nodes ? f : fluid_nodes[f]; }
  /// Values of the owned nodes (num_nodes entries of `element` bytes) less the holes:
  /// num_fluid() entries, in fluid_node order; expand() is the inverse (holes get zero bytes).
  std::vector<unsigned char> compact(std::vector<unsigned char> per_node, std::size_t element) const;
  std::vector<unsigned char> expand(std::vector<unsigned char> per_fluid, std::size_t element) const;

  std::array<double, 3> position(std::uint32_t node) const;  // m, voxel centre
  /// The voxel (i, j, k) of a global voxel index: voxel_index's inverse.
  std::array<std::int32_t, 3> voxel_coordinates(std::uint64_t v) const {
    const auto nx = std::uint64_t(dims[0]), ny = std::uint64_t(dims[1]);
    return {std::int32_t(v % nx), std::int32_t(v / nx % ny), std::int32_t(v / (nx * ny))};
  }
  /// The centre (m) of the voxel of a global voxel index.
  std::array<double, 3> voxel_centre(std::uint64_t v) const {
    const auto c = voxel_coordinates(v);
    return {origin[0] + (c[0] + 0.5) * dx, origin[1] + (c[1] + 0.5) * dx, origin[2] + (c[2] + 0.5) * dx};
  }
  /// Global lexicographic voxel index of a node (halo included).
  std::uint64_t voxel_index(std::uint32_t node) const {
    return std::uint64_t(i[node]) + std::uint64_t(dims[0]) * (std::uint64_t(j[node]) + std::uint64_t(dims[1]) * std::uint64_t(k[node]));
  }
  /// Owned node at voxel (i, j, k), if that voxel is fluid and this rank owns it.
  std::optional<std::uint32_t> find(int vi, int vj, int vk) const;
  /// The owned fluid node nearest to a point (m), searching the voxels within
  /// `radius_voxels`; empty if there is none that close. Ties go to the lower voxel index,
  /// so the choice is the same for any node order and rank count.
  std::optional<std::uint32_t> nearest(const std::array<double, 3>& point, int radius_voxels = 2) const;

  /// Bytes of the arrays kept for the run (coordinates, neighbour table, link tables).
  std::size_t bytes() const;
  std::int64_t voxel_count() const { return std::int64_t(dims[0]) * dims[1] * dims[2]; }
  double fluid_fraction() const { return voxel_count() ? double(num_fluid()) / double(voxel_count()) : 0.0; }
  std::string describe() const;

  // Lookup table voxel -> owned node, sorted by voxel index (MUPHY's COO2CELL idea):
  // binary search instead of a dense box-sized map.
  std::vector<std::uint64_t> sorted_voxel;
  std::vector<std::uint32_t> sorted_node;
};

/// Builds the mesh of the nodes `part` gives this rank (all fluid voxels without a part),
/// with their halo. Within the interior and the edge range, nodes (bricks) are numbered in
/// the requested order. Bricks need every periodic axis a multiple of 4 voxels long and,
/// with a part, every 4^3 brick owned by one rank (InputError otherwise).
SparseMesh build_mesh(const geometry::VoxelGrid& voxels, const MeshRequest& request, Ordering ordering,
                      const MeshPart* part = nullptr, Layout layout = Layout::nodes);

/// 63-bit Morton key interleaving the bits of (i, j, k) (21 bits each).
std::uint64_t morton_key(std::uint32_t i, std::uint32_t j, std::uint32_t k);

}  // namespace hemo::mesh
