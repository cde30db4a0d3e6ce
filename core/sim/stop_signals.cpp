#include "core/sim/stop_signals.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iterator>
#include <mutex>
#include <utility>

#include "core/common/text.hpp"

namespace hemo {

namespace {

// Lock-free atomics, not a volatile sig_atomic_t: the signal may land on any thread (an
// OpenMP worker, the output thread) and the main thread must see it; lock-free atomic
// operations are async-signal-safe (C++17 [support.signal]).
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> first_signal{0};
std::atomic<int> signals_caught{0};
// Ranks that are threads of one process (comm::in_process) each run a time loop: the
// first installs the handlers, the last restores the previous ones.
std::mutex users_mutex;
int users = 0;

constexpr int stop_signals[] = {SIGTERM, SIGINT, SIGUSR1};
struct sigaction previous[std::size(stop_signals)];

extern "C" void on_stop_signal(int signal) {
  int none = 0;
  first_signal.compare_exchange_strong(none, signal);
  if (signals_caught.fetch_add(1) > 0) {
    // Only write(2) here: the rest of the I/O library is not async-signal-safe.
    static const char again[] =
        "hemoflow: signal received again: ignored until the run has stopped cleanly (SIGKILL ends it at once)\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, again, sizeof again - 1);
  }
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Installs the handler for the first user (users_mutex held).
void install() {
  if (users++ > 0) return;
  first_signal = 0;
  signals_caught = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: a write or an MPI wait the signal interrupts goes on instead of failing
  // with EINTR.
  action.sa_flags = SA_RESTART;
  for (std::size_t s = 0; s < std::size(stop_signals); ++s) sigaction(stop_signals[s], &action, &previous[s]);
}

}  // namespace

void catch_stop_signals() {
  const std::lock_guard lock(users_mutex);
  static bool done = false;
  if (!std::exchange(done, true)) install();  // a user that never goes
}

StopSignals::StopSignals() {
  const std::lock_guard lock(users_mutex);
  install();
}

StopSignals::~StopSignals() {
  const std::lock_guard lock(users_mutex);
  if (--users > 0) return;
  for (std::size_t s = 0; s < std::size(stop_signals); ++s) sigaction(stop_signals[s], &previous[s], nullptr);
}

int StopSignals::caught() { return first_signal.load(); }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR1: return "SIGUSR1";
    default: return str("signal ", signal);
  }
}

StopPoll::StopPoll(comm::Communicator& comm, double seconds_apart) : comm_(comm), seconds_apart_(seconds_apart) {}

int StopPoll::after_step(std::int64_t step) {
  if (comm_.size() == 1) return StopSignals::caught();
  if (next_poll_ >= 0 && step < next_poll_) return 0;
  const double now = now_seconds();
  double poll[2] = {double(StopSignals::caught()), next_poll_ < 0 ? 0.0 : now - last_poll_seconds_};
  comm_.max(std::span<double>(poll, 2));
  if (poll[0] > 0) return int(poll[0]);
  // The slowest rank's seconds per step since the last poll set the steps to the next
  // one: the same on every rank, since all have the same maximum.
  const double per_step = next_poll_ < 0 ? 0.0 : poll[1] / double(step - last_poll_);
  const std::int64_t apart = per_step > 0.0 ? std::int64_t(std::clamp(seconds_apart_ / per_step, 1.0, 10000.0)) : 1;
  last_poll_ = step;
  last_poll_seconds_ = now;
  next_poll_ = step + apart;
  return 0;
}

}  // namespace hemo
