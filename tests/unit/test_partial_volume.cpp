// physics/partial_volume.hpp: the share of a bounce-back lb_vlbm mixes into a pull from a
// more solid cell.
#include <doctest/doctest.h>

#include <initializer_list>

#include "physics/partial_volume.hpp"

using namespace hemo::phys;

TEST_CASE("volumetric_mix: the VLBM paper's share (P_x - P_y) / (1 - P_y)") {
  CHECK(volumetric_mix(1.0, 0.0) == 1.0);  // from a solid cell: halfway bounce-back
  CHECK(volumetric_mix(1.0, 0.4) == 1.0);
  CHECK(volumetric_mix(0.3, 0.0) == doctest::Approx(0.3));
  CHECK(volumetric_mix(0.6, 0.2) == doctest::Approx(0.5));
}

TEST_CASE("viscosity_weighted_mix: Noble and Torczynski's B(phi, tau)") {
  for (const double tau : {0.5036, 0.6, 1.0, 2.0}) {
    CAPTURE(tau);
    CHECK(viscosity_weighted_mix(1.0, tau) == 1.0);  // a solid neighbour stays halfway bounce-back
    CHECK(viscosity_weighted_mix(0.0, tau) == 0.0);  // no solid, no mixing
    double last = 0.0;
    for (double phi = 0.05; phi < 1.0; phi += 0.05) {  // grows with phi, never above it
      const double m = viscosity_weighted_mix(phi, tau);
      CHECK(m > last);
      CHECK(m <= phi);
      last = m;
    }
  }
  // B = phi (tau - 1/2) / ((1 - phi) + (tau - 1/2)): at tau = 1, phi = 1/2 it is 1/4; near
  // tau = 1/2 it is phi (tau - 1/2) / (1 - phi), in proportion to the viscosity.
  CHECK(viscosity_weighted_mix(0.5, 1.0) == doctest::Approx(0.25));
  CHECK(viscosity_weighted_mix(0.5, 0.5036) == doctest::Approx(0.5 * 0.0036 / 0.5036));
  CHECK(viscosity_weighted_mix(0.75, 0.5001) / 0.0001 == doctest::Approx(3.0).epsilon(1e-3));
}
