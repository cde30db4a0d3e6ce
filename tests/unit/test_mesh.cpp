// Sparse mesh: node numbering, the pull neighbour table, wall and coded links,
// periodicity, Morton ordering and lookups.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "core/common/error.hpp"
#include "core/mesh/lattice_view.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "physics/d3q19.hpp"

using namespace hemo;
namespace q19 = hemo::phys::d3q19;

namespace {
geometry::VoxelGrid box(int nx, int ny, int nz) {
  geometry::VoxelGrid v;
  v.dims = {nx, ny, nz};
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(v.dims), 1);
  return v;
}

/// Every node link is consistent: a neighbour m of n in direction q sits at x_n - c_q
/// (modulo periodic axes); every other link leaves the fluid.
void check_links(const mesh::SparseMesh& m, const geometry::VoxelGrid& v) {
  for (std::uint32_t n = 0; n < m.num_nodes; ++n)
    for (int q = 1; q < q19::Q; ++q) {
      const std::uint32_t code = m.neighbours[std::size_t(q - 1) * m.stride + n];
      int y[3] = {m.i[n] - q19::cx(q), m.j[n] - q19::cy(q), m.k[n] - q19::cz(q)};
      for (int d = 0; d < 3; ++d)
        if (m.periodic[d]) y[d] = (y[d] + v.dims[d]) % v.dims[d];
      if (mesh::is_node(code)) {
        REQUIRE(code < m.num_nodes);
        CHECK(m.i[code] == y[0]);
        CHECK(m.j[code] == y[1]);
        CHECK(m.k[code] == y[2]);
      } else {
        CHECK_FALSE(v.is_fluid(y[0], y[1], y[2]));
      }
    }
}
}  // namespace

TEST_CASE("morton keys interleave x, y, z bits") {
  CHECK(mesh::morton_key(1, 0, 0) == 1);
  CHECK(mesh::morton_key(0, 1, 0) == 2);
  CHECK(mesh::morton_key(0, 0, 1) == 4);
  CHECK(mesh::morton_key(1, 1, 1) == 7);
  CHECK(mesh::morton_key(2, 0, 0) == 8);
  // (3, 5, 6) = x 011, y 101, z 110: groups z y x from bit 2 down: 110 101 011
  CHECK(mesh::morton_key(3, 5, 6) == 0b110'101'011ull);
}

TEST_CASE("closed box: every link is a node or a wall, wall count matches the faces") {
  const auto v = box(4, 3, 5);
  const auto m = mesh::build_mesh(v, {}, mesh::Ordering::lexicographic);
  CHECK(m.num_nodes == 60);
  CHECK(m.stride % mesh::node_alignment == 0);
  CHECK(m.stride >= m.num_nodes);
  check_links(m, v);
  // Count by brute force the links whose source lies outside the box.
  std::uint64_t outside = 0;
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i)
        for (int q = 1; q < q19::Q; ++q)
          if (!v.inside_box(i - q19::cx(q), j - q19::cy(q), k - q19::cz(q))) ++outside;
  CHECK(m.wall_links == outside);
  CHECK(m.links.size() == 0);
}

TEST_CASE("periodic axes wrap and leave no walls on their faces") {
  const auto v = box(6, 4, 4);
  mesh::MeshRequest req;
  req.periodic = {true, true, true};
  const auto m = mesh::build_mesh(v, req, mesh::Ordering::lexicographic);
  CHECK(m.wall_links == 0);
  check_links(m, v);
}

TEST_CASE("morton ordering numbers the same nodes with consistent links") {
  const auto v = box(8, 8, 8);
  mesh::MeshRequest req;
  req.periodic = {true, false, false};
  const auto lex = mesh::build_mesh(v, req, mesh::Ordering::lexicographic);
  const auto mor = mesh::build_mesh(v, req, mesh::Ordering::morton);
  CHECK(mor.num_nodes == lex.num_nodes);
  CHECK(mor.wall_links == lex.wall_links);
  check_links(mor, v);
  // Z-order: the first 8 nodes are the 2x2x2 block at the origin.
  std::set<std::array<int, 3>> first;
  for (std::uint32_t n = 0; n < 8; ++n) first.insert({mor.i[n], mor.j[n], mor.k[n]});
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) CHECK(first.count({i, j, k}) == 1);
  for (std::uint32_t n = 0; n < mor.num_nodes; ++n) CHECK(*mor.find(mor.i[n], mor.j[n], mor.k[n]) == n);
}

TEST_CASE("link classes claim the solid voxels beyond a face, in (node, direction) order") {
  const auto v = box(5, 5, 5);
  mesh::MeshRequest req;
  const int lid = req.add_link_class("lid", [](const std::array<int, 3>& y) { return y[2] >= 5; });
  const auto m = mesh::build_mesh(v, req, mesh::Ordering::lexicographic);
  // Top layer: 25 nodes, each pulls 5 directions (c_z = -1) from z = 5.
  CHECK(m.links.size() == 125);
  CHECK(m.links.count(lid) == 125);
  CHECK(m.links.class_names[0] == "lid");
  for (std::size_t k = 0; k < m.links.size(); ++k) {
    CHECK(m.k[m.links.node[k]] == 4);
    CHECK(q19::cz(m.links.direction[k]) == -1);
    const std::uint32_t code = m.neighbours[std::size_t(m.links.direction[k] - 1) * m.stride + m.links.node[k]];
    CHECK(mesh::is_coded_link(code));
    CHECK(mesh::link_index(code) == k);
    if (k) CHECK(m.links.node[k - 1] <= m.links.node[k]);
  }
}

TEST_CASE("lookups: find and nearest") {
  auto v = box(4, 4, 4);
  v.fluid[v.index(1, 1, 1)] = 0;
  const auto m = mesh::build_mesh(v, {}, mesh::Ordering::morton);
  CHECK(m.num_nodes == 63);
  CHECK_FALSE(m.find(1, 1, 1).has_value());
  CHECK_FALSE(m.find(4, 0, 0).has_value());
  const auto n = m.find(2, 3, 0);
  REQUIRE(n.has_value());
  CHECK(m.i[*n] == 2);
  const auto near = m.nearest({2.4, 3.6, 0.5});
  REQUIRE(near.has_value());
  CHECK(*near == *n);
  CHECK_FALSE(m.nearest({40.0, 40.0, 40.0}).has_value());
}

namespace {
/// A sphere-ish blob in a box that is not a multiple of 4 (partly filled bricks, slots
/// beyond the box), with a link class on the x = 0 face and a fluid-link class.
geometry::VoxelGrid blob(int nx, int ny, int nz) {
  auto v = box(nx, ny, nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const double dy = j - ny / 2.0, dz = k - nz / 2.0;
        v.fluid[std::size_t(v.index(i, j, k))] = dy * dy + dz * dz < 0.2 * ny * nz ? 1 : 0;
      }
  return v;
}

/// What a code means, layout-free: the voxel pulled from, a wall, or a coded link's
/// (class, voxel, direction).
std::string meaning(const mesh::SparseMesh& m, std::uint32_t code) {
  if (mesh::is_node(code)) return "node " + std::to_string(m.voxel_index(code));
  if (code == mesh::wall_link) return "wall";
  const std::uint32_t k = mesh::link_index(code);
  return "link " + std::to_string(m.links.link_class[k]) + " " + std::to_string(m.voxel_index(m.links.node[k])) + " " +
         std::to_string(int(m.links.direction[k]));
}
}  // namespace

TEST_CASE("bricks: the brick view pulls from the same voxels, walls and links as the node list") {
  for (const bool periodic_x : {false, true}) {
    const auto v = blob(periodic_x ? 12 : 11, 10, 9);
    mesh::MeshRequest req;
    req.periodic = {periodic_x, false, false};
    req.add_link_class("face", [](const std::array<int, 3>& y) { return y[0] < 0; });
    req.add_fluid_link_class("plane",
                             [](const std::array<int, 3>& from, const std::array<int, 3>& to) { return from[2] == 4 && to[2] == 5; });
    for (const auto ordering : {mesh::Ordering::lexicographic, mesh::Ordering::morton}) {
      CAPTURE(periodic_x);
      const auto nodes = mesh::build_mesh(v, req, ordering);
      const auto bricks = mesh::build_mesh(v, req, ordering, nullptr, mesh::Layout::bricks);
      REQUIRE(bricks.layout == mesh::Layout::bricks);
      CHECK(bricks.num_fluid() == nodes.num_nodes);
      CHECK(bricks.num_nodes % mesh::brick_slots == 0);
      CHECK(bricks.num_nodes == bricks.num_bricks * mesh::brick_slots);
      CHECK(bricks.links.size() == nodes.links.size());
      CHECK(bricks.wall_links == nodes.wall_links);
      CHECK(bricks.links.count(1) > 0);
      const mesh::NodeListView nv{nodes.neighbours.data(), nodes.stride};
      const mesh::BrickView bv{bricks.brick_table.data(), bricks.fluid_mask.data(), bricks.link_mask.data(),
                               bricks.link_word.data(), bricks.link_first.data()};
      std::uint32_t fluid_seen = 0;
      for (std::uint32_t n = 0; n < bricks.num_nodes; ++n) {
        CHECK(bv.is_fluid(n) == bricks.is_fluid(n));
        if (!bricks.is_fluid(n)) continue;
        REQUIRE(bricks.fluid_node(fluid_seen++) == n);
        const auto at = nodes.find(bricks.i[n], bricks.j[n], bricks.k[n]);
        REQUIRE(at);
        std::uint32_t a[q19::Q], b[q19::Q];
        nv.sources(*at, a);
        bv.sources(n, b);
        for (int q = 1; q < q19::Q; ++q) {
          CAPTURE(q);
          CHECK(meaning(nodes, a[q]) == meaning(bricks, b[q]));
          CHECK(b[q] == bricks.neighbours[std::size_t(q - 1) * bricks.stride + n]);  // the host table agrees
        }
        CHECK(bricks.find(bricks.i[n], bricks.j[n], bricks.k[n]) == n);
      }
      CHECK(fluid_seen == bricks.num_fluid());
    }
  }
}

TEST_CASE("bricks: compact and expand drop and restore the holes") {
  const auto v = blob(9, 8, 8);
  const auto m = mesh::build_mesh(v, {}, mesh::Ordering::lexicographic, nullptr, mesh::Layout::bricks);
  std::vector<unsigned char> per_node(m.num_nodes * 2);
  for (std::uint32_t n = 0; n < m.num_nodes; ++n) per_node[2 * n] = m.is_fluid(n) ? 1 : 0, per_node[2 * n + 1] = 7;
  const auto fluid = m.compact(per_node, 2);
  REQUIRE(fluid.size() == 2 * std::size_t(m.num_fluid()));
  for (std::size_t f = 0; f < m.num_fluid(); ++f) CHECK(fluid[2 * f] == 1);
  const auto back = m.expand(fluid, 2);
  for (std::uint32_t n = 0; n < m.num_nodes; ++n) CHECK(back[2 * n + 1] == (m.is_fluid(n) ? 7 : 0));
}

TEST_CASE("bricks: a periodic axis that is not a multiple of 4 is refused") {
  mesh::MeshRequest req;
  req.periodic = {true, false, false};
  CHECK_THROWS_WITH_AS(mesh::build_mesh(box(6, 4, 4), req, mesh::Ordering::lexicographic, nullptr, mesh::Layout::bricks),
                       doctest::Contains("multiple of 4"), InputError);
}
