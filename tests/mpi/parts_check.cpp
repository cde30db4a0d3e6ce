// Issue 11's first proof, without MPI: a case split into k parts that run as k threads of
// one process, exchanging halos by in-process copies (comm::in_process), ends with the
// population checksum (global voxel order) of the one-part run, bitwise, for each k asked.
// The same set-up path as an MPI run: pass 1 per brick layer, SCOTCH on rank 0, each
// part's voxel window, rank-local mesh, halo exchange in HemeLB's order.
//
// usage: hemo_parts_check CASE.toml WORKDIR [--set SECTION.KEY=VALUE]... [--steps N] --parts K [K...]
// Exit 0 when every k matches; 1 otherwise; 2 for bad usage.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/common/log.hpp"
#include "core/sim/simulation.hpp"
#include "core/sim/summary.hpp"

namespace {

/// Runs the case on `parts` in-process ranks; returns rank 0's summary.
hemo::RunSummary run_parts(const hemo::RunOptions& base, int parts) {
  auto comms = hemo::comm::in_process(parts);
  std::vector<hemo::RunSummary> summaries(static_cast<std::size_t>(parts));
  std::vector<std::thread> threads;
  for (int r = 0; r < parts; ++r)
    threads.emplace_back([&, r] {
      try {
        hemo::RunOptions o = base;
        o.comm = comms[std::size_t(r)].get();
        o.output_dir = base.output_dir + "_" + std::to_string(parts);
        hemo::Simulation sim(o, summaries[std::size_t(r)]);
        sim.run();
      } catch (const std::exception& e) {
        // The other parts would wait forever in a collective: end the process.
        comms[std::size_t(r)]->abort(1, e.what());
      }
    });
  for (auto& t : threads) t.join();
  return summaries[0];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: hemo_parts_check CASE.toml WORKDIR [--set K=V]... [--steps N] --parts K [K...]\n");
    return 2;
  }
  hemo::RunOptions base;
  base.case_path = argv[1];
  base.output_dir = (std::filesystem::path(argv[2]) / std::filesystem::path(argv[1]).stem()).string();
  base.progress = hemo::ProgressMode::never;
  std::vector<int> parts;
  for (int a = 3; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--set" && a + 1 < argc) base.overrides.push_back(argv[++a]);
    else if (arg == "--steps" && a + 1 < argc) base.steps = std::atoll(argv[++a]);
    else if (arg == "--parts")
      while (a + 1 < argc && argv[a + 1][0] != '-') parts.push_back(std::atoi(argv[++a]));
    else {
      std::fprintf(stderr, "hemo_parts_check: unexpected argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (parts.empty()) {
    std::fprintf(stderr, "hemo_parts_check: --parts K [K...] is required\n");
    return 2;
  }
  hemo::log::set_level(hemo::log::Level::error);
  try {
    hemo::RunSummary one;
    {
      hemo::RunOptions o = base;
      o.output_dir += "_1";
      hemo::Simulation sim(o, one);
      sim.run();
    }
    int failures = 0;
    for (const int k : parts) {
      const hemo::RunSummary s = run_parts(base, k);
      const bool same = s.population_checksum == one.population_checksum && s.ranks == k &&
                        s.fluid_nodes == one.fluid_nodes;
      std::printf("%s %s, %d parts (threads): checksum %s (1 part: %s), %llu nodes on %d ranks\n", same ? "ok  " : "FAIL",
                  base.case_path.c_str(), k, s.population_checksum.c_str(), one.population_checksum.c_str(),
                  static_cast<unsigned long long>(s.fluid_nodes), s.ranks);
      failures += !same;
    }
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hemo_parts_check: %s\n", e.what());
    return 1;
  }
}
