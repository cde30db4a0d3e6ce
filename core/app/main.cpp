// The `hemoflow` command. See usage.cpp for the commands, options and exit codes.
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>

#include "core/app/cli.hpp"
#include "core/app/commands.hpp"
#include "core/comm/communicator.hpp"
#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/version.hpp"

int main(int argc, char** argv) {
  using namespace hemo;
  // A file that reaches the process's size limit (ulimit -f, a batch system's file size
  // limit) would kill the process with SIGXFSZ; ignored, the write fails with EFBIG
  // instead and the run ends with a message naming the file (WriteError, exit code 5).
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    // MPI only when a launcher started the process; a plain run never touches it.
    const std::unique_ptr<comm::Communicator> world = comm::world(argc, argv);
    app::CommandLine cl = app::parse_command_line(argc, argv);
    cl.run.comm = world.get();
    // Rank 0 speaks for the run (its warnings hold for all ranks); the others report errors.
    if (cl.quiet) log::set_level(log::Level::warn);
    if (world->rank() != 0) log::set_level(log::Level::error);
    if (world->size() > 1 && cl.command != "run" && cl.command != "check") {
      if (world->rank() == 0)
        std::fprintf(stderr, "error: only 'hemoflow run' and 'hemoflow check' run on many ranks (%s); run '%s' "
                             "without mpirun\n", world->describe().c_str(), cl.command.c_str());
      return int(ExitCode::bad_input);
    }
    if (world->size() > 1) log::info("ranks: " + world->describe());
    if (cl.command == "help" || cl.help) {
      std::fputs(app::usage_text(cl.help ? cl.command : "").c_str(), stdout);
      return 0;
    }
    if (cl.command == "version") {
      std::printf("hemoflow %s (commit %s)\n", hemo::version(), hemo::commit());
      return 0;
    }
    if (cl.command == "run") return app::command_run(cl);
    if (cl.command == "check") return app::command_check(cl);
    if (cl.command == "mesh") return app::command_mesh(cl);
    if (cl.command == "stl-pipe") return app::command_stl_pipe(cl);
    return app::command_info(cl);
  } catch (const app::UsageError& e) {
    // What is wrong, the command's synopsis and where the rest is: the full usage would
    // push the one line that matters off the screen.
    const std::string usage = app::usage_text(e.command);
    if (e.command.empty())
      std::fprintf(stderr, "error: %s\n(hemoflow --help lists the commands)\n", e.what());
    else
      std::fprintf(stderr, "error: %s\n%s\n(hemoflow %s --help lists every option)\n", e.what(),
                   usage.substr(0, usage.find('\n')).c_str(), e.command.c_str());
    return int(ExitCode::bad_input);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return int(ExitCode::failure);
  }
}
