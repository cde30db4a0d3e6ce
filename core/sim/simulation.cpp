#include "core/sim/simulation.hpp"

#include <unistd.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <limits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <fstream>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/cuda_runtime.hpp"
#include "core/exec/reduce.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/common/version.hpp"
#include "core/geometry/shapes.hpp"
#include "core/io/field_writer.hpp"
#include "core/io/json.hpp"
#include "core/io/write_failure.hpp"
#include "core/partition/brick_partition.hpp"
#include "core/setup/flow_numbers.hpp"
#include "core/setup/layout_choice.hpp"
#include "core/setup/resources.hpp"
#include "core/sim/case_schema.hpp"
#include "core/sim/checkpoint.hpp"
#include "core/sim/output_actions.hpp"
#include "core/sim/population_state.hpp"

namespace hemo {
namespace {
/// The scheduler's device clock on CUDA: events on the compute stream.
class StreamClock final : public DeviceClock {
 public:
  void resize(std::size_t slots) override { marks_.resize(slots); }
  void mark(std::size_t slot) override { marks_.mark(slot); }
  void wait(std::size_t slot) override { marks_.wait(slot); }
  double seconds(std::size_t from, std::size_t to) override { return marks_.seconds(from, to); }

 private:
  exec::cuda::StreamMarks marks_;
};
}  // namespace

namespace {

/// Whether the folder holds an earlier run's files (its summary or its snapshots' index).
bool holds_previous_run(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(dir) / "summary.json", ec) ||
         std::filesystem::exists(std::filesystem::path(dir) / "fields.xmf", ec);
}

/// A new run replaces what an earlier run wrote into the same folder (its snapshots,
/// probes, checkpoint, and the files of the plugins it loaded, whose names start with the
/// plugin's: docs/plugin-guide.md), so files of two runs never mix; anything else is left
/// alone. summary.json is left: the new run has already replaced it with its "running".
/// It gets here with --overwrite, or where that run left no results (take_output_folder).
void clear_previous_run(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  log::info("output: replacing the previous run's files in " + dir);
  std::vector<std::string> plugins;  // the previous run's, from the case.toml it wrote there
  if (fs::exists(fs::path(dir) / "case.toml", ec)) {
    try {
      plugins = config::Document::load((fs::path(dir) / "case.toml").string()).peek_strings("run.plugins", {});
    } catch (const std::exception& e) {
      log::warn(str("output: the previous run's case.toml in ", dir, " cannot be read (", e.what(),
                    "): its plugins' files are left"));
    }
  }
  const auto plugin_file = [&](const std::string& name) {
    return std::any_of(plugins.begin(), plugins.end(), [&](const std::string& p) {
      return !p.empty() && name.size() > p.size() && name.compare(0, p.size(), p) == 0 &&
             (name[p.size()] == '_' || name[p.size()] == '.');
    });
  };
  fs::remove_all(fs::path(dir) / "fields", ec);
  // Its checkpoint: the documented resubmit line (--restart DIR) must not continue the
  // run this one replaced (a fresh run over a checkpoint needs --overwrite, commands.cpp).
  fs::remove(fs::path(dir) / checkpoint_file_name, ec);
  // Particle snapshots and their collections (<set>.xmf) too: a restart into this folder
  // from another's checkpoint must not continue them (io::ParticleWriter).
  fs::remove_all(fs::path(dir) / "particles", ec);
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "case.toml" || entry.path().extension() == ".xmf" ||
        entry.path().extension() == ".csv" || (entry.is_regular_file(ec) && plugin_file(name)))
      fs::remove(entry.path(), ec);
  }
}

}  // namespace

Simulation::~Simulation() = default;

Simulation::Simulation(const RunOptions& options, RunSummary& summary, Stop stop) : summary_(summary) {
  started_ = std::chrono::steady_clock::now();
  if (options.comm) {
    comm_ = options.comm;
  } else {
    own_comm_ = comm::serial();
    comm_ = own_comm_.get();
  }
  summary_.ranks = comm_->size();
  summary_.case_file = options.case_path;
  progress_ = options.progress;

  // Set-up in stages, each using only what the ones before made: case -> geometry ->
  // (partition and) mesh -> backend and output folder -> fields and plugins -> output.
  read_case(options);
  build_geometry();
  if (stop == Stop::after_geometry) return;
  build_mesh_of_this_rank();
  plan_run();
  if (stop == Stop::after_mesh) return;
  select_backend();
  check_memory();
  prepare_output_folder(options);
  try {
    set_up_fields_and_plugins();
    set_up_output(options);
    finish_set_up();
  } catch (const std::bad_alloc& e) {
    // The plan fitted, yet an allocation failed (the estimate missed something, or others
    // took the memory meanwhile): the same advice as a refusal, instead of a crash.
    throw InputError(str("out of memory while setting up the run (", e.what(), "): this rank planned about ",
                         fmt_bytes(double(plan_.run_bytes())), " of ", space_ == exec::Space::cuda ? "device" : "host",
                         " memory (", plan_.describe_largest(4), "); make lattice.dx larger (nodes fall as dx^3), run on "
                         "more ranks", plan_.advice().empty() ? "" : str(", or set ", plan_.advice().front().setting),
                         " (docs/cluster.md, \"Memory\")"));
  }
}

void Simulation::read_case(const RunOptions& options) {
  config::Document doc = config::Document::load(options.case_path);
  for (const std::string& o : options.overrides) doc.apply_override(o);
  load_plugins(doc, options);

  check_every_ = config_.integer("run.check_every");
  fence_actions_ = config_.boolean("run.fence_actions");
  precision_ = config_.string("run.precision") == "fp32" ? Precision::fp32 : Precision::fp64;
  summary_.precision = to_string(precision_);
  summary_.backend = config_.string("run.backend");

  units_ = derive_units(config_);
  if (options.steps) {
    steps_ = *options.steps;
  } else if (config_.has("run.end_time")) {
    if (config_.has("run.steps"))
      config_.fail("run.end_time", str("give run.steps or run.end_time, not both (steps is set at ", config_.where("run.steps"), ")"));
    // Bounded before the conversion: a double beyond int64 converts to anything (UB).
    const double steps = std::ceil(config_.real("run.end_time") / units_.dt - 1e-9);
    if (!(steps <= 1e15))
      config_.fail("run.end_time", str("= ", fmt_g(config_.real("run.end_time")), " s is ", fmt_g(steps),
                                       " steps of lattice.dt = ", fmt_g(units_.dt), " s: more than 10^15"));
    steps_ = static_cast<std::int64_t>(steps);
    if (steps_ < 1) steps_ = 1;
  } else {
    steps_ = config_.integer("run.steps");
  }
  summary_.steps_requested = steps_;
  checkpoint_every_ = config_.integer("checkpoint.every");
  checkpoint_final_ = config_.boolean("checkpoint.final");
  if (config_.has("checkpoint.wall_seconds")) checkpoint_wall_seconds_ = config_.real("checkpoint.wall_seconds");
  if (!options.restart.empty()) open_restart(options.restart);
  summary_.dx = units_.dx;
  summary_.dt = units_.dt;
  summary_.tau = units_.tau;
}

void Simulation::build_geometry() {
  for (const auto& p : plugins_) {
    const std::array<bool, 3> axes = p->periodic_axes(config_);
    for (int d = 0; d < 3; ++d) periodic_[d] = periodic_[d] || axes[d];
  }
  // One rank holds the whole box, which must fit in memory; many ranks hold windows of
  // it, checked as they are chosen.
  const bool many = comm_->size() > 1;
  geometry::Geometry geometry(config_.section("geometry"), units_.dx,
                              many ? std::numeric_limits<std::int64_t>::max() : setup::voxel_limit());
  const std::array<int, 3> dims = geometry.frame().dims;
  if (first_step_ > 0 && restart_.dims != dims)
    throw InputError(str(restart_file_, ": the checkpoint's voxel box is ", restart_.dims[0], " x ", restart_.dims[1], " x ",
                         restart_.dims[2], ", this case's ", dims[0], " x ", dims[1], " x ", dims[2],
                         ": it was written for another geometry or resolution"));
  if (many) {
    partition_bricks(geometry);
    voxels_ = geometry.voxelize(window_of_this_rank(dims));
  } else {
    geometry::VoxelTally tally = geometry.tally();
    voxels_ = geometry.voxelize(geometry::VoxelWindow::whole(dims), &tally);
    geometry.finish(tally);
  }
  voxels_.characteristic_length = geometry.frame().characteristic_length;
  voxels_.description = geometry.frame().description;
  log::info(str("geometry: ", voxels_.description, "; ", dims[0], " x ", dims[1], " x ", dims[2], " voxels of dx = ",
                fmt_g(units_.dx), " m", many ? str("; this rank holds ", voxels_.held_count(), " of them") : ""));
}

void Simulation::partition_bricks(geometry::Geometry& geometry) {
  const auto t0 = std::chrono::steady_clock::now();
  const int edge = static_cast<int>(config_.integer("partition.brick"));
  const std::array<int, 3> dims = geometry.frame().dims;
  partition::BrickGrid bricks = partition::empty_bricks(dims, edge);

  // Pass 1: each rank voxelizes its share of the layers of bricks, one layer at a time,
  // and counts the fluid voxels per brick; no rank holds more than one layer.
  const std::int64_t layer_voxels = std::int64_t(dims[0]) * dims[1] * std::min(edge, dims[2]);
  if (layer_voxels > setup::voxel_limit())
    throw InputError(str("partition: a layer of bricks (", dims[0], " x ", dims[1], " x ", std::min(edge, dims[2]),
                         " voxels) does not fit in memory (limit ", setup::voxel_limit(),
                         " voxels); make partition.brick smaller or lattice.dx larger"));
  const int layers = bricks.dims[2], ranks = comm_->size(), rank = comm_->rank();
  geometry::VoxelTally tally = geometry.tally();
  partition::count_layers(geometry, int(std::int64_t(layers) * rank / ranks), int(std::int64_t(layers) * (rank + 1) / ranks),
                          bricks, tally);
  // Totals over the ranks: the bricks' counts, and what only the whole geometry can judge.
  {
    std::vector<std::uint64_t> counts(bricks.fluid.begin(), bricks.fluid.end());
    comm_->sum(counts);
    std::copy(counts.begin(), counts.end(), bricks.fluid.begin());
    std::vector<std::uint64_t> t{std::uint64_t(tally.fluid), std::uint64_t(tally.odd_rays)};
    for (const std::int64_t c : tally.obstacle_cut) t.push_back(std::uint64_t(c));
    comm_->sum(t);
    tally.fluid = std::int64_t(t[0]);
    tally.odd_rays = std::int64_t(t[1]);
    for (std::size_t o = 0; o < tally.obstacle_cut.size(); ++o) tally.obstacle_cut[o] = std::int64_t(t[2 + o]);
    tally.inside_distance = comm_->max(tally.inside_distance);
  }
  geometry.finish(tally);

  // Rank 0 partitions and sends the owners: every rank then builds its part from the
  // same owners, even if SCOTCH behaved differently in another process.
  std::vector<unsigned char> owners;
  if (rank == 0) {
    const partition::Partition p = partition::partition_bricks(bricks, ranks, periodic_);
    owners.resize(p.owner.size() * sizeof(std::int32_t));
    std::memcpy(owners.data(), p.owner.data(), owners.size());
    log::info(str("partition: ", ranks, " ranks, bricks of ", edge, "^3 voxels, imbalance (largest / mean) ",
                  fmt_g(p.imbalance(), 4)));
  }
  comm_->broadcast(owners, 0);
  brick_owner_.resize(owners.size() / sizeof(std::int32_t));
  std::memcpy(brick_owner_.data(), owners.data(), owners.size());
  bricks.fluid = {};
  bricks_ = std::move(bricks);
  summary_.partition_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

geometry::VoxelWindow Simulation::window_of_this_rank(const std::array<int, 3>& dims) const {
  const geometry::VoxelWindow w =
      partition::windows_of_parts(bricks_, brick_owner_, comm_->size(), dims, periodic_)[std::size_t(comm_->rank())];
  if (w.count() > setup::voxel_limit())
    throw InputError(str("partition: rank ", comm_->rank(), "'s part of the geometry spans ", w.extent[0], " x ",
                         w.extent[1], " x ", w.extent[2], " voxels, more than fit in memory (limit ", setup::voxel_limit(),
                         "); run on more ranks or make lattice.dx larger"));
  return w;
}

void Simulation::build_mesh_of_this_rank() {
  // Plugins shape the mesh (boundary link classes) before it is built.
  mesh::MeshRequest request;
  request.periodic = periodic_;
  std::vector<VelocityScale> velocity_scales;
  MeshStage mesh_stage{config_, units_, voxels_, request, velocity_scales, *comm_};
  for (auto& p : plugins_) p->shape_mesh(mesh_stage);
  derive_flow_numbers(velocity_scales);

  const auto ordering = mesh::ordering_from_string(config_.string("lattice.ordering"));
  const mesh::Layout layout = choose_layout();
  if (layout == mesh::Layout::bricks && comm_->size() > 1 && config_.integer("partition.brick") % mesh::brick_edge != 0)
    config_.fail("partition.brick", str("must be a multiple of ", mesh::brick_edge, " with lattice.layout = \"bricks\" "
                                        "(each brick of the layout has one owner)"));
  if (comm_->size() > 1) {
    const auto t0 = std::chrono::steady_clock::now();
    mesh::MeshPart part;
    part.rank = comm_->rank();
    part.owner = [this](int i, int j, int k) { return brick_owner_[std::size_t(bricks_.brick_of_voxel(i, j, k))]; };
    mesh_ = mesh::build_mesh(voxels_, request, ordering, &part, layout);
    summary_.partition_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } else {
    mesh_ = mesh::build_mesh(voxels_, request, ordering, nullptr, layout);
  }
  // Totals over the ranks (exact integer sums); the mesh bytes are the largest rank's.
  std::vector<std::uint64_t> counts{mesh_.num_fluid(), mesh_.wall_links, mesh_.num_nodes};
  for (std::size_t c = 0; c < mesh_.links.class_names.size(); ++c) counts.push_back(mesh_.links.count(static_cast<int>(c)));
  comm_->sum(counts);
  summary_.fluid_nodes = counts[0];
  summary_.voxels = static_cast<std::uint64_t>(mesh_.voxel_count());
  summary_.ordering = mesh::to_string(ordering);
  summary_.layout = mesh::to_string(layout);
  summary_.brick_slots = layout == mesh::Layout::bricks ? counts[2] : 0;
  summary_.mesh_bytes = static_cast<std::uint64_t>(comm_->max(double(mesh_.bytes())));
  // The vessel wall's links, halfway or interpolated (its coded class), under one name.
  summary_.links = {{"wall", counts[1]}};
  for (std::size_t c = 0; c < mesh_.links.class_names.size(); ++c) {
    if (int(c) == mesh_.links.wall_class) summary_.links[0].second += counts[3 + c];
    else summary_.links.emplace_back(mesh_.links.class_names[c], counts[3 + c]);
  }
  log::info("mesh: " + mesh_.describe());
  voxels_.fluid.clear();
  voxels_.fluid.shrink_to_fit();
  voxels_.solid_fraction.clear();
  voxels_.solid_fraction.shrink_to_fit();
}

mesh::Layout Simulation::choose_layout() {
  const std::string asked = config_.string("lattice.layout");
  if (asked != "auto") return mesh::layout_from_string(asked);
  // The rule and its measurements: core/setup/layout_choice.hpp. Every rank decides alike
  // (the fill's counts are summed).
  const bool several = comm_->size() > 1;
  std::string why = setup::bricks_excluded(config_.string("run.backend") == "cuda", periodic_, voxels_.dims, several,
                                           config_.integer("partition.brick"));
  double fill = 0.0;
  if (why.empty()) {
    const setup::BrickFill mine = setup::count_brick_fill(voxels_, [&](int i, int j, int k) {
      return !several || brick_owner_[std::size_t(bricks_.brick_of_voxel(i, j, k))] == comm_->rank();
    });
    std::vector<std::uint64_t> counts{mine.fluid, mine.bricks};
    comm_->sum(counts);
    fill = setup::BrickFill{counts[0], counts[1]}.fill();
    why = setup::fill_excludes_bricks(fill);
  }
  const bool bricks = why.empty();
  log::info(str("mesh: lattice.layout = \"auto\" chose ", bricks ? "bricks" : "the node list",
                bricks ? "" : str(" (", why, ")"),
                fill > 0 ? str("; bricks of 4^3 would be filled to ", fmt_f(fill, 3)) : ""));
  return bricks ? mesh::Layout::bricks : mesh::Layout::nodes;
}

std::string run_output_dir(const RunOptions& options) {
  return options.output_dir.empty()
             ? (std::filesystem::path("out") / std::filesystem::path(options.case_path).stem()).string()
             : options.output_dir;
}

void Simulation::prepare_output_folder(const RunOptions& options) {
  output_dir_ = run_output_dir(options);
  summary_.output_dir = output_dir_;

  // Before any plugin opens its own files there. Rank 0 writes every file of the run. A
  // run restarted from a checkpoint in its own output folder continues that folder's
  // series (CSV rows, snapshots) instead.
  if (comm_->rank() == 0) {
    std::error_code ec;
    const bool in_place = first_step_ > 0 && std::filesystem::equivalent(
                                                 output_dir_, std::filesystem::path(restart_file_).parent_path(), ec);
    if (in_place) io::FieldWriter::continue_series(output_dir_, first_step_);  // snapshots or not
    const bool replacing = !in_place && holds_previous_run(output_dir_);
    io::make_folder(output_dir_);  // WriteError naming the folder if it cannot be made
    // From here the folder is this run's: a summary that says so, which the end of the
    // run replaces. It replaces the earlier run's summary in one rename before anything
    // of that run goes, so a process killed while the folder is cleared leaves
    // "running", never an earlier "ok" beside a half-removed run, nor no summary at all.
    summary_.status = "running";
    write_summary(summary_, output_dir_);
    if (replacing) clear_previous_run(output_dir_);
  }
  comm_->barrier();
}

void Simulation::set_up_fields_and_plugins() {
  // Node fields count this rank's nodes; their rows run on over the halo (mesh stride).
  fields_ = std::make_unique<FieldRegistry>(space_, mesh_.num_nodes, mesh_.stride);
  halo_ = std::make_unique<HaloExchange>(*comm_, mesh_, space_, config_.string("run.halo_transport") == "auto");
  if (comm_->size() > 1 && space_ == exec::Space::cuda) {
    const std::uint64_t direct = comm_->sum(std::uint64_t(halo_->device_peer_count()));
    const std::uint64_t links = comm_->sum(std::uint64_t(halo_->peer_count()));
    summary_.halo_device_links = direct;
    summary_.halo_links = links;
    log::info(str("halo: ", direct, " of ", links, " rank-to-neighbour links device to device (CUDA IPC), the rest "
                  "through host memory (run.halo_transport = \"", config_.string("run.halo_transport"), "\")"));
  }
  // On CUDA the device runs behind the host: it waits where a result is read (a copy to
  // the host, a reduction, MPI staging) and after the last step. With run.fence_actions
  // it also waits after every action, for the time table's sake (and a faulting kernel
  // is named by its action). Either way the same kernels run in the same order on one
  // stream: the results are bitwise the same.
  Scheduler::Fence fence;
  if (space_ == exec::Space::cuda)
    fence = [](const std::string& action) { exec::cuda::synchronize_compute(action.c_str()); };
  scheduler_ = std::make_unique<Scheduler>(fence, fence_actions_);
  if (config_.boolean("run.device_timeline")) {
    if (space_ != exec::Space::cuda)
      config_.fail("run.device_timeline", "the device timeline times the CUDA device's stream; this run is on the CPU "
                                          "(run.backend = \"cpu\"), where each action's time is already its own");
    scheduler_->time_device(std::make_unique<StreamClock>());
  }
  declare_core_fields();

  SetupStage stage{config_,    units_,      mesh_,        *fields_, *scheduler_, space_,
                   precision_, output_dir_, check_every_, *comm_,   *halo_,      first_step_, {}};
  if (comm_->size() > 1) {
    stage.voxel_owner = [this](int i, int j, int k) { return brick_owner_[std::size_t(bricks_.brick_of_voxel(i, j, k))]; };
    // The map plugins get must say this rank for every node it owns (setup only, O(nodes)).
    for (std::uint32_t i = 0; i < mesh_.num_fluid(); ++i) {
      const std::uint32_t n = mesh_.fluid_node(i);
      if (stage.voxel_owner(mesh_.i[n], mesh_.j[n], mesh_.k[n]) != comm_->rank())
        throw std::logic_error(str("voxel_owner: node ", n, " at voxel (", mesh_.i[n], ", ", mesh_.j[n], ", ",
                                   mesh_.k[n], ") of rank ", comm_->rank(), " is said to be rank ",
                                   stage.voxel_owner(mesh_.i[n], mesh_.j[n], mesh_.k[n]), "'s"));
    }
  } else {
    stage.voxel_owner = [](int, int, int) { return 0; };
  }
  for (auto& p : plugins_) p->setup(stage);
  for (auto& p : plugins_) p->initialise(stage);
  if (first_step_ > 0) restore_restart();
  for (const char* required : {"density", "velocity", "f"})
    if (!fields_->contains(required))
      throw std::logic_error(str("no plugin declared the field '", required, "' (the lb plugin must)"));
}

void Simulation::set_up_output(const RunOptions& options) {
  // The case exactly as it runs (every --set applied), so any output can be reproduced
  // and analysed without the command line that made it.
  if (comm_->rank() == 0) {
    io::write_file_atomic((std::filesystem::path(output_dir_) / "case.toml").string(),
                          "# " + options.case_path + " as run by hemoflow " + version() + " (" + commit() + ")" +
                              (options.steps ? str("\n# --steps ", *options.steps, " overrode run.steps/run.end_time") : "") +
                              "\n" + config_.to_toml());
  }
  output_ = std::make_unique<OutputActions>(config_, mesh_, units_, output_dir_, steps_, space_, precision_, *comm_,
                                            first_step_);
  scheduler_->add(Phase::output, "write_output", "core", [this](StepContext& ctx) {
    output_->write(ctx.step, ctx.time, *ctx.fields);
  });
  scheduler_->add(Phase::output, "check_mass_nan", "core", [this](StepContext& ctx) {
    if (ctx.step % check_every_ == 0 || ctx.step == steps_) check_mass_and_finiteness(ctx.step);
  });
}

void Simulation::finish_set_up() {
  // The lb plugin's initialise left the initial density in "density"; a restarted run
  // measures its drift from the first run's.
  initial_mass_ = first_step_ > 0 ? restart_.initial_mass : comm_->sum(fields_->lookup("density").sum(0));
  summary_.field_bytes = fields_->bytes();
  summary_.population_storage = fields_->lookup("f").type_name();
  summary_.cpu_threads = omp_get_max_threads();
  if (space_ == exec::Space::cuda) {
    // Measured, not estimated: includes the CUDA context's allocations and padding.
    std::size_t free_now = 0, total = 0;
    exec::cuda::memory_info(free_now, total);
    summary_.device_memory_bytes = device_free_at_start_ - free_now;
  } else {
    summary_.device_memory_bytes = fields_->bytes();
  }
  log::info(str("fields: ", fmt_bytes(double(fields_->bytes())), " on ", exec::to_string(space_), " (",
                to_string(precision_), ")"));
  summary_.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Simulation::open_restart(const std::string& dir_or_file) {
  restart_file_ = checkpoint_path(dir_or_file);
  restart_ = read_checkpoint_info(restart_file_, *comm_);
  auto differs = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    throw InputError(str(restart_file_, ": the checkpoint has ", what, " = ", theirs, ", this case ", ours,
                         ": a restart continues the same run (same geometry, resolution, time step and precision)"));
  };
  if (restart_.precision != to_string(precision_)) differs("run.precision", restart_.precision, to_string(precision_));
  if (restart_.dx != units_.dx) differs("dx", fmt_g(restart_.dx, 17) + " m", fmt_g(units_.dx, 17) + " m");
  if (restart_.dt != units_.dt) differs("dt", fmt_g(restart_.dt, 17) + " s", fmt_g(units_.dt, 17) + " s");
  if (restart_.tau != units_.tau)
    log::warn(str(restart_file_, ": the checkpoint was written with tau = ", fmt_g(restart_.tau, 10), ", this run has tau = ",
                  fmt_g(units_.tau, 10), " (another viscosity): continuing with the new one"));
  if (restart_.step >= steps_)
    throw InputError(str(restart_file_, ": the checkpoint is after step ", restart_.step, ", and this run ends at step ",
                         steps_, ": raise run.steps (or --steps) to continue it"));
  first_step_ = restart_.step;
  summary_.restarted_from = restart_file_;
  summary_.first_step = first_step_;
  summary_.steps = first_step_;
  log::info(str("restart: from ", restart_file_, " (step ", restart_.step, ", t = ", fmt_g(restart_.time), " s, written on ",
                restart_.ranks, " rank(s) by ", restart_.written_by, ")"));
}

void Simulation::restore_restart() {
  restore_checkpoint(restart_file_, mesh_, *fields_, *comm_);
  for (const ParticleTable* t : fields_->particle_tables())
    log::info(str("restart: particle table '", t->name(), "' (", t->owner(), "): ", t->size(), " rows"));
  // The halo copies of what was restored, as every step expects them. A field streamed in
  // place was restored as f*_q in row q: with its halo it is rearranged for the step's
  // parity (population_state.hpp), and the halo is sent again.
  for (const FieldBase* f : fields_->list()) {
    if (!f->restart_state() || f->count() != mesh_.num_nodes) continue;
    FieldBase& field = fields_->lookup(f->name());
    auto exchange = [&] { visit_stored(field, [&](auto& typed) { halo_->exchange(typed); }); };
    exchange();
    if (field.in_place()) {
      post_collision_to_in_place(mesh_, field, first_step_);
      exchange();
    }
  }
}

void Simulation::write_checkpoint_after(std::int64_t step) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckpointInfo info;
  info.step = step;
  info.time = double(step) * units_.dt;
  info.precision = to_string(precision_);
  info.dims = mesh_.dims;
  info.dx = units_.dx;
  info.dt = units_.dt;
  info.tau = units_.tau;
  info.nodes = summary_.fluid_nodes;
  info.initial_mass = initial_mass_;
  info.ranks = comm_->size();
  info.written_by = str("hemoflow ", version(), " (", commit(), ")");
  info.case_file = summary_.case_file;
  const std::string path = (std::filesystem::path(output_dir_) / checkpoint_file_name).string();
  write_checkpoint(path, info, mesh_, *fields_, *comm_);
  summary_.checkpoint = path;
  summary_.checkpoint_step = step;
  log::info(str("checkpoint: ", path, " after step ", step, " (",
                fmt_f(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2), " s)"));
}

void Simulation::load_plugins(const config::Document& doc, const RunOptions& options) {
  const std::vector<std::string> names = doc.peek_strings("run.plugins", default_plugins());
  config::Schema schema;
  declare_core_schema(schema);
  int lb_count = 0;
  for (const std::string& name : names) {
    LoadedPlugin lp = options.loader.load(name);
    lp.descriptor->declare_config(schema);
    lb_count += lp.kind() == "lb";
    libraries_.push_back(std::move(lp));
  }
  if (lb_count != 1) {
    throw InputError(str(doc.source_name(), ": run.plugins must name exactly one plugin of kind 'lb' (got ", lb_count,
                         " in [", join(names, ", "), "]), e.g. \"lb_bgk\""));
  }
  config_ = doc.validate(schema);
  // Plugins act in kind order: the lb plugin declares the populations and moments the
  // others use; within a kind, in the order listed. "output" plugins (wall_shear) only
  // read the flow, after everything that changes it in the same phase.
  const char* order[] = {"lb", "boundary", "particles", "output"};
  for (const char* kind : order)
    for (const LoadedPlugin& lp : libraries_)
      if (lp.kind() == kind) plugins_.emplace_back(lp.descriptor->create());
  for (const LoadedPlugin& lp : libraries_)
    if (std::find(std::begin(order), std::end(order), lp.kind()) == std::end(order))
      plugins_.emplace_back(lp.descriptor->create());
  for (const LoadedPlugin& lp : libraries_) summary_.plugins.push_back(lp.name());
}

void Simulation::derive_flow_numbers(const std::vector<VelocityScale>& velocity_scales) {
  // Reference velocity: given, or the largest of what the case imposes: initial flow,
  // walls and inlets (reported by plugins), and the Poiseuille centre-line velocity the
  // body force would drive across the geometry's length.
  const double geometry_length = voxels_.characteristic_length;
  std::vector<VelocityScale> candidates = velocity_scales;
  const auto u0 = config_.vec3("initial.velocity");
  candidates.push_back({std::sqrt(u0[0] * u0[0] + u0[1] * u0[1] + u0[2] * u0[2]), "initial.velocity"});
  const auto g = config_.vec3("forcing.acceleration");
  const double gmag = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  if (gmag > 0.0)
    candidates.push_back({setup::poiseuille_centre_velocity(gmag, geometry_length, units_.viscosity,
                                                            config_.string("geometry.shape") != "box"),
                          "Poiseuille estimate from forcing.acceleration"});
  const VelocityScale* chosen = nullptr;
  if (config_.has("flow.reference_velocity")) {
    flow_.velocity = config_.real("flow.reference_velocity");
    flow_.velocity_source = "flow.reference_velocity";
  } else {
    for (const VelocityScale& c : candidates)
      if (c.velocity > flow_.velocity) {
        flow_.velocity = c.velocity;
        flow_.velocity_source = c.source;
        chosen = &c;
      }
  }
  // Reference length: given; or the one that goes with the reference velocity (a
  // velocity inlet's diameter); or the geometry's.
  if (config_.has("flow.reference_length")) {
    flow_.length = config_.real("flow.reference_length");
    flow_.length_source = "flow.reference_length";
  } else if (chosen && chosen->length > 0.0) {
    flow_.length = chosen->length;
    flow_.length_source = chosen->length_source;
  } else {
    flow_.length = geometry_length;
    flow_.length_source = setup::geometry_length_source(config_.string("geometry.shape"));
  }
  flow_.u_lattice = units_.velocity_to_lattice(flow_.velocity);
  flow_.mach = flow_.u_lattice * std::sqrt(3.0);
  flow_.reynolds = flow_.velocity * flow_.length / units_.viscosity;
  summary_.mach = flow_.mach;
  summary_.reynolds = flow_.reynolds;

  log::info(str("units: dx = ", fmt_g(units_.dx), " m, dt = ", fmt_g(units_.dt), " s, tau = ", fmt_g(units_.tau, 6),
                " (nu = ", fmt_g(units_.viscosity), " m^2/s, lattice nu = ", fmt_g(units_.nu_lattice(), 4), ")"));
  if (flow_.velocity > 0.0) {
    log::info(str("flow: U = ", fmt_g(flow_.velocity, 4), " m/s (", flow_.velocity_source, "), L = ",
                  fmt_g(flow_.length, 4), " m (", flow_.length_source, "): Mach = ", fmt_g(flow_.mach, 3),
                  " (u_lattice = ", fmt_g(flow_.u_lattice, 3), "), Reynolds = ", fmt_g(flow_.reynolds, 4)));
  } else {
    log::info("flow: no velocity scale known (no forcing, moving wall, velocity iolet or initial velocity); "
              "set flow.reference_velocity to get the Mach and Reynolds numbers");
  }
  check_mach(config_, units_, flow_, config_.real("flow.max_mach"));
  if (flow_.mach > mach_warning) {
    log::warn(str("Mach number ", fmt_g(flow_.mach, 3), " > ", mach_warning,
                  ": compressibility errors grow as Mach^2; reduce lattice.dt (or lattice.tau) or refine dx"));
  }
}

void Simulation::plan_run() {
  plan_ = MemoryPlan(mesh_.num_nodes, mesh_.stride);
  // The core's fields (declare_core_fields, declare_lattice_fields): the layout's
  // addressing and the coded links.
  const std::uint64_t links = mesh_.links.size();
  if (mesh_.layout == mesh::Layout::nodes) {
    plan_.node_field("core", "neighbours", 18, sizeof(std::uint32_t));
  } else {
    const std::uint64_t bricks = mesh_.num_bricks;
    plan_.array("core", "brick_table", 27 * bricks, sizeof(std::uint32_t));
    plan_.array("core", "fluid_mask", bricks, sizeof(std::uint64_t));
    plan_.array("core", "link_mask", bricks, sizeof(std::uint64_t));
    plan_.array("core", "link_first", bricks, sizeof(std::uint32_t));
    plan_.node_field("core", "link_word", 1, sizeof(std::uint32_t));
  }
  const bool fluid_links = std::any_of(mesh_.links.source.begin(), mesh_.links.source.end(),
                                       [](std::uint32_t s) { return s != mesh::wall_link; });
  plan_.array("core", "link_source", fluid_links ? links : 0, sizeof(std::uint32_t));
  plan_.array("core", "link_node", links, sizeof(std::uint32_t));
  plan_.array("core", "link_direction", links, sizeof(std::uint8_t));
  plan_.array("core", "link_value", links, precision_ == Precision::fp32 ? sizeof(float) : sizeof(double));
  // The halo exchange's lists of the nodes sent and received (core/fields/halo_exchange).
  plan_.array("core", "halo node lists", 2 * std::uint64_t(mesh_.num_halo), sizeof(std::uint32_t));

  const exec::Space space = config_.string("run.backend") == "cuda" ? exec::Space::cuda : exec::Space::host;
  PlanStage stage{config_, units_, flow_, mesh_, precision_, space, *comm_, plan_};
  for (auto& p : plugins_) p->plan(stage);
  log::info(str("memory: about ", fmt_bytes(double(plan_.run_bytes())), " of ", space == exec::Space::cuda ? "device" : "host",
                " memory", comm_->size() > 1 ? " on this rank" : "", " (", plan_.describe_largest(4), ")"));
}

void Simulation::check_memory() {
  MemoryContext context;
  context.rank = comm_->rank();
  context.ranks = comm_->size();
  context.dx = units_.dx;
  const int local = setup::ranks_on_this_node(comm_->size(), comm_->describe().rfind("in-process", 0) == 0);
  const std::uint64_t user = memory_limit_from_environment();
  if (space_ == exec::Space::cuda) {
    const int device = exec::cuda::current_device(), devices = std::max(1, exec::cuda::device_count());
    context.memory = str("memory of GPU ", device);
    if (user) {
      context.available = {user, "HEMO_MEMORY_LIMIT_BYTES", true};
    } else {
      context.available = {device_free_at_start_, str("free on GPU ", device, " at the start (cudaMemGetInfo)"), false};
      context.sharing = setup::ranks_per_device(local, devices);
    }
  } else {
    context.available = host_memory_available();
    if (!context.available.from_user) context.sharing = local;
  }
  // One verdict for every rank: the rank that lacks the most tells the others.
  const std::string mine = memory_refusal(plan_, context);
  std::vector<double> shortfall(std::size_t(comm_->size()), 0.0);
  if (!mine.empty())
    shortfall[std::size_t(comm_->rank())] = double(plan_.run_bytes()) / double(std::max<std::uint64_t>(usable_bytes(context), 1));
  comm_->sum(shortfall);
  const auto worst = std::max_element(shortfall.begin(), shortfall.end());
  if (*worst == 0.0) {
    if (context.available.bytes)
      log::info(str("memory: ", fmt_bytes(double(plan_.run_bytes())), " planned, ",
                    fmt_bytes(double(usable_bytes(context))), " usable (",
                    context.available.source, context.sharing > 1 ? str(", shared by ", context.sharing, " ranks") : "",
                    ", less a ", int(memory_margin * 100 + 0.5), "% margin)"));
    return;
  }
  const int root = int(worst - shortfall.begin());
  std::vector<unsigned char> message(mine.begin(), mine.end());
  comm_->broadcast(message, root);
  throw InputError(std::string(message.begin(), message.end()));
}

void Simulation::select_backend() {
  const std::string backend = config_.string("run.backend");
  if (backend == "cuda") {
    if (!exec::cuda_built()) {
      config_.fail("run.backend", "this hemoflow was built without CUDA; use backend = \"cpu\" or rebuild with nvcc");
    }
    const int count = exec::cuda::device_count();
    if (count == 0) config_.fail("run.backend", "no CUDA device is visible on this machine");
    int device = static_cast<int>(config_.integer("run.device"));
    if (device < 0) {
      // One rank per GPU: ranks on a node share its devices by local rank.
      const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
      if (!local) local = std::getenv("SLURM_LOCALID");
      device = (local ? std::atoi(local) : 0) % count;
    }
    if (device >= count) config_.fail("run.device", str("device ", device, " requested but only ", count, " visible"));
    exec::cuda::select_device(device);
    std::size_t total = 0;
    exec::cuda::memory_info(device_free_at_start_, total);
    const auto info = exec::cuda::devices()[static_cast<std::size_t>(device)];
    space_ = exec::Space::cuda;
    summary_.device = str(info.name, " (device ", device, ", sm_", info.sm_major, info.sm_minor, ", ",
                          fmt_bytes(double(info.memory_bytes)), ")");
  } else {
    space_ = exec::Space::host;
    summary_.device = str(setup::cpu_model(), ", ", omp_get_max_threads(), " OpenMP thread(s)");
  }
  log::info("backend: " + summary_.backend + " on " + summary_.device);
}

void Simulation::declare_core_fields() {
  // The mesh's addressing (neighbour table, or brick tables) and boundary links, on the
  // run's backend, for kernels.
  declare_lattice_fields(*fields_, mesh_);
  const auto links = static_cast<std::uint32_t>(mesh_.links.size());
  auto& link_node = fields_->declare_array<std::uint32_t>("link_node", 1, links, "core", "node of each coded link");
  auto& link_dir = fields_->declare_array<std::uint8_t>("link_direction", 1, links, "core", "direction of each coded link");
  if (links) {
    link_node.array().upload(mesh_.links.node);
    link_dir.array().upload(mesh_.links.direction);
  }
  if (precision_ == Precision::fp32)
    fields_->declare_array<float>("link_value", 1, links, "core", "population added on each coded link (plugins fill)");
  else
    fields_->declare_array<double>("link_value", 1, links, "core", "population added on each coded link (plugins fill)");
}

}  // namespace hemo
