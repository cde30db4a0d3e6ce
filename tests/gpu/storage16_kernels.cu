// The 16-bit storage test's kernel on the CUDA backend (storage16_kernels.hpp).
#include "core/exec/launch_cuda.cuh"
#include "tests/gpu/storage16_kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::test::Recode<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_CUDA(hemo::test::Recode<hemo::phys::E4m11s>);
