#pragma once
// Where a flow is fastest, from its geometry: the flow to an outlet must pass the
// narrowest cross-section on its way from the inlet, so the path from the inlet to the
// outlet that keeps farthest from the wall (the widest path: it maximizes the smallest
// wall distance along it) meets the narrowest place that flow cannot avoid. A stenosis or
// a nozzle's throat is that place for every outlet behind it; a branch's own outlet has it
// in the branch. `check` and `run` print the Mach number there beside the reference one.
#include <cstdint>
#include <vector>

#include "core/mesh/sparse_mesh.hpp"

namespace hemo::boundaries {

/// Per owned node (num_nodes entries), the Euclidean distance in lattice spacings to the
/// nearest of the wall's points, each the middle of a link from a fluid node into the wall
/// (halfway bounce-back's wall), propagated over the D3Q19 links; links of the classes
/// marked in `open_class` (iolets) are no wall. A brick's holes get +infinity.
std::vector<float> wall_distance(const mesh::SparseMesh& m, const std::vector<bool>& open_class);

/// The narrowest place on the widest path from `sources` to a group of nodes.
struct Passage {
  float radius = 0.0f;                  // the wall distance there, lattice spacings (0: unreachable)
  std::uint32_t node = mesh::wall_link;  // the node where the path is narrowest
};

/// For each group in `targets` (an outlet's nodes), the passage of the widest path from
/// any node of `sources` (an inlet's nodes) to any node of the group, over the lattice's
/// links between owned fluid nodes. Ties keep the first node found, so the result does
/// not depend on the thread count (there is none: one pass on the host).
std::vector<Passage> narrowest_passages(const mesh::SparseMesh& m, const std::vector<float>& distance,
                                        const std::vector<std::uint32_t>& sources,
                                        const std::vector<std::vector<std::uint32_t>>& targets);

}  // namespace hemo::boundaries
