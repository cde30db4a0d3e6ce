#include "core/fields/population_rows.hpp"

#include <type_traits>
#include <variant>

#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/launch_host.hpp"
#include "core/exec/reduce.hpp"
#include "core/fields/lattice_fields.hpp"
#include "physics/storage16.hpp"

namespace hemo {

std::array<double, phys::d3q19::Q> post_collision_sums(FieldRegistry& fields, const mesh::SparseMesh& mesh,
                                                      std::int64_t after_step) {
  std::array<double, phys::d3q19::Q> sums{};
  FieldBase& populations = fields.lookup("f");
  if (!populations.in_place()) {
    for (int q = 0; q < phys::d3q19::Q; ++q) sums[std::size_t(q)] = populations.sum(q);
    return sums;
  }
  const PopulationSlotsOf where = population_slots(fields, mesh, after_step);
  visit_stored(populations, [&](auto& f) {
    using Store = typename std::remove_cvref_t<decltype(f)>::value_type;
    exec::DeviceArray<Store> scratch(fields.space(), f.count());  // one row, reused for every q
    for (int q = 0; q < phys::d3q19::Q; ++q) {
      std::visit(
          [&](auto slots) {
            GatherPostCollision<Store, decltype(slots.lattice)> k{scratch.data(), f.data(), slots, q};
            exec::for_each(fields.space(), {0, f.count()}, k, "fields::gather_post_collision");
          },
          where);
      sums[std::size_t(q)] = exec::sum(fields.space(), scratch.data(), f.count());
    }
  });
  return sums;
}

}  // namespace hemo

#define HEMO_GATHER_POST_COLLISION(Store)                                                      \
  HEMO_INSTANTIATE_HOST(hemo::GatherPostCollision<Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::GatherPostCollision<Store, hemo::mesh::BrickView>)
HEMO_GATHER_POST_COLLISION(float);
HEMO_GATHER_POST_COLLISION(double);
HEMO_GATHER_POST_COLLISION(hemo::phys::Fp16s);
HEMO_GATHER_POST_COLLISION(hemo::phys::E4m11s);
