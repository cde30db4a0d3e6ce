#include "core/common/log.hpp"

#include <atomic>
#include <cstdio>

namespace hemo::log {
namespace {
// The verbosity is process-wide configuration, set once by the app before the run.
std::atomic<int> g_level{static_cast<int>(Level::info)};

void emit(Level lvl, const char* tag, const std::string& message) {
  if (static_cast<int>(lvl) < g_level.load()) return;
  std::fprintf(stderr, "%s%s\n", tag, message.c_str());
  std::fflush(stderr);
}
}  // namespace

void set_level(Level lvl) { g_level = static_cast<int>(lvl); }
Level level() { return static_cast<Level>(g_level.load()); }

void debug(const std::string& m) { emit(Level::debug, "[debug] ", m); }
void info(const std::string& m) { emit(Level::info, "", m); }
void warn(const std::string& m) { emit(Level::warn, "warning: ", m); }
void error(const std::string& m) { emit(Level::error, "error: ", m); }

}  // namespace hemo::log
