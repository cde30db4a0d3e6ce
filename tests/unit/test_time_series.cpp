// TimeSeries (plugins/boundaries/time_series.hpp): CSV parsing, interpolation, periodic
// wrap, and the InputError messages a user sees for a broken file.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/common/error.hpp"
#include "plugins/boundaries/time_series.hpp"

using hemo::InputError;
using hemo::boundaries::TimeSeries;

namespace {

/// A CSV file under the system temp directory, removed at scope exit.
struct TempCsv {
  std::filesystem::path path;
  explicit TempCsv(const std::string& name, const std::string& text)
      : path(std::filesystem::temp_directory_path() / ("hemo_test_ts_" + name + ".csv")) {
    std::ofstream(path) << text;
  }
  ~TempCsv() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  std::string str() const { return path.string(); }
};

/// The message of the InputError that `load` throws, or "" if it does not throw.
std::string load_error(const std::string& name, const std::string& text) {
  const TempCsv f(name, text);
  try {
    TimeSeries::load(f.str(), "boundaries.iolet[0].csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("TimeSeries interpolates linearly and holds the end values") {
  const TimeSeries s = TimeSeries::from_points({0.0, 0.5, 1.0, 2.0}, {1.0, 3.0, 2.0, 2.0});
  CHECK(s.size() == 4);
  CHECK(s.first_time() == 0.0);
  CHECK(s.last_time() == 2.0);
  CHECK(s.at(0.0, false) == 1.0);
  CHECK(s.at(0.25, false) == doctest::Approx(2.0));
  CHECK(s.at(0.5, false) == 3.0);
  CHECK(s.at(0.8, false) == doctest::Approx(2.4));
  CHECK(s.at(1.5, false) == doctest::Approx(2.0));
  CHECK(s.at(-3.0, false) == 1.0);
  CHECK(s.at(7.0, false) == 2.0);
}

TEST_CASE("TimeSeries periodic: repeats with period last - first, in both directions") {
  // Period 0.8 starting at t = 0.2; the last value equals the first.
  const TimeSeries s = TimeSeries::from_points({0.2, 0.4, 1.0}, {5.0, 9.0, 5.0});
  CHECK(s.at(0.3, true) == doctest::Approx(7.0));
  CHECK(s.at(0.3 + 0.8, true) == doctest::Approx(7.0));
  CHECK(s.at(0.3 + 10 * 0.8, true) == doctest::Approx(7.0));
  CHECK(s.at(0.3 - 0.8, true) == doctest::Approx(7.0));
  CHECK(s.at(0.3 - 3 * 0.8, true) == doctest::Approx(7.0));
  CHECK(s.at(1.0, true) == doctest::Approx(5.0));
  CHECK(s.at(0.7 + 0.8, true) == doctest::Approx(7.0));  // 0.7 lies half way from 9 to 5
  // Not periodic, the same times clamp instead.
  CHECK(s.at(0.3 + 0.8, false) == 5.0);
  CHECK(s.at(-1.0, false) == 5.0);
}

TEST_CASE("TimeSeries periodic with unequal ends: approaches the last value, then restarts") {
  const TimeSeries s = TimeSeries::from_points({0.0, 1.0}, {0.0, 10.0});
  CHECK(s.at(0.999, true) == doctest::Approx(9.99));
  CHECK(s.at(1.0, true) == 0.0);
  CHECK(s.at(1.25, true) == doctest::Approx(2.5));
}

TEST_CASE("TimeSeries::load reads a header, comments, blanks, commas and spaces") {
  const TempCsv f("ok",
                  "# pulsatile inlet, Womersley test\n"
                  "time_s, velocity_m_per_s\r\n"
                  "\n"
                  "0.0, 0.1\r\n"
                  "  # mid-file comment\n"
                  "0.5 0.3\n"
                  "1.0 ,\t0.1\n"
                  "+1.5,2e-1   \n");
  const TimeSeries s = TimeSeries::load(f.str(), "boundaries.iolet[0].csv");
  CHECK(s.size() == 4);
  CHECK(s.first_time() == 0.0);
  CHECK(s.last_time() == 1.5);
  CHECK(s.at(0.25, false) == doctest::Approx(0.2));
  CHECK(s.at(1.25, false) == doctest::Approx(0.15));
  CHECK(s.at(1.75, true) == doctest::Approx(0.2));  // 1.75 = 0.25 + 1.5
}

TEST_CASE("TimeSeries::load: a time column that does not increase names both lines") {
  const std::string e = load_error("order",
                                   "time,value\n"      // 1
                                   "0.0,1\n"           // 2
                                   "0.1,1\n"           // 3
                                   "# comment\n"       // 4
                                   "\n"                // 5
                                   "0.4,2\n"           // 6
                                   "0.3,2\n");         // 7
  CHECK(contains(e, "boundaries.iolet[0].csv: "));
  CHECK(contains(e, "hemo_test_ts_order.csv:7: "));
  CHECK(contains(e, "time 0.3 at line 7 is not after 0.4 at line 6"));
  CHECK(contains(load_error("equal", "0,1\n1,2\n1,3\n"), "time 1 at line 3 is not after 1 at line 2"));
}

TEST_CASE("TimeSeries::load: NaN, infinite, one row, missing file, garbage") {
  const std::string nan = load_error("nan", "0,1\n1,nan\n2,1\n");
  CHECK(contains(nan, "boundaries.iolet[0].csv: "));
  CHECK(contains(nan, "hemo_test_ts_nan.csv:2: value nan is not a finite number"));
  CHECK(contains(load_error("nant", "t,v\nnan,1\n2,1\n"), "hemo_test_ts_nant.csv:2: time nan is not a finite number"));
  CHECK(contains(load_error("inf", "0,1\n1,1e999\n"), "hemo_test_ts_inf.csv:2: value inf is not a finite number"));

  const std::string one = load_error("one", "time,value\n0.0,1.0\n");
  CHECK(contains(one, "boundaries.iolet[0].csv: '"));
  CHECK(contains(one, "hemo_test_ts_one.csv' has 1 data line; a time series needs at least 2"));
  CHECK(contains(load_error("none", "# only a comment\n"), "has 0 data lines; a time series needs at least 2"));

  const std::string missing_path = (std::filesystem::temp_directory_path() / "hemo_test_ts_no_such_file.csv").string();
  try {
    TimeSeries::load(missing_path, "boundaries.iolet[1].csv");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "boundaries.iolet[1].csv: cannot open time-series file '" + missing_path + "'");
  }

  const std::string garbage = load_error("garbage", "0,1\n0.5;2\n1,3\n");
  CHECK(contains(garbage, "boundaries.iolet[0].csv: "));
  CHECK(contains(garbage, "hemo_test_ts_garbage.csv:2: expected two numbers (time in s, value) separated by a comma "
                          "or spaces, got '0.5;2'"));
  CHECK(contains(load_error("three", "0,1\n1,2,3\n"), "hemo_test_ts_three.csv:2: expected two numbers"));
  CHECK(contains(load_error("one_col", "0,1\n1\n"), "hemo_test_ts_one_col.csv:2: expected two numbers"));
  CHECK(contains(load_error("glued", "0,1\n1x2\n"), "hemo_test_ts_glued.csv:2: expected two numbers"));
  // A header is only accepted as the first content line.
  CHECK(contains(load_error("late_header", "0,1\ntime,value\n1,2\n"),
                 "hemo_test_ts_late_header.csv:2: expected two numbers"));
  // A malformed first data row is an error, not a header.
  CHECK(contains(load_error("bad_first", "0.0,,1\n1,2\n3,4\n"), "hemo_test_ts_bad_first.csv:1: expected two numbers"));
}

TEST_CASE("TimeSeries::from_points applies the same checks") {
  CHECK_THROWS_WITH_AS(TimeSeries::from_points({0.0, 0.4, 0.3}, {1, 2, 3}),
                       "time series: point 3: time 0.3 at point 3 is not after 0.4 at point 2 (the time column must "
                       "increase strictly)",
                       InputError);
  CHECK_THROWS_WITH_AS(TimeSeries::from_points({0.0}, {1.0}),
                       "time series: the series has 1 data point; a time series needs at least 2", InputError);
  CHECK_THROWS_AS(TimeSeries::from_points({0.0, 1.0}, {1.0, std::nan("")}), InputError);
  CHECK_THROWS_WITH_AS(TimeSeries::from_points({0.0, 1.0}, {1.0}), "time series: 2 times but 1 values", InputError);
}

TEST_CASE("fourier_coefficients of a periodic series: a mean and two harmonics recovered, the sum rebuilds it") {
  // v(t) = 1.5 + 0.8 cos(w t) - 0.3 sin(2 w t), T = 2 s starting at t = 0.5 s, sampled
  // finely (the linear interpolation between samples is what the coefficients see).
  const double T = 2.0, t0 = 0.5, w = 2.0 * M_PI / T;
  std::vector<double> t, v;
  for (int k = 0; k <= 2000; ++k) {
    const double tau = T * k / 2000.0;
    t.push_back(t0 + tau);
    v.push_back(1.5 + 0.8 * std::cos(w * tau) - 0.3 * std::sin(2.0 * w * tau));
  }
  const TimeSeries s = TimeSeries::from_points(t, v);
  const auto c = hemo::boundaries::fourier_coefficients(s, 4);
  REQUIRE(c.size() == 5);
  CHECK(c[0].re == doctest::Approx(1.5).epsilon(1e-6));
  CHECK(c[1].re == doctest::Approx(0.4).epsilon(1e-5));  // 2 Re[c_1 e^{iwt}] = 0.8 cos
  CHECK(std::fabs(c[1].im) < 1e-6);
  CHECK(std::fabs(c[2].re) < 1e-6);
  CHECK(c[2].im == doctest::Approx(0.15).epsilon(1e-5));  // 2 Re[i 0.15 e^{2iwt}] = -0.3 sin
  CHECK(std::hypot(c[3].re, c[3].im) < 1e-6);
  for (double tau : {0.0, 0.37, 1.2, 1.99})
    CHECK(hemo::boundaries::fourier_sum(c, tau, T) == doctest::Approx(s.at(t0 + tau, true)).epsilon(1e-5));
}
