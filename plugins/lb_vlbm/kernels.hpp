#pragma once
// Device-safe kernel of the lb_vlbm plugin: the generalized streaming of the volumetric
// lattice Boltzmann method (VLBM paper, seeds/000, eqs. 5-6) as link values.
//
// The paper streams particle numbers n = (1 - P) f, P the cell's solid fraction. Written
// for f (the density per fluid volume, which lb_bgk stores and collides: eqs. 3-4 are BGK
// in f), with x = y - c_q the cell a population leaves and y the cell it enters:
//   P(y) >= P(x) (G = 1): n_q(y) = (1 - P_y)/(1 - P_x) n*_q(x)   <=>  f_q(y) = f*_q(x),
//   P(y) <  P(x) (G = 0): n_q(y) = n*_q(x) + (P_x - P_y)/(1 - P_y) n*_opp(y)
//                         <=>  f_q(y) = (1 - phi) f*_q(x) + phi f*_opp(y),
//                               phi = (P_x - P_y) / (1 - P_y).
// So a pull from a more solid cell is a plain pull mixed with a bounce-back; P_x = 1 (a
// solid cell, not stored) gives phi = 1, halfway bounce-back. The mixed pulls are coded
// links between two fluid nodes, which the fused kernel pulls from their source node and
// then adds the value to (core/mesh/lattice_view.hpp, pull_node):
// h_q(y) = h*_q(x) + link_value[k], so
//   link_value[k] = phi (h*_opp(y) - h*_q(x)),
// formed from the post-collision populations of the last step (where lb_bgk's streaming
// left them, core/mesh/population_slots.hpp), and shift-invariant because w_q = w_opp(q).
// A pull, not a bounce-back plus a value: so the slot it reads is the one a plain pull
// reads, which in-place streaming needs (no two nodes may share a slot). Mass: the part
// of n*_q(x) that y does not take comes back to x through the opposite link (the G = 0
// case seen from x), so sum (1 - P) sum_q f is conserved exactly.
#include <cstdint>

#include "core/mesh/lattice_view.hpp"
#include "core/mesh/population_slots.hpp"
#include "physics/d3q19.hpp"
#include "physics/partial_volume.hpp"
#include "physics/storage16.hpp"

namespace hemo::vlbm {

namespace d3q19 = phys::d3q19;

// The mixing share m of each link comes from physics/partial_volume.hpp (lb_vlbm.mixing).
// With the paper's m = phi the particle number is conserved by the streaming itself. With
// a smaller m (the viscosity-weighted share) y takes (phi - m)(f*_q(x) - f*_opp(y)) more
// than the paper's rule gives it, in particles (1 - P_y) times that; so y's rest
// population, which it pulls from itself, gives that amount back:
//   f*_0(y) -= sum over y's mixed links of (phi - m)(f*_q(x) - f*_opp(y)),
// which restores the particle number sum exactly and leaves every momentum as m sets it
// (the rest population carries none).
//
// Under the Smagorinsky eddy viscosity each node relaxes at its own tau_eff, and the share
// is weighted by the receiving node's (lb_bgk writes it every step: relaxation_time), not
// by lattice.tau: m = viscosity_weighted_mix(phi, tau_eff(y)), returned share phi - m.
//
// Two kernels: PartialVolumeLinks, one thread per link, writes the link values and each
// link's excess; ReturnExcess, one thread per receiving node y, takes the sum of its
// links' excesses (a contiguous range: the links are grouped by y) from y's rest
// population. A node writes only its own rest population and reads no other's, so the
// nodes are independent, and the sum's order is fixed (bitwise the same on CPU and GPU).
// Store: the populations' storage (Real or a 16-bit format, physics/storage16.hpp), read
// as Real(f[i]).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct PartialVolumeLinks {
  Real* HEMO_RESTRICT link_value;
  const std::uint32_t* HEMO_RESTRICT link;    // link index k
  const std::uint32_t* HEMO_RESTRICT from;    // x: the more solid cell the population leaves
  const std::uint32_t* HEMO_RESTRICT to;      // y: the cell it enters
  const std::uint8_t* HEMO_RESTRICT direction;
  const Real* HEMO_RESTRICT mix;              // m; or, with relaxation_time, phi
  const Real* HEMO_RESTRICT returned_share;   // phi - m; null where m = phi (nothing to give back)
  Real* HEMO_RESTRICT excess;                 // per link: (phi - m)(f*_q(x) - f*_opp(y)), with returned_share
  const Store* HEMO_RESTRICT f;               // post-collision populations of the last step
  mesh::PopulationSlots<View> slots;          // where they are
  const Real* HEMO_RESTRICT relaxation_time = nullptr;  // per node, tau_eff of its last collision; null: m as given
  HEMO_HD void operator()(std::uint32_t i) const {
    const int q = direction[i];
    const Real pulled = Real(f[slots.post_collision_pulled(q, from[i], to[i])]);  // x may be a halo node
    const Real reflected = Real(f[slots.post_collision(d3q19::opposite(q), to[i])]);
    if (relaxation_time) {
      const Real phi = mix[i], m = phys::viscosity_weighted_mix(phi, relaxation_time[to[i]]);
      link_value[link[i]] = m * (reflected - pulled);
      excess[i] = (phi - m) * (pulled - reflected);
      return;
    }
    link_value[link[i]] = mix[i] * (reflected - pulled);
    if (returned_share) excess[i] = returned_share[i] * (pulled - reflected);
  }
};

/// y's rest population gives back its links' excess: f*_0(y) -= sum of excess over
/// [first[j], first[j + 1]).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct ReturnExcess {
  const std::uint32_t* HEMO_RESTRICT node;   // y: the less solid cell the links enter
  const std::uint32_t* HEMO_RESTRICT first;  // its links: [first[j], first[j + 1])
  const Real* HEMO_RESTRICT excess;
  Store* HEMO_RESTRICT f;
  mesh::PopulationSlots<View> slots;
  HEMO_HD void operator()(std::uint32_t j) const {
    Real returned = Real(0);
    for (std::uint32_t i = first[j]; i < first[j + 1]; ++i) returned += excess[i];
    Store& rest = f[slots.post_collision(0, node[j])];
    rest = phys::store_population<Store>(Real(rest) - returned, 0, 0u);
  }
};

/// The particle number of each cell, (1 - P) sum_q f = (1 - P)(1 + sum_q h): VLBM
/// conserves its sum over the domain (not the sum of the densities).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct CellParticles {
  Real* HEMO_RESTRICT out;
  const Real* HEMO_RESTRICT fluid_share;  // 1 - P per node
  const Store* HEMO_RESTRICT f;
  mesh::PopulationSlots<View> slots;
  HEMO_HD void operator()(std::uint32_t n) const {
    if (!slots.lattice.is_fluid(n)) {
      out[n] = Real(0);
      return;
    }
    Real sum = Real(1);
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) sum += Real(f[slots.post_collision(q, n)]);
    out[n] = fluid_share[n] * sum;
  }
};

}  // namespace hemo::vlbm
