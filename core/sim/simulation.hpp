#pragma once
// One run of a case: case file -> config -> geometry -> sparse mesh -> fields ->
// scheduler loop (plugins act on fields) -> output. Data flows one way through the
// constructor; run() then steps the scheduler.
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/config/config.hpp"
#include "core/fields/field_registry.hpp"
#include "core/fields/halo_exchange.hpp"
#include "core/geometry/voxel_grid.hpp"
#include "core/partition/brick_partition.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/plugin/loader.hpp"
#include "core/scheduler/scheduler.hpp"
#include "core/sim/checkpoint.hpp"
#include "core/sim/divergence_report.hpp"
#include "core/sim/memory_plan.hpp"
#include "core/sim/step_times.hpp"
#include "core/sim/summary.hpp"
#include "core/sim/units.hpp"

namespace hemo::geometry {
class Geometry;
}

namespace hemo {

class OutputActions;

enum class ProgressMode { automatic, always, never };

struct RunOptions {
  std::string case_path;
  std::vector<std::string> overrides;  // "section.key=value" (--set, --backend)
  std::optional<std::int64_t> steps;   // --steps: wins over run.steps and run.end_time
  std::string output_dir;              // empty: out/<case file stem>
  ProgressMode progress = ProgressMode::automatic;
  PluginLoader loader{};
  /// The ranks of this run; null: one rank (serial). Not owned.
  comm::Communicator* comm = nullptr;
  /// --restart: an output folder holding checkpoint.h5, or a checkpoint file. The run
  /// continues from the checkpoint's step to its end step (run.steps, --steps).
  std::string restart;
  /// --overwrite: a fresh run may replace a folder's checkpoint (a run that could be
  /// continued), which it otherwise refuses.
  bool overwrite = false;
};

/// The run's output folder: --output, else out/<case file stem>.
std::string run_output_dir(const RunOptions& options);

class Simulation {
 public:
  enum class Stop { after_geometry, after_mesh, full };
  /// Reads, validates and sets up the case. With Stop::after_mesh (hemoflow check) it
  /// stops once the mesh exists and the plugins have checked the case against the flow
  /// numbers and planned their memory: no fields are allocated and nothing runs. With
  /// Stop::after_geometry (hemoflow mesh) it stops once the voxels exist.
  Simulation(const RunOptions& options, RunSummary& summary, Stop stop = Stop::full);
  ~Simulation();
  /// The voxelized geometry (after set-up; plugins may have cut iolets into it).
  const geometry::VoxelGrid& voxels() const { return voxels_; }
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Steps to the end. Fills the summary as it goes (so a failure still reports the
  /// steps done). Throws DivergenceError on NaN.
  void run();

  const config::Config& config() const { return config_; }
  const LatticeUnits& units() const { return units_; }
  const mesh::SparseMesh& mesh() const { return mesh_; }
  const FlowNumbers& flow_numbers() const { return flow_; }
  /// What this rank will allocate (planned before anything is; memory_plan.hpp).
  const MemoryPlan& memory_plan() const { return plan_; }
  FieldRegistry& fields() { return *fields_; }
  std::int64_t steps() const { return steps_; }

 private:
  // The stages of set-up, in order (the constructor).
  void read_case(const RunOptions& options);
  void build_geometry();
  void build_mesh_of_this_rank();
  /// The plugins' checks of the case against the flow numbers (Plugin::plan), and what
  /// this rank will allocate (plan_): the last stage of hemoflow check.
  void plan_run();
  /// Refuses (InputError on every rank) a run whose plan does not fit in the memory its
  /// fields go to (the device's free memory, or the host's), with what to change.
  void check_memory();
  /// lattice.layout, with "auto" decided from the backend and the bricks' fill.
  mesh::Layout choose_layout();
  void prepare_output_folder(const RunOptions& options);
  void set_up_fields_and_plugins();
  void set_up_output(const RunOptions& options);
  void finish_set_up();

  void load_plugins(const config::Document& doc, const RunOptions& options);
  void derive_flow_numbers(const std::vector<VelocityScale>& velocity_scales);
  void select_backend();
  void declare_core_fields();
  void check_mass_and_finiteness(std::int64_t step);
  /// The density monitor: this check's least and largest density over all ranks into
  /// summary_ (relative to the initial mean density).
  void record_density_range(std::int64_t step, const exec::SumRange& rho);
  std::uint64_t population_checksum() const;
  /// With more than one rank: pass 1 counts the fluid per brick (each rank voxelizes its
  /// share of the layers of bricks), the totals finish the geometry's checks, rank 0
  /// partitions the bricks with SCOTCH and every rank gets the owners (brick_owner_).
  void partition_bricks(geometry::Geometry& geometry);
  /// The voxels this rank holds (partition::windows_of_parts), checked against memory.
  geometry::VoxelWindow window_of_this_rank(const std::array<int, 3>& dims) const;
  /// Per-rank nodes, halo and phase times into the summary (a collective).
  void report_ranks();
  /// --restart: reads the checkpoint's attributes and checks them against this case
  /// (precision, dx, dt, the voxel box); sets first_step_.
  void open_restart(const std::string& dir_or_file);
  /// Fills the restart-state fields from the checkpoint and their halos.
  void restore_restart();
  /// Writes <output>/checkpoint.h5 after `step` (a collective).
  void write_checkpoint_after(std::int64_t step);
  /// The same from the time loop: a failed write says which earlier checkpoint is kept.
  void checkpoint_after(std::int64_t step);

  RunSummary& summary_;
  std::unique_ptr<comm::Communicator> own_comm_;  // serial, when the options bring none
  comm::Communicator* comm_ = nullptr;
  // Loaded libraries are declared first so they are unloaded last, after every object
  // whose code lives in them (plugins, scheduler actions).
  std::vector<LoadedPlugin> libraries_;
  config::Config config_;
  LatticeUnits units_;
  FlowNumbers flow_;
  MemoryPlan plan_;
  geometry::VoxelGrid voxels_;   // this rank's window of the voxel box
  std::array<bool, 3> periodic_{false, false, false};  // from the plugins' periodic_axes
  partition::BrickGrid bricks_;  // the bricks (dims and edge; counts dropped) with more than one rank
  std::vector<std::int32_t> brick_owner_;  // per brick, its rank (SetupStage::voxel_owner); 4 B a brick
  mesh::SparseMesh mesh_;
  exec::Space space_ = exec::Space::host;
  Precision precision_ = Precision::fp64;
  std::int64_t steps_ = 0;
  std::int64_t first_step_ = 0;  // > 0: restarted after this step
  std::uint64_t bytes_sent_at_start_ = 0;  // Communicator::bytes_sent when stepping began
  std::string restart_file_;
  CheckpointInfo restart_;       // what the checkpoint says (restarts only)
  std::int64_t checkpoint_every_ = 0;
  double checkpoint_wall_seconds_ = 0.0;  // 0: no wall-clock budget
  bool checkpoint_final_ = false;
  std::chrono::steady_clock::time_point started_;
  std::int64_t check_every_ = 100;
  bool fence_actions_ = false;  // run.fence_actions: the device waited for after every action
  std::string output_dir_;
  ProgressMode progress_ = ProgressMode::automatic;
  std::unique_ptr<FieldRegistry> fields_;
  std::unique_ptr<HaloExchange> halo_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<OutputActions> output_;
  std::vector<std::unique_ptr<Plugin>> plugins_;
  double initial_mass_ = 0.0;
  std::size_t device_free_at_start_ = 0;
  StepTimes step_times_;  // the host's time in each step's actions (summary.json "step_seconds")
  SpeedHistory speed_history_{1};  // the largest speeds of the last monitor steps (divergence_report.hpp)
};

}  // namespace hemo
