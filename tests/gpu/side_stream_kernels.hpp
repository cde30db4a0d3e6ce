#pragma once
// A kernel for the side stream test (test_gpu_side_stream.cpp): slow enough per thread
// that work queued behind it on another stream would overtake it without the join.
#include <cstdint>

#include "physics/hd.hpp"

namespace hemo::test {

/// out[i] = a value that takes `rounds` dependent steps to compute from i.
struct SlowFill {
  std::uint32_t* out;
  std::uint32_t rounds;
  HEMO_HD void operator()(std::uint32_t i) const {
    std::uint32_t x = i;
    for (std::uint32_t r = 0; r < rounds; ++r) x = x * 1664525u + 1013904223u;
    out[i] = x;
  }
};

/// out[i] = in[i] + 1.
struct PlusOne {
  const std::uint32_t* in;
  std::uint32_t* out;
  HEMO_HD void operator()(std::uint32_t i) const { out[i] = in[i] + 1u; }
};

}  // namespace hemo::test
