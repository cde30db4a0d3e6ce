#pragma once
// Host backend of exec::for_each (and for_each_lanes): an OpenMP loop with a static
// schedule. Every item's update is independent, so the result is bitwise identical for
// any thread count.
#include "core/exec/for_each.hpp"

namespace hemo::exec {

template <class Kernel>
void launch_host(const Kernel& kernel, Range range) {
  const long long begin = range.begin, end = range.end;
#pragma omp parallel for schedule(static)
  for (long long n = begin; n < end; ++n) kernel(static_cast<std::uint32_t>(n));
}

/// for_each_lanes on the host: the 32 lanes of an item in one walk, then the butterfly's
/// sums in the order the CUDA lanes make them (for_each.hpp).
template <class Kernel>
void launch_host_lanes(const Kernel& kernel, Range range) {
  const long long begin = range.begin, end = range.end;
#pragma omp parallel for schedule(static)
  for (long long n = begin; n < end; ++n) {
    const auto item = static_cast<std::uint32_t>(n);
    AllLanes<typename Kernel::Partial> lanes;
    kernel.partial(item, lanes);
    auto& p = lanes.sum;
    for (int offset = lanes_per_item / 2; offset > 0; offset /= 2)
      for (int lane = 0; lane < offset; ++lane) p[lane] = Kernel::combine(p[lane], p[lane + offset]);
    kernel.finish(item, p[0]);
  }
}

}  // namespace hemo::exec

#define HEMO_INSTANTIATE_HOST(...) \
  template void hemo::exec::launch_host<__VA_ARGS__>(const __VA_ARGS__&, hemo::exec::Range)
#define HEMO_INSTANTIATE_HOST_LANES(...) \
  template void hemo::exec::launch_host_lanes<__VA_ARGS__>(const __VA_ARGS__&, hemo::exec::Range)
