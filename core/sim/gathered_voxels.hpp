#pragma once
// What rank 0 needs to write node data for the whole domain in one order, whatever the
// rank count: every rank's owned nodes, gathered in rank order, and the order that lists
// them by ascending global voxel index. Snapshots (output_actions.hpp) and checkpoints
// (checkpoint.hpp) store nodes in that order, so their files are the same on any number
// of ranks and a checkpoint can be read back on another.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/mesh/sparse_mesh.hpp"

namespace hemo {

struct GatheredVoxels {
  /// Rank 0: the global voxel index of every rank's owned nodes, rank after rank, each
  /// rank's in node order (what Communicator::gather gives). Empty on other ranks.
  std::vector<std::uint64_t> voxel;
  /// Rank 0: ascending[p] is the gathered node that comes p-th by voxel index.
  std::vector<std::size_t> ascending;
};

/// A collective: every rank passes its part of the mesh.
GatheredVoxels gather_voxels(const mesh::SparseMesh& mesh, comm::Communicator& comm);

}  // namespace hemo
