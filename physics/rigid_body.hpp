#pragma once
// Rigid oblate cells: unit quaternions, the inertia of a uniaxial ellipsoid, and the
// time step of the red blood cells (MUPHY paper, seeds/004, sec. 2: "a second-order
// accurate time-stepping algorithm ... modified to handle fluid-particle forces and
// torques", with the LB's time step).
//
// The scheme is the leapfrog splitting of Dullweber, Leimkuhler & McLachlan (J. Chem.
// Phys. 107 (1997) 5840): a kick of the momenta by the forces and torques, then a drift
// along the free motion, which for a symmetric top is exact (below). Positions and
// orientations live at whole steps, the linear momentum m V and the lab-frame angular
// momentum L at half steps; without drag it is symplectic, time-reversible, second
// order, and conserves total linear and angular momentum to rounding (kick: the pair
// forces and torques sum to zero; drift: X x V and L do not change).
//
// Drag (eqs. 2.4-2.5): F = -gamma_T (V - u~), T = -gamma_R (Omega - Omega~), taken in the
// kick by the trapezoidal rule, V = (V- + V+)/2 and Omega = I^-1 (L- + L+)/2, which keeps
// second order and is A-stable: a cell lighter than gamma_T dt (a time constant m /
// gamma_T below one step) relaxes without the explicit Euler blow-up. The kick returns
// the drag it applied, so the fluid receives exactly its opposite (momentum of fluid +
// cells conserved to rounding).
//
// Free motion of a symmetric top (moments A, A, C about the body axes, symmetry axis n):
// L is constant, Omega = L / A + beta n with beta = (1/C - 1/A) (L . n), and L . n is
// constant (dn/dt = Omega x n = (L/A) x n is normal to L). The rotation after time t is
// therefore R(t) = Rot_L(t |L| / A) R(0) Rot_e3(beta t): a turn about the fixed L
// followed, in the body frame, by a spin about the symmetry axis (Landau & Lifshitz,
// Mechanics, sec. 33). The drift uses it exactly, so it preserves |L|, L . n and the
// kinetic energy to rounding.
#include <cmath>

#include "physics/hd.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

/// A unit quaternion (w; x, y, z) that turns body-frame vectors into lab-frame ones.
template <class Real>
struct Quaternion {
  Real w = 1, x = 0, y = 0, z = 0;
};

template <class Real>
HEMO_HD Quaternion<Real> operator*(const Quaternion<Real>& a, const Quaternion<Real>& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

template <class Real>
HEMO_HD Quaternion<Real> normalized(const Quaternion<Real>& q) {
  const Real s = Real(1) / std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w * s, q.x * s, q.y * s, q.z * s};
}

/// The body vector v in the lab frame: q v q*.
template <class Real>
HEMO_HD Vec3<Real> rotate(const Quaternion<Real>& q, const Vec3<Real>& v) {
  const Vec3<Real> u{q.x, q.y, q.z};
  const Vec3<Real> t = Real(2) * cross(u, v);
  return v + q.w * t + cross(u, t);
}

/// The lab vector v in the body frame: q* v q.
template <class Real>
HEMO_HD Vec3<Real> rotate_inverse(const Quaternion<Real>& q, const Vec3<Real>& v) {
  return rotate(Quaternion<Real>{q.w, -q.x, -q.y, -q.z}, v);
}

/// The symmetry axis (body e3) in the lab frame.
template <class Real>
HEMO_HD Vec3<Real> symmetry_axis(const Quaternion<Real>& q) {
  return {2 * (q.x * q.z + q.w * q.y), 2 * (q.y * q.z - q.w * q.x), 1 - 2 * (q.x * q.x + q.y * q.y)};
}

/// The rotation by the angle |theta| about theta / |theta|: (cos |theta|/2; sin |theta|/2
/// theta / |theta|). Below 0.1 rad (a cell's turn in one step is far smaller) by Taylor
/// series to t^8, whose next terms are below 1e-19: only sums and products, which round
/// alike on the host and the GPU (cos and sin do not).
template <class Real>
HEMO_HD Quaternion<Real> rotation(const Vec3<Real>& theta) {
  const Real t2 = dot(theta, theta);
  Real c, s_over_t;  // cos(t/2), sin(t/2) / t
  if (t2 < Real(1e-2)) {
    c = 1 + t2 * (Real(-1) / 8 + t2 * (Real(1) / 384 + t2 * (Real(-1) / 46080 + t2 * (Real(1) / 10321920))));
    s_over_t = Real(0.5) + t2 * (Real(-1) / 48 + t2 * (Real(1) / 3840 + t2 * (Real(-1) / 645120 + t2 * (Real(1) / 185794560))));
  } else {
    const Real t = std::sqrt(t2);
    c = std::cos(t / 2);
    s_over_t = std::sin(t / 2) / t;
  }
  return {c, s_over_t * theta.x, s_over_t * theta.y, s_over_t * theta.z};
}

/// Mass and principal moments of a uniaxial ellipsoid of semi-axes (a, a, c) and
/// density rho: m = 4/3 pi a^2 c rho, A = m (a^2 + c^2) / 5 about the axes across the
/// symmetry axis, C = 2 m a^2 / 5 about it.
template <class Real>
struct RigidShape {
  Real mass = 1, inertia_across = 1, inertia_along = 1;  // m, A, C

  static RigidShape ellipsoid(Real a, Real c, Real density) {
    const Real m = Real(4.0 / 3.0 * M_PI) * a * a * c * density;
    return {m, m * (a * a + c * c) / 5, 2 * m * a * a / 5};
  }
};

/// Lab-frame angular velocity of a body with angular momentum L and symmetry axis n:
/// Omega = I^-1 L = L / A + (1/C - 1/A) (L . n) n.
template <class Real>
HEMO_HD Vec3<Real> angular_velocity(const RigidShape<Real>& s, const Vec3<Real>& L, const Vec3<Real>& n) {
  return (Real(1) / s.inertia_across) * L + ((1 / s.inertia_along - 1 / s.inertia_across) * dot(L, n)) * n;
}

/// Lab-frame angular momentum L = I Omega = A Omega + (C - A) (Omega . n) n.
template <class Real>
HEMO_HD Vec3<Real> angular_momentum(const RigidShape<Real>& s, const Vec3<Real>& omega, const Vec3<Real>& n) {
  return s.inertia_across * omega + ((s.inertia_along - s.inertia_across) * dot(omega, n)) * n;
}

/// What the fluid sees at a cell: its smeared velocity u~ and half its vorticity Omega~,
/// with the drag coefficients (eqs. 2.4-2.5).
template <class Real>
struct Drag {
  Vec3<Real> fluid_velocity{}, fluid_rotation{};
  Real gamma_t = 0, gamma_r = 0;
};

/// The drag a kick applied, which the fluid receives with the opposite sign.
template <class Real>
struct DragApplied {
  Vec3<Real> force{}, torque{};
};

/// The kick over dt: V and L from the half step before to the half step after, by the
/// conservative force F and torque T at the current configuration and the drag
/// (trapezoidal). n is the symmetry axis now. Returns the drag force and torque applied.
template <class Real>
HEMO_HD DragApplied<Real> kick(const RigidShape<Real>& s, const Vec3<Real>& n, const Vec3<Real>& F,
                               const Vec3<Real>& T, const Drag<Real>& drag, Real dt, Vec3<Real>& V, Vec3<Real>& L) {
  DragApplied<Real> out;
  // m (V+ - V-) = dt [F - gamma_T ((V- + V+)/2 - u~)].
  const Real g = drag.gamma_t * dt / (2 * s.mass);
  const Vec3<Real> V_old = V;
  V = (Real(1) / (1 + g)) * ((1 - g) * V_old + (dt / s.mass) * (F + drag.gamma_t * drag.fluid_velocity));
  out.force = -drag.gamma_t * (Real(0.5) * (V_old + V) - drag.fluid_velocity);
  // L+ - L- = dt [T - gamma_R (I^-1 (L- + L+)/2 - Omega~)], I^-1 diagonal in the pair
  // (along n, across n): solved in those two components.
  const Real h = drag.gamma_r * dt / 2;
  const Vec3<Real> rhs_free = dt * (T + drag.gamma_r * drag.fluid_rotation);
  const Vec3<Real> L_old = L;
  const Real along_old = dot(L_old, n), along_rhs = dot(rhs_free, n);
  const Vec3<Real> across_old = L_old - along_old * n, across_rhs = rhs_free - along_rhs * n;
  const Real kc = h / s.inertia_along, ka = h / s.inertia_across;
  const Real along = ((1 - kc) * along_old + along_rhs) / (1 + kc);
  const Vec3<Real> across = (Real(1) / (1 + ka)) * ((1 - ka) * across_old + across_rhs);
  L = across + along * n;
  out.torque = -drag.gamma_r * (angular_velocity(s, Real(0.5) * (L_old + L), n) - drag.fluid_rotation);
  return out;
}

/// The drift over dt along the exact free motion of a symmetric top: X += dt V, and
/// q -> Rot_L(dt |L| / A) q Rot_e3(dt beta).
template <class Real>
HEMO_HD void drift(const RigidShape<Real>& s, const Vec3<Real>& V, const Vec3<Real>& L, Real dt, Vec3<Real>& X,
                   Quaternion<Real>& q) {
  X = X + dt * V;
  const Vec3<Real> n = symmetry_axis(q);
  const Real beta = (1 / s.inertia_along - 1 / s.inertia_across) * dot(L, n);
  const Quaternion<Real> turn = rotation((dt / s.inertia_across) * L);
  const Quaternion<Real> spin = rotation(Vec3<Real>{0, 0, dt * beta});
  q = normalized(turn * q * spin);
}

}  // namespace hemo::phys
