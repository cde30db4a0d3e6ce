#pragma once
// Deterministic reductions over node arrays. The sum is accumulated in double in a fixed
// order (chunks of reduce_chunk values, then the chunk partials in order), so it does not
// depend on the number of threads: the mass diagnostic is reproducible.
#include <cstddef>
#include <cstdint>

#include "core/exec/space.hpp"

namespace hemo::exec {

inline constexpr std::size_t reduce_chunk = 4096;

/// Sum of data[0..count) in double.
template <class T>
double sum(Space space, const T* data, std::size_t count);

/// Index of the first NaN or infinite value in data[0..count), or -1 if all are finite.
template <class T>
std::int64_t first_non_finite(Space space, const T* data, std::size_t count);

}  // namespace hemo::exec
