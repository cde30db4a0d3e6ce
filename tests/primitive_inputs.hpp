#pragma once
// Random inputs shared by the host and GPU tests of the exec primitives
// (tests/unit/test_exec_primitives.cpp, tests/gpu/test_gpu_primitives.cpp).
#include <cstdint>
#include <random>
#include <vector>

namespace hemo::test {

/// n values uniform in [lo, hi], from `seed`.
inline std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t lo, std::uint32_t hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> pick(lo, hi);
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t& x : v) x = pick(rng);
  return v;
}

/// Masks of n entries: all set (1), none, all set (255: any non-zero counts), then one
/// per probability with entries set at random to a value in 1..255.
inline std::vector<std::vector<std::uint8_t>> random_masks(std::size_t n, std::mt19937_64& rng,
                                                           std::initializer_list<double> probabilities) {
  std::vector<std::vector<std::uint8_t>> masks;
  masks.emplace_back(n, std::uint8_t{1});
  masks.emplace_back(n, std::uint8_t{0});
  masks.emplace_back(n, std::uint8_t{255});
  for (const double p : probabilities) {
    std::bernoulli_distribution set(p);
    std::uniform_int_distribution<int> value(1, 255);
    std::vector<std::uint8_t> m(n);
    for (auto& x : m) x = set(rng) ? static_cast<std::uint8_t>(value(rng)) : 0;
    masks.push_back(std::move(m));
  }
  return masks;
}

}  // namespace hemo::test
