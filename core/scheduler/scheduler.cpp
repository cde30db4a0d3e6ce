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
  const std::size_t per_step = 2 * entries_.size();
  if (device_ && marked_ == 0) device_->resize(3 * per_step);
  const std::size_t bank = device_ ? std::size_t(marked_ % 3) * per_step : 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    const auto t0 = clock::now();
    if (device_) device_->mark(bank + 2 * i);
    e.action(ctx);
    if (device_) device_->mark(bank + 2 * i + 1);
    if (fence_ && fence_each_action_ && e.sync == Sync::fenced) fence_(e.name);
    e.seconds += std::chrono::duration<double>(clock::now() - t0).count();
    ++e.calls;
  }
  if (device_) {
    ++marked_;
    read_device_marks(false);
  }
}

void Scheduler::read_device_marks(bool all) {
  if (!device_) return;
  const std::size_t per_step = 2 * entries_.size();
  // The step being queued last may still run on the device: its marks are read after
  // the next step has been queued (its bank is not reused until two steps later).
  for (; read_ < marked_ - (all ? 0 : 1); ++read_) {
    const std::size_t bank = std::size_t(read_ % 3) * per_step;
    device_->wait(bank + per_step - 1);
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      e.device_span += device_->seconds(bank + 2 * i, bank + 2 * i + 1);
      if (i > 0) e.device_gap += device_->seconds(bank + 2 * i - 1, bank + 2 * i);
      else if (read_ > 0) e.device_gap += device_->seconds(std::size_t((read_ - 1) % 3) * per_step + per_step - 1, bank);
    }
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
  for (const Entry& e : sorted) out.push_back({e.phase, e.name, e.owner, e.seconds, e.calls, e.device_span, e.device_gap});
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
  const bool device = times_device();
  std::string s = "phase             action                     owner        calls     seconds   share";
  s += device ? "  device span  device gap\n" : "\n";
  double total = 0.0;
  for (const Timing& t : timings()) {
    char line[256];
    std::snprintf(line, sizeof line, "%-17s %-26s %-12s %6lld %11.4f  %5.1f%%", to_string(t.phase), t.name.c_str(),
                  t.owner.c_str(), static_cast<long long>(t.calls), t.seconds,
                  wall_seconds > 0 ? 100.0 * t.seconds / wall_seconds : 0.0);
    s += line;
    if (device) {
      std::snprintf(line, sizeof line, "  %11.4f %11.4f", t.device_span, t.device_gap);
      s += line;
    }
    s += "\n";
    total += t.seconds;
  }
  char line[160];
  std::snprintf(line, sizeof line, "%-17s %-26s %-12s %6s %11.4f  %5.1f%% of %.4f s wall\n", "all", "", "", "", total,
                wall_seconds > 0 ? 100.0 * total / wall_seconds : 0.0, wall_seconds);
  s += line;
  if (!fences_each_action())
    s += "(host time of each action: the device runs behind and its work shows where the host waits; "
         "run.fence_actions = true times each action's device work)\n";
  if (device)
    s += "(device span: from where the device reached the action to where it finished the action's work, with any "
         "idle inside it; device gap: the device idle before the action, waiting for the host; run.device_timeline)\n";
  return s;
}

}  // namespace hemo
