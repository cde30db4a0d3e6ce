#include "core/scheduler/scheduler.hpp"

#include <algorithm>
#include <cstdio>

#include "core/common/text.hpp"

namespace hemo {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::begin_step: return "begin_step";
    case Phase::particles: return "particles";
    case Phase::coupling: return "coupling";
    case Phase::collide_edge: return "collide_edge";
    case Phase::halo_send: return "halo_send";
    case Phase::collide_interior: return "collide_interior";
    case Phase::halo_receive: return "halo_receive";
    case Phase::boundaries: return "boundaries";
    case Phase::end_step: return "end_step";
    case Phase::output: return "output";
    case Phase::count: break;
  }
  return "?";
}

void Scheduler::add(Phase phase, std::string name, std::string owner, Action action, Sync sync) {
  entries_.push_back({phase, std::move(name), std::move(owner), std::move(action), sync});
  sorted_ = false;
}

void Scheduler::run_step(StepContext& ctx) {
  if (!sorted_) {
    // Stable: within a phase, actions run in the order they were registered.
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return int(a.phase) < int(b.phase); });
    sorted_ = true;
  }
  using clock = std::chrono::steady_clock;
  for (Entry& e : entries_) {
    const auto t0 = clock::now();
    e.action(ctx);
    if (fence_ && fence_each_action_ && e.sync == Sync::fenced) fence_(e.name);
    e.seconds += std::chrono::duration<double>(clock::now() - t0).count();
    ++e.calls;
  }
}

void Scheduler::add_run_end(std::string name, std::string owner, Action action) {
  run_end_.push_back({Phase::output, std::move(name), std::move(owner), std::move(action), Sync::fenced});
}

void Scheduler::run_end(StepContext& ctx) {
  using clock = std::chrono::steady_clock;
  for (Entry& e : run_end_) {
    const auto t0 = clock::now();
    e.action(ctx);
    if (fence_) fence_(e.name);
    e.seconds += std::chrono::duration<double>(clock::now() - t0).count();
    ++e.calls;
  }
}

void Scheduler::add_before_checkpoint(std::string name, std::string owner, Action action) {
  before_checkpoint_.push_back({Phase::output, std::move(name), std::move(owner), std::move(action), Sync::fenced});
}

void Scheduler::before_checkpoint(StepContext& ctx) {
  for (Entry& e : before_checkpoint_) e.action(ctx);
}

std::vector<Scheduler::Timing> Scheduler::timings() const {
  std::vector<Entry> sorted = entries_;
  sorted.insert(sorted.end(), run_end_.begin(), run_end_.end());  // after the output phase's own
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return int(a.phase) < int(b.phase); });
  std::vector<Timing> out;
  for (const Entry& e : sorted) out.push_back({e.phase, e.name, e.owner, e.seconds, e.calls});
  return out;
}

std::vector<std::pair<std::string, double>> Scheduler::phase_seconds() const {
  std::vector<std::pair<std::string, double>> out;
  for (const Timing& t : timings()) {
    if (out.empty() || out.back().first != to_string(t.phase)) out.emplace_back(to_string(t.phase), 0.0);
    out.back().second += t.seconds;
  }
  return out;
}

std::string Scheduler::timing_table(double wall_seconds) const {
  std::string s = "phase             action                     owner        calls     seconds   share\n";
  double total = 0.0;
  for (const Timing& t : timings()) {
    char line[256];
    std::snprintf(line, sizeof line, "%-17s %-26s %-12s %6lld %11.4f  %5.1f%%\n", to_string(t.phase), t.name.c_str(),
                  t.owner.c_str(), static_cast<long long>(t.calls), t.seconds,
                  wall_seconds > 0 ? 100.0 * t.seconds / wall_seconds : 0.0);
    s += line;
    total += t.seconds;
  }
  char line[160];
  std::snprintf(line, sizeof line, "%-17s %-26s %-12s %6s %11.4f  %5.1f%% of %.4f s wall\n", "all", "", "", "", total,
                wall_seconds > 0 ? 100.0 * total / wall_seconds : 0.0, wall_seconds);
  s += line;
  if (!fences_each_action())
    s += "(host time of each action: the device runs behind and its work shows where the host waits; "
         "run.fence_actions = true times each action's device work)\n";
  return s;
}

}  // namespace hemo
