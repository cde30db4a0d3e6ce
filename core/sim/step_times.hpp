#pragma once
// How the time per step is spread over a run: summary.json's "step_seconds" (median,
// 90th and 99th percentile, largest), so that a run whose mean step is slow tells whether
// every step was slow or a few steps stalled (a checkpoint, a late message, the machine).
// A histogram of log-spaced bins, constant memory however long the run: 1 us to 10^4 s,
// `per_decade` bins a decade, so a quantile is known to within a factor 10^(1/per_decade)
// (3.7%); the largest step is kept exactly.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace hemo {

class StepTimes {
 public:
  static constexpr int per_decade = 64;
  static constexpr double lowest = 1e-6;  // s: the first bin's lower edge; shorter steps count in it
  static constexpr int decades = 10;
  static constexpr int bins = per_decade * decades;  // the last also takes everything longer

  void add(double seconds) {
    int b = 0;
    if (seconds > lowest) b = std::min(bins - 1, int(std::floor(std::log10(seconds / lowest) * per_decade)));
    ++counts_[std::size_t(b)];
    ++count_;
    largest_ = std::max(largest_, seconds);
  }
  std::uint64_t count() const { return count_; }
  double largest() const { return largest_; }
  /// The q-quantile (0 < q <= 1) of the steps added: the upper edge of the bin holding the
  /// ceil(q x count)-th shortest step, never above the largest step (the largest itself
  /// in the last bin, which has no upper edge); 0 with no steps.
  double quantile(double q) const {
    if (count_ == 0) return 0.0;
    const auto rank = std::max<std::uint64_t>(1, std::uint64_t(std::ceil(q * double(count_))));
    std::uint64_t seen = 0;
    for (int b = 0; b < bins; ++b) {
      seen += counts_[std::size_t(b)];
      if (seen >= rank) return b == bins - 1 ? largest_ : std::min(largest_, upper_edge(b));
    }
    return largest_;
  }
  static double upper_edge(int bin) { return lowest * std::pow(10.0, double(bin + 1) / per_decade); }

 private:
  std::array<std::uint64_t, bins> counts_{};
  std::uint64_t count_ = 0;
  double largest_ = 0.0;
};

}  // namespace hemo
