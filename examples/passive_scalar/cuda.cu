// The passive scalar's kernels on the CUDA backend, from the same functors as cpu.cpp.
// Only device-safe headers here: nvcc must not see toml++, HDF5, Boost or <iostream>.
#include "core/exec/launch_cuda.cuh"
#include "kernels.hpp"

#define PASSIVE_SCALAR_KERNELS(Real, View)                                  \
  HEMO_INSTANTIATE_CUDA(hemo::passive_scalar::AdvectDiffuse<Real, View>); \
  HEMO_INSTANTIATE_CUDA(hemo::passive_scalar::InitEquilibrium<Real, View>)
PASSIVE_SCALAR_KERNELS(float, hemo::mesh::NodeListView);
PASSIVE_SCALAR_KERNELS(float, hemo::mesh::BrickView);
PASSIVE_SCALAR_KERNELS(double, hemo::mesh::NodeListView);
PASSIVE_SCALAR_KERNELS(double, hemo::mesh::BrickView);
