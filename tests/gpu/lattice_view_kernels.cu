// The lattice-view test's kernel on the CUDA backend (lattice_view_kernels.hpp).
#include "core/exec/launch_cuda.cuh"
#include "tests/gpu/lattice_view_kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::test::WarpSources);
