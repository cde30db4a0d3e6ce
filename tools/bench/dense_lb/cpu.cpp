#include "core/exec/launch_host.hpp"
#include "tools/bench/dense_lb/kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::bench::DenseCollideStream<float>);
HEMO_INSTANTIATE_HOST(hemo::bench::DenseCollideStream<double>);
HEMO_INSTANTIATE_HOST(hemo::bench::DenseInit<float>);
HEMO_INSTANTIATE_HOST(hemo::bench::DenseInit<double>);
