// The lb_bgk kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "plugins/lb_bgk/kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<float>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::InitEquilibrium<float>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::InitEquilibrium<double>);
