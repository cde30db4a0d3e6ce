// The brick view's warp_sources() on the device (each warp builds a tile of the nodes its
// pulls reach in shared memory, core/mesh/lattice_view.hpp) gives every node, holes
// included, the codes that sources() gives on the host, bit for bit: on partly filled
// bricks, bricks missing around them, a periodic axis, coded links of a boundary class and
// of a fluid-link class, at every block size the lb_bgk kernels may run in.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/launch_host.hpp"
#include "core/mesh/lattice_view.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "tests/gpu/lattice_view_kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::test::WarpSources);

namespace {

using hemo::exec::Space;
namespace mesh = hemo::mesh;
namespace geometry = hemo::geometry;

/// Two crossing tubes in a box that is not a multiple of 4: partly filled bricks, bricks
/// absent inside the box, slots beyond it.
geometry::VoxelGrid crossing_tubes(int nx, int ny, int nz) {
  geometry::VoxelGrid v;
  v.dims = {nx, ny, nz};
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(v.dims), 0);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const double dy = j - ny / 2.0, dz = k - nz / 2.0, dx = i - nx / 3.0;
        const bool along_x = dy * dy + dz * dz < 0.12 * ny * nz, along_z = dx * dx + dy * dy < 9.0;
        v.fluid[std::size_t(v.index(i, j, k))] = along_x || along_z ? 1 : 0;
      }
  return v;
}

}  // namespace

TEST_CASE("gpu lattice view: the brick view's warp_sources on the device = sources on the host, bit for bit") {
  for (const bool periodic_x : {false, true}) {
    CAPTURE(periodic_x);
    const auto v = crossing_tubes(periodic_x ? 24 : 23, 18, 21);
    mesh::MeshRequest req;
    req.periodic = {periodic_x, false, false};
    req.add_link_class("face", [](const std::array<int, 3>& y) { return y[1] < 0 || y[2] < 0; });
    req.add_fluid_link_class("plane",
                             [](const std::array<int, 3>& from, const std::array<int, 3>& to) { return from[0] == 6 && to[0] == 7; });
    const auto m = mesh::build_mesh(v, req, mesh::Ordering::morton, nullptr, mesh::Layout::bricks);
    REQUIRE(m.layout == mesh::Layout::bricks);
    REQUIRE(m.num_bricks > 8);
    const std::uint32_t nodes = m.num_nodes;
    const mesh::BrickView host{m.brick_table.data(), m.fluid_mask.data(), m.link_mask.data(), m.link_word.data(),
                               m.link_first.data()};
    std::vector<std::uint32_t> expected(std::size_t(18) * nodes);
    std::vector<std::uint8_t> expected_coded(nodes);
    std::size_t holes = 0, walls = 0, coded = 0;
    for (std::uint32_t n = 0; n < nodes; ++n) {
      std::uint32_t src[hemo::phys::d3q19::Q];
      expected_coded[n] = host.sources(n, src) ? 1 : 0;
      holes += m.is_fluid(n) ? 0 : 1;
      for (int q = 1; q < hemo::phys::d3q19::Q; ++q) {
        expected[std::size_t(q - 1) * nodes + n] = src[q];
        walls += src[q] == mesh::wall_link ? 1 : 0;
        coded += mesh::is_coded_link(src[q]) ? 1 : 0;
      }
    }
    CHECK(holes > 0);
    CHECK(walls > 0);
    CHECK(coded > 0);
    auto table = hemo::exec::to_device(Space::cuda, m.brick_table);
    auto fluid = hemo::exec::to_device(Space::cuda, m.fluid_mask);
    auto link_mask = hemo::exec::to_device(Space::cuda, m.link_mask);
    auto link_word = hemo::exec::to_device(Space::cuda, m.link_word);
    auto link_first = hemo::exec::to_device(Space::cuda, m.link_first);
    const mesh::BrickView device{table.data(), fluid.data(), link_mask.data(), link_word.data(), link_first.data()};
    for (const int block : {32, 128, 256, hemo::exec::max_block_size}) {
      CAPTURE(block);
      hemo::exec::DeviceArray<std::uint32_t> codes(Space::cuda, expected.size());
      hemo::exec::DeviceArray<std::uint8_t> may(Space::cuda, nodes);
      hemo::exec::for_each(Space::cuda, {0, nodes}, hemo::test::WarpSources{device, codes.data(), may.data(), nodes},
                           "test::warp_sources", block);
      std::vector<std::uint32_t> got(expected.size());
      std::vector<std::uint8_t> got_coded(nodes);
      codes.download(got.data());
      may.download(got_coded.data());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != expected[i] && ++bad <= 5)
          FAIL_CHECK("node " << i % nodes << " direction " << i / nodes + 1 << ": device " << got[i] << ", host " << expected[i]);
      CHECK(bad == 0);
      CHECK(got_coded == expected_coded);
    }
    MESSAGE(m.num_bricks, " bricks, ", nodes, " slots (", holes, " holes), ", walls, " wall and ", coded,
            " coded pulls: device = host");
  }
}
