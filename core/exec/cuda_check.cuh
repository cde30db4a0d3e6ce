#pragma once
// Every CUDA call and launch is checked; the error names the call or kernel.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace hemo::exec {

inline void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorName(err) + " (" +
                             cudaGetErrorString(err) + ")");
  }
}

/// After a kernel launch: reports a bad launch configuration at once. Faults inside the
/// kernel surface at the next synchronising call, which is checked too.
inline void check_launch(const char* kernel_name) {
  check_cuda(cudaGetLastError(), (std::string("launch of kernel '") + kernel_name + "'").c_str());
#ifdef HEMO_SYNC_EVERY_KERNEL
  check_cuda(cudaDeviceSynchronize(), (std::string("kernel '") + kernel_name + "'").c_str());
#endif
}

}  // namespace hemo::exec

#define HEMO_CUDA_CHECK(call) ::hemo::exec::check_cuda((call), #call)
