#pragma once
// Physical units in, lattice units inside. A case gives the fluid's density and
// kinematic viscosity, the lattice spacing dx, and either the relaxation time tau or the
// time step dt; the other follows from nu = c_s^2 (tau - 1/2) dx^2 / dt (HemeLB paper,
// seeds/001, eq. 8, with c_s^2 = 1/3).
#include <string>

#include "core/config/config.hpp"
#include "core/config/schema.hpp"

namespace hemo {

enum class Precision { fp32, fp64 };
inline const char* to_string(Precision p) { return p == Precision::fp32 ? "fp32" : "fp64"; }

struct LatticeUnits {
  double dx = 0.0;         // m
  double dt = 0.0;         // s
  double density = 0.0;    // kg/m^3, the reference density rho_0 (lattice density 1)
  double viscosity = 0.0;  // m^2/s, kinematic
  double tau = 0.0;        // relaxation time (lattice)

  double nu_lattice() const { return (tau - 0.5) / 3.0; }
  double omega() const { return 1.0 / tau; }
  double velocity_to_lattice(double u) const { return u * dt / dx; }
  double velocity_to_physical(double u) const { return u * dx / dt; }
  double acceleration_to_lattice(double a) const { return a * dt * dt / dx; }
  double density_to_physical(double rho) const { return rho * density; }
  /// Gauge pressure p - p_0 from lattice density: c_s^2 (rho - 1) in lattice units.
  double pressure_to_physical(double rho) const { return (rho - 1.0) / 3.0 * density * dx * dx / (dt * dt); }
  double force_density_to_physical(double f) const { return f * density * dx / (dt * dt); }
};

/// Declares [fluid] and [lattice].
void declare_units_schema(config::Schema& schema);

/// Derives the lattice units. InputError (with the key's location) when tau <= 1/2,
/// when both or neither of tau and dt fit, or when a value is unusable.
LatticeUnits derive_units(const config::Config& cfg);

/// The dimensionless numbers that say whether a run is sensible, for printing and checks.
struct FlowNumbers {
  double velocity = 0.0;  // m/s, the reference velocity used
  std::string velocity_source;
  double length = 0.0;    // m
  std::string length_source;
  double mach = 0.0;      // u_lattice / c_s
  double reynolds = 0.0;  // U L / nu
  double u_lattice = 0.0;
};

/// The Mach number above which a run is refused unless flow.max_mach says otherwise:
/// the LB solves the weakly compressible equations, whose density changes and errors grow
/// as Mach^2 (9% at 0.3), and runs here diverged at lattice velocities of 0.27 (Mach
/// 0.47; docs/backflow.md). Above 0.1 a run is warned.
inline constexpr double default_max_mach = 0.3;
inline constexpr double mach_warning = 0.1;

/// Above this spread of the lattice density (largest - least over the mean) a run warns
/// after its end (the density monitor, time_loop.cpp) and `check` before it (the
/// boundaries' estimate): 1%, the compressibility error a 0.1 Mach number makes.
inline constexpr double density_variation_warning = 0.01;

/// InputError when flow.mach exceeds `max_mach` (flow.max_mach): names the key that sets
/// the time step (lattice.dt, else lattice.tau), its value, the Mach number, the limit and
/// the nearest value of that key that keeps the Mach number within it.
void check_mach(const config::Config& cfg, const LatticeUnits& units, const FlowNumbers& flow, double max_mach);

/// `x` rounded down (up) to `digits` significant digits: limits printed as settings
/// that keep within them.
double floor_significant(double x, int digits);
double ceil_significant(double x, int digits);

}  // namespace hemo
