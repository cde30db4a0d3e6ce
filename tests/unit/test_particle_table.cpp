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

#include <algorithm>
#include <thread>

#include "core/comm/communicator.hpp"
#include "core/fields/particle_exchange.hpp"

TEST_CASE("migrate: 3 ranks send particles to their new owners; none lost, none made, state bitwise") {
  const int ranks = 3;
  const std::size_t per_rank = 10;
  auto comms = hemo::comm::in_process(ranks);
  std::vector<std::vector<std::uint32_t>> ids(ranks);
  std::vector<std::vector<float>> xs(ranks);
  std::vector<hemo::Migration> done(ranks);
  std::vector<std::string> errors(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        ParticleTable t = make(per_rank, std::uint32_t(100 * r));
        for (std::size_t i = 0; i < per_rank; ++i) t.get<float>("position").component(0)[i] = float(100 * r + i) + 0.5f;
        std::vector<int> destination(per_rank);
        for (std::size_t i = 0; i < per_rank; ++i) destination[i] = int((i + std::size_t(r)) % ranks);
        // Rank 1 sends nothing to rank 2 (its particles bound there stay): an empty message.
        if (r == 1)
          for (auto& d : destination) d = d == 2 ? 1 : d;
        const std::vector<int> peers{0, 1, 2};
        done[std::size_t(r)] = hemo::migrate(*comms[std::size_t(r)], t, destination, peers, 40);
        ids[std::size_t(r)].assign(t.get<std::uint32_t>("id").component(0), t.get<std::uint32_t>("id").component(0) + t.size());
        xs[std::size_t(r)].assign(t.get<float>("position").component(0), t.get<float>("position").component(0) + t.size());
      } catch (const std::exception& e) {
        errors[std::size_t(r)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : errors) CHECK(e == "");
  // Every particle is somewhere exactly once, with its own position.
  std::vector<std::uint32_t> all;
  std::size_t sent = 0, received = 0;
  for (int r = 0; r < ranks; ++r) {
    sent += done[std::size_t(r)].sent;
    received += done[std::size_t(r)].received;
    for (std::size_t k = 0; k < ids[std::size_t(r)].size(); ++k) {
      const std::uint32_t id = ids[std::size_t(r)][k];
      CHECK(xs[std::size_t(r)][k] == float(id) + 0.5f);
      const int from = int(id / 100), i = int(id % 100);
      int to = (i + from) % ranks;
      if (from == 1 && to == 2) to = 1;
      CHECK(to == r);  // it is where it was sent
      all.push_back(id);
    }
  }
  CHECK(sent == received);
  CHECK(sent > 0);
  std::sort(all.begin(), all.end());
  CHECK(all.size() == ranks * per_rank);
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
  // The stayers keep their order and come first: rank 0 kept its particles 0, 3, 6, 9.
  REQUIRE(ids[0].size() >= 4);
  CHECK(ids[0][0] == 0);
  CHECK(ids[0][1] == 3);
  CHECK(ids[0][3] == 9);
}

TEST_CASE("migrate: a destination outside the peers is refused, naming the particle and the rank") {
  auto comm = hemo::comm::serial();
  ParticleTable t = make(3, 0);
  const std::vector<int> destination{0, 5, 0}, peers{0};
  CHECK_THROWS_WITH_AS(hemo::migrate(*comm, t, destination, peers, 40),
                       "migrate: particle 1 of table 'cells' on rank 0 is bound for rank 5, which is not among this "
                       "rank's peers",
                       std::logic_error);
}
