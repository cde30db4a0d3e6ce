// The lb_vlbm kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "physics/storage16.hpp"
#include "plugins/lb_vlbm/kernels.hpp"

#define HEMO_VLBM_KERNELS(Real, Store)                                                          \
  HEMO_INSTANTIATE_HOST(hemo::vlbm::PartialVolumeLinks<Real, Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_HOST(hemo::vlbm::PartialVolumeLinks<Real, Store, hemo::mesh::BrickView>);    \
  HEMO_INSTANTIATE_HOST(hemo::vlbm::ReturnExcess<Real, Store, hemo::mesh::NodeListView>);       \
  HEMO_INSTANTIATE_HOST(hemo::vlbm::ReturnExcess<Real, Store, hemo::mesh::BrickView>);          \
  HEMO_INSTANTIATE_HOST(hemo::vlbm::CellParticles<Real, Store, hemo::mesh::NodeListView>);      \
  HEMO_INSTANTIATE_HOST(hemo::vlbm::CellParticles<Real, Store, hemo::mesh::BrickView>)
HEMO_VLBM_KERNELS(float, float);
HEMO_VLBM_KERNELS(double, double);
// The 16-bit population storages (fp32 runs).
HEMO_VLBM_KERNELS(float, hemo::phys::Fp16s);
HEMO_VLBM_KERNELS(float, hemo::phys::E4m11s);
