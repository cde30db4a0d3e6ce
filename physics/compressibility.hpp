#pragma once
// How far from incompressible a lattice flow must be: the spread of lattice density that
// the pressure differences of the flow need. LB solves the weakly compressible equations
// with p = c_s^2 rho, so a pressure difference dp is a density difference
// drho / rho = dp / (rho c_s^2), c_s^2 = dx^2 / (3 dt^2) (Krueger et al. 2017, The Lattice
// Boltzmann Method, sec. 4.3): at fixed dx it falls as dt^2.
#include "physics/hd.hpp"

namespace hemo::phys {

/// Hagen-Poiseuille pressure drop of a flow rate Q through a length L of a pipe of radius
/// R: dp = 8 mu L Q / (pi R^4) (SI units in, Pa out).
HEMO_HD constexpr double poiseuille_pressure_drop(double mu, double length, double flow_rate, double radius) {
  return 8.0 * mu * length * flow_rate / (3.141592653589793 * radius * radius * radius * radius);
}

/// The relative density difference a pressure difference dp (Pa) needs on a lattice of
/// spacing dx and step dt, fluid density rho: dp / (rho c_s^2) = 3 dp dt^2 / (rho dx^2).
HEMO_HD constexpr double density_variation(double dp, double rho, double dx, double dt) {
  return 3.0 * dp * dt * dt / (rho * dx * dx);
}

/// The relative density difference of a flow's dynamic pressure rho u^2 / 2 (Bernoulli):
/// u_lattice^2 / (2 c_s^2) = 3 u_lattice^2 / 2, u_lattice = u dt / dx.
HEMO_HD constexpr double dynamic_density_variation(double u, double dx, double dt) {
  return 1.5 * (u * dt / dx) * (u * dt / dx);
}

}  // namespace hemo::phys
