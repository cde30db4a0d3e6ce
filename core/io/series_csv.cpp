#include "core/io/series_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

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

}  // namespace hemo::io
