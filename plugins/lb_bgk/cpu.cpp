// The lb_bgk kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "plugins/lb_bgk/instantiate.hpp"

HEMO_LB_BGK_ALL_KERNELS(HEMO_INSTANTIATE_HOST);
