// GatherPostCollision on the CUDA backend, from the same functor as population_rows.cpp.
#include "core/exec/launch_cuda.cuh"
#include "core/fields/population_rows.hpp"
#include "core/mesh/lattice_view.hpp"
#include "physics/storage16.hpp"

#define HEMO_GATHER_POST_COLLISION(Store)                                                      \
  HEMO_INSTANTIATE_CUDA(hemo::GatherPostCollision<Store, hemo::mesh::NodeListView>); \
  HEMO_INSTANTIATE_CUDA(hemo::GatherPostCollision<Store, hemo::mesh::BrickView>)
HEMO_GATHER_POST_COLLISION(float);
HEMO_GATHER_POST_COLLISION(double);
HEMO_GATHER_POST_COLLISION(hemo::phys::Fp16s);
HEMO_GATHER_POST_COLLISION(hemo::phys::E4m11s);
