#pragma once
// A boundary value given as a function of time by a CSV file (a pulsatile inlet velocity
// or an outlet pressure). Host code: the boundary plugin evaluates it once per step and
// hands the number to its kernel.
#include <cstddef>
#include <string>
#include <vector>

#include "physics/womersley.hpp"

namespace hemo::boundaries {

/// A value given as a function of time by a CSV file: two columns, time (s) and value;
/// an optional header row; '#' comment lines and blank lines skipped. Linear interpolation;
/// before the first / after the last sample the end values hold, or, when periodic, the
/// series repeats with period = last time - first time (the last row's value should equal the
/// first's; if not, interpolation wraps from last to first).
class TimeSeries {
 public:
  /// Throws InputError naming the file and the line: cannot open; a row that is not two
  /// numbers separated by a comma (and/or whitespace); NaN or infinite values; a time column
  /// that is not strictly increasing ("time 0.3 at line 7 is not after 0.4 at line 6");
  /// fewer than 2 rows; `what` (e.g. "boundaries.iolet[0].csv") prefixes every message.
  /// The header row, if any, is the first non-comment line and must start with a letter
  /// or a quote, so that a malformed first data row is reported, not skipped.
  static TimeSeries load(const std::string& path, const std::string& what);
  /// For tests and programmatic series: the same checks (point numbers, from 1, stand in
  /// for line numbers), InputError prefixed "time series".
  static TimeSeries from_points(std::vector<double> t, std::vector<double> v);

  /// Linearly interpolated value at time t (s). Not periodic: clamped to the end values.
  /// Periodic: t is first reduced to [first_time, last_time) modulo the period
  /// last_time - first_time, so last_time itself maps to first_time (a last value unequal
  /// to the first is approached from the left, then the series jumps back to the first).
  double at(double t, bool periodic) const;
  double first_time() const { return t_.front(); }
  double last_time() const { return t_.back(); }
  std::size_t size() const { return t_.size(); }
  /// The least and largest value (linear interpolation reaches no further).
  double least() const;
  double largest() const;
  /// The largest |dv/dt| between two consecutive points.
  double steepest() const;
  /// The mean of the linearly interpolated series over [first_time, last_time] (the
  /// trapezoid rule, exact for it): a periodic series' mean over its period.
  double mean() const;

 private:
  std::vector<double> t_, v_;
};

/// The complex Fourier coefficients c_0..c_harmonics of a periodic series over its period
/// T = last - first time: c_n = (1/T) int_0^T v(first + tau) e^{-i n w tau} dtau, w = 2 pi / T,
/// so that v = c_0 + sum_{n>=1} 2 Re[c_n e^{i n w tau}] (c_0 real). By the rectangle rule
/// on 8192 points of the linearly interpolated series (exact, as the periodic trapezoid,
/// for harmonics of the sampling; far finer than any waveform's rows).
std::vector<phys::Complex> fourier_coefficients(const TimeSeries& series, int harmonics);
/// c_0 + sum_{n>=1} 2 Re[c_n e^{i n w tau}] at tau after the first time, w = 2 pi / period.
double fourier_sum(const std::vector<phys::Complex>& c, double tau, double period);

}  // namespace hemo::boundaries
