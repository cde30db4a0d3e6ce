// The scheduler's device timeline (Scheduler::time_device, run.device_timeline): each
// action's device span and the device gap before it, from marks on a device clock read
// one step late. Checked with a clock whose "device" advances by known amounts.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "core/scheduler/scheduler.hpp"

using hemo::DeviceClock;
using hemo::Phase;
using hemo::Scheduler;
using hemo::StepContext;

namespace {
/// A device whose clock is `now`: an action's work advances it; a start mark first
/// advances it by the gap planned before that action (the device idle, waiting for the
/// host). Records which marks were waited for.
struct FakeDevice {
  double now = 0.0;
  std::vector<double> gap_before;  // per action
  std::size_t actions = 0;
  std::vector<std::size_t> waited;
};

class FakeClock final : public DeviceClock {
 public:
  explicit FakeClock(FakeDevice& d) : d_(d) {}
  void resize(std::size_t slots) override { at_.assign(slots, -1.0); }
  void mark(std::size_t slot) override {
    const std::size_t in_step = slot % (2 * d_.actions);
    if (in_step % 2 == 0) d_.now += d_.gap_before[in_step / 2];
    at_.at(slot) = d_.now;
  }
  void wait(std::size_t slot) override {
    REQUIRE(at_.at(slot) >= 0.0);  // never a mark that was not made
    d_.waited.push_back(slot);
  }
  double seconds(std::size_t from, std::size_t to) override { return at_.at(to) - at_.at(from); }

 private:
  FakeDevice& d_;
  std::vector<double> at_;
};

double span_of(const Scheduler& s, const char* name) {
  for (const auto& t : s.timings())
    if (t.name == name) return t.device_span;
  return -1.0;
}
double gap_of(const Scheduler& s, const char* name) {
  for (const auto& t : s.timings())
    if (t.name == name) return t.device_gap;
  return -1.0;
}
}  // namespace

TEST_CASE("scheduler device timeline: spans and gaps per action, read a step late, the last read by finish_steps") {
  FakeDevice d;
  d.actions = 3;
  d.gap_before = {0.5, 0.0, 0.25};  // idle before a (from the step before), none before b, some before c
  Scheduler s;
  // Registered out of phase order: the scheduler runs (and marks) them in phase order.
  s.add(Phase::output, "c", "t", [&](StepContext&) { d.now += 3.0; });
  s.add(Phase::particles, "a", "t", [&](StepContext&) { d.now += 1.0; });
  s.add(Phase::coupling, "b", "t", [&](StepContext&) { d.now += 2.0; });
  s.time_device(std::make_unique<FakeClock>(d));
  CHECK(s.times_device());
  StepContext ctx;
  s.run_step(ctx);
  CHECK(d.waited.empty());  // the step just queued is not read
  CHECK(span_of(s, "a") == 0.0);
  s.run_step(ctx);
  CHECK(d.waited.size() == 1);  // the first step, read after the second was queued
  CHECK(span_of(s, "a") == 1.0);
  CHECK(span_of(s, "b") == 2.0);
  CHECK(span_of(s, "c") == 3.0);
  CHECK(gap_of(s, "a") == 0.0);  // the first step has no step before it
  CHECK(gap_of(s, "b") == 0.0);
  CHECK(gap_of(s, "c") == 0.25);
  for (int k = 0; k < 3; ++k) s.run_step(ctx);  // five steps: the banks of three reused
  s.finish_steps();
  CHECK(span_of(s, "a") == 5.0);
  CHECK(span_of(s, "b") == 10.0);
  CHECK(span_of(s, "c") == 15.0);
  CHECK(gap_of(s, "a") == 4 * 0.5);  // before each step after the first
  CHECK(gap_of(s, "b") == 0.0);
  CHECK(gap_of(s, "c") == 5 * 0.25);
  // Spans and gaps add up to the device's time from the first step's first mark on.
  double total = 0.0;
  for (const auto& t : s.timings()) total += t.device_span + t.device_gap;
  CHECK(total == doctest::Approx(d.now - 0.5));
  s.finish_steps();  // nothing left to read
  CHECK(span_of(s, "a") == 5.0);
  CHECK(s.timing_table(1.0).find("device span") != std::string::npos);
}

TEST_CASE("scheduler device timeline: off by default, no columns and no device time") {
  Scheduler s;
  s.add(Phase::particles, "a", "t", [](StepContext&) {});
  StepContext ctx;
  s.run_step(ctx);
  s.finish_steps();
  CHECK_FALSE(s.times_device());
  CHECK(span_of(s, "a") == 0.0);
  CHECK(s.timing_table(1.0).find("device span") == std::string::npos);
}
