#include "plugins/rbc/seeding.hpp"

#include <cmath>
#include <random>

#include "core/common/text.hpp"

namespace hemo::rbc {

namespace {

using V = phys::Vec3<double>;
using Q = phys::Quaternion<double>;

V position_of(const CellPlacement& c) { return {c.position[0], c.position[1], c.position[2]}; }
V axis_of(const CellPlacement& c) {
  return phys::symmetry_axis(Q{c.orientation[0], c.orientation[1], c.orientation[2], c.orientation[3]});
}

/// The cells placed so far, by mapped tile, for the overlap test.
class PlacedCells {
 public:
  PlacedCells(const mesh::TileMaps& tiles, const CellModel<double>& model)
      : tiles_(tiles), view_(tiles.view()), model_(model), by_tile_(tiles.num_mapped()) {}

  /// The first placed cell whose contact ellipsoid overlaps c's, or -1.
  std::int64_t overlap(const CellPlacement& c, std::int32_t tile) const {
    const V x = position_of(c), n = axis_of(c);
    for (int s = 0; s < 27; ++s) {
      const std::int32_t t = search_tile(view_, tile, s);
      if (t < 0 || std::uint32_t(t) >= tiles_.num_mapped()) continue;
      for (const std::uint32_t j : by_tile_[std::size_t(t)]) {
        const V r = nearest_image(position_of(cells_[j]) - x, view_);
        const double R = std::sqrt(phys::dot(r, r));
        if (R >= model_.pair_cutoff) continue;
        if (R == 0.0 || R < phys::gay_berne_contact(model_.pair, (1.0 / R) * r, n, axis_of(cells_[j]))) return j;
      }
    }
    return -1;
  }
  void add(const CellPlacement& c, std::int32_t tile) {
    by_tile_[std::size_t(tile)].push_back(std::uint32_t(cells_.size()));
    cells_.push_back(c);
  }
  std::vector<CellPlacement>& cells() { return cells_; }

 private:
  const mesh::TileMaps& tiles_;
  mesh::TileView view_;
  const CellModel<double>& model_;
  std::vector<std::vector<std::uint32_t>> by_tile_;
  std::vector<CellPlacement> cells_;
};

/// Whether a wall site lies closer to the cell's surface than the wall's range (the
/// repulsion above its value at contact, eps). A cell in a tile with no gap around it
/// (TileMaps::near_gaps) touches none.
bool touches_wall(const CellPlacement& c, std::int32_t tile, const mesh::TileMaps& tiles, const mesh::TileView& view,
                  const CellModel<double>& model) {
  if (!tiles.near_gaps[std::size_t(tile)]) return false;
  const V x = position_of(c), n = axis_of(c);
  const NearCell near = NearCell::of(view, x);
  const double reach = model.wall.reach();
  for (std::int64_t k = std::int64_t(std::ceil(x.z - reach)); k <= std::int64_t(std::floor(x.z + reach)); ++k)
    for (std::int64_t j = std::int64_t(std::ceil(x.y - reach)); j <= std::int64_t(std::floor(x.y + reach)); ++j)
      for (std::int64_t i = std::int64_t(std::ceil(x.x - reach)); i <= std::int64_t(std::floor(x.x + reach)); ++i) {
        const V r{double(i) - x.x, double(j) - x.y, double(k) - x.z};
        if (phys::dot(r, r) >= reach * reach || near.node_at(view, i, j, k) >= 0) continue;
        if (phys::cell_wall(model.wall, r, n).energy > model.wall.epsilon * (1 + 1e-12)) return true;
      }
  return false;
}

}  // namespace

std::vector<CellPlacement> add_at_random(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                         const CellModel<double>& model, const std::vector<CellPlacement>& existing,
                                         std::size_t count, std::mt19937_64& rng, const NodeDraw& draw_node,
                                         const PlacementTest& allowed, std::uint64_t tries, std::uint64_t give_up_after) {
  PlacedCells placed(tiles, model);
  const mesh::TileView view = tiles.view();
  for (const CellPlacement& c : existing) {
    const std::int32_t tile = view.tile_of_point(c.position[0], c.position[1], c.position[2]);
    if (tile >= 0 && std::uint32_t(tile) < tiles.num_mapped()) placed.add(c, tile);
  }
  const std::size_t before = placed.cells().size();
  if (count == 0 || mesh.num_nodes == 0) return {};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uint64_t failed = 0;  // tries since the last cell placed
  for (std::uint64_t t = 0; t < tries && failed < give_up_after && placed.cells().size() - before < count; ++t) {
    ++failed;
    const std::uint32_t node = draw_node(rng);
    CellPlacement c;
    c.position = {mesh.i[node] + unit(rng) - 0.5, mesh.j[node] + unit(rng) - 0.5, mesh.k[node] + unit(rng) - 0.5};
    // A uniformly random rotation (Shoemake's subgroup algorithm).
    const double u1 = unit(rng), u2 = 2 * M_PI * unit(rng), u3 = 2 * M_PI * unit(rng);
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    c.orientation = {b * std::cos(u3), a * std::sin(u2), a * std::cos(u2), b * std::sin(u3)};
    const std::int32_t tile = view.tile_of_point(c.position[0], c.position[1], c.position[2]);
    if (tile < 0 || std::uint32_t(tile) >= tiles.num_mapped()) continue;
    if (view.node_of_point(c.position[0], c.position[1], c.position[2]) < 0) continue;
    if (allowed && !allowed(c)) continue;
    if (placed.overlap(c, tile) >= 0 || touches_wall(c, tile, tiles, view, model)) continue;
    placed.add(c, tile);
    failed = 0;
  }
  return {placed.cells().begin() + std::ptrdiff_t(before), placed.cells().end()};
}

std::vector<CellPlacement> place_at_random(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                           const CellModel<double>& model, std::size_t count, std::uint64_t seed,
                                           std::uint64_t tries, std::uint64_t give_up_after,
                                           const PlacementTest& allowed) {
  if (count == 0 || mesh.num_nodes == 0) return {};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> pick_node(0, mesh.num_nodes - 1);
  return add_at_random(mesh, tiles, model, {}, count, rng, [&](std::mt19937_64& r) { return pick_node(r); }, allowed,
                       tries, give_up_after);
}

std::string describe_point(const mesh::SparseMesh& mesh, double x, double y, double z) {
  const auto p = to_metres(mesh, x, y, z);
  return str("(", fmt_g(p[0], 6), ", ", fmt_g(p[1], 6), ", ", fmt_g(p[2], 6), ") m");
}

std::vector<std::string> placement_problems(const std::vector<CellPlacement>& cells, const mesh::SparseMesh& mesh,
                                            const mesh::TileMaps& tiles, const CellModel<double>& model,
                                            std::size_t limit) {
  std::vector<std::string> problems;
  std::size_t more = 0;
  auto report = [&](std::string line) {
    if (problems.size() < limit) problems.push_back(std::move(line));
    else ++more;
  };
  auto where = [&](const CellPlacement& c) { return describe_point(mesh, c.position[0], c.position[1], c.position[2]); };
  const mesh::TileView view = tiles.view();
  PlacedCells placed(tiles, model);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const CellPlacement& c = cells[i];
    const std::int32_t tile = view.tile_of_point(c.position[0], c.position[1], c.position[2]);
    if (tile < 0 || std::uint32_t(tile) >= tiles.num_mapped() ||
        view.node_of_point(c.position[0], c.position[1], c.position[2]) < 0) {
      report(str("cell ", i, " at ", where(c), " is not in the fluid"));
      continue;
    }
    if (touches_wall(c, tile, tiles, view, model)) report(str("cell ", i, " at ", where(c), " is closer to the wall than rbc.wall_range"));
    const std::int64_t j = placed.overlap(c, tile);
    if (j >= 0) report(str("cell ", i, " at ", where(c), " overlaps an earlier cell at ", where(placed.cells()[std::size_t(j)])));
    placed.add(c, tile);
  }
  if (more) problems.push_back(str("... and ", more, " more"));
  return problems;
}

}  // namespace hemo::rbc
