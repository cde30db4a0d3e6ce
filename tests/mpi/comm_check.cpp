// Every operation of the communicator (core/comm) on however many ranks mpirun started
// (or one, serially, without mpirun): sums, max, prefix sum, broadcast, gather and
// scatter, a ring of neighbour messages with computation between start and finish, and
// an exchange of messages whose sizes the receivers do not know (exchange_variable), and
// particles packed, exchanged and appended by their new owners (as rbc's migrants). Exit 0 when every rank
// got exactly the expected values.
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/fields/particle_table.hpp"

int main(int argc, char** argv) {
  auto comm = hemo::comm::world(argc, argv);
  const int r = comm->rank(), p = comm->size();
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "rank %d of %d: FAIL %s\n", r, p, what.c_str());
      ++failures;
    }
  };

  expect(comm->sum(std::uint64_t(r + 1)) == std::uint64_t(p) * (p + 1) / 2, "sum of integers");
  // Doubles: added in rank order on every rank, so equal to the same sum done here.
  double in_order = 0.0;
  for (int k = 0; k < p; ++k) in_order += 0.1 * (k + 1);
  expect(comm->sum(0.1 * (r + 1)) == in_order, "sum of doubles in rank order");
  std::vector<double> two{double(r), -double(r)};
  comm->max(two);
  expect(two[0] == p - 1 && two[1] == 0.0, "element-wise max");
  expect(comm->exclusive_prefix_sum(std::uint64_t(r + 1)) == std::uint64_t(r) * (r + 1) / 2, "exclusive prefix sum");

  std::vector<unsigned char> text;
  const std::string from_root = "case text from the last rank";
  if (r == p - 1) text.assign(from_root.begin(), from_root.end());
  comm->broadcast(text, p - 1);
  expect(std::string(text.begin(), text.end()) == from_root, "broadcast");

  // Gather then scatter back: rank k's k + 1 bytes of value k travel to root 0 and return.
  std::vector<unsigned char> mine(std::size_t(r + 1), static_cast<unsigned char>(r)), all, back;
  comm->gather(mine, all, 0);
  std::vector<std::uint64_t> counts;
  for (int k = 0; k < p && r == 0; ++k) counts.push_back(std::uint64_t(k + 1));
  expect(r != 0 || all.size() == std::size_t(p) * (p + 1) / 2, "gather sizes");
  comm->scatter(all, counts, back, 0);
  expect(back == mine, "scatter returns each rank its gathered bytes");

  // A ring: each rank sends 1000 doubles (its rank) to the next one and receives from the
  // previous one; on one rank the message goes to itself.
  const int next = (r + 1) % p, previous = (r + p - 1) % p;
  std::vector<double> out(1000, double(r)), in(1000, -1.0);
  const hemo::comm::Message send{next, 7, {reinterpret_cast<unsigned char*>(out.data()), out.size() * sizeof(double)}};
  const hemo::comm::Message receive{previous, 7, {reinterpret_cast<unsigned char*>(in.data()), in.size() * sizeof(double)}};
  comm->start_exchange({&send, 1}, {&receive, 1});
  volatile double busy = 0.0;  // work while the messages fly
  for (int i = 0; i < 100000; ++i) busy = busy + 1e-9 * i;
  comm->finish_exchange();
  bool ring = true;
  for (double v : in) ring &= v == double(previous);
  expect(ring, "ring exchange");

  // Messages of sizes the receiver does not know: rank r sends (7 r + q) % 5 bytes of
  // value r to every rank q, itself included (some are empty).
  std::vector<int> peers(static_cast<std::size_t>(p));
  std::iota(peers.begin(), peers.end(), 0);
  std::vector<std::vector<unsigned char>> sends;
  for (int q = 0; q < p; ++q) sends.emplace_back(std::size_t((7 * r + q) % 5), static_cast<unsigned char>(r));
  const auto got = hemo::comm::exchange_variable(*comm, peers, sends, 20);
  bool variable = got.size() == std::size_t(p);
  for (int q = 0; q < p && variable; ++q)
    variable = got[std::size_t(q)] == std::vector<unsigned char>(std::size_t((7 * q + r) % 5), static_cast<unsigned char>(q));
  expect(variable, "exchange of unknown sizes (some empty)");
  {  // the same as spans, received into one buffer peer after peer (rbc's ghosts)
    std::vector<std::span<const unsigned char>> spans(sends.begin(), sends.end());
    std::vector<unsigned char> inbox;
    const auto first = hemo::comm::start_exchange_variable(*comm, peers, spans, 40, [&](std::size_t bytes) {
      inbox.resize(bytes);
      return inbox.data();
    });
    comm->finish_exchange();
    bool one_buffer = first.size() == std::size_t(p) + 1 && first.back() == inbox.size();
    for (int q = 0; q < p && one_buffer; ++q)
      one_buffer = std::vector<unsigned char>(inbox.begin() + std::ptrdiff_t(first[q]), inbox.begin() + std::ptrdiff_t(first[q + 1])) ==
                   got[std::size_t(q)];
    expect(one_buffer, "exchange of unknown sizes into one buffer, peer after peer");
  }

  // Particles to their new owners, as rbc's migrants travel (ParticleTable::pack, then
  // exchange_variable, then the stayers kept and the arrivals appended): rank r's
  // particle i (id 1000 r + i) goes to rank (i + r) % p; every rank ends with those
  // bound for it, none lost.
  {
    hemo::ParticleTable t(hemo::exec::Space::host, "cells", "check", 8);
    t.add<double>("position", 3, "").set_restart_state();
    t.add<std::uint32_t>("id", 1, "").set_restart_state();
    const std::size_t n = 7;
    t.resize(n);
    std::vector<std::vector<std::uint32_t>> leaving(static_cast<std::size_t>(p));
    std::vector<std::uint32_t> staying;
    for (std::size_t i = 0; i < n; ++i) {
      t.get<std::uint32_t>("id").component(0)[i] = std::uint32_t(1000 * r + i);
      for (int c = 0; c < 3; ++c) t.get<double>("position").component(c)[i] = 0.5 * double(1000 * r + i) + c;
      const int to = int((i + std::size_t(r)) % std::size_t(p));
      (to == r ? staying : leaving[std::size_t(to)]).push_back(std::uint32_t(i));
    }
    std::vector<std::vector<unsigned char>> packed(static_cast<std::size_t>(p));
    std::uint64_t sent = 0, received = 0;
    for (int q = 0; q < p; ++q)
      if (q != r) {
        packed[std::size_t(q)] = t.pack(leaving[std::size_t(q)].data(), leaving[std::size_t(q)].size());
        sent += leaving[std::size_t(q)].size();
      }
    const auto arrived = hemo::comm::exchange_variable(*comm, peers, packed, 30);
    t.permute(staying.data(), staying.size());
    for (const auto& bytes : arrived) received += t.append(bytes);
    bool placed = comm->sum(std::uint64_t(t.size())) == std::uint64_t(n) * std::uint64_t(p);
    for (std::size_t k = 0; k < t.size(); ++k) {
      const std::uint32_t id = t.get<std::uint32_t>("id").component(0)[k];
      placed &= int((id % 1000 + id / 1000) % std::uint32_t(p)) == r;
      placed &= t.get<double>("position").component(2)[k] == 0.5 * double(id) + 2;
    }
    placed &= comm->sum(sent) == comm->sum(received);
    expect(placed, "particles packed, exchanged and appended: every particle on its new owner, state intact, counts matching");
  }

  const std::uint64_t failed_ranks = comm->sum(std::uint64_t(failures > 0));
  if (r == 0) std::printf("%s: %s, %llu of %d ranks failed\n", argv[0], comm->describe().c_str(),
                          static_cast<unsigned long long>(failed_ranks), p);
  return failed_ranks == 0 ? 0 : 1;
}
