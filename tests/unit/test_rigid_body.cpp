// The red blood cells' time step (physics/rigid_body.hpp): quaternion rotations, the exact
// free motion of a symmetric top, the drag's relaxation to the fluid (time constant
// m / gamma_T and A / gamma_R, C / gamma_R) with second-order convergence in dt, and two
// cells colliding through the Gay-Berne repulsion with no fluid: linear and angular
// momentum conserved to rounding, energy to O(dt^2).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "physics/gay_berne.hpp"
#include "physics/rigid_body.hpp"

using namespace hemo::phys;
using V = Vec3<double>;
using Q = Quaternion<double>;

namespace {

double norm(const V& v) { return std::sqrt(dot(v, v)); }
V unit(const V& v) { return (1.0 / norm(v)) * v; }
/// v turned by angle t about the unit axis n (Rodrigues).
V turn(const V& v, const V& n, double t) {
  return std::cos(t) * v + std::sin(t) * cross(n, v) + ((1 - std::cos(t)) * dot(n, v)) * n;
}

struct Body {
  V X{}, V_{}, L{};
  Q q{};
};

}  // namespace

TEST_CASE("rigid body: quaternion rotations") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  for (int t = 0; t < 100; ++t) {
    const V axis = unit(V{uni(rng), uni(rng), uni(rng)});
    const double angle = 3.0 * uni(rng);
    const Q q = rotation(angle * axis);
    const V v{uni(rng), uni(rng), uni(rng)};
    const V expected = turn(v, axis, angle);
    CHECK(norm(rotate(q, v) - expected) < 1e-14);
    CHECK(norm(rotate_inverse(q, rotate(q, v)) - v) < 1e-14);
    CHECK(norm(symmetry_axis(q) - rotate(q, V{0, 0, 1})) < 1e-14);
    // Composition: (a * b) turns by b first, then by a.
    const Q p = rotation(0.7 * unit(V{uni(rng), uni(rng), uni(rng)}));
    CHECK(norm(rotate(q * p, v) - rotate(q, rotate(p, v))) < 1e-14);
  }
  // The small-angle branch agrees with the exact one where they meet.
  for (const double t : {1e-6, 1e-3, 0.05, 0.0999, 0.1001, 1.0}) {
    const Q q = rotation(V{0, 0, t});
    CHECK(std::fabs(q.w - std::cos(t / 2)) < 2e-16);
    CHECK(std::fabs(q.z - std::sin(t / 2)) < 2e-16);
  }
}

TEST_CASE("rigid body: the drift is the exact free motion of a symmetric top") {
  // An oblate top (A > C is prolate... here C > A: C = 2 m a^2 / 5 > A = m (a^2 + c^2) / 5
  // since c < a). Angular momentum L fixed; the symmetry axis precesses about L at the
  // rate |L| / A (Landau & Lifshitz, Mechanics, sec. 33).
  const auto shape = RigidShape<double>::ellipsoid(4.0, 1.0, 1.0);
  CHECK(shape.inertia_along > shape.inertia_across);
  const V L{0.3, -0.2, 0.9};
  Q q = rotation(V{0.4, 0.1, -0.3});
  const V n0 = symmetry_axis(q);
  const double energy0 = 0.5 * dot(L, angular_velocity(shape, L, n0));
  V X{0, 0, 0};
  const double dt = 0.37;
  const int steps = 1000;
  for (int s = 0; s < steps; ++s) drift(shape, V{0, 0, 0}, L, dt, X, q);
  const V n = symmetry_axis(q);
  const V expected = turn(n0, unit(L), steps * dt * norm(L) / shape.inertia_across);
  CHECK(norm(n - expected) < 1e-11);
  CHECK(std::fabs(dot(L, n) - dot(L, n0)) < 1e-12);
  CHECK(std::fabs(0.5 * dot(L, angular_velocity(shape, L, n)) - energy0) < 1e-12 * energy0);
  // The whole rotation, the spin about n included: one drift of t = 5 against the
  // equations of motion dq/dt = (0; Omega) q / 2, Omega = I^-1(q) L, by classical
  // Runge-Kutta with 50000 steps.
  Q a = rotation(V{0.4, 0.1, -0.3}), b = a;
  drift(shape, V{0, 0, 0}, L, 5.0, X, a);
  auto rate = [&](const Q& at) {
    const V w = angular_velocity(shape, L, symmetry_axis(normalized(at)));
    const Q d = Q{0, w.x, w.y, w.z} * at;
    return Q{0.5 * d.w, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z};
  };
  auto axpy = [](const Q& p, double h, const Q& d) { return Q{p.w + h * d.w, p.x + h * d.x, p.y + h * d.y, p.z + h * d.z}; };
  const double h = 1e-4;
  for (int s = 0; s < 50000; ++s) {
    const Q k1 = rate(b), k2 = rate(axpy(b, h / 2, k1)), k3 = rate(axpy(b, h / 2, k2)), k4 = rate(axpy(b, h, k3));
    b = Q{b.w + h / 6 * (k1.w + 2 * k2.w + 2 * k3.w + k4.w), b.x + h / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x),
          b.y + h / 6 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y), b.z + h / 6 * (k1.z + 2 * k2.z + 2 * k3.z + k4.z)};
  }
  b = normalized(b);
  CHECK(norm(rotate(a, V{1, 0, 0}) - rotate(b, V{1, 0, 0})) < 1e-10);
  CHECK(norm(rotate(a, V{0, 1, 0}) - rotate(b, V{0, 1, 0})) < 1e-10);
}

TEST_CASE("rigid body: drag relaxes a cell to the fluid's velocity with time constant m / gamma_T, second order") {
  const auto shape = RigidShape<double>::ellipsoid(4.0, 1.0, 1.1);
  Drag<double> drag;
  drag.fluid_velocity = {0.01, -0.02, 0.005};
  drag.fluid_rotation = {0.001, 0.002, -0.003};
  drag.gamma_t = shape.mass / 7.0;  // time constant 7 steps
  drag.gamma_r = shape.inertia_across / 5.0;
  const double t_end = 14.0;  // two time constants
  double last_error = 0.0;
  for (int level = 0; level < 4; ++level) {
    const double dt = 1.0 / (1 << level);
    const int steps = static_cast<int>(t_end / dt + 0.5);
    V V_{0, 0, 0}, L{0, 0, 0};
    const V n{0, 0, 1};
    for (int s = 0; s < steps; ++s) kick(shape, n, V{0, 0, 0}, V{0, 0, 0}, drag, dt, V_, L);
    const V expected = (1 - std::exp(-t_end * drag.gamma_t / shape.mass)) * drag.fluid_velocity;
    const double error = norm(V_ - expected) / norm(drag.fluid_velocity);
    CHECK(error < 2e-3);
    if (level > 0) CHECK(last_error / error == doctest::Approx(4.0).epsilon(0.05));  // second order
    last_error = error;
    // Rotation: across the axis the time constant is A / gamma_R, along it C / gamma_R.
    const V omega = angular_velocity(shape, L, n);
    const double ta = shape.inertia_across / drag.gamma_r, tc = shape.inertia_along / drag.gamma_r;
    CHECK(omega.x == doctest::Approx((1 - std::exp(-t_end / ta)) * drag.fluid_rotation.x).epsilon(2e-3));
    CHECK(omega.z == doctest::Approx((1 - std::exp(-t_end / tc)) * drag.fluid_rotation.z).epsilon(2e-3));
  }
  // A cell lighter than gamma_T dt (time constant 0.1 steps) still relaxes, without
  // overshooting by more than the trapezoidal rule's (1 - g) / (1 + g) per step.
  drag.gamma_t = shape.mass / 0.1;
  V V_{0, 0, 0}, L{0, 0, 0};
  for (int s = 0; s < 200; ++s) kick(shape, V{0, 0, 1}, V{0, 0, 0}, V{0, 0, 0}, drag, 1.0, V_, L);
  CHECK(norm(V_ - drag.fluid_velocity) < 1e-6 * norm(drag.fluid_velocity));
}

TEST_CASE("rigid body: the drag the kick reports is the momentum the cell received") {
  const auto shape = RigidShape<double>::ellipsoid(4.0, 1.0, 1.1);
  Drag<double> drag{{0.01, -0.02, 0.005}, {0.001, 0.002, -0.003}, 3.0, 40.0};
  V V_{0.002, 0.001, -0.004}, L{0.3, -0.1, 0.2};
  const V n = unit(V{0.2, 0.3, 0.9}), F{0.01, 0.0, -0.02}, T{0.1, 0.2, -0.1};
  const V V0 = V_, L0 = L;
  const auto applied = kick(shape, n, F, T, drag, 1.0, V_, L);
  CHECK(norm(shape.mass * (V_ - V0) - (F + applied.force)) < 1e-14);
  CHECK(norm((L - L0) - (T + applied.torque)) < 1e-13);
}

TEST_CASE("rigid body: two cells colliding with no fluid conserve momentum, angular momentum and energy") {
  // Two discocytes (diameter 8, thickness 2, lattice-like units) thrown at each other off
  // centre and spinning, so that they collide rim against face and turn each other.
  const auto gb = GayBerne<double>::from_shape(8.0, 2.0, 0.5);
  const auto shape = RigidShape<double>::ellipsoid(4.0, 1.0, 1.0);
  const Drag<double> none{};
  auto energy_of = [&](const Body (&b)[2], double potential) {
    double e = potential;
    for (const Body& c : b)
      e += 0.5 * shape.mass * dot(c.V_, c.V_) + 0.5 * dot(c.L, angular_velocity(shape, c.L, symmetry_axis(c.q)));
    return e;
  };
  double last_drift = 0.0;
  for (int level = 0; level < 3; ++level) {
    const double dt = 0.5 / (1 << level);
    Body b[2];
    b[0].X = {-8.0, 0.0, 0.0};
    b[0].V_ = {0.05, 0.004, 0.0};
    b[0].q = rotation(V{0.0, 1.2, 0.0});
    b[0].L = angular_momentum(shape, V{0.0, 0.0, 0.003}, symmetry_axis(b[0].q));
    b[1].X = {8.0, 1.5, 0.5};
    b[1].V_ = {-0.05, 0.0, 0.002};
    b[1].q = rotation(V{0.3, 0.0, 0.2});
    b[1].L = angular_momentum(shape, V{0.002, -0.001, 0.0}, symmetry_axis(b[1].q));
    auto momentum = [&] { return shape.mass * (b[0].V_ + b[1].V_); };
    auto angular = [&] {
      return shape.mass * (cross(b[0].X, b[0].V_) + cross(b[1].X, b[1].V_)) + b[0].L + b[1].L;
    };
    const V P0 = momentum(), J0 = angular();
    const double E0 = energy_of(b, 0.0);
    double max_potential = 0.0, max_drift = 0.0;
    const int steps = static_cast<int>(400.0 / dt);
    // Leapfrog: V and L start half a step back; with no force at the start that is the
    // same as the initial values.
    for (int s = 0; s < steps; ++s) {
      const V n0 = symmetry_axis(b[0].q), n1 = symmetry_axis(b[1].q);
      const auto p = gay_berne(gb, b[1].X - b[0].X, n0, n1);
      max_potential = std::max(max_potential, p.energy);
      // The energy at whole steps, with V and L averaged over the half steps around it.
      Body mid[2] = {b[0], b[1]};
      kick(shape, n0, -p.force_on_j, p.torque_i, none, dt, b[0].V_, b[0].L);
      kick(shape, n1, p.force_on_j, p.torque_j, none, dt, b[1].V_, b[1].L);
      for (int c = 0; c < 2; ++c) {
        mid[c].V_ = 0.5 * (mid[c].V_ + b[c].V_);
        mid[c].L = 0.5 * (mid[c].L + b[c].L);
      }
      max_drift = std::max(max_drift, std::fabs(energy_of(mid, p.energy) - E0));
      for (Body& c : b) drift(shape, c.V_, c.L, dt, c.X, c.q);
      CHECK(norm(momentum() - P0) < 1e-15);
    }
    INFO("dt = ", dt, ": largest potential ", max_potential, ", energy drift ", max_drift / E0);
    CHECK(max_potential > 0.05 * E0);  // they did collide
    CHECK(norm(angular() - J0) < 1e-13 * norm(J0) * steps);
    CHECK(std::fabs(energy_of(b, 0.0) - E0) < 1e-3 * E0);  // apart again: kinetic only
    CHECK(max_drift < 2e-2 * E0);
    if (level > 0) CHECK(last_drift / max_drift == doctest::Approx(4.0).epsilon(0.25));
    last_drift = max_drift;
  }
}
