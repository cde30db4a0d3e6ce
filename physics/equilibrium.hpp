#pragma once
// Second-order BGK equilibrium and the hydrodynamic moments, in *shifted* populations.
//
// hemoflow stores h_q = f_q - w_q (the deviation from the rest state rho = 1, u = 0)
// rather than f_q. The physics is unchanged (sum_q w_q = 1, sum_q w_q c_q = 0), but the
// stored numbers are small, so FP32 keeps about two more significant digits of the
// density and velocity (Skordos 1993; the same trick FluidX3D uses).
//
// Equilibrium, HemeLB paper (seeds/001) eq. 4 with c_s^2 = 1/3:
//   f_q^eq = w_q rho (1 + 3 c.u + 9/2 (c.u)^2 - 3/2 u.u)
//   h_q^eq = f_q^eq - w_q = w_q (rho - 1) + w_q rho (3 c.u + 9/2 (c.u)^2 - 3/2 u.u)
#include "physics/d3q19.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

/// Zeroth and first moments of shifted populations: density excess (rho - 1) and
/// momentum j = sum_q c_q h_q (HemeLB eqs. 5-6; the shift adds nothing to j).
template <class Real>
struct Moments {
  Real drho;  // rho - 1
  Vec3<Real> j;
};

template <class Real>
HEMO_HD Moments<Real> moments(const Real (&h)[d3q19::Q]) {
  Moments<Real> m{Real(0), {Real(0), Real(0), Real(0)}};
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) {
    m.drho += h[q];
    // Zero components left out (a constant branch once unrolled): a sum that starts at +0
    // is never -0, so adding 0 * h_q = +-0 never changes it; the sums are bit for bit the
    // full ones.
    if (d3q19::cx(q) != 0) m.j.x += Real(d3q19::cx(q)) * h[q];
    if (d3q19::cy(q) != 0) m.j.y += Real(d3q19::cy(q)) * h[q];
    if (d3q19::cz(q) != 0) m.j.z += Real(d3q19::cz(q)) * h[q];
  }
  return m;
}

/// Moments up to the second: rho - 1, j and Pi = sum_q c_q c_q h_q (the shift adds
/// (1/3) I to Pi, which the stress and the regularization subtract with the equilibrium).
/// Ten sums in one pass: what the regularized collision and the wall shear stress need.
template <class Real>
struct SecondMoments {
  Real drho;
  Vec3<Real> j;
  Real xx, yy, zz, xy, xz, yz;  // Pi
};

template <class Real>
HEMO_HD SecondMoments<Real> second_moments(const Real (&h)[d3q19::Q]) {
  SecondMoments<Real> m{Real(0), {Real(0), Real(0), Real(0)}, Real(0), Real(0), Real(0), Real(0), Real(0), Real(0)};
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) {
    const Real cx = Real(d3q19::cx(q)), cy = Real(d3q19::cy(q)), cz = Real(d3q19::cz(q));
    m.drho += h[q];
    m.j.x += cx * h[q];
    m.j.y += cy * h[q];
    m.j.z += cz * h[q];
    m.xx += cx * cx * h[q];
    m.yy += cy * cy * h[q];
    m.zz += cz * cz * h[q];
    m.xy += cx * cy * h[q];
    m.xz += cx * cz * h[q];
    m.yz += cy * cz * h[q];
  }
  return m;
}

/// The moments of the pre-collision populations h with the force F that the regularized
/// collision (regularized.hpp), the Smagorinsky rate and the viscous stress
/// (wall_shear.hpp) work from: rho, Guo's half-force velocity u and the non-equilibrium
/// second moment Pi1 = sum_q c_q c_q (f_q - f_q^eq) = Pi - (rho - 1)/3 I - rho u u
/// (shifted populations: sum_q c_q c_q w_q = c_s^2 I).
template <class Real>
struct NonEquilibrium {
  Real drho, rho;
  Vec3<Real> u;
  Real xx, yy, zz, xy, xz, yz;  // Pi1
};

template <class Real>
HEMO_HD NonEquilibrium<Real> non_equilibrium(const Real (&h)[d3q19::Q], const Vec3<Real>& F) {
  const SecondMoments<Real> m = second_moments(h);
  const Real drho = m.drho, jx = m.j.x, jy = m.j.y, jz = m.j.z;
  const Real rho = Real(1) + drho;
  const Real inv_rho = Real(1) / rho;
  const Vec3<Real> u{(jx + Real(0.5) * F.x) * inv_rho, (jy + Real(0.5) * F.y) * inv_rho,
                     (jz + Real(0.5) * F.z) * inv_rho};
  // Pi1 = Pi - (rho - 1)/3 I - rho u u
  const Real third = drho / Real(3);
  return {drho,
          rho,
          u,
          m.xx - (third + rho * u.x * u.x),
          m.yy - (third + rho * u.y * u.y),
          m.zz - (third + rho * u.z * u.z),
          m.xy - rho * u.x * u.y,
          m.xz - rho * u.x * u.z,
          m.yz - rho * u.y * u.z};
}

/// Shifted equilibrium h_q^eq(rho, u) for one direction.
template <class Real>
HEMO_HD Real equilibrium_shifted(int q, Real drho, const Vec3<Real>& u) {
  const Real rho = Real(1) + drho;
  // c_dot may give -0 where the full sum gives +0; 3 cu + 4.5 cu cu is +0 for both.
  const Real cu = d3q19::c_dot(q, u.x, u.y, u.z);
  const Real uu = dot(u, u);
  const Real wq = d3q19::w<Real>(q);
  return wq * drho + wq * rho * (Real(3) * cu + Real(4.5) * cu * cu - Real(1.5) * uu);
}

/// Unshifted equilibrium f_q^eq, for tests and initialisation in absolute terms.
template <class Real>
HEMO_HD Real equilibrium(int q, Real rho, const Vec3<Real>& u) {
  return d3q19::w<Real>(q) + equilibrium_shifted(q, rho - Real(1), u);
}

}  // namespace hemo::phys
