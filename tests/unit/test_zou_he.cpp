// Zou-He pressure and velocity boundaries (physics/zou_he.hpp) on one D3Q19 node, for all
// six face orientations: equilibrium reproduced, imposed moments met, knowns untouched.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <random>

#include "physics/equilibrium.hpp"
#include "physics/zou_he.hpp"

using namespace hemo::phys;
namespace q19 = hemo::phys::d3q19;

namespace {

struct Face {
  int axis, sign;
};
constexpr Face faces[6] = {{0, 1}, {0, -1}, {1, 1}, {1, -1}, {2, 1}, {2, -1}};

bool unknown(int q, const Face& f) { return f.sign * q19::c(q, f.axis) == 1; }

Vec3<double> along(const Face& f, double u) {
  Vec3<double> v{0, 0, 0};
  (f.axis == 0 ? v.x : (f.axis == 1 ? v.y : v.z)) = f.sign * u;
  return v;
}

/// Random known populations near an equilibrium; the unknowns are set to junk, which
/// the boundary must ignore.
void random_node(double (&h)[q19::Q], const Face& f, std::mt19937& rng) {
  std::uniform_real_distribution<double> pert(-0.02, 0.02), rho_d(-0.05, 0.05), u_d(-0.05, 0.05);
  const Vec3<double> u{u_d(rng), u_d(rng), u_d(rng)};
  const double drho = rho_d(rng);
  for (int q = 0; q < q19::Q; ++q) {
    h[q] = equilibrium_shifted(q, drho, u) + pert(rng) * q19::w<double>(q);
    if (unknown(q, f)) h[q] = 1e3 + q;
  }
}

}  // namespace

TEST_CASE("Zou-He: five unknowns per face, opposite to the outgoing five") {
  for (const Face& f : faces) {
    int n_in = 0, n_out = 0;
    for (int q = 0; q < q19::Q; ++q) {
      if (unknown(q, f)) {
        ++n_in;
        CHECK(f.sign * q19::c(q19::opposite(q), f.axis) == -1);
      }
      if (f.sign * q19::c(q, f.axis) == -1) ++n_out;
    }
    CHECK(n_in == 5);
    CHECK(n_out == 5);
  }
}

TEST_CASE("Zou-He reproduces the equilibrium unknowns exactly for every face") {
  for (const Face& f : faces) {
    for (double rho : {0.97, 1.0, 1.04}) {
      for (double ud : {-0.08, 0.0, 0.05}) {
        CAPTURE(f.axis);
        CAPTURE(f.sign);
        CAPTURE(rho);
        CAPTURE(ud);
        const Vec3<double> u = along(f, ud);
        double eq[q19::Q], hp[q19::Q], hv[q19::Q];
        for (int q = 0; q < q19::Q; ++q) {
          eq[q] = equilibrium_shifted(q, rho - 1.0, u);
          hp[q] = hv[q] = unknown(q, f) ? -7.0 : eq[q];
        }
        const double u_out = zou_he_pressure(hp, f.axis, f.sign, rho);
        const double rho_out = zou_he_velocity(hv, f.axis, f.sign, ud);
        CHECK(u_out == doctest::Approx(ud).epsilon(1e-15).scale(1.0));
        CHECK(rho_out == doctest::Approx(rho).epsilon(1e-15));
        for (int q = 0; q < q19::Q; ++q) {
          CAPTURE(q);
          CHECK(std::fabs(hp[q] - eq[q]) < 1e-15);
          CHECK(std::fabs(hv[q] - eq[q]) < 1e-15);
        }
      }
    }
  }
}

TEST_CASE("Zou-He pressure: density rho_b, no tangential momentum, knowns untouched") {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> rho_d(0.95, 1.05);
  for (const Face& f : faces) {
    for (int trial = 0; trial < 40; ++trial) {
      double h[q19::Q], before[q19::Q];
      random_node(h, f, rng);
      for (int q = 0; q < q19::Q; ++q) before[q] = h[q];
      const double rho_b = rho_d(rng);
      const double ud = zou_he_pressure(h, f.axis, f.sign, rho_b);
      const Moments<double> m = moments(h);
      CHECK(1.0 + m.drho == doctest::Approx(rho_b).epsilon(1e-14));
      for (int a = 0; a < 3; ++a) {
        const double expect = a == f.axis ? f.sign * rho_b * ud : 0.0;
        CHECK(std::fabs(m.j[a] - expect) < 1e-14);
      }
      for (int q = 0; q < q19::Q; ++q)
        if (!unknown(q, f)) CHECK(h[q] == before[q]);
    }
  }
}

TEST_CASE("Zou-He velocity: normal velocity u_d, no tangential momentum, knowns untouched") {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u_dist(-0.1, 0.1);
  for (const Face& f : faces) {
    for (int trial = 0; trial < 40; ++trial) {
      double h[q19::Q], before[q19::Q];
      random_node(h, f, rng);
      for (int q = 0; q < q19::Q; ++q) before[q] = h[q];
      const double ud = u_dist(rng);
      const double rho = zou_he_velocity(h, f.axis, f.sign, ud);
      const Moments<double> m = moments(h);
      CHECK(1.0 + m.drho == doctest::Approx(rho).epsilon(1e-14));
      const double rho_node = 1.0 + m.drho;
      CHECK(f.sign * m.j[f.axis] / rho_node == doctest::Approx(ud).epsilon(1e-14).scale(1.0));
      for (int a = 0; a < 3; ++a)
        if (a != f.axis) CHECK(std::fabs(m.j[a]) < 1e-14);
      for (int q = 0; q < q19::Q; ++q)
        if (!unknown(q, f)) CHECK(h[q] == before[q]);
    }
  }
}

TEST_CASE("Zou-He in single precision keeps the shifted-population accuracy") {
  // rho u_d is formed as (rho_b - 1) - S_h from small numbers, so FP32 meets the target
  // density to ~1e-7 absolute even though rho ~ 1.
  std::mt19937 rng(5);
  for (const Face& f : faces) {
    double hd[q19::Q];
    random_node(hd, f, rng);
    float h[q19::Q];
    for (int q = 0; q < q19::Q; ++q) h[q] = static_cast<float>(hd[q]);
    const float rho_b = 1.0123f;
    zou_he_pressure(h, f.axis, f.sign, rho_b);
    double drho = 0;
    for (int q = 0; q < q19::Q; ++q) drho += h[q];
    CHECK(std::fabs(1.0 + drho - double(rho_b)) < 2e-7);
  }
}
