// TimeSeries: loading, checking and interpolating a two-column CSV (see time_series.hpp).
#include "plugins/boundaries/time_series.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string_view>
#include <utility>

#include "core/common/error.hpp"
#include "core/common/text.hpp"

namespace hemo::boundaries {

namespace {

/// Where rows come from, for messages: "what: file:line: ..." or "what: point N: ...".
struct Source {
  std::string what;
  std::string file;  // empty for from_points
  const char* unit;  // "line" or "point"

  std::string at(int n) const {
    return file.empty() ? str(what, ": ", unit, " ", n, ": ") : str(what, ": ", file, ":", n, ": ");
  }
};

// 15 significant digits: enough to tell apart times typed with up to 15 digits, short
// enough that 0.3 prints as 0.3.
std::string num(double x) { return fmt_g(x, 15); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void skip_space(std::string_view s, std::size_t& i) {
  while (i < s.size() && is_space(s[i])) ++i;
}

/// One number at s[i..]; from_chars is locale-independent (a ',' decimal separator can
/// never be read by accident). It rejects a leading '+', which a CSV may carry.
bool read_number(std::string_view s, std::size_t& i, double& x) {
  if (i < s.size() && s[i] == '+') ++i;
  const char* first = s.data() + i;
  const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), x);
  if (ec == std::errc::result_out_of_range) {
    x = HUGE_VAL;  // reported as not finite, which is what it is in double precision
  } else if (ec != std::errc()) {
    return false;
  }
  i += static_cast<std::size_t>(ptr - first);
  return true;
}

/// "t, v", "t v" or "t ,v": two numbers separated by one comma and/or whitespace.
bool parse_row(std::string_view s, double& t, double& v) {
  std::size_t i = 0;
  skip_space(s, i);
  if (!read_number(s, i, t)) return false;
  const std::size_t after_t = i;
  skip_space(s, i);
  if (i < s.size() && s[i] == ',') {
    ++i;
    skip_space(s, i);
  } else if (i == after_t) {
    return false;  // no separator at all, e.g. "1x2"
  }
  if (!read_number(s, i, v)) return false;
  skip_space(s, i);
  return i == s.size();
}

/// The checks shared by load and from_points; lines[k] names row k in messages.
void check(const std::vector<double>& t, const std::vector<double>& v, const std::vector<int>& lines,
           const Source& src, const std::string& count_where) {
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!std::isfinite(t[k])) throw InputError(src.at(lines[k]) + "time " + num(t[k]) + " is not a finite number");
    if (!std::isfinite(v[k])) throw InputError(src.at(lines[k]) + "value " + num(v[k]) + " is not a finite number");
    if (k > 0 && !(t[k] > t[k - 1])) {
      throw InputError(str(src.at(lines[k]), "time ", num(t[k]), " at ", src.unit, " ", lines[k], " is not after ",
                           num(t[k - 1]), " at ", src.unit, " ", lines[k - 1],
                           " (the time column must increase strictly)"));
    }
  }
  if (t.size() < 2) {
    throw InputError(str(src.what, ": ", count_where, " has ", t.size(), " data ", src.unit, t.size() == 1 ? "" : "s",
                         "; a time series needs at least 2"));
  }
}

}  // namespace

TimeSeries TimeSeries::load(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw InputError(what + ": cannot open time-series file '" + path + "'");
  const Source src{what, path, "line"};
  TimeSeries ts;
  std::vector<int> lines;
  std::string raw;
  bool first_content = true;
  for (int line = 1; std::getline(in, raw); ++line) {
    std::string_view s = raw;
    if (line == 1 && s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);  // UTF-8 BOM (spreadsheets)
    std::size_t i = 0;
    skip_space(s, i);
    if (i == s.size() || s[i] == '#') continue;
    const bool was_first = std::exchange(first_content, false);
    // A header starts with a letter or a quote ("time,velocity"); anything else that
    // fails to parse is a broken row and is reported, never skipped silently.
    const char c0 = s[i];
    if (was_first && (std::isalpha(static_cast<unsigned char>(c0)) || c0 == '"' || c0 == '\'')) {
      double a = 0, b = 0;
      if (!parse_row(s, a, b)) continue;  // "nan, 1" parses: it is data, checked below
    }
    double t = 0, v = 0;
    if (!parse_row(s, t, v)) {
      throw InputError(src.at(line) + "expected two numbers (time in s, value) separated by a comma or spaces, got '" +
                       std::string(s.substr(i)) + "'");
    }
    ts.t_.push_back(t);
    ts.v_.push_back(v);
    lines.push_back(line);
  }
  check(ts.t_, ts.v_, lines, src, "'" + path + "'");
  return ts;
}

TimeSeries TimeSeries::from_points(std::vector<double> t, std::vector<double> v) {
  const Source src{"time series", "", "point"};
  if (t.size() != v.size()) {
    throw InputError(str(src.what, ": ", t.size(), " times but ", v.size(), " values"));
  }
  std::vector<int> lines(t.size());
  for (std::size_t k = 0; k < lines.size(); ++k) lines[k] = static_cast<int>(k) + 1;
  check(t, v, lines, src, "the series");
  TimeSeries ts;
  ts.t_ = std::move(t);
  ts.v_ = std::move(v);
  return ts;
}

double TimeSeries::least() const { return *std::min_element(v_.begin(), v_.end()); }
double TimeSeries::largest() const { return *std::max_element(v_.begin(), v_.end()); }
double TimeSeries::mean() const {
  double area = 0.0;
  for (std::size_t k = 1; k < t_.size(); ++k) area += 0.5 * (v_[k] + v_[k - 1]) * (t_[k] - t_[k - 1]);
  return area / (t_.back() - t_.front());
}

double TimeSeries::steepest() const {
  double s = 0.0;
  for (std::size_t k = 1; k < t_.size(); ++k) s = std::max(s, std::fabs(v_[k] - v_[k - 1]) / (t_[k] - t_[k - 1]));
  return s;
}

double TimeSeries::at(double t, bool periodic) const {
  const double t0 = t_.front(), t1 = t_.back();
  if (periodic) {
    const double period = t1 - t0;
    double phase = std::fmod(t - t0, period);  // in (-period, period)
    if (phase < 0) phase += period;
    t = t0 + phase;
    if (t >= t1) t = t0;  // phase + period rounded up to period
  }
  if (t <= t0) return v_.front();
  if (t >= t1) return v_.back();
  // First sample strictly after t; t0 < t < t1 puts it in [1, size - 1].
  const std::size_t k = static_cast<std::size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
  const double a = (t - t_[k - 1]) / (t_[k] - t_[k - 1]);
  return v_[k - 1] + a * (v_[k] - v_[k - 1]);
}

std::vector<phys::Complex> fourier_coefficients(const TimeSeries& series, int harmonics) {
  constexpr int samples = 8192;
  const double t0 = series.first_time(), T = series.last_time() - t0;
  std::vector<double> v(samples);
  for (int k = 0; k < samples; ++k) v[k] = series.at(t0 + T * k / samples, true);
  std::vector<phys::Complex> c(std::size_t(harmonics) + 1);
  for (int n = 0; n <= harmonics; ++n) {
    double re = 0.0, im = 0.0;
    for (int k = 0; k < samples; ++k) {
      const double a = 2.0 * M_PI * double(n) * k / samples;
      re += v[k] * std::cos(a);
      im -= v[k] * std::sin(a);
    }
    c[n] = {re / samples, im / samples};
  }
  return c;
}

double fourier_sum(const std::vector<phys::Complex>& c, double tau, double period) {
  double v = c[0].re;
  for (std::size_t n = 1; n < c.size(); ++n) {
    const double a = 2.0 * M_PI * double(n) * tau / period;
    v += 2.0 * (c[n].re * std::cos(a) - c[n].im * std::sin(a));
  }
  return v;
}

}  // namespace hemo::boundaries
