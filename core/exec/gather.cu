// CUDA part of exec::gather_rows: one thread per (row, node), on the compute stream.
#include <cuda_runtime.h>

#include "core/exec/cuda_check.cuh"
#include "core/exec/gather.hpp"

namespace hemo::exec::cuda_detail {

namespace {
template <class T>
__global__ void gather_rows_kernel(const T* src, std::size_t stride, RowList rows, const std::uint32_t* index,
                                   std::uint32_t count, T* out) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= std::size_t(rows.count) * count) return;
  const std::size_t r = t / count, i = t % count;
  out[t] = src[std::size_t(rows.row[r]) * stride + index[i]];
}
}  // namespace

template <class T>
void gather_rows(const T* src, std::size_t stride, RowList rows, const std::uint32_t* index, std::uint32_t count, T* out) {
  const std::size_t total = std::size_t(rows.count) * count;
  const unsigned block = 256, blocks = unsigned((total + block - 1) / block);
  gather_rows_kernel<<<blocks, block>>>(src, stride, rows, index, count, out);
  check_launch("gather_rows");
}

template void gather_rows<float>(const float*, std::size_t, RowList, const std::uint32_t*, std::uint32_t, float*);
template void gather_rows<double>(const double*, std::size_t, RowList, const std::uint32_t*, std::uint32_t, double*);

}  // namespace hemo::exec::cuda_detail
