// The Smagorinsky eddy viscosity (physics/smagorinsky.hpp) and its use by the regularized
// collision (physics/regularized.hpp, collision.hpp): off it returns tau0 bit for bit; its
// tau_eff solves Hou et al.'s quadratic and gives back nu_t = C^2 |S| for the
// Chapman-Enskog stress of a known strain rate; it grows with the stress; the collision
// relaxes at 1/tau_eff, and the stress it offers the wall shear is the total one.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "physics/collision.hpp"
#include "physics/smagorinsky.hpp"
#include "physics/wall_shear.hpp"

using namespace hemo::phys;
namespace q19 = hemo::phys::d3q19;

namespace {

using Pops = double[q19::Q];

/// A symmetric tensor P given by its six components (xx, yy, zz, xy, xz, yz).
struct Six {
  double xx, yy, zz, xy, xz, yz;
  double Q() const { return double_contraction(xx, yy, zz, xy, xz, yz); }
  Six scaled(double k) const { return {k * xx, k * yy, k * zz, k * xy, k * xz, k * yz}; }
};

/// Populations with density 1 + drho, velocity u and the non-equilibrium second moment
/// Pi1 = P: the equilibrium plus the second-order Hermite term w_q 9/2 (c.P.c - tr P / 3)
/// (regularized.hpp's f1 without its first-order part).
void with_stress(Pops& h, double drho, const Vec3<double>& u, const Six& P) {
  for (int q = 0; q < q19::Q; ++q) {
    const double cx = q19::cx(q), cy = q19::cy(q), cz = q19::cz(q);
    const double cPc = cx * cx * P.xx + cy * cy * P.yy + cz * cz * P.zz + 2.0 * (cx * cy * P.xy + cx * cz * P.xz + cy * cz * P.yz);
    h[q] = equilibrium_shifted(q, drho, u) + q19::w<double>(q) * 4.5 * (cPc - (P.xx + P.yy + P.zz) / 3.0);
  }
}

}  // namespace

TEST_CASE("Smagorinsky: the constant is 18 sqrt(2) C^2, and C = 0 gives tau0 bit for bit, also in fp32") {
  CHECK(smagorinsky_coefficient(0.15) == doctest::Approx(18.0 * std::sqrt(2.0) * 0.0225).epsilon(1e-15));
  CHECK(smagorinsky_coefficient(0.0) == 0.0);
  for (double tau0 : {0.5024, 0.5036, 0.51, 0.8, 1.7})
    for (double Q : {0.0, 1e-12, 3.3e-5, 0.7}) {
      CHECK(smagorinsky_tau(tau0, 0.0, Q, 1.02) == tau0);
      const float t = float(tau0);
      CHECK(smagorinsky_tau(t, 0.0f, float(Q), 0.98f) == t);
    }
  // No strain (Q = 0) leaves tau0 too, to rounding: sqrt(tau0^2) = tau0.
  CHECK(smagorinsky_tau(0.51, smagorinsky_coefficient(0.15), 0.0, 1.0) == doctest::Approx(0.51).epsilon(1e-16));
}

TEST_CASE("Smagorinsky: tau_eff solves tau^2 - tau0 tau - (9 sqrt(2)/2) C^2 sqrt(Q)/rho = 0") {
  const Six stresses[] = {{1e-3, -5e-4, -5e-4, 0.0, 0.0, 0.0},
                          {0.0, 0.0, 0.0, -2.4e-3, 0.0, 0.0},
                          {3e-4, 1e-4, -4e-4, 2e-4, -7e-4, 5e-5},
                          {2e-2, -1e-2, 5e-3, 1e-2, 3e-3, -8e-3}};
  for (double C : {0.1, 0.15, 0.17})
    for (double tau0 : {0.5024, 0.52, 0.9})
      for (const Six& P : stresses)
        for (double rho : {0.97, 1.0, 1.05}) {
          const double Q = P.Q(), k = 4.5 * std::sqrt(2.0) * C * C * std::sqrt(Q) / rho;
          const double tau = smagorinsky_tau(tau0, smagorinsky_coefficient(C), Q, rho);
          CHECK(tau > tau0);
          // Each term is at most tau^2: the residual is rounding of that size.
          CHECK(std::fabs(tau * tau - tau0 * tau - k) < 1e-15 * tau * tau);
        }
}

TEST_CASE("Smagorinsky: the stress of a strain rate S relaxed at tau0 + 3 C^2 |S| gives that tau back (nu_t = C^2 |S|)") {
  // Chapman-Enskog (Krueger et al. 2017, ch. 4): Pi1 = -2 rho c_s^2 tau S; here S is any
  // trace-free symmetric strain, |S| = sqrt(2 S:S), and nu_t / c_s^2 = 3 C^2 |S| (dx = 1).
  const Six strains[] = {{0.0, 0.0, 0.0, 1e-3, 0.0, 0.0},       // simple shear du_x/dy = 2e-3
                         {2e-3, -1e-3, -1e-3, 0.0, 0.0, 0.0},   // axisymmetric extension
                         {4e-4, -1e-4, -3e-4, -6e-4, 2e-4, 9e-4}};
  for (double C : {0.1, 0.17})
    for (double tau0 : {0.5024, 0.6})
      for (const Six& S : strains) {
        const double rho = 1.03, norm = std::sqrt(2.0 * S.Q());
        const double tau = tau0 + 3.0 * C * C * norm;
        const Six Pi1 = S.scaled(-2.0 * rho * tau / 3.0);
        CHECK(smagorinsky_tau(tau0, smagorinsky_coefficient(C), Pi1.Q(), rho) == doctest::Approx(tau).epsilon(1e-14));
      }
}

TEST_CASE("Smagorinsky: tau_eff grows monotonically with |Pi1|") {
  const Six P{3e-4, 1e-4, -4e-4, 2e-4, -7e-4, 5e-5};
  const double c = smagorinsky_coefficient(0.15);
  double last = smagorinsky_tau(0.5024, c, 0.0, 1.0);
  for (double k = 0.01; k < 1e3; k *= 1.7) {
    const double tau = smagorinsky_tau(0.5024, c, P.scaled(k).Q(), 1.0);
    CHECK(tau > last);
    last = tau;
  }
  // ... and falls with the density at the same Pi1 (the same strain carries less stress).
  CHECK(smagorinsky_tau(0.5024, c, P.Q(), 1.1) < smagorinsky_tau(0.5024, c, P.Q(), 0.9));
}

TEST_CASE("regularized collision with the Smagorinsky viscosity: relaxes at 1/tau_eff, and the stress is the total one") {
  const double tau0 = 0.503, C = 0.15, coeff = smagorinsky_coefficient(C);
  const Vec3<double> u{0.04, -0.01, 0.02}, F{2e-5, -1e-5, 3e-5};
  const Six P{3e-4, 1e-4, -4e-4, 5e-3, -7e-4, 5e-5};
  const double drho = 0.015;
  Pops h, by_hand, off, plain;
  with_stress(h, drho, u, P);
  for (int q = 0; q < q19::Q; ++q) by_hand[q] = off[q] = plain[q] = h[q];

  // The collision's Pi1 (Guo's velocity u + F/(2 rho)) and the rate from it.
  const NonEquilibrium<double> m = non_equilibrium(h, F);
  const double tau = smagorinsky_tau(tau0, coeff, double_contraction(m.xx, m.yy, m.zz, m.xy, m.xz, m.yz), m.rho);
  CHECK(tau > tau0 + 1e-3);  // the eddy viscosity is not negligible here

  const RegularizedCollision<double> les{1.0 / tau0, coeff};
  CHECK(les.omega_at(non_equilibrium(h, F)) == doctest::Approx(1.0 / tau).epsilon(1e-15));
  les(h, F);
  collide_regularized(by_hand, 1.0 / tau, F);
  for (int q = 0; q < q19::Q; ++q) CHECK(h[q] == doctest::Approx(by_hand[q]).epsilon(1e-14).scale(1.0));

  // Off (coefficient 0): the operator without it, bit for bit, and the rate 1/tau0 itself.
  const RegularizedCollision<double> none{1.0 / tau0, 0.0};
  CHECK(none.omega_at(non_equilibrium(off, F)) == 1.0 / tau0);
  none(off, F);
  collide_regularized(plain, 1.0 / tau0, F);
  for (int q = 0; q < q19::Q; ++q) CHECK(off[q] == plain[q]);

  // The stress offered to wall_shear at omega_eff: sigma = 2 rho (nu0 + nu_t) S, i.e. the
  // Chapman-Enskog stress at tau_eff, (1 - 1/(2 tau)) times -Pi1 (no force here: F = 0).
  Pops g;
  with_stress(g, drho, Vec3<double>{}, P);
  const Vec3<double> zero{};
  const SymTensor<double> s = viscous_stress(g, zero, les.omega_at(non_equilibrium(g, zero)));
  const NonEquilibrium<double> mg = non_equilibrium(g, zero);
  const double tau_g = smagorinsky_tau(tau0, coeff, double_contraction(mg.xx, mg.yy, mg.zz, mg.xy, mg.xz, mg.yz), mg.rho);
  CHECK(s.xy == doctest::Approx(-(1.0 - 0.5 / tau_g) * P.xy).epsilon(1e-12));
  CHECK(s.xz == doctest::Approx(-(1.0 - 0.5 / tau_g) * P.xz).epsilon(1e-12));
  CHECK(std::fabs(s.xy) > std::fabs((1.0 - 0.5 / tau0) * P.xy) * 1.1);  // more than the molecular stress
}
