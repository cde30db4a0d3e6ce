#pragma once
// Command-line parsing for the `hemoflow` executable.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/sim/simulation.hpp"

namespace hemo::app {

struct CommandLine {
  std::string command;  // run, check, mesh, stl-pipe, info, help, version
  bool help = false;    // COMMAND --help: print that command's usage
  RunOptions run;
  bool quiet = false;
  bool keys = false;      // info --keys
  bool markdown = false;  // info --keys --markdown
  int ranks = 0;          // check --ranks N: report the partition into N ranks
  int time_steps = 0;     // check --time N: run N steps of the case and estimate the whole run's time
  // mesh
  std::string voxel_file;   // --voxels FILE: where `mesh CASE.toml` writes the voxel geometry
  bool find_iolets = false; // --find-iolets
  std::string unit = "m";   // --unit, for `mesh SURFACE.stl` and its caps
  std::vector<std::string> caps;  // --caps CAP.stl...: as given (patterns not yet expanded)
  std::string capped_output;      // --cap CLOSED.stl: mesh an open SURFACE.stl closed by flat caps
  // stl-pipe
  std::string stl_output;   // --output FILE.stl (parsed as run.output_dir)
  std::vector<double> pipe_center{0, 0, 0}, pipe_axis{1, 0, 0};
  double pipe_radius = 0.0, pipe_length = 0.0;
  double pipe_end_radius = 0.0;  // --end-radius; 0: the same as --radius
  int pipe_segments = 128;
  bool pipe_open = false;
  std::string cap_prefix;  // --cap-files PREFIX: also write PREFIX_0.stl, PREFIX_1.stl
};

/// Parses argv. Throws UsageError for anything it cannot make sense of. COMMAND --help
/// (or -h) anywhere after the command sets `help` and skips every other check.
CommandLine parse_command_line(int argc, char** argv);

struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& what, std::string for_command = "")
      : std::runtime_error(what), command(std::move(for_command)) {}
  std::string command;  // the command whose usage goes with the message; empty: all
};

/// The usage of one command (run, check, mesh, stl-pipe, info) with all its options, or
/// of every command in brief (an empty or unknown name: `hemoflow --help`).
std::string usage_text(const std::string& command = "");

}  // namespace hemo::app
