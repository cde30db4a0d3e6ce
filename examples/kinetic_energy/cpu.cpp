// The kernel for the host backend (OpenMP), in each precision a run may choose.
#include "core/exec/launch_host.hpp"
#include "kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::kinetic_energy::EnergyDensity<float>);
HEMO_INSTANTIATE_HOST(hemo::kinetic_energy::EnergyDensity<double>);
