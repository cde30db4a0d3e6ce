// Bessel series and the Womersley profile (physics/womersley.hpp) against tabulated
// values, an independent series, the governing equation and the known limits.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "physics/womersley.hpp"

using namespace hemo::phys;

namespace {

constexpr double pi = 3.14159265358979323846;

/// Kelvin functions by their own real series (independent of bessel_j0's complex series):
///   ber(x) = sum_k (-1)^k (x/2)^{4k} / ((2k)!)^2,  bei(x) = sum_k (-1)^k (x/2)^{4k+2} / ((2k+1)!)^2.
void kelvin(double x, double& ber, double& bei) {
  ber = bei = 0.0;
  double term = 1.0;  // (x/2)^n / n!, n = 0, 1, 2, ...
  for (int n = 0; n < 120; ++n) {
    if (n > 0) term *= (x / 2.0) / n;
    const double sq = term * term;  // (x/2)^{2n} / (n!)^2
    const double sign = (n / 2) % 2 == 0 ? 1.0 : -1.0;
    if (n % 2 == 0) ber += sign * sq;
    else bei += sign * sq;
  }
}

Complex i32(double x) { return x * i_three_halves(); }

}  // namespace

TEST_CASE("bessel_j0 and bessel_j1 of real arguments match tabulated values") {
  // Abramowitz & Stegun table 9.1; cross-checked with mpmath.besselj at 30 digits.
  CHECK(bessel_j0({1.0, 0.0}).re == doctest::Approx(0.76519768655796655).epsilon(1e-14));
  CHECK(bessel_j0({5.0, 0.0}).re == doctest::Approx(-0.17759677131433830).epsilon(1e-13));
  CHECK(std::fabs(bessel_j0({2.404825557695773, 0.0}).re) < 1e-15);  // first zero j_{0,1}
  CHECK(bessel_j0({1.0, 0.0}).im == 0.0);
  CHECK(bessel_j0({0.0, 0.0}).re == 1.0);
  CHECK(bessel_j1({1.0, 0.0}).re == doctest::Approx(0.44005058574493352).epsilon(1e-14));
  CHECK(bessel_j1({5.0, 0.0}).re == doctest::Approx(-0.32757913759146522).epsilon(1e-13));
}

TEST_CASE("bessel_j0 on the ray i^{3/2} x gives the Kelvin functions ber + i bei") {
  // Reference digits from mpmath.ber/bei (30 digits), which agree with mpmath.besselj(0,
  // x e^{3 pi i/4}). Note: ber(5) = -6.2300824787 and bei(5) = 0.1160343816; the values
  // -6.2300824830 / 0.1160343962 quoted in some tables are off in the 9th / 8th digit.
  struct Ref { double x, ber, bei; };
  const Ref refs[] = {{1.0, 0.98438178121308688, 0.24956604003665972},
                      {2.0, 0.75173418271380823, 0.97229162730666121},
                      {5.0, -6.2300824786663577, 0.11603438155020038},
                      {20.0, 47489.370265061760, 114775.19736006622}};
  for (const Ref& r : refs) {
    CAPTURE(r.x);
    const Complex j = bessel_j0(i32(r.x));
    const double scale = std::fabs(r.ber) + std::fabs(r.bei);
    CHECK(j.re == doctest::Approx(r.ber).epsilon(1e-12).scale(scale));
    CHECK(j.im == doctest::Approx(r.bei).epsilon(1e-12).scale(scale));
    double ber = 0, bei = 0;
    kelvin(r.x, ber, bei);
    CHECK(ber == doctest::Approx(r.ber).epsilon(1e-12).scale(scale));
    CHECK(bei == doctest::Approx(r.bei).epsilon(1e-12).scale(scale));
  }
}

TEST_CASE("Womersley amplitude solves i omega A = g1 + nu (A'' + A'/r) with A(R) = 0") {
  const double R = 1.0, nu = 0.02, g1 = 0.7;
  for (double alpha : {0.5, 3.0, 8.0}) {
    CAPTURE(alpha);
    const double omega = alpha * alpha * nu / (R * R);
    CHECK(womersley_number(R, omega, nu) == doctest::Approx(alpha).epsilon(1e-14));
    const Complex wall = womersley_amplitude(R, R, nu, g1, omega);
    CHECK(std::fabs(wall.re) + std::fabs(wall.im) < 1e-15 * g1 / omega);
    const double dr = 1e-4 * R;
    for (double r : {0.2, 0.5, 0.8}) {
      const Complex am = womersley_amplitude(r - dr, R, nu, g1, omega);
      const Complex a0 = womersley_amplitude(r, R, nu, g1, omega);
      const Complex ap = womersley_amplitude(r + dr, R, nu, g1, omega);
      const Complex lap = (1.0 / (dr * dr)) * (ap - 2.0 * a0 + am) + (1.0 / (2.0 * dr * r)) * (ap - am);
      const Complex residual = Complex{0.0, omega} * a0 - Complex{g1, 0.0} - nu * lap;
      CHECK(std::fabs(residual.re) + std::fabs(residual.im) < 1e-6 * g1);
    }
  }
}

TEST_CASE("Womersley velocity is zero at the wall for all t") {
  const double R = 2e-3, nu = 3.5e-6, g0 = 0.3, g1 = 1.1;
  for (double alpha : {0.05, 1.0, 4.0, 12.0, 20.0}) {
    const double omega = alpha * alpha * nu / (R * R);
    for (int k = 0; k < 16; ++k) {
      const double t = k * (2.0 * pi / omega) / 16.0;
      CHECK(std::fabs(womersley_velocity(R, R, nu, g0, g1, omega, t)) < 1e-15);
    }
  }
  CHECK(womersley_velocity(1.1 * R, R, nu, g0, g1, 1.0, 0.0) == 0.0);
}

TEST_CASE("small alpha: Womersley approaches quasi-steady Poiseuille") {
  // A = g1 (R^2 - r^2)/(4 nu) [1 - i alpha^2 (3 - r^2/R^2)/16 + O(alpha^4)], so at alpha =
  // 0.05 the lag term is <= 4.7e-4 g1 (R^2 - r^2)/(4 nu); with g0 = 2 g1, g(t) >= g1.
  const double R = 1.5, nu = 0.1, alpha = 0.05, g0 = 2.0, g1 = 1.0;
  const double omega = alpha * alpha * nu / (R * R);
  for (int k = 0; k < 12; ++k) {
    const double t = k * (2.0 * pi / omega) / 12.0;
    const double g = g0 + g1 * std::cos(omega * t);
    for (double r : {0.0, 0.4, 1.0, 1.4}) {
      const double steady = g * (R * R - r * r) / (4.0 * nu);
      CHECK(womersley_velocity(r, R, nu, g0, g1, omega, t) == doctest::Approx(steady).epsilon(1e-3));
    }
  }
  // omega = 0 exactly: the analytic 1/omega cancellation gives Poiseuille to rounding.
  const double poiseuille = g1 * (R * R - 0.09) / (4 * nu);
  CHECK(womersley_velocity(0.3, R, nu, 0.0, g1, 0.0, 0.0) == doctest::Approx(poiseuille).epsilon(1e-15));
}

TEST_CASE("large alpha: the core moves as a plug with amplitude g1/omega, lagging by 90 degrees") {
  const double R = 1.0, nu = 0.01, alpha = 20.0, g1 = 0.5;
  const double omega = alpha * alpha * nu / (R * R);
  const Complex a = womersley_amplitude(0.0, R, nu, g1, omega);
  const double plug = g1 / omega;  // inviscid core: du/dt = g1 cos(omega t)
  CHECK(std::hypot(a.re, a.im) == doctest::Approx(plug).epsilon(0.02));
  // u = (g1/omega) sin(omega t): zero at t = 0, maximal a quarter period later.
  CHECK(std::fabs(womersley_velocity(0.0, R, nu, 0.0, g1, omega, 0.0)) < 0.02 * plug);
  CHECK(womersley_velocity(0.0, R, nu, 0.0, g1, omega, 0.5 * pi / omega) == doctest::Approx(plug).epsilon(0.02));
}

/// int_0^R 2 pi r f(r) dr by composite Simpson on 4000 intervals.
template <class F>
Complex disc_integral(double R, F f) {
  const int n = 4000;
  const double dr = R / n;
  Complex sum{0.0, 0.0};
  for (int i = 0; i <= n; ++i) {
    const double r = i * dr, wgt = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    sum = sum + (wgt * 2.0 * pi * r) * f(r);
  }
  return (dr / 3.0) * sum;
}

TEST_CASE("Womersley flow rate: closed form with J1 equals the integrated profile") {
  const double R = 0.8, nu = 0.05, g1 = 2.0;
  for (double alpha : {0.5, 2.0, 6.0, 15.0}) {
    CAPTURE(alpha);
    const double omega = alpha * alpha * nu / (R * R);
    const Complex numeric = disc_integral(R, [&](double r) { return womersley_amplitude(r, R, nu, g1, omega); });
    const Complex closed = womersley_flow_amplitude(R, nu, g1, omega);
    const double scale = std::hypot(closed.re, closed.im);
    CHECK(numeric.re == doctest::Approx(closed.re).epsilon(1e-9).scale(scale));
    CHECK(numeric.im == doctest::Approx(closed.im).epsilon(1e-9).scale(scale));
  }
}

TEST_CASE("Womersley profile per unit mean velocity: carries the mean velocity 1, is 0 at the wall, Poiseuille as omega -> 0") {
  const double R = 0.8, nu = 0.05;
  for (double alpha : {0.05, 2.0, 10.0, 20.0, 32.0}) {
    CAPTURE(alpha);
    const double omega = alpha * alpha * nu / (R * R);
    const Complex mean = (1.0 / (pi * R * R)) *
                         disc_integral(R, [&](double r) { return womersley_profile_per_mean_velocity(r, R, nu, omega); });
    CHECK(mean.re == doctest::Approx(1.0).epsilon(1e-8));
    CHECK(std::fabs(mean.im) < 1e-8);
    const Complex wall = womersley_profile_per_mean_velocity(R, R, nu, omega);
    CHECK(std::hypot(wall.re, wall.im) < 1e-9);
  }
  // Small alpha: the Poiseuille shape of mean velocity 1, 2 (1 - r^2 / R^2), in phase.
  const double omega = 1e-4 * nu / (R * R);
  for (double r : {0.0, 0.3, 0.6}) {
    const Complex w = womersley_profile_per_mean_velocity(r, R, nu, omega);
    CHECK(w.re == doctest::Approx(2.0 * (1.0 - r * r / (R * R))).epsilon(1e-4));
    CHECK(std::fabs(w.im) < 1e-3);
  }
}
