// The lb_vlbm kernel on the CUDA backend, from the same functor as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "plugins/lb_vlbm/kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::vlbm::PartialVolumeLinks<float>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::PartialVolumeLinks<double>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::CellParticles<float>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::CellParticles<double>);
