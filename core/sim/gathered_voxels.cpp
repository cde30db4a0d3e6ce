#include "core/sim/gathered_voxels.hpp"

#include <algorithm>
#include <numeric>
#include <span>

namespace hemo {

GatheredVoxels gather_voxels(const mesh::SparseMesh& mesh, comm::Communicator& comm) {
  std::vector<std::uint64_t> mine(mesh.num_nodes);
  for (std::uint32_t n = 0; n < mesh.num_nodes; ++n) mine[n] = mesh.voxel_index(n);
  GatheredVoxels g;
  g.voxel = comm.gather(std::span<const std::uint64_t>(mine), 0);
  g.ascending.resize(g.voxel.size());
  std::iota(g.ascending.begin(), g.ascending.end(), std::size_t{0});
  std::sort(g.ascending.begin(), g.ascending.end(), [&](std::size_t a, std::size_t b) { return g.voxel[a] < g.voxel[b]; });
  return g;
}

}  // namespace hemo
