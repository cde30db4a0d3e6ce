#pragma once
// Guo body-force scheme: Z. Guo, C. Zheng, B. Shi, Phys. Rev. E 65, 046308 (2002),
// eqs. 20 and 25 (the same coupling term MUPHY uses for the RBC forcing, seeds/004
// eq. 2.3). With a force density F (per unit volume, lattice units):
//   u   = (sum_q c_q f_q + F/2) / rho                        (velocity, half-force shift)
//   S_q = (1 - omega/2) w_q [3 (c_q - u) + 9 (c_q.u) c_q] . F   (source in the collision)
// This recovers Navier-Stokes with the force to second order, without the spurious
// terms of a plain "add F to the momentum" scheme.
#include "physics/d3q19.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

/// Guo source term for direction q, already multiplied by (1 - omega/2).
template <class Real>
HEMO_HD Real guo_source(int q, Real omega, const Vec3<Real>& u, const Vec3<Real>& F) {
  // Component a of 3 (c - u) + 9 (c.u) c. For c_a = 0 the second term, 9 cu * 0 = +-0,
  // is left out: 3 (0 - u_a) is never -0, so adding +-0 would not change it. For
  // c_a = +-1 a zero cu's sign (d3q19::c_dot) vanishes beside 3 (c_a - u_a), nonzero for
  // any |u_a| < 1. Bit for bit the full expression for finite operands.
  const Real cu = d3q19::c_dot(q, u.x, u.y, u.z);
  auto g = [&](int c, Real ua) {
    return c == 0 ? Real(3) * (Real(0) - ua) : Real(3) * (Real(c) - ua) + Real(9) * cu * Real(c);
  };
  const Real gx = g(d3q19::cx(q), u.x), gy = g(d3q19::cy(q), u.y), gz = g(d3q19::cz(q), u.z);
  return (Real(1) - Real(0.5) * omega) * d3q19::w<Real>(q) * (gx * F.x + gy * F.y + gz * F.z);
}

}  // namespace hemo::phys
