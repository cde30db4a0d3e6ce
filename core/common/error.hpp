#pragma once
// The error kinds a run can end with, and the exit codes they map to (DESIGN.md,
// "Interfaces other tools rely on"): 0 success, 1 anything else, 2 bad input (config,
// geometry), 3 a diverged run, 4 a run stopped by a signal after writing a checkpoint
// (continue it with --restart), 5 an output that could not be written (disk full, quota,
// file size limit, a folder that cannot be made).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hemo {

enum class ExitCode : int { ok = 0, failure = 1, bad_input = 2, diverged = 3, interrupted = 4, write_failed = 5 };

/// Bad user input: a case file, a --set override, a geometry. The message names the
/// place (file:line:column or the option) and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~InputError() override;  // out of line: see error.cpp
};

/// The solution blew up: NaN or an unphysical density. Carries where and when.
class DivergenceError : public std::runtime_error {
 public:
  DivergenceError(const std::string& what, std::int64_t step, std::int64_t node)
      : std::runtime_error(what), step_(step), node_(node) {}
  ~DivergenceError() override;
  std::int64_t step() const { return step_; }
  std::int64_t node() const { return node_; }

 private:
  std::int64_t step_;
  std::int64_t node_;
};

/// An output file could not be written or its folder made: the disk or the quota is
/// full, the process's file size limit was reached, the path is not writable. The
/// message names the file, the bytes being written and the cause; the files written
/// before (and the last checkpoint) are left as they were.
class WriteError : public std::runtime_error {
 public:
  WriteError(const std::string& what, std::string path, std::uint64_t bytes)
      : std::runtime_error(what), path_(std::move(path)), bytes_(bytes) {}
  ~WriteError() override;
  const std::string& path() const { return path_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  std::uint64_t bytes_;
};

}  // namespace hemo
