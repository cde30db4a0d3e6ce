#include "core/sim/gathered_voxels.hpp"

#include <algorithm>
#include <numeric>
#include <span>

namespace hemo {

GatheredVoxels gather_voxels(const mesh::SparseMesh& mesh, comm::Communicator& comm) {
  std::vector<std::uint64_t> mine(mesh.num_fluid());  // in fluid_node order (no holes)
  for (std::uint32_t f = 0; f < mesh.num_fluid(); ++f) mine[f] = mesh.voxel_index(mesh.fluid_node(f));
  GatheredVoxels g;
  g.voxel = comm.gather(std::span<const std::uint64_t>(mine), 0);
  g.ascending.resize(g.voxel.size());
  std::iota(g.ascending.begin(), g.ascending.end(), std::size_t{0});
  std::sort(g.ascending.begin(), g.ascending.end(), [&](std::size_t a, std::size_t b) { return g.voxel[a] < g.voxel[b]; });
  return g;
}

}  // namespace hemo
