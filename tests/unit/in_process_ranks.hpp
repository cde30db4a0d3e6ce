#pragma once
// Runs a test body on several ranks of one process (comm::in_process: one thread each),
// so that collectives and neighbour exchanges are tested without MPI.
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/communicator.hpp"

namespace hemo::test {

/// `body(rank, comm)` on each of `ranks` ranks, one thread each; the errors thrown, by
/// rank ("" where none).
inline std::vector<std::string> on_ranks(int ranks, const std::function<void(int, comm::Communicator&)>& body) {
  auto comms = comm::in_process(ranks);
  std::vector<std::string> errors(std::size_t(ranks), "");
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        body(r, *comms[std::size_t(r)]);
      } catch (const std::exception& e) {
        errors[std::size_t(r)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  return errors;
}

}  // namespace hemo::test
