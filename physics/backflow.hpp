#pragma once
// Backflow stabilization of an open (pressure) boundary: S. Dong, G. E. Karniadakis and
// C. Chryssostomidis, J. Comput. Phys. 261, 83 (2014). Where fluid flows IN through a
// boundary meant as an outlet (u . n < 0, n the outward normal), a plain pressure
// condition lets kinetic energy ½ rho |u|^2 (u . n) enter with the fluid, and nothing
// in the boundary removes it: vortices that reach an outlet and partly return make the
// run diverge (the "backflow instability", also M. Esmaily Moghadam et al., Comput. Mech.
// 48, 277 (2011)). Dong et al. prescribe, instead of the static pressure p_b,
//   p = p_b - beta ½ rho |u|^2 Theta(n . u),      beta = 1 in their paper,
// with Theta a smoothed step that is 1 for inflow and 0 for outflow. Where fluid leaves
// nothing changes; where it enters, the boundary pressure is its total (stagnation)
// pressure, as at the mouth of a reservoir, and the energy that enters is bounded.
//
// In lattice units (p = c_s^2 rho) the prescribed density drops by
//   d_rho = beta (3/2) rho |u|^2 Theta(n . u / |u|).
// Theta is a cubic smooth step of the cosine between u and n over [-delta, delta]
// (delta = 0.05): 1 below -delta, 0 above +delta, C1 in between. It needs no velocity
// scale (Dong et al. smooth over delta U0 with a reference velocity U0), and it is plain
// arithmetic, so CPU and GPU give the same bits (a tanh would differ between libm and
// CUDA's).
#include <cmath>

#include "physics/vec3.hpp"

namespace hemo::phys {

inline constexpr double backflow_smoothing = 0.05;

/// Smoothed step: 1 for c <= -delta, 0 for c >= delta, cubic and C1 in between.
template <class Real>
HEMO_HD Real backflow_step(Real c) {
  const Real x = c / Real(backflow_smoothing);
  if (x <= Real(-1)) return Real(1);
  if (x >= Real(1)) return Real(0);
  return Real(0.5) - Real(0.75) * x + Real(0.25) * x * x * x;
}

/// The drop of the prescribed density at a node with density rho and velocity u, for a
/// boundary with OUTWARD unit normal n and coefficient beta (0: no stabilization).
template <class Real>
HEMO_HD Real backflow_density_drop(const Vec3<Real>& u, const Vec3<Real>& n, Real rho, Real beta) {
  const Real uu = dot(u, u);
  if (!(beta > Real(0)) || !(uu > Real(0))) return Real(0);
  // sqrt in double, rounded once to Real: the correctly rounded root on host and device.
  const Real c = dot(u, n) / Real(sqrt(double(uu)));
  return beta * Real(1.5) * rho * uu * backflow_step(c);
}

}  // namespace hemo::phys
