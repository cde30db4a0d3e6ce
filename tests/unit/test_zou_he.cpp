// Zou-He pressure and velocity boundaries (physics/zou_he.hpp) on one D3Q19 node, for all
// six face orientations: equilibrium reproduced, imposed moments met, knowns untouched;
// anti-bounce-back and the pressure-link kernel (Nash, backflow) of the boundaries plugin.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <random>

#include "physics/equilibrium.hpp"
#include "physics/zou_he.hpp"
#include "plugins/boundaries/kernels.hpp"

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

// ---- the general non-equilibrium bounce-back (rim nodes, tilted planes) ----

namespace {

/// Unknown set of a plane with inward normal n: the directions pointing into the fluid.
/// A rim node drops some of them (they come from the wall).
std::uint32_t entering(const double (&n)[3]) {
  std::uint32_t m = 0;
  for (int q = 1; q < q19::Q; ++q)
    if (q19::cx(q) * n[0] + q19::cy(q) * n[1] + q19::cz(q) * n[2] > 1e-12) m |= 1u << q;
  return m;
}

void normalise(double (&n)[3]) {
  const double l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (double& c : n) c /= l;
}

}  // namespace

TEST_CASE("General Zou-He reproduces the equilibrium on tilted planes and rim subsets") {
  // f_q^eq - f_opp^eq = 6 w_q rho (c_q . u) exactly (the quadratic terms are even in c), so
  // an equilibrium node with u = u_d n is a fixed point for any unknown set.
  double normals[3][3] = {{1, 0, 0}, {0.8660254037844387, 0.5, 0}, {0.3, -0.5, 0.81}};
  for (auto& n : normals) {
    normalise(n);
    const std::uint32_t full = entering(n);
    for (std::uint32_t drop : {0u, full & (~full + 1)}) {  // all, or all but the lowest
      const std::uint32_t m = full & ~drop;
      REQUIRE(m != 0);
      const double ud = 0.037, drho = 0.021;
      const Vec3<double> u{ud * n[0], ud * n[1], ud * n[2]};
      double eq[q19::Q], hp[q19::Q], hv[q19::Q];
      for (int q = 0; q < q19::Q; ++q) {
        eq[q] = equilibrium_shifted(q, drho, u);
        hp[q] = hv[q] = (m >> q & 1u) ? 7.0 : eq[q];
      }
      CHECK(nebb_pressure(hp, m, n, 1.0 + drho) == doctest::Approx(ud).epsilon(1e-12));
      CHECK(nebb_velocity(hv, m, n, ud) == doctest::Approx(1.0 + drho).epsilon(1e-12));
      for (int q = 0; q < q19::Q; ++q) {
        CHECK(hp[q] == doctest::Approx(eq[q]).epsilon(1e-12));
        CHECK(hv[q] == doctest::Approx(eq[q]).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("General Zou-He meets the imposed density and normal velocity away from equilibrium") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> pert(-0.02, 0.02);
  double n[3] = {0.3, -0.5, 0.81};
  normalise(n);
  const std::uint32_t m = entering(n);
  for (int trial = 0; trial < 20; ++trial) {
    double h[q19::Q], before[q19::Q];
    for (int q = 0; q < q19::Q; ++q) before[q] = h[q] = (m >> q & 1u) ? 1e3 : pert(rng) * q19::w<double>(q);
    const double rho_b = 1.0 + pert(rng);
    const double ud = nebb_pressure(h, m, n, rho_b);
    double drho = 0, jn = 0;
    for (int q = 0; q < q19::Q; ++q) {
      drho += h[q];
      if (!(m >> q & 1u)) CHECK(h[q] == before[q]);  // the known populations are untouched
    }
    CHECK(1.0 + drho == doctest::Approx(rho_b).epsilon(1e-13));
    // The unknowns carry rho u_d (c_q . n) 6 w_q more than their opposites, by construction.
    for (int q = 1; q < q19::Q; ++q)
      if (m >> q & 1u) {
        const double cn = q19::cx(q) * n[0] + q19::cy(q) * n[1] + q19::cz(q) * n[2];
        jn += h[q] - h[q19::opposite(q)] - 6 * q19::w<double>(q) * cn * rho_b * ud;
      }
    CHECK(std::fabs(jn) < 1e-14);
  }
}

TEST_CASE("General Zou-He on a full axis-aligned face gives the classical density-velocity relation") {
  // W = 1 for the five unknowns of a face, so u_d = (rho_b - S) / rho_b as in Zou & He.
  std::mt19937 rng(3);
  for (const Face& f : faces) {
    double h[q19::Q], g[q19::Q];
    random_node(h, f, rng);
    for (int q = 0; q < q19::Q; ++q) g[q] = h[q];
    double n[3] = {0, 0, 0};
    n[f.axis] = f.sign;
    std::uint32_t m = 0;
    for (int q = 1; q < q19::Q; ++q)
      if (unknown(q, f)) m |= 1u << q;
    CHECK(nebb_pressure(h, m, n, 1.01) == doctest::Approx(zou_he_pressure(g, f.axis, f.sign, 1.01)).epsilon(1e-12));
  }
}

// ---- anti-bounce-back pressure rule (physics/anti_bounce_back.hpp) ----
#include "physics/anti_bounce_back.hpp"

TEST_CASE("Anti-bounce-back keeps an equilibrium at the prescribed density and velocity") {
  // At equilibrium f_q + f_opp = 2 f_q^eq,even, so the rule returns f_q^eq exactly, for
  // every direction and any velocity.
  const double drho = 0.013;
  const Vec3<double> u{0.03, -0.02, 0.045};
  for (int q = 1; q < q19::Q; ++q) {
    const double leaving = equilibrium_shifted(q19::opposite(q), drho, u);
    CHECK(anti_bounce_back(q, leaving, drho, u) == doctest::Approx(equilibrium_shifted(q, drho, u)).epsilon(1e-13));
  }
}

TEST_CASE("Anti-bounce-back prescribes the pair sum; the leaving population's disturbance stays in the odd part") {
  // A perturbation of the leaving population comes back with the opposite sign, so the
  // pair's even part f_q + f_opp stays at the prescribed equilibrium (the rule fixes the
  // even moments at the link) while the odd part f_q - f_opp carries it: Nash's rule
  // would drop it instead.
  const double drho = -0.004;
  const Vec3<double> u{0.02, 0.0, 0.0};
  for (int q = 1; q < q19::Q; ++q) {
    const double eq_leaving = equilibrium_shifted(q19::opposite(q), drho, u);
    const double a = anti_bounce_back(q, eq_leaving, drho, u), b = anti_bounce_back(q, eq_leaving + 1e-3, drho, u);
    CHECK(b - a == doctest::Approx(-1e-3).epsilon(1e-9));
  }
}

TEST_CASE("Pressure links (boundaries/kernels.hpp): Nash gives the equilibrium at the ghost density and the node's velocity") {
  // One node (stride 1) whose post-collision state is a disturbed equilibrium at
  // (rho, u); each link q of the iolet gets link_value = h_q wanted - h*_opp(q).
  const double drho_node = 0.003, drho_b = -0.002;
  const Vec3<double> u{0.03, -0.01, 0.02};
  double f[q19::Q];
  for (int q = 0; q < q19::Q; ++q) f[q] = equilibrium_shifted(q, drho_node, u) + 1e-4 * q19::w<double>(q) * ((q % 3) - 1);
  // The node's velocity as the kernel computes it from these populations.
  const Moments<double> m = moments(f);
  const Vec3<double> un{m.j.x / (1 + m.drho), m.j.y / (1 + m.drho), m.j.z / (1 + m.drho)};
  for (int q = 1; q < q19::Q; ++q) {
    double value = 0.0;
    const std::uint32_t link = 0, node = 0;
    const std::uint8_t dir = static_cast<std::uint8_t>(q);
    for (auto rule : {hemo::boundaries::PressureRule::nash, hemo::boundaries::PressureRule::anti_bounce_back}) {
      hemo::boundaries::PressureLinks<double> k{&value, &link, &node, &dir, f, {{nullptr, 1}, 1, {}}, drho_b, rule,
                                                {1.0, 0.0, 0.0}, 0.0};
      k(0);
      const double leaving = f[q19::opposite(q)];
      const double wanted = rule == hemo::boundaries::PressureRule::nash ? equilibrium_shifted(q, drho_b, un)
                                                                    : anti_bounce_back(q, leaving, drho_b, un);
      CHECK(value == doctest::Approx(wanted - leaving).epsilon(1e-13));
    }
  }
}

TEST_CASE("Pressure links: the backflow stabilization lowers the ghost density only where the node's flow enters") {
  // Outward normal +x. A node flowing out (u_x > 0) sees the prescribed density; one
  // flowing in (u_x < 0) sees it lowered by 3 beta rho u_x^2 (physics/backflow.hpp).
  const double drho_b = 0.001, beta = 1.0;
  for (const double ux : {0.04, -0.04}) {
    const Vec3<double> u{ux, 0.01, 0.0};
    double f[q19::Q];
    for (int q = 0; q < q19::Q; ++q) f[q] = equilibrium_shifted(q, 0.0, u);
    double value = 0.0;
    const std::uint32_t link = 0, node = 0;
    const std::uint8_t dir = 2;  // c_2 = (-1, 0, 0): the population that enters through the +x plane
    hemo::boundaries::PressureLinks<double> k{&value, &link, &node, &dir, f, {{nullptr, 1}, 1, {}}, drho_b,
                                        hemo::boundaries::PressureRule::nash, {1.0, 0.0, 0.0}, beta};
    k(0);
    const double target = ux < 0 ? drho_b - 3 * beta * 1.0 * ux * ux : drho_b;
    CHECK(value == doctest::Approx(equilibrium_shifted(2, target, u) - f[1]).epsilon(1e-13));
  }
}

TEST_CASE("Zou-He nodes (boundaries/kernels.hpp): a velocity node gets the non-equilibrium bounce-back, no transverse correction") {
  // One node (stride 1) of an inlet at x = 0 (inward normal +x) whose known populations
  // carry a tangential momentum. Hecht & Harting's correction would cancel it through the
  // entering diagonals, which is unstable with BGK near tau = 1/2 (physics/zou_he.hpp);
  // the kernel must give nebb_velocity's unknowns instead, with or without the full-face
  // bit, so the node keeps the tangential momentum of its known populations.
  namespace hb = hemo::boundaries;
  const Vec3<double> u0{0.02, 0.01, -0.005};
  double f[q19::Q];
  for (int q = 0; q < q19::Q; ++q) f[q] = equilibrium_shifted(q, 0.004, u0) + 1e-4 * q19::w<double>(q) * ((q % 5) - 2);
  std::uint32_t neighbours[q19::Q - 1], mask = 0, k = 0;
  for (int q = 1; q < q19::Q; ++q) {
    neighbours[q - 1] = 0;  // the known populations are pulled from the node itself
    if (q19::cx(q) == 1) {
      neighbours[q - 1] = hemo::mesh::coded_link | k++;
      mask |= 1u << q;
    }
  }
  REQUIRE(k == 5);
  const double ud = 0.0176, n[3] = {1.0, 0.0, 0.0}, shape[3] = {ud, 0.0, 0.0};
  double want[q19::Q];
  for (int q = 0; q < q19::Q; ++q) want[q] = f[q];
  const double rho = nebb_velocity(want, mask, n, ud);
  for (const std::uint32_t bits : {mask, mask | hb::zou_he_full_face}) {
    double link_value[5] = {9, 9, 9, 9, 9};
    const std::uint32_t node = 0;
    hb::ZouHeNodes<double> kernel{link_value, &node, &bits, neighbours, f, shape, 1, 1, 0, 1, {1.0, 0.0, 0.0},
                                  false, 0.0, {1.0, 0.0, 0.0}};
    kernel(0);
    double h[q19::Q], drho = 0, j[3] = {0, 0, 0};
    for (int q = 0; q < q19::Q; ++q) {
      const std::uint32_t code = q == 0 ? 0 : neighbours[q - 1];
      h[q] = hemo::mesh::is_node(code) ? f[q] : f[q19::opposite(q)] + link_value[hemo::mesh::link_index(code)];
      if (q19::cx(q) == 1) CHECK(h[q] == doctest::Approx(want[q]).epsilon(1e-13));
      drho += h[q];
      j[0] += q19::cx(q) * h[q];
      j[1] += q19::cy(q) * h[q];
      j[2] += q19::cz(q) * h[q];
    }
    CHECK(1.0 + drho == doctest::Approx(rho).epsilon(1e-13));
    CHECK(j[0] == doctest::Approx(rho * ud).epsilon(1e-12));
    // Each entering pair d +- e_b bounces back its opposites' tangential momentum, so the
    // node keeps that of the tangential set T (2 N_b), where the correction would zero it.
    for (int b : {1, 2}) {
      double t = 0;
      for (int q = 0; q < q19::Q; ++q)
        if (q19::cx(q) == 0) t += q19::c(q, b) * f[q];
      CHECK(j[b] == doctest::Approx(t).epsilon(1e-12));
      CHECK(std::fabs(j[b]) > 1e-4);
    }
  }
}
