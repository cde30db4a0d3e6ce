#pragma once
// Host backend of exec::for_each: an OpenMP loop with a static schedule. Every node's
// update is independent, so the result is bitwise identical for any thread count.
#include "core/exec/for_each.hpp"

namespace hemo::exec {

template <class Kernel>
void launch_host(const Kernel& kernel, Range range) {
  const long long begin = range.begin, end = range.end;
#pragma omp parallel for schedule(static)
  for (long long n = begin; n < end; ++n) kernel(static_cast<std::uint32_t>(n));
}

}  // namespace hemo::exec

#define HEMO_INSTANTIATE_HOST(...) \
  template void hemo::exec::launch_host<__VA_ARGS__>(const __VA_ARGS__&, hemo::exec::Range)
