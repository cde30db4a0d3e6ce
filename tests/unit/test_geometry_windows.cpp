// Windows of the voxel box (docs/architecture.md, "Many ranks"): every shape gives a voxel
// the same fluid flag, solid fraction and wall cuts in any window as in the whole box, and
// tallies (and cuts) over windows that cover the box once give the whole box's.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/geometry/shapes.hpp"
#include "geometry_helpers.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/voxel_file.hpp"
#include "core/partition/brick_partition.hpp"

using namespace hemo;
namespace fs = std::filesystem;

namespace {

using test::geometry_section;

/// Voxelizes the box whole, then in layers of `layer` voxels along z (tallied, as pass
/// 1 does) and in one window inside it, and compares voxel by voxel.
void check_windows(const std::string& toml, double dx, int layer) {
  const config::Config g = geometry_section(toml);
  const geometry::VoxelGrid whole = geometry::build(g, dx, std::int64_t(1) << 30);
  REQUIRE(whole.holds_whole_box());
  const auto& dims = whole.dims;

  geometry::Geometry geo(g, dx, std::int64_t(1) << 30);
  CHECK(geo.frame().dims == dims);
  CHECK(geo.frame().fluid.empty());
  geometry::VoxelTally tally = geo.tally();
  std::int64_t mismatches = 0;
  // The whole box's cuts of the voxels a window holds, bitwise.
  const auto same_cuts = [&](const geometry::VoxelGrid& part) {
    std::vector<geometry::WallCut> held;
    const std::int64_t nx = dims[0], nxy = nx * dims[1];
    for (const auto& c : whole.wall_cuts)
      if (part.holds(int(c.voxel % nx), int(c.voxel % nxy / nx), int(c.voxel / nxy))) held.push_back(c);
    return part.has_wall_cuts == whole.has_wall_cuts && part.wall_cuts.size() == held.size() &&
           std::equal(held.begin(), held.end(), part.wall_cuts.begin(), [](const auto& a, const auto& b) {
             return a.voxel == b.voxel && a.direction == b.direction && a.fraction == b.fraction;
           });
  };
  std::vector<geometry::WallCut> slab_cuts;
  const auto compare = [&](const geometry::VoxelGrid& part) {
    CHECK(same_cuts(part));
    const auto& w = part.window;
    for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
      for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
        for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
          const auto a = std::size_t(whole.index(i, j, k)), b = std::size_t(part.index(i, j, k));
          mismatches += whole.fluid[a] != part.fluid[b];
          if (!whole.solid_fraction.empty()) mismatches += whole.solid_fraction[a] != part.solid_fraction[b];
        }
  };
  for (int z = 0; z < dims[2]; z += layer) {
    const geometry::VoxelGrid slab =
        geo.voxelize({{0, 0, z}, {dims[0], dims[1], std::min(layer, dims[2] - z)}}, &tally);
    CHECK(slab.held_count() < whole.held_count());
    CHECK(slab.solid_fraction.empty() == whole.solid_fraction.empty());
    compare(slab);
    slab_cuts.insert(slab_cuts.end(), slab.wall_cuts.begin(), slab.wall_cuts.end());
  }
  // The slabs' cuts, in order, are the whole box's.
  CHECK(slab_cuts.size() == whole.wall_cuts.size());
  CHECK(std::equal(slab_cuts.begin(), slab_cuts.end(), whole.wall_cuts.begin(), whole.wall_cuts.end(),
                   [](const auto& a, const auto& b) {
                     return a.voxel == b.voxel && a.direction == b.direction && a.fraction == b.fraction;
                   }));
  geometry::VoxelWindow inner;
  for (int d = 0; d < 3; ++d) inner.lo[d] = dims[d] / 4, inner.extent[d] = std::max(1, dims[d] / 2);
  compare(geo.voxelize(inner));
  // Two windows that overlap (in x and y as well as in z) agree where both hold.
  geometry::VoxelWindow a, b;
  for (int d = 0; d < 3; ++d) {
    a.lo[d] = 0, a.extent[d] = std::max(1, (2 * dims[d]) / 3);
    b.lo[d] = dims[d] / 3, b.extent[d] = dims[d] - dims[d] / 3;
  }
  compare(geo.voxelize(a));
  compare(geo.voxelize(b));
  CHECK(mismatches == 0);
  if (!whole.wall_cuts.empty()) CHECK(whole.has_wall_cuts);

  CHECK(tally.fluid == whole.fluid_count());
  geo.finish(tally);
  CHECK(geo.frame().characteristic_length == whole.characteristic_length);  // bitwise: a maximum over voxels
  CHECK(geo.frame().description == whole.description);
}

}  // namespace

TEST_CASE("windows: a box with a sphere obstacle") {
  check_windows("[geometry]\nshape = \"box\"\nsize = [20, 12, 16]\n[[geometry.obstacle]]\ncenter = [10, 6, 8]\nradius = 4\n",
                1.0, 3);
}

TEST_CASE("windows: a tilted pipe with solid fractions") {
  check_windows("[geometry]\nshape = \"pipe\"\nradius = 5.0\nlength = 24.0\naxis = [1, 0.3, 0.2]\n"
                "solid_fraction = true\nsubsamples = 4\n",
                1.0, 5);
}

TEST_CASE("windows: a pipe with an obstacle across its wall, without solid fractions") {
  check_windows("[geometry]\nshape = \"pipe\"\nradius = 5.0\nlength = 20.0\naxis = [0.2, 1, 0.3]\n"
                "[[geometry.obstacle]]\ncenter = [1, 0, 4.5]\nradius = 2.5\n",
                1.0, 4);
}

TEST_CASE("windows: a vessel tree with solid fractions") {
  check_windows("[geometry]\nshape = \"tree\"\nradius = 3.0\nlength = 16.0\nlevels = 3\naxis = [0, 0, 1]\n"
                "solid_fraction = true\nsubsamples = 3\n",
                1.0, 4);
}

TEST_CASE("windows: an STL surface and the voxel file written from it") {
  const fs::path dir = fs::temp_directory_path() / ("hemo_windows_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string stl = (dir / "pipe.stl").string();
  geometry::write_stl_binary(stl, geometry::make_pipe_surface({0, 0, 0}, {0.3, 1, 0.2}, 4.0, 20.0, 24, true));
  for (const bool p : {true, false})
    check_windows(std::string("[geometry]\nshape = \"stl\"\nfile = \"") + stl + "\"\nsolid_fraction = " +
                      (p ? "true" : "false") + "\nsubsamples = 4\n",
                  0.9, 4);

  const config::Config g = geometry_section(std::string("[geometry]\nshape = \"stl\"\nfile = \"") + stl +
                                            "\"\nsolid_fraction = true\nsubsamples = 4\n");
  const std::string file = (dir / "pipe.voxels.h5").string();
  geometry::write_voxel_file(file, geometry::build(g, 0.9, std::int64_t(1) << 30));
  check_windows(std::string("[geometry]\nshape = \"voxels\"\nfile = \"") + file + "\"\nsolid_fraction = true\n", 0.9, 3);
  fs::remove_all(dir);
}

TEST_CASE("windows: a voxel inside the box but outside the window is a caller's bug, not a solid") {
  const config::Config g = geometry_section("[geometry]\nshape = \"box\"\nsize = [8, 8, 8]\n");
  const geometry::Geometry geo(g, 1.0, 1000);
  const geometry::VoxelGrid part = geo.voxelize({{2, 2, 2}, {3, 3, 3}});
  CHECK(part.is_fluid(2, 3, 4));
  CHECK_FALSE(part.is_fluid(-1, 3, 4));  // outside the box: solid
  CHECK_THROWS_AS(part.is_fluid(1, 3, 4), std::logic_error);
}

TEST_CASE("windows: the checks that need the whole geometry wait for the totals") {
  // The obstacle lies in the upper half: the lower layer alone finds nothing to cut.
  const config::Config g =
      geometry_section("[geometry]\nshape = \"box\"\nsize = [8, 8, 8]\n[[geometry.obstacle]]\ncenter = [4, 4, 6]\nradius = 1.5\n");
  geometry::Geometry geo(g, 1.0, 1000);
  geometry::VoxelTally lower = geo.tally(), upper = geo.tally();
  CHECK(lower.obstacle_cut.size() == 1);
  geo.voxelize({{0, 0, 0}, {8, 8, 4}}, &lower);
  geo.voxelize({{0, 0, 4}, {8, 8, 4}}, &upper);
  CHECK(lower.obstacle_cut[0] == 0);
  CHECK(upper.obstacle_cut[0] > 0);
  CHECK_THROWS_WITH_AS(geometry::Geometry(g, 1.0, 1000).finish(lower), doctest::Contains("covers no fluid voxel"),
                       InputError);
  lower.add(upper);
  CHECK_NOTHROW(geo.finish(lower));
}

TEST_CASE("windows_of_parts: each part's bricks with one layer around, the whole axis across a periodic face") {
  partition::BrickGrid b = partition::empty_bricks({32, 16, 16}, 8);  // 4 x 2 x 2 bricks
  std::vector<std::int32_t> owner(std::size_t(b.count()), 1);
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j) owner[std::size_t(b.index(0, j, k))] = 0;  // part 0: bricks at x = 0
  const auto w = partition::windows_of_parts(b, owner, 3, {32, 16, 16}, {false, false, false});
  REQUIRE(w.size() == 3);
  CHECK(w[0].lo == std::array<int, 3>{0, 0, 0});
  CHECK(w[0].extent == std::array<int, 3>{9, 16, 16});
  const auto p = partition::windows_of_parts(b, owner, 3, {32, 16, 16}, {true, false, false});
  CHECK(p[0].extent == std::array<int, 3>{32, 16, 16});
  const auto other = partition::windows_of_parts(b, owner, 3, {30, 16, 16}, {false, false, false});
  CHECK(other[1].lo == std::array<int, 3>{7, 0, 0});
  CHECK(other[1].extent == std::array<int, 3>{23, 16, 16});
  CHECK(w[2].count() == 0);
}
