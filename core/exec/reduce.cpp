#include "core/exec/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/exec/device_array.hpp"
#include "physics/storage16.hpp"

namespace hemo::exec {

#if HEMO_HAVE_CUDA
namespace cuda_detail {
template <class T>
void chunk_peaks(const T* x, const T* y, const T* z, const T* w, std::size_t count, double* out);
template <class T>
void chunk_sum_ranges(const T* data, std::size_t count, double* partials_host);
}
#endif

namespace {
/// One chunk [b, e) in the order of reduce.hpp (lane sums, then their tree), and its
/// least and largest nonzero value (order-free).
template <class T>
double chunk_sum(const T* data, std::size_t b, std::size_t e, double& least, double& largest) {
  double lane[reduce_lanes];
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int t = 0; t < reduce_lanes; ++t) {
    double acc = 0.0;
    for (std::size_t i = b + std::size_t(t); i < e; i += reduce_lanes) {
      const double v = static_cast<double>(data[i]);
      acc += v;
      if (v != 0.0) lo = v < lo ? v : lo, hi = v > hi ? v : hi;  // NaN compares false: passed over
    }
    lane[t] = acc;
  }
  for (int w = reduce_lanes / 2; w > 0; w /= 2)
    for (int t = 0; t < w; ++t) lane[t] += lane[t + w];
  least = lo, largest = hi;
  return lane[0];
}

/// Per chunk: the sum and the least and largest nonzero entry, three doubles at
/// partials[3 c] (+inf and -inf where the chunk has none).
template <class T>
void chunk_sum_ranges_host(const T* data, std::size_t count, double* partials) {
  const long long chunks = static_cast<long long>((count + reduce_chunk - 1) / reduce_chunk);
#pragma omp parallel for schedule(static)
  for (long long c = 0; c < chunks; ++c) {
    const std::size_t b = static_cast<std::size_t>(c) * reduce_chunk;
    partials[3 * c] = chunk_sum(data, b, std::min(count, b + reduce_chunk), partials[3 * c + 1], partials[3 * c + 2]);
  }
}

/// Chunk c's peak (chunk_peaks) of host rows into out[0 .. chunk_peak_values).
template <class T>
void peak_of_chunk(const T* x, const T* y, const T* z, const T* w, std::size_t count, std::size_t c, double* out) {
  const std::size_t b = c * reduce_chunk, e = std::min(count, b + reduce_chunk);
  double best = -1.0;
  std::size_t at = e;
  for (std::size_t i = b; i < e; ++i) {
    const double u = double(x[i]), v = double(y[i]), s = double(z[i]);
    const double n = u * u + v * v + s * s;
    if (n > best) best = n, at = i;  // false for NaN: passed over
  }
  out[0] = best;
  out[1] = at < e ? double(at) : -1.0;
  for (int k = 0; k < 4; ++k) out[2 + k] = 0.0;
  if (at < e) out[2] = double(x[at]), out[3] = double(y[at]), out[4] = double(z[at]), out[5] = double(w[at]);
}
}  // namespace

template <class T>
SumRange sum_range(Space space, const T* data, std::size_t count) {
  SumRange r;
  if (count == 0) return r;
  std::vector<double> partials(3 * ((count + reduce_chunk - 1) / reduce_chunk));
  if (space == Space::host) {
    chunk_sum_ranges_host(data, count, partials.data());
  } else {
#if HEMO_HAVE_CUDA
    cuda_detail::chunk_sum_ranges(data, count, partials.data());
#else
    throw std::logic_error("exec::sum_range on CUDA memory in a build without CUDA");
#endif
  }
  // The chunk partials in order (reduce.hpp).
  for (std::size_t c = 0; c < partials.size(); c += 3) {
    r.sum += partials[c];
    r.least = std::min(r.least, partials[c + 1]), r.largest = std::max(r.largest, partials[c + 2]);
  }
  return r;
}

template <class T>
double sum(Space space, const T* data, std::size_t count) {
  // One pass gives the range beside the sum at no extra traffic: one reduction, not two.
  return sum_range(space, data, count).sum;
}

template <class T>
std::int64_t first_non_finite(Space space, const T* data, std::size_t count) {
  std::vector<T> host;
  const T* p = data;
  if (space == Space::cuda) {
    host.resize(count);
    cuda::copy_to_host(host.data(), data, count * sizeof(T));
    p = host.data();
  }
  for (std::size_t i = 0; i < count; ++i)
    if (!std::isfinite(static_cast<double>(p[i]))) return static_cast<std::int64_t>(i);
  return -1;
}

template <class T>
void chunk_peaks(Space space, const T* x, const T* y, const T* z, const T* w, std::size_t count, double* out) {
  const std::size_t chunks = chunks_of(count);
  if (chunks == 0) return;
  if (space == Space::host) {
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < static_cast<long long>(chunks); ++c)
      peak_of_chunk(x, y, z, w, count, std::size_t(c), out + std::size_t(c) * chunk_peak_values);
    return;
  }
#if HEMO_HAVE_CUDA
  cuda_detail::chunk_peaks(x, y, z, w, count, out);
#else
  throw std::logic_error("exec::chunk_peaks on CUDA memory in a build without CUDA");
#endif
}

template void chunk_peaks<float>(Space, const float*, const float*, const float*, const float*, std::size_t, double*);
template void chunk_peaks<double>(Space, const double*, const double*, const double*, const double*, std::size_t,
                                  double*);
template double sum<float>(Space, const float*, std::size_t);
template SumRange sum_range<float>(Space, const float*, std::size_t);
template SumRange sum_range<double>(Space, const double*, std::size_t);
template SumRange sum_range<phys::Fp16s>(Space, const phys::Fp16s*, std::size_t);
template SumRange sum_range<phys::E4m11s>(Space, const phys::E4m11s*, std::size_t);
template double sum<double>(Space, const double*, std::size_t);
template std::int64_t first_non_finite<float>(Space, const float*, std::size_t);
template std::int64_t first_non_finite<double>(Space, const double*, std::size_t);
// 16-bit population storage: the decoded values.
template double sum<phys::Fp16s>(Space, const phys::Fp16s*, std::size_t);
template double sum<phys::E4m11s>(Space, const phys::E4m11s*, std::size_t);
template std::int64_t first_non_finite<phys::Fp16s>(Space, const phys::Fp16s*, std::size_t);
template std::int64_t first_non_finite<phys::E4m11s>(Space, const phys::E4m11s*, std::size_t);

}  // namespace hemo::exec
