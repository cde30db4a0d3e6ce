// CUDA part of the deterministic reduction: one block per chunk of reduce_chunk values,
// a fixed-shape tree inside the block, partials summed in order on the host.
#include <cuda_runtime.h>

#include <vector>

#include "core/exec/cuda_check.cuh"
#include "core/exec/reduce.hpp"
#include "physics/storage16.hpp"

namespace hemo::exec::cuda_detail {

namespace {
constexpr int block = reduce_lanes;  // one lane a thread: the order reduce.hpp fixes

/// A chunk's sum in the order reduce.hpp fixes, and its least and largest nonzero entry
/// (sum_range): three doubles per chunk.
template <class T>
__global__ void chunk_sum_range_kernel(const T* data, std::size_t count, double* partials) {
  __shared__ double s[block], lo[block], hi[block];
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) * reduce_chunk;
  const std::size_t e = b + reduce_chunk < count ? b + reduce_chunk : count;
  double acc = 0.0, l = HUGE_VAL, h = -HUGE_VAL;
  for (std::size_t i = b + threadIdx.x; i < e; i += block) {
    const double v = static_cast<double>(data[i]);
    acc += v;
    if (v != 0.0) l = v < l ? v : l, h = v > h ? v : h;  // NaN compares false: passed over
  }
  s[threadIdx.x] = acc, lo[threadIdx.x] = l, hi[threadIdx.x] = h;
  __syncthreads();
  for (int w = block / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s[threadIdx.x] += s[threadIdx.x + w];
      lo[threadIdx.x] = fmin(lo[threadIdx.x], lo[threadIdx.x + w]);
      hi[threadIdx.x] = fmax(hi[threadIdx.x], hi[threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double* o = partials + 3 * static_cast<std::size_t>(blockIdx.x);
    o[0] = s[0], o[1] = lo[0], o[2] = hi[0];
  }
}

/// The device's partials, kept from one reduction to the next and grown when a larger one
/// comes: a cudaMalloc and a cudaFree (which waits for the whole device) per reduction
/// cost about 30 us each time, which runs that reduce every step (Windkessel outlets'
/// flow) paid every step. One per host thread; never freed (the process's end frees it).
double* partials_on_device(std::size_t chunks) {
  thread_local double* buffer = nullptr;
  thread_local std::size_t capacity = 0;
  if (chunks > capacity) {
    if (buffer) HEMO_CUDA_CHECK(cudaFree(buffer));
    buffer = nullptr;
    HEMO_CUDA_CHECK(cudaMalloc(&buffer, chunks * sizeof(double)));
    capacity = chunks;
  }
  return buffer;
}
}  // namespace

/// Each chunk's peak (reduce.hpp, chunk_peaks): the largest x^2 + y^2 + z^2 (-1 where all
/// are NaN), its first index, and x, y, z, w there, written to out on the device.
template <class T>
__global__ void chunk_peak_kernel(const T* x, const T* y, const T* z, const T* w, std::size_t count, double* out) {
  __shared__ double value[block];
  __shared__ long long index[block];
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) * reduce_chunk;
  const std::size_t e = b + reduce_chunk < count ? b + reduce_chunk : count;
  double best = -1.0;
  long long at = -1;
  for (std::size_t i = b + threadIdx.x; i < e; i += block) {
    const double u = static_cast<double>(x[i]), v = static_cast<double>(y[i]), s = static_cast<double>(z[i]);
    const double n = u * u + v * v + s * s;
    if (n > best) best = n, at = static_cast<long long>(i);  // false for NaN: passed over
  }
  value[threadIdx.x] = best;
  index[threadIdx.x] = at;
  __syncthreads();
  for (int h = block / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) {
      const double v = value[threadIdx.x + h];
      const long long i = index[threadIdx.x + h];
      // the larger value; of equal ones the first index (-1, none, never wins)
      if (v > value[threadIdx.x] || (v == value[threadIdx.x] && i >= 0 && (index[threadIdx.x] < 0 || i < index[threadIdx.x]))) {
        value[threadIdx.x] = v;
        index[threadIdx.x] = i;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  double* o = out + static_cast<std::size_t>(blockIdx.x) * chunk_peak_values;
  const long long i = index[0];
  o[0] = value[0];
  o[1] = static_cast<double>(i);
  o[2] = i >= 0 ? static_cast<double>(x[i]) : 0.0;
  o[3] = i >= 0 ? static_cast<double>(y[i]) : 0.0;
  o[4] = i >= 0 ? static_cast<double>(z[i]) : 0.0;
  o[5] = i >= 0 ? static_cast<double>(w[i]) : 0.0;
}

template <class T>
void chunk_peaks(const T* x, const T* y, const T* z, const T* w, std::size_t count, double* out) {
  const std::size_t chunks = chunks_of(count);
  chunk_peak_kernel<<<static_cast<unsigned>(chunks), block>>>(x, y, z, w, count, out);
  check_launch("chunk_peak");
}

template void chunk_peaks<float>(const float*, const float*, const float*, const float*, std::size_t, double*);
template void chunk_peaks<double>(const double*, const double*, const double*, const double*, std::size_t, double*);

template <class T>
void chunk_sum_ranges(const T* data, std::size_t count, double* partials_host) {
  const std::size_t chunks = (count + reduce_chunk - 1) / reduce_chunk;
  double* partials = partials_on_device(3 * chunks);
  chunk_sum_range_kernel<<<static_cast<unsigned>(chunks), block>>>(data, count, partials);
  check_launch("chunk_sum_range");
  check_cuda(cudaMemcpy(partials_host, partials, 3 * chunks * sizeof(double), cudaMemcpyDeviceToHost),
             "copy of reduction partials");
}

template void chunk_sum_ranges<float>(const float*, std::size_t, double*);
template void chunk_sum_ranges<double>(const double*, std::size_t, double*);
template void chunk_sum_ranges<phys::Fp16s>(const phys::Fp16s*, std::size_t, double*);
template void chunk_sum_ranges<phys::E4m11s>(const phys::E4m11s*, std::size_t, double*);

}  // namespace hemo::exec::cuda_detail
