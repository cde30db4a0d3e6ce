// A red blood cell's exchange with the fluid (physics/cell_coupling.hpp) and with the
// wall (physics/cell_wall.hpp): the smeared velocity, rotation and strain of linear
// fields, the fluid's share summing exactly to the opposite force and torque (the
// stresslet adding neither), the share as the measurement's adjoint, continuity of the
// kernel, and the wall repulsion's gap, force and torque against finite differences.
#include <doctest/doctest.h>

#include <cmath>
#include <array>
#include <map>
#include <random>

#include "physics/cell_coupling.hpp"
#include "physics/cell_wall.hpp"

using namespace hemo::phys;
using V = Vec3<double>;

namespace {
double norm(const V& v) { return std::sqrt(dot(v, v)); }
V unit(const V& v) { return (1.0 / norm(v)) * v; }
V turn(const V& v, const V& n, double t) {
  return std::cos(t) * v + std::sin(t) * cross(n, v) + ((1 - std::cos(t)) * dot(n, v)) * n;
}

/// The lattice nodes (integer points) around a cell at X, with the weight of each.
template <class F>
void for_support(const CellSupport<double>& s, const V& X, const V& n, F&& f) {
  const int lo[3] = {int(std::floor(X.x - s.half_extent(n.x))), int(std::floor(X.y - s.half_extent(n.y))),
                     int(std::floor(X.z - s.half_extent(n.z)))};
  const int hi[3] = {int(std::ceil(X.x + s.half_extent(n.x))), int(std::ceil(X.y + s.half_extent(n.y))),
                     int(std::ceil(X.z + s.half_extent(n.z)))};
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i) {
        const V x{double(i), double(j), double(k)};
        const double w = s.weight(x - X, n);
        if (w > 0) f(x, w);
      }
}
}  // namespace

TEST_CASE("cell coupling: the kernel's support and bounding box") {
  const CellSupport<double> s{2.6, 1.4};
  const V n = unit(V{0.3, -0.5, 0.8});
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uni(-3.0, 3.0);
  for (int t = 0; t < 20000; ++t) {
    const V r{uni(rng), uni(rng), uni(rng)};
    const double w = s.weight(r, n);
    CHECK(w >= 0.0);
    CHECK(w <= 1.0);
    if (w > 0) {  // inside the support: inside its bounding box
      CHECK(std::fabs(r.x) <= s.half_extent(n.x));
      CHECK(std::fabs(r.y) <= s.half_extent(n.y));
      CHECK(std::fabs(r.z) <= s.half_extent(n.z));
    }
  }
  // On the support's surface the weight and its slope vanish.
  const V across = unit(cross(n, V{1, 0, 0}));
  CHECK(s.weight(2.6 * across, n) < 1e-20);  // zero up to the rounding of |across| = 1
  CHECK(s.weight(0.999 * 2.6 * across, n) < 1e-5);
  CHECK(s.weight(0.999 * 1.4 * n, n) < 1e-5);
  CHECK(s.weight(V{0, 0, 0}, n) == 1.0);
}

TEST_CASE("cell coupling: u~ and Omega~ of linear velocity fields, at any position and orientation") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const CellSupport<double> s{2.6, 1.4};
  for (int t = 0; t < 50; ++t) {
    const V X{10 + uni(rng), 10 + uni(rng), 10 + uni(rng)};
    const V n = unit(V{uni(rng), uni(rng), uni(rng)});
    const V u0{0.01 * uni(rng), 0.01 * uni(rng), 0.01 * uni(rng)};
    double G[3][3];
    for (auto& row : G)
      for (double& g : row) g = 0.002 * uni(rng);
    auto u_at = [&](const V& x) {
      const V r = x - X;
      return u0 + V{G[0][0] * r.x + G[0][1] * r.y + G[0][2] * r.z, G[1][0] * r.x + G[1][1] * r.y + G[1][2] * r.z,
                    G[2][0] * r.x + G[2][1] * r.y + G[2][2] * r.z};
    };
    SupportSums<double> sums;
    int nodes = 0;
    for_support(s, X, n, [&](const V& x, double w) { sums.add(w, x - X, u_at(x)), ++nodes; });
    const auto f = cell_fluid(sums);
    REQUIRE(f.W > 0);
    CHECK(nodes >= 20);
    // u~ is the fitted field at the centroid: u0 + G c.
    const V c = f.centroid;
    const V expected_u = u0 + V{G[0][0] * c.x + G[0][1] * c.y + G[0][2] * c.z, G[1][0] * c.x + G[1][1] * c.y + G[1][2] * c.z,
                                G[2][0] * c.x + G[2][1] * c.y + G[2][2] * c.z};
    CHECK(norm(f.velocity - expected_u) < 1e-15);
    const V half_curl{0.5 * (G[2][1] - G[1][2]), 0.5 * (G[0][2] - G[2][0]), 0.5 * (G[1][0] - G[0][1])};
    CHECK(norm(f.rotation - half_curl) < 1e-14);
    // E~ is the traceless symmetric part of G.
    const double third = (G[0][0] + G[1][1] + G[2][2]) / 3;
    CHECK(std::fabs(f.strain.xx - (G[0][0] - third)) < 1e-14);
    CHECK(std::fabs(f.strain.yy - (G[1][1] - third)) < 1e-14);
    CHECK(std::fabs(f.strain.zz - (G[2][2] - third)) < 1e-14);
    CHECK(std::fabs(f.strain.xy - 0.5 * (G[0][1] + G[1][0])) < 1e-14);
    CHECK(std::fabs(f.strain.xz - 0.5 * (G[0][2] + G[2][0])) < 1e-14);
    CHECK(std::fabs(f.strain.yz - 0.5 * (G[1][2] + G[2][1])) < 1e-14);
  }
}

TEST_CASE("cell coupling: the fluid's share sums to -F and, about the centroid, to -T; the stresslet adds none") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const CellSupport<double> s{2.6, 1.4};
  for (int t = 0; t < 50; ++t) {
    const V X{uni(rng), uni(rng), uni(rng)};
    const V n = unit(V{uni(rng), uni(rng), uni(rng)});
    SupportSums<double> sums;  // a strained flow, so that the stresslet is not zero
    for_support(s, X, n, [&](const V& x, double w) { sums.add(w, x - X, V{0.3 * x.y + 0.1 * x.z, -0.2 * x.z, 0.5 * x.x}); });
    const auto f = cell_fluid(sums);
    REQUIRE(std::fabs(f.strain.xy) > 0.01);
    const V F{uni(rng), uni(rng), uni(rng)}, T{uni(rng), uni(rng), uni(rng)};
    const auto share = cell_share(f, F, T, 2.0);
    V total{0, 0, 0}, torque{0, 0, 0};
    for_support(s, X, n, [&](const V& x, double w) {
      const V g = node_share(share, w, x - X);
      total = total + g;
      torque = torque + cross(x - X - f.centroid, g);
    });
    CHECK(norm(total + F) < 1e-14);
    CHECK(norm(torque + T) < 1e-13);
  }
}

TEST_CASE("cell coupling: the share is the measurement's adjoint, so the exchange only dissipates") {
  // For any velocity field: sum over the support of g . u = -F . u~ - T . Omega~ - gamma_S |E~|^2.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const CellSupport<double> s{2.6, 1.5};
  for (int t = 0; t < 50; ++t) {
    const V X{uni(rng), uni(rng), uni(rng)};
    const V n = unit(V{uni(rng), uni(rng), uni(rng)});
    std::map<std::array<long, 3>, V> u;  // a random velocity at every node
    auto velocity = [&](const V& x) -> V& {
      auto& v = u[{std::lround(x.x), std::lround(x.y), std::lround(x.z)}];
      if (norm(v) == 0.0) v = V{uni(rng), uni(rng), uni(rng)};
      return v;
    };
    SupportSums<double> sums;
    for_support(s, X, n, [&](const V& x, double w) { sums.add(w, x - X, velocity(x)); });
    const auto f = cell_fluid(sums);
    REQUIRE(norm(f.rotation) > 0.0);
    const V F{uni(rng), uni(rng), uni(rng)}, T{uni(rng), uni(rng), uni(rng)};
    const double gamma_s = 0.5 + uni(rng) * 0.4;
    const auto share = cell_share(f, F, T, gamma_s);
    double power = 0.0;
    for_support(s, X, n, [&](const V& x, double w) { power += dot(node_share(share, w, x - X), velocity(x)); });
    const Sym3<double>& E = f.strain;
    const double EE = E.xx * E.xx + E.yy * E.yy + E.zz * E.zz + 2 * (E.xy * E.xy + E.xz * E.xz + E.yz * E.yz);
    REQUIRE(EE > 0.0);
    CHECK(std::fabs(E.xx + E.yy + E.zz) < 1e-14);
    CHECK(power == doctest::Approx(-dot(F, f.velocity) - dot(T, f.rotation) - gamma_s * EE).epsilon(1e-12));
  }
}

TEST_CASE("cell coupling: a support too flat to span 3-D exchanges no rotation") {
  SupportSums<double> sums;
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 2; ++j) sums.add(1.0, V{double(i), double(j), 0.0}, V{0.001 * j, 0.0, 0.0});
  const auto f = cell_fluid(sums);
  CHECK(f.W == 25.0);
  CHECK(norm(f.rotation) == 0.0);
  CHECK(f.strain.xy == 0.0);
  const auto share = cell_share(f, V{1, 0, 0}, V{0, 0, 1}, 1.0);
  CHECK(norm(node_share(share, 1.0, V{1, 2, 0}) - share.force) == 0.0);
  CHECK(share.force.x == doctest::Approx(-1.0 / 25));
}

TEST_CASE("cell wall: the gap on the axes, and force and torque are the derivatives of the energy") {
  const CellWall<double> w{4.0, 1.0, 1.0, 0.7};
  const V n = unit(V{0.2, 0.1, 1.0});
  const V across = unit(cross(n, V{1, 0, 0}));
  // On the axes the gap is the distance to the surface: U(g) = WCA(g).
  auto wca = [&](double g) {
    const double x6 = std::pow(w.range / g, 6);
    return g < 1.122462048309373 * w.range ? 4 * w.epsilon * (x6 * x6 - x6 + 0.25) : 0.0;
  };
  CHECK(cell_wall(w, 1.8 * n, n).energy == doctest::Approx(wca(0.8)));
  CHECK(cell_wall(w, 4.9 * across, n).energy == doctest::Approx(wca(0.9)));
  CHECK(cell_wall(w, 2.2 * n, n).energy == 0.0);
  // Force pushes the cell away from the site.
  CHECK(dot(cell_wall(w, 1.8 * n, n).force, n) < 0.0);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  int tested = 0;
  for (int t = 0; t < 5000 && tested < 200; ++t) {
    const V dir = unit(V{uni(rng), uni(rng), uni(rng)});
    const V r = (1.0 + 4.5 * (uni(rng) + 1) / 2) * dir;
    const auto p = cell_wall(w, r, n);
    if (p.energy <= 1e-8 || p.energy > 50.0) continue;
    // Skip the clamp region (g < s/2), where the force is not a derivative.
    const double rho = std::sqrt(dot(r, r) / 16 + (1.0 - 1.0 / 16) * dot(r, n) * dot(r, n));
    if (norm(r) * (1 - 1 / rho) < 0.55) continue;
    ++tested;
    const double d = 1e-6, scale = norm(p.force) + norm(p.torque);
    for (const V& e : {V{1, 0, 0}, V{0, 1, 0}, V{0, 0, 1}}) {
      // The cell moves by +d e: r = p - X changes by -d e.
      const double dU = (cell_wall(w, r - d * e, n).energy - cell_wall(w, r + d * e, n).energy) / (2 * d);
      CHECK(std::fabs(-dU - dot(p.force, e)) < 1e-6 * scale);
      const double dUt = (cell_wall(w, r, turn(n, e, d)).energy - cell_wall(w, r, turn(n, e, -d)).energy) / (2 * d);
      CHECK(std::fabs(-dUt - dot(p.torque, e)) < 1e-6 * scale);
    }
  }
  CHECK(tested == 200);
}
