// The BRICK prototype's kernels on the cpu backend (kernels.hpp).
#include "core/exec/launch_host.hpp"
#include "physics/storage16.hpp"
#include "tools/bench/brick_lb/kernels.hpp"
#include "tools/bench/dense_lb/kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStream<float>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStream<double>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStream<float, hemo::phys::Fp16s>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStream<float, hemo::phys::E4m11s>);
HEMO_INSTANTIATE_HOST(hemo::bench::DenseInit<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_HOST(hemo::bench::DenseInit<hemo::phys::E4m11s>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStreamAA<float>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStreamAA<double>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStreamAA<float, hemo::phys::Fp16s>);
HEMO_INSTANTIATE_HOST(hemo::bench::BrickCollideStreamAA<float, hemo::phys::E4m11s>);
