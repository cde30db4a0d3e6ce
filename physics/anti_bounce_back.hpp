#pragma once
// Anti-bounce-back pressure rule for one link (I. Ginzburg, F. Verhaeghe and
// D. d'Humieres, Commun. Comput. Phys. 3, 427 (2008); T. Krueger et al., The Lattice
// Boltzmann Method (Springer 2017), sec. 5.3.4, eq. 5.53). The population that would
// enter node x through a boundary halfway along its link is
//   f_q(x, t+1) = -f*_opp(q)(x, t) + 2 f_q^eq,even(rho_b, u_b),
//   f_q^eq,even = w_q rho_b (1 + 9/2 (c_q.u_b)^2 - 3/2 u_b.u_b),
// the even (pressure) part of the equilibrium at the prescribed density rho_b and the
// velocity u_b at the boundary. Unlike Nash's zeroth-order rule, which replaces the
// entering population by an equilibrium, this keeps the odd non-equilibrium part that
// carries the viscous stress, so the prescribed pressure sits at the link's midpoint
// without a relaxation-time-dependent shift of the pressure drop. It needs no
// particular plane orientation and no particular set of unknowns, so it serves tilted
// iolets and the rims of axis-aligned ones alike.
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
