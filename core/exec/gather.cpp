// exec::GatherRows on the host backend (OpenMP).
#include "core/exec/gather.hpp"
#include "core/exec/launch_host.hpp"

HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<float>);
HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<double>);
HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<std::uint32_t>);
