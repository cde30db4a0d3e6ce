// physics/compressibility.hpp and the boundaries' estimate of the density spread a case
// needs (estimate_compressibility): the lattice's equation of state, Hagen-Poiseuille's
// drop, and the parts of the estimate on iolets made by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/sim/units.hpp"
#include "physics/compressibility.hpp"
#include "plugins/boundaries/iolet_spec.hpp"

using hemo::LatticeUnits;
using hemo::boundaries::estimate_compressibility;
using hemo::boundaries::IoletSpec;

namespace {

LatticeUnits units() {
  LatticeUnits u;
  u.dx = 2.5e-4, u.dt = 1.26e-4, u.density = 1060.0, u.viscosity = 3.3e-6, u.tau = 0.52;
  return u;
}

IoletSpec iolet(const char* name, IoletSpec::Condition condition, double x, double radius, double value) {
  IoletSpec s;
  s.name = name;
  s.condition = condition;
  s.center = {x, 0.0, 0.0};
  s.normal = {x < 0.0 ? -1.0 : 1.0, 0.0, 0.0};
  s.radius = radius;
  s.value = value;
  return s;
}

}  // namespace

TEST_CASE("density_variation inverts the lattice's equation of state p = c_s^2 (rho - 1)") {
  const LatticeUnits u = units();
  for (double drho : {1e-4, 3e-3, 0.02}) {
    const double dp = u.pressure_to_physical(1.0 + drho);
    CHECK(hemo::phys::density_variation(dp, u.density, u.dx, u.dt) == doctest::Approx(drho).epsilon(1e-12));
  }
  // u = c_s: rho u^2 / 2 over rho c_s^2 is 1/2.
  const double c_s = u.dx / (u.dt * std::sqrt(3.0));
  CHECK(hemo::phys::dynamic_density_variation(c_s, u.dx, u.dt) == doctest::Approx(0.5));
}

TEST_CASE("poiseuille_pressure_drop is 8 mu L Q / (pi R^4)") {
  // Q = pi R^2 U_mean: dp = 8 mu L U_mean / R^2.
  const double mu = 3.5e-3, L = 0.1, R = 2e-3, U = 0.2;
  CHECK(hemo::phys::poiseuille_pressure_drop(mu, L, M_PI * R * R * U, R) == doctest::Approx(8.0 * mu * L * U / (R * R)));
}

TEST_CASE("estimate_compressibility: a straight pipe's drop, two outlets sharing by area, imposed pressures") {
  const LatticeUnits u = units();
  const double mu = u.viscosity * u.density, R = 2e-3, L = 0.1;
  using C = IoletSpec::Condition;
  SUBCASE("steady parabolic inflow through one outlet: Hagen-Poiseuille over the inlet-outlet distance") {
    const std::vector<IoletSpec> pipe{iolet("in", C::velocity, -L / 2, R, 0.04), iolet("out", C::pressure, L / 2, R, 0.0)};
    const auto e = estimate_compressibility(pipe, u);
    const double dp = 8.0 * mu * L * 0.02 / (R * R);  // mean velocity = half the centre-line's
    CHECK(e.outlet_name == "out");
    CHECK(e.viscous_dp == doctest::Approx(dp));
    CHECK(e.inertial_dp == 0.0);
    CHECK(e.imposed == 0.0);  // one imposed pressure: no difference
    CHECK(e.outlet == doctest::Approx(hemo::phys::density_variation(dp, u.density, u.dx, u.dt)));
    CHECK(e.dynamic == doctest::Approx(hemo::phys::dynamic_density_variation(0.04, u.dx, u.dt)));
  }
  SUBCASE("a small outlet takes its area's share and needs the larger drop") {
    const std::vector<IoletSpec> tree{iolet("in", C::velocity, -L / 2, R, 0.04), iolet("big", C::pressure, L / 2, R, 0.0),
                                      iolet("small", C::pressure, L / 2, R / 2, 10.0)};
    const auto e = estimate_compressibility(tree, u);
    const double q = 0.5 * 0.04 * M_PI * R * R;
    CHECK(e.outlet_name == "small");
    CHECK(e.viscous_dp == doctest::Approx(hemo::phys::poiseuille_pressure_drop(mu, L, q * 0.25 / 1.25, R / 2)));
    CHECK(e.imposed_dp == doctest::Approx(10.0));
  }
  SUBCASE("an oscillating inflow adds rho L dU/dt, at most the water hammer rho c_s dU") {
    IoletSpec in = iolet("in", C::velocity, -L / 2, R, 0.04);
    in.time = IoletSpec::Time::sinusoidal, in.amplitude = 0.02, in.period = 1.0;
    const auto slow = estimate_compressibility({in, iolet("out", C::pressure, L / 2, R, 0.0)}, u);
    // mean velocity 0.5 (0.04 + 0.02 sin): dU/dt at most 0.5 * 0.02 * 2 pi / period
    CHECK(slow.inertial_dp == doctest::Approx(u.density * L * 0.5 * 0.02 * 2.0 * M_PI));
    in.period = 1e-4;
    const auto fast = estimate_compressibility({in, iolet("out", C::pressure, L / 2, R, 0.0)}, u);
    const double c_s = u.dx / (u.dt * std::sqrt(3.0));
    CHECK(fast.inertial_dp == doctest::Approx(u.density * c_s * 0.5 * 0.04));  // swing 2 x 0.02 at the centre line
  }
}

TEST_CASE("outflow_shares: the lasting inflow of constant, sine and CSV inlets, split by outlet area") {
  using C = IoletSpec::Condition;
  const double R = 0.002, area = M_PI * R * R;
  IoletSpec steady = iolet("steady", C::velocity, -0.05, R, 0.04);  // parabolic: half the centre line
  steady.ramp = 0.01;
  IoletSpec sine = iolet("sine", C::velocity, -0.05, R, 0.04);
  sine.time = IoletSpec::Time::sinusoidal, sine.amplitude = 0.02, sine.period = 1.0;
  IoletSpec pulse = iolet("pulse", C::velocity, -0.05, R, 0.0);  // a triangle over 1 s: mean 0.02
  pulse.time = IoletSpec::Time::csv, pulse.periodic = true;
  pulse.series = hemo::boundaries::TimeSeries::from_points({0.0, 0.5, 1.0}, {0.0, 0.04, 0.0});
  IoletSpec held = pulse;  // not periodic: it ends holding its last value
  held.periodic = false, held.series = hemo::boundaries::TimeSeries::from_points({0.0, 0.5}, {0.0, 0.03});
  const auto f = hemo::boundaries::outflow_shares({steady, sine, pulse, held, iolet("a", C::pressure, 0.05, R, 0.0),
                                                   iolet("b", C::pressure, 0.05, 2 * R, 0.0)});
  CHECK(f.lasting_inflow == doctest::Approx(0.5 * area * (0.04 + 0.04 + 0.02 + 0.03)));
  CHECK(f.inflow == doctest::Approx(0.5 * area * (0.04 + 0.06 + 0.04 + 0.03)));  // the peaks
  REQUIRE(f.share.size() == 2);
  CHECK(f.share[1] == doctest::Approx(4.0 * f.share[0]));  // by area
  CHECK(f.share[0] + f.share[1] == doctest::Approx(f.inflow));
}
