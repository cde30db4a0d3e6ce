#pragma once
// Packing node values for a halo exchange: rows (populations, components) of chosen nodes
// into one contiguous buffer, on either backend (the CUDA part is in gather.cu).
#include <cstddef>
#include <cstdint>

#include "core/exec/space.hpp"

namespace hemo::exec {

/// out[r * count + i] = src[r * stride + index[i]] for r < rows, i < count. `src`,
/// `index` and `out` live in `space`'s memory.
template <class T>
void gather_rows(Space space, const T* src, std::size_t stride, int rows, const std::uint32_t* index,
                 std::uint32_t count, T* out);

}  // namespace hemo::exec
