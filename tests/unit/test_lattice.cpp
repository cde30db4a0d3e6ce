// D3Q19 lattice constants, equilibrium moments and the BGK/Guo collision, against
// hand-derived identities. Exact to rounding in double precision.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "physics/bgk.hpp"
#include "physics/bounce_back.hpp"

using namespace hemo::phys;
namespace q19 = hemo::phys::d3q19;

namespace {
constexpr double tight = 1e-14;

double delta(int a, int b) { return a == b ? 1.0 : 0.0; }
}  // namespace

TEST_CASE("D3Q19 weights sum to one and give isotropic moments up to fourth order") {
  double w0 = 0, w1[3] = {0, 0, 0}, w2[3][3] = {}, w4[3][3][3][3] = {};
  for (int q = 0; q < q19::Q; ++q) {
    const double w = q19::w<double>(q);
    w0 += w;
    for (int a = 0; a < 3; ++a) {
      w1[a] += w * q19::c(q, a);
      for (int b = 0; b < 3; ++b) {
        w2[a][b] += w * q19::c(q, a) * q19::c(q, b);
        for (int c = 0; c < 3; ++c)
          for (int d = 0; d < 3; ++d) w4[a][b][c][d] += w * q19::c(q, a) * q19::c(q, b) * q19::c(q, c) * q19::c(q, d);
      }
    }
  }
  CHECK(w0 == doctest::Approx(1.0).epsilon(tight));
  double odd3 = 0;
  for (int q = 0; q < q19::Q; ++q)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) odd3 += q19::w<double>(q) * q19::c(q, a) * q19::c(q, b) * q19::c(q, c);
  CHECK(std::fabs(odd3) < tight);
  for (int a = 0; a < 3; ++a) {
    CHECK(std::fabs(w1[a]) < tight);
    for (int b = 0; b < 3; ++b) {
      CHECK(w2[a][b] == doctest::Approx(delta(a, b) / 3.0).epsilon(tight));
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 3; ++d) {
          // sum_q w c_a c_b c_c c_d = c_s^4 (d_ab d_cd + d_ac d_bd + d_ad d_bc)
          const double expect = (delta(a, b) * delta(c, d) + delta(a, c) * delta(b, d) + delta(a, d) * delta(b, c)) / 9.0;
          CHECK(w4[a][b][c][d] == doctest::Approx(expect).epsilon(tight));
        }
    }
  }
}

TEST_CASE("D3Q19 velocities are distinct, symmetric, and opposite() reverses them") {
  for (int q = 0; q < q19::Q; ++q) {
    const int o = q19::opposite(q);
    CHECK(q19::opposite(o) == q);
    CHECK(q19::w<double>(o) == q19::w<double>(q));
    for (int a = 0; a < 3; ++a) CHECK(q19::c(o, a) == -q19::c(q, a));
    const int norm2 = q19::cx(q) * q19::cx(q) + q19::cy(q) * q19::cy(q) + q19::cz(q) * q19::cz(q);
    CHECK(norm2 == (q == 0 ? 0 : (q <= 6 ? 1 : 2)));
    for (int p = q + 1; p < q19::Q; ++p)
      CHECK_FALSE((q19::cx(p) == q19::cx(q) && q19::cy(p) == q19::cy(q) && q19::cz(p) == q19::cz(q)));
  }
}

TEST_CASE("equilibrium reproduces density, momentum and momentum flux exactly") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> rho_d(0.9, 1.1), u_d(-0.1, 0.1);
  for (int trial = 0; trial < 50; ++trial) {
    const double rho = rho_d(rng);
    const Vec3<double> u{u_d(rng), u_d(rng), u_d(rng)};
    double m0 = 0, m1[3] = {0, 0, 0}, m2[3][3] = {};
    for (int q = 0; q < q19::Q; ++q) {
      const double f = equilibrium(q, rho, u);
      m0 += f;
      for (int a = 0; a < 3; ++a) {
        m1[a] += f * q19::c(q, a);
        for (int b = 0; b < 3; ++b) m2[a][b] += f * q19::c(q, a) * q19::c(q, b);
      }
    }
    CHECK(m0 == doctest::Approx(rho).epsilon(tight));
    for (int a = 0; a < 3; ++a) {
      CHECK(m1[a] == doctest::Approx(rho * u[a]).epsilon(1e-13).scale(rho));
      for (int b = 0; b < 3; ++b)  // Pi_ab = rho u_a u_b + c_s^2 rho delta_ab
        CHECK(m2[a][b] == doctest::Approx(rho * u[a] * u[b] + rho * delta(a, b) / 3.0).epsilon(1e-13).scale(rho));
    }
  }
}

TEST_CASE("BGK collision conserves mass and momentum; Guo forcing adds exactly F") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> pert(-0.01, 0.01), fd(-1e-4, 1e-4);
  for (int trial = 0; trial < 20; ++trial) {
    double h[q19::Q];
    for (int q = 0; q < q19::Q; ++q) h[q] = equilibrium_shifted(q, 0.02, Vec3<double>{0.03, -0.02, 0.01}) + pert(rng) * q19::w<double>(q);
    const Moments<double> before = moments(h);
    const Vec3<double> F{fd(rng), fd(rng), fd(rng)};
    const double omega = 1.0 / 0.7;
    collide_bgk(h, omega, F);
    const Moments<double> after = moments(h);
    CHECK(after.drho == doctest::Approx(before.drho).epsilon(1e-15).scale(1.0));
    // j* = j - omega (j - rho u) + (1 - omega/2) F with rho u = j + F/2  =>  j* = j + F
    CHECK(after.j.x == doctest::Approx(before.j.x + F.x).epsilon(1e-15).scale(1.0));
    CHECK(after.j.y == doctest::Approx(before.j.y + F.y).epsilon(1e-15).scale(1.0));
    CHECK(after.j.z == doctest::Approx(before.j.z + F.z).epsilon(1e-15).scale(1.0));
  }
}

TEST_CASE("collision leaves the equilibrium unchanged and relaxes by omega") {
  double h[q19::Q], heq[q19::Q];
  const Vec3<double> u{0.05, 0.0, -0.03};
  for (int q = 0; q < q19::Q; ++q) h[q] = heq[q] = equilibrium_shifted(q, -0.01, u);
  collide_bgk(h, 1.2, Vec3<double>{0, 0, 0});
  for (int q = 0; q < q19::Q; ++q) CHECK(h[q] == doctest::Approx(heq[q]).epsilon(1e-14).scale(1.0));
}

TEST_CASE("moving-wall terms of a sliding face cancel in +/- pairs") {
  // A lid at z+ sliding along x: a node below it pulls its five c_z = -1 populations
  // through the lid; their momentum terms must sum to zero (no mass added).
  const Vec3<double> u{0.1, 0.0, 0.0};
  double total = 0.0;
  int links = 0;
  for (int q = 1; q < q19::Q; ++q)
    if (q19::cz(q) == -1) {
      total += moving_wall_term(q, u);
      ++links;
    }
  CHECK(links == 5);
  CHECK(std::fabs(total) < 1e-17);
  // One link: 2 w rho (c.u) / c_s^2 with w = 1/36, c.u = 0.1
  CHECK(moving_wall_term(11, u) == doctest::Approx(6.0 / 36.0 * 0.1));
}
