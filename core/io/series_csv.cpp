#include "core/io/series_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <filesystem>

#include "core/common/text.hpp"
#include "core/io/json.hpp"

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
  if (!out->is_open())
    throw std::runtime_error("cannot open " + path + ": " + (errno ? std::strerror(errno) : "unknown error"));
  return out;
}

void SeriesCsv::open(const comm::Communicator& comm, const std::string& dir, const std::string& name,
                     const std::string& header, std::int64_t continue_after) {
  open_ = true;
  if (comm.rank() == 0)
    out_ = open_series_csv((std::filesystem::path(dir) / name).string(), "step,time" + header, continue_after);
}

void SeriesCsv::begin(std::int64_t step, double time) {
  if (out_) *out_ << step << ',' << fmt_g(time, 10);
}

void SeriesCsv::value(double v, int digits) {
  if (out_) *out_ << ',' << fmt_g(v, digits);
}

void SeriesCsv::text(const std::string& v) {
  if (out_) *out_ << ',' << v;
}

void SeriesCsv::end() {
  if (out_) *out_ << '\n' << std::flush;
}

}  // namespace hemo::io
