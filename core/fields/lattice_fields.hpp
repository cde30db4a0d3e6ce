#pragma once
// The mesh's addressing on the run's backend, as core fields (declared by the core before
// any plugin's setup), and the view a kernel takes (core/mesh/lattice_view.hpp):
//   node list: "neighbours" (18 rows of link codes per node);
//   bricks:    "brick_table" (27 per brick), "fluid_mask" and "link_mask" (one 64-bit word
//              per brick), "link_first" (per brick), "link_word" (per slot).
// "link_node", "link_direction" and "link_value" (per coded link) exist on both layouts.
// A kernel that pulls takes the view as a template parameter and is instantiated for both.
#include <algorithm>
#include <variant>

#include "core/fields/field_registry.hpp"
#include "core/mesh/lattice_view.hpp"
#include "core/mesh/population_slots.hpp"
#include "core/mesh/sparse_mesh.hpp"

namespace hemo {

using LatticeView = std::variant<mesh::NodeListView, mesh::BrickView>;

/// Declares and uploads the addressing fields of the mesh's layout.
inline void declare_lattice_fields(FieldRegistry& fields, const mesh::SparseMesh& m) {
  // Coded links between two fluid nodes (lb_vlbm) pull from their source node.
  const bool fluid_links =
      std::any_of(m.links.source.begin(), m.links.source.end(), [](std::uint32_t s) { return s != mesh::wall_link; });
  auto& source = fields.declare_array<std::uint32_t>("link_source", 1, fluid_links ? std::uint32_t(m.links.size()) : 0, "core",
                                                     "node a coded link pulls from (lb_vlbm), or wall_link");
  if (fluid_links) source.array().upload(m.links.source);
  if (m.layout == mesh::Layout::nodes) {
    fields.declare_node_field<std::uint32_t>("neighbours", 18, "core", "pull source of each direction 1..18 (link_codes.hpp)")
        .array()
        .upload(m.neighbours);
    return;
  }
  const std::uint32_t bricks = m.num_bricks;
  fields.declare_array<std::uint32_t>("brick_table", 1, 27 * bricks, "core", "ids of the 27 bricks around each brick, brick by brick")
      .array()
      .upload(m.brick_table);
  fields.declare_array<std::uint64_t>("fluid_mask", 1, bricks, "core", "bit s: slot s of the brick is fluid").array().upload(m.fluid_mask);
  fields.declare_array<std::uint64_t>("link_mask", 1, bricks, "core", "bit s: slot s of the brick has coded links")
      .array()
      .upload(m.link_mask);
  fields.declare_array<std::uint32_t>("link_first", 1, bricks, "core", "index of the brick's first coded link")
      .array()
      .upload(m.link_first);
  fields.declare_node_field<std::uint32_t>("link_word", 1, "core", "coded directions of the slot and its first link's offset")
      .array()
      .upload(m.link_word);
}

/// The view of the declared addressing fields (device pointers on CUDA).
inline LatticeView lattice_view(FieldRegistry& fields, const mesh::SparseMesh& m) {
  auto& sources = fields.get<std::uint32_t>("link_source");
  const std::uint32_t* link_source = sources.count() ? sources.data() : nullptr;
  if (m.layout == mesh::Layout::nodes)
    return mesh::NodeListView{fields.get<std::uint32_t>("neighbours").data(), m.stride, link_source};
  return mesh::BrickView{fields.get<std::uint32_t>("brick_table").data(), fields.get<std::uint64_t>("fluid_mask").data(),
                         fields.get<std::uint64_t>("link_mask").data(), fields.get<std::uint32_t>("link_word").data(),
                         fields.get<std::uint32_t>("link_first").data(), link_source};
}

/// Where the populations of "f" are after step `after_step` (core/mesh/population_slots.hpp),
/// for kernels that read them outside lb_bgk; lb_bgk marks "f" in place when it streams so.
using PopulationSlotsOf = std::variant<mesh::PopulationSlots<mesh::NodeListView>, mesh::PopulationSlots<mesh::BrickView>>;
inline PopulationSlotsOf population_slots(FieldRegistry& fields, const mesh::SparseMesh& m, std::int64_t after_step) {
  const mesh::PopulationState state = mesh::population_state(fields.lookup("f").in_place(), after_step);
  return std::visit([&](auto view) -> PopulationSlotsOf { return mesh::PopulationSlots<decltype(view)>{view, m.stride, state}; },
                    lattice_view(fields, m));
}

}  // namespace hemo
