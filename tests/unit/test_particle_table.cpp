// The particle table (core/fields/particle_table.hpp) on the host: growth keeps the
// particles, permute moves the restart-state columns only, and pack/append carry the
// restart-state columns of chosen particles into another table (how cells will travel
// between ranks, docs/rbc_ranks.md).
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/fields/particle_table.hpp"

using hemo::ParticleTable;
using hemo::exec::Space;

namespace {
/// A table of n particles: position (3 floats) and id restart state, energy scratch.
ParticleTable make(std::size_t n, std::uint32_t first_id) {
  ParticleTable t(Space::host, "cells", "test", 2);
  t.add<float>("position", 3, "").set_restart_state();
  t.add<double>("energy", 1, "");
  t.add<std::uint32_t>("id", 1, "").set_restart_state();
  t.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) t.get<float>("position").component(c)[i] = float(10 * c + i);
    t.get<double>("energy").component(0)[i] = -1.0 - double(i);
    t.get<std::uint32_t>("id").component(0)[i] = first_id + std::uint32_t(i);
  }
  return t;
}
}  // namespace

TEST_CASE("particle table: growth keeps particles; permute moves the restart-state columns only") {
  ParticleTable t = make(5, 100);
  CHECK(t.capacity() >= 5);
  const std::vector<std::uint32_t> order{4, 0, 2};
  t.permute(order.data(), order.size());
  CHECK(t.size() == 3);
  CHECK(t.get<std::uint32_t>("id").component(0)[0] == 104);
  CHECK(t.get<std::uint32_t>("id").component(0)[2] == 102);
  CHECK(t.get<float>("position").component(1)[0] == 14.0f);
  CHECK(t.get<double>("energy").component(0)[0] == -1.0);  // scratch: left as it was
}

TEST_CASE("particle table: permute from a first row reorders the rows after it and keeps those before") {
  ParticleTable t = make(6, 100);
  const std::vector<std::uint32_t> tail{5, 3};  // rows 2.. become the old rows 5 and 3; 2 and 4 dropped
  t.permute(tail.data(), tail.size(), 2);
  REQUIRE(t.size() == 4);
  const std::uint32_t* id = t.get<std::uint32_t>("id").component(0);
  CHECK(id[0] == 100);
  CHECK(id[1] == 101);
  CHECK(id[2] == 105);
  CHECK(id[3] == 103);
  CHECK(t.get<float>("position").component(2)[2] == 25.0f);
  CHECK_THROWS_AS(t.permute(tail.data(), 3, 2), std::logic_error);  // past the particles held
}

TEST_CASE("particle table: pack and append carry chosen particles' restart state into another table") {
  ParticleTable from = make(6, 0), to = make(2, 50);
  CHECK(from.packed_bytes() == 3 * sizeof(float) + sizeof(std::uint32_t));
  const std::vector<std::uint32_t> leaving{5, 1, 3};
  const auto bytes = from.pack(leaving.data(), leaving.size());
  CHECK(bytes.size() == 3 * from.packed_bytes());
  CHECK(to.append(bytes) == 3);
  REQUIRE(to.size() == 5);
  const std::uint32_t* id = to.get<std::uint32_t>("id").component(0);
  CHECK(id[0] == 50);
  CHECK(id[1] == 51);
  CHECK(id[2] == 5);
  CHECK(id[3] == 1);
  CHECK(id[4] == 3);
  for (int c = 0; c < 3; ++c) {
    CHECK(to.get<float>("position").component(c)[2] == float(10 * c + 5));
    CHECK(to.get<float>("position").component(c)[4] == float(10 * c + 3));
  }
  CHECK(to.get<float>("position").component(0)[1] == 1.0f);  // the table's own particles untouched
  CHECK(from.size() == 6);                                    // packing takes nothing away
  CHECK(from.get<std::uint32_t>("id").component(0)[5] == 5);
  // Nothing to send is an empty buffer, and appending it adds nothing.
  CHECK(from.pack(leaving.data(), 0).empty());
  CHECK(to.append({}) == 0);
  CHECK(to.size() == 5);
  // A buffer that is not whole particles is refused.
  CHECK_THROWS_AS(to.append(std::span<const unsigned char>(bytes.data(), bytes.size() - 1)), std::length_error);
}

TEST_CASE("particle table: pack_groups gives each group the buffer pack() makes of its rows, a row in several groups") {
  ParticleTable from = make(6, 0);
  const std::vector<std::uint32_t> rows{1, 4, 4, 0, 2, 5};  // groups {1, 4}, {4, 0, 2}, {}, {5}
  const std::vector<std::size_t> first{0, 2, 5, 5, 6};
  hemo::exec::HostBuffer<unsigned char> packed;
  from.pack_groups(rows.data(), first, packed);
  REQUIRE(packed.size() == 6 * from.packed_bytes());
  for (std::size_t g = 0; g < 4; ++g) {
    const auto slice = from.group_slice(packed, first, g);
    CHECK(std::vector<unsigned char>(slice.begin(), slice.end()) ==
          from.pack(rows.data() + first[g], first[g + 1] - first[g]));
  }
  CHECK(from.group_slice(packed, first, 2).empty());
  from.pack_groups(rows.data(), std::vector<std::size_t>{0}, packed);
  CHECK(packed.size() == 0);
}


TEST_CASE("particle table: append_groups of pack_groups' buffer gives the rows append() of each group gives") {
  ParticleTable from = make(6, 0);
  const std::vector<std::uint32_t> rows{1, 4, 4, 0, 2, 5};  // groups {1, 4}, {4, 0, 2}, {}, {5}
  const std::vector<std::size_t> first{0, 2, 5, 5, 6};
  hemo::exec::HostBuffer<unsigned char> packed;
  from.pack_groups(rows.data(), first, packed);
  ParticleTable one = make(3, 100), each = make(3, 100);  // particles already there stay first
  const auto at = one.append_groups({packed.bytes(), packed.size()}, first);
  for (std::size_t g = 0; g < 4; ++g) each.append(from.group_slice(packed, first, g));
  CHECK(at == std::vector<std::size_t>{3, 5, 8, 8, 9});
  REQUIRE(one.size() == 9);
  REQUIRE(each.size() == 9);
  for (std::size_t i = 0; i < 9; ++i) {
    CAPTURE(i);
    CHECK(one.get<std::uint32_t>("id").component(0)[i] == each.get<std::uint32_t>("id").component(0)[i]);
    for (int c = 0; c < 3; ++c) CHECK(one.get<float>("position").component(c)[i] == each.get<float>("position").component(c)[i]);
  }
  CHECK(one.get<std::uint32_t>("id").component(0)[3] == 1);  // group 0's first row
  CHECK(one.get<std::uint32_t>("id").component(0)[8] == 5);
  CHECK_THROWS_AS(one.append_groups({packed.bytes(), packed.size() - 1}, first), std::length_error);
  CHECK(one.append_groups({packed.bytes(), 0}, std::vector<std::size_t>{0}) == std::vector<std::size_t>{9});
}
