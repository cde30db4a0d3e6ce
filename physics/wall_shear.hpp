#pragma once
// Wall shear stress (WSS) at the fluid nodes next to a halfway bounce-back wall, in
// lattice units (rho_0 = dx = dt = 1), from one node's populations. Two estimates:
//
// 1. The stress from the non-equilibrium populations (the default of plugins/wall_shear).
//    The Chapman-Enskog expansion of the lattice Boltzmann equation with Guo's forcing
//    gives the deviatoric (viscous) stress from the second moment of the non-equilibrium
//    part of the *pre-collision* populations (T. Krueger et al., The Lattice Boltzmann
//    Method, Springer 2017, ch. 4 (the Chapman-Enskog analysis) and ch. 6 (forcing: the
//    stress with Guo's force); T. Krueger, F. Varnik, D. Raabe, Phys. Rev. E 79, 046704
//    (2009), "Shear stress in lattice Boltzmann simulations"):
//      sigma_ab = -(1 - omega/2) sum_q (f_q - f_q^eq) c_qa c_qb
//                 -(1 - omega/2)/2 (F_a u_b + u_a F_b),
//    with u = (sum_q c_q f_q + F/2)/rho, f^eq at that u (equilibrium.hpp) and omega = 1/tau.
//    It is sigma = 2 rho nu S with nu = (tau - 1/2)/3. BGK, TRT (omega = omega+, the even
//    rate, which relaxes the stress) and the regularized operator (which relaxes the
//    projected stress at omega, regularized.hpp) all relax the second moment at 1/tau,
//    so the same expression holds for the three operators of physics/collision.hpp.
//    In shifted populations h = f - w: sum_q w_q c_qa c_qb = c_s^2 delta_ab, so
//      sum_q (f_q - f_q^eq) c_qa c_qb = sum_q h_q c_qa c_qb - (rho - 1)/3 delta_ab - rho u_a u_b
//    (equilibrium.hpp, non_equilibrium, computes this Pi1 for the stress and the regularized
//    collision alike).
//
// 2. The momentum exchange at the wall links (A. Ladd, J. Fluid Mech. 271, 285 (1994);
//    Krueger et al. 2017, sec. 5.4.3): a population f*_q that leaves a node towards the
//    wall (x + c_q solid) and comes back as f_opp(q) gives the wall 2 f*_q c_q of
//    momentum per step, so the force on the wall from one node is
//      F_wall = sum over its wall links of 2 f*_q c_q   (f* the full post-collision f).
//    Its tangential part, divided by the wall area the node represents, is a WSS.
//
// The wall normal of a staircase node comes from its wall links (Matyka, Koza, Miroslaw,
// Computers & Fluids 73 (2013) 115 use a normal per wall node the same way):
//      n = normalise(sum over q whose pull x - c_q is a wall of w_q c_q),
// which points from the wall into the fluid. The traction the fluid exerts on the wall is
// then t = sigma . n (with n the wall's normal into the fluid: for u_x = G y above a wall
// at y = 0, t_x = sigma_xy = mu G > 0, the fluid drags the wall along +x), and the WSS
// is its tangential part, t - (t . n) n.
#include <cmath>
#include <cstdint>

#include "physics/d3q19.hpp"
#include "physics/equilibrium.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

/// A symmetric 3 x 3 tensor: xx, yy, zz, xy, xz, yz.
template <class Real>
struct SymTensor {
  Real xx{}, yy{}, zz{}, xy{}, xz{}, yz{};
};

/// t = T . n for a symmetric T.
template <class Real>
HEMO_HD Vec3<Real> apply(const SymTensor<Real>& t, const Vec3<Real>& n) {
  return {t.xx * n.x + t.xy * n.y + t.xz * n.z, t.xy * n.x + t.yy * n.y + t.yz * n.z,
          t.xz * n.x + t.yz * n.y + t.zz * n.z};
}

/// The deviatoric stress sigma (lattice units) of a node from the moments m of its
/// pre-collision shifted populations with the force density F acting on it (Guo;
/// equilibrium.hpp, non_equilibrium: Pi1 and u) and the relaxation rate of the stress
/// omega = 1/tau (omega+ for TRT): the Chapman-Enskog result of the header, eq. 1,
///   sigma = -(1 - omega/2) (Pi1 + (F u + u F)/2).
/// With the Smagorinsky eddy viscosity (smagorinsky.hpp) omega is the node's own
/// 1/tau_eff (collision.hpp, omega_at, from the same m), and sigma the total stress
/// 2 rho (nu + nu_t) S, molecular plus eddy.
template <class Real>
HEMO_HD SymTensor<Real> viscous_stress(const NonEquilibrium<Real>& m, const Vec3<Real>& F, Real omega) {
  const Vec3<Real>& u = m.u;
  const Real half = Real(0.5), keep = -(Real(1) - half * omega);
  return {keep * (m.xx + F.x * u.x),
          keep * (m.yy + F.y * u.y),
          keep * (m.zz + F.z * u.z),
          keep * (m.xy + half * (F.x * u.y + u.x * F.y)),
          keep * (m.xz + half * (F.x * u.z + u.x * F.z)),
          keep * (m.yz + half * (F.y * u.z + u.y * F.z))};
}

/// The same from the populations h themselves.
template <class Real>
HEMO_HD SymTensor<Real> viscous_stress(const Real (&h)[d3q19::Q], const Vec3<Real>& F, Real omega) {
  return viscous_stress(non_equilibrium(h, F), F, omega);
}

/// The stress at the wall from two nodes on a line into the fluid: sigma_j at surface
/// distance d_j and sigma_j' at d_j' > d_j, extrapolated linearly to distance 0,
///   sigma_w = sigma_j + (sigma_j - sigma_j') d_j / (d_j' - d_j),
/// with reach = d_j / (d_j' - d_j). Exact for a stress linear in the distance (Poiseuille
/// flow in a channel or pipe: sigma_xr = rho g r / 2); for a smooth profile the error is
/// O(d_j d_j') times its curvature. Second-layer nodes instead of the wall node avoid the
/// bounce-back node's own stress, which the staircase disturbs by O(1) at concave steps
/// (measured: plugins/wall_shear/README.md, "Where the stress is evaluated").
template <class Real>
HEMO_HD SymTensor<Real> wall_stress_extrapolated(const SymTensor<Real>& near, const SymTensor<Real>& far, Real reach) {
  auto e = [reach](Real a, Real b) { return a + (a - b) * reach; };
  return {e(near.xx, far.xx), e(near.yy, far.yy), e(near.zz, far.zz),
          e(near.xy, far.xy), e(near.xz, far.xz), e(near.yz, far.yz)};
}

/// The largest weight wall_traction_quadratic gives the difference of two linear
/// extrapolations before it keeps the nearer one: a bound on how much it amplifies the
/// staircase's node-to-node scatter (depths 1, 2, 3 dx give 0.5; lines oblique to the
/// lattice, whose depths grow by less than a spacing a link, more). With 2 instead of 1
/// one node of the reduced tilted pipe at 5 dx per radius had its mean WSS reversed
/// (CPU, 2026-11-26; tools/validation/notes.md).
inline constexpr double quadratic_weight_limit = 1.0;

/// The wall value of a quantity that is quadratic in the surface distance d, from two
/// linear extrapolations of it (wall_stress_extrapolated, one Richardson step): a linear
/// extrapolation to d = 0 through the values at d_1 < d_2 of s(d) = s_0 + s_1 d + c d^2 is
/// s_0 - c d_1 d_2 (the interpolation remainder s''/2 (0 - d_1)(0 - d_2)), so two of them,
/// L_j through the depths of node j and its outer node j' (product g_j = d_j d_j') and
/// L_j' through those of j' and its own outer node (g_j'), give
///   c = (L_j - L_j') / (g_j' - g_j),   s_0 = L_j + c g_j = L_j + (L_j - L_j') g_j / (g_j' - g_j),
/// exact for a quadratic profile along the normal, as the three-point Lagrange
/// extrapolation through d_j, d_j', d_j'' is (for d = 1, 2, 3: 3 s_1 - 3 s_2 + s_3). Why
/// quadratic: inside a Stokes layer of thickness R / alpha the stress curves within a few
/// spacings (Womersley flow, alpha = 6, R = 32 dx: a linear extrapolation from 1 and 2 dx
/// misses the wall stress by 2.8% of its peak over a period, a quadratic one from 1, 2
/// and 3 dx by 0.5%; tools/validation/notes.md). Works on the traction vectors t = sigma . n
/// of the two nodes. g < 0 marks a node without a linear extrapolation (its own stress);
/// then, or where the weight g_j / (g_j' - g_j) would exceed quadratic_weight_limit
/// (depths too close together), L_j is returned as it is.
template <class Real>
HEMO_HD Vec3<Real> wall_traction_quadratic(const Vec3<Real>& near, Real g_near, const Vec3<Real>& far, Real g_far) {
  const Real gap = g_far - g_near;
  if (!(g_near >= Real(0) && g_far >= Real(0) && gap > Real(0) && g_near <= Real(quadratic_weight_limit) * gap))
    return near;
  const Real k = g_near / gap;
  return {near.x + (near.x - far.x) * k, near.y + (near.y - far.y) * k, near.z + (near.z - far.z) * k};
}

/// The wall normal of a node from its wall links: bit q (1..18) of `wall_pulls` set where
/// the node's pull in direction q is a wall (x - c_q solid). Points from the wall into the
/// fluid; zero when the node has no wall link (or, impossibly for a fluid node between
/// two walls, when they cancel).
template <class Real>
HEMO_HD Vec3<Real> wall_normal(std::uint32_t wall_pulls) {
  Vec3<Real> n{Real(0), Real(0), Real(0)};
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q)
    if (wall_pulls >> q & 1u) {
      const Real w = d3q19::w<Real>(q);
      n.x += w * Real(d3q19::cx(q));
      n.y += w * Real(d3q19::cy(q));
      n.z += w * Real(d3q19::cz(q));
    }
  const Real len2 = dot(n, n);
  if (len2 <= Real(0)) return {Real(0), Real(0), Real(0)};
  const Real inv = Real(1) / std::sqrt(len2);
  return inv * n;
}

/// The part of v tangential to the unit normal n: v - (v . n) n.
template <class Real>
HEMO_HD Vec3<Real> tangential(const Vec3<Real>& v, const Vec3<Real>& n) {
  const Real vn = dot(v, n);
  return {v.x - vn * n.x, v.y - vn * n.y, v.z - vn * n.z};
}

/// The WSS from the stress: the tangential part of the traction t = sigma . n.
template <class Real>
HEMO_HD Vec3<Real> wall_shear_from_stress(const SymTensor<Real>& sigma, const Vec3<Real>& n) {
  return tangential(apply(sigma, n), n);
}

/// The wall area (in dx^2) a staircase node represents: its wall links along the six face
/// directions are the solid voxel faces it touches, each of area dx^2; projected onto the
/// wall plane of normal n, A = sum over them of |c_q . n|. For a wall aligned with the
/// lattice this is exactly 1; for an oblique staircase it is the node's share of the
/// smooth surface only on average (the faces of a staircase project onto the surface
/// once), node by node it scatters.
template <class Real>
HEMO_HD Real wall_face_area(std::uint32_t wall_pulls, const Vec3<Real>& n) {
  Real a = Real(0);
  HEMO_UNROLL
  for (int q = 1; q <= 6; ++q)
    if (wall_pulls >> q & 1u) {
      const Real cn = Real(d3q19::cx(q)) * n.x + Real(d3q19::cy(q)) * n.y + Real(d3q19::cz(q)) * n.z;
      a += cn < Real(0) ? -cn : cn;
    }
  return a;
}

/// The force on the wall from one node's wall links by momentum exchange (header, eq. 2):
/// `reflected[q]` is the shifted post-collision population h*_opp(q) that leaves the node
/// towards the wall and comes back in direction q (read for the bits of wall_pulls only).
/// The rest populations' share 2 w_q c_opp(q) sums to a vector along n (n is built from
/// the same w_q c_q), so it has no tangential part: the shift h = f - w changes only the
/// normal force.
template <class Real>
HEMO_HD Vec3<Real> wall_force_momentum_exchange(std::uint32_t wall_pulls, const Real (&reflected)[d3q19::Q]) {
  Vec3<Real> f{Real(0), Real(0), Real(0)};
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q)
    if (wall_pulls >> q & 1u) {
      // f*_opp(q) moves along c_opp(q) = -c_q into the wall: 2 f* c_opp(q).
      const Real full = reflected[q] + d3q19::w<Real>(q);  // w_opp(q) = w_q
      const Real two = Real(-2) * full;
      f.x += two * Real(d3q19::cx(q));
      f.y += two * Real(d3q19::cy(q));
      f.z += two * Real(d3q19::cz(q));
    }
  return f;
}

/// The WSS from the momentum exchange: the tangential part of the wall force over the
/// node's face area; zero for a node with no face link (only edge links: a corner).
template <class Real>
HEMO_HD Vec3<Real> wall_shear_from_force(const Vec3<Real>& force, const Vec3<Real>& n, Real area) {
  if (!(area > Real(0))) return {Real(0), Real(0), Real(0)};
  const Vec3<Real> t = tangential(force, n);
  const Real inv = Real(1) / area;
  return inv * t;
}

}  // namespace hemo::phys
