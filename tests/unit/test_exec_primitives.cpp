// exec primitives on the host backend (core/exec/primitives.hpp): exclusive scan, compact,
// stable sort by key and histogram against brute force on random inputs (fixed seeds),
// from n = 0 to 100003. The CUDA backend is checked against these in tests/gpu.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/exec/primitives.hpp"
#include "core/exec/reduce.hpp"
#include "tests/primitive_inputs.hpp"

using hemo::exec::Space;
using hemo::exec::Workspace;
using u32 = std::uint32_t;
using hemo::test::random_masks;
using hemo::test::random_u32;

namespace {

const std::size_t sizes[] = {0, 1, 2, 1000, 100003};

std::vector<u32> brute_exclusive_scan(const std::vector<u32>& in, u32& total) {
  std::vector<u32> out(in.size());
  u32 sum = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[i] = sum;
    sum += in[i];
  }
  total = sum;
  return out;
}

/// (key, value) pairs sorted by key with std::stable_sort.
void brute_sort(std::vector<u32>& keys, std::vector<u32>& values) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  std::vector<u32> k(keys.size()), v(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    k[i] = keys[order[i]];
    v[i] = values[order[i]];
  }
  keys = std::move(k);
  values = std::move(v);
}

}  // namespace

TEST_CASE("exec primitives: exclusive_scan equals the running sum, out of place and in place") {
  Workspace ws(Space::host);
  std::uint64_t seed = 1;
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    // Values up to 2^31: the running sum wraps modulo 2^32 for the larger n, as documented.
    for (const u32 hi : {u32{1000}, u32{1} << 31}) {
      CAPTURE(hi);
      const auto in = random_u32(n, 0, hi, seed++);
      u32 total_expected = 0;
      const auto expected = brute_exclusive_scan(in, total_expected);

      std::vector<u32> out(n, 0xdeadbeef);
      CHECK(hemo::exec::exclusive_scan(ws, in.data(), out.data(), n) == total_expected);
      CHECK(out == expected);

      std::vector<u32> inplace = in;
      CHECK(hemo::exec::exclusive_scan(ws, inplace.data(), inplace.data(), n) == total_expected);
      CHECK(inplace == expected);

      std::vector<u32> queued(n, 0xdeadbeef);  // the same scan, no total
      hemo::exec::exclusive_scan_queued(ws, in.data(), queued.data(), n);
      CHECK(queued == expected);
    }
  }
  CHECK(hemo::exec::exclusive_scan(ws, nullptr, nullptr, 0) == 0);
  const std::vector<u32> ones(5, 1);
  std::vector<u32> out(5);
  CHECK(hemo::exec::exclusive_scan(ws, ones.data(), out.data(), 5) == 5);
  CHECK(out == std::vector<u32>{0, 1, 2, 3, 4});
}

TEST_CASE("exec primitives: compact lists the set mask entries in order (all, none, random)") {
  Workspace ws(Space::host);
  std::mt19937_64 rng(42);
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    const auto masks = random_masks(n, rng, {0.5, 0.01, 0.99});
    for (std::size_t which = 0; which < masks.size(); ++which) {
      CAPTURE(which);
      const auto& mask = masks[which];
      std::vector<u32> expected;
      for (std::size_t i = 0; i < n; ++i)
        if (mask[i] != 0) expected.push_back(static_cast<u32>(i));
      std::vector<u32> indices(n, 0xdeadbeef);
      const u32 count = hemo::exec::compact(ws, mask.data(), n, indices.data());
      REQUIRE(count == expected.size());
      indices.resize(count);
      CHECK(indices == expected);
    }
  }
  CHECK(hemo::exec::compact(ws, nullptr, 0, nullptr) == 0);
}

TEST_CASE("exec primitives: sort_by_key is a stable sort on the low key_bits bits") {
  Workspace ws(Space::host);
  std::uint64_t seed = 100;
  for (const std::size_t n : sizes) {
    for (const int key_bits : {32, 31, 24, 17, 16, 9, 8, 3, 1, 0}) {
      CAPTURE(n);
      CAPTURE(key_bits);
      const u32 max_key = key_bits == 32 ? 0xffffffffu : (u32{1} << key_bits) - 1u;
      auto keys = random_u32(n, 0, max_key, seed++);
      std::vector<u32> values(n);
      std::iota(values.begin(), values.end(), u32{0});  // the original positions: shows stability
      auto expected_keys = keys, expected_values = values;
      brute_sort(expected_keys, expected_values);

      hemo::exec::sort_by_key(ws, keys.data(), values.data(), n, key_bits);
      CHECK(keys == expected_keys);
      CHECK(values == expected_values);
    }
  }
  CHECK_NOTHROW(hemo::exec::sort_by_key(ws, nullptr, nullptr, 0));
}

TEST_CASE("exec primitives: sort_by_key keeps the order of many equal keys") {
  Workspace ws(Space::host);
  // Few distinct keys, spread over all four bytes, so that every radix pass moves pairs.
  const u32 distinct[] = {0u, 7u, 0x00ff0000u, 0x80000005u, 0xffffffffu, 0x01000000u};
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pick(0, 5);
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    std::vector<u32> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = distinct[pick(rng)];
      values[i] = static_cast<u32>(i);
    }
    auto expected_keys = keys, expected_values = values;
    brute_sort(expected_keys, expected_values);
    hemo::exec::sort_by_key(ws, keys.data(), values.data(), n);
    CHECK(keys == expected_keys);
    CHECK(values == expected_values);
    // Stability stated directly: within a run of equal keys the positions ascend.
    bool stable = true;
    for (std::size_t i = 1; i < n; ++i)
      if (keys[i] == keys[i - 1] && values[i] <= values[i - 1]) stable = false;
    CHECK(stable);
  }
  // All keys equal: nothing moves.
  std::vector<u32> keys(1000, 5), values(1000);
  std::iota(values.begin(), values.end(), u32{0});
  const auto before = values;
  hemo::exec::sort_by_key(ws, keys.data(), values.data(), keys.size(), 3);
  CHECK(values == before);
}

TEST_CASE("exec primitives: sort_by_key refuses key_bits outside 0..32") {
  Workspace ws(Space::host);
  u32 k = 0, v = 0;
  CHECK_THROWS_AS(hemo::exec::sort_by_key(ws, &k, &v, 1, 33), std::invalid_argument);
  CHECK_THROWS_AS(hemo::exec::sort_by_key(ws, &k, &v, 1, -1), std::invalid_argument);
}

TEST_CASE("exec primitives: histogram counts in-range bins and skips the others") {
  Workspace ws(Space::host);
  std::uint64_t seed = 200;
  for (const std::size_t n : sizes) {
    for (const u32 num_bins : {0u, 1u, 37u, 5000u}) {
      CAPTURE(n);
      CAPTURE(num_bins);
      // About one entry in six out of range, the largest uint32 among them.
      auto bins = random_u32(n, 0, num_bins + num_bins / 5 + 1, seed++);
      for (std::size_t i = 0; i < n; i += 97) bins[i] = 0xffffffffu;
      std::vector<u32> expected(num_bins, 0);
      for (const u32 b : bins)
        if (b < num_bins) ++expected[b];
      std::vector<u32> counts(num_bins, 12345);  // zeroed by histogram
      hemo::exec::histogram(ws, bins.data(), n, counts.data(), num_bins);
      CHECK(counts == expected);
    }
  }
  std::vector<u32> counts(3, 9);
  hemo::exec::histogram(ws, nullptr, 0, counts.data(), 3);
  CHECK(counts == std::vector<u32>{0, 0, 0});
}

TEST_CASE("exec primitives: a workspace grows and never shrinks") {
  Workspace ws(Space::host);
  CHECK(ws.space() == Space::host);
  CHECK(ws.capacity() == 0);
  CHECK(ws.reserve(0) == nullptr);
  void* p = ws.reserve(1000);
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
  const std::size_t cap = ws.capacity();
  CHECK(cap >= 1000);
  CHECK(ws.reserve(10) == p);
  CHECK(ws.capacity() == cap);
  ws.reserve(cap * 4);
  CHECK(ws.capacity() >= cap * 4);
}

TEST_CASE("exec primitives: the CUDA space in a build without CUDA is an error naming the primitive") {
  if (hemo::exec::cuda_built()) return;  // tests/gpu covers the CUDA space
  Workspace ws(Space::cuda);
  u32 x = 0;
  std::uint8_t m = 1;
  CHECK_THROWS_WITH_AS(hemo::exec::exclusive_scan(ws, &x, &x, 1), doctest::Contains("exclusive_scan"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(hemo::exec::compact(ws, &m, 1, &x), doctest::Contains("compact"), std::runtime_error);
  CHECK_THROWS_WITH_AS(hemo::exec::sort_by_key(ws, &x, &x, 1), doctest::Contains("sort_by_key"), std::runtime_error);
  CHECK_THROWS_WITH_AS(hemo::exec::histogram(ws, &x, 1, &x, 1), doctest::Contains("histogram"), std::runtime_error);
}

TEST_CASE("exec::sum adds in the order reduce.hpp fixes (lanes, then their tree, then the chunks), in fp64") {
  // The order is the CUDA kernel's; written out here once more, so that a change to either
  // side shows. Values of mixed sign and size: another order gives other bits.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const std::size_t n : {std::size_t{1}, std::size_t{300}, std::size_t{4096}, std::size_t{10007}}) {
    CAPTURE(n);
    std::vector<double> v(n);
    for (double& x : v) x = u(rng) * std::pow(10.0, 8.0 * u(rng));
    double expected = 0.0;
    for (std::size_t b = 0; b < n; b += hemo::exec::reduce_chunk) {
      const std::size_t e = std::min(n, b + hemo::exec::reduce_chunk);
      std::vector<double> lane(hemo::exec::reduce_lanes, 0.0);
      for (std::size_t i = b; i < e; ++i) lane[(i - b) % hemo::exec::reduce_lanes] += v[i];
      for (int w = hemo::exec::reduce_lanes / 2; w > 0; w /= 2)
        for (int t = 0; t < w; ++t) lane[std::size_t(t)] += lane[std::size_t(t + w)];
      expected += lane[0];
    }
    CHECK(hemo::exec::sum(hemo::exec::Space::host, v.data(), n) == expected);
    v[n / 2] = 0.0;  // a brick's hole: left out of the range
    const double plain = hemo::exec::sum(hemo::exec::Space::host, v.data(), n);
    const hemo::exec::SumRange r = hemo::exec::sum_range(hemo::exec::Space::host, v.data(), n);
    CHECK(r.sum == plain);  // bitwise
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (const double x : v)
      if (x != 0.0) lo = std::min(lo, x), hi = std::max(hi, x);
    CHECK(r.least == lo);
    CHECK(r.largest == hi);
  }
  const hemo::exec::SumRange none = hemo::exec::sum_range(hemo::exec::Space::host, static_cast<const double*>(nullptr), 0);
  CHECK(none.sum == 0.0);
  CHECK(none.least > none.largest);  // +inf and -inf: nothing to take part in a max over ranks
}
