// Physical <-> lattice unit conversions (core/sim/units.hpp) against hand-worked values:
// nu = c_s^2 (tau - 1/2) dx^2 / dt with c_s^2 = 1/3 (HemeLB paper, seeds/001, eq. 8).
#include <doctest/doctest.h>

#include <string>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/sim/units.hpp"

using namespace hemo;

namespace {

LatticeUnits units_of(const std::string& lattice) {
  config::Schema schema;
  declare_units_schema(schema);
  const std::string text = "[fluid]\ndensity = 1060.0\nviscosity = 3.3e-6\n[lattice]\n" + lattice;
  return derive_units(config::Document::parse(text, "case.toml").validate(schema));
}

doctest::Approx rel(double v) { return doctest::Approx(v).epsilon(1e-14).scale(0); }

}  // namespace

TEST_CASE("tau gives dt = (tau - 1/2) dx^2 / (3 nu)") {
  // dx = 1e-4 m, tau = 0.8: dt = 0.3 * 1e-8 / 9.9e-6 = 3.0303...e-4 s.
  const LatticeUnits u = units_of("dx = 1.0e-4\ntau = 0.8\n");
  CHECK(u.dt == rel(0.3e-8 / 9.9e-6));
  CHECK(u.tau == 0.8);
  CHECK(u.nu_lattice() == rel(0.1));  // (0.8 - 0.5) / 3
  CHECK(u.omega() == rel(1.25));
}

TEST_CASE("dt gives tau = 1/2 + 3 nu dt / dx^2; neither gives tau = 0.8") {
  // dx = 5e-4, dt = 2e-4: tau = 0.5 + 3 * 3.3e-6 * 2e-4 / 2.5e-7 = 0.5 + 0.00792.
  const LatticeUnits u = units_of("dx = 5.0e-4\ndt = 2.0e-4\n");
  CHECK(u.tau == rel(0.50792));
  CHECK(u.dt == 2.0e-4);
  CHECK(units_of("dx = 1.0e-4\n").tau == 0.8);
  CHECK_THROWS_AS(units_of("dx = 1.0e-4\ntau = 0.6\ndt = 1e-4\n"), InputError);
}

TEST_CASE("velocity, acceleration, pressure and force density to and from lattice units") {
  // dx = 1e-4 m, tau = 0.8 -> dt = 3.0303e-4 s; rho_0 = 1060 kg/m^3.
  const LatticeUnits u = units_of("dx = 1.0e-4\ntau = 0.8\n");
  const double dt = 0.3e-8 / 9.9e-6, dx = 1e-4;
  // 0.1 m/s is 0.1 dt / dx = 0.30303 lattice units.
  CHECK(u.velocity_to_lattice(0.1) == rel(0.1 * dt / dx));
  CHECK(u.velocity_to_physical(u.velocity_to_lattice(0.1)) == rel(0.1));
  // g = 9.81 m/s^2 is g dt^2 / dx lattice units.
  CHECK(u.acceleration_to_lattice(9.81) == rel(9.81 * dt * dt / dx));
  // Gauge pressure: rho = 1.003 -> p = c_s^2 (rho - 1) rho_0 dx^2 / dt^2 = 0.001 * 1060 * (dx/dt)^2.
  CHECK(u.pressure_to_physical(1.003) == doctest::Approx(0.001 * 1060 * (dx / dt) * (dx / dt)).epsilon(1e-12));
  CHECK(u.pressure_to_physical(1.0) == 0.0);
  // Force density f (lattice) -> f rho_0 dx / dt^2 (N/m^3).
  CHECK(u.force_density_to_physical(2e-6) == rel(2e-6 * 1060 * dx / (dt * dt)));
  CHECK(u.density_to_physical(1.0) == 1060.0);
}
