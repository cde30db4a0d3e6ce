#pragma once
// D3Q19 lattice: velocities c_q, weights w_q and opposite directions.
// HemeLB paper (seeds/001), section 2.2 and eq. 4: w = 1/3 (rest), 1/18 (the 6 axis
// neighbours), 1/36 (the 12 edge diagonals); c_s^2 = 1/3 in lattice units.
//
// Numbering: 0 rest; 1..6 axis directions; 7..18 diagonals. Directions come in
// opposite pairs (1,2), (3,4), ..., (17,18), so opposite(q) is one add, branch-free.
#include "physics/hd.hpp"

namespace hemo::phys::d3q19 {

inline constexpr int Q = 19;
inline constexpr double cs2 = 1.0 / 3.0;

HEMO_HD constexpr int cx(int q) {
  constexpr int v[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
  return v[q];
}
HEMO_HD constexpr int cy(int q) {
  constexpr int v[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
  return v[q];
}
HEMO_HD constexpr int cz(int q) {
  constexpr int v[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
  return v[q];
}
HEMO_HD constexpr int c(int q, int axis) {
  return axis == 0 ? cx(q) : (axis == 1 ? cy(q) : cz(q));
}

/// Lattice weight w_q in the requested precision.
template <class Real>
HEMO_HD constexpr Real w(int q) {
  return q == 0 ? Real(1) / Real(3) : (q <= 6 ? Real(1) / Real(18) : Real(1) / Real(36));
}

/// Direction with c_opposite(q) = -c_q.
HEMO_HD constexpr int opposite(int q) { return q == 0 ? 0 : ((q & 1) ? q + 1 : q - 1); }

/// c_q . (x, y, z) from c_q's nonzero components only, in the order x, y, z. IEEE
/// arithmetic may not drop a product by a zero component (0 * x is -0 for negative x, NaN
/// for infinite x), so the full sum costs a multiply and an add per zero component: in an
/// unrolled loop over q these branches are constants, and the collision saves about 50
/// instructions a node (docs/bytes_per_update.md, section 10). The result equals the full
/// sum cx x + cy y + cz z, bit for bit, for finite operands wherever it is not zero; a
/// zero may differ in its sign, which the callers absorb (equilibrium.hpp, guo_forcing.hpp).
template <class Real>
HEMO_HD Real c_dot(int q, const Real& x, const Real& y, const Real& z) {
  Real s = Real(0);
  bool first = true;
  auto add = [&](int c, const Real& v) {
    if (c == 0) return;
    const Real t = c > 0 ? v : -v;
    s = first ? t : s + t;
    first = false;
  };
  add(cx(q), x);
  add(cy(q), y);
  add(cz(q), z);
  return s;
}

}  // namespace hemo::phys::d3q19
