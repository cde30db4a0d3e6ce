#pragma once
#include "core/app/cli.hpp"

namespace hemo::app {

/// Each returns the process exit code (DESIGN.md: 0 ok, 1 failure, 2 bad input, 3 diverged).
int command_run(const CommandLine& cl);
int command_check(const CommandLine& cl);
int command_mesh(const CommandLine& cl);
int command_stl_pipe(const CommandLine& cl);
int command_info(const CommandLine& cl);

}  // namespace hemo::app
