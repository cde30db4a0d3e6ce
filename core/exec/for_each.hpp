#pragma once
// exec::for_each(space, range, kernel, name): runs kernel(n) for every node n in range,
// on the host (OpenMP) or on the current CUDA device.
//
// A kernel is a plain functor defined once in a device-safe header (a plugin's
// kernels.hpp). Each backend instantiates it in its own translation unit:
//   cpu.cpp:  #include "core/exec/launch_host.hpp"  HEMO_INSTANTIATE_HOST(MyKernel<float>)
//   cuda.cu:  #include "core/exec/launch_cuda.cuh"  HEMO_INSTANTIATE_CUDA(MyKernel<float>)
// so host code that calls for_each never sees CUDA headers, and .cu files never see
// host-only headers.
#include <stdexcept>
#include <string>

#include "core/exec/space.hpp"

namespace hemo::exec {

/// CUDA threads per block when the caller does not choose (a plugin may expose it as a
/// tuning key); kernels are compiled for blocks of at most max_block_size threads.
inline constexpr int default_block_size = 256;
inline constexpr int max_block_size = 512;

template <class Kernel>
void launch_host(const Kernel& kernel, Range range);

template <class Kernel>
void launch_cuda(const Kernel& kernel, Range range, const char* name, int block_size);

template <class Kernel>
void for_each(Space space, Range range, const Kernel& kernel, const char* name, int block_size = default_block_size) {
  if (range.end <= range.begin) return;
  if (space == Space::host) {
    launch_host(kernel, range);
  } else {
#if HEMO_HAVE_CUDA && !defined(HEMO_PLUGIN_CPU_ONLY)
    launch_cuda(kernel, range, name, block_size);
#elif defined(HEMO_PLUGIN_CPU_ONLY)
    // A plugin built where no CUDA compiler was (hemoflow_add_plugin): it has no GPU kernels.
    (void)block_size;
    throw std::runtime_error(std::string("kernel '") + name +
                             "': this plugin was built for the CPU alone (no CUDA compiler where it was built, or "
                             "HEMOFLOW_PLUGIN_CUDA=OFF): run with --backend cpu, or rebuild it where nvcc is");
#else
    (void)block_size;
    throw std::runtime_error(std::string("kernel '") + name +
                             "': this hemoflow was built without CUDA (HEMO_CUDA=OFF or no nvcc)");
#endif
  }
}

}  // namespace hemo::exec
