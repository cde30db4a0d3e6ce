// Simulation::run: the time loop, the mass and NaN monitor, and the final checksum.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/sim/checksum.hpp"
#include "core/sim/output_actions.hpp"
#include "core/sim/progress.hpp"
#include "core/sim/simulation.hpp"

namespace hemo {

void Simulation::check_mass_and_finiteness(std::int64_t step) {
  const FieldBase& density = fields_->lookup("density");
  const double mass = density.sum(0);
  if (!std::isfinite(mass)) {
    const std::int64_t node = density.first_non_finite(0);
    const auto n = static_cast<std::uint32_t>(node < 0 ? 0 : node);
    const auto x = mesh_.position(n);
    throw DivergenceError(str("non-finite density (NaN or inf) found at step ", step, " (checked every ", check_every_,
                              " steps) at node ", node, ", voxel (", mesh_.i[n], ", ", mesh_.j[n], ", ", mesh_.k[n],
                              "), x = (", fmt_g(x[0]), ", ", fmt_g(x[1]), ", ", fmt_g(x[2]),
                              ") m. Lower the Mach number (smaller lattice.dt) or raise tau"),
                          step, node);
  }
  summary_.mass_relative_drift = (mass - initial_mass_) / initial_mass_;
}

std::uint64_t Simulation::population_checksum() const {
  // Keyed by global voxel index and summed (checksum.hpp): equal checksums mean
  // bitwise-equal populations, whatever the thread count, node ordering or backend.
  const FieldBase& f = fields_->lookup("f");
  if (mesh_.num_nodes == 0) return 0;
  // Each node's voxel index, from the mesh's voxel -> node table.
  std::vector<std::uint64_t> voxel(mesh_.num_nodes);
  for (std::uint32_t s = 0; s < mesh_.num_nodes; ++s) voxel[mesh_.sorted_node[s]] = mesh_.sorted_voxel[s];
  std::uint64_t h = 0;
  for (int c = 0; c < f.components(); ++c) {
    const std::vector<unsigned char> bytes = f.component_bytes(c);
    h += keyed_checksum(bytes, bytes.size() / voxel.size(), c, voxel);
  }
  return h;
}

void Simulation::run() {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  const bool show = progress_ == ProgressMode::always || (progress_ == ProgressMode::automatic && log::level() <= log::Level::info);
  Progress progress(steps_, mesh_.num_nodes, show, terminal);
  StepContext ctx;
  ctx.fields = fields_.get();
  log::info(str("running ", steps_, " steps"));
  const auto t0 = std::chrono::steady_clock::now();
  try {
    for (std::int64_t s = 1; s <= steps_; ++s) {
      ctx.step = s;
      ctx.time = double(s) * units_.dt;
      ctx.moments_due = output_->due(s) || s % check_every_ == 0 || s == steps_;
      scheduler_->run_step(ctx);
      summary_.steps = s;
      summary_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      progress.update(s, summary_.mass_relative_drift);
    }
  } catch (...) {
    // A failed run still reports where the time went and what it wrote.
    progress.finish();
    try {
      output_->finish();
    } catch (const std::exception& e) {
      log::error(std::string("output: ") + e.what());
    }
    summary_.phase_seconds = scheduler_->phase_seconds();
    summary_.outputs = output_->files();
    throw;
  }
  output_->finish();  // the last snapshot's files are complete before the summary
  summary_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.finish();
  summary_.mlups = summary_.wall_seconds > 0
                       ? double(mesh_.num_nodes) * double(summary_.steps) / summary_.wall_seconds / 1e6
                       : 0.0;
  summary_.phase_seconds = scheduler_->phase_seconds();
  summary_.outputs = output_->files();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(population_checksum()));
  summary_.population_checksum = hex;
  log::info(str("done: ", summary_.steps, " steps in ", fmt_f(summary_.wall_seconds, 3), " s, ",
                fmt_f(summary_.mlups, 2), " MLUPS, mass drift ", fmt_g(summary_.mass_relative_drift, 3)));
  log::info("time per action:\n" + scheduler_->timing_table(summary_.wall_seconds));
}

}  // namespace hemo
