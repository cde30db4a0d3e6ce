#pragma once
// The time loop's structure: each step runs fixed phases in order; core and plugins
// register named actions into phases. Every action is timed, and the table of times is
// printed at the end of a run and written into summary.json (phase_seconds).
//
// Phases (DESIGN.md) and what runs in them today:
//   begin_step        time-dependent boundary values (boundaries)
//   particles         (RBC dynamics, later)
//   coupling          (particle -> fluid forces, later)
//   collide_edge      fused collide-stream on the nodes other ranks pull from (lb_bgk, N ranks)
//   halo_send         pack those nodes' crossing populations, send (lb_bgk via HaloExchange)
//   collide_interior  fused collide-stream on all other nodes (lb_bgk)
//   halo_receive      wait for the neighbours' populations, place them in the halo
//   boundaries        boundary fix-ups that need the streamed populations (later: iolets)
//   end_step          A-B population swap (lb_bgk)
//   output            fields, probes, the mass and NaN monitor (core), wall shear (wall_shear)
// and, once after the last step, the run-end actions (add_run_end: wall_shear's statistics).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hemo {

class FieldRegistry;

enum class Phase : int {
  begin_step,
  particles,
  coupling,
  collide_edge,
  halo_send,
  collide_interior,
  halo_receive,
  boundaries,
  end_step,
  output,
  count
};
const char* to_string(Phase p);

/// What an action sees each step.
struct StepContext {
  std::int64_t step = 0;   // the update being made: 1, 2, ..., steps
  double time = 0.0;       // s, physical time after this update
  bool moments_due = false;  // this step's density and velocity fields are needed
  bool snapshot_due = false; // this step writes a snapshot (plugins add their own files)
  bool stress_due = false;   // the LB plugin writes this step's "viscous_stress" (require_viscous_stress)
  FieldRegistry* fields = nullptr;
};

/// The device's own clock (run.device_timeline): numbered marks, each queued behind the
/// device work issued before it, read once the device has passed them. On CUDA, events on
/// the compute stream (exec::cuda::StreamMarks); the scheduler sees only this interface.
class DeviceClock {
 public:
  virtual ~DeviceClock() = default;
  /// Room for `slots` marks (before the first mark; a second call may drop them all).
  virtual void resize(std::size_t slots) = 0;
  virtual void mark(std::size_t slot) = 0;
  /// Blocks until the device has passed mark `slot`.
  virtual void wait(std::size_t slot) = 0;
  /// Seconds from mark `from` to mark `to`, both passed (negative where `to` came first).
  virtual double seconds(std::size_t from, std::size_t to) = 0;
};

class Scheduler {
 public:
  using Action = std::function<void(StepContext&)>;

  /// `fence(action name)` is called after each action before its clock stops, so
  /// asynchronous backends are timed honestly (for CUDA: wait for the compute stream,
  /// which also reports a faulting kernel by its action's name).
  using Fence = std::function<void(const std::string&)>;
  /// `fence_each_action`: the fence after every fenced action (run.fence_actions);
  /// otherwise only after the steps (finish_steps) and the run-end actions.
  explicit Scheduler(Fence fence = {}, bool fence_each_action = true)
      : fence_(std::move(fence)), fence_each_action_(fence_each_action) {}
  /// Waits for the device work the steps queued (the wall time of the steps includes it),
  /// and reads the device timeline's marks not yet read.
  void finish_steps() {
    if (fence_) fence_("the last step");
    read_device_marks(true);
  }
  /// The device timeline (run.device_timeline; a diagnostic): every action of every step
  /// is bracketed by two marks on the device's clock, so that each action gets, besides
  /// its host time, its device span (from where the device reached the action, having
  /// finished all earlier work, to where it finished the action's work: the action's
  /// kernels and copies, and any time the device idled while the host waited inside the
  /// action) and the device gap before it (the device idle because the host had not yet
  /// got to the action: from the previous action's end mark to this one's start mark).
  /// Per step, the spans and gaps add up to the device's time from the step's first mark
  /// to its last; the gap before a step's first action is that from the previous step's
  /// last mark. The marks of a step are read after the next step has been queued (never a
  /// wait of their own there), the last ones by finish_steps.
  void time_device(std::unique_ptr<DeviceClock> clock) { device_ = std::move(clock); }
  bool times_device() const { return device_ != nullptr; }
  /// Whether the time table's times include each action's device work.
  bool fences_each_action() const { return fence_each_action_ || !fence_; }

  /// fenced: the fence runs after the action (its time includes its device work).
  /// overlapped: no fence, so device work it queues may run on while later actions start
  /// (the halo exchange overlapping the interior); its time is then that of the host
  /// work only, and its device work is timed by the next fenced action.
  enum class Sync { fenced, overlapped };
  void add(Phase phase, std::string name, std::string owner, Action action, Sync sync = Sync::fenced);
  /// A plugin that reads the fluid's density and velocity every step (particles coupled
  /// to the flow) asks for them here; otherwise the time loop computes them only on
  /// output and monitor steps.
  void require_moments_every_step(const std::string& who) { moments_every_step_.push_back(who); }
  bool moments_every_step() const { return !moments_every_step_.empty(); }
  /// A plugin that couples particles to the plasma every step asks for the plasma's
  /// velocity at the start of the step: the node field "streamed_velocity", which the LB
  /// plugin computes first in the particles phase from the populations that stream into each
  /// node (the last step's "velocity" is a streaming step older; a drag coupled through
  /// that lag is unstable under dense cells, docs/rbc.md).
  void require_streamed_velocity(const std::string& who) { streamed_velocity_.push_back(who); }
  bool streamed_velocity_required() const { return !streamed_velocity_.empty(); }
  /// A plugin that reads the viscous stress at some nodes (wall_shear) asks the LB plugin
  /// to compute it inside its collide-stream kernel, on the steps where `due(step)` is true
  /// and on every step that computes the moments: the node field "viscous_stress" (6 rows:
  /// xx, yy, zz, xy, xz, yz, lattice units), written at the nodes where the node field
  /// "viscous_stress_nodes" (one byte a node) is not 0, from the populations that step's
  /// collision relaxes, the state its density and velocity are of. The requester declares
  /// and fills both fields in its setup; an LB plugin able to compute the stress says so
  /// with offer_viscous_stress (lb_bgk), which the requester checks in its initialise.
  void require_viscous_stress(const std::string& who, std::function<bool(std::int64_t)> due) {
    viscous_stress_.push_back({who, std::move(due)});
  }
  bool viscous_stress_required() const { return !viscous_stress_.empty(); }
  /// Whether step `step` must compute the viscous stress (`moments_due`: the step's).
  bool viscous_stress_due(std::int64_t step, bool moments_due) const {
    if (viscous_stress_.empty()) return false;
    return moments_due || std::any_of(viscous_stress_.begin(), viscous_stress_.end(),
                                      [step](const StressRequest& r) { return r.due(step); });
  }
  /// A plugin whose work depends on each node's relaxation time where it varies from node
  /// to node (lb_vlbm's viscosity-weighted share under the Smagorinsky eddy viscosity)
  /// asks the LB plugin to write it every step, with the viscous stress's kernel variant:
  /// the node field "relaxation_time" (tau_eff = 1 / omega_eff, lattice units) at the
  /// nodes where the node field "relaxation_time_nodes" (one byte a node) is not 0, the
  /// tau that step's collision relaxed the node at. The requester declares and fills both
  /// fields in its setup (the first with lattice.tau, for the first step).
  void require_relaxation_time(const std::string& who) { relaxation_time_.push_back(who); }
  bool relaxation_time_required() const { return !relaxation_time_.empty(); }
  void offer_viscous_stress(const std::string& who) { stress_provider_ = who; }
  /// The LB plugin that computes the viscous stress, "" if none.
  const std::string& viscous_stress_provider() const { return stress_provider_; }
  void run_step(StepContext& ctx);
  /// An action run once after the last step the run makes: the planned last step, or the
  /// step a run stopped early after (checkpoint.wall_seconds), not after a failed step.
  /// For what sums up the whole run (time statistics). ctx.step is that last step, and
  /// ctx.time its time. Timed in the output phase's rows.
  void add_run_end(std::string name, std::string owner, Action action);
  void run_end(StepContext& ctx);
  /// An action run just before a checkpoint is written, after the step it holds (ctx.step):
  /// a plugin whose kernels keep state outside its restart-state fields (wall_shear's
  /// time sums, in arrays over its wall nodes) copies it into them here. Not timed.
  void add_before_checkpoint(std::string name, std::string owner, Action action);
  void before_checkpoint(StepContext& ctx);

  struct Timing {
    Phase phase;
    std::string name;   // "collide_stream"
    std::string owner;  // "lb_bgk"
    double seconds = 0.0;
    std::int64_t calls = 0;
    /// The device timeline (time_device; 0 without): device span and the gap before it,
    /// summed over the steps whose marks were read.
    double device_span = 0.0, device_gap = 0.0;
  };
  /// In phase order, then registration order.
  std::vector<Timing> timings() const;
  /// Seconds per phase (only phases with actions).
  std::vector<std::pair<std::string, double>> phase_seconds() const;
  std::string timing_table(double wall_seconds) const;

 private:
  struct Entry {
    Phase phase;
    std::string name, owner;
    Action action;
    Sync sync = Sync::fenced;
    double seconds = 0.0;
    std::int64_t calls = 0;
    double device_span = 0.0, device_gap = 0.0;
  };
  /// Reads the marks of the steps queued before the last one (all: every step queued).
  void read_device_marks(bool all);
  std::vector<Entry> entries_;
  std::vector<Entry> run_end_;  // add_run_end, in registration order
  std::vector<Entry> before_checkpoint_;  // add_before_checkpoint, in registration order
  std::vector<std::string> moments_every_step_;
  std::vector<std::string> streamed_velocity_;
  struct StressRequest {
    std::string who;
    std::function<bool(std::int64_t)> due;
  };
  std::vector<StressRequest> viscous_stress_;
  std::vector<std::string> relaxation_time_;
  std::string stress_provider_;
  Fence fence_;
  bool fence_each_action_ = true;
  bool sorted_ = true;
  // The device timeline: three banks of 2 marks per action, a step's in bank step % 3
  // (the bank before a step's stays unread until the step after it, for the gap between
  // steps). marked_: steps marked so far; read_: of them, read.
  std::unique_ptr<DeviceClock> device_;
  std::int64_t marked_ = 0, read_ = 0;
};

}  // namespace hemo
