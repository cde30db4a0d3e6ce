#pragma once
// How a kernel finds the node a population streams from, for each layout of the sparse
// mesh (SparseMesh::layout, docs/layouts.md). Both views answer the same two questions,
// device-safe, so a pull kernel is written once and instantiated per layout:
//   is_fluid(n)       false for the holes of a brick (slots whose voxel is not fluid);
//   sources(n, src)   src[q] (q = 1..18) in the code of link_codes.hpp: the node at
//                     x_n - c_q, wall_link (halfway bounce-back) or coded_link | k;
//                     returns false where it knows that none is a coded link;
//   warp_sources(n, src)  the same codes, found by the 32 lanes of a CUDA warp together
//                     for 32 consecutive nodes (32-aligned, holes included, every lane
//                     calling): the lb_bgk kernels' path; on the host simply sources();
//   coded_links(n, src)  the coded links alone (every other entry wall_link): what an
//                     in-place step that reads the node's own slots still needs;
//   downstream(q, n)  the node at x_n + c_q, or wall_link (in-place streaming's
//                     post-collision slots, population_slots.hpp);
//   pull_node(code)   the node a pull code reads from: the node itself, or for a coded
//                     link between two fluid nodes (lb_vlbm's partial volumes: a pull plus
//                     a value) its source node; wall_link for a bounce-back.
// For the same voxels both views give the same codes (tests/unit/test_mesh.cpp), so a
// kernel computes bitwise the same values on either layout.
#include <cstdint>

#include "core/exec/for_each.hpp"
#include "core/mesh/link_codes.hpp"
#include "physics/d3q19.hpp"
#include "physics/hd.hpp"

namespace hemo::mesh {

/// Bits set in a 32-bit word (the device's population count instruction on the GPU).
HEMO_HD int bit_count(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __popc(v);
#else
  return __builtin_popcount(v);
#endif
}

/// The node a pull code reads from: the node itself, the source node of a coded link
/// between two fluid nodes (link_source, null where there are none), or wall_link.
HEMO_HD std::uint32_t pull_node(std::uint32_t code, const std::uint32_t* HEMO_RESTRICT link_source) {
  return is_node(code) ? code : (link_source && is_coded_link(code) ? link_source[link_index(code)] : wall_link);
}

/// The node list: one row of 18 codes per node (link_codes.hpp), read as stored.
struct NodeListView {
  const std::uint32_t* HEMO_RESTRICT neighbours;  // 18 rows of `stride`
  std::uint32_t stride;
  const std::uint32_t* HEMO_RESTRICT link_source = nullptr;  // per coded link; null: none between fluid nodes

  HEMO_HD std::uint32_t pull_node(std::uint32_t code) const { return mesh::pull_node(code, link_source); }

  HEMO_HD bool is_fluid(std::uint32_t) const { return true; }
  HEMO_HD bool sources(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const {
    HEMO_UNROLL
    for (int q = 1; q < phys::d3q19::Q; ++q) src[q] = neighbours[std::size_t(q - 1) * stride + n];
    return true;
  }
  HEMO_HD bool warp_sources(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const { return sources(n, src); }
  HEMO_HD bool coded_links(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const {
    sources(n, src);
    HEMO_UNROLL
    for (int q = 1; q < phys::d3q19::Q; ++q)
      if (is_node(src[q])) src[q] = wall_link;
    return true;
  }
  /// x_n + c_q is the node n pulls the opposite direction from (as a plain pull, or a
  /// pull plus a value: D3Q19 pairs every direction with its opposite).
  HEMO_HD std::uint32_t downstream(int q, std::uint32_t n) const {
    return pull_node(neighbours[std::size_t(phys::d3q19::opposite(q) - 1) * stride + n]);
  }
};

/// Bricks of 4^3 voxels (brick_edge): only bricks holding fluid are stored, each as 64
/// consecutive slots, slot s = x + 4 y + 16 z inside the brick, node n = brick * 64 + s.
inline constexpr int brick_edge = 4;
inline constexpr std::uint32_t brick_slots = 64;
/// Entry 13 of a brick's table: the brick itself (offsets (dx+1) + 3 (dy+1) + 9 (dz+1)).
inline constexpr int brick_self = 13;
/// A neighbour brick that is not stored (no fluid, or beyond a wall of the box).
inline constexpr std::uint32_t no_brick = wall_link;
/// Warps of the largest CUDA block a kernel runs in: BrickView::warp_sources keeps one
/// tile per warp.
inline constexpr int max_warps_per_block = exec::max_block_size / 32;
/// Bits 1..18 of a link word: the directions of the slot that are coded links; above
/// link_word_shift, the slot's first link index less the brick's first.
inline constexpr int link_word_shift = 19;

/// The brick layout: neighbours inside a brick are implicit; across bricks, one table of
/// 27 brick ids per brick and one 64-bit fluid mask per brick. Coded links (a boundary a
/// plugin handles) are the only per-slot data, and only for slots that have one: the
/// link word (directions, offset of the slot's first link k) read where link_mask says.
struct BrickView {
  const std::uint32_t* HEMO_RESTRICT brick_table;  // 27 per brick
  const std::uint64_t* HEMO_RESTRICT fluid_mask;   // per brick: bit s set where slot s is fluid
  const std::uint64_t* HEMO_RESTRICT link_mask;    // per brick: bit s set where slot s has coded links
  const std::uint32_t* HEMO_RESTRICT link_word;    // per slot (read only where link_mask is set)
  const std::uint32_t* HEMO_RESTRICT link_first;   // per brick: index of its first coded link
  const std::uint32_t* HEMO_RESTRICT link_source = nullptr;  // per coded link; null: none between fluid nodes

  HEMO_HD std::uint32_t pull_node(std::uint32_t code) const { return mesh::pull_node(code, link_source); }

  HEMO_HD bool is_fluid(std::uint32_t n) const { return fluid_mask[n >> 6] >> (n & 63u) & 1u; }

  HEMO_HD bool sources(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const {
    HEMO_UNROLL
    for (int q = 1; q < phys::d3q19::Q; ++q)
      src[q] = displaced(n, -phys::d3q19::cx(q), -phys::d3q19::cy(q), -phys::d3q19::cz(q));
    return code_links(n, src);
  }

  /// The node at the voxel of node n displaced by (dx, dy, dz), each in -1..1.
  HEMO_HD std::uint32_t displaced(std::uint32_t n, int dx, int dy, int dz) const {
    const std::uint32_t s = n & 63u;
    return voxel_node(n >> 6, int(s & 3u) + dx, int(s >> 2 & 3u) + dy, int(s >> 4) + dz);
  }

  /// The node at voxel (x, y, z) of the brick's frame (each in -1..4: the brick and the
  /// 26 around it), or no_brick where that voxel is not fluid or its brick is not stored.
  /// C++20's >> and & of a negative int: x >> 2 is the brick offset -1, 0 or 1, x & 3 the
  /// slot's x. The loads are unconditional (a missing brick reads its own mask and clears
  /// it): a warp covers the slots of one brick, whose lanes would branch differently.
  HEMO_HD std::uint32_t voxel_node(std::uint32_t brick, int x, int y, int z) const {
    const int o = brick_self + (x >> 2) + 3 * (y >> 2) + 9 * (z >> 2);
    const std::uint32_t nb = brick_table[std::size_t(brick) * 27 + std::uint32_t(o)];
    const bool stored = nb != no_brick;
    const std::uint64_t mask = fluid_mask[stored ? nb : brick] & (stored ? ~std::uint64_t(0) : std::uint64_t(0));
    const std::uint32_t slot = std::uint32_t((x & 3) + 4 * (y & 3) + 16 * (z & 3));
    return (mask >> slot & 1u) ? nb * brick_slots + slot : no_brick;
  }

  /// sources() for the 32 nodes of a warp (half a brick: z planes z0, z0 + 1) at once.
  /// The warp first writes the node of every voxel its pulls can reach into a tile in
  /// shared memory (x, y in -1..4, z in z0 - 1..z0 + 2, less the 8 corners no D3Q19
  /// direction reaches: 32 own voxels + 104, about 4 lookups a lane instead of 18), then
  /// each lane reads its 18 sources from the tile at offsets known at compile time.
  /// Bitwise the codes of sources() (tests/gpu/test_gpu_lattice_view.cpp). Every lane of
  /// the warp must call it, for 32 consecutive nodes starting at a multiple of 32: the
  /// lb_bgk kernels run over whole bricks (SparseMesh's ranges) in blocks of a multiple
  /// of 32 threads, and return for holes only after this.
  HEMO_HD bool warp_sources(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const {
#if defined(__CUDA_ARCH__)
    constexpr int side = brick_edge + 2;  // tile edge in x and y; 4 planes in z
    __shared__ std::uint32_t tiles[max_warps_per_block][side * side * 4];
    std::uint32_t* tile = tiles[threadIdx.x >> 5];
    const int lane = int(threadIdx.x & 31u);
    const std::uint32_t b = n >> 6, s = n & 63u;
    const int x = int(s & 3u), y = int(s >> 2 & 3u), z = int(s >> 4), z0 = z & 2;
    auto at = [&](int i, int j, int k) { return (i + 1) + side * (j + 1) + side * side * (k - z0 + 1); };
    auto put = [&](int i, int j, int k) { tile[at(i, j, k)] = voxel_node(b, i, j, k); };
    __syncwarp();  // a tile read by an earlier call of this warp is free again
    tile[at(x, y, z)] = (fluid_mask[b] >> s & 1u) ? n : no_brick;
    // The planes below and above: their 4 x 4 core, then the ring around it without its
    // corners (x or y just outside the brick), in both; the ring in the warp's own planes,
    // then its 4 corners there (8 lanes).
    const int t = lane & 15, hi = lane >> 4, outer = hi ? z0 + 2 : z0 - 1, side_of_ring = t >> 2, u = t & 3;
    const int rx = side_of_ring == 0 ? -1 : (side_of_ring == 1 ? brick_edge : u);
    const int ry = side_of_ring == 2 ? -1 : (side_of_ring == 3 ? brick_edge : u);
    put(t & 3, t >> 2, outer);
    put(rx, ry, outer);
    put(rx, ry, z0 + hi);
    if (lane < 8) put(lane & 1 ? brick_edge : -1, lane & 2 ? brick_edge : -1, z0 + (lane >> 2));
    __syncwarp();
    const std::uint32_t* own = tile + at(x, y, z);
    HEMO_UNROLL
    for (int q = 1; q < phys::d3q19::Q; ++q)
      src[q] = own[-(phys::d3q19::cx(q) + side * phys::d3q19::cy(q) + side * side * phys::d3q19::cz(q))];
    return code_links(n, src);
#else
    return sources(n, src);
#endif
  }
  HEMO_HD bool coded_links(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const {
    HEMO_UNROLL
    for (int q = 1; q < phys::d3q19::Q; ++q) src[q] = wall_link;
    return code_links(n, src);
  }
  /// Overwrites src[q] with coded_link | k for the slot's coded directions; false if none.
  HEMO_HD bool code_links(std::uint32_t n, std::uint32_t (&src)[phys::d3q19::Q]) const {
    const std::uint32_t b = n >> 6;
    if (!(link_mask[b] >> (n & 63u) & 1u)) return false;
    // Links are numbered in (node, direction) order: the slot's coded direction q is link
    // first + (the slot's coded directions below q).
    const std::uint32_t word = link_word[n], first = link_first[b] + (word >> link_word_shift);
    HEMO_UNROLL
    for (int q = 1; q < phys::d3q19::Q; ++q)
      if (word >> q & 1u) src[q] = coded_link | (first + std::uint32_t(bit_count(word & ((1u << q) - 1u))));
    return true;
  }
  HEMO_HD std::uint32_t downstream(int q, std::uint32_t n) const {
    return displaced(n, phys::d3q19::cx(q), phys::d3q19::cy(q), phys::d3q19::cz(q));
  }
};

}  // namespace hemo::mesh
