// exec::cuda::SideStream: exec::for_each launches on it while a Launches lives (and on the
// compute stream again after); join_compute orders the compute stream's later work after
// it, after_compute the side stream's after the compute stream's; wait() waits for it.
// Each value is checked against the host backend's.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/exec/cuda_runtime.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/launch_host.hpp"
#include "tests/gpu/side_stream_kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::test::SlowFill);
HEMO_INSTANTIATE_HOST(hemo::test::PlusOne);

namespace cuda = hemo::exec::cuda;
using hemo::exec::DeviceArray;
using hemo::exec::Space;
using hemo::test::PlusOne;
using hemo::test::SlowFill;

namespace {
std::vector<std::uint32_t> on_host(SlowFill f, std::uint32_t n, bool plus_one) {
  std::vector<std::uint32_t> v(n), w(n);
  f.out = v.data();
  hemo::exec::for_each(Space::host, {0, n}, f, "slow_fill");
  if (plus_one) hemo::exec::for_each(Space::host, {0, n}, PlusOne{v.data(), w.data()}, "plus_one");
  return plus_one ? w : v;
}
}  // namespace

TEST_CASE("side stream: launches go to it in a Launches scope, and the joins order the two streams") {
  const std::uint32_t n = 1u << 22, rounds = 4000;  // a few milliseconds on an H100
  DeviceArray<std::uint32_t> a(Space::cuda, n), b(Space::cuda, n);
  cuda::SideStream side;
  CHECK(cuda::launch_stream() == nullptr);
  {
    cuda::SideStream::Launches on(side);
    CHECK(cuda::launch_stream() != nullptr);
    CHECK_THROWS_AS(cuda::SideStream::Launches{side}, std::logic_error);  // not nested
    hemo::exec::for_each(Space::cuda, {0, n}, SlowFill{a.data(), rounds}, "slow_fill");
  }
  CHECK(cuda::launch_stream() == nullptr);
  side.join_compute();  // the compute stream's next kernel reads what the side stream wrote
  hemo::exec::for_each(Space::cuda, {0, n}, PlusOne{a.data(), b.data()}, "plus_one");
  CHECK(b.to_host() == on_host(SlowFill{nullptr, rounds}, n, true));

  // The other way: the side stream reads what the compute stream wrote.
  hemo::exec::for_each(Space::cuda, {0, n}, SlowFill{a.data(), rounds + 1}, "slow_fill");
  side.after_compute();
  {
    cuda::SideStream::Launches on(side);
    hemo::exec::for_each(Space::cuda, {0, n}, PlusOne{a.data(), b.data()}, "plus_one");
  }
  side.wait();  // the compute stream's copy below does not wait for the side stream
  CHECK(b.to_host() == on_host(SlowFill{nullptr, rounds + 1}, n, true));
}
