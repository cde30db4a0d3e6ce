#include "core/io/series_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <filesystem>

#include "core/common/text.hpp"
#include "core/io/json.hpp"
#include "core/io/write_failure.hpp"

namespace hemo::io {

namespace {

/// The rows of `path` up to step `last` (header first), or "" if the header differs.
std::string rows_until(const std::string& path, const std::string& header, std::int64_t last) {
  std::ifstream in(path);
  std::string line, kept;
  if (!in || !std::getline(in, line) || line != header) return {};
  kept = header + '\n';
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a last line without its newline was cut short by the stop
    char* end = nullptr;
    const long long step = std::strtoll(line.c_str(), &end, 10);
    if (end == line.c_str() || *end != ',' || step > last) break;  // rows are in step order
    kept += line + '\n';
  }
  return kept;
}

}  // namespace

std::unique_ptr<std::ofstream> open_series_csv(const std::string& path, const std::string& header,
                                               std::int64_t continue_after) {
  std::string kept = continue_after > 0 ? rows_until(path, header, continue_after) : std::string();
  if (kept.empty()) kept = header + '\n';
  write_file_atomic(path, kept);
  errno = 0;
  auto out = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::app);
  if (!out->is_open()) write_failed(path, "open it to append rows", 0, errno);
  return out;
}

void append_row(std::ofstream& out, const std::string& path, const std::string& row) {
  std::error_code ec;
  const std::uintmax_t before = std::filesystem::file_size(path, ec);
  errno = 0;
  out.write(row.data(), static_cast<std::streamsize>(row.size()));
  out.flush();
  if (out) return;
  const int err = errno;
  // A row cut short by a full disk is taken back (after closing the stream, which may
  // try its buffer once more), so the file ends with whole rows, as readers and a
  // restart (rows_until) expect.
  out.clear();
  out.close();
  if (!ec) std::filesystem::resize_file(path, before, ec);
  write_failed(path, "append a row", row.size(), err);
}

void SeriesCsv::open(const comm::Communicator& comm, const std::string& dir, const std::string& name,
                     const std::string& header, std::int64_t continue_after) {
  open_ = true;
  path_ = (std::filesystem::path(dir) / name).string();
  if (comm.rank() == 0) out_ = open_series_csv(path_, "step,time" + header, continue_after);
}

void SeriesCsv::begin(std::int64_t step, double time) {
  if (out_) row_ = str(step, ',', fmt_g(time, 10));
}

void SeriesCsv::value(double v, int digits) {
  if (out_) row_ += ',' + fmt_g(v, digits);
}

void SeriesCsv::text(const std::string& v) {
  if (out_) row_ += ',' + v;
}

void SeriesCsv::end() {
  if (!out_) return;
  row_ += '\n';
  append_row(*out_, path_, row_);
}

}  // namespace hemo::io
