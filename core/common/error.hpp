#pragma once
// The error kinds a run can end with, and the exit codes they map to (DESIGN.md,
// "Interfaces other tools rely on"): 0 success, 1 anything else, 2 bad input (config,
// geometry), 3 a diverged run.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hemo {

enum class ExitCode : int { ok = 0, failure = 1, bad_input = 2, diverged = 3 };

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

}  // namespace hemo
