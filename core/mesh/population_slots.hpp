#pragma once
// Where the populations are, for kernels outside lb_bgk that read them (iolets, walls'
// momentum exchange), with either streaming scheme of lb_bgk (lb_bgk.streaming):
//   ab  two arrays: after a step, f*_q(x) is in row q of x of "f" (the A set);
//   aa  one array, in place (the AA pattern: P. Bailey et al., ICPP 2009; the layout of
//       each parity below), "f" is that array. After an even step (and initially),
//       f*_q(x) is in row opp(q) of x; after an odd step it is in row q of the node at
//       x + c_q where that is fluid, else (a wall or a coded link) in row opp(q) of x.
//       Equivalently, after an odd step row q of y holds what y pulls in direction q
//       (bounced back or not), and the next (even) step reads its own rows.
// Every step reads each population where the last one wrote it and writes it back into a
// slot it read, so each node touches the same 19 slots and no two nodes share one.
#include <cstddef>
#include <cstdint>

#include "core/mesh/link_codes.hpp"
#include "physics/d3q19.hpp"
#include "physics/hd.hpp"

namespace hemo::mesh {

/// The state of the populations after a step: two arrays, or in place after an even or
/// an odd step (step 0, the initial state, is even).
enum class PopulationState : std::uint8_t { ab, aa_after_even, aa_after_odd };

HEMO_HD constexpr PopulationState population_state(bool in_place, std::int64_t after_step) {
  return !in_place ? PopulationState::ab : (after_step % 2 ? PopulationState::aa_after_odd : PopulationState::aa_after_even);
}

/// Slot (row * stride + node) the next step reads h_q(n) from, before a coded link's
/// value is added; `src` is the node q is pulled from (a view's pull_node), or wall_link
/// for the bounce-back slot, which holds f*_opp(q)(n) in every state.
HEMO_HD std::size_t incoming_slot(PopulationState state, std::uint32_t stride, int q, std::uint32_t n, std::uint32_t src) {
  const std::size_t s = stride;
  const bool pulled = is_node(src);
  switch (state) {
    case PopulationState::ab: return pulled ? std::size_t(q) * s + src : std::size_t(phys::d3q19::opposite(q)) * s + n;
    case PopulationState::aa_after_even:
      return pulled ? std::size_t(phys::d3q19::opposite(q)) * s + src : std::size_t(q) * s + n;
    default: return std::size_t(q) * s + n;
  }
}

/// Slot of the post-collision population f*_q(n) of the last step.
template <class View>
struct PopulationSlots {
  View lattice;  // lattice_view.hpp
  std::uint32_t stride;
  PopulationState state;
  HEMO_HD std::size_t post_collision(int q, std::uint32_t n) const {
    const std::size_t s = stride;
    switch (state) {
      case PopulationState::ab: return std::size_t(q) * s + n;
      case PopulationState::aa_after_even: return std::size_t(phys::d3q19::opposite(q)) * s + n;
      default: {
        const std::uint32_t y = q == 0 ? wall_link : lattice.downstream(q, n);
        return y != wall_link ? std::size_t(q) * s + y : std::size_t(phys::d3q19::opposite(q)) * s + n;
      }
    }
  }
  /// Slot of f*_q(x) where node y is known to pull q from x: also for a halo node x,
  /// whose own links this rank does not hold.
  HEMO_HD std::size_t post_collision_pulled(int q, std::uint32_t x, std::uint32_t y) const {
    const std::size_t s = stride;
    switch (state) {
      case PopulationState::ab: return std::size_t(q) * s + x;
      case PopulationState::aa_after_even: return std::size_t(phys::d3q19::opposite(q)) * s + x;
      default: return std::size_t(q) * s + y;
    }
  }
};

}  // namespace hemo::mesh
