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
  const Real cx = Real(d3q19::cx(q)), cy = Real(d3q19::cy(q)), cz = Real(d3q19::cz(q));
  const Real cu = cx * u.x + cy * u.y + cz * u.z;
  const Real gx = Real(3) * (cx - u.x) + Real(9) * cu * cx;
  const Real gy = Real(3) * (cy - u.y) + Real(9) * cu * cy;
  const Real gz = Real(3) * (cz - u.z) + Real(9) * cu * cz;
  return (Real(1) - Real(0.5) * omega) * d3q19::w<Real>(q) * (gx * F.x + gy * F.y + gz * F.z);
}

}  // namespace hemo::phys
