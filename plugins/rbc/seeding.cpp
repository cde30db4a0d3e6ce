#include "plugins/rbc/seeding.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>

#include "core/common/text.hpp"
#include "core/io/hdf5_file.hpp"
#include "physics/rigid_body.hpp"

namespace hemo::rbc {

namespace {

using V = phys::Vec3<double>;
using Q = phys::Quaternion<double>;

V position_of(const CellPlacement& c) { return {c.position[0], c.position[1], c.position[2]}; }
V axis_of(const CellPlacement& c) {
  return phys::symmetry_axis(Q{c.orientation[0], c.orientation[1], c.orientation[2], c.orientation[3]});
}

/// The cells placed so far, by mapped tile, for the overlap test, which reads 27 tiles a
/// try (most of a seeding's time, in cache misses): each tile's first cells' positions and
/// axes are stored in the tile's own record, so that neighbouring tiles' cells lie side by
/// side; more than inline_cells in a tile go on in a list of the tile's.
class PlacedCells {
 public:
  PlacedCells(const mesh::TileMaps& tiles, const CellModel<double>& model)
      : tiles_(tiles), view_(tiles.view()), model_(model), by_tile_(tiles.num_mapped()) {}

  /// The first placed cell whose contact ellipsoid overlaps c's, or -1.
  std::int64_t overlap(const CellPlacement& c, std::int32_t tile) const {
    const V x = position_of(c), n = axis_of(c);
    auto overlaps = [&](const Placed& p) {
      const V r = nearest_image(p.position - x, view_);
      const double R = std::sqrt(phys::dot(r, r));
      if (R >= model_.pair_cutoff) return false;
      return R == 0.0 || R < phys::gay_berne_contact(model_.pair, (1.0 / R) * r, n, p.axis);
    };
    for (int s = 0; s < 27; ++s) {
      const std::int32_t t = search_tile(view_, tile, s);
      if (t < 0 || std::uint32_t(t) >= tiles_.num_mapped()) continue;
      const TileCells& cells = by_tile_[std::size_t(t)];
      const std::uint32_t first = std::min<std::uint32_t>(cells.count, inline_cells);
      for (std::uint32_t k = 0; k < first; ++k)
        if (overlaps(cells.first[k])) return cells.first[k].index;
      for (const Placed& p : cells.more)
        if (overlaps(p)) return p.index;
    }
    return -1;
  }
  void add(const CellPlacement& c, std::int32_t tile) {
    TileCells& cells = by_tile_[std::size_t(tile)];
    const Placed p{position_of(c), axis_of(c), std::int64_t(cells_.size())};
    if (cells.count < inline_cells) cells.first[cells.count] = p;
    else cells.more.push_back(p);
    ++cells.count;
    cells_.push_back(c);
  }
  std::vector<CellPlacement>& cells() { return cells_; }
  /// add() without the list of all cells (cells() does not see it; its index is its place
  /// in its tile): what place_by_tiles' threads call, each on tiles of its own.
  void add_to_tile(const CellPlacement& c, std::int32_t tile) {
    TileCells& cells = by_tile_[std::size_t(tile)];
    const Placed p{position_of(c), axis_of(c), std::int64_t(cells.count)};
    if (cells.count < inline_cells) cells.first[cells.count] = p;
    else cells.more.push_back(p);
    ++cells.count;
  }

 private:
  struct Placed {
    V position, axis;
    std::int64_t index;  // into cells_
  };
  static constexpr std::uint32_t inline_cells = 6;  // about 4 a tile at haematocrit 0.45
  struct TileCells {
    std::array<Placed, inline_cells> first{};
    std::uint32_t count = 0;
    std::vector<Placed> more;
  };
  const mesh::TileMaps& tiles_;
  mesh::TileView view_;
  const CellModel<double>& model_;
  std::vector<TileCells> by_tile_;
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

/// A candidate cell at a uniform offset within a node's voxel, uniformly rotated
/// (Shoemake's subgroup algorithm, Graphics Gems III (1992) 124); five draws, in this order.
CellPlacement candidate_at(const mesh::SparseMesh& mesh, std::uint32_t node, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  CellPlacement c;
  c.position = {mesh.i[node] + unit(rng) - 0.5, mesh.j[node] + unit(rng) - 0.5, mesh.k[node] + unit(rng) - 0.5};
  const double u1 = unit(rng), u2 = 2 * M_PI * unit(rng), u3 = 2 * M_PI * unit(rng);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  c.orientation = {b * std::cos(u3), a * std::sin(u2), a * std::cos(u2), b * std::sin(u3)};
  return c;
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
  std::uint64_t failed = 0;  // tries since the last cell placed
  for (std::uint64_t t = 0; t < tries && failed < give_up_after && placed.cells().size() - before < count; ++t) {
    ++failed;
    const CellPlacement c = candidate_at(mesh, draw_node(rng), rng);
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

namespace {
/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): a well-mixed 64-bit value of x, for
/// seeding one generator per (tile, round) from the run's seed.
std::uint64_t split_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The colour of a tile along one axis: its coordinate mod 3, and 3 for the last tile of a
/// periodic axis of m = 1 (mod 3) tiles, which wraps onto tile 0 (colour 0).
int axis_colour(std::int64_t t, int m, bool periodic) {
  if (periodic && m > 1 && m % 3 == 1 && t == m - 1) return 3;
  return int(t % 3);
}
}  // namespace

std::vector<CellPlacement> place_by_tiles(const mesh::SparseMesh& mesh, const mesh::TileMaps& tiles,
                                          const CellModel<double>& model, std::size_t count, std::uint64_t seed,
                                          std::uint64_t tries, std::uint64_t give_up_after,
                                          const PlacementTest& allowed) {
  const std::uint32_t mapped = tiles.num_mapped();
  if (count == 0 || mesh.num_nodes == 0 || mapped == 0) return {};
  const mesh::TileView view = tiles.view();
  // Each mapped tile's fluid nodes (where candidates are drawn) and its colour class.
  std::vector<std::vector<std::uint32_t>> nodes_of(mapped);
  for (std::uint32_t n = 0; n < mesh.num_nodes; ++n) {
    const std::int32_t t = view.tile_of_point(double(mesh.i[n]), double(mesh.j[n]), double(mesh.k[n]));
    if (t >= 0 && std::uint32_t(t) < mapped) nodes_of[std::size_t(t)].push_back(n);
  }
  std::vector<std::vector<std::int32_t>> colour_tiles(64);
  for (std::uint32_t t = 0; t < mapped; ++t) {
    if (nodes_of[t].empty()) continue;
    const auto tc = tiles.tile_coords_of(std::int32_t(t));
    int colour = 0;
    for (int a = 2; a >= 0; --a) colour = 4 * colour + axis_colour(tc[std::size_t(a)], tiles.m[std::size_t(a)], tiles.periodic[std::size_t(a)]);
    colour_tiles[std::size_t(colour)].push_back(std::int32_t(t));
  }
  // Draws per tile and round: its share of the cells asked for, four candidates a cell.
  const double per_node = 4.0 * double(count) / double(mesh.num_nodes);
  std::vector<std::uint64_t> draws_of(mapped);
  for (std::uint32_t t = 0; t < mapped; ++t) draws_of[t] = std::uint64_t(std::ceil(per_node * double(nodes_of[t].size())));
  PlacedCells placed(tiles, model);
  std::vector<std::vector<CellPlacement>> in_tile(mapped);
  std::size_t total = 0;
  std::uint64_t drawn = 0;
  for (std::uint64_t round = 0; total < count && drawn < tries; ++round) {
    std::size_t placed_this_round = 0;
    const std::uint64_t drawn_before = drawn;
    for (const auto& group : colour_tiles) {
      if (group.empty()) continue;
      std::vector<std::uint32_t> added(group.size(), 0);
      // Tiles of one colour are two or more tiles apart: their cells cannot touch each
      // other, so each is placed on its own, from its own generator (any thread count,
      // the same cells).
#pragma omp parallel for schedule(dynamic, 16)
      for (std::size_t g = 0; g < group.size(); ++g) {
        const std::int32_t t = group[g];
        const std::vector<std::uint32_t>& nodes = nodes_of[std::size_t(t)];
        std::mt19937_64 rng(split_mix(seed ^ split_mix((std::uint64_t(t) << 24) ^ round)));
        std::uniform_int_distribution<std::size_t> pick(0, nodes.size() - 1);
        for (std::uint64_t d = 0; d < draws_of[std::size_t(t)]; ++d) {
          const CellPlacement c = candidate_at(mesh, nodes[pick(rng)], rng);
          if (view.tile_of_point(c.position[0], c.position[1], c.position[2]) != t) continue;  // its centre in t
          if (view.node_of_point(c.position[0], c.position[1], c.position[2]) < 0) continue;
          if (allowed && !allowed(c)) continue;
          if (placed.overlap(c, t) >= 0 || touches_wall(c, t, tiles, view, model)) continue;
          placed.add_to_tile(c, t);
          in_tile[std::size_t(t)].push_back(c);
          ++added[g];
        }
      }
      for (std::size_t g = 0; g < group.size(); ++g) {
        drawn += draws_of[std::size_t(group[g])];
        placed_this_round += added[g];
        total += added[g];
      }
      // Past the count: the cells this colour just added go again, from its highest tile
      // down (the same ones on any thread count).
      for (std::size_t g = group.size(); total > count && g-- > 0;) {
        auto& cells = in_tile[std::size_t(group[g])];
        const std::size_t drop = std::min<std::size_t>(added[g], total - count);
        cells.resize(cells.size() - drop);
        total -= drop;
      }
      if (total >= count) break;
    }
    // Saturated at this size: fewer than one candidate in give_up_after kept (the rate at
    // which place_at_random's give_up_after failures in a row become likely).
    if (double(placed_this_round) * double(give_up_after) < double(drawn - drawn_before)) break;
  }
  std::vector<CellPlacement> out;
  out.reserve(total);
  for (const auto& cells : in_tile) out.insert(out.end(), cells.begin(), cells.end());
  return out;
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

mesh::SparseMesh placement_mesh(comm::Communicator& comm, const mesh::SparseMesh& mesh) {
  const std::uint32_t n = mesh.num_fluid();
  std::vector<std::int32_t> ijk(3 * std::size_t(n));
  for (std::uint32_t f = 0; f < n; ++f) {
    const std::uint32_t i = mesh.fluid_node(f);
    ijk[3 * f] = mesh.i[i], ijk[3 * f + 1] = mesh.j[i], ijk[3 * f + 2] = mesh.k[i];
  }
  const auto all = comm.gather<std::int32_t>(ijk, 0);
  mesh::SparseMesh m;
  m.dims = mesh.dims;
  m.origin = mesh.origin;
  m.dx = mesh.dx;
  m.periodic = mesh.periodic;
  if (comm.rank() != 0) return m;
  const std::size_t total = all.size() / 3;
  std::vector<std::uint64_t> voxel(total);
  std::vector<std::uint32_t> order(total);
  for (std::size_t v = 0; v < total; ++v) {
    voxel[v] = std::uint64_t(all[3 * v]) + std::uint64_t(m.dims[0]) * (std::uint64_t(all[3 * v + 1]) +
                                                                      std::uint64_t(m.dims[1]) * std::uint64_t(all[3 * v + 2]));
    order[v] = std::uint32_t(v);
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return voxel[a] < voxel[b]; });
  m.num_nodes = std::uint32_t(total);
  m.i.resize(total), m.j.resize(total), m.k.resize(total);
  for (std::size_t v = 0; v < total; ++v)
    m.i[v] = all[3 * order[v]], m.j[v] = all[3 * order[v] + 1], m.k[v] = all[3 * order[v] + 2];
  return m;
}
void broadcast_seed(comm::Communicator& comm, std::vector<CellPlacement>& cells, double& start_size,
                    std::vector<double>& velocities) {
  if (comm.size() == 1) return;
  std::vector<double> v;
  if (comm.rank() == 0) {
    v = {double(cells.size()), start_size, double(velocities.size())};
    for (const auto& c : cells) {
      v.insert(v.end(), c.position.begin(), c.position.end());
      v.insert(v.end(), c.orientation.begin(), c.orientation.end());
    }
    v.insert(v.end(), velocities.begin(), velocities.end());
  }
  std::vector<unsigned char> bytes(v.size() * sizeof(double));
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  comm.broadcast(bytes, 0);
  v.resize(bytes.size() / sizeof(double));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  const auto n = std::size_t(v[0]);
  start_size = v[1];
  cells.assign(n, {});
  std::size_t at = 3;
  for (auto& c : cells) {
    for (auto& x : c.position) x = v[at++];
    for (auto& x : c.orientation) x = v[at++];
  }
  velocities.assign(v.begin() + std::ptrdiff_t(at), v.begin() + std::ptrdiff_t(at + std::size_t(v[2])));
}
std::vector<CellPlacement> read_seed_file(const config::Config& config, const mesh::SparseMesh& pm, const std::string& file,
                                          std::vector<double>& velocities) {
  const io::hdf5::Quiet quiet;
  const io::hdf5::Input in(file, "a red blood cell seed file (rbc.seed_file)");
  const auto shape = in.shape("position");
  if (shape.dims.size() != 2 || shape.dims[1] != 3)
    config.fail("rbc.seed_file", str(file, ": /position must be an N x 3 array of centres in m"));
  const std::size_t n = shape.dims[0];
  std::vector<double> pos(3 * n);
  in.read("position", H5T_NATIVE_DOUBLE, pos.data());
  std::vector<double> q(4 * n, 0.0);
  auto check_rows = [&](const char* name, std::size_t columns) {
    const auto s = in.shape(name);
    if (s.dims.size() != 2 || s.dims[0] != n || s.dims[1] != columns)
      config.fail("rbc.seed_file", str(file, ": /", name, " must be an N x ", columns, " array with N = ", n,
                                          " (the rows of /position)"));
  };
  if (in.has_dataset("orientation")) {
    check_rows("orientation", 4);
    in.read("orientation", H5T_NATIVE_DOUBLE, q.data());
  } else if (in.has_dataset("axis")) {
    check_rows("axis", 3);
    std::vector<double> axis(3 * n);
    in.read("axis", H5T_NATIVE_DOUBLE, axis.data());
    for (std::size_t c = 0; c < n; ++c) {
      // The shortest rotation taking e3 to the axis.
      V a{axis[3 * c], axis[3 * c + 1], axis[3 * c + 2]};
      const double len = std::sqrt(phys::dot(a, a));
      if (!(len > 0)) config.fail("rbc.seed_file", str(file, ": /axis of cell ", c, " is zero"));
      a = (1.0 / len) * a;
      const V e3{0, 0, 1}, k = phys::cross(e3, a);
      const double s = std::sqrt(phys::dot(k, k)), angle = std::atan2(s, a.z);
      const V turn = s > 0 ? (angle / s) * k : V{angle, 0, 0};
      const auto r = phys::rotation(turn);
      q[4 * c] = r.w, q[4 * c + 1] = r.x, q[4 * c + 2] = r.y, q[4 * c + 3] = r.z;
    }
  } else {
    for (std::size_t c = 0; c < n; ++c) q[4 * c] = 1.0;
  }
  if (in.has_dataset("velocity")) {
    check_rows("velocity", 3);
    velocities.resize(3 * n);
    in.read("velocity", H5T_NATIVE_DOUBLE, velocities.data());
  }
  std::vector<CellPlacement> cells(n);
  for (std::size_t c = 0; c < n; ++c) {
    for (int a = 0; a < 3; ++a) cells[c].position[a] = (pos[3 * c + a] - pm.origin[a]) / pm.dx - 0.5;
    const auto u = phys::normalized(phys::Quaternion<double>{q[4 * c], q[4 * c + 1], q[4 * c + 2], q[4 * c + 3]});
    cells[c].orientation = {u.w, u.x, u.y, u.z};
  }
  return cells;
}
}  // namespace hemo::rbc
