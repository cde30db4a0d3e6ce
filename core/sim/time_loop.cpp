// Simulation::run: the time loop, the mass and NaN monitor, and the final checksum.
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/sim/checksum.hpp"
#include "core/sim/divergence_report.hpp"
#include "core/sim/output_actions.hpp"
#include "core/sim/progress.hpp"
#include "core/sim/population_state.hpp"
#include "core/sim/simulation.hpp"
#include "core/sim/stop_signals.hpp"

namespace hemo {

void Simulation::check_mass_and_finiteness(std::int64_t step) {
  const FieldBase& density = fields_->lookup("density");
  const exec::SumRange rho = density.sum_range(0);
  const double mass = comm_->sum(rho.sum);
  // A NaN or inf on any rank makes the sum over the ranks non-finite on every rank, so all
  // take part in the report (a collective) and rank 0, which writes it and summary.json,
  // ends the run; the others go on to the next exchange, where the abort finds them.
  if (!std::isfinite(mass)) {
    const Divergence d = report_divergence({step, check_every_, mesh_, *fields_, units_, flow_, speed_history_,
                                            output_dir_, *comm_});
    if (comm_->rank() != 0) return;
    summary_.divergence_report = d.report;
    throw DivergenceError(d.message, step, d.node);
  }
  summary_.mass_relative_drift = (mass - initial_mass_) / initial_mass_;
  record_density_range(step, rho);
  // The largest speed, where the run diverges, is what the report's history shows.
  if (speed_history_.due(step) && step != steps_) speed_history_.record(step, *fields_, mesh_);
}

void Simulation::record_density_range(std::int64_t step, const exec::SumRange& rho) {
  // The spread of the lattice density is the spread of pressure over rho c_s^2: where it
  // is large the lattice fluid is visibly compressible (the weakly compressible limit of
  // LB, Krueger et al. 2017 sec. 4.3), whatever the mass does.
  double range[2] = {-rho.least, rho.largest};
  comm_->max(range);
  if (!(range[1] >= -range[0]) || summary_.fluid_nodes == 0) return;
  const double mean = initial_mass_ / double(summary_.fluid_nodes);
  const double least = -range[0] / mean, largest = range[1] / mean;
  summary_.density_least = std::min(summary_.density_least, least);
  summary_.density_largest = std::max(summary_.density_largest, largest);
  if (largest - least > summary_.largest_density_variation) {
    summary_.largest_density_variation = largest - least;
    summary_.largest_density_variation_step = step;
  }
}

void Simulation::checkpoint_after(std::int64_t step) {
  try {
    write_checkpoint_after(step);
  } catch (const WriteError& e) {
    // The checkpoint before this one is whole (written under a temporary name): say
    // which it is, since it is where the run can be continued from.
    const bool earlier = !summary_.checkpoint.empty();
    const std::string kept = earlier ? summary_.checkpoint : restart_file_;
    const std::int64_t kept_step = earlier ? summary_.checkpoint_step : first_step_;
    throw WriteError(str(e.what(), kept.empty() ? std::string("; no earlier checkpoint was overwritten")
                                                : str("; the checkpoint after step ", kept_step, ", ", kept,
                                                      ", is kept: continue from it with --restart ", kept,
                                                      " once there is room")),
                     e.path(), e.bytes());
  }
}

std::uint64_t Simulation::population_checksum() const {
  // Keyed by global voxel index and summed (checksum.hpp): equal checksums mean
  // bitwise-equal populations, whatever the thread count, node ordering or backend.
  // The sum over ranks of each rank's owned nodes (modulo 2^64, so in any order): the
  // same number for any partition.
  const FieldBase& f = fields_->lookup("f");
  std::uint64_t h = 0;
  // Holes of bricks are left out: every layout gives the same number.
  if (mesh_.num_fluid() > 0) {
    std::vector<std::uint64_t> voxel(mesh_.num_fluid());
    for (std::uint32_t i = 0; i < mesh_.num_fluid(); ++i) voxel[i] = mesh_.voxel_index(mesh_.fluid_node(i));
    const std::size_t element = f.element_bytes();
    for (int c = 0; c < f.components(); ++c) {
      const std::vector<unsigned char> bytes = mesh_.compact(post_collision_row(mesh_, f, c, summary_.steps), element);
      h += keyed_checksum(bytes, bytes.size() / voxel.size(), c, voxel);
    }
  }
  return comm_->sum(h);
}

void Simulation::report_ranks() {
  const int ranks = comm_->size();
  if (ranks == 1) return;
  constexpr int phases = int(Phase::count), fixed = 8;
  const auto& timings = scheduler_->timings();  // the same actions on every rank
  const int actions = int(timings.size());
  const int width = fixed + phases + 3 * actions;  // host seconds, then device span and gap of each action
  std::vector<double> all(std::size_t(ranks) * width, 0.0);  // each rank fills its slot; the sum is exact
  double* mine = all.data() + std::size_t(comm_->rank()) * width;
  mine[0] = mesh_.num_fluid();
  mine[1] = mesh_.num_nodes - mesh_.num_interior;
  mine[2] = mesh_.num_halo;
  mine[3] = double(mesh_.halo.size());
  mine[4] = double(halo_->last_bytes_sent());
  mine[5] = halo_->wait_seconds();
  mine[6] = double(voxels_.held_count());
  const std::int64_t stepped = summary_.steps - first_step_;
  mine[7] = stepped > 0 ? double(comm_->bytes_sent() - bytes_sent_at_start_) / double(stepped) : 0.0;
  for (std::size_t a = 0; a < timings.size(); ++a) {
    mine[fixed + int(timings[a].phase)] += timings[a].seconds;
    mine[fixed + phases + int(a)] = timings[a].seconds;
    mine[fixed + phases + actions + int(a)] = timings[a].device_span;
    mine[fixed + phases + 2 * actions + int(a)] = timings[a].device_gap;
  }
  comm_->sum(all);
  summary_.rank_reports.clear();
  double largest = 0.0, total = 0.0;
  for (int r = 0; r < ranks; ++r) {
    const double* v = all.data() + std::size_t(r) * width;
    RunSummary::Rank rep;
    rep.nodes = std::uint64_t(v[0]);
    rep.edge_nodes = std::uint64_t(v[1]);
    rep.halo_nodes = std::uint64_t(v[2]);
    rep.neighbours = std::uint64_t(v[3]);
    rep.halo_bytes_per_step = std::uint64_t(v[4]);
    rep.halo_wait_seconds = v[5];
    rep.voxels_held = std::uint64_t(v[6]);
    rep.message_bytes_per_step = v[7];
    for (int p = 0; p < phases; ++p)
      if (v[fixed + p] > 0.0) rep.phase_seconds.emplace_back(to_string(Phase(p)), v[fixed + p]);
    for (std::size_t a = 0; a < timings.size(); ++a)
      rep.action_seconds.emplace_back(timings[a].owner + "." + timings[a].name, v[fixed + phases + int(a)]);
    if (scheduler_->times_device())
      for (std::size_t a = 0; a < timings.size(); ++a)
        rep.device_timeline.push_back({timings[a].owner + "." + timings[a].name, v[fixed + phases + actions + int(a)],
                                       v[fixed + phases + 2 * actions + int(a)]});
    largest = std::max(largest, v[0]);
    total += v[0];
    summary_.rank_reports.push_back(std::move(rep));
  }
  summary_.imbalance = total > 0 ? largest * ranks / total : 1.0;
}

void Simulation::run() {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  const bool show = progress_ == ProgressMode::always || (progress_ == ProgressMode::automatic && log::level() <= log::Level::info);
  Progress progress(steps_, summary_.fluid_nodes, show, terminal, first_step_);
  StepContext ctx;
  ctx.fields = fields_.get();
  // Where the app catches SIGTERM, SIGINT and SIGUSR1 (catch_stop_signals, hemoflow run),
  // a signal stops the run after a step with a checkpoint (stop_signals.hpp).
  StopPoll stop_poll(*comm_);
  speed_history_ = SpeedHistory(check_every_);
  log::info(first_step_ > 0 ? str("running steps ", first_step_ + 1, " to ", steps_) : str("running ", steps_, " steps"));
  const auto t0 = std::chrono::steady_clock::now();
  // The steady steps start after the warm-up: the first steps after a set-up or restart
  // pay one-off costs (kernels loaded on first launch, first messages, buffers growing):
  // about 1 s, varying by +-0.2 s between runs, in the first step of the MUPHY cell tube on
  // 4 x H100 (2026-11-27), +-0.4 ms a step in a 500-step difference (docs/rbc_ranks.md).
  // Ten steps in every run of 20 or more, so that a benchmark's runs of N and 2N steps
  // (N >= 20) skip the same warm-up; none in a shorter run.
  const std::int64_t warmup_end = first_step_ + (steps_ - first_step_ >= 20 ? 10 : 0);
  auto steady_start = t0;
  bytes_sent_at_start_ = comm_->bytes_sent();
  try {
    for (std::int64_t s = first_step_ + 1; s <= steps_; ++s) {
      ctx.step = s;
      ctx.time = double(s) * units_.dt;
      ctx.moments_due = scheduler_->moments_every_step() || output_->due(s) || s % check_every_ == 0 || s == steps_;
      ctx.snapshot_due = output_->snapshot_due(s);
      ctx.stress_due = scheduler_->viscous_stress_due(s, ctx.moments_due);
      const auto step_start = std::chrono::steady_clock::now();
      scheduler_->run_step(ctx);
      const auto step_end = std::chrono::steady_clock::now();
      step_times_.add(std::chrono::duration<double>(step_end - step_start).count());
      summary_.steps = s;
      summary_.wall_seconds = std::chrono::duration<double>(step_end - t0).count();
      // The mass is checked every check_every steps (and after the last): no drift to show before.
      const bool mass_checked = s >= (first_step_ / check_every_ + 1) * check_every_ || s == steps_;
      progress.update(s, mass_checked ? std::optional<double>(summary_.mass_relative_drift) : std::nullopt);
      // The wall-clock budget is looked at on the monitor's steps, by every rank at once
      // (the slowest rank's clock decides), so all ranks stop after the same step.
      bool out_of_time = false;
      if (checkpoint_wall_seconds_ > 0.0 && s % check_every_ == 0 && s < steps_) {
        const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        out_of_time = comm_->max(used) >= checkpoint_wall_seconds_;
      }
      // A signal stops every rank after the same step (StopPoll); one after the last step
      // changes nothing.
      const int stop_signal = s < steps_ ? stop_poll.after_step(s) : 0;
      if (stop_signal) log::warn(str(signal_name(stop_signal), " received: writing a checkpoint after step ", s));
      if (out_of_time || stop_signal || (checkpoint_every_ > 0 && s % checkpoint_every_ == 0) ||
          (checkpoint_final_ && s == steps_)) {
        scheduler_->before_checkpoint(ctx);
        checkpoint_after(s);
      }
      // Stopped early, by a signal or the wall-clock budget: the checkpoint above is where
      // the run continues.
      if (stop_signal || out_of_time) {
        if (stop_signal) summary_.interrupted_by = signal_name(stop_signal);
        const std::string why = stop_signal ? summary_.interrupted_by + " received"
                                            : str("wall-clock budget checkpoint.wall_seconds = ",
                                                  fmt_g(checkpoint_wall_seconds_), " s reached");
        summary_.stopped_early = str(why, " after step ", s, "; continue with --restart ", output_dir_);
        log::warn("stopping: " + summary_.stopped_early);
        break;
      }
      if (s == warmup_end) {
        scheduler_->finish_steps();  // the warm-up's device work is the warm-up's
        steady_start = std::chrono::steady_clock::now();
      }
    }
    scheduler_->finish_steps();  // the device's backlog is the steps', not the run-end actions'
    // The steps' time without what the run pays once at its end (run-end actions, the
    // closing of output files: seconds for a large snapshot, and varying), which
    // wall_seconds holds: benchmarks difference this one (tools/bench/benchlib.py).
    const auto steps_end = std::chrono::steady_clock::now();
    summary_.steps_seconds = std::chrono::duration<double>(steps_end - t0).count();
    const bool warmed = summary_.steps >= warmup_end;  // not: stopped by a signal within the warm-up
    summary_.steady_seconds = warmed ? std::chrono::duration<double>(steps_end - steady_start).count() : 0.0;
    summary_.steady_steps = warmed ? summary_.steps - warmup_end : 0;
    if (StopSignals::caught() && summary_.interrupted_by.empty())
      log::warn(str(signal_name(StopSignals::caught()), " received after the last step: the run ends as it would have"));
    // What sums up the run (plugins' time statistics), after its last step: also when the
    // wall-clock budget or a signal stopped it early, not when a step failed.
    ctx.step = summary_.steps;
    ctx.time = double(summary_.steps) * units_.dt;
    scheduler_->run_end(ctx);
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
  // The slowest rank's time is the run's.
  summary_.wall_seconds = comm_->max(summary_.wall_seconds);
  summary_.steps_seconds = comm_->max(summary_.steps_seconds);
  summary_.steady_seconds = comm_->max(summary_.steady_seconds);
  summary_.step_median = comm_->max(step_times_.quantile(0.5));
  summary_.step_p90 = comm_->max(step_times_.quantile(0.9));
  summary_.step_p99 = comm_->max(step_times_.quantile(0.99));
  summary_.step_max = comm_->max(step_times_.largest());
  summary_.mlups = summary_.wall_seconds > 0
                       ? double(summary_.fluid_nodes) * double(summary_.steps - first_step_) / summary_.wall_seconds / 1e6
                       : 0.0;
  summary_.phase_seconds = scheduler_->phase_seconds();
  for (const auto& t : scheduler_->timings()) summary_.action_seconds.emplace_back(t.owner + "." + t.name, t.seconds);
  if (scheduler_->times_device())
    for (const auto& t : scheduler_->timings())
      summary_.device_timeline.push_back({t.owner + "." + t.name, t.device_span, t.device_gap});
  report_ranks();
  summary_.outputs = output_->files();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(population_checksum()));
  summary_.population_checksum = hex;
  log::info(str("done: ", summary_.steps, " steps in ", fmt_f(summary_.wall_seconds, 3), " s, ",
                fmt_f(summary_.mlups, 2), " MLUPS, mass drift ", fmt_g(summary_.mass_relative_drift, 3)));
  if (summary_.largest_density_variation > density_variation_warning && comm_->rank() == 0)
    log::warn(str("the lattice density varied by ", fmt_g(100 * summary_.largest_density_variation, 3),
                  "% of its mean (step ", summary_.largest_density_variation_step,
                  "; summary.json largest_density_variation): above ", fmt_g(100 * density_variation_warning, 2),
                  "% the pressure differences are a visible share of rho c_s^2 and the flow is compressible; "
                  "a smaller time step (lattice.tau nearer 0.5 or a smaller lattice.dt) lowers them as dt^2"));
  if (summary_.steps > first_step_)
    log::info(str("host time per step: median ", fmt_g(1e3 * summary_.step_median, 3), " ms, 99th percentile ",
                  fmt_g(1e3 * summary_.step_p99, 3), " ms, longest ", fmt_g(1e3 * summary_.step_max, 3), " ms"));
  log::info("time per action:\n" + scheduler_->timing_table(summary_.wall_seconds));
}

}  // namespace hemo
