#include "core/exec/gather.hpp"

#include <stdexcept>

namespace hemo::exec {

#if HEMO_HAVE_CUDA
namespace cuda_detail {
template <class T>
void gather_rows(const T* src, std::size_t stride, RowList rows, const std::uint32_t* index, std::uint32_t count, T* out);
}
#endif

template <class T>
void gather_rows(Space space, const T* src, std::size_t stride, RowList rows, const std::uint32_t* index,
                 std::uint32_t count, T* out) {
  if (count == 0) return;
  if (space == Space::cuda) {
#if HEMO_HAVE_CUDA
    cuda_detail::gather_rows(src, stride, rows, index, count, out);
    return;
#else
    throw std::logic_error("exec::gather_rows on CUDA memory in a build without CUDA");
#endif
  }
#pragma omp parallel for schedule(static)
  for (int r = 0; r < rows.count; ++r)
    for (std::uint32_t i = 0; i < count; ++i) out[std::size_t(r) * count + i] = src[std::size_t(rows.row[r]) * stride + index[i]];
}

template void gather_rows<float>(Space, const float*, std::size_t, RowList, const std::uint32_t*, std::uint32_t, float*);
template void gather_rows<double>(Space, const double*, std::size_t, RowList, const std::uint32_t*, std::uint32_t, double*);

}  // namespace hemo::exec
