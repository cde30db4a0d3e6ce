#pragma once
// Deterministic reductions over node arrays. The sum is accumulated in double in a fixed
// order, the same on the CPU and the GPU: chunks of reduce_chunk values; in a chunk,
// reduce_lanes lanes each add every reduce_lanes-th value, then the lanes are added as a
// tree (lane t takes lane t + w for w = reduce_lanes / 2, ..., 1); then the chunk partials
// in order. So it depends neither on the number of threads nor on the backend: the mass
// diagnostic is reproducible, and the flow that a Windkessel or absorbing outlet feeds
// back is the same bits on both, in fp64 too.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/exec/space.hpp"

namespace hemo::exec {

inline constexpr std::size_t reduce_chunk = 4096;
inline constexpr int reduce_lanes = 256;  // the CUDA block of the chunk kernels

/// Sum of data[0..count) in double.
template <class T>
double sum(Space space, const T* data, std::size_t count);

/// A sum (as exec::sum, bitwise) with the least and largest entry beside it.
struct SumRange {
  double sum = 0.0;
  double least = HUGE_VAL, largest = -HUGE_VAL;  // of the nonzero entries; +inf and -inf where there are none
};

/// Sum of data[0..count) in double, the same bits as sum(), and the least and largest of
/// its nonzero entries in the same pass (the density monitor: zero is the fill of a
/// brick's holes, never a fluid node's density; NaNs are passed over).
template <class T>
SumRange sum_range(Space space, const T* data, std::size_t count);

/// Index of the first NaN or infinite value in data[0..count), or -1 if all are finite.
template <class T>
std::int64_t first_non_finite(Space space, const T* data, std::size_t count);

/// Per chunk c of reduce_chunk entries of three rows x, y, z (a velocity field) and a
/// fourth, w (the density), over entries [0, count): the largest x^2 + y^2 + z^2 (in
/// double; -1 where every entry of the chunk is NaN, which are passed over), the first
/// index holding it, and x, y, z and w there: chunk_peak_values doubles at
/// out[c * chunk_peak_values], in `space`'s memory. One pass over the rows, nothing copied
/// to the host and, on CUDA, no wait: a monitor can keep these every few steps and look at
/// them only when something went wrong.
inline constexpr std::size_t chunk_peak_values = 6;
inline std::size_t chunks_of(std::size_t count) { return (count + reduce_chunk - 1) / reduce_chunk; }
template <class T>
void chunk_peaks(Space space, const T* x, const T* y, const T* z, const T* w, std::size_t count, double* out);

}  // namespace hemo::exec
