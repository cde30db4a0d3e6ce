// The three-element Windkessel (physics/windkessel.hpp): steady state, the periodic
// state against the analytic impedance Z(w) = R_p + R_d / (1 + i w R_d C), exactness for
// piecewise-constant flow (step size does not matter), stability for a huge step.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "physics/windkessel.hpp"

using namespace hemo::phys;

namespace {

constexpr double pi = 3.14159265358979323846;

// Blood-like values of one outlet: R_p = 1e7, R_d = 1.5e8 Pa s/m^3, C = 1e-8 m^3/Pa
// (tau = R_d C = 1.5 s), p_d = 700 Pa.
WindkesselRCR outlet() { return {1.0e7, 1.0e-8, 1.5e8, 700.0}; }

}  // namespace

TEST_CASE("windkessel: constant outflow converges to p_d + (R_p + R_d) Q") {
  const WindkesselRCR m = outlet();
  const double q = 5e-6, dt = 1e-3;  // 5 ml/s
  double pc = 0.0;
  // 30 time constants: the start's distance has shrunk by e^-30 ~ 1e-13.
  for (int n = 0; n < int(30 * m.time_constant() / dt); ++n) pc = windkessel_step(m, pc, q, dt);
  const double want = m.pressure_distal + (m.resistance_proximal + m.resistance_distal) * q;
  CHECK(windkessel_pressure(m, pc, q) == doctest::Approx(want).epsilon(1e-12));
  // Zero flow drains the compliance to the distal pressure.
  for (int n = 0; n < int(30 * m.time_constant() / dt); ++n) pc = windkessel_step(m, pc, 0.0, dt);
  CHECK(pc == doctest::Approx(m.pressure_distal).epsilon(1e-12));
}

TEST_CASE("windkessel: sinusoidal outflow, periodic state matches Z(w)") {
  // Q(t) = Q0 + Q1 sin(w t), held at its mid-step value over each step. The discrete
  // system is linear and time-invariant, so after the transients (e^{-t/tau}) its state
  // at the step boundaries is exactly a sampled sinusoid, whose amplitude and phase a
  // projection over one whole period (N samples) recovers without leakage. Its transfer
  // function is H_d = (1 - a) e^{i x/2} / (e^{i x} - a) times R_d, with x = w dt,
  // a = e^{-b}, b = dt / tau, against R_d / (1 + i w tau) of the ODE: the mid-step hold
  // makes the scheme second order, |H_d / H - 1| ~ (x^2 + b^2) / 24 at leading order
  // (within 10% of it for tau/T from 0.3 to 2 at N = 100 to 1000). The test allows twice
  // that, relative to |Z| Q1 in amplitude and in radians in phase.
  const WindkesselRCR m = outlet();
  const double period = 0.8, w = 2.0 * pi / period, q0 = 5e-6, q1 = 4e-6;
  for (int steps_per_period : {400, 2000}) {
    const double dt = period / steps_per_period;
    const double x = w * dt, b = dt / m.time_constant();
    const double tolerance = (x * x + b * b) / 12.0;
    double pc = m.pressure_distal;
    // 40 periods = 21 time constants: transients below e^-21 ~ 1e-9 of the amplitude.
    const int transient = 40 * steps_per_period;
    double re = 0.0, im = 0.0, mean = 0.0;
    for (int n = 0; n < transient + steps_per_period; ++n) {
      const double q_mid = q0 + q1 * std::sin(w * (n + 0.5) * dt);
      pc = windkessel_step(m, pc, q_mid, dt);
      const double t = (n + 1) * dt;
      const double p = windkessel_pressure(m, pc, q0 + q1 * std::sin(w * t));
      if (n >= transient) {  // one whole period of samples
        mean += p / steps_per_period;
        re += 2.0 * p * std::sin(w * t) / steps_per_period;  // p ~ mean + A sin(wt + phi)
        im += 2.0 * p * std::cos(w * t) / steps_per_period;  //   = mean + A cos(phi) sin + A sin(phi) cos
      }
    }
    const WindkesselImpedance z = windkessel_impedance(m, w);
    const double amplitude = std::hypot(z.re, z.im) * q1, phase = std::atan2(z.im, z.re);
    CAPTURE(steps_per_period);
    CAPTURE(tolerance);
    CHECK(mean == doctest::Approx(m.pressure_distal + (m.resistance_proximal + m.resistance_distal) * q0).epsilon(1e-9));
    CHECK(std::fabs(std::hypot(re, im) / amplitude - 1.0) < tolerance);
    CHECK(std::fabs(std::atan2(im, re) - phase) < tolerance);
    // The tolerance is tight: the error is there (second order), not hidden below rounding.
    CHECK(tolerance < 1e-3);
  }
}

TEST_CASE("windkessel: the step is exact for piecewise-constant flow") {
  // Halving dt (two half steps with the same Q) gives the same p_c to rounding.
  const WindkesselRCR m = outlet();
  const double dt = 2e-3;
  double whole = 1234.0, halves = 1234.0;
  for (int n = 0; n < 2000; ++n) {
    const double q = 5e-6 + 4e-6 * std::sin(0.01 * n) + (n % 7 == 0 ? -3e-6 : 0.0);  // any piecewise-constant Q
    whole = windkessel_step(m, whole, q, dt);
    halves = windkessel_step(m, windkessel_step(m, halves, q, 0.5 * dt), q, 0.5 * dt);
  }
  CHECK(halves == doctest::Approx(whole).epsilon(1e-13));
}

TEST_CASE("windkessel: a huge step stays bounded (lands on the settled value)") {
  const WindkesselRCR m = outlet();
  const double q = 5e-6, settled = m.pressure_distal + m.resistance_distal * q;
  for (double dt : {1e3, 1e12, 1e300}) {
    const double pc = windkessel_step(m, -1e6, q, dt);
    CHECK(std::isfinite(pc));
    CHECK(pc == doctest::Approx(settled).epsilon(1e-12));
  }
  // Between: always between the start and the settled value (no overshoot, any dt).
  double pc = 0.0;
  for (int n = 0; n < 50; ++n) {
    const double next = windkessel_step(m, pc, q, 0.37 * (n + 1));
    CHECK(next >= pc);
    CHECK(next <= settled);
    pc = next;
  }
}
