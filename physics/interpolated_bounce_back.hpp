#pragma once
// Interpolated bounce-back for a wall that cuts a link anywhere along it: the linear rule
// of M. Bouzidi, M. Firdaouss and P. Lallemand, Phys. Fluids 13, 3452 (2001), eqs. (5)
// and (6), written for the pull scheme.
//
// Node x pulls direction q from x - c_q, which is solid; the wall crosses that link at
// x - delta c_q, 0 <= delta <= 1 (delta = 1/2: halfway bounce-back, bounce_back.hpp).
// With f* the post-collision populations of the last step:
//   delta <  1/2:  f_q(x) = 2 delta f*_opp(q)(x) + (1 - 2 delta) f*_opp(q)(x + c_q)
//   delta >= 1/2:  f_q(x) = 1/(2 delta) f*_opp(q)(x) + (1 - 1/(2 delta)) f*_q(x)
// Both are halfway bounce-back plus kappa (partner - reflected), reflected = f*_opp(q)(x):
//   delta <  1/2:  kappa = 1 - 2 delta,         partner = f*_opp(q)(x + c_q)
//   delta >= 1/2:  kappa = 1 - 1/(2 delta),     partner = f*_q(x)
// so it is a coded link whose value kappa (partner - reflected) the fused kernel adds to
// the bounce-back it reads anyway (link_codes.hpp).
//
// Why the linear rule: its weights are a convex combination for every delta in [0, 1]
// (kappa in [0, 1) below 1/2, in [-1, 0] above), so the arriving population lies between
// the populations it interpolates and a small delta cannot amplify anything; the
// quadratic rule and the rule of Yu et al. (2003) have weights outside [0, 1] for some
// delta. It is second order in space for a curved wall (Bouzidi et al., sec. III).
// The weights sum to one, so the rule is the same in shifted populations (h = f - w)
// because w_q = w_opp(q). It does not conserve mass exactly (neither rule does).
#include "physics/hd.hpp"

namespace hemo::phys {

/// Whether the rule for delta needs the second fluid node x + c_q (delta < 1/2).
HEMO_HD constexpr bool interpolation_needs_second_node(double delta) { return delta < 0.5; }

/// kappa of the rule for a wall at fraction delta of the link (0 at delta = 1/2).
HEMO_HD constexpr double interpolated_wall_kappa(double delta) {
  return delta < 0.5 ? 1.0 - 2.0 * delta : 1.0 - 1.0 / (2.0 * delta);
}

/// The value a coded link adds to the halfway bounce-back: kappa (partner - reflected).
template <class Real>
HEMO_HD Real interpolated_wall_term(Real kappa, Real reflected, Real partner) {
  return kappa * (partner - reflected);
}

}  // namespace hemo::phys
