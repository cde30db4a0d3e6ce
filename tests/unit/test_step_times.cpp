// StepTimes (core/sim/step_times.hpp): the quantiles of the time per step that
// summary.json reports, from a histogram of log-spaced bins.
#include <doctest/doctest.h>

#include <cmath>

#include "core/sim/step_times.hpp"

using hemo::StepTimes;

TEST_CASE("step times: quantiles within one bin's width, the largest step exact, a few stalls seen in p99 and max") {
  const double bin = std::pow(10.0, 1.0 / StepTimes::per_decade);  // a bin's upper over lower edge
  StepTimes t;
  CHECK(t.count() == 0);
  CHECK(t.quantile(0.5) == 0.0);
  // 990 steps of 2 ms and 10 of 50 ms: the median and p90 are 2 ms, p99 2 ms (the 990th),
  // p99.5 and the largest 50 ms.
  for (int i = 0; i < 990; ++i) t.add(2e-3);
  for (int i = 0; i < 10; ++i) t.add(50e-3);
  CHECK(t.count() == 1000);
  for (const double q : {0.5, 0.9, 0.99}) {
    CAPTURE(q);
    CHECK(t.quantile(q) >= 2e-3);
    CHECK(t.quantile(q) <= 2e-3 * bin);
  }
  CHECK(t.quantile(0.995) == 50e-3);  // the bin's edge is above the largest: the largest
  CHECK(t.largest() == 50e-3);
  CHECK(t.quantile(1.0) == 50e-3);
  // Uniform 1..1000 ms: the q-quantile within a bin of q seconds.
  StepTimes u;
  for (int i = 1; i <= 1000; ++i) u.add(1e-3 * i);
  for (const double q : {0.1, 0.5, 0.9}) {
    CAPTURE(q);
    CHECK(u.quantile(q) >= q * 0.999);
    CHECK(u.quantile(q) <= q * bin * 1.001);
  }
}

TEST_CASE("step times: steps shorter than the first bin and longer than the last are counted") {
  StepTimes t;
  t.add(0.0);
  t.add(1e-9);
  t.add(1e5);  // beyond 10^4 s: the last bin, and the largest exact
  CHECK(t.count() == 3);
  CHECK(t.quantile(0.5) <= StepTimes::upper_edge(0));
  CHECK(t.quantile(1.0) == 1e5);
  CHECK(t.largest() == 1e5);
}
