#pragma once
// Halfway (mid-link) bounce-back, Ladd & Verberg (HemeLB paper, seeds/001, sec. 2.3.1),
// with Ladd's moving-wall term (A. Ladd, J. Fluid Mech. 271 (1994), eq. 3.2):
//
// In the pull scheme a node x gathers f_q from x - c_q. If x - c_q is a wall, the value
// that arrives is the one that left x towards the wall, reflected halfway:
//   f_q(x, t+1) = f*_opp(q)(x, t) + 2 w_q rho_w (c_q . u_w) / c_s^2.
// The wall sits halfway between the fluid node and the solid node (second-order
// accurate for a wall aligned with the lattice). In shifted populations (h = f - w) the
// rule is identical because w_q = w_opp(q).
#include "physics/d3q19.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

/// The momentum term a wall moving at u_w adds to the bounced-back population in
/// direction q (q points from the wall into the fluid). rho_w is the wall density;
/// hemoflow uses the reference density 1, which keeps the term independent of the
/// unknown arriving populations and makes mass conservation exact for a wall whose
/// links come in +/- pairs (a lid spanning a face).
template <class Real>
HEMO_HD Real moving_wall_term(int q, const Vec3<Real>& u_wall, Real rho_wall = Real(1)) {
  const Real cu = Real(d3q19::cx(q)) * u_wall.x + Real(d3q19::cy(q)) * u_wall.y +
                  Real(d3q19::cz(q)) * u_wall.z;
  return Real(6) * d3q19::w<Real>(q) * rho_wall * cu;
}

/// Population arriving in direction q through a wall link.
template <class Real>
HEMO_HD Real bounce_back_link(Real post_collision_opposite, Real wall_term = Real(0)) {
  return post_collision_opposite + wall_term;
}

}  // namespace hemo::phys
