#pragma once
// What a user needs to act on a run that diverged (issue 18): where the non-finite values
// are, which boundary is nearest, and how fast the flow was before, in
// <output>/divergence.json and a few lines of the log (docs/architecture.md, "When a run
// diverges").
//
// The node that blew up is known only after the fact, and the monitor looks every
// run.check_every steps. So the report holds what can be known cheaply then: the values
// of that node and its 18 neighbours at the failing step, and the history of the largest
// speed in the fluid and where it was, which SpeedHistory records on the monitor's steps
// (a max-reduction of |u| over the velocity field, which those steps compute anyway).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/exec/device_array.hpp"
#include "core/fields/field_registry.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/sim/units.hpp"

namespace hemo {

/// This rank's largest speed |u| and its node on the last `capacity` monitor steps that
/// are multiples of every() (run.check_every, raised to a multiple of it of 10 steps at
/// least, so a run checked every step pays for it every 10th). A record is one pass over
/// the velocity field on the run's backend that keeps each chunk's largest
/// (exec::chunk_peaks) in a ring in the same memory: nothing is copied to the host, and on
/// CUDA nothing waits, until a report asks for the entries.
class SpeedHistory {
 public:
  static constexpr std::size_t capacity = 16;
  explicit SpeedHistory(std::int64_t check_every);
  std::int64_t every() const { return every_; }
  bool due(std::int64_t step) const { return step % every_ == 0; }
  /// After a step that computed the moments ("velocity" and "density").
  void record(std::int64_t step, const FieldRegistry& fields, const mesh::SparseMesh& mesh);

  struct Entry {
    std::int64_t step = 0;
    double speed = -1.0;  // lattice units; -1: no node (none owned, or all NaN)
    std::uint64_t voxel = 0;
    double density = 0.0;  // lattice units
    std::array<double, 3> velocity{0.0, 0.0, 0.0};
  };
  /// The recorded steps, oldest first, each with this rank's largest speed (ties: the
  /// lowest node index). Copies the ring to the host.
  std::vector<Entry> entries(const mesh::SparseMesh& mesh) const;
  std::size_t size() const { return std::min(recorded_, capacity); }

 private:
  std::int64_t every_;
  std::size_t chunks_ = 0;     // chunks of the owned nodes (exec::chunks_of)
  std::size_t recorded_ = 0;   // records so far; the next goes to slot recorded_ % capacity
  std::array<std::int64_t, capacity> steps_{};
  exec::DeviceArray<double> peaks_;  // capacity slots of chunks_ x exec::chunk_peak_values
};

/// What a divergence report needs from the run.
struct DivergenceContext {
  std::int64_t step = 0;
  std::int64_t check_every = 1;
  const mesh::SparseMesh& mesh;
  const FieldRegistry& fields;
  const LatticeUnits& units;
  const FlowNumbers& flow;
  const SpeedHistory& history;
  const std::string& output_dir;
  comm::Communicator& comm;
};

/// The outcome, the same on every rank.
struct Divergence {
  std::string message;  // for DivergenceError: where, what was near, what to try
  std::int64_t node = -1;  // the reported node's index on its rank
  std::string report;   // <output>/divergence.json (written by rank 0)
};

/// After a monitor step whose mass, summed over the ranks, is not finite (so every rank
/// knows): finds the non-finite nodes on every rank and reports the one of lowest voxel
/// index with its neighbours, the nearest iolet and wall, and the speed history merged
/// over the ranks; rank 0 writes divergence.json and logs the history. A collective.
Divergence report_divergence(const DivergenceContext& c);

}  // namespace hemo
