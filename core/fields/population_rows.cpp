#include "core/fields/population_rows.hpp"

#include <stdexcept>
#include <variant>

#include "core/common/text.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/launch_host.hpp"
#include "core/exec/reduce.hpp"
#include "core/fields/lattice_fields.hpp"
#include "physics/storage16.hpp"

namespace hemo {

namespace {
template <class Store>
double gathered_sum(FieldRegistry& fields, const Field<Store>& f, const mesh::SparseMesh& mesh, int q, std::int64_t after_step) {
  exec::DeviceArray<Store> scratch(fields.space(), f.count());
  std::visit(
      [&](auto slots) {
        GatherPostCollision<Store, decltype(slots.lattice)> k{scratch.data(), f.data(), slots, q};
        exec::for_each(fields.space(), {0, f.count()}, k, "fields::gather_post_collision");
      },
      population_slots(fields, mesh, after_step));
  return exec::sum(fields.space(), scratch.data(), f.count());
}
}  // namespace

double post_collision_sum(FieldRegistry& fields, const mesh::SparseMesh& mesh, int q, std::int64_t after_step) {
  FieldBase& f = fields.lookup("f");
  if (!f.in_place()) return f.sum(q);
  if (auto* p = dynamic_cast<Field<float>*>(&f)) return gathered_sum(fields, *p, mesh, q, after_step);
  if (auto* p = dynamic_cast<Field<double>*>(&f)) return gathered_sum(fields, *p, mesh, q, after_step);
  if (auto* p = dynamic_cast<Field<phys::Fp16s>*>(&f)) return gathered_sum(fields, *p, mesh, q, after_step);
  if (auto* p = dynamic_cast<Field<phys::E4m11s>*>(&f)) return gathered_sum(fields, *p, mesh, q, after_step);
  throw std::logic_error(str("post_collision_sum: populations of type ", f.type_name()));
}

}  // namespace hemo

#define HEMO_GATHER_POST_COLLISION(Store)                                                      \
  HEMO_INSTANTIATE_HOST(hemo::GatherPostCollision<Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::GatherPostCollision<Store, hemo::mesh::BrickView>)
HEMO_GATHER_POST_COLLISION(float);
HEMO_GATHER_POST_COLLISION(double);
HEMO_GATHER_POST_COLLISION(hemo::phys::Fp16s);
HEMO_GATHER_POST_COLLISION(hemo::phys::E4m11s);
