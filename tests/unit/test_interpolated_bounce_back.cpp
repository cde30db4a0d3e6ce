// The linear interpolated bounce-back (physics/interpolated_bounce_back.hpp).
#include <doctest/doctest.h>

#include <algorithm>

#include "physics/interpolated_bounce_back.hpp"

using namespace hemo::phys;

namespace {
/// The arriving population by Bouzidi et al.'s eqs. (5)-(6) as printed, for comparison.
double bouzidi(double delta, double reflected, double reflected_at_second_node, double own_opposite) {
  return delta < 0.5 ? 2.0 * delta * reflected + (1.0 - 2.0 * delta) * reflected_at_second_node
                     : reflected / (2.0 * delta) + (1.0 - 1.0 / (2.0 * delta)) * own_opposite;
}
double arriving(double delta, double reflected, double second, double own) {
  const double partner = interpolation_needs_second_node(delta) ? second : own;
  return reflected + interpolated_wall_term(interpolated_wall_kappa(delta), reflected, partner);
}
}  // namespace

TEST_CASE("interpolated bounce-back: a wall halfway is exactly halfway bounce-back") {
  CHECK(interpolated_wall_kappa(0.5) == 0.0);
  CHECK(arriving(0.5, 0.123, 7.0, -3.0) == 0.123);
}

TEST_CASE("interpolated bounce-back: halfway bounce-back plus kappa (partner - reflected) is Bouzidi's rule") {
  const double reflected = 0.031, second = -0.017, own = 0.052;
  for (double delta = 0.0; delta <= 1.0; delta += 1.0 / 64.0)
    CHECK(arriving(delta, reflected, second, own) == doctest::Approx(bouzidi(delta, reflected, second, own)).epsilon(1e-14));
}

TEST_CASE("interpolated bounce-back: the weights are convex for every delta, so nothing is amplified") {
  // The weakest spot of interpolated rules is a wall very near the node (tiny delta) or
  // very near the solid node: the arriving value must stay between its inputs.
  const double reflected = 1.0, second = -2.0, own = 3.0;
  for (double delta : {0.0, 1e-12, 1e-6, 0.01, 0.25, 0.4999999, 0.5, 0.5000001, 0.75, 0.99, 1.0}) {
    const double a = arriving(delta, reflected, second, own);
    const double partner = interpolation_needs_second_node(delta) ? second : own;
    CHECK(a >= std::min(reflected, partner) - 1e-15);
    CHECK(a <= std::max(reflected, partner) + 1e-15);
    const double kappa = interpolated_wall_kappa(delta);
    CHECK(kappa >= -1.0);
    CHECK(kappa <= 1.0);
  }
}

TEST_CASE("interpolated bounce-back: continuous across delta = 1/2 and linear in space below it") {
  CHECK(arriving(0.5 - 1e-12, 0.2, 0.7, -0.4) == doctest::Approx(arriving(0.5, 0.2, 0.7, -0.4)).epsilon(1e-10));
  CHECK(arriving(0.5 + 1e-12, 0.2, 0.7, -0.4) == doctest::Approx(arriving(0.5, 0.2, 0.7, -0.4)).epsilon(1e-10));
  // Below 1/2 the rule samples the outgoing population, linear along the link, at the
  // point 1 - 2 delta from x towards x + c_q: exact for a linear profile g(s) = a + b s.
  const double a = 0.3, b = -0.08;
  for (double delta : {0.05, 0.2, 0.35, 0.45}) CHECK(arriving(delta, a, a + b, 99.0) == doctest::Approx(a + b * (1.0 - 2.0 * delta)).epsilon(1e-14));
}
