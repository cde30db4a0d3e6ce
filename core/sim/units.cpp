#include "core/sim/units.hpp"

#include <cmath>

#include "core/common/error.hpp"
#include "core/common/text.hpp"

namespace hemo {

void declare_units_schema(config::Schema& schema) {
  schema.section("fluid", "core", "Physical properties of the fluid (blood plasma or whole blood)")
      .real("density", "kg/m^3", "Mass density rho_0")
      .greater_than(0.0)
      .default_value(1060.0)
      .real("viscosity", "m^2/s", "Kinematic viscosity nu")
      .greater_than(0.0)
      .default_value(3.3e-6);
  schema.section("lattice", "core", "Lattice resolution, time step and numerics")
      .real("dx", "m", "Lattice spacing (the resolution)")
      .greater_than(0.0)
      .required()
      .real("tau", "1", "BGK relaxation time; sets dt = (tau - 1/2) dx^2 / (3 nu). Give tau or dt, not both; 0.8 when neither")
      .greater_than(0.5)
      .note("tau <= 1/2 means zero or negative viscosity")
      .real("dt", "s", "Time step; sets tau = 1/2 + 3 nu dt / dx^2. Give tau or dt, not both")
      .greater_than(0.0)
      .string("ordering", "Node numbering in memory: 'lexicographic' (x fastest) or 'morton' (Z-order)")
      .choices({"lexicographic", "morton"})
      .default_value(std::string("lexicographic"))
      .string("layout",
              "How the fluid nodes are stored: 'nodes' (a list of fluid nodes with 18 neighbour indices each), 'bricks' "
              "(bricks of 4^3 voxels holding fluid, neighbours implicit: 72 fewer bytes per update and less memory where "
              "bricks are well filled; needs every periodic axis a multiple of 4 voxels and partition.brick a multiple "
              "of 4) or 'auto' (bricks on the GPU where they fill to 0.81 or more and their constraints hold, where they "
              "were measured faster with fp32 and fp16s storage (docs/layout_fill.md); the node list otherwise). lattice.ordering then orders the bricks. Results are "
              "bitwise the same on every layout (docs/layouts.md)")
      .choices({"auto", "nodes", "bricks"})
      .default_value(std::string("auto"));
}

LatticeUnits derive_units(const config::Config& cfg) {
  LatticeUnits u;
  u.dx = cfg.real("lattice.dx");
  u.density = cfg.real("fluid.density");
  u.viscosity = cfg.real("fluid.viscosity");
  const bool has_tau = cfg.has("lattice.tau"), has_dt = cfg.has("lattice.dt");
  if (has_tau && has_dt)
    cfg.fail("lattice.dt", str("give lattice.tau or lattice.dt, not both (tau is set at ", cfg.where("lattice.tau"), ")"));
  if (has_dt) {
    u.dt = cfg.real("lattice.dt");
    u.tau = 0.5 + 3.0 * u.viscosity * u.dt / (u.dx * u.dx);
    if (!(u.tau > 0.5 + 1e-12)) {
      cfg.fail("lattice.dt", str("gives tau = ", fmt_g(u.tau, 8), ", which must be > 0.5 (zero or negative viscosity); ",
                                 "make dt larger"));
    }
  } else {
    u.tau = has_tau ? cfg.real("lattice.tau") : 0.8;
    u.dt = (u.tau - 0.5) * u.dx * u.dx / (3.0 * u.viscosity);
  }
  if (!std::isfinite(u.dt) || u.dt <= 0.0) cfg.fail("lattice.dx", "gives an unusable time step");
  return u;
}

double floor_significant(double x, int digits) {
  if (!(x > 0.0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, digits - 1 - int(std::floor(std::log10(x))));
  // The product of an exact value (0.3 x 1000) may round below the integer by an ulp.
  return std::floor(x * scale * (1.0 + 1e-12)) / scale;
}

double ceil_significant(double x, int digits) {
  if (!(x > 0.0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, digits - 1 - int(std::floor(std::log10(x))));
  return std::ceil(x * scale * (1.0 - 1e-12)) / scale;
}

void check_mach(const config::Config& cfg, const LatticeUnits& u, const FlowNumbers& flow, double max_mach) {
  if (!(flow.mach > max_mach)) return;
  // Mach = sqrt(3) U dt / dx. With dt given it scales with dt; with tau given, dt =
  // (tau - 1/2) dx^2 / (3 nu), so it scales with tau - 1/2 (and with dx).
  const double shrink = max_mach / flow.mach;
  const std::string why = str("gives Mach ", fmt_g(flow.mach, 3), " > ", fmt_g(max_mach, 3), " (flow.max_mach) at U = ",
                              fmt_g(flow.velocity, 4), " m/s (", flow.velocity_source, "), u_lattice = ",
                              fmt_g(flow.u_lattice, 3));
  const std::string override_note =
      str("; compressibility errors grow as Mach^2 (flow.max_mach raises the limit, at that cost)");
  if (cfg.has("lattice.dt")) {
    cfg.fail("lattice.dt", str("= ", fmt_g(u.dt, 6), " s ", why, ": use lattice.dt <= ", fmt_g(floor_significant(u.dt * shrink, 3)),
                               " s", override_note));
  }
  const double tau_max = 0.5 + floor_significant((u.tau - 0.5) * shrink, 3);
  cfg.fail("lattice.tau", str("= ", fmt_g(u.tau, 6), cfg.has("lattice.tau") ? "" : " (the default)", " ", why,
                              ": use lattice.tau <= ", fmt_g(tau_max, 6), " (or lattice.dx <= ",
                              fmt_g(floor_significant(u.dx * shrink, 3)), " m at this tau)", override_note));
}

}  // namespace hemo
