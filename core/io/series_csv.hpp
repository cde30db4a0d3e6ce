#pragma once
// Time-series CSV files (probes, iolet flows, obstacle forces): a header line, then rows
// whose first column is the step. A restarted run continues the series the interrupted
// run wrote, so the files read as if the run had never stopped.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include "core/comm/communicator.hpp"

namespace hemo::io {

/// Opens `path` for appending rows after `header` (one line, no newline). With
/// continue_after = 0 (a fresh run) the file is truncated and the header written. With
/// continue_after = s (a run restarted from step s), the rows of steps <= s already there
/// are kept and later ones (written after the checkpoint by the run that stopped) are
/// dropped; a file that is absent or has another header starts afresh. Throws
/// WriteError naming the file if it cannot be written.
std::unique_ptr<std::ofstream> open_series_csv(const std::string& path, const std::string& header,
                                               std::int64_t continue_after);

/// Appends `row` (whole lines) to `out`, the series at `path`, and flushes it. If the
/// write fails (a full disk, the file size limit), takes back what of the row reached the
/// file, closes `out` and throws WriteError naming the file and the row's bytes.
void append_row(std::ofstream& out, const std::string& path, const std::string& row);

/// A monitor's time series, DIR/<name>: "step,time" + header, then one row per record,
/// flushed as written (open_series_csv). Every rank opens it and records, so that all
/// take part in the sums a monitor makes over the ranks first; rank 0 alone writes the
/// file.
class SeriesCsv {
 public:
  void open(const comm::Communicator& comm, const std::string& dir, const std::string& name, const std::string& header,
            std::int64_t continue_after);
  /// Whether the monitor records (true on every rank once opened).
  explicit operator bool() const { return open_; }
  void begin(std::int64_t step, double time);
  /// One value, with `digits` significant digits.
  void value(double v, int digits = 10);
  /// One text value, as given (no comma or quote in it).
  void text(const std::string& v);
  void end();

 private:
  bool open_ = false;
  std::string path_, row_;  // the row being recorded, written whole by end()
  std::unique_ptr<std::ofstream> out_;  // rank 0
};

}  // namespace hemo::io
