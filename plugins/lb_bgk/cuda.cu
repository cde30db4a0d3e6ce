// The lb_bgk kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "plugins/lb_bgk/kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<float>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<double>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::InitEquilibrium<float>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::InitEquilibrium<double>);
