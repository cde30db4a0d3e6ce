#pragma once
// The output phase: field snapshots (HDF5 + XDMF) and probes (CSV), in physical units.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/fields/field_registry.hpp"
#include "core/io/field_writer.hpp"
#include "core/io/probes.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/sim/units.hpp"

namespace hemo {

class OutputActions {
 public:
  /// Resolves probes to nodes (InputError for a probe point outside the fluid) and
  /// prepares the field writer. Nothing is written before the first due step.
  OutputActions(const config::Config& cfg, const mesh::SparseMesh& mesh, const LatticeUnits& units,
                std::string output_dir, std::int64_t last_step);

  /// True if this step writes anything (so the moments must be computed).
  bool due(std::int64_t step) const;
  /// Writes what is due at this step, reading "density" and "velocity".
  void write(std::int64_t step, double time, const FieldRegistry& fields);

  const std::vector<std::string>& files() const { return files_; }

 private:
  bool fields_due(std::int64_t step) const;
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
};

}  // namespace hemo
