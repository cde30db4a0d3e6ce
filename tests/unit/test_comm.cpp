// The serial communicator (core/comm): one rank, collectives are identities, and a
// message to itself is copied into the receive with the same tag.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "core/comm/communicator.hpp"

using namespace hemo;

TEST_CASE("serial communicator: one rank, identity collectives") {
  const auto c = comm::serial();
  CHECK(c->rank() == 0);
  CHECK(c->size() == 1);
  CHECK(c->sum(2.5) == 2.5);
  CHECK(c->sum(std::uint64_t(7)) == 7u);
  CHECK(c->max(-1.0) == -1.0);
  CHECK(c->exclusive_prefix_sum(42) == 0u);
  std::vector<unsigned char> bytes{1, 2, 3};
  c->broadcast(bytes, 0);
  CHECK(bytes.size() == 3);
  CHECK_THROWS_AS(c->broadcast(bytes, 1), std::logic_error);
}

TEST_CASE("serial communicator: messages to itself, matched by tag") {
  const auto c = comm::serial();
  std::vector<unsigned char> a{1, 2, 3, 4}, b{9, 9}, ra(4), rb(2);
  const comm::Message sends[] = {{0, 1, a}, {0, 2, b}};
  const comm::Message receives[] = {{0, 2, rb}, {0, 1, ra}};
  c->start_exchange(sends, receives);
  CHECK_THROWS_AS(c->start_exchange(sends, receives), std::logic_error);  // one at a time
  c->finish_exchange();
  CHECK(ra == a);
  CHECK(rb == b);
  std::vector<unsigned char> wrong(3);
  const comm::Message bad[] = {{0, 1, wrong}};
  CHECK_THROWS_AS(c->start_exchange(sends, bad), std::logic_error);  // no send of 3 bytes with tag 1
  const comm::Message elsewhere[] = {{1, 1, ra}};
  CHECK_THROWS_AS(c->start_exchange(sends, elsewhere), std::logic_error);
}
