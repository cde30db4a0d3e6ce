// The lb_vlbm kernel on the CUDA backend, from the same functor as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "physics/storage16.hpp"
#include "plugins/lb_vlbm/kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::vlbm::PartialVolumeLinks<float>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::PartialVolumeLinks<double>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::CellParticles<float>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::CellParticles<double>);
// The 16-bit population storages (fp32 runs).
HEMO_INSTANTIATE_CUDA(hemo::vlbm::PartialVolumeLinks<float, hemo::phys::Fp16s>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::PartialVolumeLinks<float, hemo::phys::E4m11s>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::CellParticles<float, hemo::phys::Fp16s>);
HEMO_INSTANTIATE_CUDA(hemo::vlbm::CellParticles<float, hemo::phys::E4m11s>);
