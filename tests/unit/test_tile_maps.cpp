// Tile maps (COO2CELL, CNEIGH, IJKMAP) against brute force on random geometries: tile
// kinds and ids, neighbours, the membership test, point lookups, periodic wrapping.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mesh/sparse_mesh.hpp"
#include "core/mesh/tile_maps.hpp"
#include "plugins/rbc/kernels.hpp"

using namespace hemo;

namespace {

struct Geometry {
  geometry::VoxelGrid voxels;
  std::vector<int> block_rank;  // rank of each partition block
  int block = 1, blocks[3] = {1, 1, 1};
  int rank = 0;
  bool parted = false;
  mesh::SparseMesh mesh;

  /// Rank owning fluid voxel (i, j, k) of the box, -1 for a solid one.
  int owner(int i, int j, int k) const {
    if (!voxels.is_fluid(i, j, k)) return -1;
    const int b = i / block + blocks[0] * (j / block + blocks[1] * (k / block));
    return block_rank[std::size_t(b)];
  }
};

/// A random box (periodic axes a multiple of c, other axes mostly not), random fluid
/// voxels, and on `parted` cases a random block partition over 2-4 ranks with this mesh
/// being one of them.
Geometry random_geometry(std::mt19937_64& rng, int c, const std::array<bool, 3>& periodic, bool parted, mesh::Ordering ordering) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Geometry g;
  std::array<int, 3> dims{};
  for (std::size_t a = 0; a < 3; ++a) {
    if (periodic[a]) {
      dims[a] = c * uniform(1, std::max(2, 13 / c));
    } else {
      dims[a] = uniform(1, 13);
      if (c > 1 && dims[a] % c == 0) dims[a] += 1;
    }
  }
  auto& v = g.voxels;
  v.dims = dims;
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(dims), 0);
  const double fraction = std::uniform_real_distribution<double>(0.02, 0.95)(rng);
  std::bernoulli_distribution fluid(fraction);
  for (auto& f : v.fluid) f = fluid(rng) ? 1 : 0;

  g.parted = parted;
  g.block = uniform(1, 5);
  for (std::size_t a = 0; a < 3; ++a) g.blocks[a] = (dims[a] + g.block - 1) / g.block;
  const int ranks = uniform(2, 4);
  g.block_rank.resize(std::size_t(g.blocks[0] * g.blocks[1] * g.blocks[2]));
  for (auto& r : g.block_rank) r = uniform(0, ranks - 1);
  g.rank = parted ? uniform(0, ranks - 1) : 0;

  mesh::MeshRequest request;
  request.periodic = periodic;
  if (parted) {
    mesh::MeshPart part;
    part.rank = g.rank;
    const Geometry* gp = &g;  // g is returned by copy: the callback is used only here
    part.owner = [gp](int i, int j, int k) { return gp->owner(i, j, k); };
    g.mesh = mesh::build_mesh(v, request, ordering, &part);
  } else {
    g.mesh = mesh::build_mesh(v, request, ordering);
  }
  return g;
}

std::int64_t wrap(std::int64_t x, std::int64_t n) { return ((x % n) + n) % n; }

/// External tiles seen with no owner (-1), several (-2), one rank, over all cases.
std::uint32_t external_owner_kinds[3] = {0, 0, 0};

/// Everything the tile maps hold, recomputed from the definitions, over the whole box.
/// Returns the number of internal, frontier and external tiles.
std::array<std::uint32_t, 3> check_against_brute_force(const Geometry& g, int c, std::mt19937_64& rng) {
  const auto& msh = g.mesh;
  std::function<int(int, int, int)> owner;
  if (g.parted) owner = [&g](int i, int j, int k) { return g.owner(i, j, k); };
  const mesh::TileMaps maps = mesh::build_tile_maps(msh, c, owner);
  const mesh::TileView view = maps.view();
  const auto dims = msh.dims;
  std::array<std::int64_t, 3> m{};
  for (std::size_t a = 0; a < 3; ++a) m[a] = (dims[a] + c - 1) / c;
  REQUIRE(maps.m[0] == m[0]);
  REQUIRE(maps.m[1] == m[1]);
  REQUIRE(maps.m[2] == m[2]);
  auto key_of = [&](std::int64_t tx, std::int64_t ty, std::int64_t tz) {
    return std::uint64_t(tx + m[0] * (ty + m[1] * tz));
  };
  // The in-box voxel/tile a coordinate stands for, wrapping periodic axes.
  auto wrap_voxel = [&](std::array<std::int64_t, 3> v) -> std::optional<std::array<std::int64_t, 3>> {
    for (std::size_t a = 0; a < 3; ++a) {
      if (msh.periodic[a]) v[a] = wrap(v[a], dims[a]);
      else if (v[a] < 0 || v[a] >= dims[a]) return std::nullopt;
    }
    return v;
  };
  auto wrap_tile = [&](std::array<std::int64_t, 3> t) -> std::optional<std::array<std::int64_t, 3>> {
    for (std::size_t a = 0; a < 3; ++a) {
      if (msh.periodic[a]) t[a] = wrap(t[a], m[a]);
      else if (t[a] < 0 || t[a] >= m[a]) return std::nullopt;
    }
    return t;
  };
  auto owned_node = [&](std::int64_t i, std::int64_t j, std::int64_t k) -> std::int32_t {
    const auto n = msh.find(int(i), int(j), int(k));
    return n ? std::int32_t(*n) : -1;
  };

  // Tile contents, by brute force over the voxels of each tile.
  const std::size_t num_keys = std::size_t(m[0] * m[1] * m[2]);
  std::vector<char> has_owned(num_keys, 0), has_foreign(num_keys, 0);
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) {
        const auto key = key_of(i / c, j / c, k / c);
        if (owned_node(i, j, k) >= 0) has_owned[key] = 1;
        if (g.parted) {
          const int r = g.owner(i, j, k);
          if (r >= 0 && r != g.rank) has_foreign[key] = 1;
        }
      }
  auto neighbours_of = [&](std::int64_t tx, std::int64_t ty, std::int64_t tz) {
    std::vector<std::optional<std::uint64_t>> out;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (!dx && !dy && !dz) continue;
          const auto t = wrap_tile({tx + dx, ty + dy, tz + dz});
          out.push_back(t ? std::optional<std::uint64_t>(key_of((*t)[0], (*t)[1], (*t)[2])) : std::nullopt);
        }
    return out;
  };
  std::map<std::uint64_t, mesh::TileKind> expected_kind;
  for (std::int64_t tz = 0; tz < m[2]; ++tz)
    for (std::int64_t ty = 0; ty < m[1]; ++ty)
      for (std::int64_t tx = 0; tx < m[0]; ++tx) {
        const auto key = key_of(tx, ty, tz);
        const auto around = neighbours_of(tx, ty, tz);
        if (has_owned[key]) {
          bool frontier = has_foreign[key];
          for (const auto& n : around) frontier = frontier || (n && has_foreign[*n]);
          expected_kind[key] = frontier ? mesh::TileKind::frontier : mesh::TileKind::internal;
        } else {
          bool external = false;
          for (const auto& n : around) external = external || (n && has_owned[*n]);
          if (external) expected_kind[key] = mesh::TileKind::external;
        }
      }
  // Expected ids: internal, frontier, external, each ascending (std::map iterates in order).
  std::map<std::uint64_t, std::int32_t> expected_id;
  std::int32_t next = 0;
  std::uint32_t counts[3] = {0, 0, 0};
  for (const auto kind : {mesh::TileKind::internal, mesh::TileKind::frontier, mesh::TileKind::external})
    for (const auto& [key, k] : expected_kind)
      if (k == kind) {
        expected_id[key] = next++;
        ++counts[int(kind)];
      }
  if (!g.parted) CHECK(counts[int(mesh::TileKind::frontier)] == 0);

  // COO2CELL: sorted, exactly the expected tiles, with the expected ids and kinds.
  CHECK(maps.num_internal == counts[0]);
  CHECK(maps.num_frontier == counts[1]);
  CHECK(maps.num_external == counts[2]);
  REQUIRE(maps.coord.size() == expected_kind.size());
  REQUIRE(maps.id.size() == expected_kind.size());
  REQUIRE(maps.coord_of_id.size() == expected_kind.size());
  std::size_t p = 0;
  for (const auto& [key, kind] : expected_kind) {
    CHECK(maps.coord[p] == key);
    CHECK(maps.id[p] == expected_id[key]);
    CHECK(maps.kind(maps.id[p]) == kind);
    CHECK(maps.coord_of_id[std::size_t(maps.id[p])] == key);
    ++p;
  }
  CHECK(maps.neighbours.size() == std::size_t(maps.num_mapped()) * 26);
  // IJKMAP rows: the mapped tiles; with an owner callback the external tiles too (all -1
  // until a particle plugin writes its codes there).
  const std::uint32_t rows = g.parted ? maps.num_tiles() : maps.num_mapped();
  CHECK(maps.num_rows() == rows);
  CHECK(view.num_rows == rows);
  CHECK(maps.nodes.size() == std::size_t(rows) * std::size_t(c * c * c));
  for (std::size_t e = std::size_t(maps.num_mapped()) * std::size_t(c * c * c); e < maps.nodes.size(); ++e)
    CHECK(maps.nodes[e] == -1);

  // tile_at for every tile coordinate of the box and two layers around it.
  for (std::int64_t tz = -2; tz < m[2] + 2; ++tz)
    for (std::int64_t ty = -2; ty < m[1] + 2; ++ty)
      for (std::int64_t tx = -2; tx < m[0] + 2; ++tx) {
        std::int32_t expected = -1;
        if (const auto t = wrap_tile({tx, ty, tz})) {
          const auto it = expected_id.find(key_of((*t)[0], (*t)[1], (*t)[2]));
          if (it != expected_id.end()) expected = it->second;
        }
        CHECK(view.tile_at(tx, ty, tz) == expected);
      }

  // CNEIGH: the 26 neighbours of every internal and frontier tile.
  for (std::int32_t tile = 0; tile < std::int32_t(maps.num_mapped()); ++tile) {
    const auto tc = maps.tile_coords_of(tile);
    const auto around = neighbours_of(tc[0], tc[1], tc[2]);
    for (std::size_t q = 0; q < 26; ++q) {
      const std::int32_t expected = around[q] ? expected_id.at(*around[q]) : -1;
      CHECK(maps.neighbours[std::size_t(tile) * 26 + q] == expected);
    }
    // neighbour_slot agrees with the order.
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (dx || dy || dz)
            CHECK(maps.neighbours[std::size_t(tile) * 26 + std::size_t(mesh::TileView::neighbour_slot(dx, dy, dz))] ==
                  view.tile_at(tc[0] + dx, tc[1] + dy, tc[2] + dz));
  }

  // IJKMAP through node_at (the membership test) and tile_of_voxel, for every lattice
  // point of the box and c + 1 layers around it.
  std::size_t mapped = 0;
  for (const auto n : maps.nodes) mapped += n >= 0;
  CHECK(mapped == msh.num_nodes);
  auto expected_tile_of_voxel = [&](std::int64_t i, std::int64_t j, std::int64_t k) -> std::int32_t {
    const auto v = wrap_voxel({i, j, k});
    if (!v) return -1;
    const auto it = expected_id.find(key_of((*v)[0] / c, (*v)[1] / c, (*v)[2] / c));
    return it == expected_id.end() ? -1 : it->second;
  };
  const int pad = c + 1;
  for (int k = -pad; k < dims[2] + pad; ++k)
    for (int j = -pad; j < dims[1] + pad; ++j)
      for (int i = -pad; i < dims[0] + pad; ++i) {
        const auto v = wrap_voxel({i, j, k});
        const std::int32_t expected = v ? owned_node((*v)[0], (*v)[1], (*v)[2]) : -1;
        CHECK(view.node_at(i, j, k) == expected);
        CHECK(view.lattice_at(i, j, k) == expected);  // no codes written in the external rows
        CHECK(view.tile_of_voxel(i, j, k) == expected_tile_of_voxel(i, j, k));
      }

  // tile_of_point and node_of_point at random points, half of them on voxel faces
  // (x = i + 1/2 belongs to voxel i + 1), in double and float.
  for (int s = 0; s < 400; ++s) {
    double x[3];
    std::int64_t vox[3];
    for (std::size_t a = 0; a < 3; ++a) {
      const double lo = -pad - 0.5, hi = dims[a] + pad - 0.5;
      x[a] = std::uniform_real_distribution<double>(lo, hi)(rng);
      if (s % 2) x[a] = std::floor(x[a]) + 0.5;
      vox[a] = std::int64_t(std::floor(x[a] + 0.5));
    }
    const std::int32_t expected = expected_tile_of_voxel(vox[0], vox[1], vox[2]);
    CHECK(view.tile_of_point(x[0], x[1], x[2]) == expected);
    CHECK(view.tile_of_point(float(x[0]), float(x[1]), float(x[2])) == expected);
    const auto v = wrap_voxel({vox[0], vox[1], vox[2]});
    CHECK(view.node_of_point(x[0], x[1], x[2]) == (v ? owned_node((*v)[0], (*v)[1], (*v)[2]) : -1));
  }
  CHECK(view.tile_of_point(std::nan(""), 0.0, 0.0) == -1);
  CHECK(view.tile_of_point(1e30, 0.0, 0.0) == -1);

  // near_gaps: a voxel with no owned node among the 27 tiles' voxels (outside the box
  // counts, as beyond a non-periodic face).
  const auto& near = maps.near_gaps;
  REQUIRE(near.size() == maps.num_mapped());
  for (std::int32_t tile = 0; tile < std::int32_t(maps.num_mapped()); ++tile) {
    const auto tc = maps.tile_coords_of(tile);
    bool expected = false;
    for (std::int64_t k = (tc[2] - 1) * c; k < (tc[2] + 2) * c && !expected; ++k)
      for (std::int64_t j = (tc[1] - 1) * c; j < (tc[1] + 2) * c && !expected; ++j)
        for (std::int64_t i = (tc[0] - 1) * c; i < (tc[0] + 2) * c && !expected; ++i) {
          const auto v = wrap_voxel({i, j, k});
          expected = !v || owned_node((*v)[0], (*v)[1], (*v)[2]) < 0;
        }
    CHECK(bool(near[std::size_t(tile)]) == expected);
  }

  // The red blood cells' membership test near a point (rbc::NearCell: CNEIGH and IJKMAP,
  // no binary search) agrees with node_at at every lattice point within a tile of it.
  for (int s = 0; s < 100; ++s) {
    double x[3];
    for (std::size_t a = 0; a < 3; ++a) x[a] = std::uniform_real_distribution<double>(-0.5, dims[a] - 0.5)(rng);
    const rbc::NearCell near_cell = rbc::NearCell::of(view, phys::Vec3<double>{x[0], x[1], x[2]});
    if (near_cell.tile < 0) continue;
    const auto base = std::array<std::int64_t, 3>{std::int64_t(std::floor(x[0] + 0.5)), std::int64_t(std::floor(x[1] + 0.5)),
                                                  std::int64_t(std::floor(x[2] + 0.5))};
    for (std::int64_t k = base[2] - c + 1; k < base[2] + c; ++k)
      for (std::int64_t j = base[1] - c + 1; j < base[1] + c; ++j)
        for (std::int64_t i = base[0] - c + 1; i < base[0] + c; ++i)
          CHECK(near_cell.node_at(view, i, j, k) == view.node_at(i, j, k));
  }
  // tile_owner: this rank for mapped tiles; for external ones the one rank owning their
  // fluid voxels (-1 none, -2 several); peers: the other ranks among those.
  REQUIRE(maps.tile_owner.size() == maps.num_tiles());
  std::vector<int> expected_peers;
  for (std::uint32_t t = 0; t < maps.num_tiles(); ++t) {
    if (t < maps.num_mapped()) {
      CHECK(maps.tile_owner[t] == msh.rank);
      continue;
    }
    const auto tc = maps.tile_coords_of(std::int32_t(t));
    std::set<int> ranks;
    for (std::int64_t k = tc[2] * c; k < std::min<std::int64_t>((tc[2] + 1) * c, dims[2]); ++k)
      for (std::int64_t j = tc[1] * c; j < std::min<std::int64_t>((tc[1] + 1) * c, dims[1]); ++j)
        for (std::int64_t i = tc[0] * c; i < std::min<std::int64_t>((tc[0] + 1) * c, dims[0]); ++i)
          if (g.parted && g.owner(int(i), int(j), int(k)) >= 0) ranks.insert(g.owner(int(i), int(j), int(k)));
    const int expected = ranks.empty() ? -1 : ranks.size() > 1 ? -2 : *ranks.begin();
    CHECK(maps.tile_owner[t] == expected);
    external_owner_kinds[expected == -1 ? 0 : expected == -2 ? 1 : 2] += 1;
    if (expected >= 0 && expected != msh.rank) expected_peers.push_back(expected);
  }
  std::sort(expected_peers.begin(), expected_peers.end());
  expected_peers.erase(std::unique(expected_peers.begin(), expected_peers.end()), expected_peers.end());
  CHECK(maps.peers(msh.rank) == expected_peers);
  return {maps.num_internal, maps.num_frontier, maps.num_external};
}

}  // namespace

TEST_CASE("tile maps match brute force on random geometries") {
  const int sizes[3] = {1, 3, 4};
  std::uint32_t seen[3] = {0, 0, 0};  // internal, frontier, external tiles over all cases
  int wrapped_cases = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const int c = sizes[seed % 3];
    std::array<bool, 3> periodic{};
    for (auto& p : periodic) p = std::bernoulli_distribution(0.4)(rng);
    const bool parted = seed % 2 == 0;
    const auto ordering = seed % 5 == 0 ? mesh::Ordering::morton : mesh::Ordering::lexicographic;
    const Geometry g = random_geometry(rng, c, periodic, parted, ordering);
    CAPTURE(seed);
    CAPTURE(c);
    CAPTURE(g.mesh.describe());
    const auto counts = check_against_brute_force(g, c, rng);
    for (std::size_t n = 0; n < 3; ++n) seen[n] += counts[n];
    wrapped_cases += (periodic[0] || periodic[1] || periodic[2]) && counts[0] + counts[1] > 0;
  }
  // The cases exercise every kind of tile and periodic wrapping.
  CHECK(seen[0] > 0);
  CHECK(seen[1] > 0);
  CHECK(seen[2] > 0);
  CHECK(wrapped_cases > 5);
  // ... and external tiles of no owner, of one other rank and of several (unaligned blocks).
  CHECK(external_owner_kinds[0] > 0);
  CHECK(external_owner_kinds[1] > 0);
  CHECK(external_owner_kinds[2] > 0);
  MESSAGE("tiles over all cases: ", seen[0], " internal, ", seen[1], " frontier, ", seen[2], " external; ",
          wrapped_cases, " periodic cases; external tiles owned by none ", external_owner_kinds[0], ", several ",
          external_owner_kinds[1], ", one rank ", external_owner_kinds[2]);
}

TEST_CASE("tile maps of a fully fluid periodic box: all tiles internal, none external") {
  geometry::VoxelGrid v;
  v.dims = {8, 12, 4};
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(v.dims), 1);
  mesh::MeshRequest request;
  request.periodic = {true, true, true};
  const auto msh = mesh::build_mesh(v, request, mesh::Ordering::lexicographic);
  const auto maps = mesh::build_tile_maps(msh, 4);
  CHECK(maps.num_internal == 2 * 3 * 1);
  CHECK(maps.num_frontier == 0);
  CHECK(maps.num_external == 0);
  const auto view = maps.view();
  // Wrapping: the point (-0.6, 12.4, 3.6) is voxel (-1, 12, 4) = (7, 0, 0).
  CHECK(view.node_of_point(-0.6, 12.4, 3.6) == std::int32_t(*msh.find(7, 0, 0)));
  CHECK(view.tile_of_point(-0.6, 12.4, 3.6) == view.tile_at(1, 0, 0));
  // A single tile along z wraps onto itself.
  const auto t = view.tile_at(0, 0, 0);
  CHECK(maps.neighbours[std::size_t(t) * 26 + std::size_t(mesh::TileView::neighbour_slot(0, 0, 1))] == t);
  CHECK(maps.bytes() == maps.coord.size() * 12 + maps.num_mapped() * (26 * 4 + 64 * 4));
}

TEST_CASE("tile maps reject a periodic axis that tiles do not divide, and bad tile sizes") {
  geometry::VoxelGrid v;
  v.dims = {8, 10, 4};
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(v.dims), 1);
  mesh::MeshRequest request;
  request.periodic = {false, true, false};
  const auto msh = mesh::build_mesh(v, request, mesh::Ordering::lexicographic);
  std::string message;
  try {
    (void)mesh::build_tile_maps(msh, 4);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("axis y") != std::string::npos);
  CHECK(message.find("10 voxels") != std::string::npos);
  CHECK(message.find("c = 4") != std::string::npos);
  CHECK(message.find("2 and 5") != std::string::npos);
  CHECK_THROWS_AS((void)mesh::build_tile_maps(msh, 20), std::invalid_argument);  // nearest: 10
  CHECK_NOTHROW((void)mesh::build_tile_maps(msh, 5));
  CHECK_NOTHROW((void)mesh::build_tile_maps(msh, 3 - 1));
  CHECK_THROWS_AS((void)mesh::build_tile_maps(msh, 0), std::invalid_argument);
}
