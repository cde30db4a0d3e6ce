#pragma once
// CUDA backend of exec::for_each: one thread per node, the functor passed by value as
// a kernel parameter. Include only from .cu files.
#include <cuda_runtime.h>

#include "core/exec/cuda_check.cuh"
#include "core/exec/cuda_runtime.hpp"
#include "core/exec/for_each.hpp"

namespace hemo::exec {

template <class Kernel>
__global__ void __launch_bounds__(max_block_size) for_each_kernel(Kernel kernel, std::uint32_t begin, std::uint32_t end) {
  const std::uint32_t n = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (n < end) kernel(n);
}

/// A kernel that declares `static constexpr int min_blocks_per_sm = B;` runs in blocks
/// of default_block_size threads, B of which must fit an SM: the compiler keeps it
/// within 65536 / (B default_block_size) registers a thread (B = 4: 64, half the SM's
/// warps). For latency-bound kernels whose registers would otherwise hold occupancy
/// down (the rbc kernels: docs/rbc.md).
template <class Kernel, int MinBlocks>
__global__ void __launch_bounds__(default_block_size, MinBlocks)
    for_each_kernel_occupancy(Kernel kernel, std::uint32_t begin, std::uint32_t end) {
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
  const auto stream = static_cast<cudaStream_t>(cuda::launch_stream());  // the compute stream but for a side stream's launches
  if constexpr (requires { Kernel::min_blocks_per_sm; }) {
    const unsigned blocks = (count + default_block_size - 1) / default_block_size;
    for_each_kernel_occupancy<Kernel, Kernel::min_blocks_per_sm>
        <<<blocks, default_block_size, 0, stream>>>(kernel, range.begin, range.end);
  } else {
    const unsigned blocks = (count + block_size - 1) / block_size;
    for_each_kernel<<<blocks, block_size, 0, stream>>>(kernel, range.begin, range.end);
  }
  check_launch(name);
}

}  // namespace hemo::exec

#define HEMO_INSTANTIATE_CUDA(...) \
  template void hemo::exec::launch_cuda<__VA_ARGS__>(const __VA_ARGS__&, hemo::exec::Range, const char*, int)
