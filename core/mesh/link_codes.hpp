#pragma once
// Encoding of the pull-streaming neighbour table (device-safe).
//
// neighbours[(q - 1) * stride + n] (q = 1..18; the rest population needs no entry) is
//   - a node index m < stride: f_q(n) is pulled from node m = the node at x_n - c_q;
//   - wall_link: x_n - c_q is a plain wall: halfway bounce-back, f_q(n) = f*_opp(q)(n);
//   - coded_link | k: x_n - c_q belongs to a boundary a plugin handles (moving wall,
//     iolet): bounce-back plus the per-link value link_value[k] (Ladd's term).
// So the bulk kernel has one code path for every boundary type: no branches per type.
#include <cstdint>

#include "physics/hd.hpp"

namespace hemo::mesh {

inline constexpr std::uint32_t wall_link = 0xFFFFFFFFu;
inline constexpr std::uint32_t coded_link = 0x80000000u;
inline constexpr std::uint32_t max_nodes = 0x7FFFFFF0u;

HEMO_HD constexpr bool is_node(std::uint32_t code) { return code < coded_link; }
HEMO_HD constexpr bool is_coded_link(std::uint32_t code) { return code >= coded_link && code != wall_link; }
HEMO_HD constexpr std::uint32_t link_index(std::uint32_t code) { return code & ~coded_link; }

/// Rows of padding so every row of a node array starts 128-byte aligned (32 floats).
inline constexpr std::uint32_t node_alignment = 32;
HEMO_HD constexpr std::uint32_t padded_stride(std::uint32_t nodes) {
  return (nodes + node_alignment - 1) / node_alignment * node_alignment;
}

}  // namespace hemo::mesh
