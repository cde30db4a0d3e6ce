#pragma once
// The output phase: field snapshots (HDF5 + XDMF) and probes (CSV), in physical units.
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/config/config.hpp"
#include "core/fields/field_registry.hpp"
#include "core/io/field_writer.hpp"
#include "core/io/probes.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/sim/field_snapshot.hpp"
#include "core/sim/units.hpp"

namespace hemo {

/// Output does not stall the time loop: write() takes a snapshot of the moments (on
/// CUDA an asynchronous download) and hands the conversion to physical units and the file
/// writing to a background thread; the next write() (or finish()) waits for it first, so
/// files are written in step order and never by two threads at once.
class OutputActions {
 public:
  /// Resolves probes to nodes (InputError for a probe point outside the fluid) and
  /// prepares the field writer. Nothing is written before the first due step.
  OutputActions(const config::Config& cfg, const mesh::SparseMesh& mesh, const LatticeUnits& units,
                std::string output_dir, std::int64_t last_step, exec::Space space, Precision precision);
  ~OutputActions();

  /// True if this step writes anything (so the moments must be computed).
  bool due(std::int64_t step) const;
  /// Starts writing what is due at this step, reading "density" and "velocity".
  void write(std::int64_t step, double time, const FieldRegistry& fields);
  /// Waits for the last write; rethrows its error, if any.
  void finish();

  const std::vector<std::string>& files() const { return files_; }

 private:
  bool fields_due(std::int64_t step) const;
  void write_files(std::int64_t step, double time);
  const mesh::SparseMesh& mesh_;
  const LatticeUnits& units_;
  std::string dir_;
  std::int64_t every_ = 0, last_step_ = 0;
  bool final_ = true;
  std::vector<std::string> field_names_;
  io::FloatFormat format_ = io::FloatFormat::float64;
  std::unique_ptr<io::FieldWriter> writer_;  // created at the first field output
  std::vector<io::Probe> probes_;
  std::vector<std::string> files_;
  FieldSnapshot snapshot_;
  std::thread background_;
  std::exception_ptr writer_error_;
};

}  // namespace hemo
