// The lb_bgk kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "plugins/lb_bgk/kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<float, hemo::phys::BgkCollision<float>>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<double, hemo::phys::BgkCollision<double>>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<float, hemo::phys::TrtCollision<float>>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<double, hemo::phys::TrtCollision<double>>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<float, hemo::phys::RegularizedCollision<float>>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<double, hemo::phys::RegularizedCollision<double>>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::InitEquilibrium<float>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::InitEquilibrium<double>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::StreamedVelocity<float>);
HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::StreamedVelocity<double>);
