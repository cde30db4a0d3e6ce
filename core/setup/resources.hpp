#pragma once
// What the machine a run lands on offers it: the CPU's name, how many voxels fit, and how
// many ranks share a node's memory and GPUs.
#include <cstdint>
#include <functional>
#include <string>

namespace hemo::setup {

/// The CPU's model name from /proc/cpuinfo ("unknown CPU" where it has none).
std::string cpu_model();

/// A run never allocates a voxel map larger than 2^31 voxels (32-bit voxel indices in the
/// mesh build), nor one that does not fit in the memory available now: a voxel takes
/// 1 byte of fluid flag, 4 of solid fraction (STL, VLBM) and 4 of the mesh build's
/// voxel -> node map (over the bounding box of the rank's nodes: the whole box at worst).
/// Beyond it, a coarser dx is needed; the geometry says which.
std::int64_t voxel_limit();

/// How many of the run's `ranks` share this node's memory (and its GPUs): the launcher's count
/// (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, SLURM_NTASKS_PER_NODE, the first set to a
/// positive number, at most `ranks`), all of them for in-process ranks, else 1.
/// `environment` looks a variable up (std::getenv by default).
int ranks_on_this_node(int ranks, bool in_process,
                       const std::function<const char*(const char*)>& environment = std::getenv);

/// Ranks that share one GPU's memory when `local` ranks share `devices` GPUs round-robin.
inline int ranks_per_device(int local, int devices) { return (local + devices - 1) / devices; }

}  // namespace hemo::setup
