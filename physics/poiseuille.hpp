#pragma once
// Analytical steady profiles used by validation and by tests.
#include "physics/hd.hpp"

namespace hemo::phys {

/// Hagen-Poiseuille flow in a circular pipe of radius R driven by a uniform body
/// acceleration g (or pressure gradient G = rho g): u(r) = g (R^2 - r^2) / (4 nu).
HEMO_HD constexpr double poiseuille_pipe_velocity(double r, double R, double g, double nu) {
  return r >= R ? 0.0 : g * (R * R - r * r) / (4.0 * nu);
}

/// Plane Poiseuille flow between walls at y = 0 and y = H: u(y) = g y (H - y) / (2 nu).
HEMO_HD constexpr double poiseuille_channel_velocity(double y, double H, double g, double nu) {
  return (y <= 0.0 || y >= H) ? 0.0 : g * y * (H - y) / (2.0 * nu);
}

}  // namespace hemo::phys
