#pragma once
// The output phase: field snapshots (HDF5 + XDMF) and probes (CSV), in physical units.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/config/config.hpp"
#include "core/fields/field_registry.hpp"
#include "core/io/field_writer.hpp"
#include "core/io/probes.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/sim/field_snapshot.hpp"
#include "core/sim/gathered_voxels.hpp"
#include "core/sim/units.hpp"

namespace hemo {

/// Output does not stall the time loop: write() takes a snapshot of the moments (on
/// CUDA an asynchronous download) and hands the conversion to physical units and the file
/// writing to a background thread; the next write() (or finish()) waits for it first, so
/// files are written in step order and never by two threads at once.
/// With many ranks, the owned nodes' moments are gathered to rank 0 (on the main thread,
/// at the output step), which alone writes: one mesh.h5 and one step file per output
/// step (docs/architecture.md says why gathering rather than parallel HDF5). Files list
/// the nodes in global voxel order, so they are the same for any rank count and node
/// ordering, and a run restarted on another rank count continues the same series. A probe samples the node nearest to its point
/// among all ranks' nodes; the rank that owns it contributes the value.
class OutputActions {
 public:
  /// Resolves probes to nodes (InputError for a probe point outside the fluid) and
  /// prepares the field writer. Nothing is written before the first due step.
  OutputActions(const config::Config& cfg, const mesh::SparseMesh& mesh, const LatticeUnits& units,
                std::string output_dir, std::int64_t last_step, exec::Space space, Precision precision,
                comm::Communicator& comm, std::int64_t first_step = 0);
  ~OutputActions();

  /// True if this step writes anything (so the moments must be computed).
  bool due(std::int64_t step) const;
  /// True if this step writes a field snapshot (particle plugins write theirs with it).
  bool snapshot_due(std::int64_t step) const { return fields_due(step); }
  /// Starts writing what is due at this step, reading "density" and "velocity".
  void write(std::int64_t step, double time, const FieldRegistry& fields);
  /// Waits for the last write; rethrows its error, if any.
  void finish();

  const std::vector<std::string>& files() const { return files_; }

 private:
  bool fields_due(std::int64_t step) const;
  /// Moments by (row, node): row 0 density, 1-3 velocity, lattice units.
  using Moments = std::function<double(int row, std::size_t node)>;
  /// 4 moments per sample of each due probe, this rank's samples only (zeros elsewhere).
  std::vector<double> probe_moments(std::int64_t step) const;
  /// Rank 0: the probes' CSV rows from probe_moments() (summed over the ranks).
  void record_probes(std::int64_t step, double time, const std::vector<double>& moments);
  void write_fields(std::int64_t step, double time, std::size_t nodes, const Moments& value);
  /// Many ranks: gathers what this step writes to rank 0, then writes there.
  void write_gathered(std::int64_t step, double time);
  io::ProbeSample locate(const config::Config& probe, std::string_view key, const std::array<double, 3>& p, double s);

  const mesh::SparseMesh& mesh_;
  comm::Communicator& comm_;
  const LatticeUnits& units_;
  std::string dir_;
  std::int64_t every_ = 0, last_step_ = 0;
  std::int64_t first_step_ = 0;  // > 0: restarted from this step (series continue)
  bool final_ = true;
  std::vector<std::string> field_names_;
  io::FloatFormat format_ = io::FloatFormat::float64;
  std::unique_ptr<io::FieldWriter> writer_;  // created at the first field output
  std::vector<io::Probe> probes_;            // rank 0 (the files)
  std::vector<io::ProbeSpec> probe_specs_;   // every rank
  std::vector<std::vector<std::int64_t>> probe_nodes_;  // per probe, per sample: this rank's node, or -1
  std::vector<double> gathered_;             // rank 0: every rank's moments (4 rows of all nodes)
  GatheredVoxels file_nodes_;                // rank 0: every node's voxel and the file order
  std::vector<double> probe_values_;         // rank 0: the due probes' values (4 per sample)
  std::vector<std::string> files_;
  FieldSnapshot snapshot_;
  std::thread background_;
  std::exception_ptr writer_error_;
};

}  // namespace hemo
