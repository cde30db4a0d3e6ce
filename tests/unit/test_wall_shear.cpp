// Wall shear stress (physics/wall_shear.hpp) against hand-derived values: the stress of
// the Chapman-Enskog populations of a linear shear flow, the momentum exchange of those
// populations at a halfway wall, the normal of a flat wall's links, and a pure normal
// traction. Exact to rounding in fp64.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "physics/wall_shear.hpp"

using namespace hemo::phys;
namespace q19 = hemo::phys::d3q19;

namespace {

using Pops = double[q19::Q];

/// Populations of a linear shear u_x = G y at a node where u = (u_x, 0, 0): the
/// equilibrium plus the Chapman-Enskog non-equilibrium part (Krueger et al. 2017, ch. 4),
///   f_neq_q = -w_q tau rho / c_s^2 Q_qab du_a/dx_b,  Q_qab = c_qa c_qb - c_s^2 delta_ab,
/// here du_x/dy = G only, so f_neq_q = -3 w_q tau rho c_qx c_qy G.
void linear_shear(Pops& h, double tau, double G, double u_x, double drho = 0.0) {
  const double rho = 1.0 + drho;
  for (int q = 0; q < q19::Q; ++q)
    h[q] = equilibrium_shifted(q, drho, Vec3<double>{u_x, 0.0, 0.0}) -
           3.0 * q19::w<double>(q) * tau * rho * q19::cx(q) * q19::cy(q) * G;
}

/// Bits of the directions whose pull comes from below (c_qy = +1): a wall at y - 1/2.
std::uint32_t wall_below() {
  std::uint32_t bits = 0;
  for (int q = 1; q < q19::Q; ++q)
    if (q19::cy(q) == 1) bits |= 1u << q;
  return bits;
}

}  // namespace

TEST_CASE("wall shear: the stress of a linear shear is rho nu G, nu = (tau - 1/2)/3") {
  for (const double tau : {0.55, 0.8, 1.0, 1.7}) {
    CAPTURE(tau);
    const double G = 1e-3, drho = 0.01, rho = 1.0 + drho;
    Pops h;
    linear_shear(h, tau, G, 0.02, drho);
    const SymTensor<double> s = viscous_stress(h, Vec3<double>{}, 1.0 / tau);
    const double nu = (tau - 0.5) / 3.0;
    CHECK(s.xy == doctest::Approx(rho * nu * G).epsilon(1e-12));
    for (const double other : {s.xx, s.yy, s.zz, s.xz, s.yz}) CHECK(std::abs(other) < 1e-15);
    // The WSS on a wall below (normal +y into the fluid) is that stress along +x: the
    // fluid drags the wall downstream.
    const Vec3<double> n = wall_normal<double>(wall_below());
    const Vec3<double> wss = wall_shear_from_stress(s, n);
    CHECK(wss.x == doctest::Approx(rho * nu * G).epsilon(1e-12));
    CHECK(std::abs(wss.y) < 1e-15);
    CHECK(std::abs(wss.z) < 1e-15);
  }
}

TEST_CASE("wall shear: an equilibrium has no viscous stress") {
  Pops h;
  for (int q = 0; q < q19::Q; ++q) h[q] = equilibrium_shifted(q, 0.03, Vec3<double>{0.04, -0.02, 0.05});
  const SymTensor<double> s = viscous_stress(h, Vec3<double>{}, 1.25);
  for (const double c : {s.xx, s.yy, s.zz, s.xy, s.xz, s.yz}) CHECK(std::abs(c) < 1e-16);
}

TEST_CASE("wall shear: the Guo correction takes the force's part out of Pi_neq") {
  // Populations at equilibrium with the momentum j = rho u - F/2: the node's (Guo) velocity
  // is u, and sum c c (h - h_eq(u)) = -(F u + u F)/2 + F F/(4 rho), which the force term
  // cancels up to the second order in F.
  const double rho = 1.02;
  const Vec3<double> u{0.03, 0.01, -0.02}, F{2e-6, -1e-6, 3e-6};
  const Vec3<double> u_shift{u.x - 0.5 * F.x / rho, u.y - 0.5 * F.y / rho, u.z - 0.5 * F.z / rho};
  Pops h;
  for (int q = 0; q < q19::Q; ++q) h[q] = equilibrium_shifted(q, rho - 1.0, u_shift);
  const double omega = 1.0 / 0.8, keep = -(1.0 - 0.5 * omega) / (4.0 * rho);  // what is left: F F / (4 rho)
  const SymTensor<double> s = viscous_stress(h, F, omega);
  CHECK(std::abs(s.xx - keep * F.x * F.x) < 1e-15);
  CHECK(std::abs(s.yy - keep * F.y * F.y) < 1e-15);
  CHECK(std::abs(s.zz - keep * F.z * F.z) < 1e-15);
  CHECK(std::abs(s.xy - keep * F.x * F.y) < 1e-15);
  CHECK(std::abs(s.xz - keep * F.x * F.z) < 1e-15);
  CHECK(std::abs(s.yz - keep * F.y * F.z) < 1e-15);
  // Without the correction the stress would be off by (1 - omega/2)(F u + u F)/2 ~ 1e-8.
}

TEST_CASE("wall shear: the normal of a flat wall's links is the axis into the fluid") {
  for (int axis = 0; axis < 3; ++axis)
    for (const int side : {-1, 1}) {
      std::uint32_t bits = 0;
      for (int q = 1; q < q19::Q; ++q)
        if (q19::c(q, axis) == side) bits |= 1u << q;
      const Vec3<double> n = wall_normal<double>(bits);
      for (int a = 0; a < 3; ++a) CHECK(n[a] == doctest::Approx(a == axis ? side : 0).epsilon(1e-15));
      CHECK(wall_face_area(bits, n) == 1.0);
    }
  const Vec3<double> none = wall_normal<double>(0u);
  CHECK((none.x == 0.0 && none.y == 0.0 && none.z == 0.0));
  // An edge: walls below and behind (c_y = +1 or c_z = +1 pulls are walls): the normal
  // bisects them.
  std::uint32_t edge = 0;
  for (int q = 1; q < q19::Q; ++q)
    if (q19::cy(q) == 1 || q19::cz(q) == 1) edge |= 1u << q;
  const Vec3<double> n = wall_normal<double>(edge);
  CHECK(n.x == doctest::Approx(0.0));
  CHECK(n.y == doctest::Approx(std::sqrt(0.5)));
  CHECK(n.z == doctest::Approx(std::sqrt(0.5)));
  CHECK(wall_face_area(edge, n) == doctest::Approx(2.0 * std::sqrt(0.5)));
}

TEST_CASE("wall shear: a pure normal traction has no shear") {
  const Vec3<double> n = wall_normal<double>(wall_below());
  SymTensor<double> iso;
  iso.xx = iso.yy = iso.zz = -0.2;  // a pressure
  const Vec3<double> a = wall_shear_from_stress(iso, n);
  CHECK((a.x == 0.0 && a.y == 0.0 && a.z == 0.0));
  SymTensor<double> normal_only;
  normal_only.yy = 0.7;
  normal_only.xx = 0.1;  // in-plane normal stress: no traction on this wall
  const Vec3<double> b = wall_shear_from_stress(normal_only, n);
  CHECK((b.x == 0.0 && b.y == 0.0 && b.z == 0.0));
  const Vec3<double> c = wall_shear_from_force(Vec3<double>{0.0, -3.0, 0.0}, n, 1.0);
  CHECK((c.x == 0.0 && c.y == 0.0 && c.z == 0.0));
}

TEST_CASE("wall shear: momentum exchange at a halfway wall gives rho nu G for a linear shear") {
  // The wall at y = -1/2 below the node, u_x = G (y + 1/2): u = G/2 at the node. Its
  // post-collision populations (BGK, no force) are f* = f_eq + (1 - omega) f_neq, and the
  // bounced-back pair (1,-1,0), (-1,-1,0) gives the wall F_x = (u + (tau - 1) G)/3 = nu G.
  for (const double tau : {0.6, 0.8, 1.3}) {
    CAPTURE(tau);
    const double G = 2e-3;
    Pops h;
    linear_shear(h, tau, G, 0.5 * G);
    Pops post;
    for (int q = 0; q < q19::Q; ++q) {
      const double eq = equilibrium_shifted(q, 0.0, Vec3<double>{0.5 * G, 0.0, 0.0});
      post[q] = eq + (1.0 - 1.0 / tau) * (h[q] - eq);
    }
    const std::uint32_t bits = wall_below();
    Pops reflected{};
    for (int q = 1; q < q19::Q; ++q) reflected[q] = post[q19::opposite(q)];
    const Vec3<double> n = wall_normal<double>(bits);
    const Vec3<double> force = wall_force_momentum_exchange(bits, reflected);
    const Vec3<double> wss = wall_shear_from_force(force, n, wall_face_area(bits, n));
    CHECK(wss.x == doctest::Approx((tau - 0.5) / 3.0 * G).epsilon(1e-12));
    CHECK(std::abs(wss.y) < 1e-16);
    CHECK(std::abs(wss.z) < 1e-16);
    // The rest state pushes the wall along -n only.
    Pops rest{};
    const Vec3<double> p = wall_force_momentum_exchange(bits, rest);
    CHECK(p.y == doctest::Approx(-1.0 / 3.0));  // -2 (1/18 + 4/36)
    CHECK((p.x == 0.0 && p.z == 0.0));
  }
}

TEST_CASE("wall shear: extrapolating the stress to the wall is exact for a stress linear in the distance") {
  // Poiseuille flow in a pipe: sigma_xr = G r, r = R - d. Nodes at d = 0.7 and 1.9 dx.
  const double G = 0.013, R = 9.0, d_near = 0.7, d_far = 1.9;
  auto at = [&](double d) {
    SymTensor<double> s;
    s.xy = G * (R - d);
    s.xx = -3.0 * (R - d);  // any component extrapolates the same way
    return s;
  };
  const SymTensor<double> w = wall_stress_extrapolated(at(d_near), at(d_far), d_near / (d_far - d_near));
  CHECK(w.xy == doctest::Approx(G * R).epsilon(1e-14));
  CHECK(w.xx == doctest::Approx(-3.0 * R).epsilon(1e-14));
  CHECK(w.yz == 0.0);
  // reach 0: the near node's own stress.
  CHECK(wall_stress_extrapolated(at(d_near), at(d_far), 0.0).xy == at(d_near).xy);
}

TEST_CASE("wall shear: two linear extrapolations make a quadratic one, exact for a stress quadratic in the distance") {
  // s(d) = s0 + s1 d + c d^2 along the normal; node j at d_j, its outer node at d_j', that
  // one's outer node at d_j'' (not collinear: only the depths enter).
  const double s0 = 0.02, s1 = -0.004, c = 0.0007, dj = 0.9, dj1 = 1.6, dj2 = 2.75;
  auto s = [&](double d) { return s0 + s1 * d + c * d * d; };
  auto linear = [&](double a, double b) {  // wall_stress_extrapolated's rule on one component
    SymTensor<double> na, nb;
    na.xy = s(a);
    nb.xy = s(b);
    return wall_stress_extrapolated(na, nb, a / (b - a)).xy;
  };
  const Vec3<double> near{linear(dj, dj1), 2.0 * linear(dj, dj1), 0.0};
  const Vec3<double> far{linear(dj1, dj2), 2.0 * linear(dj1, dj2), 0.0};
  const Vec3<double> w = wall_traction_quadratic(near, dj * dj1, far, dj1 * dj2);
  CHECK(w.x == doctest::Approx(s0).epsilon(1e-13));
  CHECK(w.y == doctest::Approx(2.0 * s0).epsilon(1e-13));
  CHECK(w.z == 0.0);
  // The same three depths by Lagrange's three-point extrapolation.
  const double lagrange = s(dj) * (dj1 * dj2) / ((dj1 - dj) * (dj2 - dj)) +
                          s(dj1) * (dj * dj2) / ((dj - dj1) * (dj2 - dj1)) +
                          s(dj2) * (dj * dj1) / ((dj - dj2) * (dj1 - dj2));
  CHECK(w.x == doctest::Approx(lagrange).epsilon(1e-13));
  // A linear profile: both extrapolations agree, and so does the result.
  CHECK(wall_traction_quadratic(Vec3<double>{0.3, 0, 0}, 1.0, Vec3<double>{0.3, 0, 0}, 3.0).x == 0.3);
  // Kept as it is: a node without a linear extrapolation (g < 0) on either side, depths
  // too close (weight g_j / (g_j' - g_j) above quadratic_weight_limit), or none further.
  const Vec3<double> a{1.0, 2.0, 3.0}, b{0.5, 0.5, 0.5};
  CHECK(wall_traction_quadratic(a, -1.0, b, 3.0).x == 1.0);
  CHECK(wall_traction_quadratic(a, 1.0, b, -1.0).y == 2.0);
  CHECK(wall_traction_quadratic(a, 2.0, b, 3.0).z == 3.0);  // weight 2 / 1 > quadratic_weight_limit (1)
  CHECK(wall_traction_quadratic(a, 2.0, b, 2.0).x == 1.0);
  CHECK(wall_traction_quadratic(a, 1.5, b, 3.0).x == doctest::Approx(1.5));  // weight 1: still quadratic
}
