#pragma once
// Backflow stabilization of an open (pressure) boundary: M. Esmaily Moghadam, Y.
// Bazilevs, T.-Y. Hsia, I. E. Vignon-Clementel and A. L. Marsden, Comput. Mech. 48, 277
// (2011). Where fluid flows IN through a boundary meant as an outlet (u . n < 0, n the
// outward normal), a plain pressure condition lets the kinetic energy of that fluid enter
// with it and nothing in the boundary removes it; vortices that reach an outlet and partly
// return can then make a run diverge (the "backflow instability"). Esmaily Moghadam et
// al. add the traction beta rho (u . n)_- u, (x)_- = min(x, 0), on the outlet. A lattice
// Boltzmann pressure rule imposes a pressure only, so hemoflow applies the normal part of
// that traction, beta rho (u . n)_-^2, which lowers the prescribed pressure where fluid
// enters:
//   p = p_b - beta rho (u . n)_-^2,
// and leaves it unchanged where fluid leaves. For backflow normal to the outlet this
// takes out of the boundary's energy balance at least the ½ rho |u|^2 (u . n) that enters
// (beta >= 1/2), as in S. Dong, G. E. Karniadakis and C. Chryssostomidis, J. Comput. Phys.
// 261, 83 (2014), who use ½ rho |u|^2 behind a smoothed switch on the sign of u . n.
//
// This form is continuous with a continuous derivative at u . n = 0 and needs no switch.
// A first version switched the full dynamic pressure ½ rho |u|^2 on with the sign of the
// angle between u and n (Dong's form with a scale-free switch): on the carotid at tau 0.51
// with BGK that switch, flipping at nodes where fast flow runs nearly along the outlet
// plane, made a run diverge that survived without it (docs/stability.md, 2026-11-23).
//
// In lattice units (p = c_s^2 rho) the prescribed density drops by 3 beta rho (u . n)_-^2;
// plain arithmetic, so CPU and GPU give the same bits.
#include "physics/vec3.hpp"

namespace hemo::phys {

/// The drop of the prescribed density at a node with density rho and velocity u, for a
/// boundary with OUTWARD unit normal n and coefficient beta (0: no stabilization).
template <class Real>
HEMO_HD Real backflow_density_drop(const Vec3<Real>& u, const Vec3<Real>& n, Real rho, Real beta) {
  const Real un = dot(u, n);
  return un < Real(0) ? Real(3) * beta * rho * un * un : Real(0);
}

}  // namespace hemo::phys
