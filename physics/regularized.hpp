#pragma once
// Regularized BGK collision on one node, in shifted populations (equilibrium.hpp):
// J. Latt and B. Chopard, Math. Comput. Simul. 72, 165 (2006), eqs. 7-10. Before the
// BGK relaxation, the non-equilibrium part f - f^eq is replaced by its projection onto
// the Hermite polynomials of order one and two, which carry the hydrodynamic moments; the
// higher-order ("ghost") content that BGK lets grow near tau = 1/2 is dropped:
//   f1_q = w_q [ (c_q . J1) / c_s^2 + (c_q c_q - c_s^2 I) : Pi1 / (2 c_s^4) ],
//   Pi1  = sum_q c_q c_q (f_q - f_q^eq),   J1 = sum_q c_q (f_q - f_q^eq),
//   h*_q = h_q^eq + (1 - omega) f1_q + S_q       (S_q: Guo's source, guo_forcing.hpp).
// With Guo's half-force velocity rho u = j + F/2 the first-order part is J1 = -F/2; it
// vanishes without a force (Latt and Chopard's original form). Keeping it makes the
// post-collision mass, momentum and momentum flux exactly those of BGK with Guo forcing
// (bgk.hpp), so the Chapman-Enskog limit, the viscosity nu = c_s^2 (tau - 1/2) and the
// force coupling are unchanged; only the non-hydrodynamic moments differ.
//
// Shifted populations: sum_q c_q c_q w_q = c_s^2 I, so Pi1 is the same in h and f, and
//   sum_q c_q c_q h_q^eq = (rho - 1) c_s^2 I + rho u u,
// hence Pi1 = sum_q c_q c_q h_q - (rho - 1)/3 I - rho u u.
#include "physics/bgk.hpp"

namespace hemo::phys {

/// Relaxes h in place (regularized BGK with Guo forcing) and returns the moments it used.
template <class Real>
HEMO_HD NodeState<Real> collide_regularized(Real (&h)[d3q19::Q], Real omega, const Vec3<Real>& F) {
  const NodeState<Real> s = macroscopic(h, F);
  const Real rho = Real(1) + s.drho;
  // Second moment of the incoming populations.
  Real pxx = Real(0), pyy = Real(0), pzz = Real(0), pxy = Real(0), pxz = Real(0), pyz = Real(0);
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q) {
    const Real cx = Real(d3q19::cx(q)), cy = Real(d3q19::cy(q)), cz = Real(d3q19::cz(q));
    pxx += cx * cx * h[q];
    pyy += cy * cy * h[q];
    pzz += cz * cz * h[q];
    pxy += cx * cy * h[q];
    pxz += cx * cz * h[q];
    pyz += cy * cz * h[q];
  }
  const Real third = s.drho / Real(3);
  pxx -= third + rho * s.u.x * s.u.x;
  pyy -= third + rho * s.u.y * s.u.y;
  pzz -= third + rho * s.u.z * s.u.z;
  pxy -= rho * s.u.x * s.u.y;
  pxz -= rho * s.u.x * s.u.z;
  pyz -= rho * s.u.y * s.u.z;
  const Real trace_third = (pxx + pyy + pzz) / Real(3);
  const Real keep = Real(1) - omega;
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) {
    const Real cx = Real(d3q19::cx(q)), cy = Real(d3q19::cy(q)), cz = Real(d3q19::cz(q));
    const Real cPc = cx * cx * pxx + cy * cy * pyy + cz * cz * pzz +
                     Real(2) * (cx * cy * pxy + cx * cz * pxz + cy * cz * pyz);
    const Real cJ = Real(-0.5) * (cx * F.x + cy * F.y + cz * F.z);  // c . J1
    const Real f1 = d3q19::w<Real>(q) * (Real(3) * cJ + Real(4.5) * (cPc - trace_third));
    h[q] = equilibrium_shifted(q, s.drho, s.u) + keep * f1 + guo_source(q, omega, s.u, F);
  }
  return s;
}

}  // namespace hemo::phys
