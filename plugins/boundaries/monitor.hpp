#pragma once
// What the boundary monitors (iolet flow rates, obstacle forces) share: the run's
// backend and units, and a CSV file in the output folder written one record at a time.
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/common/text.hpp"
#include "core/io/series_csv.hpp"
#include "core/plugin/plugin_api.hpp"

namespace hemo::boundaries {

struct RunContext {
  exec::Space space = exec::Space::host;
  std::uint32_t stride = 0;
  LatticeUnits units;
  std::int64_t check_every = 100;
  comm::Communicator* comm = nullptr;
  static RunContext of(SetupStage& st) { return {st.space, st.mesh.stride, st.units, st.check_every, &st.comm}; }
  bool due(std::int64_t step) const { return step % check_every == 0; }
};

/// DIR/<name>: a header row, then one row per record, flushed as written; a restarted
/// run continues the rows up to its checkpoint (core/io/series_csv.hpp). Every rank
/// opens it and records (monitors sum their values over the ranks first); rank 0 alone
/// writes the file.
class MonitorCsv {
 public:
  void open(const SetupStage& st, const std::string& name, const std::string& header) {
    open_ = true;
    if (st.comm.rank() != 0) return;
    path_ = (std::filesystem::path(st.output_dir) / name).string();
    out_ = io::open_series_csv(path_, "step,time" + header, st.first_step);
  }
  /// Whether the monitor records (on every rank, so all ranks take part in its sums).
  explicit operator bool() const { return open_; }
  void begin(std::int64_t step, double time) {
    if (out_) *out_ << step << ',' << fmt_g(time, 10);
  }
  void value(double v) {
    if (out_) *out_ << ',' << fmt_g(v, 10);
  }
  void end() {
    if (out_) *out_ << '\n' << std::flush;
  }

 private:
  bool open_ = false;
  std::string path_;
  std::unique_ptr<std::ofstream> out_;
};

}  // namespace hemo::boundaries
