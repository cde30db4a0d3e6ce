// The lb_bgk kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "physics/storage16.hpp"
#include "plugins/lb_bgk/kernels.hpp"

// Every (compute precision, storage) pair a run can choose (plugin.cpp): fp32 and fp64
// stored as computed, fp32 computed and stored in 16 bits.
// Each update kernel with and without the viscous stress output (wall_shear asks for it
// on the steps it samples; the variant without keeps the registers of the plain update).
#define HEMO_LB_BGK_UPDATE(Real, Collision, Store, View)                                         \
  HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<Real, Collision, Store, View, false>);        \
  HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStream<Real, Collision, Store, View, true>);         \
  HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStreamInPlace<Real, Collision, Store, View, false>); \
  HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::CollideStreamInPlace<Real, Collision, Store, View, true>)
#define HEMO_LB_BGK_LAYOUT(Real, Store, View)                                          \
  HEMO_LB_BGK_UPDATE(Real, hemo::phys::BgkCollision<Real>, Store, View);               \
  HEMO_LB_BGK_UPDATE(Real, hemo::phys::TrtCollision<Real>, Store, View);               \
  HEMO_LB_BGK_UPDATE(Real, hemo::phys::RegularizedCollision<Real>, Store, View);       \
  HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::InitEquilibrium<Real, Store, View>);               \
  HEMO_INSTANTIATE_CUDA(hemo::lb_bgk::StreamedVelocity<Real, Store, View>)
// ... on each mesh layout (core/mesh/lattice_view.hpp).
#define HEMO_LB_BGK_KERNELS(Real, Store)                     \
  HEMO_LB_BGK_LAYOUT(Real, Store, hemo::mesh::NodeListView); \
  HEMO_LB_BGK_LAYOUT(Real, Store, hemo::mesh::BrickView)
HEMO_LB_BGK_KERNELS(float, float);
HEMO_LB_BGK_KERNELS(double, double);
HEMO_LB_BGK_KERNELS(float, hemo::phys::Fp16s);
HEMO_LB_BGK_KERNELS(float, hemo::phys::E4m11s);
