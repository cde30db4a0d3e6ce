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

// The damped coupling (physics/windkessel.hpp, "Coupling to a compressible fluid"), on
// the linear model of the outlet it assumes: Q_n = Q_bar - (a e_n + (1 - a) e_{n-1}) / Z,
// e_n = p_n - p_star the imposed pressure's distance from the coupled fixed point, a the
// share of the fluid's response within the step. p_c is held fixed (a huge C), so that the
// loop through R_p is all there is.
namespace {

struct LinearOutlet {
  double impedance, flow_bar, share;  // Z, Q_bar, a
  double flow(double p, double p_last, double p_ref) const {
    return flow_bar - (share * (p - p_ref) + (1.0 - share) * (p_last - p_ref)) / impedance;
  }
};

/// |p_n - fixed point| after `steps` coupled steps from a perturbed start, relative to the
/// start's; damped or explicit.
double perturbation_left(double k, double share, bool damped, int steps) {
  const double z = 1.0e8, p_c = 50.0, q_bar = 3e-7;
  const WindkesselRCR m{k * z, 1.0e300, 1.0, 0.0};  // tau = 1e300 s: p_c frozen
  const LinearOutlet outlet{z, q_bar, share};
  // Fixed point of p = p_c + R_p Q(p) with Q(p) = Q_bar - (p - p_ref) / Z; p_ref = 0.
  const double p_star = (p_c + m.resistance_proximal * q_bar) / (1.0 + k);
  const double start = 1.0;
  double p_last = p_star + start, p = p_star + start;
  for (int n = 0; n < steps; ++n) {
    const double q = outlet.flow(p, p_last, 0.0);
    const double next = damped ? windkessel_damped_pressure(m, z, p_c, q, p) : windkessel_pressure(m, p_c, q);
    p_last = p;
    p = next;
    if (!std::isfinite(p) || std::fabs(p - p_star) > 1e30) return INFINITY;
  }
  return std::fabs(p - p_star) / start;
}

}  // namespace

TEST_CASE("windkessel: the damped coupling is stable for any k = R_p / Z, the explicit one only below 1") {
  for (double k : {0.5, 4.0, 100.0}) {
    for (double share : {1.0, 0.5, 0.0}) {
      CAPTURE(k);
      CAPTURE(share);
      // The decay per two steps is at most k (1 - a) / (1 + k) (the roots' |z|^2).
      const int steps = 4000;
      const double bound = std::pow(k / (1.0 + k), steps / 2) * 10.0;
      const double left = perturbation_left(k, share, true, steps);
      CHECK(left <= std::max(bound, 1e-9));
      CHECK(left < 1e-3);
    }
    // Explicit: |e| grows for k > 1 (a = 1: by k a step; a = 0: by k every two steps).
    if (k > 1.0) {
      CHECK(perturbation_left(k, 1.0, false, 200) > 1e6);
      CHECK(perturbation_left(k, 0.0, false, 200) > 1e6);
    } else {
      CHECK(perturbation_left(k, 1.0, false, 200) < 1e-9);
    }
  }
}

TEST_CASE("windkessel: the damped coupling keeps the steady state p = p_c + R_p Q exactly") {
  const WindkesselRCR m = outlet();
  const double p_c = 1234.5, q = 5e-6, p = windkessel_pressure(m, p_c, q);
  for (double z : {1e5, 1e7, 1e9, 1e12}) {
    CAPTURE(z);
    CHECK(windkessel_damped_pressure(m, z, p_c, q, p) == p);  // bitwise
    // From elsewhere, with p_c and Q fixed: it relaxes to p by k / (1 + k) a step.
    const double k = m.resistance_proximal / z;
    double x = p + 100.0;
    for (int n = 0; n < 50 && std::fabs(x - p) > 1e-6; ++n) {  // above rounding (p's ulp ~ 1e-13)
      const double next = windkessel_damped_pressure(m, z, p_c, q, x);
      CHECK(std::fabs((next - p) - (x - p) * k / (1.0 + k)) < 1e-12 * std::fabs(p));
      x = next;
    }
    // The algebraic form (p_c + R_p Q + k p_n) / (1 + k).
    const double last = -77.0;
    CHECK(windkessel_damped_pressure(m, z, p_c, q, last) ==
          doctest::Approx((p_c + m.resistance_proximal * q + k * last) / (1.0 + k)).epsilon(1e-13));
  }
}

TEST_CASE("windkessel: k -> 0 gives the explicit update") {
  const WindkesselRCR m = outlet();
  const double p_c = 800.0, q = 4e-6, last = -300.0, p = windkessel_pressure(m, p_c, q);
  // R_p = 0: k = 0, bitwise the explicit value (= p_c) whatever p_n.
  WindkesselRCR two = m;
  two.resistance_proximal = 0.0;
  CHECK(windkessel_damped_pressure(two, 1e7, p_c, q, last) == p_c);
  // Z >> R_p: the damped value tends to the explicit one as k (p_n - p_e).
  for (double z : {1e9, 1e11, 1e13, 1e15}) {
    const double k = m.resistance_proximal / z;
    CAPTURE(k);
    const double d = windkessel_damped_pressure(m, z, p_c, q, last) - p;
    CHECK(std::fabs(d) <= 1.01 * k * std::fabs(last - p) + 1e-12 * std::fabs(p));
  }
  CHECK(windkessel_damped_pressure(m, 1e300, p_c, q, last) == p);
}

TEST_CASE("windkessel: acoustic impedance rho c / A and the coupling's Z") {
  // The validation pipe (cases/windkessel_pipe.toml): blood, dx = 2.5e-4 m, dt = 1.26e-4 s
  // (tau 0.52), r = 2 mm: about 9.6e7 Pa s/m^3.
  const double dx = 2.5e-4, nu = 3.3e-6, dt = (0.52 - 0.5) / 3.0 * dx * dx / nu;
  const double z = acoustic_impedance(1060.0, dx / (dt * std::sqrt(3.0)), pi * 0.002 * 0.002);
  CHECK(z == doctest::Approx(1060.0 * dx / (dt * std::sqrt(3.0)) / (pi * 4e-6)).epsilon(1e-15));
  CHECK(z > 9.5e7);
  CHECK(z < 9.8e7);
  // The damped coupling's Z: a quarter of it.
  CHECK(windkessel_coupling_impedance(1060.0, dx, dt, pi * 0.002 * 0.002) == doctest::Approx(0.25 * z).epsilon(1e-15));
}

TEST_CASE("absorbing inflow: a wave arriving at the inlet passes, the steady flow is the target") {
  const double z = 3.0, q_t = 2.0, q_m = 2.0, p_m = 5.0;
  // At rest about the means, or with a wave entering the vessel (p' = Z Q'): nothing arrives.
  CHECK(arriving_wave(q_m, q_m, p_m, p_m, z) == 0.0);
  CHECK(arriving_wave(q_m + 0.1, q_m, p_m + z * 0.1, p_m, z) == doctest::Approx(0.0).scale(1.0).epsilon(1e-15));
  CHECK(absorbing_inflow(q_t, 0.0, 0.0, z) == q_t);
  // A wave b' arriving from the vessel and reflected by a fixed flow (p' = 2 b', Q' = 0):
  // the inlet lets it through, imposing the flow it carries, Q' = -b' / Z.
  const double b = arriving_wave(q_m, q_m, p_m + 0.6, p_m, z);
  CHECK(b == doctest::Approx(0.3).epsilon(1e-15));
  CHECK(absorbing_inflow(q_t, b, b, z) == doctest::Approx(q_t - 0.3 / z).epsilon(1e-15));
  // The lattice answers the inlet's own flow with Z_L within the step: an error of the
  // flow dies out for Z_L between -Z and 5 Z (two steps' mean), and grows beyond.
  const auto settle = [&](double z_l) {
    double q = q_t + 1.0, last = 0.0;
    for (int n = 0; n < 2000; ++n) {
      const double now = arriving_wave(q, q_m, p_m + z_l * (q - q_m), p_m, z);
      q = absorbing_inflow(q_t, now, last, z);
      last = now;
    }
    return std::fabs(q - q_t);
  };
  for (const double r : {0.1, 1.0, 2.0, 4.5}) {
    CAPTURE(r);
    CHECK(settle(r * z) < 1e-6);
  }
  CHECK(!(settle(5.5 * z) < 1.0));
}
