#include "core/fields/field_registry.hpp"

#include "core/common/text.hpp"
#include "core/exec/reduce.hpp"

#include <cstring>

namespace hemo {

template <class T>
const char* Field<T>::type_name() const {
  return exec::element_type_name<T>();
}

template <class T>
std::vector<double> Field<T>::component_to_host(int c) const {
  if (c < 0 || c >= components()) throw std::out_of_range("field '" + name() + "': no component " + std::to_string(c));
  std::vector<T> raw(count());
  if (count() == 0) return {};
  const T* src = component(c);
  if (data_.space() == exec::Space::host) std::copy(src, src + count(), raw.begin());
  else exec::cuda::copy_to_host(raw.data(), src, count() * sizeof(T));
  std::vector<double> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<double>(raw[i]);  // 16-bit storage: decoded
  return out;
}

template <class T>
std::vector<unsigned char> Field<T>::bytes_out(int c, std::size_t entries) const {
  if (c < 0 || c >= components()) throw std::out_of_range("field '" + name() + "': no component " + std::to_string(c));
  std::vector<unsigned char> raw(entries * sizeof(T));
  if (raw.empty()) return raw;
  if (data_.space() == exec::Space::host) std::memcpy(raw.data(), component(c), raw.size());
  else exec::cuda::copy_to_host(raw.data(), component(c), raw.size());
  return raw;
}

template <class T>
void Field<T>::bytes_in(int c, std::span<const unsigned char> bytes, std::size_t entries) {
  if (c < 0 || c >= components()) throw std::out_of_range("field '" + name() + "': no component " + std::to_string(c));
  if (bytes.size() != entries * sizeof(T))
    throw std::length_error("field '" + name() + "': " + std::to_string(bytes.size()) + " bytes for component " +
                            std::to_string(c) + ", expected " + std::to_string(entries * sizeof(T)));
  if (bytes.empty()) return;
  if (data_.space() == exec::Space::host) std::memcpy(component(c), bytes.data(), bytes.size());
  else exec::cuda::copy_to_device(component(c), bytes.data(), bytes.size());
}

template <class T>
double Field<T>::sum(int c) const {
  if constexpr (std::is_floating_point_v<T> || phys::is_stored16<T>) return exec::sum(data_.space(), component(c), count());
  else throw std::logic_error("field '" + name() + "': sum of a non-floating-point field");
}

template <class T>
exec::SumRange Field<T>::sum_range(int c) const {
  if constexpr (std::is_floating_point_v<T> || phys::is_stored16<T>)
    return exec::sum_range(data_.space(), component(c), count());
  else throw std::logic_error("field '" + name() + "': sum and range of a non-floating-point field");
}

template <class T>
std::int64_t Field<T>::first_non_finite(int c) const {
  if constexpr (std::is_floating_point_v<T> || phys::is_stored16<T>)
    return exec::first_non_finite(data_.space(), component(c), count());
  else return -1;
}

template <class T>
Field<T>& FieldRegistry::declare(const std::string& name, int components, std::uint32_t count, std::uint32_t stride,
                                 const std::string& owner, const std::string& description, Quantity quantity) {
  if (auto it = fields_.find(name); it != fields_.end()) {
    auto* existing = dynamic_cast<Field<T>*>(it->second.get());
    if (!existing || existing->components() != components || existing->count() != count) {
      throw std::logic_error(str("field '", name, "' declared by ", owner, " as ", exec::element_type_name<T>(), " x ", components,
                                 " clashes with the declaration by ", it->second->owner(), " as ",
                                 it->second->type_name(), " x ", it->second->components()));
    }
    return *existing;
  }
  auto field = std::make_unique<Field<T>>(space_, name, owner, description, components, count, stride, quantity);
  Field<T>& ref = *field;
  fields_.emplace(name, std::move(field));
  return ref;
}

FieldBase& FieldRegistry::lookup(const std::string& name) {
  auto it = fields_.find(name);
  if (it == fields_.end()) {
    std::vector<std::string> names;
    for (const auto& [n, f] : fields_) names.push_back(n);
    throw std::logic_error("no field named '" + name + "' (declared: " + join(names, ", ") + ")");
  }
  return *it->second;
}

const FieldBase& FieldRegistry::lookup(const std::string& name) const {
  return const_cast<FieldRegistry*>(this)->lookup(name);
}

std::vector<const FieldBase*> FieldRegistry::list() const {
  std::vector<const FieldBase*> out;
  for (const auto& [n, f] : fields_) out.push_back(f.get());
  return out;
}

std::size_t FieldRegistry::bytes() const {
  std::size_t b = 0;
  for (const auto& [n, f] : fields_) b += f->bytes();
  return b;
}

#define HEMO_FIELD_TYPE(T)                                                                                          \
  template class Field<T>;                                                                                          \
  template Field<T>& FieldRegistry::declare<T>(const std::string&, int, std::uint32_t, std::uint32_t,              \
                                               const std::string&, const std::string&, Quantity);
HEMO_FIELD_TYPE(float)
HEMO_FIELD_TYPE(double)
HEMO_FIELD_TYPE(std::uint32_t)
HEMO_FIELD_TYPE(std::int32_t)
HEMO_FIELD_TYPE(std::uint8_t)
HEMO_FIELD_TYPE(std::uint64_t)
HEMO_FIELD_TYPE(phys::Fp16s)
HEMO_FIELD_TYPE(phys::E4m11s)
#undef HEMO_FIELD_TYPE

}  // namespace hemo
