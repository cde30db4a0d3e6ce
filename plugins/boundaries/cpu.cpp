// The boundaries kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "plugins/boundaries/kernels.hpp"

#define HEMO_BOUNDARY_KERNELS(Real)                                  \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::LaddIoletValues<Real>);    \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::PressureLinks<Real>);  \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ZouHeNodes<Real>);         \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::Gather<Real>);         \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::GatherWeighted<Real>);             \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::WallMomentum<Real>)
HEMO_BOUNDARY_KERNELS(float);
HEMO_BOUNDARY_KERNELS(double);
