// The Gay-Berne RBC-RBC repulsion (physics/gay_berne.hpp, MUPHY paper eqs. 2.6-2.7):
// hand-computed values in the limits where sigma and eps have closed forms, force and
// torque against central differences of the energy, Newton's third law and angular
// momentum, and continuity at the cut-off.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "physics/gay_berne.hpp"

using hemo::phys::GayBerne;
using hemo::phys::Vec3;
using V = Vec3<double>;

namespace {

double norm(const V& v) { return std::sqrt(hemo::phys::dot(v, v)); }
V unit(const V& v) { return (1.0 / norm(v)) * v; }
/// v turned by angle t about the unit axis n (Rodrigues).
V rotate(const V& v, const V& n, double t) {
  return std::cos(t) * v + std::sin(t) * hemo::phys::cross(n, v) + ((1 - std::cos(t)) * hemo::phys::dot(n, v)) * n;
}
double energy(const GayBerne<double>& gb, const V& r, const V& ui, const V& uj) {
  return hemo::phys::gay_berne(gb, r, ui, uj).energy;
}

const V ex{1, 0, 0}, ey{0, 1, 0}, ez{0, 0, 1};
constexpr double cut = 1.122462048309373;  // 2^(1/6)

}  // namespace

TEST_CASE("Gay-Berne: spheres (chi = chi' = 0) give the WCA potential") {
  const auto gb = GayBerne<double>::from_shape(2.0, 2.0, 3.0);
  CHECK(gb.chi == 0.0);
  for (const double R : {1.9, 2.0, 2.1}) {
    const auto p = hemo::phys::gay_berne(gb, R * ex, ey, ez);
    const double x6 = std::pow(2.0 / R, 6);
    CHECK(p.energy == doctest::Approx(4 * 3.0 * (x6 * x6 - x6 + 0.25)).epsilon(1e-14));
    // -dU/dR along r: 4 eps (12 x^12 - 6 x^6) / R, pushing j away from i.
    CHECK(p.force_on_j.x == doctest::Approx(4 * 3.0 * (12 * x6 * x6 - 6 * x6) / R).epsilon(1e-13));
    CHECK(std::fabs(p.force_on_j.y) + std::fabs(p.force_on_j.z) < 1e-14);
    CHECK(norm(p.torque_i) + norm(p.torque_j) < 1e-13);
  }
  CHECK(hemo::phys::gay_berne(gb, 2.0 * cut * ex, ey, ez).energy == 0.0);
}

TEST_CASE("Gay-Berne: an oblate cell's contact distances and well depths") {
  // A discocyte-like cell: 8 across, 2 thick (kappa = 1/4), eps_s / eps_e = 1 (chi' = 0).
  const double s0 = 8.0, se = 2.0, eps0 = 1.5;
  const auto gb = GayBerne<double>::from_shape(s0, se, eps0);
  const double chi = (0.0625 - 1) / (0.0625 + 1);
  CHECK(gb.chi == doctest::Approx(chi));
  CHECK(gb.chi_eps == 0.0);
  const double eps_parallel = eps0 / std::sqrt(1 - chi * chi);  // c = 1: e1 = (1 - chi^2)^(-1/2)
  // Face to face (r along both axes): sigma = sigma_e, so at R = sigma_e, h = s0 and U = eps.
  CHECK(hemo::phys::gay_berne(gb, se * ez, ez, ez).energy == doctest::Approx(eps_parallel).epsilon(1e-13));
  // Rim to rim (r across both parallel axes): sigma = s0.
  CHECK(hemo::phys::gay_berne(gb, s0 * ex, ez, ez).energy == doctest::Approx(eps_parallel).epsilon(1e-13));
  // Crossed axes (c = 0) with r along neither: sigma = s0, eps = eps0.
  CHECK(hemo::phys::gay_berne(gb, s0 * ex, ey, ez).energy == doctest::Approx(eps0).epsilon(1e-13));
  // Face to face, the interaction ends at sigma_e + (2^(1/6) - 1) s0.
  const double end = se + (cut - 1) * s0;
  CHECK(hemo::phys::gay_berne(gb, (end * (1 + 1e-9)) * ez, ez, ez).energy == 0.0);
  CHECK(hemo::phys::gay_berne(gb, (end * (1 - 1e-3)) * ez, ez, ez).energy > 0.0);
  CHECK(gb.cutoff_distance() == doctest::Approx(s0 * cut));
}

TEST_CASE("Gay-Berne: force and torques are the derivatives of the energy; momentum and angular momentum") {
  std::mt19937_64 rng(20261123);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  auto random_unit = [&] {
    V v{0, 0, 0};
    while (norm(v) < 0.1) v = {uni(rng), uni(rng), uni(rng)};
    return unit(v);
  };
  int tested = 0;
  for (int trial = 0; trial < 2000 && tested < 200; ++trial) {
    const double kappa = 0.2 + 0.6 * (uni(rng) + 1) / 2;           // oblate, 0.2 .. 0.8
    const double kappa_eps = 0.3 + 2.0 * (uni(rng) + 1) / 2;       // eps_s / eps_e, 0.3 .. 2.3
    const auto gb = GayBerne<double>::from_shape(8.0, 8.0 * kappa, 1.0, kappa_eps, 2.0, 1.0);
    const V ui = random_unit(), uj = random_unit();
    const V r = (4.0 + 6.0 * (uni(rng) + 1) / 2) * random_unit();
    const auto p = hemo::phys::gay_berne(gb, r, ui, uj);
    if (p.energy <= 1e-6 || p.energy > 50.0) continue;  // beyond the cut, or too close to h = 0
    ++tested;
    const double scale = norm(p.force_on_j) + norm(p.torque_i) + norm(p.torque_j);
    const double d = 1e-6;
    // F_j = -dU/dr.
    for (const V& e : {ex, ey, ez}) {
      const double dU = (energy(gb, r + d * e, ui, uj) - energy(gb, r - d * e, ui, uj)) / (2 * d);
      CHECK(std::fabs(-dU - hemo::phys::dot(p.force_on_j, e)) < 1e-6 * scale);
    }
    // T_i . e = -dU/dtheta for cell i turned by theta about e (and the same for j).
    for (const V& e : {ex, ey, ez}) {
      const double dUi = (energy(gb, r, rotate(ui, e, d), uj) - energy(gb, r, rotate(ui, e, -d), uj)) / (2 * d);
      const double dUj = (energy(gb, r, ui, rotate(uj, e, d)) - energy(gb, r, ui, rotate(uj, e, -d))) / (2 * d);
      CHECK(std::fabs(-dUi - hemo::phys::dot(p.torque_i, e)) < 1e-6 * scale);
      CHECK(std::fabs(-dUj - hemo::phys::dot(p.torque_j, e)) < 1e-6 * scale);
    }
    // Angular momentum: T_i + T_j + r_i x F_i + r_j x F_j = T_i + T_j + r x F_j = 0.
    CHECK(norm(p.torque_i + p.torque_j + hemo::phys::cross(r, p.force_on_j)) < 1e-12 * scale * norm(r));
  }
  CHECK(tested == 200);
}

TEST_CASE("Gay-Berne: energy, force and torque vanish continuously at the cut-off") {
  const auto gb = GayBerne<double>::from_shape(8.0, 2.0, 1.0, 0.5);
  const V ui = unit(V{0.3, 0.2, 1.0}), uj = unit(V{-0.4, 0.1, 1.0}), dir = unit(V{0.2, 1.0, 0.5});
  // Walk out along dir until the pair stops interacting; just inside, everything is tiny.
  double R = 2.0, last_inside = 0.0;
  for (; R < 20.0; R += 1e-4)
    if (hemo::phys::gay_berne(gb, R * dir, ui, uj).energy > 0.0) last_inside = R;
  REQUIRE(last_inside > 2.0);
  const auto p = hemo::phys::gay_berne(gb, last_inside * dir, ui, uj);
  const auto q = hemo::phys::gay_berne(gb, 5.0 * dir, ui, uj);  // well inside, for scale
  CHECK(p.energy < 1e-6 * q.energy);
  CHECK(norm(p.force_on_j) < 1e-3 * norm(q.force_on_j));
  CHECK(norm(p.torque_i) < 1e-3 * norm(q.torque_i));
}
