#pragma once
// Stopping a run cleanly on a signal (issue 18; docs/cluster.md, "Signals"): SIGTERM (the
// batch system's time limit, `kill`), SIGINT (Ctrl-C) and SIGUSR1 (Slurm's early warning,
// `--signal=USR1@120`) make the run finish the step it is in on every rank, write a
// checkpoint and summary.json (status "interrupted") and exit with
// ExitCode::interrupted, to be continued with --restart.
//
// The handler only records the signal (async-signal-safe); the time loop asks after its
// steps (StopPoll), and with many ranks they agree, through a maximum over the ranks, on
// the one step after which all of them stop. Repeated signals while the run finishes its
// step and writes the checkpoint are noted on stderr and otherwise ignored, so a second
// Ctrl-C cannot cut the checkpoint short; SIGKILL still ends the process at once.
#include <cstdint>
#include <string>

#include "core/comm/communicator.hpp"

namespace hemo {

/// Catches SIGTERM, SIGINT and SIGUSR1 from now until the process ends. `hemoflow run`
/// calls it once set-up is done: before, the signals end the process at once (there is
/// nothing to keep yet); after the last step, one is noted and changes nothing, so that a
/// signal cannot kill a run while it writes its summary or leaves MPI (a rank killed then
/// would turn the job's exit code into the signal's). SIGKILL still ends it.
void catch_stop_signals();

/// Catches the same signals while it lives and restores the handlers that were there
/// before when it goes (when the last goes, for ranks that are threads of one process),
/// unless catch_stop_signals() made them the process's. For tests.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The first signal caught (0: none).
  static int caught();
};

/// "SIGTERM", "SIGINT", "SIGUSR1", else "signal N".
std::string signal_name(int signal);

/// Whether to stop after a step because a rank caught a signal. One rank looks after
/// every step. Many ranks agree on it by a maximum over the ranks, a collective, so they
/// do it on the same steps: about every `seconds_apart` of stepping, the steps between
/// two polls following from the slowest rank's time per step since the last (the same
/// number on every rank). A signal is then acted on within about that time plus a step,
/// at the cost of one small reduction per interval.
class StopPoll {
 public:
  explicit StopPoll(comm::Communicator& comm, double seconds_apart = 0.1);
  /// After `step`: the signal to stop on, the same on every rank, or 0 to go on. Every
  /// rank calls it after every step.
  int after_step(std::int64_t step);

 private:
  comm::Communicator& comm_;
  double seconds_apart_;
  std::int64_t next_poll_ = -1;  // the step after which the ranks poll next (-1: the first)
  std::int64_t last_poll_ = 0;
  double last_poll_seconds_ = 0.0;  // monotonic clock at the last poll
};

}  // namespace hemo
