// The TRT, regularized and recursive regularized collision operators (physics/trt.hpp,
// physics/regularized.hpp, physics/recursive_regularized.hpp)
// and the backflow stabilization of pressure outlets (physics/backflow.hpp)
// against hand-derived identities: conservation, Guo's momentum input, the equilibrium
// as a fixed point, and how each relaxes the moments. Exact to rounding in fp64.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "physics/backflow.hpp"
#include "physics/collision.hpp"

using namespace hemo::phys;
namespace q19 = hemo::phys::d3q19;

namespace {

using Pops = double[q19::Q];

/// A perturbed equilibrium: a random non-equilibrium part of every order.
void random_state(Pops& h, std::mt19937& rng) {
  std::uniform_real_distribution<double> pert(-0.01, 0.01);
  for (int q = 0; q < q19::Q; ++q)
    h[q] = equilibrium_shifted(q, 0.02, Vec3<double>{0.03, -0.02, 0.01}) + pert(rng) * q19::w<double>(q);
}

/// Second moment sum_q c_a c_b h_q.
void second_moment(const Pops& h, double (&m)[3][3]) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      m[a][b] = 0.0;
      for (int q = 0; q < q19::Q; ++q) m[a][b] += q19::c(q, a) * q19::c(q, b) * h[q];
    }
}

void copy(const Pops& from, Pops& to) {
  for (int q = 0; q < q19::Q; ++q) to[q] = from[q];
}

/// Runs two collisions on the same random states and forces (seeded) and hands both
/// results to `compare`.
template <class CollideA, class CollideB, class Compare>
void on_random_states(unsigned seed, CollideA collide_a, CollideB collide_b, Compare compare) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> fd(-1e-4, 1e-4);
  for (int trial = 0; trial < 10; ++trial) {
    Pops a, b;
    random_state(a, rng);
    copy(a, b);
    const Vec3<double> F{fd(rng), fd(rng), fd(rng)};
    collide_a(a, F);
    collide_b(b, F);
    compare(a, b);
  }
}

template <class Collide>
void check_conserves_mass_and_adds_force(Collide collide) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> fd(-1e-4, 1e-4);
  for (int trial = 0; trial < 20; ++trial) {
    Pops h;
    random_state(h, rng);
    const Moments<double> before = moments(h);
    const Vec3<double> F{fd(rng), fd(rng), fd(rng)};
    collide(h, F);
    const Moments<double> after = moments(h);
    CHECK(after.drho == doctest::Approx(before.drho).epsilon(1e-15).scale(1.0));
    // Guo: rho u = j + F/2 before; after the collision j* = j + F for every operator.
    CHECK(after.j.x == doctest::Approx(before.j.x + F.x).epsilon(1e-15).scale(1.0));
    CHECK(after.j.y == doctest::Approx(before.j.y + F.y).epsilon(1e-15).scale(1.0));
    CHECK(after.j.z == doctest::Approx(before.j.z + F.z).epsilon(1e-15).scale(1.0));
  }
}

}  // namespace

TEST_CASE("TRT and regularized collisions conserve mass; Guo forcing adds exactly F to the momentum") {
  const double tau = 0.53;
  check_conserves_mass_and_adds_force([&](Pops& h, const Vec3<double>& F) {
    collide_trt(h, 1.0 / tau, trt_omega_minus(tau, 3.0 / 16.0), F);
  });
  check_conserves_mass_and_adds_force([&](Pops& h, const Vec3<double>& F) { collide_regularized(h, 1.0 / tau, F); });
}

TEST_CASE("the equilibrium is a fixed point of TRT and of the regularized collision") {
  const Vec3<double> u{0.05, 0.0, -0.03};
  Pops h, g, heq;
  for (int q = 0; q < q19::Q; ++q) h[q] = g[q] = heq[q] = equilibrium_shifted(q, -0.01, u);
  collide_trt(h, 1.7, 1.1, Vec3<double>{0, 0, 0});
  collide_regularized(g, 1.7, Vec3<double>{0, 0, 0});
  for (int q = 0; q < q19::Q; ++q) {
    CHECK(h[q] == doctest::Approx(heq[q]).epsilon(1e-15).scale(1.0));
    CHECK(g[q] == doctest::Approx(heq[q]).epsilon(1e-15).scale(1.0));
  }
}

TEST_CASE("TRT magic parameter: omega- from Lambda, and TRT with omega- = omega+ is BGK") {
  // Lambda = (tau - 1/2)(1/omega- - 1/2): tau = 0.8, Lambda = 3/16 -> 1/omega- = 1/2 + 0.625.
  CHECK(trt_omega_minus(0.8, 3.0 / 16.0) == doctest::Approx(1.0 / 1.125).epsilon(1e-15));
  // Lambda = 1/4 at tau = 1: omega- = omega+ = 1.
  CHECK(trt_omega_minus(1.0, 0.25) == doctest::Approx(1.0).epsilon(1e-15));
  const double omega = 1.0 / 0.57;
  on_random_states(
      5, [&](Pops& h, const Vec3<double>& F) { collide_bgk(h, omega, F); },
      [&](Pops& h, const Vec3<double>& F) { collide_trt(h, omega, omega, F); },
      [](const Pops& a, const Pops& b) {
        for (int q = 0; q < q19::Q; ++q) CHECK(b[q] == doctest::Approx(a[q]).epsilon(1e-14).scale(1.0));
      });
}

TEST_CASE("TRT relaxes the odd part of each pair by omega- and the even part by omega+") {
  // Disturbances of the rest state (h = 0, the equilibrium at rho = 1, u = 0) that carry
  // no mass and no momentum, so the equilibrium stays h = 0 and each disturbance decays
  // by its own rate: an even one by 1 - omega+, an odd one by 1 - omega-.
  const double wp = 1.6, wm = 0.9;
  Pops h;
  for (int q = 0; q < q19::Q; ++q) h[q] = 0.0;
  const double e = 1e-3;
  h[1] += e, h[2] += e, h[3] -= e, h[4] -= e;  // even, no mass, no momentum, only Pi_xx - Pi_yy
  collide_trt(h, wp, wm, Vec3<double>{0, 0, 0});
  CHECK(h[1] == doctest::Approx((1 - wp) * e).epsilon(1e-14));
  CHECK(h[2] == doctest::Approx((1 - wp) * e).epsilon(1e-14));
  CHECK(h[3] == doctest::Approx(-(1 - wp) * e).epsilon(1e-14));
  // Odd: +e on pair (1,2) (c_1 = (1,0,0)), -e/2 on (7,8) (c_7 = (1,1,0)) and on (9,10)
  // (c_9 = (1,-1,0)): x momentum 2e - e - e = 0, y momentum -e + e = 0.
  Pops g;
  for (int q = 0; q < q19::Q; ++q) g[q] = 0.0;
  g[1] += e, g[2] -= e;            // odd part of pair (1,2): +e
  g[7] -= 0.5 * e, g[8] += 0.5 * e;  // odd part of pair (7,8): -e/2
  g[9] -= 0.5 * e, g[10] += 0.5 * e;  // odd part of pair (9,10): -e/2
  const Moments<double> m = moments(g);
  REQUIRE(std::fabs(m.j.x) < 1e-18);
  REQUIRE(std::fabs(m.j.y) < 1e-18);
  collide_trt(g, wp, wm, Vec3<double>{0, 0, 0});
  CHECK(g[1] == doctest::Approx((1 - wm) * e).epsilon(1e-14));
  CHECK(g[2] == doctest::Approx(-(1 - wm) * e).epsilon(1e-14));
  CHECK(g[7] == doctest::Approx(-(1 - wm) * 0.5 * e).epsilon(1e-14));
}

TEST_CASE("regularized collision: same mass, momentum and momentum flux as BGK; higher moments filtered") {
  const double omega = 1.0 / 0.52;
  on_random_states(
      23, [&](Pops& h, const Vec3<double>& F) { collide_bgk(h, omega, F); },
      [&](Pops& h, const Vec3<double>& F) { collide_regularized(h, omega, F); },
      [](const Pops& a, const Pops& b) {
        double ma[3][3], mb[3][3];
        second_moment(a, ma);
        second_moment(b, mb);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) CHECK(mb[i][j] == doctest::Approx(ma[i][j]).epsilon(1e-14).scale(1.0));
      });
  // A state whose non-equilibrium part is a pure second-order Hermite term is left to
  // BGK unchanged: regularization only removes what lies outside that space.
  const Vec3<double> u{0.02, -0.01, 0.03};
  const double Pi[3][3] = {{1e-3, 2e-4, -3e-4}, {2e-4, -5e-4, 1e-4}, {-3e-4, 1e-4, 2e-4}};
  Pops a, b;
  for (int q = 0; q < q19::Q; ++q) {
    double cpc = 0.0, tr = 0.0;
    for (int i = 0; i < 3; ++i) {
      tr += Pi[i][i];
      for (int j = 0; j < 3; ++j) cpc += q19::c(q, i) * q19::c(q, j) * Pi[i][j];
    }
    a[q] = b[q] = equilibrium_shifted(q, 0.01, u) + q19::w<double>(q) * 4.5 * (cpc - tr / 3.0);
  }
  collide_bgk(a, 1.9, Vec3<double>{0, 0, 0});
  collide_regularized(b, 1.9, Vec3<double>{0, 0, 0});
  for (int q = 0; q < q19::Q; ++q) CHECK(b[q] == doctest::Approx(a[q]).epsilon(1e-14).scale(1.0));
  // A third-order (non-hydrodynamic) disturbance, the mode c_x (c_y^2 - c_z^2) on the four
  // xy and xz diagonals with c_x = 1 (7, 9, 11, 13) and minus it on their opposites. It
  // has no mass, no momentum and no momentum flux; BGK keeps (1 - omega) of it,
  // regularization none.
  Pops g, k;
  const double e = 1e-3;
  for (int q = 0; q < q19::Q; ++q) {
    g[q] = e * q19::cx(q) * (q19::cy(q) * q19::cy(q) - q19::cz(q) * q19::cz(q));
    k[q] = g[q];
  }
  const Moments<double> gm = moments(g);
  REQUIRE(std::fabs(gm.drho) + std::fabs(gm.j.x) + std::fabs(gm.j.y) + std::fabs(gm.j.z) < 1e-18);
  collide_regularized(g, 1.9, Vec3<double>{0, 0, 0});
  collide_bgk(k, 1.9, Vec3<double>{0, 0, 0});
  CHECK(std::fabs(g[7]) < 1e-18);
  CHECK(k[7] == doctest::Approx((1 - 1.9) * e).epsilon(1e-14));
}

namespace {

/// The six D3Q19 third-order Hermite moments sum_q H_abc(c_q) h_q, H_aab = c_b (c_a^2 - 1/3).
ThirdOrder<double> third_moments(const Pops& h) {
  ThirdOrder<double> m{0, 0, 0, 0, 0, 0};
  for (int q = 0; q < q19::Q; ++q) {
    const double x = q19::cx(q), y = q19::cy(q), z = q19::cz(q);
    m.xxy += y * (x * x - 1.0 / 3.0) * h[q];
    m.xxz += z * (x * x - 1.0 / 3.0) * h[q];
    m.xyy += x * (y * y - 1.0 / 3.0) * h[q];
    m.yyz += z * (y * y - 1.0 / 3.0) * h[q];
    m.xzz += x * (z * z - 1.0 / 3.0) * h[q];
    m.yzz += y * (z * z - 1.0 / 3.0) * h[q];
  }
  return m;
}

}  // namespace

TEST_CASE("recursive regularized: T3 reproduces the six third-order moments and adds nothing below") {
  // f_q = w_q T3_q(a) must have sum_q f_q H_A = a_A for the six supported A and no mass,
  // momentum or second moment (recursive_regularized.hpp, Coreixas et al. 2017, eq. C4).
  const ThirdOrder<double> a{1e-3, -2e-3, 3e-3, 5e-4, -7e-4, 1.1e-3};
  Pops h;
  for (int q = 0; q < q19::Q; ++q) h[q] = q19::w<double>(q) * third_order_term(q, a);
  const ThirdOrder<double> m = third_moments(h);
  CHECK(m.xxy == doctest::Approx(a.xxy).epsilon(1e-14));
  CHECK(m.xxz == doctest::Approx(a.xxz).epsilon(1e-14));
  CHECK(m.xyy == doctest::Approx(a.xyy).epsilon(1e-14));
  CHECK(m.yyz == doctest::Approx(a.yyz).epsilon(1e-14));
  CHECK(m.xzz == doctest::Approx(a.xzz).epsilon(1e-14));
  CHECK(m.yzz == doctest::Approx(a.yzz).epsilon(1e-14));
  const Moments<double> low = moments(h);
  double pi[3][3];
  second_moment(h, pi);
  CHECK(std::fabs(low.drho) + std::fabs(low.j.x) + std::fabs(low.j.y) + std::fabs(low.j.z) < 1e-18);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(std::fabs(pi[i][j]) < 1e-18);
}

TEST_CASE("recursive regularized: conserves mass, adds F; moments up to the second are the regularized operator's") {
  const double tau = 0.51, omega = 1.0 / tau;
  check_conserves_mass_and_adds_force(
      [&](Pops& h, const Vec3<double>& F) { collide_recursive_regularized(h, omega, F); });
  on_random_states(
      31, [&](Pops& h, const Vec3<double>& F) { collide_regularized(h, omega, F); },
      [&](Pops& h, const Vec3<double>& F) { collide_recursive_regularized(h, omega, F); },
      [](const Pops& a, const Pops& b) {
        double ma[3][3], mb[3][3];
        second_moment(a, ma);
        second_moment(b, mb);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) CHECK(mb[i][j] == doctest::Approx(ma[i][j]).epsilon(1e-14).scale(1.0));
      });
}

TEST_CASE("recursive regularized: third-order moments after the collision are a3_eq + (1 - omega) a3_neq + (1 - omega/2) a3_F") {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> fd(-1e-4, 1e-4);
  const double omega = 1.0 / 0.505;
  for (int trial = 0; trial < 5; ++trial) {
    Pops h;
    random_state(h, rng);
    const Vec3<double> F{fd(rng), fd(rng), fd(rng)};
    const NonEquilibrium<double> m = non_equilibrium(h, F);
    collide_recursive_regularized(h, omega, F);
    const ThirdOrder<double> got = third_moments(h);
    const Vec3<double> u = m.u;
    const double k = 1 - omega, kf = 1 - omega / 2;
    // a_aab = rho u_a u_a u_b + k (2 u_a Pi1_ab + u_b Pi1_aa) + kf (2 u_a u_b F_a + u_a u_a F_b)
    auto expect = [&](double ua, double ub, double Fa, double Fb, double pab, double paa) {
      return m.rho * ua * ua * ub + k * (2 * ua * pab + ub * paa) + kf * (2 * ua * ub * Fa + ua * ua * Fb);
    };
    CHECK(got.xxy == doctest::Approx(expect(u.x, u.y, F.x, F.y, m.xy, m.xx)).epsilon(1e-10).scale(1e-12));
    CHECK(got.xxz == doctest::Approx(expect(u.x, u.z, F.x, F.z, m.xz, m.xx)).epsilon(1e-10).scale(1e-12));
    CHECK(got.xyy == doctest::Approx(expect(u.y, u.x, F.y, F.x, m.xy, m.yy)).epsilon(1e-10).scale(1e-12));
    CHECK(got.yyz == doctest::Approx(expect(u.y, u.z, F.y, F.z, m.yz, m.yy)).epsilon(1e-10).scale(1e-12));
    CHECK(got.xzz == doctest::Approx(expect(u.z, u.x, F.z, F.x, m.xz, m.zz)).epsilon(1e-10).scale(1e-12));
    CHECK(got.yzz == doctest::Approx(expect(u.z, u.y, F.z, F.y, m.yz, m.zz)).epsilon(1e-10).scale(1e-12));
  }
}

TEST_CASE("recursive regularized: its third-order equilibrium is a fixed point; at rest it is the regularized operator bit for bit") {
  const Vec3<double> u{0.05, 0.02, -0.03};
  const double drho = -0.01, rho = 1 + drho;
  const ThirdOrder<double> a3{rho * u.x * u.x * u.y, rho * u.x * u.x * u.z, rho * u.y * u.y * u.x,
                              rho * u.y * u.y * u.z, rho * u.z * u.z * u.x, rho * u.z * u.z * u.y};
  Pops h, heq;
  for (int q = 0; q < q19::Q; ++q)
    h[q] = heq[q] = equilibrium_shifted(q, drho, u) + q19::w<double>(q) * third_order_term(q, a3);
  collide_recursive_regularized(h, 1.9, Vec3<double>{0, 0, 0});
  for (int q = 0; q < q19::Q; ++q) CHECK(h[q] == doctest::Approx(heq[q]).epsilon(1e-14).scale(1.0));
  // u = 0 and F = 0: every third-order coefficient is 0 and the two operators agree exactly.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> pert(-0.01, 0.01);
  Pops g, k;
  for (int q = 0; q < q19::Q; ++q) g[q] = k[q] = pert(rng) * q19::w<double>(q);
  // remove the momentum so that u = 0
  const Moments<double> m = moments(g);
  for (int q = 0; q < q19::Q; ++q) {
    const double c = 3.0 * q19::w<double>(q) * (q19::cx(q) * m.j.x + q19::cy(q) * m.j.y + q19::cz(q) * m.j.z);
    g[q] -= c;
    k[q] -= c;
  }
  const Moments<double> m0 = moments(g);
  REQUIRE(std::fabs(m0.j.x) + std::fabs(m0.j.y) + std::fabs(m0.j.z) < 1e-17);
  collide_regularized(g, 1.95, Vec3<double>{0, 0, 0});
  collide_recursive_regularized(k, 1.95, Vec3<double>{0, 0, 0});
  // u is not exactly 0 after the correction (rounding), so equal to rounding rather than bitwise
  for (int q = 0; q < q19::Q; ++q) CHECK(k[q] == doctest::Approx(g[q]).epsilon(1e-12).scale(1e-15));
}

TEST_CASE("backflow stabilization lowers the prescribed density only where fluid enters") {
  // physics/backflow.hpp: d_rho = 3 beta rho (u.n)^2 for u.n < 0, else 0 (n outward).
  const Vec3<double> n{1.0, 0.0, 0.0};
  CHECK(backflow_density_drop(Vec3<double>{0.05, 0.02, 0.0}, n, 1.0, 1.0) == 0.0);         // outflow
  CHECK(backflow_density_drop(Vec3<double>{0.0, 0.04, 0.0}, n, 1.0, 1.0) == 0.0);          // tangential
  CHECK(backflow_density_drop(Vec3<double>{-0.02, 0.04, 0.0}, n, 1.02, 1.0) ==
        doctest::Approx(3.0 * 1.02 * 0.02 * 0.02).epsilon(1e-15));                         // inflow: normal part
  CHECK(backflow_density_drop(Vec3<double>{-0.02, 0.0, 0.0}, n, 1.0, 0.0) == 0.0);         // beta = 0: off
  // Continuous, with a continuous derivative, across u.n = 0.
  const double eps = 1e-6;
  CHECK(backflow_density_drop(Vec3<double>{-eps, 0.03, 0.0}, n, 1.0, 1.0) < 1e-11);
}
