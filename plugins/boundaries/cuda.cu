// The boundaries kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "plugins/boundaries/kernels.hpp"

#define HEMO_BOUNDARY_KERNELS(Real)                                  \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::LaddIoletValues<Real>);    \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::PressureLinks<Real>);  \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ZouHeNodes<Real>);         \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::Gather<Real>);         \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::GatherWeighted<Real>);             \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::WallMomentum<Real>)
HEMO_BOUNDARY_KERNELS(float);
HEMO_BOUNDARY_KERNELS(double);
