// The boundaries kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "physics/storage16.hpp"
#include "plugins/boundaries/kernels.hpp"

#define HEMO_BOUNDARY_KERNELS(Real)                                  \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::LaddIoletValues<Real>);    \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::PressureLinks<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::PressureLinks<Real, Real, hemo::mesh::BrickView>);    \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ZouHeNodes<Real>);         \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::NodeDensity<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::NodeDensity<Real, Real, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::Gather<Real>);         \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::GatherWeighted<Real>);             \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::WallMomentum<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::WallMomentum<Real, Real, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::InterpolatedWallLinks<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::InterpolatedWallLinks<Real, Real, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ReturnWallExcess<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ReturnWallExcess<Real, Real, hemo::mesh::BrickView>)
HEMO_BOUNDARY_KERNELS(float);
HEMO_BOUNDARY_KERNELS(double);
// The kernels that read the populations, for the 16-bit storages (fp32 runs).
#define HEMO_BOUNDARY_STORE_KERNELS(Store)                                     \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::PressureLinks<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::PressureLinks<float, Store, hemo::mesh::BrickView>);    \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ZouHeNodes<float, Store>);            \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::NodeDensity<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::NodeDensity<float, Store, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::WallMomentum<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::WallMomentum<float, Store, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::InterpolatedWallLinks<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::InterpolatedWallLinks<float, Store, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ReturnWallExcess<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::boundaries::ReturnWallExcess<float, Store, hemo::mesh::BrickView>)
HEMO_BOUNDARY_STORE_KERNELS(hemo::phys::Fp16s);
HEMO_BOUNDARY_STORE_KERNELS(hemo::phys::E4m11s);
