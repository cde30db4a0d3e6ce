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

template <class Kernel>
void launch_host(const Kernel& kernel, Range range);

template <class Kernel>
void launch_cuda(const Kernel& kernel, Range range, const char* name);

template <class Kernel>
void for_each(Space space, Range range, const Kernel& kernel, const char* name) {
  if (range.end <= range.begin) return;
  if (space == Space::host) {
    launch_host(kernel, range);
  } else {
#if HEMO_HAVE_CUDA
    launch_cuda(kernel, range, name);
#else
    throw std::runtime_error(std::string("kernel '") + name +
                             "': this hemoflow was built without CUDA (HEMO_CUDA=OFF or no nvcc)");
#endif
  }
}

}  // namespace hemo::exec
