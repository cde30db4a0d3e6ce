#pragma once
// Small string helpers (GCC 12 has no <format>).
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace hemo {

/// Concatenates anything streamable: str("tau = ", tau, " <= 0.5").
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  os.precision(6);
  (os << ... << args);
  return os.str();
}

/// Formats a double with the given significant digits (general format).
std::string fmt_g(double value, int digits = 6);
/// Formats a double with a fixed number of decimals.
std::string fmt_f(double value, int decimals);
/// The shortest of %.15g/%.16g/%.17g that reads back as the same double, always with a
/// '.' or an exponent ("3.0", not "3"), so that JSON and TOML readers take it for a float.
std::string fmt_round_trip(double value);
/// Human-readable byte count: 1.5 MiB.
std::string fmt_bytes(double bytes);

std::vector<std::string> split(std::string_view text, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

/// Edit distance, for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `word` if it is close enough to be a plausible typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hemo
