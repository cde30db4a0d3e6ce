#pragma once
// The Gay-Berne pair potential between two identical uniaxial ellipsoids, the red
// blood cell - red blood cell repulsion of the MUPHY paper (seeds/004, eqs. 2.6-2.7):
//
//   U = 4 eps(q) [ (s0 / h)^12 - (s0 / h)^6 + 1/4 ],   h = R - sigma(q) + s0,
//
// nonzero only for (s0 / h)^6 > 1/2 (h < 2^(1/6) s0), with q = (r^, u_i, u_j): R = |r|,
// r = x_j - x_i, r^ = r / R, and u_i, u_j the unit symmetry axes. The orientation
// functions are Gay & Berne's (J. Chem. Phys. 74 (1981) 3316, eqs. 6-10), after Berne
// & Pechukas (J. Chem. Phys. 56 (1972) 4213), with a = r^.u_i, b = r^.u_j, c = u_i.u_j:
//
//   sigma = s0 S^(-1/2),  S = 1 - chi/2 [ (a+b)^2 / (1 + chi c) + (a-b)^2 / (1 - chi c) ]
//   eps   = eps0 e1^nu e2^mu,  e1 = (1 - chi^2 c^2)^(-1/2),
//           e2 = 1 - chi'/2 [ (a+b)^2 / (1 + chi' c) + (a-b)^2 / (1 - chi' c) ]
//   chi  = (kappa^2 - 1) / (kappa^2 + 1),   kappa  = sigma_e / sigma_s,
//   chi' = (kappa'^(1/mu) - 1) / (kappa'^(1/mu) + 1),  kappa' = eps_s / eps_e.
//
// s0 = sigma_s is the contact distance with r^ across both axes (rim to rim for an
// oblate cell: its diameter), sigma_e = kappa s0 the one along both axes (face to face:
// its thickness); kappa < 1 for oblate cells.
//
// The cut-off and the + 1/4 (docs/rbc.md, "Reading eqs. 2.6-2.7", 2026-11-23): the
// paper's text reads the cut-off as (s0/h)^6 > 2, where U = 8 eps would jump to 0; the
// potential is "purely repulsive", so we read it as Weeks-Chandler-Andersen's cut at the
// minimum, (s0/h)^6 > 1/2, and shift by + eps(q) so that the energy, the force and the
// torque all vanish continuously there (energy is then conserved by a symplectic
// integrator; without the shift the torque would jump by 4 d eps / du at the cut).
//
// Forces and torques are the exact derivatives of U: F_j = -dU/dr = -F_i, and
// T_i = -u_i x dU/du_i (the torque of a uniaxial body, Allen & Germano, Mol. Phys. 104
// (2006) 3225, eq. 5). They satisfy T_i + T_j + r x F_j = 0 (U is invariant under
// rotations). Precondition: h > 0 (cells overlapping that deeply are the integrator's
// failure, not this function's).
#include <cmath>

#include "physics/hd.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

template <class Real>
struct GayBerne {
  Real sigma0 = 1;    // sigma_s: contact distance across both axes
  Real chi = 0;       // shape anisotropy, from kappa = sigma_e / sigma_s
  Real chi_eps = 0;   // energy anisotropy chi', from kappa' = eps_s / eps_e
  Real epsilon0 = 1;  // energy scale
  Real mu = 2, nu = 1;

  /// From the contact distances across (sigma_s) and along (sigma_e) the axes and the
  /// well depths side by side over end to end (eps_s / eps_e), Gay & Berne's exponents.
  static GayBerne from_shape(Real sigma_s, Real sigma_e, Real epsilon0, Real eps_s_over_eps_e = 1, Real mu = 2,
                             Real nu = 1) {
    const Real k2 = (sigma_e / sigma_s) * (sigma_e / sigma_s);
    const Real kp = std::pow(eps_s_over_eps_e, Real(1) / mu);
    return {sigma_s, (k2 - 1) / (k2 + 1), (kp - 1) / (kp + 1), epsilon0, mu, nu};
  }
  /// Largest centre distance at which two cells interact (h = 2^(1/6) s0 at sigma's
  /// largest value, sigma_s or sigma_e): the neighbour search radius.
  HEMO_HD Real cutoff_distance() const {
    const Real largest = chi < 0 ? sigma0 : sigma0 * std::sqrt((1 + chi) / (1 - chi));
    return largest + (Real(1.122462048309373) - 1) * sigma0;
  }
};

template <class Real>
struct PairInteraction {
  Real energy = 0;
  Vec3<Real> force_on_j{};            // on cell j; cell i gets the opposite
  Vec3<Real> torque_i{}, torque_j{};
};

namespace detail {
/// f = 1 - k/2 [ (a+b)^2 / (1 + k c) + (a-b)^2 / (1 - k c) ] and its partial derivatives.
template <class Real>
struct Anisotropy {
  Real f, da, db, dc;
};
template <class Real>
HEMO_HD Anisotropy<Real> anisotropy(Real k, Real a, Real b, Real c) {
  const Real p = a + b, m = a - b, dp = 1 + k * c, dm = 1 - k * c;
  const Real f = 1 - Real(0.5) * k * (p * p / dp + m * m / dm);
  const Real da = -k * (p / dp + m / dm);
  const Real db = -k * (p / dp - m / dm);
  const Real dc = -Real(0.5) * k * (-k * p * p / (dp * dp) + k * m * m / (dm * dm));
  return {f, da, db, dc};
}
}  // namespace detail

/// The contact distance sigma(q) for cells i and j with unit axes u_i, u_j along the unit
/// direction rh from i to j: the cells' contact ellipsoids overlap where R < sigma.
template <class Real>
HEMO_HD Real gay_berne_contact(const GayBerne<Real>& gb, const Vec3<Real>& rh, const Vec3<Real>& u_i,
                               const Vec3<Real>& u_j) {
  const auto S = detail::anisotropy(gb.chi, dot(rh, u_i), dot(rh, u_j), dot(u_i, u_j));
  return gb.sigma0 / std::sqrt(S.f);
}

/// U, F_j and the torques for cells i and j with unit axes u_i, u_j at separation
/// r = x_j - x_i (any units, consistent with the parameters). Zero beyond the cut-off.
template <class Real>
HEMO_HD PairInteraction<Real> gay_berne(const GayBerne<Real>& gb, const Vec3<Real>& r, const Vec3<Real>& u_i,
                                        const Vec3<Real>& u_j) {
  PairInteraction<Real> out;
  const Real R = std::sqrt(dot(r, r));
  const Vec3<Real> rh = (Real(1) / R) * r;
  const Real a = dot(rh, u_i), b = dot(rh, u_j), c = dot(u_i, u_j);

  const auto S = detail::anisotropy(gb.chi, a, b, c);
  const Real sigma = gb.sigma0 / std::sqrt(S.f);
  const Real h = R - sigma + gb.sigma0;
  const Real x = gb.sigma0 / h, x6 = x * x * x * x * x * x;
  if (!(x6 > Real(0.5))) return out;  // beyond the cut-off
  const Real phi = x6 * x6 - x6 + Real(0.25);
  const Real dphi_dh = (-12 * x6 * x6 + 6 * x6) / h;

  // eps and d ln(eps) / d(a, b, c).
  const Real e1sq = 1 - gb.chi * gb.chi * c * c;  // e1 = e1sq^(-1/2)
  const auto E2 = detail::anisotropy(gb.chi_eps, a, b, c);
  // Gay & Berne's exponents (nu = 1, mu = 2) by sqrt and products, which round alike on
  // the host and the GPU (pow does not), so CPU and CUDA trajectories can agree bitwise.
  const Real e1_nu = gb.nu == 1 ? Real(1) / std::sqrt(e1sq) : std::pow(e1sq, -Real(0.5) * gb.nu);
  const Real e2_mu = gb.mu == 2 ? E2.f * E2.f : std::pow(E2.f, gb.mu);
  const Real eps = gb.epsilon0 * e1_nu * e2_mu;
  const Real dln_da = gb.mu * E2.da / E2.f, dln_db = gb.mu * E2.db / E2.f;
  const Real dln_dc = gb.nu * gb.chi * gb.chi * c / e1sq + gb.mu * E2.dc / E2.f;

  // dsigma/dx = -s0/2 S^(-3/2) dS/dx; dU/dx = 4 [deps/dx phi - eps phi'(h) dsigma/dx].
  const Real ds = -Real(0.5) * sigma / S.f;  // times dS/dx
  const Real U_R = 4 * eps * dphi_dh;
  const Real U_a = 4 * eps * (dln_da * phi - dphi_dh * ds * S.da);
  const Real U_b = 4 * eps * (dln_db * phi - dphi_dh * ds * S.db);
  const Real U_c = 4 * eps * (dln_dc * phi - dphi_dh * ds * S.dc);

  out.energy = 4 * eps * phi;
  // dU/dr = U_R r^ + U_a (u_i - a r^) / R + U_b (u_j - b r^) / R.
  const Vec3<Real> dU_dr = (U_R - (U_a * a + U_b * b) / R) * rh + (U_a / R) * u_i + (U_b / R) * u_j;
  out.force_on_j = -dU_dr;
  out.torque_i = -cross(u_i, U_a * rh + U_c * u_j);
  out.torque_j = -cross(u_j, U_b * rh + U_c * u_i);
  return out;
}

}  // namespace hemo::phys
