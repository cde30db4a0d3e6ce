#pragma once
// The collision operators of the D3Q19 solver, as small device-safe function objects
// that the fused collide-stream kernel is instantiated with (plugins/lb_bgk/kernels.hpp).
// Each one relaxes the gathered populations h of a node, with Guo's force F, in place and
// returns the moments it used. All three recover the same Navier-Stokes equations with
// nu = c_s^2 (tau - 1/2); they differ in the non-hydrodynamic moments, which decide
// stability near tau = 1/2 and where a bounce-back wall effectively sits.
#include "physics/bgk.hpp"
#include "physics/regularized.hpp"
#include "physics/trt.hpp"

namespace hemo::phys {

/// BGK, one relaxation rate omega = 1/tau (bgk.hpp).
template <class Real>
struct BgkCollision {
  Real omega;
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const { return collide_bgk(h, omega, F); }
};

/// TRT: omega+ = 1/tau for the even moments, omega- from the magic parameter (trt.hpp).
template <class Real>
struct TrtCollision {
  Real omega_plus, omega_minus;
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const {
    return collide_trt(h, omega_plus, omega_minus, F);
  }
};

/// Regularized BGK (regularized.hpp).
template <class Real>
struct RegularizedCollision {
  Real omega;
  HEMO_HD NodeState<Real> operator()(Real (&h)[d3q19::Q], const Vec3<Real>& F) const {
    return collide_regularized(h, omega, F);
  }
};

}  // namespace hemo::phys
