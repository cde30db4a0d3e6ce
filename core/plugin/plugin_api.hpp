#pragma once
// The interface between hemoflow and its plugins. A plugin is a shared library that
// exports one descriptor (HEMO_EXPORT_PLUGIN). It touches the core only through
//   - its config schema (declare_config),
//   - the mesh request (periodic axes, boundary link classes) before the mesh is built,
//   - fields (declare, look up) and scheduler phases (register actions) after.
// Plugins are loaded with Boost.DLL by core/plugin/loader.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/exec/space.hpp"
#include "core/fields/field_registry.hpp"
#include "core/fields/halo_exchange.hpp"
#include "core/geometry/voxel_grid.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/scheduler/scheduler.hpp"
#include "core/sim/memory_plan.hpp"
#include "core/sim/units.hpp"

namespace hemo {

/// Bumped whenever this header, or a type it exposes, changes layout or meaning.
inline constexpr int plugin_abi_version = 23;  // 23: FieldBase::sum_range; 22: geometry::WallCut and VoxelGrid::wall_cuts, LinkClass::vessel_wall, MeshRequest::add_vessel_wall_class, BoundaryLinks::wall_class, SparseMesh::pulls_from_wall; 21: Scheduler::require_relaxation_time; 20: Communicator::start_exchange non-virtual (counts bytes_sent), implementations override post_exchange; 19: Scheduler::require_viscous_stress, StepContext::stress_due; 18: HaloExchange device-to-device members, exec::cuda::AsyncCopy; 17: FieldBase optional restart state, Scheduler::add_before_checkpoint; 16: Scheduler fences each action only with run.fence_actions; 15: Plugin::plan; 14: geometry::SurfacePoint::triangle; 13: Scheduler::add_run_end (12: HaloExchange staging in exec::HostBuffer)

/// A velocity a plugin imposes, for the Mach and Reynolds numbers, with the length that
/// goes with it where the plugin knows one (a velocity inlet: its diameter). When this
/// velocity is the largest of the case, the Reynolds number uses this length; without
/// one (length 0), the geometry's (pipe diameter, smallest box edge...).
struct VelocityScale {
  double velocity = 0.0;           // m/s
  std::string source = {};         // what imposes it, for the log: "iolet 'inlet'"
  double length = 0.0;             // m; 0: none
  std::string length_source = {};  // what the length is: "diameter of iolet 'inlet'"
};

/// Before the mesh exists.
struct MeshStage {
  const config::Config& config;
  const LatticeUnits& units;
  /// The voxels this rank's mesh will be built from: the whole box on one rank, on many
  /// the window around the rank's bricks (VoxelGrid::window; `holds` tells). A boundary
  /// may turn held fluid voxels solid (an iolet cuts the vessel at its plane), never the
  /// reverse, and must decide each voxel from the voxel alone, so that every rank holding
  /// it decides alike. A check that needs the whole geometry counts over the voxels held
  /// and sums with `comm`.
  geometry::VoxelGrid& voxels;
  mesh::MeshRequest& request;
  /// The velocities the plugins impose, for the Mach and Reynolds numbers.
  std::vector<VelocityScale>& velocity_scales;
  comm::Communicator& comm;
};

/// After the mesh exists, on the run's backend. The mesh is this rank's part: plugins
/// update nodes [0, mesh.num_nodes), sum what they report with `comm` and write files on
/// rank 0 only; a plugin that pulls from neighbour nodes exchanges their halo with `halo`
/// (halo_exchange.hpp).
struct SetupStage {
  const config::Config& config;
  const LatticeUnits& units;
  const mesh::SparseMesh& mesh;
  FieldRegistry& fields;
  Scheduler& scheduler;
  exec::Space space;
  Precision precision;
  std::string output_dir;      // where the run writes; plugins add their own CSV files
  std::int64_t check_every;    // steps between monitor records (run.check_every)
  comm::Communicator& comm;
  HaloExchange& halo;
  /// 0 for a fresh run; the checkpoint's step for a run restarted with --restart (its
  /// first step is first_step + 1). The fields that carry state (FieldBase::
  /// restart_state) are restored after initialise(), and so are the particle tables:
  /// resized to the checkpoint's rows, their restart-state and `id` columns filled, their
  /// bound restart values set (ParticleTable::bind_restart_value), so a plugin leaves its
  /// tables empty on a restart. A plugin's monitor files continue their rows from this
  /// step (io::SeriesCsv, core/io/series_csv.hpp).
  std::int64_t first_step = 0;
  /// The rank that owns fluid voxel (i, j, k) of the box: its partition brick's owner,
  /// -1 for a brick with no fluid; 0 everywhere on one rank. Plugins that keep state
  /// per place (particles) find whose a place is with it; valid for the whole run.
  std::function<int(int, int, int)> voxel_owner;
};

/// After the mesh and the flow numbers exist, before anything is allocated; `hemoflow
/// check` stops after it. A plugin refuses here what it cannot run (InputError naming the
/// key, its value, the limit and the nearest setting that works) and declares the bytes
/// its setup() will allocate on this rank, so that a run that would not fit in memory is
/// refused before it starts (core/sim/memory_plan.hpp).
struct PlanStage {
  const config::Config& config;
  const LatticeUnits& units;
  const FlowNumbers& flow;     // the reference velocity (m/s) and u_lattice, Mach, Reynolds
  const mesh::SparseMesh& mesh;  // this rank's
  Precision precision;
  exec::Space space;           // the backend the run will use (run.backend)
  comm::Communicator& comm;
  /// Each field (name as declared), table and buffer of at least O(nodes) or O(links)
  /// bytes, and the settings that would shrink them (MemoryPlan::advise).
  MemoryPlan& memory;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  /// Optional: the axes along which the domain wraps around, from the config alone. Asked
  /// before the geometry is voxelized (a rank's voxel window must reach across them);
  /// the mesh request of shape_mesh then has them set.
  virtual std::array<bool, 3> periodic_axes(const config::Config&) const { return {false, false, false}; }
  /// Optional: asks for boundary link classes.
  virtual void shape_mesh(MeshStage&) {}
  /// Optional: checks the case against the flow numbers and declares its memory (PlanStage).
  virtual void plan(PlanStage&) {}
  /// Declares the fields it owns and registers its actions.
  virtual void setup(SetupStage& stage) = 0;
  /// Called after every plugin's setup: sets the initial state, looks up fields that
  /// other plugins declared.
  virtual void initialise(SetupStage&) {}
};

struct PluginDescriptor {
  const char* name;     // "lb_bgk": also the file name hemo_plugin_<name>.so
  const char* kind;     // "lb", "boundary", "particles", "output" (acts in this order)
  const char* version;  // "0.1.0"
  const char* summary;  // one line for `hemoflow info`
  void (*declare_config)(config::Schema& schema);
  Plugin* (*create)();  // ownership passes to the caller
};

}  // namespace hemo

/// Exports a plugin's descriptor and the ABI version it was built against. The loader
/// reads hemo_plugin_abi first, so a mismatch is reported before any C++ type is used.
#define HEMO_EXPORT_PLUGIN(descriptor)                                                        \
  extern "C" __attribute__((visibility("default"))) const int hemo_plugin_abi = hemo::plugin_abi_version; \
  extern "C" __attribute__((visibility("default"))) const hemo::PluginDescriptor* hemo_plugin_descriptor() { \
    return &(descriptor);                                                                     \
  }
