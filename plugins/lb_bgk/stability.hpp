#pragma once
// How fast a flow each collision operator survives at a given resolution, from the
// stability map (docs/stability.md, tools/stability): its limits are Reynolds numbers at
// a number of nodes across, Re = U_max D / nu at N = D / dx, and for a given operator and
// geometry they did not move with the Mach number (0.05 and 0.1 gave the same Re). So the
// limit is one of the grid Reynolds number
//
//     Re_grid = U dx / nu = u_lattice / nu_lattice = 3 u_lattice / (tau - 1/2),
//
// i.e. at a given lattice velocity, one of tau: tau - 1/2 >= 3 u_lattice / Re_grid,max.
// A smaller tau or dt cannot fix it (u_lattice shrinks with tau - 1/2, Re_grid stays);
// only a finer dx or a more stable operator can. Host-only.
#include <string>

namespace hemo::lb_bgk {

struct GridReynoldsLimit {
  double warn = 0.0;    // above: some run of the map diverged
  double refuse = 0.0;  // above: every run of the map diverged
  std::string basis;    // what the numbers are, for messages
};

/// The limits of `collision` ("bgk", "trt" with `magic`, "regularized"). Each limit is the
/// map's Re / N (tables "pipe" and "bifurcation", N = 16, 32, 48, Mach 0.05 and 0.1):
/// `refuse` one grid step (19%) above the highest that survived anywhere, where the map
/// found that step diverging; `warn` the lowest that survived anywhere.
///   bgk:         survived 13.3 (pipe, 48 across, Mach 0.1) to 28.3 (bifurcation, 16 and 32
///                across); the backflow jet (docs/backflow.md) survived 33.3 (Re 800, 24
///                across), so refuse above 34.
///   trt (3/16):  survived 9.4 (48 across) to 10 (16 and 32 across) in both geometries,
///                diverged at 11.2-11.9; the jet diverged at 16.7: refuse above 12. A CPU
///                test at Re_grid 22 (docs/stability.md) diverged with magic 1/12, 3/16 and
///                1/4 and survived with 0.01 and 0.001, which are nearer BGK (its magic is
///                (tau - 1/2)^2): below magic 1/12 BGK's limits are used (an extrapolation).
///   regularized: survived 80 (bifurcation, 32 across, Mach 0.1) to 226 (pipe, 16 across),
///                refuse above 270.
inline GridReynoldsLimit grid_reynolds_limit(const std::string& collision, double magic) {
  if (collision == "regularized")
    return {80.0, 270.0, "the regularized operator survived U dx / nu up to 80-226 in the stability map"};
  if (collision == "recursive_regularized")  // not in the map yet: an assumption, said as one
    return {80.0, 270.0,
            "the recursive regularized operator is not in the stability map yet; the regularized operator's limits "
            "(80-226) are assumed"};
  if (collision == "trt" && magic >= 1.0 / 12.0)
    return {9.4, 12.0, "TRT with magic >= 1/12 survived U dx / nu up to 9.4-10 in the stability map"};
  return {13.3, 34.0,
          collision == "bgk" ? "BGK survived U dx / nu up to 13.3-33.3 in the stability map and the backflow jet"
                             : "TRT with magic < 1/12 is taken as BGK, which survived U dx / nu up to 13.3-33.3"};
}

}  // namespace hemo::lb_bgk
