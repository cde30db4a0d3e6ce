// Bricks and their SCOTCH partition (core/partition/brick_partition.hpp).
#include <doctest/doctest.h>

#include "core/common/error.hpp"
#include "core/geometry/voxel_grid.hpp"
#include "core/partition/brick_partition.hpp"

using namespace hemo;

namespace {

/// A pipe along x: 64 x 16 x 16 voxels, radius 7 voxels about the box's axis.
geometry::VoxelGrid pipe() {
  geometry::VoxelGrid g;
  g.dims = {64, 16, 16};
  g.dx = 1.0;
  g.hold(geometry::VoxelWindow::whole(g.dims));
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 64; ++i) {
        const double y = j + 0.5 - 8.0, z = k + 0.5 - 8.0;
        g.fluid[std::size_t(g.index(i, j, k))] = y * y + z * z < 49.0;
      }
  return g;
}

/// make_bricks on the fluid voxels of g, as a mesh would give them.
partition::BrickGrid bricks_of(const geometry::VoxelGrid& g, int edge) {
  std::vector<std::int32_t> i, j, k;
  for (int z = 0; z < g.dims[2]; ++z)
    for (int y = 0; y < g.dims[1]; ++y)
      for (int x = 0; x < g.dims[0]; ++x)
        if (g.is_fluid(x, y, z)) i.push_back(x), j.push_back(y), k.push_back(z);
  return partition::make_bricks(g.dims, i, j, k, edge);
}

}  // namespace

TEST_CASE("bricks count the fluid nodes of the box, the last ones cut short") {
  const geometry::VoxelGrid g = pipe();
  const partition::BrickGrid b = bricks_of(g, 8);
  CHECK(b.dims == std::array<int, 3>{8, 2, 2});
  std::uint64_t sum = 0;
  for (std::uint32_t f : b.fluid) sum += f;
  CHECK(sum == std::uint64_t(g.fluid_count()));
  const partition::BrickGrid odd = bricks_of(g, 5);  // 13 x 4 x 4, partial bricks
  CHECK(odd.dims == std::array<int, 3>{13, 4, 4});
  sum = 0;
  for (std::uint32_t f : odd.fluid) sum += f;
  CHECK(sum == std::uint64_t(g.fluid_count()));
  CHECK_THROWS_AS(bricks_of(g, 0), InputError);
}

TEST_CASE("SCOTCH gives every brick with fluid one part, balanced and reproducibly") {
  const geometry::VoxelGrid g = pipe();
  const partition::BrickGrid b = bricks_of(g, 4);  // 16 x 4 x 4 bricks, 192 with fluid
  for (int parts = 1; parts <= 4; ++parts) {
    CAPTURE(parts);
    const partition::Partition p = partition::partition_bricks(b, parts);
    std::uint64_t fluid = 0;
    for (std::size_t k = 0; k < b.fluid.size(); ++k) {
      CHECK((b.fluid[k] > 0) == (p.owner[k] >= 0));
      CHECK(p.owner[k] < parts);
    }
    for (std::uint64_t f : p.part_fluid) fluid += f;
    CHECK(fluid == std::uint64_t(g.fluid_count()));
    CHECK(p.imbalance() < 1.10);  // SCOTCH is asked for 5%; bricks are not equal
    const partition::Partition again = partition::partition_bricks(b, parts);
    CHECK(again.owner == p.owner);
  }
}

TEST_CASE("more parts than bricks with fluid is refused with a message") {
  const partition::BrickGrid b = bricks_of(pipe(), 8);  // 32 bricks, all with fluid
  CHECK_THROWS_WITH_AS(partition::partition_bricks(b, 33),
                       doctest::Contains("33 parts (ranks) but only 32 bricks"), InputError);
  CHECK_THROWS_AS(partition::partition_bricks(b, 0), InputError);
}
