// hemo_gpu_tests: doctest cases that need a CUDA device (every tests/gpu/*.cpp). Where
// this build has no CUDA backend, or the machine no device, it prints why and exits 77,
// which ctest reports as skipped (SKIP_RETURN_CODE 77 on gpu.unit).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "core/exec/cuda_runtime.hpp"
#include "core/exec/space.hpp"

int main(int argc, char** argv) {
  if (!hemo::exec::cuda_built() || hemo::exec::cuda::device_count() == 0) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
