#pragma once
// Two-relaxation-time (TRT) collision on one node, in shifted populations
// (equilibrium.hpp). I. Ginzburg, F. Verhaeghe and D. d'Humieres, Commun. Comput. Phys.
// 3, 427 (2008); T. Krueger et al., The Lattice Boltzmann Method (Springer 2017), ch. 10.
//
// Each pair (q, opp(q)) splits into its even and odd parts, h+_q = (h_q + h_opp)/2 and
// h-_q = (h_q - h_opp)/2, which relax at their own rates:
//   h*_q = h_q - omega+ (h+_q - eq+_q) - omega- (h-_q - eq-_q) + S+_q + S-_q,
//   eq+_q = w_q (rho - 1) + w_q rho (9/2 (c.u)^2 - 3/2 u.u),   eq-_q = 3 w_q rho c.u.
// omega+ = 1/tau sets the viscosity, nu = c_s^2 (tau - 1/2), as for BGK. omega- follows
// from the "magic" parameter
//   Lambda = (1/omega+ - 1/2)(1/omega- - 1/2),
// which fixes the steady solutions' dependence on the viscosity. Lambda = 3/16 puts a
// halfway bounce-back wall exactly halfway for Poiseuille flow in a lattice-aligned
// channel, whatever tau (Ginzburg et al. 2008); Lambda = 1/4 is the most stable choice in
// the linear analysis of D. d'Humieres and I. Ginzburg, Comput. Math. Appl. 58, 823
// (2009). BGK is the special case omega- = omega+.
//
// Guo's source (guo_forcing.hpp) splits the same way: its odd part 3 w_q c.F is scaled by
// (1 - omega-/2), its even part w_q (9 (c.u)(c.F) - 3 u.F) by (1 - omega+/2). That is
// Guo's forcing for several relaxation rates, S = M^-1 (I - Lambda_M/2) M F (Z. Guo and
// C. Zheng, Int. J. Comput. Fluid Dyn. 22, 465 (2008)), with the two rates of TRT; it
// reduces to guo_source() when omega- = omega+.
#include "physics/bgk.hpp"

namespace hemo::phys {

/// omega- of a TRT collision from omega+ = 1/tau and the magic parameter Lambda.
HEMO_HD constexpr double trt_omega_minus(double tau, double magic) { return 1.0 / (0.5 + magic / (tau - 0.5)); }

/// Relaxes h in place (TRT with Guo forcing) and returns the moments it used.
template <class Real>
HEMO_HD NodeState<Real> collide_trt(Real (&h)[d3q19::Q], Real omega_plus, Real omega_minus, const Vec3<Real>& F) {
  const NodeState<Real> s = macroscopic(h, F);
  const Real rho = Real(1) + s.drho;
  const Real uu = dot(s.u, s.u);
  const Real uF = dot(s.u, F);
  const Real keep_plus = Real(1) - Real(0.5) * omega_plus, keep_minus = Real(1) - Real(0.5) * omega_minus;
  {  // the rest population is even
    const Real w0 = d3q19::w<Real>(0);
    const Real eq = w0 * s.drho - w0 * rho * Real(1.5) * uu;
    h[0] = h[0] - omega_plus * (h[0] - eq) + keep_plus * w0 * (Real(-3) * uF);
  }
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; q += 2) {
    const int o = d3q19::opposite(q);  // q + 1
    const Real wq = d3q19::w<Real>(q);
    const Real cx = Real(d3q19::cx(q)), cy = Real(d3q19::cy(q)), cz = Real(d3q19::cz(q));
    const Real cu = cx * s.u.x + cy * s.u.y + cz * s.u.z;
    const Real cF = cx * F.x + cy * F.y + cz * F.z;
    const Real eq_even = wq * s.drho + wq * rho * (Real(4.5) * cu * cu - Real(1.5) * uu);
    const Real eq_odd = wq * rho * Real(3) * cu;
    const Real even = Real(0.5) * (h[q] + h[o]), odd = Real(0.5) * (h[q] - h[o]);
    const Real d_even = omega_plus * (even - eq_even) - keep_plus * wq * (Real(9) * cu * cF - Real(3) * uF);
    const Real d_odd = omega_minus * (odd - eq_odd) - keep_minus * wq * Real(3) * cF;
    h[q] = h[q] - d_even - d_odd;
    h[o] = h[o] - d_even + d_odd;
  }
  return s;
}

}  // namespace hemo::phys
