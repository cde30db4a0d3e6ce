// The lb_bgk kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "plugins/lb_bgk/instantiate.hpp"

HEMO_LB_BGK_ALL_KERNELS(HEMO_INSTANTIATE_CUDA);
