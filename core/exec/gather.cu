// exec::GatherRows on the CUDA backend, from the same functor as gather.cpp.
#include "core/exec/gather.hpp"
#include "physics/storage16.hpp"
#include "core/exec/launch_cuda.cuh"

HEMO_INSTANTIATE_CUDA(hemo::exec::GatherRows<float>);
HEMO_INSTANTIATE_CUDA(hemo::exec::GatherRows<double>);
HEMO_INSTANTIATE_CUDA(hemo::exec::GatherRows<std::uint32_t>);
HEMO_INSTANTIATE_CUDA(hemo::exec::GatherRows<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_CUDA(hemo::exec::GatherRows<hemo::phys::E4m11s>);
HEMO_INSTANTIATE_CUDA(hemo::exec::ScatterRows<float>);
HEMO_INSTANTIATE_CUDA(hemo::exec::ScatterRows<double>);
HEMO_INSTANTIATE_CUDA(hemo::exec::ScatterRows<std::uint32_t>);
HEMO_INSTANTIATE_CUDA(hemo::exec::ScatterRows<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_CUDA(hemo::exec::ScatterRows<hemo::phys::E4m11s>);
