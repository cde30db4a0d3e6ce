// plugins/rbc/ranks.hpp on random partitioned boxes, against brute force: the peer list is
// symmetric, and the far velocity plan writes a slot code at exactly the points of each
// external tile where another rank's fluid lies, the owner sending the velocity of that
// very voxel's node for each slot.
#include <doctest/doctest.h>

#include <array>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/geometry/voxel_grid.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "core/mesh/tile_maps.hpp"
#include "plugins/rbc/ranks.hpp"
#include "tests/unit/in_process_ranks.hpp"

using namespace hemo;

namespace {

/// A random box with random fluid, cut into bricks of edge `brick` (a multiple of the
/// tile) over `ranks` ranks; the owner of a voxel is its brick's rank where the brick
/// holds fluid, -1 elsewhere (as SetupStage::voxel_owner: solid voxels of a brick with
/// fluid belong to the brick's rank).
struct Partitioned {
  geometry::VoxelGrid voxels;
  int brick = 2, bricks[3] = {1, 1, 1};
  std::vector<int> brick_rank;
  std::array<bool, 3> periodic{false, false, false};

  int brick_of(int i, int j, int k) const { return i / brick + bricks[0] * (j / brick + bricks[1] * (k / brick)); }
  int owner(int i, int j, int k) const { return brick_rank[std::size_t(brick_of(i, j, k))]; }
};

Partitioned random_partition(std::mt19937_64& rng, int c, int ranks) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Partitioned g;
  g.brick = c * uniform(1, 2);
  std::array<int, 3> dims{};
  for (std::size_t a = 0; a < 3; ++a) {
    g.periodic[a] = uniform(0, 1) == 1;
    dims[a] = g.periodic[a] ? c * uniform(3, 5) : uniform(2 * c, 5 * c + 1);
  }
  g.voxels.dims = dims;
  g.voxels.dx = 1.0;
  g.voxels.hold(geometry::VoxelWindow::whole(dims), 0);
  std::bernoulli_distribution fluid(std::uniform_real_distribution<double>(0.3, 0.9)(rng));
  for (auto& f : g.voxels.fluid) f = fluid(rng) ? 1 : 0;
  for (std::size_t a = 0; a < 3; ++a) g.bricks[a] = (dims[a] + g.brick - 1) / g.brick;
  g.brick_rank.assign(std::size_t(g.bricks[0] * g.bricks[1] * g.bricks[2]), -1);
  std::vector<int> has_fluid(g.brick_rank.size(), 0);
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i)
        if (g.voxels.is_fluid(i, j, k)) has_fluid[std::size_t(g.brick_of(i, j, k))] = 1;
  for (std::size_t b = 0; b < g.brick_rank.size(); ++b) g.brick_rank[b] = has_fluid[b] ? uniform(0, ranks - 1) : -1;
  return g;
}

}  // namespace

TEST_CASE("rbc ranks: symmetric peers, and far velocity slots exactly at other ranks' fluid, each fed by that voxel's node") {
  std::mt19937_64 rng(20261125);
  int cases = 0, slots_seen = 0, emptied = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int c = 1 + trial % 3, ranks = 2 + trial % 3;
    const Partitioned g = random_partition(rng, c, ranks);
    mesh::MeshRequest request;
    request.periodic = g.periodic;
    const auto owner = [&g](int i, int j, int k) { return g.owner(i, j, k); };
    const auto n = static_cast<std::size_t>(ranks);
    std::vector<mesh::SparseMesh> meshes(n);
    std::vector<mesh::TileMaps> maps(n);
    std::vector<std::vector<int>> peers(n);
    std::vector<rbc::FarVelocityPlan> plans(n);
    std::vector<std::vector<std::int32_t>> owners_before(n);
    for (int r = 0; r < ranks; ++r) {
      mesh::MeshPart part;
      part.rank = r;
      part.owner = [&g](int i, int j, int k) { return g.voxels.is_fluid(i, j, k) ? g.owner(i, j, k) : -1; };
      meshes[std::size_t(r)] = mesh::build_mesh(g.voxels, request, mesh::Ordering::lexicographic, &part);
      maps[std::size_t(r)] = mesh::build_tile_maps(meshes[std::size_t(r)], c, owner);
      owners_before[std::size_t(r)] = maps[std::size_t(r)].tile_owner;
    }
    const auto errors = test::on_ranks(ranks, [&](int r, comm::Communicator& comm) {
      auto& m = maps[std::size_t(r)];
      peers[std::size_t(r)] = rbc::symmetric_peers(comm, m.peers(r));
      plans[std::size_t(r)] = rbc::plan_far_velocity(comm, m, peers[std::size_t(r)], 300);
    });
    for (const auto& e : errors) REQUIRE(e == "");
    ++cases;
    // Symmetric, and naming every owner of an external tile.
    for (int r = 0; r < ranks; ++r) {
      for (const int p : peers[std::size_t(r)]) {
        const auto& other = peers[std::size_t(p)];
        CHECK(std::find(other.begin(), other.end(), r) != other.end());
      }
      for (const int o : maps[std::size_t(r)].peers(r))
        CHECK(std::find(peers[std::size_t(r)].begin(), peers[std::size_t(r)].end(), o) != peers[std::size_t(r)].end());
    }
    // Every lattice point of every external tile, against the voxels.
    for (int r = 0; r < ranks; ++r) {
      const auto& m = maps[std::size_t(r)];
      const auto& plan = plans[std::size_t(r)];
      const auto& pr = peers[std::size_t(r)];
      const std::int64_t volume = m.tile_volume();
      for (std::uint32_t t = m.num_mapped(); t < m.num_tiles(); ++t) {
        const auto tc = m.tile_coords_of(std::int32_t(t));
        bool fluid_of_other = false;
        for (std::int64_t l = 0; l < volume; ++l) {
          const int i = int(tc[0] * c + l % c), j = int(tc[1] * c + (l / c) % c), k = int(tc[2] * c + l / (c * c));
          const std::int32_t code = m.nodes[std::size_t(std::int64_t(t) * volume + l)];
          const bool inside = i < g.voxels.dims[0] && j < g.voxels.dims[1] && k < g.voxels.dims[2];
          const bool expect_slot = inside && g.voxels.is_fluid(i, j, k) && g.owner(i, j, k) != r;
          REQUIRE(code <= -1);  // no owned node in an external tile
          CHECK((code <= -2) == expect_slot);
          if (code > -2) continue;
          fluid_of_other = true;
          ++slots_seen;
          // The slot's sender is the voxel's owner, which sends that voxel's node.
          const std::uint32_t slot = std::uint32_t(-2 - code);
          std::size_t p = 0;
          while (p + 1 < pr.size() && slot >= plan.receive_first[p + 1]) ++p;
          REQUIRE(p < pr.size());
          const int q = pr[p];
          CHECK(q == g.owner(i, j, k));
          const auto& qpeers = peers[std::size_t(q)];
          const std::size_t back = std::size_t(std::find(qpeers.begin(), qpeers.end(), r) - qpeers.begin());
          REQUIRE(back < qpeers.size());
          const auto& qplan = plans[std::size_t(q)];
          const std::size_t at = qplan.send_first[back] + (slot - plan.receive_first[p]);
          REQUIRE(at < qplan.send_first[back + 1]);
          const std::uint32_t node = qplan.send_nodes[at];
          const auto& qm = meshes[std::size_t(q)];
          CHECK(qm.i[node] == i);
          CHECK(qm.j[node] == j);
          CHECK(qm.k[node] == k);
        }
        // A tile of another rank's brick without that rank's fluid ends with no owner.
        if (owners_before[std::size_t(r)][t] >= 0 && !fluid_of_other) {
          CHECK(m.tile_owner[t] == -1);
          ++emptied;
        }
      }
      // The send lists have the lengths the peers' slots have.
      for (std::size_t p = 0; p < pr.size(); ++p) {
        const auto& qplan = plans[std::size_t(pr[p])];
        const auto& qpeers = peers[std::size_t(pr[p])];
        const std::size_t back = std::size_t(std::find(qpeers.begin(), qpeers.end(), r) - qpeers.begin());
        CHECK(plan.receive_first[p + 1] - plan.receive_first[p] == qplan.send_first[back + 1] - qplan.send_first[back]);
      }
    }
  }
  MESSAGE(cases, " partitions, ", slots_seen, " far velocity slots checked, ", emptied, " external tiles without fluid");
  CHECK(slots_seen > 0);
  CHECK(emptied > 0);
}
