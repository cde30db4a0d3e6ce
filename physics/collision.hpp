#pragma once
// The collision operators of the D3Q19 solver, as small device-safe function objects
// that the fused collide-stream kernel is instantiated with (plugins/lb_bgk/kernels.hpp).
// Each one relaxes the gathered populations h of a node, with Guo's force F, in place and
// returns the moments it used. All four recover the same Navier-Stokes equations with
// nu = c_s^2 (tau - 1/2); they differ in the non-hydrodynamic moments, which decide
// stability near tau = 1/2 and where a bounce-back wall effectively sits.
// Each also says, by omega_at, the rate that relaxes the stress at a node from the moments
// of the same populations and force (equilibrium.hpp, non_equilibrium): what the viscous
// stress (wall_shear.hpp) is computed with.
#include "physics/bgk.hpp"
#include "physics/recursive_regularized.hpp"
#include "physics/regularized.hpp"
#include "physics/trt.hpp"

namespace hemo::phys {

/// BGK, one relaxation rate omega = 1/tau (bgk.hpp).
template <class Real>
struct BgkCollision {
  Real omega;
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const { return collide_bgk(h, omega, F); }
  HEMO_HD Real omega_at(const NonEquilibrium<Real>&) const { return omega; }
};

/// TRT: omega+ = 1/tau for the even moments, omega- from the magic parameter (trt.hpp).
template <class Real>
struct TrtCollision {
  Real omega_plus, omega_minus;
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const {
    return collide_trt(h, omega_plus, omega_minus, F);
  }
  HEMO_HD Real omega_at(const NonEquilibrium<Real>&) const { return omega_plus; }  // the even rate
};

/// Regularized BGK (regularized.hpp), optionally with the Smagorinsky eddy viscosity
/// (smagorinsky.hpp, lb_bgk.smagorinsky): each node then relaxes at its own
/// omega_eff = 1/tau_eff from its non-equilibrium stress.
template <class Real>
struct RegularizedCollision {
  Real omega;                  // 1/tau0, the molecular viscosity's
  Real smagorinsky = Real(0);  // 18 sqrt(2) C^2 (smagorinsky_coefficient); 0: no eddy viscosity
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const {
    return collide_regularized(h, omega, F, smagorinsky);
  }
  /// omega_eff of the node, from the same Pi1 and rho as the collision's, bit for bit.
  HEMO_HD Real omega_at(const NonEquilibrium<Real>& m) const { return smagorinsky_omega(m, omega, smagorinsky); }
};

/// Recursive regularized (recursive_regularized.hpp): the regularized operator with the
/// third-order Hermite terms D3Q19 holds, in the equilibrium, the non-equilibrium part
/// (rebuilt from Pi1) and Guo's source; optionally with the Smagorinsky eddy viscosity.
template <class Real>
struct RecursiveRegularizedCollision {
  Real omega;
  Real smagorinsky = Real(0);
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const {
    return collide_recursive_regularized(h, omega, F, smagorinsky);
  }
  HEMO_HD Real omega_at(const NonEquilibrium<Real>& m) const { return smagorinsky_omega(m, omega, smagorinsky); }
};

}  // namespace hemo::phys
