#pragma once
// Progress of a long run on stderr. On a terminal: one line rewritten in place about
// twice a second (step, MLUPS, ETA). Otherwise (a batch job's log): a line every 10% of
// the run or every 60 s, whichever comes first.
#include <chrono>
#include <cstdint>
#include <optional>

namespace hemo {

class Progress {
 public:
  /// Steps first_step + 1 .. total_steps (first_step > 0: a restarted run).
  Progress(std::int64_t total_steps, std::uint64_t nodes, bool enabled, bool terminal, std::int64_t first_step = 0);
  /// `mass_drift`: the relative drift of the mass at the last check, none before the first.
  void update(std::int64_t step, std::optional<double> mass_drift);
  void finish();

 private:
  using clock = std::chrono::steady_clock;
  std::int64_t total_, first_;
  std::uint64_t nodes_;
  bool enabled_, terminal_;
  clock::time_point start_, last_print_;
  std::int64_t next_fraction_step_ = 0;
  bool printed_ = false;
};

}  // namespace hemo
