#pragma once
// Logging to stderr. Rank 0 logs; other ranks only warnings and errors (set once by
// the app). Plain functions, no global logger object beyond the verbosity level.
#include <string>

namespace hemo::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3, quiet = 4 };

void set_level(Level level);
Level level();

void debug(const std::string& message);
void info(const std::string& message);
void warn(const std::string& message);
void error(const std::string& message);

}  // namespace hemo::log
