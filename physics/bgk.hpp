#pragma once
// BGK (single relaxation time) collision on one node, in shifted populations
// (see equilibrium.hpp). HemeLB paper (seeds/001) eq. 3a:
//   f_q* = f_q - omega (f_q - f_q^eq(rho, u)) + S_q,   omega = 1 / tau,
// kinematic viscosity nu = c_s^2 (tau - 1/2) in lattice units (eq. 8), so tau > 1/2.
#include "physics/equilibrium.hpp"
#include "physics/guo_forcing.hpp"

namespace hemo::phys {

template <class Real>
struct NodeState {
  Real drho;     // rho - 1
  Vec3<Real> u;  // velocity including the half-force shift (Guo)
};

/// Density and (Guo-corrected) velocity of a node from its incoming populations.
template <class Real>
HEMO_HD NodeState<Real> macroscopic(const Real (&h)[d3q19::Q], const Vec3<Real>& F) {
  const Moments<Real> m = moments(h);
  const Real inv_rho = Real(1) / (Real(1) + m.drho);
  return {m.drho,
          {(m.j.x + Real(0.5) * F.x) * inv_rho, (m.j.y + Real(0.5) * F.y) * inv_rho,
           (m.j.z + Real(0.5) * F.z) * inv_rho}};
}

/// Relaxes h in place towards equilibrium and adds the Guo source; returns the moments
/// it used. The force F may be zero (then this is plain BGK, to rounding).
template <class Real>
HEMO_HD NodeState<Real> collide_bgk(Real (&h)[d3q19::Q], Real omega, const Vec3<Real>& F) {
  const NodeState<Real> s = macroscopic(h, F);
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) {
    h[q] = h[q] - omega * (h[q] - equilibrium_shifted(q, s.drho, s.u)) + guo_source(q, omega, s.u, F);
  }
  return s;
}

/// Relaxation rate from the lattice kinematic viscosity: omega = 1 / (3 nu + 1/2).
HEMO_HD constexpr double omega_from_viscosity(double nu_lattice) { return 1.0 / (3.0 * nu_lattice + 0.5); }

}  // namespace hemo::phys
