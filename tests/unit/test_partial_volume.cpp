// physics/partial_volume.hpp: the share of a bounce-back lb_vlbm mixes into a pull from a
// more solid cell.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "physics/partial_volume.hpp"
#include "plugins/lb_vlbm/kernels.hpp"

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

TEST_CASE("lb_vlbm links: the share from each receiving node's tau_eff equals the share precomputed at that tau") {
  // Three nodes, three mixed pulls (x -> y, direction q, phi); the populations of the last
  // step in the two-array layout, where f*_q(n) sits at q * stride + n.
  using Links = hemo::vlbm::PartialVolumeLinks<double>;
  constexpr std::uint32_t stride = 3;
  std::vector<double> f(19 * stride);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = 0.01 * std::sin(double(i) + 0.5);
  const std::vector<std::uint32_t> link{0, 1, 2}, from{0, 2, 0}, to{1, 1, 2};
  const std::vector<std::uint8_t> direction{1, 2, 3};
  const std::vector<double> phi{0.3, 0.6, 0.9}, tau{0.5036, 0.512, 0.55};  // tau_eff per node
  std::vector<double> mix, returned;
  for (std::size_t i = 0; i < phi.size(); ++i) {
    mix.push_back(viscosity_weighted_mix(phi[i], tau[to[i]]));
    returned.push_back(phi[i] - mix.back());
  }
  const hemo::mesh::PopulationSlots<hemo::mesh::NodeListView> slots{{nullptr, stride}, stride,
                                                                     hemo::mesh::PopulationState::ab};
  std::vector<double> value_fixed(3), excess_fixed(3), value_node(3), excess_node(3);
  const Links fixed{value_fixed.data(), link.data(), from.data(), to.data(), direction.data(), mix.data(),
                    returned.data(), excess_fixed.data(), f.data(), slots};
  const Links per_node{value_node.data(), link.data(), from.data(), to.data(), direction.data(), phi.data(),
                       returned.data(), excess_node.data(), f.data(), slots, tau.data()};
  for (std::uint32_t i = 0; i < 3; ++i) {
    fixed(i);
    per_node(i);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(value_node[i] == value_fixed[i]);  // bit for bit: the same arithmetic
    CHECK(excess_node[i] == excess_fixed[i]);
    CHECK(value_node[i] != 0.0);
  }
}
