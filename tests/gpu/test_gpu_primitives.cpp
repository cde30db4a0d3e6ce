// exec primitives on the CUDA space (core/exec/primitives.cu) against the host backend
// (primitives.cpp), element by element, on random inputs (fixed seeds). The host backend
// itself is checked against brute force in tests/unit/test_exec_primitives.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/exec/primitives.hpp"
#include "core/exec/reduce.hpp"
#include "tests/primitive_inputs.hpp"

using hemo::exec::DeviceArray;
using hemo::exec::Space;
using hemo::exec::Workspace;
using u32 = std::uint32_t;
using hemo::test::random_masks;
using hemo::test::random_u32;

namespace {

// 0, 1 and 2; one CUB tile and a few; and several million (many tiles, grid-stride loops).
const std::size_t sizes[] = {0, 1, 2, 1000, 100003, 3000017};

template <class T>
DeviceArray<T> on_gpu(const std::vector<T>& host) {
  return hemo::exec::to_device(Space::cuda, host);
}

}  // namespace

TEST_CASE("gpu primitives: exclusive_scan equals the host's, out of place and in place") {
  Workspace gpu(Space::cuda), cpu(Space::host);
  std::uint64_t seed = 1;
  for (const std::size_t n : sizes) {
    for (const u32 hi : {u32{1000}, u32{1} << 31}) {  // the second wraps modulo 2^32
      CAPTURE(n);
      CAPTURE(hi);
      const auto in = random_u32(n, 0, hi, seed++);
      std::vector<u32> expected(n);
      const u32 total = hemo::exec::exclusive_scan(cpu, in.data(), expected.data(), n);

      auto d_in = on_gpu(in);
      DeviceArray<u32> d_out(Space::cuda, n);
      CHECK(hemo::exec::exclusive_scan(gpu, d_in.data(), d_out.data(), n) == total);
      CHECK(d_out.to_host() == expected);
      CHECK(d_in.to_host() == in);  // input untouched

      CHECK(hemo::exec::exclusive_scan(gpu, d_in.data(), d_in.data(), n) == total);
      CHECK(d_in.to_host() == expected);

      DeviceArray<u32> d_queued(Space::cuda, n);  // the same scan, queued, no total
      auto d_again = on_gpu(in);
      hemo::exec::exclusive_scan_queued(gpu, d_again.data(), d_queued.data(), n);
      CHECK(d_queued.to_host() == expected);
    }
  }
}

TEST_CASE("gpu primitives: compact equals the host's (all, none, random masks)") {
  Workspace gpu(Space::cuda), cpu(Space::host);
  std::mt19937_64 rng(42);
  for (const std::size_t n : sizes) {
    const auto masks = random_masks(n, rng, {0.5, 0.001, 0.999});
    for (std::size_t which = 0; which < masks.size(); ++which) {
      CAPTURE(n);
      CAPTURE(which);
      const auto& mask = masks[which];
      std::vector<u32> expected(n);
      const u32 count = hemo::exec::compact(cpu, mask.data(), n, expected.data());
      expected.resize(count);

      auto d_mask = on_gpu(mask);
      DeviceArray<u32> d_indices(Space::cuda, n);
      REQUIRE(hemo::exec::compact(gpu, d_mask.data(), n, d_indices.data()) == count);
      auto got = d_indices.to_host();
      got.resize(count);
      CHECK(got == expected);
    }
  }
}

TEST_CASE("gpu primitives: sort_by_key equals the host's stable sort, for any key_bits") {
  Workspace gpu(Space::cuda), cpu(Space::host);
  std::uint64_t seed = 100;
  for (const std::size_t n : sizes) {
    // Odd and even numbers of radix passes on both backends: the result may end in
    // CUB's alternate buffers and must be copied back.
    for (const int key_bits : {32, 31, 24, 17, 16, 9, 8, 5, 1, 0}) {
      CAPTURE(n);
      CAPTURE(key_bits);
      const u32 max_key = key_bits == 32 ? 0xffffffffu : (u32{1} << key_bits) - 1u;
      // Keys from a small range too, so that many are equal and stability shows.
      for (const u32 hi : {max_key, max_key < 64u ? max_key : 63u}) {
        CAPTURE(hi);
        auto keys = random_u32(n, 0, hi, seed++);
        std::vector<u32> values(n);
        std::iota(values.begin(), values.end(), u32{0});
        auto d_keys = on_gpu(keys);
        auto d_values = on_gpu(values);
        hemo::exec::sort_by_key(cpu, keys.data(), values.data(), n, key_bits);
        hemo::exec::sort_by_key(gpu, d_keys.data(), d_values.data(), n, key_bits);
        CHECK(d_keys.to_host() == keys);
        CHECK(d_values.to_host() == values);
      }
    }
  }
}

TEST_CASE("gpu primitives: histogram equals the host's, out-of-range bins skipped") {
  Workspace gpu(Space::cuda), cpu(Space::host);
  std::uint64_t seed = 200;
  for (const std::size_t n : sizes) {
    for (const u32 num_bins : {0u, 1u, 37u, 5000u, 1000000u}) {
      CAPTURE(n);
      CAPTURE(num_bins);
      auto bins = random_u32(n, 0, num_bins + num_bins / 5 + 1, seed++);
      for (std::size_t i = 0; i < n; i += 97) bins[i] = 0xffffffffu;
      std::vector<u32> expected(num_bins, 7);
      hemo::exec::histogram(cpu, bins.data(), n, expected.data(), num_bins);

      auto d_bins = on_gpu(bins);
      auto d_counts = on_gpu(std::vector<u32>(num_bins, 12345));  // zeroed by histogram
      hemo::exec::histogram(gpu, d_bins.data(), n, d_counts.data(), num_bins);
      CHECK(d_counts.to_host() == expected);
    }
  }
}

TEST_CASE("gpu primitives: one workspace serves all four primitives in turn, growing as needed") {
  Workspace gpu(Space::cuda), cpu(Space::host);
  CHECK(gpu.space() == Space::cuda);
  std::mt19937_64 rng(9);
  std::size_t last_capacity = 0;
  for (const std::size_t n : {std::size_t{10}, std::size_t{200000}, std::size_t{1000}, std::size_t{2000000}}) {
    CAPTURE(n);
    // Cell indices of particles, as the particle plugin will have them: sort, count, scan.
    auto cells = random_u32(n, 0, 4095, rng());
    std::vector<u32> ids(n);
    std::iota(ids.begin(), ids.end(), u32{0});
    auto d_cells = on_gpu(cells);
    auto d_ids = on_gpu(ids);
    hemo::exec::sort_by_key(cpu, cells.data(), ids.data(), n, 12);
    hemo::exec::sort_by_key(gpu, d_cells.data(), d_ids.data(), n, 12);
    std::vector<u32> counts(4096), starts(4096);
    DeviceArray<u32> d_counts(Space::cuda, 4096), d_starts(Space::cuda, 4096);
    hemo::exec::histogram(cpu, cells.data(), n, counts.data(), 4096);
    hemo::exec::histogram(gpu, d_cells.data(), n, d_counts.data(), 4096);
    const u32 total = hemo::exec::exclusive_scan(cpu, counts.data(), starts.data(), 4096);
    CHECK(total == n);
    CHECK(hemo::exec::exclusive_scan(gpu, d_counts.data(), d_starts.data(), 4096) == total);
    std::vector<std::uint8_t> occupied(4096);
    for (std::size_t c = 0; c < 4096; ++c) occupied[c] = counts[c] != 0;
    std::vector<u32> list(4096);
    DeviceArray<u32> d_list(Space::cuda, 4096);
    auto d_occupied = on_gpu(occupied);
    const u32 k = hemo::exec::compact(cpu, occupied.data(), 4096, list.data());
    CHECK(hemo::exec::compact(gpu, d_occupied.data(), 4096, d_list.data()) == k);
    CHECK(d_cells.to_host() == cells);
    CHECK(d_ids.to_host() == ids);
    CHECK(d_counts.to_host() == counts);
    CHECK(d_starts.to_host() == starts);
    auto got = d_list.to_host();
    CHECK(std::equal(list.begin(), list.begin() + k, got.begin()));
    CHECK(gpu.capacity() >= last_capacity);
    last_capacity = gpu.capacity();
  }
}

TEST_CASE("gpu reduce: exec::sum and exec::sum_range give the host's bits in fp64 and fp32") {
  // The flow a Windkessel or absorbing outlet feeds back is such a sum: CPU and GPU runs
  // stay bitwise only if these are.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    std::vector<double> v(n);
    for (double& x : v) x = u(rng) * std::pow(10.0, 8.0 * u(rng));
    if (n > 2) v[n / 3] = 0.0;
    std::vector<float> f(v.begin(), v.end());
    const auto d = on_gpu(v);
    const auto df = on_gpu(f);
    CHECK(hemo::exec::sum(Space::cuda, d.data(), n) == hemo::exec::sum(Space::host, v.data(), n));
    CHECK(hemo::exec::sum(Space::cuda, df.data(), n) == hemo::exec::sum(Space::host, f.data(), n));
    const auto g = hemo::exec::sum_range(Space::cuda, d.data(), n), h = hemo::exec::sum_range(Space::host, v.data(), n);
    CHECK(g.sum == h.sum);
    CHECK(g.least == h.least);
    CHECK(g.largest == h.largest);
  }
}
