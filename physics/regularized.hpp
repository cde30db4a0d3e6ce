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
//
// With the Smagorinsky eddy viscosity (smagorinsky.hpp, lb_bgk.smagorinsky) omega is the
// node's own 1/tau_eff, from its Pi1 and rho, for the stress and Guo's source alike: the
// same Navier-Stokes limit with nu = nu_0 + nu_t (Hou et al. 1996). The strain rate is
// taken from this Pi1 as it is, without the (F u + u F)/2 that wall_shear.hpp removes
// for Guo's force (its relative weight is |F| |u| / |Pi1|, small for the body forces of
// vessel flows); what matters for consistency is that the collision and the stress it
// offers (collision.hpp, omega_at) use the same Pi1, bit for bit.
#include "physics/bgk.hpp"
#include "physics/smagorinsky.hpp"

namespace hemo::phys {

/// The rate that relaxes the node's stress: omega = 1/tau0 itself without an eddy
/// viscosity (smagorinsky = 0), else 1/tau_eff of the Smagorinsky model (smagorinsky.hpp)
/// from the node's Pi1 and rho; smagorinsky = 18 sqrt(2) C^2 (smagorinsky_coefficient).
template <class Real>
HEMO_HD Real smagorinsky_omega(const NonEquilibrium<Real>& m, Real omega, Real smagorinsky) {
  if (!(smagorinsky > Real(0))) return omega;
  const Real Q = double_contraction(m.xx, m.yy, m.zz, m.xy, m.xz, m.yz);
  return Real(1) / smagorinsky_tau(Real(1) / omega, smagorinsky, Q, m.rho);
}

/// Relaxes h in place (regularized BGK with Guo forcing) and returns the moments it used.
///
/// The post-collision state depends on the incoming populations only through rho, j and
/// the second moment, so one pass gathers those ten sums and the populations are then
/// written from them, pair by pair (q, opp(q)): its even part
///   w_q [(rho - 1) + rho (9/2 (c.u)^2 - 3/2 u.u)] + (1 - omega) w_q 9/2 (c.Pi1.c - tr Pi1 / 3)
///     + (1 - omega/2) w_q (9 (c.u)(c.F) - 3 u.F),
/// and its odd part 3 w_q rho (c.u) + (1 - omega) w_q 3 (c.J1) + (1 - omega/2) 3 w_q (c.F)
///   = w_q (3 rho (c.u) + 3/2 (c.F))   (J1 = -F/2: the rates cancel).
/// Holding ten sums instead of 19 populations keeps the kernel's registers (and so its
/// occupancy and bandwidth) close to BGK's. smagorinsky: 18 sqrt(2) C^2 of the Smagorinsky
/// eddy viscosity (smagorinsky_omega), 0 for none: then the arithmetic is that of the
/// operator without it, bit for bit (one uniform branch).
template <class Real>
HEMO_HD NodeState<Real> collide_regularized(Real (&h)[d3q19::Q], Real omega, const Vec3<Real>& F,
                                            Real smagorinsky = Real(0)) {
  const NonEquilibrium<Real> m = non_equilibrium(h, F);
  const Real drho = m.drho, rho = m.rho;
  const Vec3<Real> u = m.u;
  const Real pxx = m.xx, pyy = m.yy, pzz = m.zz, pxy = m.xy, pxz = m.xz, pyz = m.yz;
  omega = smagorinsky_omega(m, omega, smagorinsky);
  const Real trace_third = (pxx + pyy + pzz) / Real(3);
  const Real keep = Real(1) - omega, keep_force = Real(1) - Real(0.5) * omega;
  const Real uu = dot(u, u), uF = dot(u, F);
  {  // rest population: even; c = 0
    const Real w0 = d3q19::w<Real>(0);
    h[0] = w0 * (drho - rho * Real(1.5) * uu) - keep * w0 * Real(4.5) * trace_third - keep_force * w0 * Real(3) * uF;
  }
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; q += 2) {
    const int o = d3q19::opposite(q);  // q + 1
    const Real wq = d3q19::w<Real>(q);
    const Real cx = Real(d3q19::cx(q)), cy = Real(d3q19::cy(q)), cz = Real(d3q19::cz(q));
    const Real cu = cx * u.x + cy * u.y + cz * u.z;
    const Real cF = cx * F.x + cy * F.y + cz * F.z;
    const Real cPc = cx * cx * pxx + cy * cy * pyy + cz * cz * pzz +
                     Real(2) * (cx * cy * pxy + cx * cz * pxz + cy * cz * pyz);
    const Real even = wq * (drho + rho * (Real(4.5) * cu * cu - Real(1.5) * uu)) +
                      keep * wq * Real(4.5) * (cPc - trace_third) +
                      keep_force * wq * (Real(9) * cu * cF - Real(3) * uF);
    const Real odd = wq * (Real(3) * rho * cu + Real(1.5) * cF);
    h[q] = even + odd;
    h[o] = even - odd;
  }
  return {drho, u};
}

}  // namespace hemo::phys
