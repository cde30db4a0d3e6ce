#pragma once
// Advection-diffusion lattice Boltzmann on D3Q7 (T. Krüger et al., "The Lattice Boltzmann
// Method", Springer 2017, ch. 8.3): a concentration C carried by a velocity u and
// diffusing with diffusivity D,
//     dC/dt + div(C u) = div(D grad C),
// from seven populations g_i with
//     C = sum_i g_i,
//     g_i^eq = w_i C (1 + c_i.u / c_s^2),   w_0 = 1/4, w_1..6 = 1/8, c_s^2 = 1/4,
//     g_i(x + c_i, t + 1) = g_i - (g_i - g_i^eq) / tau,
//     D = c_s^2 (tau - 1/2)                    (lattice units: D dt / dx^2).
// The equilibrium is linear in u, which leaves an error term in the diffusion: with a
// uniform u the variance along axis a grows as 2 (tau - 1/2)(c_s^2 - u_a^2) per step
// instead of 2 D (README.md derives it); it vanishes as u_a^2 in lattice units, i.e. as
// dx^2 at a fixed physical time when dt scales with dx^2.
// Device-safe: used by kernels.hpp on the host and on the GPU.
#include "physics/d3q19.hpp"
#include "physics/hd.hpp"
#include "physics/vec3.hpp"

namespace hemo::passive_scalar::d3q7 {

/// Rest, then +x, -x, +y, -y, +z, -z: D3Q19's directions 0..6, numbered alike, so the
/// mesh's neighbour codes and its halo's crossing directions serve D3Q7 unchanged.
inline constexpr int Q = 7;
inline constexpr double cs2 = 0.25;

HEMO_HD constexpr int c(int q, int axis) { return phys::d3q19::c(q, axis); }
HEMO_HD constexpr int opposite(int q) { return phys::d3q19::opposite(q); }

template <class Real>
HEMO_HD constexpr Real w(int q) {
  return q == 0 ? Real(0.25) : Real(0.125);
}

static_assert(c(1, 0) == 1 && c(2, 0) == -1 && c(3, 1) == 1 && c(4, 1) == -1 && c(5, 2) == 1 && c(6, 2) == -1,
              "D3Q7 directions 1..6 are D3Q19's axis directions 1..6");

/// g_i^eq = w_i C (1 + c_i.u / c_s^2) (Krüger et al. 2017, sec. 8.3, the linear equilibrium).
template <class Real>
HEMO_HD Real equilibrium(int q, Real C, const phys::Vec3<Real>& u) {
  const Real cu = Real(c(q, 0)) * u.x + Real(c(q, 1)) * u.y + Real(c(q, 2)) * u.z;
  return w<Real>(q) * C * (Real(1) + cu / Real(cs2));
}

/// C = sum_i g_i: the zeroth moment, which the collision conserves.
template <class Real>
HEMO_HD Real concentration(const Real (&g)[Q]) {
  Real C = g[0];
  HEMO_UNROLL
  for (int q = 1; q < Q; ++q) C += g[q];
  return C;
}

/// BGK relaxation towards g^eq(C, u), in place: g_i - (g_i - g_i^eq) omega, omega = 1 / tau.
template <class Real>
HEMO_HD void collide(Real (&g)[Q], Real C, const phys::Vec3<Real>& u, Real omega) {
  HEMO_UNROLL
  for (int q = 0; q < Q; ++q) g[q] -= omega * (g[q] - equilibrium(q, C, u));
}

/// tau of a lattice diffusivity D dt / dx^2: D = c_s^2 (tau - 1/2).
HEMO_HD constexpr double relaxation_time(double diffusivity_lattice) { return 0.5 + diffusivity_lattice / cs2; }

/// The largest lattice velocity component with non-negative equilibria,
/// 1 - |u_a| / c_s^2 >= 0: |u_a| <= c_s^2. A von Neumann analysis of the scheme finds it
/// stable up to this bound for every tau > 1/2, and beyond it only for larger tau
/// (README.md, "Limits").
inline constexpr double max_lattice_velocity = cs2;

}  // namespace hemo::passive_scalar::d3q7
