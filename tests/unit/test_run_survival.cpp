// Unit tests for what lets a run survive clusters and users (issue 18): stopping on a
// signal with every rank agreeing on the step (core/sim/stop_signals.hpp), write failures
// that name the file and the bytes (core/io/write_failure.hpp, series_csv.hpp), and the
// largest-speed search the divergence report's history uses (exec::max_norm_squared).
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/exec/reduce.hpp"
#include "core/io/series_csv.hpp"
#include "core/io/write_failure.hpp"
#include "core/sim/divergence_report.hpp"
#include "core/sim/stop_signals.hpp"
#include "tests/unit/in_process_ranks.hpp"
#include "tests/unit/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace hemo;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// The handler of `signal` now.
void (*handler_of(int signal))(int) {
  struct sigaction now {};
  sigaction(signal, nullptr, &now);
  return now.sa_handler;
}

}  // namespace

TEST_CASE("a stop signal is recorded, polled after a step and the previous handler restored") {
  // (doctest has handlers of its own for SIGTERM and SIGINT: they must come back too)
  const auto usr1 = handler_of(SIGUSR1), term = handler_of(SIGTERM);
  auto serial = comm::serial();
  {
    const StopSignals signals;
    StopPoll poll(*serial);
    CHECK(poll.after_step(1) == 0);
    std::raise(SIGUSR1);
    std::raise(SIGTERM);  // a second one: the first is kept
    CHECK(StopSignals::caught() == SIGUSR1);
    CHECK(poll.after_step(2) == SIGUSR1);
    CHECK(signal_name(SIGUSR1) == "SIGUSR1");
    CHECK(signal_name(SIGTERM) == "SIGTERM");
  }
  CHECK((handler_of(SIGUSR1) == usr1));
  CHECK((handler_of(SIGTERM) == term));
}

TEST_CASE("ranks agree on the step to stop after, wherever the signal lands") {
  // Three ranks as threads of one process: the signal reaches the process once, between
  // steps; every rank must report it after the same step, polling at the same steps.
  constexpr int ranks = 3;
  const auto before = handler_of(SIGINT);
  std::vector<std::int64_t> stopped(ranks, -1);
  std::vector<int> signal(ranks, 0);
  const auto errors = test::on_ranks(ranks, [&](int rank, comm::Communicator& comm) {
    const StopSignals signals;
    StopPoll poll(comm, 0.0);  // poll every step (no time between polls)
    for (std::int64_t step = 1; step <= 50; ++step) {
      if (rank == 1 && step == 7) std::raise(SIGINT);
      const int s = poll.after_step(step);
      if (s) {
        stopped[std::size_t(rank)] = step;
        signal[std::size_t(rank)] = s;
        return;
      }
    }
  });
  for (const std::string& e : errors) CHECK(e.empty());
  for (int r = 0; r < ranks; ++r) {
    CHECK(stopped[std::size_t(r)] == stopped[0]);
    CHECK(signal[std::size_t(r)] == SIGINT);
  }
  CHECK(stopped[0] >= 7);
  CHECK((handler_of(SIGINT) == before));
}

TEST_CASE("polls between many ranks are spaced by the time per step") {
  // 1 s between polls, steps of (almost) no time: after the first two polls (steps 1 and
  // 2, the second measuring the time per step) the next is hundreds to 10000 (the cap)
  // steps later, at the same step on every rank; a signal in between waits for it.
  std::vector<std::int64_t> stopped(2, -1);
  const auto errors = test::on_ranks(2, [&](int rank, comm::Communicator& comm) {
    const StopSignals signals;
    StopPoll poll(comm, 1.0);
    for (std::int64_t step = 1; step <= 20000; ++step) {
      if (rank == 0 && step == 5) std::raise(SIGUSR1);
      if (poll.after_step(step)) {
        stopped[std::size_t(rank)] = step;
        return;
      }
    }
  });
  for (const std::string& e : errors) CHECK(e.empty());
  CHECK(stopped[0] == stopped[1]);
  CHECK(stopped[0] > 5);
  CHECK(stopped[0] <= 2 + 10000);
}

TEST_CASE("write failures name the file, the cause and the bytes") {
  CHECK(io::write_cause(ENOSPC) == "no space left on the device (errno ENOSPC)");
  CHECK(contains(io::write_cause(EFBIG), "ulimit -f"));
  CHECK(contains(io::write_cause(EDQUOT), "quota"));
  CHECK(io::byte_count(100) == "100 bytes");
  CHECK(io::byte_count(2 << 20) == "2097152 bytes = 2.0 MiB");
  test::TempDir dir("survival");
  try {
    io::write_failed((dir.path / "checkpoint.h5").string(), "write row 3 of /fields/f", 4096, ENOSPC);
    FAIL("expected a WriteError");
  } catch (const WriteError& e) {
    CHECK(contains(e.what(), "cannot write " + (dir.path / "checkpoint.h5").string() + ": no space left"));
    CHECK(contains(e.what(), "failed to write row 3 of /fields/f: 4096 bytes = 4.0 KiB"));
    CHECK(contains(e.what(), "free on its file system"));
    CHECK(e.bytes() == 4096);
  }
  // A folder under a regular file cannot be made, even by root.
  std::ofstream(dir.path / "file") << "x";
  try {
    io::make_folder((dir.path / "file" / "out").string());
    FAIL("expected a WriteError");
  } catch (const WriteError& e) {
    CHECK(contains(e.what(), "a part of the path is a file, not a folder (errno ENOTDIR)"));
  }
  CHECK(io::free_bytes((dir.path / "no" / "such" / "file").string()) >= 0);  // its nearest folder's
}

TEST_CASE("a row cut short by the file size limit is taken back") {
  test::TempDir dir("survival");
  const std::string path = (dir.path / "series.csv").string();
  auto out = io::open_series_csv(path, "step,value", 0);
  io::append_row(*out, path, "1,0.5\n");
  const auto before = fs::file_size(path);
  // The limit a little beyond the file: the next row is written in part, then fails.
  const auto ignored = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  rlimit limited = old;
  limited.rlim_cur = before + 4;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &limited) == 0);
  std::string message;
  try {
    io::append_row(*out, path, std::string(100, 'x') + "\n");
  } catch (const WriteError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, ignored);
  CHECK(contains(message, "cannot write " + path));
  CHECK(contains(message, "errno EFBIG"));
  CHECK(contains(message, "failed to append a row: 101 bytes"));
  CHECK(fs::file_size(path) == before);
}

TEST_CASE("each chunk's largest norm of three rows, its first index and the values there") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = 2 * exec::reduce_chunk + 100;  // three chunks, the last short
  std::vector<double> x(n, 0.1), y(n, 0.0), z(n, 0.0), w(n, 1.0);
  x[5] = nan;                                   // passed over
  x[7] = -0.3, z[7] = 0.4, w[7] = 1.5;          // |u|^2 = 0.25 ...
  x[9] = 0.0, y[9] = 0.5;                       // ... the same later in the chunk: the first wins
  for (std::size_t i = exec::reduce_chunk; i < 2 * exec::reduce_chunk; ++i) x[i] = nan;  // all NaN
  std::vector<double> peaks(exec::chunks_of(n) * exec::chunk_peak_values);
  REQUIRE(exec::chunks_of(n) == 3);
  exec::chunk_peaks(exec::Space::host, x.data(), y.data(), z.data(), w.data(), n, peaks.data());
  CHECK(peaks[0] == doctest::Approx(0.25));
  CHECK(peaks[1] == 7);
  CHECK(peaks[2] == -0.3);
  CHECK(peaks[4] == 0.4);
  CHECK(peaks[5] == 1.5);
  CHECK(peaks[6] == -1.0);  // the chunk of NaNs: no peak
  CHECK(peaks[7] == -1.0);
  CHECK(peaks[12] == doctest::Approx(0.01));
  CHECK(peaks[13] == double(2 * exec::reduce_chunk));
}

TEST_CASE("the speed history records every check step, at least every 10 steps") {
  CHECK(SpeedHistory(1).every() == 10);
  CHECK(SpeedHistory(3).every() == 12);
  CHECK(SpeedHistory(10).every() == 10);
  CHECK(SpeedHistory(1000).every() == 1000);
  CHECK(SpeedHistory(12).due(24));
  CHECK_FALSE(SpeedHistory(12).due(30));
}
