#pragma once
// Sums of the populations as the two-array scheme holds them, for monitors (rbc's fluid
// momentum), whatever lb_bgk's streaming: on two arrays Field::sum(q) of "f"; streamed
// in place, the post-collision populations are first gathered into node order
// (core/mesh/population_slots.hpp), so the sum adds the same values in the same order:
// bitwise the two-array sum.
#include <array>
#include <cstdint>

#include "core/fields/field_registry.hpp"
#include "core/mesh/population_slots.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "physics/d3q19.hpp"

namespace hemo {

/// out[n] = f*_q(n) after the step the slots describe; zero at a brick's holes.
template <class Store, class View>
struct GatherPostCollision {
  Store* HEMO_RESTRICT out;
  const Store* HEMO_RESTRICT f;
  mesh::PopulationSlots<View> slots;
  int q;
  HEMO_HD void operator()(std::uint32_t n) const { out[n] = slots.lattice.is_fluid(n) ? f[slots.post_collision(q, n)] : Store(); }
};

/// The sums of f*_q over this rank's nodes after `after_step`, q = 0..18 (deterministic,
/// exec::sum).
std::array<double, phys::d3q19::Q> post_collision_sums(FieldRegistry& fields, const mesh::SparseMesh& mesh,
                                                      std::int64_t after_step);

}  // namespace hemo
