#pragma once
// Command-line parsing for the `hemoflow` executable.
#include <optional>
#include <string>
#include <vector>

#include "core/sim/simulation.hpp"

namespace hemo::app {

struct CommandLine {
  std::string command;  // run, check, mesh, stl-pipe, info, help, version
  RunOptions run;
  bool quiet = false;
  bool keys = false;      // info --keys
  bool markdown = false;  // info --keys --markdown
  // mesh
  std::string voxel_file;   // --voxels FILE: where `mesh CASE.toml` writes the voxel geometry
  bool find_iolets = false; // --find-iolets
  std::string unit = "m";   // --unit, for `mesh SURFACE.stl`
  // stl-pipe
  std::string stl_output;   // --output FILE.stl (parsed as run.output_dir)
  std::vector<double> pipe_center{0, 0, 0}, pipe_axis{1, 0, 0};
  double pipe_radius = 0.0, pipe_length = 0.0;
  int pipe_segments = 128;
  bool pipe_open = false;
};

/// Parses argv. Throws UsageError for anything it cannot make sense of.
CommandLine parse_command_line(int argc, char** argv);

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* usage_text();

}  // namespace hemo::app
