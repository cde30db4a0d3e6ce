#pragma once
// Zou-He (non-equilibrium bounce-back) pressure and velocity boundaries for D3Q19:
// Q. Zou and X. He, Phys. Fluids 9, 1591 (1997), in the D3Q19 form of M. Hecht and
// J. Harting, J. Stat. Mech. (2010) P01018, with the tangential velocity set to zero
// (an inlet or outlet whose flow is normal to the face).
//
// A boundary node has inward normal d = sign * e_axis. Its 19 populations split into
//   I: sign * c_q[axis] = +1  (5, unknown: they would stream in from outside the fluid),
//   O: sign * c_q[axis] = -1  (5, known: they left the fluid towards the boundary),
//   T: c_q[axis] = 0          (9, known, the rest population included).
// With rho u_d = sum_I f - sum_O f and rho = sum_T f + sum_O f + sum_I f:
//   rho (1 - u_d) = S,  S = sum_T f + 2 sum_O f
// which gives u_d from an imposed rho, or rho from an imposed u_d. The unknowns follow from
// bouncing back the non-equilibrium part, f_q - f_q^eq = f_opp - f_opp^eq, plus a
// transverse correction that makes the tangential momentum come out zero (Hecht & Harting's
// N terms, with their tangential velocity set to 0):
//   axis direction q = d:          f_q = f_opp + rho u_d / 3
//   diagonals q = d + t e_b:       f_q = f_opp + rho u_d / 6 - t N_b,  t = +-1, b tangential
//   N_b = (1/2) sum_{p in T} f_p c_p[b].
// Check: each diagonal pair (q, opp) carries t (f_q - f_opp) along b; summed over t = +-1
// that is -2 N_b, which cancels the T contribution 2 N_b; along d the I-O differences sum
// to rho u_d (1/3 + 4/6), and the -t N_b terms cancel in pairs. At equilibrium with u = u_d d,
// f_q^eq - f_opp^eq = 6 w_q rho u_d gives exactly 1/3 and 1/6 and N_b = 0, so an equilibrium
// node is reproduced exactly.
//
// Shifted populations (equilibrium.hpp stores h_q = f_q - w_q): every formula above works
// on h unchanged.
//  * f_q - f_opp = h_q - h_opp because w_q = w_opp(q) (D3Q19 is symmetric).
//  * sum_T w + 2 sum_O w = (1/3 + 4/18 + 4/36) + 2 (1/18 + 4/36) = 2/3 + 1/3 = 1, so
//    S = 1 + S_h with S_h = sum_T h + 2 sum_O h.
//  * sum_T w_p c_p[b] = 0 (T is symmetric under c_b -> -c_b), so N_b is the same in h.
// rho u_d = (rho_b - 1) - S_h is then formed from small numbers only, so FP32 keeps the
// digits that the shift was made to keep (rho_b - 1 is exact for rho_b in [0.5, 2]).
//
// Every loop runs over all 19 directions with a constant trip count so that, once
// unrolled, q is a compile-time constant and h stays in registers inside a CUDA kernel.
#include <cstdint>

#include "physics/d3q19.hpp"

namespace hemo::phys {

namespace detail {

/// S_h = sum_T h + 2 sum_O h and the transverse corrections N_b (N[axis] = 0).
template <class Real>
HEMO_HD Real zou_he_known_sums(const Real (&h)[d3q19::Q], int axis, int sign, Real (&N)[3]) {
  Real s_h = Real(0);
  N[0] = N[1] = N[2] = Real(0);
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) {
    const int cn = sign * d3q19::c(q, axis);
    if (cn == 0) {
      s_h += h[q];
      N[0] += Real(0.5) * Real(d3q19::cx(q)) * h[q];
      N[1] += Real(0.5) * Real(d3q19::cy(q)) * h[q];
      N[2] += Real(0.5) * Real(d3q19::cz(q)) * h[q];
    } else if (cn < 0) {
      s_h += Real(2) * h[q];
    }
  }
  return s_h;
}

/// Sets the five unknowns from their opposites, the normal momentum ju = rho u_d and N.
template <class Real>
HEMO_HD void zou_he_fill(Real (&h)[d3q19::Q], int axis, int sign, Real ju, const Real (&N)[3]) {
  const Real third = ju / Real(3), sixth = ju / Real(6);
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q) {
    if (sign * d3q19::c(q, axis) != 1) continue;
    const Real known = h[d3q19::opposite(q)];  // in O: never written here
    if (q <= 6) {
      h[q] = known + third;
    } else {
      // q = d + t e_b: c_q[b] = t, the other tangential component is 0 and N[axis] = 0,
      // so c_q . N = t N_b.
      const Real tN = Real(d3q19::cx(q)) * N[0] + Real(d3q19::cy(q)) * N[1] + Real(d3q19::cz(q)) * N[2];
      h[q] = known + sixth - tN;
    }
  }
}

}  // namespace detail

/// Pressure (density) boundary: imposes rho = rho_b with zero tangential velocity on a
/// node whose inward normal is sign * e_axis. Overwrites the five populations with
/// sign * c_q[axis] = +1 (their input values are ignored), leaves the other 14 untouched,
/// and returns the resulting normal velocity u_d = 1 - S / rho_b (positive = into the fluid).
template <class Real>
HEMO_HD Real zou_he_pressure(Real (&h)[d3q19::Q], int axis, int sign, Real rho_b) {
  Real N[3];
  const Real s_h = detail::zou_he_known_sums(h, axis, sign, N);
  const Real ju = (rho_b - Real(1)) - s_h;  // rho_b u_d = rho_b - S
  detail::zou_he_fill(h, axis, sign, ju, N);
  return ju / rho_b;
}

/// Velocity boundary: imposes u = u_d * (sign * e_axis) (tangential components zero) on the
/// same node. Overwrites the five unknown populations as above and returns the resulting
/// density rho = S / (1 - u_d).
template <class Real>
HEMO_HD Real zou_he_velocity(Real (&h)[d3q19::Q], int axis, int sign, Real u_d) {
  Real N[3];
  const Real s_h = detail::zou_he_known_sums(h, axis, sign, N);
  const Real rho = (Real(1) + s_h) / (Real(1) - u_d);
  detail::zou_he_fill(h, axis, sign, rho * u_d, N);
  return rho;
}

// ---------------------------------------------------------------------------------------
// Why a velocity node has no transverse correction. At a velocity node the density is
// free, so a density gradient along the plane gives the known set T a tangential momentum
// 2 N_b. The correction above cancels it by putting -2 N_b into the one entering diagonal
// pair (d + e_b, d - e_b): the in-plane momentum becomes a shear flux Pi_db sent into the
// fluid, every step. With BGK near tau = 1/2 nothing damps that loop. In the sphere case
// (cases/sphere_drag.toml, 8 nodes across, tau 0.52) a density pattern about 4 nodes long
// on the inlet plane grew by 10-15% per step, and the run diverged within 200 steps; TRT
// and the regularized operator survived it. The general rule below has no such loop: it
// bounces back the tangential part (h_q - h_opp(q) is along n), so the tangential velocity
// is zero on the plane, at the links' midpoints (as with halfway bounce-back and Ladd's
// rule), and the node keeps T's 2 N_b. The boundaries plugin therefore uses nebb_velocity
// on every velocity node, and the full-face rule with the correction only for pressure,
// where the density is fixed along the plane. zou_he_velocity stays as the reference form.
//
// The same non-equilibrium bounce-back for any set of unknown directions: a node on the
// rim of an iolet (some of the populations that would cross the plane come from the wall
// instead) or on a plane that is not normal to a lattice axis. The unknowns M are the
// directions whose link crosses the plane into the fluid; the velocity is taken along the
// plane's inward unit normal n, u = u_d n, and each unknown bounces back the
// non-equilibrium part of its opposite (Zou & He's closure, without Hecht & Harting's
// transverse correction, which needs the full set of five):
//   f_q = f_opp(q) + 6 w_q rho u_d (c_q . n),     q in M.
// Then rho = K + rho u_d W with K = sum_{q not in M} f_q + sum_{q in M} f_opp(q) and
// W = 6 sum_{q in M} w_q (c_q . n), which gives u_d from an imposed rho or rho from an
// imposed u_d. For the five unknowns of an axis-aligned face W = 6 (1/18 + 4/36) = 1 and
// the rule reduces to the one above up to the transverse terms. In shifted populations
// (w_q = w_opp(q)) K = 1 + K_h with K_h the same sums over h.

namespace detail {

/// K_h and W of the rule above; `unknown` has bit q set for q in M.
template <class Real>
HEMO_HD void nebb_sums(const Real (&h)[d3q19::Q], std::uint32_t unknown, const Real (&n)[3], Real& k_h, Real& w) {
  k_h = Real(0);
  w = Real(0);
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) {
    if (unknown >> q & 1u) {
      k_h += h[d3q19::opposite(q)];
      w += Real(6) * d3q19::w<Real>(q) *
           (Real(d3q19::cx(q)) * n[0] + Real(d3q19::cy(q)) * n[1] + Real(d3q19::cz(q)) * n[2]);
    } else {
      k_h += h[q];
    }
  }
}

/// h_q = h_opp(q) + 6 w_q (c_q . n) ju for q in M, ju = rho u_d.
template <class Real>
HEMO_HD void nebb_fill(Real (&h)[d3q19::Q], std::uint32_t unknown, const Real (&n)[3], Real ju) {
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q) {
    if (!(unknown >> q & 1u)) continue;
    const Real cn = Real(d3q19::cx(q)) * n[0] + Real(d3q19::cy(q)) * n[1] + Real(d3q19::cz(q)) * n[2];
    h[q] = h[d3q19::opposite(q)] + Real(6) * d3q19::w<Real>(q) * cn * ju;
  }
}

}  // namespace detail

/// Pressure boundary for any unknown set M (bits of `unknown`; opposites of M must not be
/// in M) and inward unit normal n: imposes rho = rho_b and returns u_d.
template <class Real>
HEMO_HD Real nebb_pressure(Real (&h)[d3q19::Q], std::uint32_t unknown, const Real (&n)[3], Real rho_b) {
  Real k_h, w;
  detail::nebb_sums(h, unknown, n, k_h, w);
  const Real ju = ((rho_b - Real(1)) - k_h) / w;
  detail::nebb_fill(h, unknown, n, ju);
  return ju / rho_b;
}

/// Velocity boundary for any unknown set: imposes u = u_d n and returns the density.
template <class Real>
HEMO_HD Real nebb_velocity(Real (&h)[d3q19::Q], std::uint32_t unknown, const Real (&n)[3], Real u_d) {
  Real k_h, w;
  detail::nebb_sums(h, unknown, n, k_h, w);
  const Real rho = (Real(1) + k_h) / (Real(1) - u_d * w);
  detail::nebb_fill(h, unknown, n, rho * u_d);
  return rho;
}

}  // namespace hemo::phys
