#include "core/geometry/voxel_grid.hpp"

#include <numeric>

namespace hemo::geometry {

std::int64_t VoxelGrid::fluid_count() const {
  return std::accumulate(fluid.begin(), fluid.end(), std::int64_t{0},
                         [](std::int64_t a, std::uint8_t v) { return a + (v != 0); });
}

}  // namespace hemo::geometry
