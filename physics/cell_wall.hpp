#pragma once
// The repulsion between a red blood cell (an ellipsoid of semi-axes a, a, c about its
// symmetry axis n) and one wall site (a solid lattice point next to the fluid), which
// keeps cells inside the vessel. The MUPHY paper (seeds/004) names no wall potential; this
// is ours: the Weeks-Chandler-Andersen form of the RBC-RBC repulsion (gay_berne.hpp) in
// the gap g between the site and the cell's surface, measured along the ray from the
// cell's centre,
//
//   g = |r| (1 - 1/rho),  rho^2 = r.r / a^2 + (1/c^2 - 1/a^2) (r.n)^2,  r = p - X,
//   U = 4 eps [ (s/g)^12 - (s/g)^6 + 1/4 ]  for g < 2^(1/6) s, else 0,
//
// (rho = 1 on the surface; g is the exact distance to it along the ray, and equals the
// shortest distance on the axes). With s = one lattice spacing a cell's surface stays
// about a spacing from the solid sites, half a spacing from the halfway bounce-back wall.
// Force and torque on the cell are the derivatives of U: F = -dU/dX = U'(g) dg/dr and
// T = -n x dU/dn.
#include <cmath>

#include "physics/hd.hpp"
#include "physics/vec3.hpp"

namespace hemo::phys {

template <class Real>
struct CellWall {
  Real across = 1, along = 1;  // the cell's semi-axes a (across n) and c (along n)
  Real range = 1;              // s
  Real epsilon = 1;            // energy scale
  /// Largest distance from the cell's centre at which a site can push it.
  HEMO_HD Real reach() const { return (across > along ? across : along) + Real(1.122462048309373) * range; }
};

template <class Real>
struct SiteInteraction {
  Real energy = 0;
  Vec3<Real> force{}, torque{};  // on the cell
};

/// U, force and torque on a cell at X with axis n from a wall site at p (r = p - X).
/// A site inside the cell's surface (g <= s/2, which the repulsion makes unreachable at
/// sane time steps) is taken at g = s/2, so the force stays finite and pushes outwards.
template <class Real>
HEMO_HD SiteInteraction<Real> cell_wall(const CellWall<Real>& w, const Vec3<Real>& r, const Vec3<Real>& n) {
  SiteInteraction<Real> out;
  const Real r2 = dot(r, r);
  if (!(r2 > 0)) return out;
  const Real R = std::sqrt(r2), rn = dot(r, n);
  const Real ia2 = 1 / (w.across * w.across), k = 1 / (w.along * w.along) - ia2;
  const Real rho = std::sqrt(r2 * ia2 + k * rn * rn);
  Real g = R * (1 - 1 / rho);
  const Real cut = Real(1.122462048309373) * w.range;
  if (!(g < cut)) return out;
  const Real g_min = Real(0.5) * w.range;
  if (g < g_min) g = g_min;  // then dg/dr is taken as if at the clamp
  const Real x = w.range / g, x6 = x * x * x * x * x * x;
  out.energy = 4 * w.epsilon * (x6 * x6 - x6 + Real(0.25));
  const Real dU_dg = 4 * w.epsilon * (-12 * x6 * x6 + 6 * x6) / g;
  // dg/dr = r^ (1 - 1/rho) + R M r / rho^3, M r = r / a^2 + k (r.n) n;
  // dg/dn = R / rho^2 drho/dn = R k (r.n) r / rho^3.
  const Real rho3 = rho * rho * rho;
  const Vec3<Real> Mr = ia2 * r + (k * rn) * n;
  const Vec3<Real> dg_dr = ((1 - 1 / rho) / R) * r + (R / rho3) * Mr;
  const Vec3<Real> dg_dn = (R * k * rn / rho3) * r;
  out.force = dU_dg * dg_dr;
  out.torque = -dU_dg * cross(n, dg_dn);
  return out;
}

}  // namespace hemo::phys
