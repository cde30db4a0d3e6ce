// The lb_vlbm kernel on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "plugins/lb_vlbm/kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::vlbm::PartialVolumeLinks<float>);
HEMO_INSTANTIATE_HOST(hemo::vlbm::PartialVolumeLinks<double>);
HEMO_INSTANTIATE_HOST(hemo::vlbm::CellParticles<float>);
HEMO_INSTANTIATE_HOST(hemo::vlbm::CellParticles<double>);
