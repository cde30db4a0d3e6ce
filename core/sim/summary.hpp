#pragma once
// summary.json: what a run did, for people and for scripts (DESIGN.md, "Interfaces other
// tools rely on"). Filled as the run proceeds and written at the end, on success and on
// failure alike.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hemo {

struct RunSummary {
  std::string status = "not started";  // "ok", "interrupted" or the error
  int exit_code = 1;
  std::string case_file;
  std::string output_dir;
  std::int64_t steps = 0;          // steps completed
  std::int64_t steps_requested = 0;
  std::uint64_t fluid_nodes = 0;
  std::uint64_t voxels = 0;
  int ranks = 1;
  std::string backend = "cpu";
  std::string device;              // CPU model and threads, or the GPU's name
  std::string precision;
  std::string population_storage;  // the element type of "f": float32, float64, fp16s, e4m11
  std::string ordering;
  std::string layout;  // lattice.layout
  std::uint64_t brick_slots = 0;  // bricks: owned slots over all ranks (holes included)
  std::vector<std::string> plugins;
  double wall_seconds = 0.0;       // time loop only
  double steps_seconds = 0.0;      // the steps alone: the loop until the device's backlog is done (no run-end actions, no closing of files)
  /// The host's time in each step's actions (StepTimes): median, 90th and 99th
  /// percentile and the largest, each the slowest rank's.
  double step_median = 0.0, step_p90 = 0.0, step_p99 = 0.0, step_max = 0.0;
  /// The steps after the warm-up (the first 10 steps of a run of 20 or more, which pay
  /// one-off costs): from the end of the last warm-up step, the device's work waited for,
  /// to the end of steps_seconds; slowest rank. steady_seconds / steady_steps is the time
  /// per step of a single run.
  double steady_seconds = 0.0;
  std::int64_t steady_steps = 0;
  double setup_seconds = 0.0;
  double mlups = 0.0;              // million fluid-node updates per second
  std::uint64_t halo_links = 0;         // CUDA, several ranks: rank-to-neighbour halo links, all ranks
  std::uint64_t halo_device_links = 0;  // ... of them device to device (CUDA IPC)
  double mass_relative_drift = 0.0;
  /// The density monitor (every run.check_every steps): the least and largest lattice
  /// density over the run's checks and the largest spread (largest - least) at one check,
  /// each over the initial mean density, and the step of that spread. Since the start or
  /// the restart.
  double density_least = HUGE_VAL, density_largest = -HUGE_VAL;
  double largest_density_variation = 0.0;
  std::int64_t largest_density_variation_step = -1;
  double dx = 0.0, dt = 0.0, tau = 0.0, mach = 0.0, reynolds = 0.0;
  std::uint64_t mesh_bytes = 0, field_bytes = 0;
  /// Links of the neighbour table by kind: "wall" (plain bounce-back) and each link class.
  std::vector<std::pair<std::string, std::uint64_t>> links;
  std::uint64_t device_memory_bytes = 0;  // CUDA: measured drop in free memory; CPU: field bytes
  int cpu_threads = 0;
  std::string population_checksum;  // of the final populations in global voxel order (checksum.hpp), hex
  std::int64_t failed_step = -1, failed_node = -1;
  std::vector<std::pair<std::string, double>> phase_seconds;
  std::vector<std::pair<std::string, double>> action_seconds;  // "owner.action", this rank
  /// run.device_timeline (Scheduler::time_device): each action's device span and the
  /// device gap before it, seconds summed over the steps; empty without.
  struct DeviceTime {
    std::string action;  // "owner.action"
    double span = 0.0, gap = 0.0;
  };
  std::vector<DeviceTime> device_timeline;  // this rank
  std::vector<std::string> outputs;  // files written
  double partition_seconds = 0.0;    // counting fluid per brick, SCOTCH, this rank's voxels and mesh (more than one rank)
  /// What each rank holds and where its time went (more than one rank).
  struct Rank {
    std::uint64_t nodes = 0, edge_nodes = 0, halo_nodes = 0, neighbours = 0;
    std::uint64_t halo_bytes_per_step = 0;  // populations sent per step
    double halo_wait_seconds = 0.0;         // exposed halo time (HaloExchange::wait_seconds)
    std::uint64_t voxels_held = 0;          // the rank's voxel window (never the whole box)
    double message_bytes_per_step = 0.0;    // sent to other ranks by neighbour exchanges (Communicator::bytes_sent)
    std::vector<std::pair<std::string, double>> phase_seconds;
    std::vector<std::pair<std::string, double>> action_seconds;  // as RunSummary::action_seconds, this rank's
    std::vector<DeviceTime> device_timeline;                     // as RunSummary::device_timeline, this rank's
  };
  std::vector<Rank> rank_reports;
  double imbalance = 1.0;  // the largest rank's nodes over the mean
  /// A restarted run: the checkpoint it continued from, and that checkpoint's step.
  std::string restarted_from;
  std::int64_t first_step = 0;
  /// The last checkpoint this run wrote and its step (empty: none).
  std::string checkpoint;
  std::int64_t checkpoint_step = 0;
  /// Why the run ended before steps_requested without an error ("" otherwise): the
  /// wall-clock budget of [checkpoint] wall_seconds, or a signal.
  std::string stopped_early;
  /// The signal that stopped the run after a step, with a checkpoint ("SIGTERM"; ""
  /// otherwise): status "interrupted", exit code 4 (core/sim/stop_signals.hpp).
  std::string interrupted_by;
  /// DIR/divergence.json when the run diverged (core/sim/divergence_report.hpp).
  std::string divergence_report;

  std::string to_json() const;
};

/// Writes DIR/summary.json atomically (creating DIR).
void write_summary(const RunSummary& summary, const std::string& output_dir);

}  // namespace hemo
