// exec::cuda::StreamMarks, the device timeline's clock: a mark waits for the work queued
// before it, so a copy between two marks spans time on the device, and a host pause
// between an end mark and the next start mark (nothing queued) shows as the gap.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "core/exec/cuda_runtime.hpp"

namespace cuda = hemo::exec::cuda;

TEST_CASE("stream marks: a device copy spans time between its marks; a host pause is a gap on the device") {
  const std::size_t bytes = std::size_t(1) << 30;  // 1 GiB: about a millisecond on an H100
  void* a = cuda::allocate(bytes);
  void* b = cuda::allocate(bytes);
  cuda::StreamMarks marks(4);
  cuda::synchronize_compute("stream marks: set-up");
  marks.mark(0);
  cuda::copy_on_device(b, a, bytes);  // queued on the compute stream
  marks.mark(1);
  cuda::synchronize_compute("stream marks: copy");  // the host pauses with nothing queued
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  marks.mark(2);
  marks.mark(3);
  marks.wait(3);
  const double copy = marks.seconds(0, 1), gap = marks.seconds(1, 2), empty = marks.seconds(2, 3);
  CAPTURE(copy);
  CAPTURE(gap);
  CAPTURE(empty);
  CHECK(copy > 1e-4);   // 2 GiB moved: at least 0.1 ms on any GPU this project runs on
  CHECK(copy < 1.0);
  CHECK(gap >= 0.019);  // the sleep, on the device's clock (about 0.5 us resolution)
  CHECK(gap < 1.0);
  CHECK(empty >= 0.0);
  CHECK(empty < 1e-3);  // two marks with nothing between them
  cuda::release(a);
  cuda::release(b);
}
