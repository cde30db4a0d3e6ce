#include "core/exec/launch_cuda.cuh"
#include "tools/bench/dense_lb/kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::bench::DenseCollideStream<float>);
HEMO_INSTANTIATE_CUDA(hemo::bench::DenseCollideStream<double>);
HEMO_INSTANTIATE_CUDA(hemo::bench::DenseInit<float>);
HEMO_INSTANTIATE_CUDA(hemo::bench::DenseInit<double>);
