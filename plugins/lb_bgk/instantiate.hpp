#pragma once
// The kernels lb_bgk instantiates, listed once for both backends: cpu.cpp calls
// HEMO_LB_BGK_ALL_KERNELS(HEMO_INSTANTIATE_HOST), cuda.cu HEMO_LB_BGK_ALL_KERNELS(HEMO_INSTANTIATE_CUDA).
#include "physics/storage16.hpp"
#include "plugins/lb_bgk/kernels.hpp"

// Each update kernel with and without the viscous stress output (wall_shear asks for it
// on the steps it samples; the variant without keeps the registers of the plain update).
#define HEMO_LB_BGK_UPDATE(X, Real, Collision, Store, View)     \
  X(hemo::lb_bgk::CollideStream<Real, Collision, Store, View, false>);        \
  X(hemo::lb_bgk::CollideStream<Real, Collision, Store, View, true>);         \
  X(hemo::lb_bgk::CollideStreamInPlace<Real, Collision, Store, View, false>); \
  X(hemo::lb_bgk::CollideStreamInPlace<Real, Collision, Store, View, true>)
// Every collision operator, and the other kernels, on one mesh layout.
#define HEMO_LB_BGK_LAYOUT(X, Real, Store, View)                           \
  HEMO_LB_BGK_UPDATE(X, Real, hemo::phys::BgkCollision<Real>, Store, View);         \
  HEMO_LB_BGK_UPDATE(X, Real, hemo::phys::TrtCollision<Real>, Store, View);         \
  HEMO_LB_BGK_UPDATE(X, Real, hemo::phys::RegularizedCollision<Real>, Store, View); \
  HEMO_LB_BGK_UPDATE(X, Real, hemo::phys::RecursiveRegularizedCollision<Real>, Store, View); \
  X(hemo::lb_bgk::InitEquilibrium<Real, Store, View>);                              \
  X(hemo::lb_bgk::StreamedVelocity<Real, Store, View>)
// ... on each mesh layout (core/mesh/lattice_view.hpp).
#define HEMO_LB_BGK_KERNELS(X, Real, Store)                     \
  HEMO_LB_BGK_LAYOUT(X, Real, Store, hemo::mesh::NodeListView); \
  HEMO_LB_BGK_LAYOUT(X, Real, Store, hemo::mesh::BrickView)
// Every (compute precision, storage) pair a run can choose (plugin.cpp): fp32 and fp64
// stored as computed, fp32 computed and stored in 16 bits.
#define HEMO_LB_BGK_ALL_KERNELS(X)                    \
  HEMO_LB_BGK_KERNELS(X, float, float);               \
  HEMO_LB_BGK_KERNELS(X, double, double);             \
  HEMO_LB_BGK_KERNELS(X, float, hemo::phys::Fp16s);   \
  HEMO_LB_BGK_KERNELS(X, float, hemo::phys::E4m11s)
