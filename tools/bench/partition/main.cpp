// hemo_partition_bench: what partitioning costs at set-up (issue 11, must-have 1), for
// tools/bench/partition.py. For a case (core keys only, e.g. cases/bench/vessel_tree.toml)
// it counts the fluid voxels of every brick layer by layer (partition::count_layers: pass
// 1 of a run, here all layers in one process where a run shares them over its ranks),
// runs SCOTCH for each rank count asked (partition::partition_bricks, as rank 0 of a run
// does) and finds the voxel window each rank would then hold (partition::windows_of_parts),
// timing each stage and reading the process's resident memory after it. Prints one JSON
// object on stdout.
//
// usage: hemo_partition_bench CASE.toml [--set SECTION.KEY=VALUE]... --ranks N [N...]
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/geometry/shapes.hpp"
#include "core/io/json.hpp"
#include "core/partition/brick_partition.hpp"
#include "core/sim/case_schema.hpp"
#include "core/sim/units.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// Resident memory now (VmRSS) and the peak so far (VmHWM), bytes, from /proc.
std::pair<double, double> resident_bytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  double now = 0, peak = 0;
  while (in >> key) {
    double kb = 0;
    if (key == "VmRSS:" && in >> kb) now = kb * 1024;
    else if (key == "VmHWM:" && in >> kb) peak = kb * 1024;
  }
  return {now, peak};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string case_path;
    std::vector<std::string> overrides;
    std::vector<int> ranks;
    for (int a = 1; a < argc; ++a) {
      const std::string arg = argv[a];
      if (arg == "--set" && a + 1 < argc) overrides.push_back(argv[++a]);
      else if (arg == "--ranks")
        while (a + 1 < argc && argv[a + 1][0] != '-') ranks.push_back(std::atoi(argv[++a]));
      else if (case_path.empty()) case_path = arg;
      else throw hemo::InputError("unexpected argument '" + arg + "'");
    }
    if (case_path.empty() || ranks.empty())
      throw hemo::InputError("usage: hemo_partition_bench CASE.toml [--set KEY=VALUE]... --ranks N [N...]");

    hemo::config::Document doc = hemo::config::Document::load(case_path);
    for (const std::string& o : overrides) doc.apply_override(o);
    hemo::config::Schema schema;
    hemo::declare_core_schema(schema);
    const hemo::config::Config cfg = doc.validate(schema);
    const hemo::LatticeUnits units = hemo::derive_units(cfg);
    const int edge = static_cast<int>(cfg.integer("partition.brick"));

    hemo::io::JsonWriter j;
    j.begin_object();
    j.key("case").value(case_path);
    j.key("dx").value(units.dx);
    j.key("brick").value(edge);
    auto t0 = clock_type::now();
    hemo::geometry::Geometry geometry(cfg.section("geometry"), units.dx, std::int64_t(1) << 40);
    const std::array<int, 3> dims = geometry.frame().dims;
    hemo::partition::BrickGrid bricks = hemo::partition::empty_bricks(dims, edge);
    hemo::geometry::VoxelTally tally = geometry.tally();
    hemo::partition::count_layers(geometry, 0, bricks.dims[2], bricks, tally);
    geometry.finish(tally);
    const std::uint64_t box = std::uint64_t(dims[0]) * std::uint64_t(dims[1]) * std::uint64_t(dims[2]);
    j.key("count_layers_seconds").value(seconds_since(t0));
    j.key("voxels").value(box);
    j.key("layer_voxels").value(std::uint64_t(dims[0]) * std::uint64_t(dims[1]) * std::uint64_t(std::min(edge, dims[2])));
    j.key("rss_after_bricks_bytes").value(resident_bytes().first);
    std::uint64_t fluid = 0, with_fluid = 0;
    for (const std::uint32_t f : bricks.fluid) {
      fluid += f;
      with_fluid += f > 0;
    }
    j.key("fluid_voxels").value(fluid);
    j.key("bricks").value(std::uint64_t(bricks.count()));
    j.key("bricks_with_fluid").value(with_fluid);
    j.key("partitions").begin_array();
    for (const int n : ranks) {
      t0 = clock_type::now();
      const hemo::partition::Partition p = hemo::partition::partition_bricks(bricks, n);
      const double s = seconds_since(t0);
      j.begin_object();
      j.key("ranks").value(n);
      j.key("scotch_seconds").value(s);
      j.key("imbalance").value(p.imbalance());
      // The window each rank would hold (pass 2), without periodic axes.
      std::uint64_t largest = 0, sum = 0;
      for (const auto& w : hemo::partition::windows_of_parts(bricks, p.owner, n, dims, {false, false, false})) {
        largest = std::max(largest, std::uint64_t(w.count()));
        sum += std::uint64_t(w.count());
      }
      j.key("largest_window_voxels").value(largest);
      j.key("largest_window_fraction").value(double(largest) / double(box));
      j.key("mean_window_fraction").value(double(sum) / double(n) / double(box));
      j.key("rss_bytes").value(resident_bytes().first);
      j.end_object();
    }
    j.end_array();
    j.key("peak_rss_bytes").value(resident_bytes().second);
    j.end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
