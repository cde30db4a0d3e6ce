#pragma once
// ParticleTable: a resizable structure of arrays on the run's backend, for things whose
// number changes during a run (red blood cells enter, leave, migrate between ranks),
// beside the fixed-count node fields of FieldRegistry. Every column holds `components`
// rows of `capacity()` entries (component-major, like a node field's rows of `stride`);
// the first size() entries of each row are the particles. Growing reallocates every
// column, keeping the first size() entries, and permuting (particles sorted into tiles,
// leaving ones moved to the end) swaps each column with a spare of the same size, so
// kernels take the column pointers anew each step. Capacity grows by half again when
// exceeded and never shrinks.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/exec/cuda_runtime.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/gather.hpp"

namespace hemo {

class ParticleColumnBase {
 public:
  ParticleColumnBase(std::string name, std::string description, int components)
      : name_(std::move(name)), description_(std::move(description)), components_(components) {}
  virtual ~ParticleColumnBase() = default;
  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  int components() const { return components_; }
  /// Whether a checkpoint must hold this column for a restart to continue bitwise.
  bool restart_state() const { return restart_state_; }
  ParticleColumnBase& set_restart_state() {
    restart_state_ = true;
    return *this;
  }
  virtual const char* type_name() const = 0;
  virtual std::size_t bytes() const = 0;
  /// The first `count` entries of component c, as stored.
  virtual std::vector<unsigned char> component_bytes(int c, std::size_t count) const = 0;
  /// Replaces the first bytes.size() / (bytes of one entry) entries of component c with
  /// `bytes` as stored: a checkpoint restored. More than capacity() entries is an error.
  virtual void set_component_bytes(int c, std::span<const unsigned char> bytes) = 0;
  /// New storage of `capacity` entries per component, keeping the first `keep`.
  virtual void reallocate(std::size_t capacity, std::size_t keep) = 0;
  /// Bytes of one entry of one component.
  virtual std::size_t entry_bytes() const = 0;
  /// Writes entries [first, first + n) of every component from host `bytes`, component
  /// by component, n entries each; first + n must be within capacity.
  virtual void set_entries_bytes(std::size_t first, std::size_t n, std::span<const unsigned char> bytes) = 0;
  /// Entries rows[0..n) (`rows` in the column's memory) of every component, component by
  /// component, into `out`, and back from `in` into entries [first, first + n): bytes in
  /// the table's memory (the device on CUDA), so that ParticleTable::pack and append
  /// stage every column in one buffer and cross to the host in one copy.
  virtual void gather_to(const std::uint32_t* rows, std::size_t n, unsigned char* out) = 0;
  virtual void set_entries_from(std::size_t first, std::size_t n, const unsigned char* in) = 0;
  /// Entry first + i of every component becomes the old entry order[i], for i < n
  /// (`order` in the column's memory); the entries before `first` stay as they are.
  virtual void permute(const std::uint32_t* order, std::size_t n, std::size_t first) = 0;

 private:
  std::string name_, description_;
  int components_;
  bool restart_state_ = false;
};

template <class T>
class ParticleColumn final : public ParticleColumnBase {
 public:
  ParticleColumn(exec::Space space, std::string name, std::string description, int components, std::size_t capacity)
      : ParticleColumnBase(std::move(name), std::move(description), components),
        capacity_(capacity), data_(space, std::size_t(components) * capacity) {
    data_.zero();
  }
  T* component(int c) { return data_.data() + std::size_t(c) * capacity_; }
  const T* component(int c) const { return data_.data() + std::size_t(c) * capacity_; }
  T* data() { return data_.data(); }
  const T* data() const { return data_.data(); }
  std::size_t stride() const { return capacity_; }
  const char* type_name() const override { return exec::element_type_name<T>(); }
  std::size_t bytes() const override { return data_.bytes(); }
  std::vector<unsigned char> component_bytes(int c, std::size_t count) const override {
    std::vector<unsigned char> out(count * sizeof(T));
    copy_out(component(c), out.data(), out.size());
    return out;
  }
  void set_component_bytes(int c, std::span<const unsigned char> bytes) override {
    if (bytes.size() % sizeof(T) != 0 || bytes.size() > capacity_ * sizeof(T))
      throw std::length_error("particle column '" + name() + "': " + std::to_string(bytes.size()) + " bytes for " +
                              std::to_string(capacity_) + " entries of " + std::to_string(sizeof(T)));
    if (bytes.empty()) return;
    if (data_.space() == exec::Space::host) std::memcpy(component(c), bytes.data(), bytes.size());
    else exec::cuda::copy_to_device(component(c), bytes.data(), bytes.size());
  }
  /// Writes entries [first, first + count) of every component from `rows` (component c's
  /// at rows[c * count, (c + 1) * count)): new particles appended.
  void set_entries(std::size_t first, std::size_t count, const std::vector<T>& rows) {
    set_entries_bytes(first, count, {reinterpret_cast<const unsigned char*>(rows.data()), rows.size() * sizeof(T)});
  }
  /// The first `count` entries of component c on the host.
  std::vector<T> component_to_host(int c, std::size_t count) const {
    std::vector<T> out(count);
    copy_out(component(c), out.data(), count * sizeof(T));
    return out;
  }
  /// Replaces the whole storage: `components` rows of capacity() entries.
  void upload(const std::vector<T>& rows) {
    if (rows.size() != data_.size())
      throw std::length_error("particle column '" + name() + "': " + std::to_string(rows.size()) + " values for " +
                              std::to_string(data_.size()));
    data_.upload(rows);
  }
  void reallocate(std::size_t capacity, std::size_t keep) override {
    exec::DeviceArray<T> grown(data_.space(), std::size_t(components()) * capacity);
    grown.zero();
    const std::size_t n = std::min(keep, std::min(capacity, capacity_)) * sizeof(T);
    for (int c = 0; c < components() && n > 0; ++c) {
      T* to = grown.data() + std::size_t(c) * capacity;
      if (data_.space() == exec::Space::host) std::memcpy(to, component(c), n);
      else exec::cuda::copy_on_device(to, component(c), n);
    }
    data_ = std::move(grown);
    spare_ = exec::DeviceArray<T>();
    capacity_ = capacity;
  }
  void permute(const std::uint32_t* order, std::size_t n, std::size_t first) override {
    if (n == 0) return;
    gather_into_spare(order, n, first);
    if (first == 0) {
      data_.swap(spare_);
      return;
    }
    for (int c = 0; c < components(); ++c)
      move(component(c) + first, spare_.data() + std::size_t(c) * capacity_ + first, n * sizeof(T));
  }
  std::size_t entry_bytes() const override { return sizeof(T); }
  void gather_to(const std::uint32_t* rows, std::size_t n, unsigned char* out) override {
    if (n == 0) return;
    if (reinterpret_cast<std::uintptr_t>(out) % alignof(T) == 0) {  // straight into `out`: one kernel
      exec::for_each(data_.space(), {0, std::uint32_t(n * std::size_t(components()))},
                     exec::GatherRows<T>{data_.data(), capacity_, every_component(), rows, std::uint32_t(n),
                                         reinterpret_cast<T*>(out)},
                     "particle_column_gather_to");
      return;
    }
    gather_into_spare(rows, n);
    for (int c = 0; c < components(); ++c) move(out + std::size_t(c) * n * sizeof(T), spare_.data() + std::size_t(c) * capacity_, n * sizeof(T));
  }
  void set_entries_from(std::size_t first, std::size_t n, const unsigned char* in) override {
    if (first + n > capacity_) throw std::length_error("particle column '" + name() + "': entries past its capacity");
    if (n > 0 && reinterpret_cast<std::uintptr_t>(in) % alignof(T) == 0) {  // one kernel for every component
      exec::for_each(data_.space(), {0, std::uint32_t(n * std::size_t(components()))},
                     exec::ScatterRows<T>{data_.data(), capacity_, every_component(), nullptr, std::uint32_t(n),
                                          reinterpret_cast<const T*>(in), nullptr, first},
                     "particle_column_set_entries");
      return;
    }
    for (int c = 0; c < components() && n > 0; ++c)
      move(component(c) + first, in + std::size_t(c) * n * sizeof(T), n * sizeof(T));
  }
  void set_entries_bytes(std::size_t first, std::size_t n, std::span<const unsigned char> bytes) override {
    if (bytes.size() != n * std::size_t(components()) * sizeof(T) || first + n > capacity_)
      throw std::length_error("particle column '" + name() + "': " + std::to_string(bytes.size()) + " bytes for entries " +
                              std::to_string(first) + " + " + std::to_string(n) + " of " + std::to_string(capacity_));
    for (int c = 0; c < components() && n > 0; ++c) {
      const unsigned char* from = bytes.data() + std::size_t(c) * n * sizeof(T);
      if (data_.space() == exec::Space::host) std::memcpy(component(c) + first, from, n * sizeof(T));
      else exec::cuda::copy_to_device(component(c) + first, from, n * sizeof(T));
    }
  }

 private:
  /// The rows of every component, for the gathers and scatters over whole particles.
  exec::RowList every_component() const {
    exec::RowList all;
    for (int c = 0; c < components(); ++c) all.add(c);
    return all;
  }
  /// spare_'s entry first + i of every component = entry order[i], for i < n.
  void gather_into_spare(const std::uint32_t* order, std::size_t n, std::size_t first = 0) {
    if (spare_.size() != data_.size()) {
      spare_ = exec::DeviceArray<T>(data_.space(), data_.size());
      spare_.zero();
    }
    exec::for_each(data_.space(), {0, std::uint32_t(n * std::size_t(components()))},
                   exec::GatherRows<T>{data_.data(), capacity_, every_component(), order, std::uint32_t(n), spare_.data() + first,
                                       capacity_},
                   "particle_column_gather");
  }
  /// Bytes within the column's memory space (asynchronous on CUDA).
  void move(void* to, const void* from, std::size_t bytes) const {
    if (bytes == 0) return;
    if (data_.space() == exec::Space::host) std::memcpy(to, from, bytes);
    else exec::cuda::copy_on_device(to, from, bytes);
  }
  void copy_out(const T* from, void* to, std::size_t bytes) const {
    if (bytes == 0) return;
    if (data_.space() == exec::Space::host) std::memcpy(to, from, bytes);
    else exec::cuda::copy_to_host(to, from, bytes);
  }
  std::size_t capacity_;
  exec::DeviceArray<T> data_;
  exec::DeviceArray<T> spare_;  // the other half of permute's double buffer (empty until then)
};

class ParticleTable {
 public:
  ParticleTable(exec::Space space, std::string name, std::string owner, std::size_t capacity = 1024)
      : space_(space), name_(std::move(name)), owner_(std::move(owner)), capacity_(std::max<std::size_t>(capacity, 1)) {}
  exec::Space space() const { return space_; }
  const std::string& name() const { return name_; }
  const std::string& owner() const { return owner_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }

  /// Adds a column (zeroed); a name already taken is an error.
  template <class T>
  ParticleColumn<T>& add(const std::string& column, int components, const std::string& description) {
    if (columns_.count(column)) throw std::logic_error("particle table '" + name_ + "': column '" + column + "' declared twice");
    auto c = std::make_unique<ParticleColumn<T>>(space_, column, description, components, capacity_);
    auto& ref = *c;
    columns_.emplace(column, std::move(c));
    order_.push_back(column);
    return ref;
  }
  template <class T>
  ParticleColumn<T>& get(const std::string& column) {
    auto it = columns_.find(column);
    if (it == columns_.end()) throw std::logic_error("particle table '" + name_ + "' has no column '" + column + "'");
    auto* c = dynamic_cast<ParticleColumn<T>*>(it->second.get());
    if (!c)
      throw std::logic_error("particle column '" + column + "' holds " + it->second->type_name() + ", not " +
                             exec::element_type_name<T>());
    return *c;
  }
  template <class T>
  const ParticleColumn<T>& get(const std::string& column) const {
    return const_cast<ParticleTable*>(this)->get<T>(column);
  }
  /// A column of any type, by name (a checkpoint restored fills it by its bytes).
  ParticleColumnBase& column(const std::string& name) {
    auto it = columns_.find(name);
    if (it == columns_.end()) throw std::logic_error("particle table '" + name_ + "' has no column '" + name + "'");
    return *it->second;
  }
  /// The columns in the order they were added.
  std::vector<const ParticleColumnBase*> columns() const {
    std::vector<const ParticleColumnBase*> out;
    for (const auto& n : order_) out.push_back(columns_.at(n).get());
    return out;
  }
  /// Capacity for at least n particles (grows by half again, at least to n), keeping the
  /// first size() entries of every column.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    const std::size_t grown = std::max(n, capacity_ + capacity_ / 2);
    for (auto& [name, c] : columns_) c->reallocate(grown, size_);
    capacity_ = grown;
  }
  /// n particles: entries past the old size are those the storage holds (zero when new).
  void resize(std::size_t n) {
    reserve(n);
    size_ = n;
  }

  /// A scalar of the owner's that a restart needs to continue bitwise (rbc: the size its
  /// cells were placed at, from which every step's size follows), carried through
  /// checkpoints as an HDF5 attribute of the table's group. The owner binds a double it
  /// keeps and updates as it likes: a checkpoint writes its value at that moment, and a
  /// restart sets it after every plugin's initialise(), before the first step (bound in
  /// initialise at the latest). The double must outlive the run's time loop (a member of
  /// the plugin); binding a name again rebinds it.
  void bind_restart_value(const std::string& name, double& value) {
    if (name.empty() || name == "count" || name == "owner" || name.find('/') != std::string::npos)
      throw std::logic_error("particle table '" + name_ + "': restart value name '" + name +
                             "' is empty, taken by the checkpoint ('count', 'owner') or has '/'");
    restart_values_[name] = &value;
  }
  /// The bound restart values, by name.
  const std::map<std::string, double*>& restart_values() const { return restart_values_; }
  /// Particle i becomes the old particle order[i], for i < n, in every restart-state
  /// column (the state a particle carries from step to step; the other columns hold what a
  /// step computes before it reads it, and are left as they are); then n particles.
  /// `order` lives in the table's memory: a permutation of [0, size()), or with n < size()
  /// the particles to keep (the rest are dropped). With `first`, only the particles from
  /// `first` on are reordered (order[i] >= first): particle first + i becomes the old
  /// order[i]; the first `first` stay where they are; then first + n particles.
  void permute(const std::uint32_t* order, std::size_t n, std::size_t first = 0) {
    if (first + n > size_) throw std::logic_error("particle table '" + name_ + "': permute to more particles than it holds");
    for (auto& [name, c] : columns_)
      if (c->restart_state()) c->permute(order, n, first);
    size_ = first + n;
  }

  /// Bytes a particle's restart-state columns take when packed.
  std::size_t packed_bytes() const {
    std::size_t b = 0;
    for (const auto& n : order_)
      if (const auto& c = columns_.at(n); c->restart_state()) b += c->entry_bytes() * std::size_t(c->components());
    return b;
  }
  /// The restart-state columns of particles rows[0..n) (`rows` in the table's memory)
  /// as one host buffer: column after column in the order they were added, each
  /// component by component, n entries each. What a particle needs to go on elsewhere
  /// (another rank's table: append()).
  std::vector<unsigned char> pack(const std::uint32_t* rows, std::size_t n) {
    std::vector<unsigned char> out(n * packed_bytes());
    if (n == 0) return out;
    unsigned char* staging = staging_for(out.size());
    pack_into(rows, n, staging);
    if (space_ == exec::Space::host) std::memcpy(out.data(), staging, out.size());
    else exec::cuda::copy_to_host(out.data(), staging, out.size());
    return out;
  }
  /// pack() of each group g of rows, rows[group_first[g], group_first[g + 1]), back to back
  /// in `out`: group g's buffer is bytes [group_first[g], group_first[g + 1]) x
  /// packed_bytes() (group_slice). Gathered on the device group by group, then one copy to
  /// the host, into pinned memory where `out` is a HostBuffer of the CUDA space (no
  /// regrouping on the host). A row may be in several groups (the cells several ranks take
  /// as ghosts). With `copy` (CUDA), the copy to the host goes on that copy stream and is
  /// there after copy->wait(); kernels issued meanwhile run beside it (HostBuffer::download_on).
  void pack_groups(const std::uint32_t* rows, std::span<const std::size_t> group_first,
                   exec::HostBuffer<unsigned char>& out, exec::cuda::AsyncCopy* copy = nullptr) {
    const std::size_t n = group_first.empty() ? 0 : group_first.back(), per = packed_bytes();
    out.resize(n * per);
    if (n == 0) return;
    unsigned char* staging = staging_for(n * per);
    for (std::size_t g = 0; g + 1 < group_first.size(); ++g)
      pack_into(rows + group_first[g], group_first[g + 1] - group_first[g], staging + group_first[g] * per);
    out.download_on(copy, staging, n * per);
  }
  /// Group g's bytes in pack_groups' buffer.
  std::span<const unsigned char> group_slice(exec::HostBuffer<unsigned char>& packed,
                                             std::span<const std::size_t> group_first, std::size_t g) const {
    const std::size_t per = packed_bytes();
    return {packed.bytes(group_first[g] * per), (group_first[g + 1] - group_first[g]) * per};
  }
  /// Appends the particles of a buffer that pack() made from a table with the same
  /// restart-state columns; returns how many. Their other columns hold what the storage
  /// holds (a step writes them before reading them).
  std::size_t append(std::span<const unsigned char> packed) {
    const std::size_t n = packed_count(packed);
    append_groups(packed, std::array<std::size_t, 2>{0, n});
    return n;
  }

  /// append() of each group g of a buffer laid out as pack_groups' (group g's particles at
  /// bytes [group_first[g], group_first[g + 1]) x packed_bytes()), the groups one after
  /// the other: one copy into the table's memory for all of them, then each group's
  /// entries set there. Returns each group's first row, then the new size.
  std::vector<std::size_t> append_groups(std::span<const unsigned char> packed, std::span<const std::size_t> group_first) {
    const std::size_t per = packed_bytes(), n = group_first.empty() ? 0 : group_first.back(), first = size_;
    if (n * per != packed.size())
      throw std::length_error("particle table '" + name_ + "': " + std::to_string(packed.size()) +
                              " packed bytes for " + std::to_string(n) + " particles of " + std::to_string(per) + " bytes");
    std::vector<std::size_t> rows(group_first.begin(), group_first.end());
    for (std::size_t& r : rows) r += first;
    if (n == 0) return rows;
    resize(first + n);
    unsigned char* staging = staging_for(packed.size());
    if (space_ == exec::Space::host) std::memcpy(staging, packed.data(), packed.size());
    else exec::cuda::copy_to_device(staging, packed.data(), packed.size());
    for (std::size_t g = 0; g + 1 < group_first.size(); ++g) {
      const std::size_t k = group_first[g + 1] - group_first[g];
      std::size_t at = group_first[g] * per;
      for (const auto& name : order_)
        if (auto& c = columns_.at(name); c->restart_state()) {
          c->set_entries_from(first + group_first[g], k, staging + at);
          at += k * c->entry_bytes() * std::size_t(c->components());
        }
    }
    return rows;
  }

  /// Component c of restart-state column `column` in a buffer pack() made: the bytes of
  /// its entries, one per packed particle. A particle's position read on the host before
  /// it is appended (which ghosts a rank keeps).
  std::span<const unsigned char> packed_component(std::span<const unsigned char> packed, const std::string& column,
                                                  int c) const {
    const std::size_t n = packed_count(packed);
    std::size_t at = 0;
    for (const auto& name : order_)
      if (const auto& col = columns_.at(name); col->restart_state()) {
        const std::size_t e = col->entry_bytes();
        if (name == column) {
          if (c < 0 || c >= col->components())
            throw std::logic_error("particle table '" + name_ + "': column '" + column + "' has no component " +
                                   std::to_string(c));
          return packed.subspan(at + std::size_t(c) * n * e, n * e);
        }
        at += n * e * std::size_t(col->components());
      }
    throw std::logic_error("particle table '" + name_ + "' has no restart-state column '" + column + "'");
  }
  /// Particles packed in `packed` (pack()'s buffer), checked to be a whole number.
  std::size_t packed_count(std::span<const unsigned char> packed) const {
    const std::size_t per = packed_bytes();
    if (per == 0 || packed.size() % per != 0)
      throw std::length_error("particle table '" + name_ + "': " + std::to_string(packed.size()) +
                              " packed bytes are not a whole number of particles of " + std::to_string(per) + " bytes");
    return packed.size() / per;
  }
 private:
  /// pack()'s layout of rows[0..n) at `to`, in the table's memory.
  void pack_into(const std::uint32_t* rows, std::size_t n, unsigned char* to) {
    std::size_t at = 0;
    for (const auto& name : order_)
      if (auto& c = columns_.at(name); c->restart_state()) {
        c->gather_to(rows, n, to + at);
        at += n * c->entry_bytes() * std::size_t(c->components());
      }
  }
  /// pack's and append's buffer in the table's memory, grown as needed (by half again).
  unsigned char* staging_for(std::size_t bytes) {
    if (staging_.size() < bytes) staging_ = exec::DeviceArray<unsigned char>(space_, bytes + bytes / 2);
    return staging_.data();
  }

  exec::Space space_;
  exec::DeviceArray<unsigned char> staging_;
  std::string name_, owner_;
  std::size_t capacity_, size_ = 0;
  std::map<std::string, std::unique_ptr<ParticleColumnBase>> columns_;
  std::vector<std::string> order_;
  std::map<std::string, double*> restart_values_;
};

}  // namespace hemo
