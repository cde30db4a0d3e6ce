#pragma once
// Checkpoints: the state a run needs to continue bitwise as if it had never stopped, on
// any rank count (issue 11, must-have 5).
//
// One HDF5 file, written by rank 0 under a temporary name and renamed into place
// (io::hdf5::Output), so a run killed while writing leaves the previous checkpoint whole:
//   /voxel            (N)              global voxel index of each fluid node, ascending
//   /fields/<name>    (components, N)  each restart-state field (FieldBase::restart_state)
//                                      in the run's precision, columns in /voxel's order
//   /particles/<table>                 a group per particle table (particle_table.hpp),
//                                      attributes count (uint64: its rows, M), owner (the
//                                      plugin that declared it) and every restart value
//                                      its owner bound (float64, bind_restart_value)
//   /particles/<table>/<column>
//                     (components, M)  each restart-state column and the `id` column, in
//                                      the column's type (the run's precision for reals),
//                                      the rows of every rank gathered to rank 0 and
//                                      listed by ascending `id` (a uint32 column), so
//                                      the file is the same on any rank count (a table
//                                      without one: in rank order)
//   attributes        format_version (2), step, time, precision, dims, dx, dt, tau,
//                     initial_mass, ranks, written_by, case_file
// Keying the columns by global voxel index, not by rank or node number, is what lets a
// run written on 4 ranks restart on 2 (or 1): each rank looks up its own voxels.
// Format 1 (no /particles) is read as a checkpoint without particle tables; /particles is
// always written, empty in a run without particle tables.
//
// Like field output (output_actions.hpp), the data travels through rank 0, one
// component row at a time: rank 0 holds the voxel list and one row of the whole domain
// (8 + 8 bytes per node in fp64) beside its own fields. Particle tables are restored
// whole on every rank (rank 0 reads, then broadcasts): a partitioned plugin (rbc) keeps
// the rows it owns at its first step. Their restart values are written from rank 0's: a
// partitioned plugin keeps them equal on every rank.
#include <array>
#include <cstdint>
#include <string>

#include "core/comm/communicator.hpp"
#include "core/fields/field_registry.hpp"
#include "core/mesh/sparse_mesh.hpp"

namespace hemo {

/// What a checkpoint says about the run that wrote it.
struct CheckpointInfo {
  std::int64_t step = 0;  // the last step done: a restart runs step + 1 onwards
  double time = 0.0;      // s, after that step
  std::string precision;  // "fp32" or "fp64"
  std::array<int, 3> dims{0, 0, 0};
  double dx = 0.0, dt = 0.0, tau = 0.0;
  std::uint64_t nodes = 0;
  double initial_mass = 0.0;  // the first run's, so the mass drift stays relative to it
  int ranks = 1;
  std::string written_by;  // "hemoflow <version> (<commit>)"
  std::string case_file;
};

/// The checkpoint's file name in an output folder.
inline constexpr const char* checkpoint_file_name = "checkpoint.h5";

/// DIR/checkpoint.h5 when `dir_or_file` is a folder (an output folder), else the path
/// itself.
std::string checkpoint_path(const std::string& dir_or_file);

/// Writes `path` from every rank's restart-state node fields and particle tables. A
/// collective: every rank calls it with its part of the mesh; rank 0 writes. A write that
/// fails (full disk, file size limit) throws WriteError on rank 0 naming the file and the
/// bytes, and leaves a checkpoint written there before untouched.
void write_checkpoint(const std::string& path, const CheckpointInfo& info, const mesh::SparseMesh& mesh,
                      const FieldRegistry& fields, comm::Communicator& comm);

/// Reads the attributes of a checkpoint (rank 0 reads, every rank gets them). InputError
/// for a file that is not a hemoflow checkpoint. A collective.
CheckpointInfo read_checkpoint_info(const std::string& path, comm::Communicator& comm);

/// Fills this rank's restart-state fields and particle tables from the checkpoint. Rank 0
/// checks that the checkpoint has exactly this run's fluid voxels, restart-state fields
/// (names, types, components) and particle tables (names; their checkpoint columns'
/// names, types and components; their restart values), and throws InputError naming the
/// file and saying what differs otherwise; the other ranks then wait until the error ends
/// the job (main.cpp). On every rank, each table is resized to all the checkpoint's rows
/// and its checkpoint columns filled (its other columns keep what they hold: zeros in a
/// table the plugin left empty) and its bound restart values set. Called after every
/// plugin's initialise(), which on a restart leaves its particle tables to this. Halos
/// are not filled: the caller exchanges them. A collective.
void restore_checkpoint(const std::string& path, const mesh::SparseMesh& mesh, FieldRegistry& fields,
                        comm::Communicator& comm);

}  // namespace hemo
