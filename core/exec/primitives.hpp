#pragma once
// Parallel primitives on uint32 data in the memory of one execution space: exclusive
// scan, stream compaction, stable radix sort of (key, value) pairs, histogram. The host
// backend (primitives.cpp) is sequential; the CUDA backend (primitives.cu) uses CUB on
// the default (compute) stream. Both give identical results, element by element.
//
// The Space of the Workspace says where every pointer passed to a primitive lives.
// Results returned as numbers (a total, a count) are read back to the host, which on
// CUDA waits for the work issued before. Every primitive accepts n == 0. n must be below
// 2^32 (indices are uint32). On the CUDA space in a build without CUDA, every primitive
// throws std::runtime_error naming itself.
#include <cstddef>
#include <cstdint>

#include "core/exec/device_array.hpp"
#include "core/exec/space.hpp"

namespace hemo::exec {

/// Temporary device/host memory the primitives reuse between calls (grows, never shrinks).
/// Keep one per caller and per space; it is not safe to share between threads.
class Workspace {
 public:
  explicit Workspace(Space space) : bytes_(space, 0) {}
  /// At least `bytes` bytes in the workspace's space (aligned to 64 bytes on the host, 256
  /// on CUDA). A request larger than the capacity reallocates: earlier contents are then
  /// lost, and pointers returned before are invalid.
  void* reserve(std::size_t bytes);
  Space space() const { return bytes_.space(); }
  /// Bytes held now.
  std::size_t capacity() const { return bytes_.size(); }

 private:
  DeviceArray<unsigned char> bytes_;
};

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0, uint32 arithmetic, wrapping modulo 2^32);
/// returns the total in[0] + ... + in[n-1]. in == out is allowed.
std::uint32_t exclusive_scan(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n);

/// exclusive_scan without the total: on the CUDA backend nothing is read back, so the
/// host does not wait for the device (queued like a kernel).
void exclusive_scan_queued(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n);

/// Writes the indices i with mask[i] != 0, ascending, to indices[0..count); returns count.
/// `indices` must hold room for n entries (the count is not known before).
std::uint32_t compact(Workspace& ws, const std::uint8_t* mask, std::size_t n, std::uint32_t* indices);

/// Sorts (keys, values) pairs by key, ascending, stable (equal keys keep their order); in place.
/// Only the low `key_bits` bits of the keys are compared (keys must be < 2^key_bits);
/// 0 <= key_bits <= 32, else std::invalid_argument. Fewer bits make fewer radix passes.
void sort_by_key(Workspace& ws, std::uint32_t* keys, std::uint32_t* values, std::size_t n, int key_bits = 32);

/// counts[b] = number of i with bins[i] == b, for b < num_bins (counts zeroed first);
/// entries with bins[i] >= num_bins are not counted.
void histogram(Workspace& ws, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts, std::uint32_t num_bins);

}  // namespace hemo::exec
