#pragma once
// exec::for_each(space, range, kernel, name): runs kernel(n) for every node n in range,
// on the host (OpenMP) or on the current CUDA device.
//
// A kernel is a plain functor defined once in a device-safe header (a plugin's
// kernels.hpp). Each backend instantiates it in its own translation unit:
//   cpu.cpp:  #include "core/exec/launch_host.hpp"  HEMO_INSTANTIATE_HOST(MyKernel<float>)
//   cuda.cu:  #include "core/exec/launch_cuda.cuh"  HEMO_INSTANTIATE_CUDA(MyKernel<float>)
// so host code that calls for_each never sees CUDA headers, and .cu files never see
// host-only headers.
#include <stdexcept>
#include <string>

#include "core/exec/space.hpp"
#include "physics/hd.hpp"

namespace hemo::exec {

/// CUDA threads per block when the caller does not choose (a plugin may expose it as a
/// tuning key); kernels are compiled for blocks of at most max_block_size threads.
inline constexpr int default_block_size = 256;
inline constexpr int max_block_size = 512;

template <class Kernel>
void launch_host(const Kernel& kernel, Range range);

template <class Kernel>
void launch_cuda(const Kernel& kernel, Range range, const char* name, int block_size);

template <class Kernel>
void for_each(Space space, Range range, const Kernel& kernel, const char* name, int block_size = default_block_size) {
  if (range.end <= range.begin) return;
  if (space == Space::host) {
    launch_host(kernel, range);
  } else {
#if HEMO_HAVE_CUDA
    launch_cuda(kernel, range, name, block_size);
#else
    (void)block_size;
    throw std::runtime_error(std::string("kernel '") + name +
                             "': this hemoflow was built without CUDA (HEMO_CUDA=OFF or no nvcc)");
#endif
  }
}

/// exec::for_each_lanes(space, range, kernel, name): a warp of 32 lanes per item. For
/// items whose work is a long sum (a cell's support nodes, its neighbours). The kernel
/// numbers the terms of an item's sum 0, 1, 2, ...; lane l sums the terms n with
/// n % 32 == l, in increasing n; the 32 lane sums are added by a fixed butterfly; and
/// `finish(item, total)` runs once with the total:
///
///   struct K {
///     using Partial = ...;  // trivially copyable, made of 4- or 8-byte numbers, zero-initialized
///     template <class Lanes> HEMO_HD void partial(std::uint32_t item, Lanes& lanes) const;
///     HEMO_HD static Partial combine(const Partial& a, const Partial& b);  // a + b, commutative
///     HEMO_HD void finish(std::uint32_t item, const Partial& total) const;
///   };
///
/// partial walks the terms as `for (n = lanes.first(n0); n < end; n += Lanes::stride)`
/// and adds term n into `lanes.at(n)`: on CUDA, Lanes is one lane (first: its next
/// number, stride 32, one sum), so the 32 lanes of the warp share the walk; on the host
/// it is all 32 (stride 1, sum n % 32), so the item's set-up runs once. The total is, on
/// both backends, the same numbers added in the same order: level by level (offset 16,
/// 8, 4, 2, 1) lane l < offset takes combine(p[l], p[l + offset]); the CUDA lanes do it
/// as an xor-butterfly (lanes >= offset get the same sums, combine being commutative),
/// the host as that loop. So CPU and GPU agree bit for bit where partial, combine and
/// finish do.
inline constexpr int lanes_per_item = 32;

/// One CUDA lane of an item: the numbers n with n % 32 == lane.
template <class Partial>
struct OneLane {
  static constexpr std::int64_t stride = lanes_per_item;
  int lane = 0;
  Partial sum{};
  /// The first number >= n that this lane takes.
  HEMO_HD std::int64_t first(std::int64_t n) const {
    const std::int64_t s = (lane - n) % lanes_per_item;
    return n + (s < 0 ? s + lanes_per_item : s);
  }
  HEMO_HD Partial& at(std::int64_t) { return sum; }
};

/// All 32 lanes of an item, walked by one host thread.
template <class Partial>
struct AllLanes {
  static constexpr std::int64_t stride = 1;
  Partial sum[lanes_per_item]{};
  HEMO_HD std::int64_t first(std::int64_t n) const { return n; }
  HEMO_HD Partial& at(std::int64_t n) { return sum[n % lanes_per_item]; }
};

template <class Kernel>
void launch_host_lanes(const Kernel& kernel, Range range);

template <class Kernel>
void launch_cuda_lanes(const Kernel& kernel, Range range, const char* name);

template <class Kernel>
void for_each_lanes(Space space, Range range, const Kernel& kernel, const char* name) {
  if (range.end <= range.begin) return;
  if (space == Space::host) {
    launch_host_lanes(kernel, range);
  } else {
#if HEMO_HAVE_CUDA
    launch_cuda_lanes(kernel, range, name);
#else
    throw std::runtime_error(std::string("kernel '") + name +
                             "': this hemoflow was built without CUDA (HEMO_CUDA=OFF or no nvcc)");
#endif
  }
}

}  // namespace hemo::exec
