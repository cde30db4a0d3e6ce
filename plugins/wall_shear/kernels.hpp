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

/// The WSS (Pa) of wall node i after a step, and, when `accumulate`, its samples' time
/// integrals: sum |tau| weight and sum tau weight (double, so long windows do not lose
/// the small late increments).
/// Store: the populations' storage (Real or a 16-bit format, read as Real(f[i])); View:
/// the mesh layout (lattice_view.hpp). `state` says where the step left the populations
/// (population_slots.hpp), so both streaming schemes read the same values.
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct WallShearStress {
  const Store* HEMO_RESTRICT f;
  View lattice;
  mesh::PopulationState state;
  std::uint32_t stride;
  const Real* HEMO_RESTRICT link_value;  // per coded link; null if there are none
  const Real* HEMO_RESTRICT force;       // 3 rows of force density; null for none
  phys::Vec3<Real> acceleration;         // uniform body acceleration, lattice units
  Real omega;                            // 1/tau: the rate that relaxes the stress
  bool momentum_exchange;                // false: the stress method
  const std::uint32_t* HEMO_RESTRICT node;        // per wall node: its mesh node
  const std::uint32_t* HEMO_RESTRICT wall_pulls;  // per wall node: bit q set where pull q is a wall
  // 18 rows of `count`: each wall node's pull codes (link_codes.hpp, row q - 1), copied
  // from the mesh at set-up so that a warp reads them in one sweep instead of 18
  // scattered rows of the node table (the kernel gathers from sparse nodes).
  const std::uint32_t* HEMO_RESTRICT sources;
  const Real* HEMO_RESTRICT normal;               // 3 rows of `count`: into the fluid
  const Real* HEMO_RESTRICT area;                 // per wall node: face area, dx^2 (momentum exchange)
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
        reflected[q] = (bits >> q & 1u) ? Real(f[mesh::incoming_slot(state, stride, q, n, mesh::wall_link)]) : Real(0);
      shear = phys::wall_shear_from_force(phys::wall_force_momentum_exchange(bits, reflected), nrm, area[i]);
    } else {
      // The populations the next collision sees, as lb_bgk's StreamedVelocity gathers them.
      std::uint32_t src[d3q19::Q];
      HEMO_UNROLL
      for (int q = 1; q < d3q19::Q; ++q) src[q] = sources[std::size_t(q - 1) * c + i];
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
      shear = phys::wall_shear_from_stress(phys::viscous_stress(h, F, omega), nrm);
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
