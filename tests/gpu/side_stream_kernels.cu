// The side stream test's kernels on the CUDA backend (side_stream_kernels.hpp).
#include "core/exec/launch_cuda.cuh"
#include "tests/gpu/side_stream_kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::test::SlowFill);
HEMO_INSTANTIATE_CUDA(hemo::test::PlusOne);
