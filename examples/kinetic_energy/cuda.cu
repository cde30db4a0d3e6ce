// The same kernel for the CUDA backend. Only device-safe headers here: no TOML++, HDF5,
// Boost or <iostream> (nvcc cannot compile TOML++).
#include "core/exec/launch_cuda.cuh"
#include "kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::kinetic_energy::EnergyDensity<float>);
HEMO_INSTANTIATE_CUDA(hemo::kinetic_energy::EnergyDensity<double>);
