#include "core/setup/layout_choice.hpp"

#include "core/common/text.hpp"
#include "core/mesh/lattice_view.hpp"

namespace hemo::setup {

std::string bricks_excluded(bool cuda, const std::array<bool, 3>& periodic, const std::array<int, 3>& dims,
                            bool several_ranks, std::int64_t partition_brick) {
  if (!cuda) return "the CPU backend";
  for (int d = 0; d < 3; ++d)
    if (periodic[std::size_t(d)] && dims[std::size_t(d)] % mesh::brick_edge)
      return "a periodic axis that is not a multiple of 4 voxels";
  if (several_ranks && partition_brick % mesh::brick_edge) return "partition.brick";
  return "";
}

BrickFill count_brick_fill(const geometry::VoxelGrid& voxels, const std::function<bool(int, int, int)>& owned) {
  BrickFill c;
  const auto& w = voxels.window;
  const int e = mesh::brick_edge;
  for (int bk = w.lo[2] / e; bk * e < w.lo[2] + w.extent[2]; ++bk)
    for (int bj = w.lo[1] / e; bj * e < w.lo[1] + w.extent[1]; ++bj)
      for (int bi = w.lo[0] / e; bi * e < w.lo[0] + w.extent[0]; ++bi) {
        std::uint64_t in_brick = 0;
        for (int k = bk * e; k < (bk + 1) * e; ++k)
          for (int j = bj * e; j < (bj + 1) * e; ++j)
            for (int i = bi * e; i < (bi + 1) * e; ++i) {
              if (!w.contains(i, j, k) || !voxels.fluid[std::size_t(voxels.index(i, j, k))]) continue;
              if (!owned(i, j, k)) continue;
              ++in_brick;
            }
        c.fluid += in_brick;
        c.bricks += in_brick > 0;
      }
  return c;
}

std::string fill_excludes_bricks(double fill) {
  return fill < bricks_least_fill ? str("a fill below ", fmt_g(bricks_least_fill)) : "";
}

}  // namespace hemo::setup
