#pragma once
// Packing node values for a halo exchange: rows (populations, components) of chosen nodes
// into one contiguous buffer, on either backend (the CUDA part is in gather.cu).
#include <cstddef>
#include <cstdint>

#include "core/exec/space.hpp"

namespace hemo::exec {

/// Which rows of a field (components, or D3Q19 directions) to pack; passed by value.
struct RowList {
  int count = 0;
  std::uint8_t row[32] = {};
  void add(int r) { row[count++] = static_cast<std::uint8_t>(r); }
};

/// out[r * count + i] = src[rows.row[r] * stride + index[i]] for r < rows.count,
/// i < count. `src`, `index` and `out` live in `space`'s memory.
template <class T>
void gather_rows(Space space, const T* src, std::size_t stride, RowList rows, const std::uint32_t* index,
                 std::uint32_t count, T* out);

}  // namespace hemo::exec
