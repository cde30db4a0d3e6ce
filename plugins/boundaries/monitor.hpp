#pragma once
// What the boundary monitors (iolet flow rates, obstacle forces) share: the run's
// backend and units, and a CSV file in the output folder written one record at a time.
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/common/text.hpp"
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

/// DIR/<name>: a header row, then one row per record, flushed as written. Every rank
/// opens it and records (monitors sum their values over the ranks first); rank 0 alone
/// writes the file.
class MonitorCsv {
 public:
  void open(const comm::Communicator& comm, const std::string& dir, const std::string& name, const std::string& header) {
    open_ = true;
    if (comm.rank() != 0) return;
    path_ = (std::filesystem::path(dir) / name).string();
    out_ = std::make_unique<std::ofstream>(path_);
    if (!*out_) throw std::runtime_error("cannot write " + path_);
    *out_ << "step,time" << header << '\n';
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
