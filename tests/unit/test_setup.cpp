// The set-up's estimates and choices (core/setup): the layout "auto" takes, the
// Poiseuille estimate of a body force's velocity, and the ranks sharing a node.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/geometry/voxel_grid.hpp"
#include "core/setup/flow_numbers.hpp"
#include "core/setup/layout_choice.hpp"
#include "core/setup/resources.hpp"

using namespace hemo;

namespace {

/// A box of dims voxels, fluid where `fluid(i, j, k)`.
template <class F>
geometry::VoxelGrid box(std::array<int, 3> dims, F fluid) {
  geometry::VoxelGrid v;
  v.dims = dims;
  v.window = geometry::VoxelWindow::whole(dims);
  v.fluid.assign(std::size_t(v.voxel_count()), 0);
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) v.fluid[std::size_t(v.index(i, j, k))] = fluid(i, j, k) ? 1 : 0;
  return v;
}

}  // namespace

TEST_CASE("layout auto: bricks only on the GPU, with periodic axes and partition bricks of whole bricks") {
  const std::array<bool, 3> none{false, false, false}, x{true, false, false};
  CHECK(setup::bricks_excluded(false, none, {8, 8, 8}, false, 16) == "the CPU backend");
  CHECK(setup::bricks_excluded(true, none, {8, 8, 8}, false, 16).empty());
  CHECK(setup::bricks_excluded(true, x, {10, 8, 8}, false, 16) == "a periodic axis that is not a multiple of 4 voxels");
  CHECK(setup::bricks_excluded(true, x, {12, 9, 9}, false, 16).empty());  // only the periodic axis counts
  CHECK(setup::bricks_excluded(true, none, {8, 8, 8}, true, 6) == "partition.brick");
  CHECK(setup::bricks_excluded(true, none, {8, 8, 8}, false, 6).empty());  // one rank: no partition bricks
}

TEST_CASE("layout auto: the fill counts fluid voxels over the 4^3 bricks holding any, owned voxels only") {
  // 8^3 box: fluid in the first brick whole (64) and one voxel of the last brick.
  const auto v = box({8, 8, 8}, [](int i, int j, int k) { return (i < 4 && j < 4 && k < 4) || (i == 7 && j == 7 && k == 7); });
  const setup::BrickFill all = setup::count_brick_fill(v, [](int, int, int) { return true; });
  CHECK(all.fluid == 65);
  CHECK(all.bricks == 2);
  CHECK(all.fill() == doctest::Approx(65.0 / 128.0));
  CHECK(setup::fill_excludes_bricks(all.fill()) == "a fill below 0.81");
  const setup::BrickFill first = setup::count_brick_fill(v, [](int i, int, int) { return i < 4; });
  CHECK(first.fluid == 64);
  CHECK(first.bricks == 1);
  CHECK(setup::fill_excludes_bricks(first.fill()).empty());
  CHECK(setup::fill_excludes_bricks(setup::bricks_least_fill).empty());  // at the threshold: bricks
  CHECK(setup::BrickFill{}.fill() == 0.0);
}

TEST_CASE("Poiseuille estimate: a pipe's centre line g R^2 / (4 nu) with R = L / 2, a channel's g L^2 / (8 nu)") {
  const double g = 2.0, L = 0.004, nu = 3.3e-6;
  CHECK(setup::poiseuille_centre_velocity(g, L, nu, true) == doctest::Approx(g * (L / 2) * (L / 2) / (4 * nu)));
  CHECK(setup::poiseuille_centre_velocity(g, L, nu, false) == doctest::Approx(g * L * L / (8 * nu)));
  CHECK(setup::geometry_length_source("pipe") == "pipe diameter");
  CHECK(setup::geometry_length_source("box") == "smallest box edge");
}

TEST_CASE("ranks on this node: the launcher's count, at most the run's; in-process ranks all; else 1") {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  CHECK(setup::ranks_on_this_node(8, false, env({{"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}})) == 4);
  CHECK(setup::ranks_on_this_node(2, false, env({{"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}})) == 2);
  CHECK(setup::ranks_on_this_node(8, false, env({{"SLURM_NTASKS_PER_NODE", "2"}})) == 2);
  CHECK(setup::ranks_on_this_node(8, false, env({{"MPI_LOCALNRANKS", "junk"}, {"SLURM_NTASKS_PER_NODE", "3"}})) == 3);
  CHECK(setup::ranks_on_this_node(8, false, env({})) == 1);
  CHECK(setup::ranks_on_this_node(3, true, env({})) == 3);
  CHECK(setup::ranks_per_device(4, 4) == 1);
  CHECK(setup::ranks_per_device(5, 4) == 2);
  CHECK(setup::ranks_per_device(1, 8) == 1);
  CHECK(setup::voxel_limit() <= (std::int64_t(1) << 31));
  CHECK(!setup::cpu_model().empty());
}
