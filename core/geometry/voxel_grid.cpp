#include "core/geometry/voxel_grid.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/common/text.hpp"

namespace hemo::geometry {

bool VoxelGrid::is_fluid(int i, int j, int k) const {
  if (!inside_box(i, j, k)) return false;
  if (!window.contains(i, j, k))
    throw std::logic_error(str("voxel (", i, ", ", j, ", ", k, ") is outside the held window (from (", window.lo[0], ", ",
                               window.lo[1], ", ", window.lo[2], "), ", window.extent[0], " x ", window.extent[1],
                               " x ", window.extent[2], ")"));
  return fluid[std::size_t(window.offset(i, j, k))] != 0;
}

std::int64_t VoxelGrid::fluid_count() const {
  return std::accumulate(fluid.begin(), fluid.end(), std::int64_t{0},
                         [](std::int64_t a, std::uint8_t v) { return a + (v != 0); });
}

float find_wall_cut(const std::vector<WallCut>& cuts, std::int64_t voxel, int direction) {
  const auto it = std::lower_bound(cuts.begin(), cuts.end(), std::pair{voxel, direction},
                                   [](const WallCut& c, const std::pair<std::int64_t, int>& key) {
                                     return c.voxel < key.first || (c.voxel == key.first && c.direction < key.second);
                                   });
  return it != cuts.end() && it->voxel == voxel && it->direction == direction ? it->fraction : -1.0f;
}

void VoxelGrid::hold(const VoxelWindow& w, std::uint8_t fill) {
  window = w;
  fluid.assign(std::size_t(w.count()), fill);
  solid_fraction.clear();
  wall_cuts.clear();
  has_wall_cuts = false;
}

}  // namespace hemo::geometry
