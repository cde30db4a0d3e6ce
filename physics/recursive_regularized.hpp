#pragma once
// Recursive regularized collision on one node, in shifted populations (equilibrium.hpp):
// O. Malaspinas, arXiv:1505.06900 (2015); C. Coreixas, G. Wissocq, G. Puigt, J.-F.
// Boussuge and P. Sagaut, Phys. Rev. E 96, 033306 (2017), sec. III and app. C for D3Q19.
//
// Like the regularized operator (regularized.hpp) it rebuilds the populations from their
// Hermite moments and drops everything else, the "ghost" content that grows near
// tau = 1/2; unlike it, the equilibrium and the non-equilibrium part both keep the
// third-order Hermite terms D3Q19 can hold. With c_s^2 = 1/3 and a^(n) the Hermite
// coefficients:
//   f_q = w_q [ rho + 3 c.a1 + 9/2 H2 : a2 + T3_q(a3) ],
// where D3Q19 supports six of the ten third-order polynomials, in three pairs that share
// an odd axis, e.g. (H_xxy, H_yzz) for y. They are not orthogonal on D3Q19, but their sum
// and difference are (Coreixas et al. 2017, eq. C4), so
//   T3_q(a) = 27/2 sum_pairs (H_A + H_B)(a_A + a_B) + 9/2 sum_pairs (H_A - H_B)(a_A - a_B),
// which reproduces the six moments sum_q f_q H_A,q = a_A exactly. Evaluated per direction
// (components +-1 or 0) this is, for an axis direction along x,
//   T3 = -9 c_x (a_xyy + a_xzz),
// and for a diagonal in the x-y plane
//   T3 = 9 (c_x a_xyy + c_y a_xxy),
// and the same with the axes permuted (third_order_term below).
//
// The coefficients:
//   a3_eq  = rho u u u                                  (the third-order equilibrium),
//   a3_neq = u Pi1 + Pi1 u + ... (all three placements)  (the recursion of Malaspinas
//            2015, eq. 18: the non-equilibrium moments of order n from those of order n-1
//            in the Chapman-Enskog expansion's first order),
//   a3_F   = F u u + u F u + u u F                       (Guo's source to third order),
// and the collision
//   h*_q = h_q^eq3 + (1 - omega) f1_q + (1 - omega/2) S_q,
// f1 the regularized non-equilibrium (regularized.hpp) plus w_q T3_q(a3_neq), S Guo's
// source (guo_forcing.hpp) plus w_q T3_q(a3_F). Mass, momentum and the momentum flux after
// the collision are those of the regularized operator (and BGK) exactly: the third-order
// terms add nothing to moments of order below three, so nu = c_s^2 (tau - 1/2) and the
// force coupling are unchanged. What changes is the third-order moment: the equilibrium's
// rho u u u corrects the viscous stress's O(u^3) error (its Galilean invariance) on the
// supported components, and the relaxed third-order moments are tied to the stress, as a
// Chapman-Enskog solution's are, instead of dropped.
//
// With the Smagorinsky eddy viscosity (smagorinsky.hpp) omega is the node's 1/tau_eff
// from its Pi1, as in the regularized operator.
#include "physics/bgk.hpp"
#include "physics/regularized.hpp"

namespace hemo::phys {

/// The six third-order Hermite coefficients D3Q19 supports, named by their indices.
template <class Real>
struct ThirdOrder {
  Real xxy, xxz, xyy, yyz, xzz, yzz;
};

/// The recursion a_abc = u_a p_bc + u_b p_ac + u_c p_ab of a symmetric second-order
/// tensor p, on the six components D3Q19 supports. p = Pi1 gives a3_neq, p = rho u u / 3
/// gives rho u u u, p = (u F + F u) / 2 gives a3_F: so one call makes all three.
template <class Real>
HEMO_HD ThirdOrder<Real> recursive_third_order(const Vec3<Real>& u, Real pxx, Real pyy, Real pzz, Real pxy, Real pxz,
                                               Real pyz) {
  return {Real(2) * u.x * pxy + u.y * pxx, Real(2) * u.x * pxz + u.z * pxx, Real(2) * u.y * pxy + u.x * pyy,
          Real(2) * u.y * pyz + u.z * pyy, Real(2) * u.z * pxz + u.x * pzz, Real(2) * u.z * pyz + u.y * pzz};
}

/// T3_q(a) of direction q (see the header): the third-order part of f_q / w_q.
template <class Real>
HEMO_HD Real third_order_term(int q, const ThirdOrder<Real>& a) {
  const int x = d3q19::cx(q), y = d3q19::cy(q), z = d3q19::cz(q);
  // Axis directions: one nonzero component.
  if (y == 0 && z == 0) return Real(-9) * Real(x) * (a.xyy + a.xzz);
  if (x == 0 && z == 0) return Real(-9) * Real(y) * (a.xxy + a.yzz);
  if (x == 0 && y == 0) return Real(-9) * Real(z) * (a.xxz + a.yyz);
  // Diagonals: two nonzero components.
  if (z == 0) return Real(9) * (Real(x) * a.xyy + Real(y) * a.xxy);
  if (y == 0) return Real(9) * (Real(x) * a.xzz + Real(z) * a.xxz);
  return Real(9) * (Real(y) * a.yzz + Real(z) * a.yyz);
}

/// Relaxes h in place (recursive regularized with Guo forcing) and returns the moments it
/// used. One pass of ten sums, as the regularized operator (regularized.hpp), whose even
/// part it shares bit for bit; the third-order terms are odd in c and only change the odd
/// part of each pair (q, opp(q)):
///   odd = w_q (3 rho (c.u) + 3/2 (c.F)) + w_q T3_q(a3_eq + (1 - omega) a3_neq + (1 - omega/2) a3_F).
template <class Real>
HEMO_HD NodeState<Real> collide_recursive_regularized(Real (&h)[d3q19::Q], Real omega, const Vec3<Real>& F,
                                                      Real smagorinsky = Real(0)) {
  const NonEquilibrium<Real> m = non_equilibrium(h, F);
  const Real drho = m.drho, rho = m.rho;
  const Vec3<Real> u = m.u;
  const Real pxx = m.xx, pyy = m.yy, pzz = m.zz, pxy = m.xy, pxz = m.xz, pyz = m.yz;
  omega = smagorinsky_omega(m, omega, smagorinsky);
  const Real trace_third = (pxx + pyy + pzz) / Real(3);
  const Real keep = Real(1) - omega, keep_force = Real(1) - Real(0.5) * omega;
  const Real uu = dot(u, u), uF = dot(u, F);
  // a3_eq + (1 - omega) a3_neq + (1 - omega/2) a3_F as one recursion (recursive_third_order)
  // of p = rho u u / 3 + (1 - omega) Pi1 + (1 - omega/2) (u F + F u) / 2.
  const Real third = Real(1) / Real(3);
  const Real sxx = third * rho * u.x * u.x + keep * pxx + keep_force * u.x * F.x;
  const Real syy = third * rho * u.y * u.y + keep * pyy + keep_force * u.y * F.y;
  const Real szz = third * rho * u.z * u.z + keep * pzz + keep_force * u.z * F.z;
  const Real sxy = third * rho * u.x * u.y + keep * pxy + keep_force * Real(0.5) * (u.x * F.y + u.y * F.x);
  const Real sxz = third * rho * u.x * u.z + keep * pxz + keep_force * Real(0.5) * (u.x * F.z + u.z * F.x);
  const Real syz = third * rho * u.y * u.z + keep * pyz + keep_force * Real(0.5) * (u.y * F.z + u.z * F.y);
  const ThirdOrder<Real> a = recursive_third_order(u, sxx, syy, szz, sxy, sxz, syz);
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
    const Real odd = wq * (Real(3) * rho * cu + Real(1.5) * cF + third_order_term(q, a));
    h[q] = even + odd;
    h[o] = even - odd;
  }
  return {drho, u};
}

}  // namespace hemo::phys
