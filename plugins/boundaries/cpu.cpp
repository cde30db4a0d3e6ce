// The boundaries kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "physics/storage16.hpp"
#include "plugins/boundaries/kernels.hpp"

#define HEMO_BOUNDARY_KERNELS(Real)                                  \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::LaddIoletValues<Real>);    \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::PressureLinks<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::PressureLinks<Real, Real, hemo::mesh::BrickView>);    \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ZouHeNodes<Real>);         \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::NodeDensity<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::NodeDensity<Real, Real, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::Gather<Real>);         \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::GatherWeighted<Real>);             \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::WallMomentum<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::WallMomentum<Real, Real, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::InterpolatedWallLinks<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::InterpolatedWallLinks<Real, Real, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ReturnWallExcess<Real, Real, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ReturnWallExcess<Real, Real, hemo::mesh::BrickView>)
HEMO_BOUNDARY_KERNELS(float);
HEMO_BOUNDARY_KERNELS(double);
// The kernels that read the populations, for the 16-bit storages (fp32 runs).
#define HEMO_BOUNDARY_STORE_KERNELS(Store)                                     \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::PressureLinks<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::PressureLinks<float, Store, hemo::mesh::BrickView>);    \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ZouHeNodes<float, Store>);            \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::NodeDensity<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::NodeDensity<float, Store, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::WallMomentum<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::WallMomentum<float, Store, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::InterpolatedWallLinks<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::InterpolatedWallLinks<float, Store, hemo::mesh::BrickView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ReturnWallExcess<float, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::boundaries::ReturnWallExcess<float, Store, hemo::mesh::BrickView>)
HEMO_BOUNDARY_STORE_KERNELS(hemo::phys::Fp16s);
HEMO_BOUNDARY_STORE_KERNELS(hemo::phys::E4m11s);
