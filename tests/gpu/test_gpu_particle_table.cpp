// The particle table's pack and append on the CUDA space (core/fields/particle_table.hpp)
// give the host's bytes: the gather runs on the device, then one download per component.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/fields/particle_table.hpp"

using hemo::ParticleTable;
using hemo::exec::Space;

namespace {
ParticleTable filled(Space space, std::size_t n) {
  ParticleTable t(space, "cells", "test", 4);
  t.add<float>("position", 3, "").set_restart_state();
  t.add<std::uint32_t>("id", 1, "").set_restart_state();
  t.resize(n);
  std::vector<float> pos(3 * t.capacity());
  std::vector<std::uint32_t> id(t.capacity());
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) pos[c * t.capacity() + i] = float(i) + 0.25f * float(c);
    id[i] = std::uint32_t(7 * i + 1);
  }
  t.get<float>("position").upload(pos);
  t.get<std::uint32_t>("id").upload(id);
  return t;
}
}  // namespace

TEST_CASE("gpu particle table: pack and append equal the host's") {
  const std::size_t n = 1000;
  ParticleTable cpu = filled(Space::host, n), gpu = filled(Space::cuda, n);
  std::vector<std::uint32_t> rows;
  for (std::uint32_t i = 0; i < n; i += 3) rows.push_back(n - 1 - i);
  const auto d_rows = hemo::exec::to_device(Space::cuda, rows);
  const auto host_bytes = cpu.pack(rows.data(), rows.size());
  const auto gpu_bytes = gpu.pack(d_rows.data(), rows.size());
  CHECK(gpu_bytes == host_bytes);
  ParticleTable target = filled(Space::cuda, 10);
  CHECK(target.append(gpu_bytes) == rows.size());
  REQUIRE(target.size() == 10 + rows.size());
  const auto ids = target.get<std::uint32_t>("id").component_to_host(0, target.size());
  CHECK(ids[9] == 7 * 9 + 1);
  CHECK(ids[10] == std::uint32_t(7 * (n - 1) + 1));
  CHECK(ids.back() == std::uint32_t(7 * rows.back() + 1));
}

TEST_CASE("gpu particle table: pack_groups equals the host's, into pinned memory, a double column at any offset") {
  // id (4 bytes) before a double column: a group that starts at an odd row puts the
  // doubles at an offset that is not a multiple of 8 (the gather then goes through the
  // spare column); the rest straight into the staging.
  const auto make = [](Space space, std::size_t n) {
    ParticleTable t(space, "cells", "test", 4);
    t.add<std::uint32_t>("id", 1, "").set_restart_state();
    t.add<double>("velocity", 3, "").set_restart_state();
    t.resize(n);
    std::vector<std::uint32_t> id(t.capacity());
    std::vector<double> v(3 * t.capacity());
    for (std::size_t i = 0; i < n; ++i) {
      id[i] = std::uint32_t(3 * i + 2);
      for (int c = 0; c < 3; ++c) v[c * t.capacity() + i] = 0.5 * double(i) - double(c);
    }
    t.get<std::uint32_t>("id").upload(id);
    t.get<double>("velocity").upload(v);
    return t;
  };
  const std::size_t n = 301;
  ParticleTable cpu = make(Space::host, n), gpu = make(Space::cuda, n);
  std::vector<std::uint32_t> rows;
  std::vector<std::size_t> first{0};
  for (std::size_t g = 0; g < 4; ++g) {  // groups of 37, 0, 51 and 8 rows, overlapping
    const std::size_t size = g == 1 ? 0 : g == 3 ? 8 : 37 + 14 * g;
    for (std::size_t i = 0; i < size; ++i) rows.push_back(std::uint32_t((5 * i + 11 * g) % n));
    first.push_back(rows.size());
  }
  const auto d_rows = hemo::exec::to_device(Space::cuda, rows);
  hemo::exec::HostBuffer<unsigned char> on_host(Space::host), on_gpu(Space::cuda);
  cpu.pack_groups(rows.data(), first, on_host);
  gpu.pack_groups(d_rows.data(), first, on_gpu);
  REQUIRE(on_gpu.size() == on_host.size());
  CHECK(std::vector<unsigned char>(on_gpu.bytes(), on_gpu.bytes() + on_gpu.size()) ==
        std::vector<unsigned char>(on_host.bytes(), on_host.bytes() + on_host.size()));
  for (std::size_t g = 0; g < 4; ++g) {
    const auto slice = gpu.group_slice(on_gpu, first, g);
    CHECK(std::vector<unsigned char>(slice.begin(), slice.end()) == cpu.pack(rows.data() + first[g], first[g + 1] - first[g]));
  }
}
