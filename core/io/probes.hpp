#pragma once
// Probes: point and line samplers written to CSV (DIR/<name>.csv), one header row, then
// one row per sample and record. Values are taken at the fluid node nearest to each
// sample point (no interpolation: the CSV gives that node's position, so what was
// sampled is exact). Rows are flushed as they are written, so a crash loses nothing.
#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace hemo::io {

struct ProbeSpec {
  std::string name;
  enum class Kind { point, line } kind = Kind::point;
  std::array<double, 3> start{};  // m (the point, or the line's start)
  std::array<double, 3> end{};    // m (line only)
  int points = 1;                 // samples along a line, ends included
  std::int64_t every = 1;         // steps between records
  bool due(std::int64_t step) const { return every > 0 && step % every == 0; }
};

/// One sample location resolved to a node.
struct ProbeSample {
  std::uint32_t node = 0;
  std::array<double, 3> position{};  // m, of the node sampled
  double s = 0.0;                    // m, distance of the requested point along the line
};

/// Values of the sampled nodes at one step, in physical units, in sample order.
struct ProbeValues {
  std::vector<double> density;   // kg/m^3
  std::vector<double> pressure;  // Pa (relative to the reference pressure)
  std::vector<std::array<double, 3>> velocity;  // m/s
};

class Probe {
 public:
  /// Opens DIR/<name>.csv and writes the header (truncating it), or, for a run restarted
  /// from step continue_after > 0, keeps the records up to that step (series_csv.hpp).
  Probe(const std::string& output_dir, ProbeSpec spec, std::vector<ProbeSample> samples,
        std::int64_t continue_after = 0);
  const ProbeSpec& spec() const { return spec_; }
  const std::vector<ProbeSample>& samples() const { return samples_; }
  bool due(std::int64_t step) const { return spec_.due(step); }
  void record(std::int64_t step, double time, const ProbeValues& values);
  const std::string& path() const { return path_; }

 private:
  ProbeSpec spec_;
  std::vector<ProbeSample> samples_;
  std::string path_;
  std::unique_ptr<std::ofstream> out_;
};

}  // namespace hemo::io
