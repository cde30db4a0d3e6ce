// The passive scalar's kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "kernels.hpp"

// Each precision (run.precision) on each mesh layout (lattice.layout).
#define PASSIVE_SCALAR_KERNELS(Real, View)                                  \
  HEMO_INSTANTIATE_HOST(hemo::passive_scalar::AdvectDiffuse<Real, View>); \
  HEMO_INSTANTIATE_HOST(hemo::passive_scalar::InitEquilibrium<Real, View>)
PASSIVE_SCALAR_KERNELS(float, hemo::mesh::NodeListView);
PASSIVE_SCALAR_KERNELS(float, hemo::mesh::BrickView);
PASSIVE_SCALAR_KERNELS(double, hemo::mesh::NodeListView);
PASSIVE_SCALAR_KERNELS(double, hemo::mesh::BrickView);
