// NodeBuckets (plugins/wall_shear/node_buckets.hpp), the surface map's spatial search,
// against a brute-force search over every node: the nearest node (ties to the lower row)
// and the nodes within a radius, for points inside, beside and far outside the nodes' box.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "plugins/wall_shear/node_buckets.hpp"

using hemo::wall_shear::NodeBuckets;

namespace {

double distance2(const std::vector<double>& nodes, std::size_t r, const double* p) {
  const double dx = nodes[3 * r] - p[0], dy = nodes[3 * r + 1] - p[1], dz = nodes[3 * r + 2] - p[2];
  return dx * dx + dy * dy + dz * dz;
}

}  // namespace

TEST_CASE("node buckets: nearest and within agree with a brute-force search") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // Nodes on a lattice of spacing 0.1 (ties between equidistant nodes), thinned at random,
  // in a box 2 x 1 x 0.5.
  std::vector<double> nodes;
  for (int k = 0; k <= 5; ++k)
    for (int j = 0; j <= 10; ++j)
      for (int i = 0; i <= 20; ++i)
        if (unit(rng) < 0.3) nodes.insert(nodes.end(), {0.1 * i, 0.1 * j, 0.1 * k});
  const std::size_t n = nodes.size() / 3;
  REQUIRE(n > 100);
  for (const double cell : {0.05, 0.2, 0.7}) {
    const NodeBuckets buckets(nodes, cell);
    for (int t = 0; t < 400; ++t) {
      // Points in a box larger than the nodes' (some far outside), a quarter on lattice
      // points or halfway between them (exact ties).
      std::array<double, 3> p{-1.0 + 4.0 * unit(rng), -1.0 + 3.0 * unit(rng), -1.0 + 2.5 * unit(rng)};
      if (t % 4 == 0)
        for (double& x : p) x = 0.05 * std::round(x / 0.05);
      CAPTURE(cell);
      CAPTURE(p[0]);
      CAPTURE(p[1]);
      CAPTURE(p[2]);
      std::size_t best = 0;
      for (std::size_t r = 1; r < n; ++r)
        if (distance2(nodes, r, p.data()) < distance2(nodes, best, p.data())) best = r;
      CHECK(buckets.nearest(p.data()) == best);
      for (const double radius : {0.0, 0.1, 0.25, 1.3}) {
        std::vector<std::size_t> expected;
        for (std::size_t r = 0; r < n; ++r)
          if (distance2(nodes, r, p.data()) <= radius * radius) expected.push_back(r);
        CAPTURE(radius);
        CHECK(buckets.within(p.data(), radius) == expected);
      }
    }
  }
}

TEST_CASE("node buckets: no nodes, one node") {
  const std::vector<double> none;
  const double p[3] = {1.0, 2.0, 3.0};
  CHECK(NodeBuckets(none, 0.1).within(p, 5.0).empty());
  const std::vector<double> one{0.5, 0.5, 0.5};
  const NodeBuckets b(one, 0.1);
  CHECK(b.nearest(p) == 0);
  CHECK(b.within(p, 1.0).empty());
  CHECK(b.within(p, 3.0) == std::vector<std::size_t>{0});
}
