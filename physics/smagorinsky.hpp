#pragma once
// Smagorinsky subgrid (large-eddy) viscosity for a lattice Boltzmann collision, in lattice
// units (dx = dt = 1, c_s^2 = 1/3, so the filter width is one spacing).
//
// J. Smagorinsky, Mon. Weather Rev. 91, 99 (1963): the scales below the grid drain energy
// from the resolved flow like an extra viscosity set by the resolved strain rate,
//   nu_t = (C dx)^2 |S|,   |S| = sqrt(2 S_ab S_ab),   S_ab = (d_a u_b + d_b u_a)/2,
// with C the Smagorinsky constant (0.1-0.2). In lattice Boltzmann the strain rate is known
// at each node without differences between nodes: the Chapman-Enskog expansion relates it
// to the non-equilibrium second moment of the populations the node relaxes at tau
// (T. Krueger et al., The Lattice Boltzmann Method, Springer 2017, ch. 4),
//   Pi1_ab = sum_q c_qa c_qb (f_q - f_q^eq) = -2 rho c_s^2 tau S_ab,
// so that, with Q = Pi1_ab Pi1_ab (all nine components: the off-diagonal ones twice),
//   |S| = sqrt(2 Q) / (2 rho c_s^2 tau).
// S. Hou, J. Sterling, S. Chen and G. D. Doolen, "A lattice Boltzmann subgrid model for
// high Reynolds number flows", Fields Inst. Commun. 6, 151 (1996): the node relaxes at
// tau_eff = tau0 + nu_t / c_s^2 (nu = c_s^2 (tau - 1/2), tau0 the molecular viscosity's),
// and the strain rate in |S| is the one relaxed at that same tau_eff. Then
//   tau_eff = tau0 + (C^2 / c_s^2) sqrt(2 Q) / (2 rho c_s^2 tau_eff)
//           = tau0 + (9 sqrt(2) / 2) C^2 sqrt(Q) / (rho tau_eff),
// a quadratic tau_eff^2 - tau0 tau_eff - (9 sqrt(2) / 2) C^2 sqrt(Q) / rho = 0 whose
// positive root is
//   tau_eff = ( tau0 + sqrt( tau0^2 + 18 sqrt(2) C^2 sqrt(Q) / rho ) ) / 2.
// tau_eff >= tau0, with equality where the flow has no strain (Q = 0) or C = 0, and it
// grows with |Pi1|: the eddy viscosity acts where the resolved shear is strong, which is
// where a run at tau close to 1/2 loses stability.
#include <cmath>

#include "physics/hd.hpp"

namespace hemo::phys {

/// The constant 18 sqrt(2) C^2 of smagorinsky_tau, from the Smagorinsky constant C
/// (computed once per run, in double, then handed to the kernels in their precision).
inline double smagorinsky_coefficient(double C) { return 18.0 * std::sqrt(2.0) * C * C; }

/// Q = P_ab P_ab of a symmetric tensor given by its six components (xx, yy, zz, xy, xz, yz):
/// the off-diagonal components count twice.
template <class Real>
HEMO_HD Real double_contraction(Real xx, Real yy, Real zz, Real xy, Real xz, Real yz) {
  return xx * xx + yy * yy + zz * zz + Real(2) * (xy * xy + xz * xz + yz * yz);
}

/// The relaxation time tau_eff = tau0 + nu_t / c_s^2 of a node with the Smagorinsky eddy
/// viscosity (the header's last equation), from the molecular tau0, coefficient =
/// 18 sqrt(2) C^2 (smagorinsky_coefficient), Q = Pi1 : Pi1 (double_contraction) and the
/// node's density rho. coefficient = 0 returns tau0 itself, bit for bit: the model off
/// changes nothing.
template <class Real>
HEMO_HD Real smagorinsky_tau(Real tau0, Real coefficient, Real Q, Real rho) {
  if (coefficient == Real(0)) return tau0;
  return Real(0.5) * (tau0 + std::sqrt(tau0 * tau0 + coefficient * std::sqrt(Q) / rho));
}

}  // namespace hemo::phys
