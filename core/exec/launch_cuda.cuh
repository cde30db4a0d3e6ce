#pragma once
// CUDA backend of exec::for_each (one thread per node) and for_each_lanes (one warp per
// item), the functor passed by value as a kernel parameter. Include only from .cu files.
#include <cuda_runtime.h>

#include "core/exec/cuda_check.cuh"
#include "core/exec/for_each.hpp"

namespace hemo::exec {

template <class Kernel>
__global__ void __launch_bounds__(max_block_size) for_each_kernel(Kernel kernel, std::uint32_t begin, std::uint32_t end) {
  const std::uint32_t n = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (n < end) kernel(n);
}

template <class Kernel>
void launch_cuda(const Kernel& kernel, Range range, const char* name, int block_size) {
  if (block_size < 32 || block_size > max_block_size || block_size % 32 != 0) {
    throw std::invalid_argument(std::string("kernel '") + name + "': block size " + std::to_string(block_size) +
                                " is not a multiple of 32 between 32 and " + std::to_string(max_block_size));
  }
  const std::uint32_t count = range.size();
  const unsigned blocks = (count + block_size - 1) / block_size;
  for_each_kernel<<<blocks, block_size>>>(kernel, range.begin, range.end);
  check_launch(name);
}

/// for_each_lanes on CUDA: one warp per item; the partials added by an xor-butterfly of
/// shuffles, word by word (for_each.hpp gives the order).
template <class Kernel>
__global__ void __launch_bounds__(max_block_size) for_each_lanes_kernel(Kernel kernel, std::uint32_t begin,
                                                                        std::uint32_t end) {
  using Partial = typename Kernel::Partial;
  static_assert(sizeof(Partial) % sizeof(unsigned) == 0, "a Partial is made of 4- or 8-byte numbers");
  constexpr int words = sizeof(Partial) / sizeof(unsigned);
  const std::uint64_t thread = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t item = begin + thread / lanes_per_item;
  const int lane = int(threadIdx.x % lanes_per_item);
  if (item >= end) return;  // the whole warp: items are warp-aligned
  OneLane<Partial> lanes;
  lanes.lane = lane;
  kernel.partial(std::uint32_t(item), lanes);
  Partial mine = lanes.sum;
  for (int offset = lanes_per_item / 2; offset > 0; offset /= 2) {
    unsigned w[words];
    memcpy(w, &mine, sizeof(Partial));
    for (int k = 0; k < words; ++k) w[k] = __shfl_xor_sync(0xffffffffu, w[k], offset);
    Partial other;
    memcpy(&other, w, sizeof(Partial));
    mine = Kernel::combine(mine, other);
  }
  if (lane == 0) kernel.finish(std::uint32_t(item), mine);
}

template <class Kernel>
void launch_cuda_lanes(const Kernel& kernel, Range range, const char* name) {
  constexpr int block = default_block_size;
  const std::uint64_t threads = std::uint64_t(range.size()) * lanes_per_item;
  const unsigned blocks = unsigned((threads + block - 1) / block);
  for_each_lanes_kernel<<<blocks, block>>>(kernel, range.begin, range.end);
  check_launch(name);
}

}  // namespace hemo::exec

#define HEMO_INSTANTIATE_CUDA_LANES(...) \
  template void hemo::exec::launch_cuda_lanes<__VA_ARGS__>(const __VA_ARGS__&, hemo::exec::Range, const char*)
#define HEMO_INSTANTIATE_CUDA(...) \
  template void hemo::exec::launch_cuda<__VA_ARGS__>(const __VA_ARGS__&, hemo::exec::Range, const char*, int)
