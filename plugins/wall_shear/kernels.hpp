#pragma once
// Device-safe kernel of the wall_shear plugin: the wall shear stress (WSS) of each wall
// node (physics/wall_shear.hpp) and its time integrals, one wall node per index (no
// atomics: the same bits for any thread count and on either backend).
#include <cmath>
#include <cstdint>

#include "core/mesh/lattice_view.hpp"
#include "core/mesh/population_slots.hpp"
#include "physics/bounce_back.hpp"
#include "physics/wall_shear.hpp"

namespace hemo::wall_shear {

namespace d3q19 = phys::d3q19;

/// The viscous stress (physics/wall_shear.hpp, eq. 1) at mesh node n from the populations
/// the next collision sees, gathered as lb_bgk's StreamedVelocity gathers them; `sources`
/// holds the node's 18 pull codes as rows of `rows` (row q - 1, entry `at`), copied from
/// the mesh at set-up so that a warp reads them in one sweep.
template <class Real, class Store, class View>
struct NodeStress {
  const Store* HEMO_RESTRICT f;
  View lattice;
  mesh::PopulationState state;
  std::uint32_t stride;
  const Real* HEMO_RESTRICT link_value;  // per coded link; null if there are none
  const Real* HEMO_RESTRICT force;       // 3 rows of force density; null for none
  phys::Vec3<Real> acceleration;         // uniform body acceleration, lattice units
  Real omega;                            // 1/tau: the rate that relaxes the stress

  HEMO_HD phys::SymTensor<Real> operator()(std::uint32_t n, const std::uint32_t* HEMO_RESTRICT sources, std::size_t rows,
                                           std::size_t at) const {
    std::uint32_t src[d3q19::Q];
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) src[q] = sources[std::size_t(q - 1) * rows + at];
    Real h[d3q19::Q];
    h[0] = Real(f[n]);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) h[q] = Real(f[mesh::incoming_slot(state, stride, q, n, lattice.pull_node(src[q]))]);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q)
      if (mesh::is_coded_link(src[q])) h[q] = phys::bounce_back_link(h[q], link_value[mesh::link_index(src[q])]);
    const std::size_t s = stride;
    Real rho = Real(1);
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) rho += h[q];
    phys::Vec3<Real> F{rho * acceleration.x, rho * acceleration.y, rho * acceleration.z};
    if (force) {
      F.x += force[n];
      F.y += force[s + n];
      F.z += force[2 * s + n];
    }
    return phys::viscous_stress(h, F, omega);
  }
};

/// Marks a wall node without an inner node to take the wall traction from.
inline constexpr std::uint32_t no_inner = 0xFFFFFFFFu;
/// The most inner nodes a wall node averages the wall traction of: the lattice directions
/// within 45 degrees of a normal (1 face and 4 edge directions about a face normal).
inline constexpr int inner_rows = 6;

/// The viscous stress of the band nodes near the wall (evaluate = "wall"), into a 6-row
/// node field (xx, yy, zz, xy, xz, yz), for WallTraction to extrapolate from.
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct BandStress {
  // Latency bound (18 codes, then 19 gathers a node): 5 blocks of 256 an SM in fp32
  // instead of the 4 its 60 registers allow (48, 64 B spilled): 27.7 -> 23.5 us a sample
  // on the aorta (H100, ncu by hand: plugins/wall_shear/README.md, "Cost"; 2026-11-26).
  // fp64 would spill 250 B: left alone.
  static constexpr int min_blocks_per_sm = sizeof(Real) == 4 ? 5 : 2;
  NodeStress<Real, Store, View> stress;
  const std::uint32_t* HEMO_RESTRICT node;     // per band node: its mesh node
  const std::uint32_t* HEMO_RESTRICT sources;  // 18 rows of `count`: its pull codes
  std::uint32_t count;
  Real* HEMO_RESTRICT out;                     // 6 rows of the field's stride

  HEMO_HD void operator()(std::uint32_t b) const {
    const std::uint32_t n = node[b];
    const phys::SymTensor<Real> t = stress(n, sources, count, b);
    const std::size_t s = stress.stride;
    out[n] = t.xx;
    out[s + n] = t.yy;
    out[2 * s + n] = t.zz;
    out[3 * s + n] = t.xy;
    out[4 * s + n] = t.xz;
    out[5 * s + n] = t.yz;
  }
};

/// The traction on the wall below a node j of the inner layers: the stress of j and of
/// its neighbour j' further from the wall, extrapolated linearly along the surface
/// distance to the wall (physics/wall_shear.hpp, wall_stress_extrapolated), times j's
/// wall normal. A wall node takes it from its inner neighbour: the stress at a staircase
/// node itself is off by up to 25% at concave steps (docs: plugins/wall_shear/README.md).
template <class Real>
struct WallTraction {
  const Real* HEMO_RESTRICT stress;             // 6 rows of `stride` (BandStress)
  std::uint32_t stride;
  const std::uint32_t* HEMO_RESTRICT node;      // per inner node: j
  const std::uint32_t* HEMO_RESTRICT outer;     // per inner node: j'
  const Real* HEMO_RESTRICT reach;              // per inner node: d_j / (d_j' - d_j), 0 for none
  const Real* HEMO_RESTRICT normal;             // 3 rows of `count`: j's wall normal, into the fluid
  std::uint32_t count;
  Real* HEMO_RESTRICT traction;                 // 3 rows of `stride`

  HEMO_HD void operator()(std::uint32_t a) const {
    const std::size_t s = stride, c = count;
    const std::uint32_t j = node[a], o = outer[a];
    auto tensor = [&](std::uint32_t n) {
      return phys::SymTensor<Real>{stress[n], stress[s + n], stress[2 * s + n], stress[3 * s + n], stress[4 * s + n],
                                   stress[5 * s + n]};
    };
    const phys::SymTensor<Real> wall = phys::wall_stress_extrapolated(tensor(j), tensor(o), reach[a]);
    const phys::Vec3<Real> t = phys::apply(wall, phys::Vec3<Real>{normal[a], normal[c + a], normal[2 * c + a]});
    traction[j] = t.x;
    traction[s + j] = t.y;
    traction[2 * s + j] = t.z;
  }
};

/// The WSS (Pa) of wall node i after a step, and, when `accumulate`, its samples' time
/// integrals: sum |tau| weight and sum tau weight (double, so long windows do not lose
/// the small late increments).
/// Store: the populations' storage (Real or a 16-bit format, read as Real(f[i])); View:
/// the mesh layout (lattice_view.hpp). `state` says where the step left the populations
/// (population_slots.hpp), so both streaming schemes read the same values.
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct WallShearStress {
  NodeStress<Real, Store, View> stress;  // the populations and what the stress needs
  bool momentum_exchange;                // false: the stress method
  const std::uint32_t* HEMO_RESTRICT node;        // per wall node: its mesh node
  const std::uint32_t* HEMO_RESTRICT wall_pulls;  // per wall node: bit q set where pull q is a wall
  // 18 rows of `count`: each wall node's pull codes (link_codes.hpp, row q - 1), copied
  // from the mesh at set-up so that a warp reads them in one sweep instead of 18
  // scattered rows of the node table (the kernel gathers from sparse nodes).
  const std::uint32_t* HEMO_RESTRICT sources;
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
                           ? Real(stress.f[mesh::incoming_slot(stress.state, stress.stride, q, n, mesh::wall_link)])
                           : Real(0);
      shear = phys::wall_shear_from_force(phys::wall_force_momentum_exchange(bits, reflected), nrm, area[i]);
    } else if (wall_traction && inner[i] != no_inner) {
      // The wall traction of the inner nodes around the normal (WallTraction), averaged
      // with the weights set up (they sum to 1), then its tangential part.
      const std::size_t s = stress.stride;
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
      shear = phys::wall_shear_from_stress(stress(n, sources, c, i), nrm);
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
