// exec primitives on the host backend (sequential, so trivially deterministic), and the
// dispatch to the CUDA backend (primitives.cu) for workspaces on the CUDA space.
#include "core/exec/primitives.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace hemo::exec {

#if HEMO_HAVE_CUDA
namespace cuda_detail {
std::uint32_t exclusive_scan(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n);
void exclusive_scan_queued(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n);
std::uint32_t compact(Workspace& ws, const std::uint8_t* mask, std::size_t n, std::uint32_t* indices);
void sort_by_key(Workspace& ws, std::uint32_t* keys, std::uint32_t* values, std::size_t n, int key_bits);
void histogram(Workspace& ws, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts, std::uint32_t num_bins);
}  // namespace cuda_detail
#endif

void* Workspace::reserve(std::size_t bytes) {
  if (bytes > bytes_.size()) {
    const Space s = bytes_.space();
    // Grow by half at least, so that slowly growing requests reallocate rarely.
    std::size_t grown = std::max(bytes, bytes_.size() + bytes_.size() / 2);
    grown = (grown + 255) / 256 * 256;
    bytes_ = DeviceArray<unsigned char>(s, 0);  // free the old block before taking the new one
    bytes_ = DeviceArray<unsigned char>(s, grown);
  }
  return bytes_.data();
}

namespace {

#if !HEMO_HAVE_CUDA
[[noreturn]] void cuda_absent(const char* primitive) {
  throw std::runtime_error(std::string("exec::") + primitive +
                           " on CUDA memory: this hemoflow was built without CUDA (HEMO_CUDA=OFF or no nvcc)");
}
#endif

void check_count(const char* primitive, std::size_t n) {
  if (n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error(std::string("exec::") + primitive + ": " + std::to_string(n) +
                            " elements; at most 2^32 - 1 are supported");
  }
}

std::uint32_t exclusive_scan_host(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t v = in[i];  // read before the write: in == out is allowed
    out[i] = sum;
    sum += v;
  }
  return sum;
}

std::uint32_t compact_host(const std::uint8_t* mask, std::size_t n, std::uint32_t* indices) {
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (mask[i] != 0) indices[count++] = static_cast<std::uint32_t>(i);
  return count;
}

/// Least-significant-digit radix sort, 8 bits a pass, each pass a stable counting sort;
/// a pass whose digit is the same for every key is skipped (it would not move anything).
void sort_by_key_host(Workspace& ws, std::uint32_t* keys, std::uint32_t* values, std::size_t n, int key_bits) {
  if (n < 2 || key_bits == 0) return;
  auto* scratch = static_cast<std::uint32_t*>(ws.reserve(2 * n * sizeof(std::uint32_t)));
  std::uint32_t *k_in = keys, *v_in = values, *k_out = scratch, *v_out = scratch + n;
  for (int shift = 0; shift < key_bits; shift += 8) {
    const int bits = std::min(8, key_bits - shift);
    const std::uint32_t digit_mask = (1u << bits) - 1u;
    std::array<std::size_t, 256> offset{};
    for (std::size_t i = 0; i < n; ++i) ++offset[(k_in[i] >> shift) & digit_mask];
    if (offset[(k_in[0] >> shift) & digit_mask] == n) continue;
    std::size_t sum = 0;
    for (std::size_t& c : offset) sum += std::exchange(c, sum);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = offset[(k_in[i] >> shift) & digit_mask]++;
      k_out[at] = k_in[i];
      v_out[at] = v_in[i];
    }
    std::swap(k_in, k_out);
    std::swap(v_in, v_out);
  }
  if (k_in != keys) {
    std::memcpy(keys, k_in, n * sizeof(std::uint32_t));
    std::memcpy(values, v_in, n * sizeof(std::uint32_t));
  }
}

void histogram_host(const std::uint32_t* bins, std::size_t n, std::uint32_t* counts, std::uint32_t num_bins) {
  if (num_bins > 0) std::memset(counts, 0, std::size_t(num_bins) * sizeof(std::uint32_t));
  for (std::size_t i = 0; i < n; ++i)
    if (bins[i] < num_bins) ++counts[bins[i]];
}

}  // namespace

std::uint32_t exclusive_scan(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  check_count("exclusive_scan", n);
  if (ws.space() == Space::host) return exclusive_scan_host(in, out, n);
#if HEMO_HAVE_CUDA
  return cuda_detail::exclusive_scan(ws, in, out, n);
#else
  cuda_absent("exclusive_scan");
#endif
}

void exclusive_scan_queued(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  check_count("exclusive_scan", n);
  if (ws.space() == Space::host) {
    exclusive_scan_host(in, out, n);
    return;
  }
#if HEMO_HAVE_CUDA
  cuda_detail::exclusive_scan_queued(ws, in, out, n);
#else
  cuda_absent("exclusive_scan");
#endif
}

std::uint32_t compact(Workspace& ws, const std::uint8_t* mask, std::size_t n, std::uint32_t* indices) {
  check_count("compact", n);
  if (ws.space() == Space::host) return compact_host(mask, n, indices);
#if HEMO_HAVE_CUDA
  return cuda_detail::compact(ws, mask, n, indices);
#else
  cuda_absent("compact");
#endif
}

void sort_by_key(Workspace& ws, std::uint32_t* keys, std::uint32_t* values, std::size_t n, int key_bits) {
  check_count("sort_by_key", n);
  if (key_bits < 0 || key_bits > 32) {
    throw std::invalid_argument("exec::sort_by_key: key_bits = " + std::to_string(key_bits) +
                                " is out of range: must be 0 to 32");
  }
  if (ws.space() == Space::host) return sort_by_key_host(ws, keys, values, n, key_bits);
#if HEMO_HAVE_CUDA
  cuda_detail::sort_by_key(ws, keys, values, n, key_bits);
#else
  cuda_absent("sort_by_key");
#endif
}

void histogram(Workspace& ws, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts, std::uint32_t num_bins) {
  check_count("histogram", n);
  if (ws.space() == Space::host) return histogram_host(bins, n, counts, num_bins);
#if HEMO_HAVE_CUDA
  cuda_detail::histogram(ws, bins, n, counts, num_bins);
#else
  cuda_absent("histogram");
#endif
}

}  // namespace hemo::exec
