#pragma once
// What the boundary monitors (iolet flow rates, obstacle forces) share: the run's
// backend, units and ranks; their CSV files are io::SeriesCsv (core/io/series_csv.hpp).
#include "core/io/series_csv.hpp"
#include "core/plugin/plugin_api.hpp"

namespace hemo::boundaries {

struct RunContext {
  exec::Space space = exec::Space::host;
  std::uint32_t stride = 0;
  LatticeUnits units;
  std::int64_t check_every = 100;
  comm::Communicator* comm = nullptr;
  const mesh::SparseMesh* mesh = nullptr;
  static RunContext of(SetupStage& st) { return {st.space, st.mesh.stride, st.units, st.check_every, &st.comm, &st.mesh}; }
  bool due(std::int64_t step) const { return step % check_every == 0; }
};

}  // namespace hemo::boundaries
