// CUDA part of hemo_membw: device-to-device copy bandwidth, bytes read + written.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/exec/cuda_check.cuh"

namespace hemo::bench {

struct CudaCopyResult {
  double memcpy_gbs = 0, kernel_gbs = 0;
  std::string device;
};

namespace {
__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ b, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}
__global__ void fill_kernel(float4* a, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    a[i] = make_float4(float(i % 97), 1.0f, 2.0f, 3.0f);
}
}  // namespace

CudaCopyResult cuda_copy_bandwidth(std::size_t bytes, int repeat) {
  using exec::check_cuda;
  CudaCopyResult r;
  cudaDeviceProp p{};
  HEMO_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  r.device = p.name;
  void *a = nullptr, *b = nullptr;
  HEMO_CUDA_CHECK(cudaMalloc(&a, bytes));
  HEMO_CUDA_CHECK(cudaMalloc(&b, bytes));
  const std::size_t n4 = bytes / sizeof(float4);
  // Real data, not zeros (some memory systems compress zeros).
  fill_kernel<<<p.multiProcessorCount * 8, 256>>>(static_cast<float4*>(a), n4);
  HEMO_CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  HEMO_CUDA_CHECK(cudaEventCreate(&t0));
  HEMO_CUDA_CHECK(cudaEventCreate(&t1));
  auto best_of = [&](auto&& body) {
    body();  // warm-up
    HEMO_CUDA_CHECK(cudaDeviceSynchronize());
    float best_ms = 1e30f;
    for (int i = 0; i < repeat; ++i) {
      HEMO_CUDA_CHECK(cudaEventRecord(t0));
      body();
      HEMO_CUDA_CHECK(cudaEventRecord(t1));
      HEMO_CUDA_CHECK(cudaEventSynchronize(t1));
      float ms = 0;
      HEMO_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
      best_ms = std::min(best_ms, ms);
    }
    return 2.0 * double(bytes) / (best_ms * 1e-3) / 1e9;
  };
  r.memcpy_gbs = best_of([&] { HEMO_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  r.kernel_gbs = best_of([&] {
    copy_kernel<<<p.multiProcessorCount * 8, 256>>>(static_cast<const float4*>(a), static_cast<float4*>(b), n4);
    exec::check_launch("copy_kernel");
  });
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  cudaFree(a);
  cudaFree(b);
  return r;
}

}  // namespace hemo::bench
