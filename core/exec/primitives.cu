// exec primitives on the CUDA backend: CUB on the default (compute) stream, temporary
// storage from the Workspace. The results equal the host backend's (primitives.cpp)
// element by element: the scan and histogram are exact integer arithmetic, compaction
// keeps the input order, and CUB's radix sort is stable, as the host's is.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/util_type.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "core/exec/cuda_check.cuh"
#include "core/exec/primitives.hpp"

namespace hemo::exec::cuda_detail {

namespace {

constexpr std::size_t piece_alignment = 256;  // what cudaMalloc gives, and more than CUB asks

/// Reserves one block of the workspace and cuts it into consecutive pieces of the given
/// sizes, each 256-byte aligned. Pieces of size 0 get a valid (non-null) address too.
template <std::size_t N>
std::array<void*, N> carve(Workspace& ws, const std::array<std::size_t, N>& sizes) {
  std::array<std::size_t, N> offset{};
  std::size_t total = 0;
  for (std::size_t i = 0; i < N; ++i) {
    offset[i] = total;
    total += (sizes[i] + piece_alignment - 1) / piece_alignment * piece_alignment;
  }
  auto* base = static_cast<unsigned char*>(ws.reserve(total > 0 ? total : piece_alignment));
  std::array<void*, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = base + offset[i];
  return out;
}

__global__ void histogram_kernel(const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
                                 std::uint32_t num_bins) {
  const std::size_t stride = std::size_t(blockDim.x) * gridDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t b = bins[i];
    if (b < num_bins) atomicAdd(counts + b, 1u);
  }
}

}  // namespace

std::uint32_t exclusive_scan(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  if (n == 0) return 0;
  const auto count = static_cast<std::uint32_t>(n);
  std::size_t temp_bytes = 0;
  check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, count),
             "cub::DeviceScan::ExclusiveSum (exec::exclusive_scan, size query)");
  const auto piece = carve<2>(ws, {temp_bytes, 2 * sizeof(std::uint32_t)});
  auto* ends = static_cast<std::uint32_t*>(piece[1]);
  // The last input, saved before an in-place scan overwrites it: total = in[n-1] + out[n-1].
  HEMO_CUDA_CHECK(cudaMemcpyAsync(ends, in + (n - 1), sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, 0));
  check_cuda(cub::DeviceScan::ExclusiveSum(piece[0], temp_bytes, in, out, count),
             "cub::DeviceScan::ExclusiveSum (exec::exclusive_scan)");
  HEMO_CUDA_CHECK(cudaMemcpyAsync(ends + 1, out + (n - 1), sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, 0));
  std::uint32_t host[2] = {0, 0};
  check_cuda(cudaMemcpy(host, ends, sizeof(host), cudaMemcpyDeviceToHost), "exec::exclusive_scan: read of the total");
  return host[0] + host[1];
}

void exclusive_scan_queued(Workspace& ws, const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  if (n == 0) return;
  const auto count = static_cast<std::uint32_t>(n);
  std::size_t temp_bytes = 0;
  check_cuda(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, count),
             "cub::DeviceScan::ExclusiveSum (exec::exclusive_scan_queued, size query)");
  check_cuda(cub::DeviceScan::ExclusiveSum(ws.reserve(temp_bytes), temp_bytes, in, out, count),
             "cub::DeviceScan::ExclusiveSum (exec::exclusive_scan_queued)");
}

std::uint32_t compact(Workspace& ws, const std::uint8_t* mask, std::size_t n, std::uint32_t* indices) {
  if (n == 0) return 0;
  const thrust::counting_iterator<std::uint32_t> first(0);
  const auto count = static_cast<std::int64_t>(n);
  std::int64_t* no_count = nullptr;
  std::size_t temp_bytes = 0;
  check_cuda(cub::DeviceSelect::Flagged(nullptr, temp_bytes, first, mask, indices, no_count, count),
             "cub::DeviceSelect::Flagged (exec::compact, size query)");
  const auto piece = carve<2>(ws, {temp_bytes, sizeof(std::int64_t)});
  auto* selected = static_cast<std::int64_t*>(piece[1]);
  check_cuda(cub::DeviceSelect::Flagged(piece[0], temp_bytes, first, mask, indices, selected, count),
             "cub::DeviceSelect::Flagged (exec::compact)");
  std::int64_t host = 0;
  check_cuda(cudaMemcpy(&host, selected, sizeof(host), cudaMemcpyDeviceToHost), "exec::compact: read of the count");
  return static_cast<std::uint32_t>(host);
}

void sort_by_key(Workspace& ws, std::uint32_t* keys, std::uint32_t* values, std::size_t n, int key_bits) {
  if (n < 2 || key_bits == 0) return;
  const auto count = static_cast<std::uint32_t>(n);
  const std::size_t array_bytes = n * sizeof(std::uint32_t);
  std::size_t temp_bytes = 0;
  {
    cub::DoubleBuffer<std::uint32_t> k(keys, nullptr), v(values, nullptr);
    check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, count, 0, key_bits),
               "cub::DeviceRadixSort::SortPairs (exec::sort_by_key, size query)");
  }
  const auto piece = carve<3>(ws, {temp_bytes, array_bytes, array_bytes});
  cub::DoubleBuffer<std::uint32_t> k(keys, static_cast<std::uint32_t*>(piece[1]));
  cub::DoubleBuffer<std::uint32_t> v(values, static_cast<std::uint32_t*>(piece[2]));
  check_cuda(cub::DeviceRadixSort::SortPairs(piece[0], temp_bytes, k, v, count, 0, key_bits),
             "cub::DeviceRadixSort::SortPairs (exec::sort_by_key)");
  // An odd number of passes leaves the result in the alternate buffers.
  if (k.Current() != keys)
    HEMO_CUDA_CHECK(cudaMemcpyAsync(keys, k.Current(), array_bytes, cudaMemcpyDeviceToDevice, 0));
  if (v.Current() != values)
    HEMO_CUDA_CHECK(cudaMemcpyAsync(values, v.Current(), array_bytes, cudaMemcpyDeviceToDevice, 0));
}

void histogram(Workspace& /*ws*/, const std::uint32_t* bins, std::size_t n, std::uint32_t* counts,
               std::uint32_t num_bins) {
  if (num_bins == 0) return;
  HEMO_CUDA_CHECK(cudaMemsetAsync(counts, 0, std::size_t(num_bins) * sizeof(std::uint32_t), 0));
  if (n == 0) return;
  constexpr unsigned block = 256;
  const std::size_t blocks = (n + block - 1) / block;
  const unsigned grid = blocks < 65536 ? static_cast<unsigned>(blocks) : 65536u;  // grid-stride beyond
  histogram_kernel<<<grid, block>>>(bins, n, counts, num_bins);
  check_launch("exec::histogram");
}

}  // namespace hemo::exec::cuda_detail
