#pragma once
// How much of a bounce-back lb_vlbm mixes into a pull from a more solid cell x into a less
// solid cell y (plugins/lb_vlbm/kernels.hpp: f_q(y) = (1 - m) f*_q(x) + m f*_opp(y)).
//
// The VLBM paper's generalized streaming (seeds/000, eqs. 5-6) takes
//   m = phi = (P_x - P_y) / (1 - P_y),
// the share of x's particles that y's larger fluid volume cannot take; it conserves the
// particle number sum (1 - P) sum_q f exactly. But the momentum such a link removes does
// not scale with the viscosity, so as tau -> 1/2 the partial cells stop the flow and the
// wall moves inward, to the fluid side of the partial layer. Measured: in plane Poiseuille
// flow (the steady Stokes limit of D3Q19 BGK solved exactly, tools/analysis/vlbm_wall.py)
// a wall cutting a cell at P = 0.25 sits 0.22 dx inside its true place at tau = 1 and
// 0.76 dx at tau = 0.5036.
//
// The partially saturated cells of D. R. Noble and J. R. Torczynski (Int. J. Mod. Phys. C
// 9, 1189 (1998)) weight their bounce-back by the solid fraction eps and tau,
//   B(eps, tau) = eps (tau - 1/2) / ((1 - eps) + (tau - 1/2)),
// which keeps a partial cell's drag in proportion to the viscous stress. Applied to phi,
// m = B(phi, tau) puts the same plane wall within 0.03 dx of its true place for every P
// and every tau from 1 down to 0.5036 (BGK and regularized; TRT with Lambda = 3/16:
// independent of tau). B(1, tau) = 1: a pull from a solid cell stays halfway bounce-back.
// With m < phi alone the particle number would not be conserved: a link pair would gain
// (1 - P_y)(phi - m)(f*_q(x) - f*_opp(y)) a step (4% of the inflow left unaccounted in the
// reduced carotid of validate.py, real_geometry); y's rest population gives that back
// (plugins/lb_vlbm/kernels.hpp), which conserves it exactly and moves no momentum.
#include "physics/hd.hpp"

namespace hemo::phys {

/// The VLBM paper's share (seeds/000, eqs. 5-6): phi = (P_x - P_y) / (1 - P_y) for a pull
/// from x (solid fraction P_x) into y (P_y < P_x).
template <class Real>
HEMO_HD Real volumetric_mix(Real p_from, Real p_to) {
  return (p_from - p_to) / (Real(1) - p_to);
}

/// Noble and Torczynski's weight B(phi, tau) = phi (tau - 1/2) / ((1 - phi) + (tau - 1/2)).
template <class Real>
HEMO_HD Real viscosity_weighted_mix(Real phi, Real tau) {
  const Real t = tau - Real(0.5);
  return phi * t / ((Real(1) - phi) + t);
}

}  // namespace hemo::phys
