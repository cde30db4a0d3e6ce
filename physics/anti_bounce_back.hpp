#pragma once
// Anti-bounce-back pressure rule for one link (I. Ginzburg, F. Verhaeghe and
// D. d'Humieres, Commun. Comput. Phys. 3, 427 (2008); T. Krueger et al., The Lattice
// Boltzmann Method (Springer 2017), sec. 5.3.4, eq. 5.53). The population that would
// enter node x through a boundary halfway along its link is
//   f_q(x, t+1) = -f*_opp(q)(x, t) + 2 f_q^eq,even(rho_b, u_b),
//   f_q^eq,even = w_q rho_b (1 + 9/2 (c_q.u_b)^2 - 3/2 u_b.u_b),
// the even part of the equilibrium at the prescribed density rho_b and the velocity u_b
// at the boundary. What the rule prescribes is the pair sum f_q + f*_opp(q) on the link:
// twice the even part of that equilibrium. The even moments at the link's midpoint are
// thereby set: the pressure, and the even non-equilibrium part, where the viscous stress
// lives (the momentum flux sum_q c_q c_q f_q is even in c_q), to its equilibrium value.
// The pair difference, the odd part, which carries the momentum, is not prescribed: it
// follows from the population leaving the fluid. (An earlier version of this comment
// said the rule keeps the odd non-equilibrium part "that carries the viscous stress"; the
// stress is an even moment. Corrected 2026-11-23, issue 10.) Nash's zeroth-order rule
// instead replaces the entering population itself by the equilibrium at the ghost density
// and the node's velocity: it prescribes neither the pair sum nor the difference, and
// drops the entering population's non-equilibrium part, which is what shifts its pressure
// drop with tau (docs/validation.md). This rule needs no particular plane orientation and
// no particular set of unknowns, so it serves tilted iolets and the rims of axis-aligned
// ones alike.
//
// u_b: hemoflow takes the boundary node's velocity (Krueger et al. extrapolate it to the
// link's midpoint, u_b = 3/2 u(x) - 1/2 u(x + c_q)). Measured 2026-11-23 (CPU, commit
// 643dec6 plus an experimental switch, since removed): a pipe 16 nodes across with
// anti-bounce-back at both ends (cases/pipe_pressure.toml, nu = 2e-4, dx = 1 mm) gave the
// interior pressure gradient within 1e-4 of the node-velocity result at tau 0.52, 0.55 and
// 0.8 (Mach 0.003); at tau 0.55 and Mach 0.03 the midpoint velocity moved the gradient
// error from +0.66% to +0.36%, at Mach 0.085 from -3.0% to -3.6%. No consistent gain, so
// the node velocity, which needs no second node, stays.
//
// In shifted populations (h = f - w, equilibrium.hpp), with w_q = w_opp(q):
//   h_q = -h*_opp(q) + 2 w_q [(rho_b - 1) + rho_b (9/2 (c_q.u_b)^2 - 3/2 u_b.u_b)].
#include "physics/equilibrium.hpp"

namespace hemo::phys {

/// The entering shifted population h_q of the rule above, from the leaving one h*_opp(q).
template <class Real>
HEMO_HD Real anti_bounce_back(int q, Real leaving, Real drho_b, const Vec3<Real>& u_b) {
  const Real cu = Real(d3q19::cx(q)) * u_b.x + Real(d3q19::cy(q)) * u_b.y + Real(d3q19::cz(q)) * u_b.z;
  const Real uu = u_b.x * u_b.x + u_b.y * u_b.y + u_b.z * u_b.z;
  const Real even = drho_b + (Real(1) + drho_b) * (Real(4.5) * cu * cu - Real(1.5) * uu);
  return -leaving + Real(2) * d3q19::w<Real>(q) * even;
}

}  // namespace hemo::phys
