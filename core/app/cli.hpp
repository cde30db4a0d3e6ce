#pragma once
// Command-line parsing for the `hemoflow` executable.
#include <optional>
#include <string>
#include <vector>

#include "core/sim/simulation.hpp"

namespace hemo::app {

struct CommandLine {
  std::string command;  // run, check, info, help, version
  RunOptions run;
  bool quiet = false;
  bool keys = false;      // info --keys
  bool markdown = false;  // info --keys --markdown
};

/// Parses argv. Throws UsageError for anything it cannot make sense of.
CommandLine parse_command_line(int argc, char** argv);

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* usage_text();

}  // namespace hemo::app
