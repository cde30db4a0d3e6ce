#pragma once
// The exchange of momentum between a red blood cell and the plasma (MUPHY paper,
// seeds/004, eqs. 2.3-2.5): the cell feels the drag F = -gamma_T (V - u~) and the torque
// T = -gamma_R (Omega - Omega~), with u~ and Omega~ the fluid's velocity and half its
// vorticity smeared over the nodes the cell covers; the fluid receives -F and -T through
// the forcing term, spread over the same nodes. The paper smears over "32 mesh points
// around each RBC" and leaves the kernel to a later publication; ours:
//
// Support and weight. A node at r from the cell's centre (lattice units) has the weight
//   w = (1 - d^2)^2 for d^2 < 1, else 0,   d^2 = (r.r - (r.n)^2) / A^2 + (r.n)^2 / C^2,
// on the ellipsoid of semi-axes A = a + m, C = c + m about the cell's axis n: the cell
// enlarged by a margin m (one lattice spacing by default), so that even a cell thinner
// than the lattice spacing covers nodes in every direction. w and its gradient vanish on
// the support's surface: the sums below change continuously as a cell moves.
//
// Fluid at the cell. From the weighted moments of the support's nodes (W = sum w, the
// centroid offset c = sum w r / W, the covariance S = sum w (r - c)(r - c)^T / W and
// G = [sum w (u - u_bar)(r - c)^T / W] S^-1, the weighted least-squares fit of a linear
// velocity field u_bar + G (r - c)):
//   u~ = u_bar = sum w u / W,    Omega~ = (G32 - G23, G13 - G31, G21 - G12) / 2,
// half the curl of the fitted field, exact for any linear field and any orientation (a
// weighted mean of r x u would also pick up the strain for a non-spherical support:
// the "elongational" coupling the paper neglects).
//
// Fluid's share: the adjoint (transpose) of the measurement, as an immersed boundary
// method's spreading is of its interpolation (Peskin, Acta Numerica 11 (2002) 479, sec.
// 6). u~ and Omega~ are linear in the nodes' velocities,
//   u~ = sum (w / W) u,   Omega~ = (1/2) sum (w / W) p x u,   p = S^-1 (r - c),
// so node x gets the force density
//   g(x) = (w / W) [ -F + (1/2) p x T ],
// and sum g . u = -F . u~ - T . Omega~ for every velocity field: the power the fluid
// receives is exactly minus what the drag's reaction does at the velocities the cell
// sees, so the exchange dissipates, -gamma_T |V - u~|^2 - gamma_R |Omega - Omega~|^2,
// never adds energy. Because the fit is exact for uniform and rigidly rotating fields,
// the same identity gives sum g = -F and sum (r - c) x g = -T: linear momentum of fluid +
// cells is conserved to rounding, and angular momentum about the centroid. (About the
// cell's centre the fluid also gets c x (-F); c = 0 for a support clear of walls.)
// Before 2026-11-25 the torque went back as (w / W) B x (r - c), B = J^-1 (-T), J =
// tr(S) 1 - S: the same momentum and angular momentum, but its power is -T . Omega_L
// with Omega_L = J^-1 sum (w / W) (r - c) x u, which differs from Omega~ wherever the
// flow strains a non-spherical support, so the exchange could feed energy in (cells of
// the 20 um tube of tools/validation/rbc_tubes.py sped up from rest, 2026-11-25).
// Where the support's nodes are too few to span three dimensions (det S tiny against
// its trace, a cell squeezed against a wall), Omega~, E~ and the linear share are zero.
//
// Strain (an extension of the paper's model, which leaves out the coupling to the
// "elongational" part of the flow, seeds/004 after eq. 2.5). A rigid cell cannot strain,
// so it resists the fluid's rate of strain: the stresslet, from which the whole excess
// stress of a suspension of force- and torque-free particles comes (Batchelor, J. Fluid
// Mech. 41 (1970) 545). Measured like Omega~, from the same fit:
//   E~ = dev sym G = (G + G^T) / 2 - tr(G) / 3 1,
// the cell pushes back with the stresslet Sigma = gamma_S E~ (for a rigid sphere in
// Stokes flow gamma_S = (20/3) pi mu R^3, which gives Einstein's 1 + 5/2 phi; Batchelor
// 1970), and, as for the torque, the fluid receives the measurement's adjoint:
//   g(x) = -(w / W) Sigma p,   p = S^-1 (r - c),
// so sum g . u = -Sigma : E~ = -gamma_S |E~|^2 (it only dissipates), sum g = 0 and
// sum (r - c) x g = 0 (Sigma symmetric): no momentum and no angular momentum change, the
// cell itself feels nothing. Both linear parts go back as one matrix:
//   g(x) = w [ -F / W + B (r - c) ],   B = -[T / (2 W)]x S^-1 - (gamma_S / W) E~ S^-1,
// [t]x the cross-product matrix (t x v = [t]x v).
#include <cmath>

#include "physics/hd.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

template <class Real>
struct CellSupport {
  Real across = 1, along = 1;  // A and C: the cell's semi-axes plus the margin

  /// The kernel weight of a node at r from the centre of a cell with axis n.
  HEMO_HD Real weight(const Vec3<Real>& r, const Vec3<Real>& n) const {
    const Real rn = dot(r, n), r2 = dot(r, r);
    const Real d2 = (r2 - rn * rn) / (across * across) + rn * rn / (along * along);
    if (!(d2 < 1)) return 0;
    const Real e = 1 - d2;
    return e * e;
  }
  /// Half the extent of the support along lab axis e_k (|n_k| = cosine to the axis):
  /// the bounding box of the support is X +- these.
  HEMO_HD Real half_extent(Real n_k) const {
    return std::sqrt(across * across * (1 - n_k * n_k) + along * along * n_k * n_k);
  }
};

/// A symmetric 3 x 3 matrix: xx, yy, zz, xy, xz, yz.
template <class Real>
struct Sym3 {
  Real xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
};

/// Weighted sums over a support's nodes, in the order the nodes are visited.
template <class Real>
struct SupportSums {
  Real W = 0;
  Vec3<Real> wr{}, wu{};
  Sym3<Real> wrr{};
  Real wur[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  // sum w u_a r_b

  HEMO_HD void add(Real w, const Vec3<Real>& r, const Vec3<Real>& u) {
    W += w;
    wr = wr + w * r;
    wu = wu + w * u;
    wrr.xx += w * r.x * r.x, wrr.yy += w * r.y * r.y, wrr.zz += w * r.z * r.z;
    wrr.xy += w * r.x * r.y, wrr.xz += w * r.x * r.z, wrr.yz += w * r.y * r.z;
    const Real ua[3] = {u.x, u.y, u.z}, rb[3] = {r.x, r.y, r.z};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) wur[a][b] += w * ua[a] * rb[b];
  }
};

/// What the cell sees of the fluid, and how its drag goes back.
template <class Real>
struct CellFluid {
  Vec3<Real> velocity{}, rotation{};  // u~, Omega~
  Sym3<Real> strain{};                // E~, traceless (zero where the support is flat)
  Vec3<Real> centroid{};              // c, from the cell's centre
  Sym3<Real> inverse_spread{};        // S^-1 (zero where the support is flat)
  Real W = 0;                         // 0: the cell covers no node
};

namespace detail {
template <class Real>
HEMO_HD Real det(const Sym3<Real>& s) {
  return s.xx * (s.yy * s.zz - s.yz * s.yz) - s.xy * (s.xy * s.zz - s.yz * s.xz) + s.xz * (s.xy * s.yz - s.yy * s.xz);
}
/// The inverse of s, given its determinant.
template <class Real>
HEMO_HD Sym3<Real> inverse(const Sym3<Real>& s, Real d) {
  const Real i = 1 / d;
  return {(s.yy * s.zz - s.yz * s.yz) * i, (s.xx * s.zz - s.xz * s.xz) * i, (s.xx * s.yy - s.xy * s.xy) * i,
          (s.xz * s.yz - s.xy * s.zz) * i, (s.xy * s.yz - s.xz * s.yy) * i, (s.xy * s.xz - s.xx * s.yz) * i};
}
/// s as a full 3 x 3 matrix.
template <class Real>
HEMO_HD void full(const Sym3<Real>& s, Real (&m)[3][3]) {
  m[0][0] = s.xx, m[0][1] = s.xy, m[0][2] = s.xz;
  m[1][0] = s.xy, m[1][1] = s.yy, m[1][2] = s.yz;
  m[2][0] = s.xz, m[2][1] = s.yz, m[2][2] = s.zz;
}
}  // namespace detail

/// u~, Omega~ and the spreading matrix from the sums over a cell's support.
template <class Real>
HEMO_HD CellFluid<Real> cell_fluid(const SupportSums<Real>& s) {
  CellFluid<Real> out;
  if (!(s.W > 0)) return out;
  out.W = s.W;
  const Real iW = 1 / s.W;
  const Vec3<Real> c = iW * s.wr, u = iW * s.wu;
  out.centroid = c;
  out.velocity = u;
  const Sym3<Real> S{s.wrr.xx * iW - c.x * c.x, s.wrr.yy * iW - c.y * c.y, s.wrr.zz * iW - c.z * c.z,
                     s.wrr.xy * iW - c.x * c.y, s.wrr.xz * iW - c.x * c.z, s.wrr.yz * iW - c.y * c.z};
  const Real tr = S.xx + S.yy + S.zz, d = detail::det(S);
  if (!(d > Real(1e-6) * tr * tr * tr)) return out;  // flat: no rotation exchanged
  // M = sum w (u - u~)(r - c)^T / W = wur / W - u c^T; G = M S^-1.
  const Real ca[3] = {c.x, c.y, c.z}, ua[3] = {u.x, u.y, u.z};
  Real M[3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) M[a][b] = s.wur[a][b] * iW - ua[a] * ca[b];
  const Sym3<Real> Si = detail::inverse(S, d);
  Real Sm[3][3];
  detail::full(Si, Sm);
  Real G[3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) G[a][b] = M[a][0] * Sm[0][b] + M[a][1] * Sm[1][b] + M[a][2] * Sm[2][b];
  out.rotation = {Real(0.5) * (G[2][1] - G[1][2]), Real(0.5) * (G[0][2] - G[2][0]), Real(0.5) * (G[1][0] - G[0][1])};
  const Real third = (G[0][0] + G[1][1] + G[2][2]) / 3;
  out.strain = {G[0][0] - third, G[1][1] - third, G[2][2] - third, Real(0.5) * (G[0][1] + G[1][0]),
                Real(0.5) * (G[0][2] + G[2][0]), Real(0.5) * (G[1][2] + G[2][1])};
  out.inverse_spread = Si;
  return out;
}

/// How a cell's drag and stresslet are spread: node g(x) = w(x) [force + B (r - centroid)].
template <class Real>
struct CellShare {
  Vec3<Real> centroid{}, force{};  // force = -F / W
  Real linear[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  // B
};

/// The share of the drag (force F, torque T on the cell) and of the stresslet
/// gamma_S E~ that goes back to the fluid.
template <class Real>
HEMO_HD CellShare<Real> cell_share(const CellFluid<Real>& f, const Vec3<Real>& F, const Vec3<Real>& T,
                                   Real gamma_s = 0) {
  CellShare<Real> out;
  if (!(f.W > 0)) return out;
  out.centroid = f.centroid;
  out.force = (-Real(1) / f.W) * F;
  const Vec3<Real> t = (Real(0.5) / f.W) * T;
  const Real k = gamma_s / f.W;
  const Sym3<Real>& E = f.strain;
  // A = -[t]x - k E~ (rows), then B = A S^-1.
  const Real A[3][3] = {{-k * E.xx, t.z - k * E.xy, -t.y - k * E.xz},
                        {-t.z - k * E.xy, -k * E.yy, t.x - k * E.yz},
                        {t.y - k * E.xz, -t.x - k * E.yz, -k * E.zz}};
  Real Sm[3][3];
  detail::full(f.inverse_spread, Sm);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) out.linear[a][b] = A[a][0] * Sm[0][b] + A[a][1] * Sm[1][b] + A[a][2] * Sm[2][b];
  return out;
}

/// The force density a node at r from a cell's centre receives from it (weight w).
template <class Real>
HEMO_HD Vec3<Real> node_share(const CellShare<Real>& s, Real w, const Vec3<Real>& r) {
  const Vec3<Real> p = r - s.centroid;
  const auto& B = s.linear;
  return w * (s.force + Vec3<Real>{B[0][0] * p.x + B[0][1] * p.y + B[0][2] * p.z,
                                   B[1][0] * p.x + B[1][1] * p.y + B[1][2] * p.z,
                                   B[2][0] * p.x + B[2][1] * p.y + B[2][2] * p.z});
}

}  // namespace hemo::phys
