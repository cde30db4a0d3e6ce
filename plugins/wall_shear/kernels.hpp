#pragma once
// Device-safe kernels of the wall_shear plugin: the wall shear stress (WSS) of each wall
// node (physics/wall_shear.hpp) and its time integrals, one wall node per index (no
// atomics: the same bits for any thread count and on either backend). The viscous stress
// itself comes from the LB plugin's kernel (Scheduler::require_viscous_stress).
#include <cmath>
#include <cstdint>

#include "core/mesh/population_slots.hpp"
#include "physics/wall_shear.hpp"

namespace hemo::wall_shear {

namespace d3q19 = phys::d3q19;

/// The viscous stress of mesh node n from the node field "viscous_stress" (6 rows: xx,
/// yy, zz, xy, xz, yz), which the LB plugin writes inside its collide-stream kernel at the
/// nodes wall_shear asks for (Scheduler::require_viscous_stress).
template <class Real>
HEMO_HD phys::SymTensor<Real> stress_at(const Real* HEMO_RESTRICT stress, std::size_t s, std::uint32_t n) {
  return {stress[n], stress[s + n], stress[2 * s + n], stress[3 * s + n], stress[4 * s + n], stress[5 * s + n]};
}

/// Marks a wall node without an inner node to take the wall traction from.
inline constexpr std::uint32_t no_inner = 0xFFFFFFFFu;
/// The most inner nodes a wall node averages the wall traction of: the lattice directions
/// within 45 degrees of a normal (1 face and 4 edge directions about a face normal).
inline constexpr int inner_rows = 6;

/// The traction on the wall below a node j of the inner layers: the stress of j and of
/// its neighbour j' further from the wall, extrapolated linearly along the surface
/// distance to the wall (physics/wall_shear.hpp, wall_stress_extrapolated), times j's
/// wall normal. A wall node takes it from its inner neighbour: the stress at a staircase
/// node itself is off by up to 25% at concave steps (docs: plugins/wall_shear/README.md).
template <class Real>
struct WallTraction {
  const Real* HEMO_RESTRICT stress;             // 6 rows of `stride`: "viscous_stress"
  std::uint32_t stride;
  const std::uint32_t* HEMO_RESTRICT node;      // per inner node: j
  const std::uint32_t* HEMO_RESTRICT outer;     // per inner node: j'
  const Real* HEMO_RESTRICT reach;              // per inner node: d_j / (d_j' - d_j), 0 for none
  const Real* HEMO_RESTRICT normal;             // 3 rows of `count`: j's wall normal, into the fluid
  std::uint32_t count;
  Real* HEMO_RESTRICT traction;                 // 3 rows of `stride` (4 with depth_product)
  // extrapolation = "quadratic": per node d_j d_j', the product of the two depths the
  // line passes through (-1: none), into the traction's fourth row for
  // WallTractionQuadratic to read across the halo; null for "linear".
  const Real* HEMO_RESTRICT depth_product = nullptr;

  HEMO_HD void operator()(std::uint32_t a) const {
    const std::size_t s = stride, c = count;
    const std::uint32_t j = node[a], o = outer[a];
    const phys::SymTensor<Real> wall =
        phys::wall_stress_extrapolated(stress_at(stress, s, j), stress_at(stress, s, o), reach[a]);
    const phys::Vec3<Real> t = phys::apply(wall, phys::Vec3<Real>{normal[a], normal[c + a], normal[2 * c + a]});
    traction[j] = t.x;
    traction[s + j] = t.y;
    traction[2 * s + j] = t.z;
    if (depth_product) traction[3 * s + j] = depth_product[a];
  }
};

/// extrapolation = "quadratic": the traction at the wall below an inner node j from the
/// linear extrapolations (WallTraction) of j and of its outer node j', one Richardson
/// step (physics/wall_shear.hpp, wall_traction_quadratic). j' may be a halo node: its
/// owner made its linear value, and the halo carried it with its depth product.
template <class Real>
struct WallTractionQuadratic {
  const Real* HEMO_RESTRICT linear;         // 4 rows of `stride`: WallTraction's traction and depth product
  std::uint32_t stride;
  const std::uint32_t* HEMO_RESTRICT node;   // per inner node: j
  const std::uint32_t* HEMO_RESTRICT outer;  // per inner node: j' (j itself where there is none)
  Real* HEMO_RESTRICT traction;              // 3 rows of `stride`

  HEMO_HD void operator()(std::uint32_t a) const {
    const std::size_t s = stride;
    const std::uint32_t j = node[a], o = outer[a];
    const phys::Vec3<Real> t = phys::wall_traction_quadratic(
        phys::Vec3<Real>{linear[j], linear[s + j], linear[2 * s + j]}, linear[3 * s + j],
        phys::Vec3<Real>{linear[o], linear[s + o], linear[2 * s + o]}, linear[3 * s + o]);
    traction[j] = t.x;
    traction[s + j] = t.y;
    traction[2 * s + j] = t.z;
  }
};

/// The WSS (Pa) of wall node i at a step, and, when `accumulate`, its samples' time
/// integrals: sum |tau| weight and sum tau weight (double, so long windows do not lose
/// the small late increments).
/// The stress method reads the step's viscous stress (of its wall node, or extrapolated
/// to the wall by WallTraction); the momentum exchange reads the populations the step
/// left, in their storage Store (a 16-bit format read as Real(f[i])), where `state`
/// (population_slots.hpp) says, so both streaming schemes read the same values.
template <class Real, class Store = Real>
struct WallShearStress {
  bool momentum_exchange;                // false: the stress method
  const Store* HEMO_RESTRICT f;          // the populations (momentum exchange)
  mesh::PopulationState state;
  const Real* HEMO_RESTRICT stress;      // 6 rows of `stride`: "viscous_stress" (stress method)
  std::uint32_t stride;
  const std::uint32_t* HEMO_RESTRICT node;        // per wall node: its mesh node
  const std::uint32_t* HEMO_RESTRICT wall_pulls;  // per wall node: bit q set where pull q is a wall
  const Real* HEMO_RESTRICT normal;               // 3 rows of `count`: into the fluid
  const Real* HEMO_RESTRICT area;                 // per wall node: face area, dx^2 (momentum exchange)
  // evaluate = "wall": per wall node, inner_rows rows of the inner nodes whose wall
  // traction it averages (first row no_inner: its own stress; a row no_inner ends the
  // list) and their weights, and that traction (WallTraction); else null.
  const std::uint32_t* HEMO_RESTRICT inner;
  const Real* HEMO_RESTRICT inner_weight;
  const Real* HEMO_RESTRICT wall_traction;
  std::uint32_t count;
  double to_pascal;                      // lattice stress -> Pa: rho_0 dx^2 / dt^2
  double* HEMO_RESTRICT wss;             // 3 rows of `count`, Pa
  bool accumulate;
  double weight;                         // s: the time this sample stands for
  double* HEMO_RESTRICT sum_magnitude;   // per wall node: sum |tau| weight, Pa s
  double* HEMO_RESTRICT sum_vector;      // 3 rows: sum tau weight, Pa s

  HEMO_HD void operator()(std::uint32_t i) const {
    const std::uint32_t n = node[i];
    const std::size_t c = count;
    const phys::Vec3<Real> nrm{normal[i], normal[c + i], normal[2 * c + i]};
    const std::uint32_t bits = wall_pulls[i];
    phys::Vec3<Real> shear;
    if (momentum_exchange) {
      // f*_opp(q)(n), which leaves towards the wall and returns as f_q: the bounce-back slot.
      Real reflected[d3q19::Q];
      HEMO_UNROLL
      for (int q = 0; q < d3q19::Q; ++q)
        reflected[q] = (bits >> q & 1u)
                           ? Real(f[mesh::incoming_slot(state, stride, q, n, mesh::wall_link)])
                           : Real(0);
      shear = phys::wall_shear_from_force(phys::wall_force_momentum_exchange(bits, reflected), nrm, area[i]);
    } else if (wall_traction && inner[i] != no_inner) {
      // The wall traction of the inner nodes around the normal (WallTraction), averaged
      // with the weights set up (they sum to 1), then its tangential part.
      const std::size_t s = stride;
      phys::Vec3<Real> t{Real(0), Real(0), Real(0)};
      HEMO_UNROLL
      for (int k = 0; k < inner_rows; ++k) {
        const std::uint32_t j = inner[std::size_t(k) * c + i];
        if (j == no_inner) break;
        const Real w = inner_weight[std::size_t(k) * c + i];
        t.x += w * wall_traction[j];
        t.y += w * wall_traction[s + j];
        t.z += w * wall_traction[2 * s + j];
      }
      shear = phys::tangential(t, nrm);
    } else {
      shear = phys::wall_shear_from_stress(stress_at(stress, stride, n), nrm);
    }
    const double x = double(shear.x) * to_pascal, y = double(shear.y) * to_pascal, z = double(shear.z) * to_pascal;
    wss[i] = x;
    wss[c + i] = y;
    wss[2 * c + i] = z;
    if (!accumulate) return;
    sum_magnitude[i] += std::sqrt(x * x + y * y + z * z) * weight;
    sum_vector[i] += x * weight;
    sum_vector[c + i] += y * weight;
    sum_vector[2 * c + i] += z * weight;
  }
};

}  // namespace hemo::wall_shear
