#include "core/sim/progress.hpp"

#include <cstdio>

namespace hemo {

namespace {
void format_duration(double s, char* buf, std::size_t n) {
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) std::snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else std::snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}
}  // namespace

Progress::Progress(std::int64_t total_steps, std::uint64_t nodes, bool enabled, bool terminal, std::int64_t first_step)
    : total_(total_steps), first_(first_step), nodes_(nodes), enabled_(enabled), terminal_(terminal), start_(clock::now()),
      last_print_(start_) {
  next_fraction_step_ = first_ + (total_ - first_) / 10;
}

void Progress::update(std::int64_t step, std::optional<double> mass_drift) {
  if (!enabled_) return;
  const auto now = clock::now();
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  const bool fraction_reached = step >= next_fraction_step_ && next_fraction_step_ > first_;
  if (terminal_ ? since_print < 0.5 : !(fraction_reached || since_print >= 60.0)) return;
  if (fraction_reached)
    while (next_fraction_step_ <= step) next_fraction_step_ += (total_ - first_) / 10 > 0 ? (total_ - first_) / 10 : 1;
  last_print_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::int64_t done = step - first_;
  const double mlups = elapsed > 0 ? double(nodes_) * double(done) / elapsed / 1e6 : 0.0;
  const double eta = done > 0 ? elapsed * double(total_ - step) / double(done) : 0.0;
  char eta_s[32], el_s[32];
  format_duration(eta, eta_s, sizeof eta_s);
  format_duration(elapsed, el_s, sizeof el_s);
  char drift_s[32] = "not yet measured";
  if (mass_drift) std::snprintf(drift_s, sizeof drift_s, "%.2e", *mass_drift);
  std::fprintf(stderr, "%sstep %lld/%lld (%3.0f%%)  %8.2f MLUPS  elapsed %s  ETA %s  mass drift %s%s",
               terminal_ ? "\r" : "", static_cast<long long>(step), static_cast<long long>(total_),
               100.0 * double(step) / double(total_), mlups, el_s, eta_s, drift_s, terminal_ ? "   " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (enabled_ && terminal_ && printed_) std::fprintf(stderr, "\n");
}

}  // namespace hemo
