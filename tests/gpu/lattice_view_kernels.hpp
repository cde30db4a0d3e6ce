#pragma once
// A kernel for the lattice-view test (test_gpu_lattice_view.cpp): every node's 18 pull
// codes from a view's warp_sources(), on whichever backend runs it (on the host that is
// sources(); on the GPU the warp's shared tile). Instantiated for CUDA in
// lattice_view_kernels.cu.
#include <cstdint>

#include "core/mesh/lattice_view.hpp"

namespace hemo::test {

struct WarpSources {
  mesh::BrickView lattice;
  std::uint32_t* codes;  // 18 rows of `stride`
  std::uint8_t* may_be_coded;
  std::uint32_t stride;
  HEMO_HD void operator()(std::uint32_t n) const {
    std::uint32_t src[phys::d3q19::Q];
    may_be_coded[n] = lattice.warp_sources(n, src) ? 1 : 0;
    for (int q = 1; q < phys::d3q19::Q; ++q) codes[std::size_t(q - 1) * stride + n] = src[q];
  }
};

}  // namespace hemo::test
