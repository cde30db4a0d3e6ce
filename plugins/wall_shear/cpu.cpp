// The wall_shear kernel on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "physics/storage16.hpp"
#include "plugins/wall_shear/kernels.hpp"

#define HEMO_WALL_SHEAR_KERNELS(Real, Store) HEMO_INSTANTIATE_HOST(hemo::wall_shear::WallShearStress<Real, Store>)
HEMO_WALL_SHEAR_KERNELS(float, float);
HEMO_WALL_SHEAR_KERNELS(double, double);
// The 16-bit population storages (fp32 runs).
HEMO_WALL_SHEAR_KERNELS(float, hemo::phys::Fp16s);
HEMO_WALL_SHEAR_KERNELS(float, hemo::phys::E4m11s);
HEMO_INSTANTIATE_HOST(hemo::wall_shear::WallTraction<float>);
HEMO_INSTANTIATE_HOST(hemo::wall_shear::WallTraction<double>);
HEMO_INSTANTIATE_HOST(hemo::wall_shear::WallTractionQuadratic<float>);
HEMO_INSTANTIATE_HOST(hemo::wall_shear::WallTractionQuadratic<double>);
