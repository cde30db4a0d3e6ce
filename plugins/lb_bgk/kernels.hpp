#pragma once
// Device-safe kernels of the D3Q19 BGK plugin, written once for CPU and GPU.
#include <cstdint>
#include <type_traits>

#include "core/mesh/lattice_view.hpp"
#include "core/mesh/population_slots.hpp"
#include "physics/collision.hpp"
#include "physics/bounce_back.hpp"
#include "physics/storage16.hpp"
#include "physics/wall_shear.hpp"

namespace hemo::lb_bgk {

namespace d3q19 = phys::d3q19;

// Storage: the populations are computed in Real and stored as Store: Real itself, or a
// 16-bit format (physics/storage16.hpp) read as Real(x) and written by store_population
// (nearest-even, or dithered with a per-step seed), so every kernel serves every storage.

/// Density and velocity of node n from the collision's moments.
template <class Real>
HEMO_HD void store_moments(const phys::NodeState<Real>& st, std::uint32_t n, std::size_t s, Real* HEMO_RESTRICT density,
                           Real* HEMO_RESTRICT velocity) {
  density[n] = Real(1) + st.drho;
  velocity[n] = st.u.x;
  velocity[s + n] = st.u.y;
  velocity[2 * s + n] = st.u.z;
}

/// The node-local half of an update, shared by every layout: relax the gathered
/// populations h (with the Guo force F) by the collision operator (physics/collision.hpp)
/// and store them, and the moments when asked. step_seed: 0 for nearest rounding into a
/// 16-bit storage, else the step's dither seed (ignored for float and double).
template <class Real, class Store, class Collision>
HEMO_HD void relax_and_store(Real (&h)[d3q19::Q], const Collision& collide, const phys::Vec3<Real>& F,
                             std::uint32_t n, std::size_t s, Store* HEMO_RESTRICT out, bool write_moments,
                             Real* HEMO_RESTRICT density, Real* HEMO_RESTRICT velocity, std::uint32_t step_seed = 0) {
  const phys::NodeState<Real> st = collide(h, F);
  HEMO_UNROLL
  for (int q = 0; q < d3q19::Q; ++q) out[std::size_t(q) * s + n] = phys::store_population<Store>(h[q], q, step_seed);
  if (write_moments) store_moments(st, n, s, density, velocity);
}

/// The force density at node n (Guo's term): rho g from the uniform acceleration, plus the
/// force-density field where a plugin declares one (null: none).
template <class Real>
HEMO_HD phys::Vec3<Real> body_force(const Real (&h)[d3q19::Q], const phys::Vec3<Real>& acceleration,
                                    const Real* HEMO_RESTRICT force, std::uint32_t n, std::size_t s) {
  const Real rho = Real(1) + phys::moments(h).drho;
  phys::Vec3<Real> F{rho * acceleration.x, rho * acceleration.y, rho * acceleration.z};
  if (force) {
    F.x += force[n];
    F.y += force[s + n];
    F.z += force[2 * s + n];
  }
  return F;
}

/// The viscous stress (physics/wall_shear.hpp, viscous_stress) of the populations a step
/// relaxes, at the nodes another plugin asked for (Scheduler::require_viscous_stress:
/// wall_shear), in the update kernels' with_stress variant, which runs on the steps it is
/// due (on the others the variant without, whose registers it would otherwise raise by
/// up to 35 in place with 16-bit storage: ptxas, sm_90). Computed from the
/// gathered populations before the collision, so no kernel gathers them a second time.
/// The rate is the collision's own at the node (Collision::omega_at, physics/collision.hpp):
/// 1/tau (omega+ for TRT), or with the Smagorinsky eddy viscosity (lb_bgk.smagorinsky) the
/// node's omega_eff = 1/tau_eff from the same Pi1 the collision relaxes. The stress is then
/// the total deviatoric stress, molecular plus eddy, -(1 - omega_eff/2) Pi1 - ..., and so
/// is the wall shear stress that wall_shear makes of it.
/// The same variant writes the node's relaxation time tau_eff = 1 / omega_eff where a plugin
/// asked for it (Scheduler::require_relaxation_time: lb_vlbm under the eddy viscosity),
/// every step: `out` null on the steps without the stress.
template <class Real>
struct StressOutput {
  Real* HEMO_RESTRICT out = nullptr;                  // 6 rows (xx, yy, zz, xy, xz, yz) of the stride; null: none
  const std::uint8_t* HEMO_RESTRICT nodes = nullptr;  // not 0 where it is wanted
  Real* HEMO_RESTRICT relaxation_time = nullptr;                 // tau_eff; null: none
  const std::uint8_t* HEMO_RESTRICT relaxation_nodes = nullptr;  // not 0 where it is wanted

  /// Whether the kernel's variant with these outputs is to run.
  HEMO_HD bool any() const { return out || relaxation_time; }

  template <class Collision>
  HEMO_HD void operator()(const Real (&h)[d3q19::Q], const phys::Vec3<Real>& F, const Collision& collision,
                          std::uint32_t n, std::size_t s) const {
    const bool stress = out && nodes[n], tau = relaxation_time && relaxation_nodes[n];
    if (!stress && !tau) return;
    const phys::NonEquilibrium<Real> m = phys::non_equilibrium(h, F);
    const Real omega = collision.omega_at(m);
    if (tau) relaxation_time[n] = Real(1) / omega;
    if (!stress) return;
    const phys::SymTensor<Real> t = phys::viscous_stress(m, F, omega);
    out[n] = t.xx;
    out[s + n] = t.yy;
    out[2 * s + n] = t.zz;
    out[3 * s + n] = t.xy;
    out[4 * s + n] = t.xz;
    out[5 * s + n] = t.yz;
  }
};

/// Step 1 of a pull update: the populations that stream into node n, h_q from the node
/// at x - c_q, or bounced back (link_codes.hpp) with a coded link's momentum term. The
/// layout's view (core/mesh/lattice_view.hpp) said where x - c_q is: src, may_be_coded
/// from its warp_sources(), which every thread calls before a brick's holes return.
template <class Real, class Store, class View>
HEMO_HD void pull(Real (&h)[d3q19::Q], const Store* HEMO_RESTRICT in, const View& lattice,
                  const std::uint32_t (&src)[d3q19::Q], bool may_be_coded, const Real* HEMO_RESTRICT link_value,
                  std::size_t s, std::uint32_t n) {
  // All 18 sources first, then 19 loads whose addresses need no branch: every load of
  // the node is in flight at once. (Branching on the link kind before each load left
  // the GPU waiting on one index at a time: 51% of the copy bandwidth instead of 87%
  // on an H200, docs/performance.md.)
  h[0] = Real(in[n]);
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q) {
    // Halfway bounce-back reads the node's own opposite population (bounce_back.hpp). A
    // row pointer and a 32-bit index: fewer integer instructions than a 64-bit offset per
    // load (the brick kernel is close to the instruction-issue limit).
    const bool from_node = mesh::is_node(src[q]);
    const Store* row = in + std::size_t(from_node ? q : d3q19::opposite(q)) * s;
    h[q] = Real(row[from_node ? src[q] : n]);
  }
  // Coded links add the wall's momentum term (moving walls, iolets); a view that knows
  // the node has none skips the test. A coded link between two fluid nodes (lb_vlbm)
  // pulls from its source node instead of bouncing back (lattice_view.hpp, pull_node):
  // read here, off the main path, which stays as short as without it.
  if (!may_be_coded) return;
  HEMO_UNROLL
  for (int q = 1; q < d3q19::Q; ++q)
    if (mesh::is_coded_link(src[q])) {
      const std::uint32_t from = lattice.pull_node(src[q]);
      if (from != mesh::wall_link) h[q] = Real(in[std::size_t(q) * s + from]);
      h[q] = phys::bounce_back_link(h[q], link_value[mesh::link_index(src[q])]);
    }
}

/// One fused pull step on node n (Rinaldi et al., seeds/003, sec. 3: stream by pulling,
/// then collide, one read and one write of every population):
///   1. gather h_q from the node at x - c_q (or bounce back, link_codes.hpp),
///   2. moments, Guo force (rho * g plus an optional force-density field),
///   3. relaxation by the collision operator (BGK, TRT or regularized) with Guo's source,
///   4. write the post-collision populations to the other population set.
/// Populations are SoA rows of `stride` entries: h_q(n) = f[q * stride + n], shifted
/// by -w_q (equilibrium.hpp). Every operator reads and writes the same 19 populations, so
/// each moves the same bytes per update. View: the mesh layout (lattice_view.hpp); a
/// brick's holes are skipped. with_stress: also the viscous stress where another plugin
/// asked for it (StressOutput; a variant of its own, so the plain update keeps its registers).
template <class Real, class Collision = phys::BgkCollision<Real>, class Store = Real, class View = mesh::NodeListView,
          bool with_stress = false>
struct CollideStream {
  const Store* HEMO_RESTRICT f_in;  // post-collision populations of the last step (A)
  Store* HEMO_RESTRICT f_out;       // this step's post-collision populations (B)
  View lattice;                     // where each pull comes from (lattice_view.hpp)
  const Real* HEMO_RESTRICT link_value;           // per coded link; null if there are none
  const Real* HEMO_RESTRICT force;  // 3 rows of force density; null for none
  Real* HEMO_RESTRICT density;      // written when write_moments
  Real* HEMO_RESTRICT velocity;     // 3 rows, written when write_moments
  phys::Vec3<Real> acceleration;    // uniform body acceleration, lattice units
  Collision collision;              // physics/collision.hpp
  std::uint32_t stride;
  bool write_moments;
  std::uint32_t step_seed = 0;  // 16-bit storage: 0 nearest rounding, else dithered (lb_bgk.rounding)
  StressOutput<Real> stress{};  // with_stress: the viscous stress at the nodes asked for

  HEMO_HD void operator()(std::uint32_t n) const {
    std::uint32_t src[d3q19::Q];
    const bool may_be_coded = lattice.warp_sources(n, src);
    if (!lattice.is_fluid(n)) return;
    const std::size_t s = stride;
    Real h[d3q19::Q];
    pull(h, f_in, lattice, src, may_be_coded, link_value, s, n);
    const phys::Vec3<Real> F = body_force(h, acceleration, force, n, s);
    if constexpr (with_stress) stress(h, F, collision, n, s);
    relax_and_store(h, collision, F, n, s, f_out, write_moments, density, velocity, step_seed);
  }
};

/// The same update with one population array, in place (lb_bgk.streaming = "aa"; the AA
/// pattern, P. Bailey et al., ICPP 2009; core/mesh/population_slots.hpp says where each
/// population is after an even and an odd step). An even step reads the node's own 19
/// slots (row q holds what streams in from x - c_q) and writes f*_q back into row opp(q);
/// an odd step reads f*_q(x - c_q) from row opp(q) of that node (its own row q where the
/// pull bounces back) and writes f*_q into the slot that direction opp(q) was read from.
/// Each node reads and writes the same 19 slots, so no two nodes share one. A coded link
/// adds its value in both parities. The values and their order are those of the A-B
/// kernel: both give bitwise the same populations.
template <class Real, class Collision = phys::BgkCollision<Real>, class Store = Real, class View = mesh::NodeListView,
          bool with_stress = false>
struct CollideStreamInPlace {
  Store* HEMO_RESTRICT f;
  View lattice;
  const Real* HEMO_RESTRICT link_value;
  const Real* HEMO_RESTRICT force;
  Real* HEMO_RESTRICT density;
  Real* HEMO_RESTRICT velocity;
  phys::Vec3<Real> acceleration;
  Collision collision;
  std::uint32_t stride;
  bool write_moments;
  std::uint32_t step_seed = 0;
  bool odd = false;  // the step's parity (steps count from 1)
  StressOutput<Real> stress{};

  HEMO_HD void operator()(std::uint32_t n) const {
    std::uint32_t src[d3q19::Q];
    const bool may_be_coded = odd ? lattice.warp_sources(n, src) : lattice.coded_links(n, src);
    if (!lattice.is_fluid(n)) return;
    const std::size_t s = stride;
    // Slot of direction q: row opp(q) of the node it is pulled from (odd steps), else
    // row q of this node; written back with f*_opp(q). With 32- and 64-bit storage the
    // slots are recomputed from src for the write-back (88 instead of 102 registers:
    // 1.26x on an H200 for fp32), and so they are on the node list with 16-bit storage
    // (1.10-1.12x for fp16s, 1.04x for e4m11 dithered); on bricks with 16-bit storage,
    // whose conversions need registers of their own, they are kept (recomputing there
    // cost 21-24%). H100, 2026-11-26, docs/bytes_per_update.md section 12.
    constexpr bool recompute = sizeof(Store) >= 4 || std::is_same_v<View, mesh::NodeListView>;
    std::uint32_t idx[d3q19::Q], pulled = 0;
    if constexpr (!recompute) {
      idx[0] = n;
      HEMO_UNROLL
      for (int q = 1; q < d3q19::Q; ++q) {
        const std::uint32_t from = odd ? lattice.pull_node(src[q]) : mesh::wall_link;
        pulled |= std::uint32_t(from != mesh::wall_link) << q;
        idx[q] = from != mesh::wall_link ? from : n;
      }
    }
    auto slot = [&](int q) -> Store* {
      if constexpr (recompute) {
        const std::uint32_t from = odd ? lattice.pull_node(src[q]) : mesh::wall_link;
        const bool from_node = from != mesh::wall_link;
        return f + std::size_t(from_node ? d3q19::opposite(q) : q) * s + (from_node ? from : n);
      } else {
        return f + std::size_t((pulled >> q & 1u) ? d3q19::opposite(q) : q) * s + idx[q];
      }
    };
    Real h[d3q19::Q];
    h[0] = Real(f[n]);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) h[q] = Real(*slot(q));
    if (may_be_coded) {
      HEMO_UNROLL
      for (int q = 1; q < d3q19::Q; ++q)
        if (mesh::is_coded_link(src[q])) h[q] = phys::bounce_back_link(h[q], link_value[mesh::link_index(src[q])]);
    }
    const phys::Vec3<Real> F = body_force(h, acceleration, force, n, s);
    if constexpr (with_stress) stress(h, F, collision, n, s);
    const phys::NodeState<Real> st = collision(h, F);
    f[n] = phys::store_population<Store>(h[0], 0, step_seed);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) *slot(d3q19::opposite(q)) = phys::store_population<Store>(h[q], q, step_seed);
    if (write_moments) store_moments(st, n, s, density, velocity);
  }
};

/// The plasma's velocity at the start of a step, from the populations that stream into
/// each node (`pull`, the same values the step's collision will see) with half the
/// uniform body force (Guo), without the force-density field (this step's is not known
/// yet). Particles coupled to the flow read it: the velocity of the last step's collision
/// is one streaming step old, and a drag coupled through that lag grows a mode of the
/// plasma under dense cells from rounding (docs/rbc.md).
/// Either streaming scheme: `state` says where the last step left the populations
/// (core/mesh/population_slots.hpp; two arrays: the same loads as `pull`).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct StreamedVelocity {
  const Store* HEMO_RESTRICT f_in;  // post-collision populations of the last step
  View lattice;
  const Real* HEMO_RESTRICT link_value;
  Real* HEMO_RESTRICT velocity;  // 3 rows
  phys::Vec3<Real> acceleration;
  std::uint32_t stride;
  mesh::PopulationState state = mesh::PopulationState::ab;

  HEMO_HD void operator()(std::uint32_t n) const {
    std::uint32_t src[d3q19::Q];
    const bool may_be_coded = lattice.warp_sources(n, src);
    if (!lattice.is_fluid(n)) return;
    const std::size_t s = stride;
    Real h[d3q19::Q];
    h[0] = Real(f_in[n]);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) h[q] = Real(f_in[mesh::incoming_slot(state, stride, q, n, lattice.pull_node(src[q]))]);
    if (may_be_coded) {
      HEMO_UNROLL
      for (int q = 1; q < d3q19::Q; ++q)
        if (mesh::is_coded_link(src[q])) h[q] = phys::bounce_back_link(h[q], link_value[mesh::link_index(src[q])]);
    }
    const phys::Moments<Real> m = phys::moments(h);
    const Real rho = Real(1) + m.drho, half = Real(0.5);
    velocity[n] = (m.j.x + half * rho * acceleration.x) / rho;
    velocity[s + n] = (m.j.y + half * rho * acceleration.y) / rho;
    velocity[2 * s + n] = (m.j.z + half * rho * acceleration.z) / rho;
  }
};

/// Initial state: equilibrium at rho = 1 and velocity u0 (lattice units); a brick's holes
/// keep zeros. In place (AA), as after an even step: f*_q in row opp(q).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct InitEquilibrium {
  View lattice;
  Store* HEMO_RESTRICT f;
  Real* HEMO_RESTRICT density;
  Real* HEMO_RESTRICT velocity;
  phys::Vec3<Real> u0;
  std::uint32_t stride;
  bool in_place = false;

  HEMO_HD void operator()(std::uint32_t n) const {
    if (!lattice.is_fluid(n)) return;
    const std::size_t s = stride;
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) f[std::size_t(in_place ? d3q19::opposite(q) : q) * s + n] = Store(phys::equilibrium_shifted(q, Real(0), u0));
    density[n] = Real(1);
    velocity[n] = u0.x;
    velocity[s + n] = u0.y;
    velocity[2 * s + n] = u0.z;
  }
};

}  // namespace hemo::lb_bgk
