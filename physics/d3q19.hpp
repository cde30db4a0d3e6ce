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

}  // namespace hemo::phys::d3q19
