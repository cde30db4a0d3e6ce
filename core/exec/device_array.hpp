#pragma once
// DeviceArray<T>: a contiguous array that lives in the memory of one execution space
// (host RAM, 64-byte aligned; or CUDA device memory). Move-only; copies between spaces
// are explicit.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/exec/cuda_runtime.hpp"
#include "core/exec/space.hpp"

namespace hemo::exec {

/// The element type's name as messages and files spell it.
template <class T>
constexpr const char* element_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (requires { T::type_name; }) return T::type_name;  // phys::Fp16s, E4m11s
  else return "other";
}

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(Space space, std::size_t count) : space_(space), size_(count) {
    if (count == 0) return;
    const std::size_t bytes = count * sizeof(T);
    if (space == Space::host) {
      data_ = static_cast<T*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
      if (!data_) throw OutOfMemory("host out of memory: an array of " + std::to_string(bytes) + " bytes could not be allocated");
    } else {
      data_ = static_cast<T*>(cuda::allocate(bytes));
    }
  }
  ~DeviceArray() { reset(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept { swap(o); }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      reset();
      swap(o);
    }
    return *this;
  }
  void swap(DeviceArray& o) noexcept {
    std::swap(space_, o.space_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  Space space() const { return space_; }
  bool empty() const { return size_ == 0; }

  /// Sets every byte to zero.
  void zero() {
    if (!data_) return;
    if (space_ == Space::host) std::memset(data_, 0, bytes());
    else cuda::fill_zero(data_, bytes());
  }
  /// Copies `count` elements from host memory into this array.
  void upload(const T* src, std::size_t count) {
    if (count > size_) throw std::length_error("DeviceArray::upload: source larger than array");
    if (space_ == Space::host) std::memcpy(data_, src, count * sizeof(T));
    else cuda::copy_to_device(data_, src, count * sizeof(T));
  }
  void upload(const std::vector<T>& src) { upload(src.data(), src.size()); }
  /// The first `count` elements of `from` (the same space) into this array's first; on
  /// CUDA queued on the compute stream.
  void copy_from(const DeviceArray& from, std::size_t count) {
    if (count > size_ || count > from.size_) throw std::length_error("DeviceArray::copy_from: more elements than an array holds");
    if (count == 0) return;
    if (space_ == Space::host) std::memcpy(data_, from.data_, count * sizeof(T));
    else cuda::copy_on_device(data_, from.data_, count * sizeof(T));
  }
  /// Copies the whole array into host memory at dst (size() elements).
  void download(T* dst) const {
    if (space_ == Space::host) std::memcpy(dst, data_, bytes());
    else cuda::copy_to_host(dst, data_, bytes());
  }
  std::vector<T> to_host() const {
    std::vector<T> out(size_);
    if (size_) download(out.data());
    return out;
  }

 private:
  void reset() noexcept {
    if (data_) {
      if (space_ == Space::host) std::free(data_);
      else cuda::release(data_);
    }
    data_ = nullptr;
    size_ = 0;
  }
  Space space_ = Space::host;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A new array on `space` holding a copy of `host`.
template <class T>
DeviceArray<T> to_device(Space space, const std::vector<T>& host) {
  DeviceArray<T> a(space, host.size());
  if (!host.empty()) a.upload(host);
  return a;
}

/// Host memory that copies to and from the run's memory fast: page-locked (pinned) on
/// CUDA, so that a transfer needs no bounce through a driver buffer; plain memory on the
/// host backend. Grow-only (resize keeps nothing); for buffers staged every step
/// between the device and MPI.
template <class T>
class HostBuffer {
 public:
  explicit HostBuffer(Space space = Space::host) : space_(space) {}
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  HostBuffer(HostBuffer&& o) noexcept { *this = std::move(o); }
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      space_ = o.space_;
      std::swap(data_, o.data_);
      std::swap(capacity_, o.capacity_);
      std::swap(size_, o.size_);
    }
    return *this;
  }
  ~HostBuffer() { reset(); }
  /// Room for at least n elements (contents not kept when it grows); size() becomes n.
  void resize(std::size_t n) {
    if (n > capacity_) {
      reset();
      capacity_ = n + n / 2;
      const std::size_t bytes = std::max<std::size_t>(capacity_ * sizeof(T), 64);
      data_ = static_cast<T*>(space_ == Space::cuda ? cuda::allocate_pinned(bytes)
                                                    : std::aligned_alloc(64, (bytes + 63) / 64 * 64));
      if (!data_) throw OutOfMemory("host out of memory: a buffer of " + std::to_string(bytes) + " bytes could not be allocated");
    }
    size_ = n;
  }
  /// n elements from the run's memory at `from`; size() becomes n.
  void download(const T* from, std::size_t n) { download_with(from, n, cuda::copy_to_host); }
  /// download() without waiting on the CUDA backend: queued after the kernels issued
  /// before it, the elements are there once the device has been waited for (any later
  /// synchronous copy, or cuda::synchronize_compute).
  void download_queued(const T* from, std::size_t n) { download_with(from, n, cuda::copy_to_host_queued); }
  /// download() on a copy stream (CUDA backend, `copy` given): queued after the kernels
  /// issued before it, it does not wait for later ones; after copy->wait() the elements
  /// are there and those kernels done (n = 0 too). The host backend, or no `copy`, copies
  /// at once.
  void download_on(cuda::AsyncCopy* copy, const T* from, std::size_t n) {
    if (space_ == Space::host || copy == nullptr) return download(from, n);
    resize(n);
    if (n) copy->copy(data_, from, n * sizeof(T));
    else copy->after_compute();
  }
  /// The first size() elements into the run's memory at `to`.
  void upload(T* to) const {
    if (size_ == 0) return;
    if (space_ == Space::host) std::memcpy(to, data_, size_ * sizeof(T));
    else cuda::copy_to_device(to, data_, size_ * sizeof(T));
  }
  T* data() { return data_; }
  std::size_t size() const { return size_; }
  unsigned char* bytes(std::size_t first = 0) { return reinterpret_cast<unsigned char*>(data_ + first); }

 private:
  void download_with(const T* from, std::size_t n, void (*device_copy)(void*, const void*, std::size_t)) {
    resize(n);
    if (n == 0) return;
    if (space_ == Space::host) std::memcpy(data_, from, n * sizeof(T));
    else device_copy(data_, from, n * sizeof(T));
  }
  void reset() noexcept {
    if (data_) {
      if (space_ == Space::cuda) cuda::release_pinned(data_);
      else std::free(data_);
    }
    data_ = nullptr;
    capacity_ = size_ = 0;
  }
  Space space_;
  T* data_ = nullptr;
  std::size_t capacity_ = 0, size_ = 0;
};

}  // namespace hemo::exec
