#pragma once
// Named arrays on the mesh, shared between core and plugins. This is how plugins talk to
// each other: the LB plugin declares "f" and "density", a boundary plugin writes
// "link_value", the RBC plugin adds to "force". A field has `components` rows of `stride`
// entries (component-major, SoA), in the memory of the run's execution space.
#include <cstdint>
#include <map>
#include <span>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/exec/reduce.hpp"
#include "core/fields/particle_table.hpp"
#include "physics/storage16.hpp"

namespace hemo {

/// What a field holds, so output can convert it to physical units.
enum class Quantity { none, density, velocity, force_density };

class FieldBase {
 public:
  FieldBase(std::string name, std::string owner, std::string description, int components, std::uint32_t count,
            std::uint32_t stride, Quantity quantity)
      : name_(std::move(name)), owner_(std::move(owner)), description_(std::move(description)),
        components_(components), count_(count), stride_(stride), quantity_(quantity) {}
  virtual ~FieldBase() = default;
  const std::string& name() const { return name_; }
  const std::string& owner() const { return owner_; }
  const std::string& description() const { return description_; }
  int components() const { return components_; }
  std::uint32_t count() const { return count_; }    // meaningful entries per component
  std::uint32_t stride() const { return stride_; }  // row length (>= count, padded)
  Quantity quantity() const { return quantity_; }
  virtual const char* type_name() const = 0;
  virtual std::size_t bytes() const = 0;
  /// Bytes of one stored value.
  virtual std::size_t element_bytes() const = 0;
  /// Copies component c (count() values) to the host as doubles (for output and tests).
  virtual std::vector<double> component_to_host(int c) const = 0;
  /// The bytes of component c as stored (for checksums of the exact state).
  virtual std::vector<unsigned char> component_bytes(int c) const = 0;
  /// Replaces component c with `bytes` (count() values as stored): a checkpoint restored.
  virtual void set_component_bytes(int c, std::span<const unsigned char> bytes) = 0;
  /// Whether the field carries state from one step to the next, so that a checkpoint
  /// must hold it for a restart to continue bitwise (the populations; not the moments,
  /// which each step recomputes before anyone reads them). The declaring plugin says so.
  bool restart_state() const { return restart_state_; }
  FieldBase& set_restart_state() {
    restart_state_ = true;
    return *this;
  }
  /// Restart state that a checkpoint may lack: a plugin's accumulated statistics, which a
  /// run continued from a checkpoint written without that plugin starts afresh. Restored
  /// where the checkpoint holds it, left as initialised where not (restored() tells,
  /// after the restore); a run without the plugin ignores it in a checkpoint.
  FieldBase& set_optional_restart_state() {
    restart_state_ = optional_state_ = true;
    return *this;
  }
  bool optional_state() const { return optional_state_; }
  /// Whether a checkpoint filled it (--restart).
  bool restored() const { return restored_; }
  void mark_restored() { restored_ = true; }
  /// Whether the field holds populations streamed in place (lb_bgk.streaming = "aa",
  /// core/mesh/population_slots.hpp): its rows depend on the step's parity, and
  /// checkpoints and checksums read it through core/sim/population_state.hpp.
  bool in_place() const { return in_place_; }
  FieldBase& set_in_place() {
    in_place_ = true;
    return *this;
  }
  /// All stride() entries of component c as stored (halo included) and their inverse.
  virtual std::vector<unsigned char> row_bytes(int c) const = 0;
  virtual void set_row_bytes(int c, std::span<const unsigned char> bytes) = 0;
  /// Deterministic sum of component c in double (exec::sum), on the field's backend.
  virtual double sum(int c) const = 0;
  /// The same sum with the least and largest nonzero entry (exec::sum_range), one pass.
  virtual exec::SumRange sum_range(int c) const = 0;
  /// Index of the first NaN or infinite entry of component c, or -1.
  virtual std::int64_t first_non_finite(int c) const = 0;

 private:
  std::string name_, owner_, description_;
  int components_;
  std::uint32_t count_, stride_;
  Quantity quantity_;
  bool restart_state_ = false, in_place_ = false, optional_state_ = false, restored_ = false;
};

template <class T>
class Field final : public FieldBase {
 public:
  using value_type = T;
  Field(exec::Space space, std::string name, std::string owner, std::string description, int components,
        std::uint32_t count, std::uint32_t stride, Quantity quantity)
      : FieldBase(std::move(name), std::move(owner), std::move(description), components, count, stride, quantity),
        data_(space, std::size_t(components) * stride) {
    data_.zero();
  }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  T* component(int c) { return data_.data() + std::size_t(c) * stride(); }
  const T* component(int c) const { return data_.data() + std::size_t(c) * stride(); }
  exec::DeviceArray<T>& array() { return data_; }
  const exec::DeviceArray<T>& array() const { return data_; }
  const char* type_name() const override;
  std::size_t bytes() const override { return data_.bytes(); }
  std::vector<double> component_to_host(int c) const override;
  std::size_t element_bytes() const override { return sizeof(T); }
  std::vector<unsigned char> component_bytes(int c) const override { return bytes_out(c, count()); }
  void set_component_bytes(int c, std::span<const unsigned char> bytes) override { bytes_in(c, bytes, count()); }
  std::vector<unsigned char> row_bytes(int c) const override { return bytes_out(c, stride()); }
  void set_row_bytes(int c, std::span<const unsigned char> bytes) override { bytes_in(c, bytes, stride()); }
  double sum(int c) const override;
  exec::SumRange sum_range(int c) const override;
  std::int64_t first_non_finite(int c) const override;
  void swap_storage(Field& other) { data_.swap(other.data_); }

 private:
  /// The first `entries` values of component c as stored, and their inverse.
  std::vector<unsigned char> bytes_out(int c, std::size_t entries) const;
  void bytes_in(int c, std::span<const unsigned char> bytes, std::size_t entries);
  exec::DeviceArray<T> data_;
};

class FieldRegistry {
 public:
  FieldRegistry(exec::Space space, std::uint32_t nodes, std::uint32_t stride)
      : space_(space), nodes_(nodes), stride_(stride) {}

  exec::Space space() const { return space_; }
  std::uint32_t nodes() const { return nodes_; }
  std::uint32_t stride() const { return stride_; }

  /// Declares a per-node field (components rows of stride entries, zeroed). Declaring a
  /// name that exists with the same type and shape returns the existing field (shared);
  /// a clash of type or shape is an error naming both owners.
  template <class T>
  Field<T>& declare_node_field(const std::string& name, int components, const std::string& owner,
                               const std::string& description, Quantity quantity = Quantity::none) {
    return declare<T>(name, components, nodes_, stride_, owner, description, quantity);
  }
  /// Declares a field with `count` entries per component that are not nodes (per link,
  /// per particle, ...).
  template <class T>
  Field<T>& declare_array(const std::string& name, int components, std::uint32_t count, const std::string& owner,
                          const std::string& description) {
    return declare<T>(name, components, count, count, owner, description, Quantity::none);
  }

  template <class T>
  Field<T>& get(const std::string& name) {
    auto* f = dynamic_cast<Field<T>*>(&lookup(name));
    if (!f) throw std::logic_error("field '" + name + "' is not of type " + exec::element_type_name<T>());
    return *f;
  }
  template <class T>
  const Field<T>& get(const std::string& name) const {
    return const_cast<FieldRegistry*>(this)->get<T>(name);
  }
  bool contains(const std::string& name) const { return fields_.count(name) != 0; }
  FieldBase& lookup(const std::string& name);
  const FieldBase& lookup(const std::string& name) const;

  /// Swaps the storage of two fields of the same type and shape: the A-B population swap.
  template <class T>
  void swap(const std::string& a, const std::string& b) {
    get<T>(a).swap_storage(get<T>(b));
  }

  std::vector<const FieldBase*> list() const;
  std::size_t bytes() const;

  /// Declares a resizable table of particles (particle_table.hpp) on the run's backend;
  /// a name already taken is an error naming its owner.
  ParticleTable& declare_particle_table(const std::string& name, const std::string& owner, std::size_t capacity = 1024) {
    if (auto it = tables_.find(name); it != tables_.end())
      throw std::logic_error("particle table '" + name + "' declared by " + owner + " exists (owner " + it->second->owner() + ")");
    return *tables_.emplace(name, std::make_unique<ParticleTable>(space_, name, owner, capacity)).first->second;
  }
  ParticleTable& particle_table(const std::string& name) {
    auto it = tables_.find(name);
    if (it == tables_.end()) throw std::logic_error("no particle table '" + name + "'");
    return *it->second;
  }
  std::vector<const ParticleTable*> particle_tables() const {
    std::vector<const ParticleTable*> out;
    for (const auto& [n, t] : tables_) out.push_back(t.get());
    return out;
  }

 private:
  template <class T>
  Field<T>& declare(const std::string& name, int components, std::uint32_t count, std::uint32_t stride,
                    const std::string& owner, const std::string& description, Quantity quantity);

  exec::Space space_;
  std::uint32_t nodes_, stride_;
  std::map<std::string, std::unique_ptr<FieldBase>> fields_;
  std::map<std::string, std::unique_ptr<ParticleTable>> tables_;
};

/// Calls visit(field) with the population field `name` ("f", "f_next") typed as it is
/// stored: Real, or in an fp32 run one of the 16-bit storages (physics/storage16.hpp,
/// lb_bgk.storage). Kernels that read the populations take the storage as a template
/// parameter (`typename std::remove_cvref_t<decltype(field)>::value_type`).
template <class Real, class Visit>
void visit_populations(FieldRegistry& fields, const std::string& name, Visit&& visit) {
  if constexpr (std::is_same_v<Real, float>) {
    FieldBase& f = fields.lookup(name);
    if (auto* p = dynamic_cast<Field<phys::Fp16s>*>(&f)) return visit(*p);
    if (auto* p = dynamic_cast<Field<phys::E4m11s>*>(&f)) return visit(*p);
  }
  visit(fields.get<Real>(name));
}

/// Calls visit(field) with `f` typed as populations are stored: float, double or a 16-bit
/// storage (physics/storage16.hpp); a field of another type is a logic error.
template <class Visit>
void visit_stored(FieldBase& f, Visit&& visit) {
  if (auto* p = dynamic_cast<Field<float>*>(&f)) return visit(*p);
  if (auto* p = dynamic_cast<Field<double>*>(&f)) return visit(*p);
  if (auto* p = dynamic_cast<Field<phys::Fp16s>*>(&f)) return visit(*p);
  if (auto* p = dynamic_cast<Field<phys::E4m11s>*>(&f)) return visit(*p);
  throw std::logic_error("field '" + f.name() + "' of type " + f.type_name() + " does not hold populations");
}

extern template class Field<float>;
extern template class Field<double>;
extern template class Field<std::uint32_t>;
extern template class Field<std::int32_t>;
extern template class Field<std::uint8_t>;
extern template class Field<std::uint64_t>;
extern template class Field<phys::Fp16s>;
extern template class Field<phys::E4m11s>;

}  // namespace hemo
