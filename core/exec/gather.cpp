// exec::GatherRows on the host backend (OpenMP).
#include "core/exec/gather.hpp"
#include "physics/storage16.hpp"
#include "core/exec/launch_host.hpp"

HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<float>);
HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<double>);
HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<std::uint32_t>);
HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_HOST(hemo::exec::GatherRows<hemo::phys::E4m11s>);
HEMO_INSTANTIATE_HOST(hemo::exec::ScatterRows<float>);
HEMO_INSTANTIATE_HOST(hemo::exec::ScatterRows<double>);
HEMO_INSTANTIATE_HOST(hemo::exec::ScatterRows<std::uint32_t>);
HEMO_INSTANTIATE_HOST(hemo::exec::ScatterRows<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_HOST(hemo::exec::ScatterRows<hemo::phys::E4m11s>);
