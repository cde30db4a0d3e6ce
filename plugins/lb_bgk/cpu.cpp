// The lb_bgk kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "plugins/lb_bgk/kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<float, hemo::phys::BgkCollision<float>>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double, hemo::phys::BgkCollision<double>>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<float, hemo::phys::TrtCollision<float>>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double, hemo::phys::TrtCollision<double>>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<float, hemo::phys::RegularizedCollision<float>>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double, hemo::phys::RegularizedCollision<double>>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::InitEquilibrium<float>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::InitEquilibrium<double>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::StreamedVelocity<float>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::StreamedVelocity<double>);
