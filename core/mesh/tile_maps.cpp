#include "core/mesh/tile_maps.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/common/text.hpp"

namespace hemo::mesh {

namespace {

constexpr int num_offsets = 26;

/// The 26 neighbour offsets in CNEIGH order: dz outermost, then dy, then dx, each over
/// {-1, 0, +1}, skipping (0, 0, 0).
std::array<std::array<int, 3>, num_offsets> neighbour_offsets() {
  std::array<std::array<int, 3>, num_offsets> o{};
  int q = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (dx || dy || dz) o[std::size_t(q++)] = {dx, dy, dz};
  return o;
}

/// Finds keys in a sorted vector. A run of queries flagged monotone (each key not smaller
/// than the previous monotone one) sweeps forward from where the last one stopped, so a
/// pass over N sorted tiles costs O(N + size) instead of O(N log size); other queries
/// (wrapped neighbours) binary search.
class Cursor {
 public:
  explicit Cursor(const std::vector<std::uint64_t>& keys) : keys_(&keys) {}
  /// Position of `key`, or -1 if absent.
  std::int64_t find(std::uint64_t key, bool monotone) {
    const auto& k = *keys_;
    if (!monotone) {
      const auto it = std::lower_bound(k.begin(), k.end(), key);
      return (it != k.end() && *it == key) ? std::int64_t(it - k.begin()) : -1;
    }
    // A few linear steps (the usual case: the answer moved by one or two), then gallop
    // and binary search the last stretch: cheap for near and far jumps alike.
    for (int n = 0; n < 4 && p_ < k.size() && k[p_] < key; ++n) ++p_;
    std::size_t step = 1, lo = p_;
    while (lo + step < k.size() && k[lo + step] < key) {
      lo += step;
      step *= 2;
    }
    const auto it = std::lower_bound(k.begin() + std::ptrdiff_t(lo), k.begin() + std::ptrdiff_t(std::min(lo + step + 1, k.size())), key);
    p_ = std::size_t(it - k.begin());
    return (it != k.end() && *it == key) ? std::int64_t(p_) : -1;
  }

 private:
  const std::vector<std::uint64_t>* keys_;
  std::size_t p_ = 0;
};

/// "the nearest tile sizes that divide it are 2 and 5" for n = 10, c = 4.
std::string divisors_near(int n, int c) {
  int below = 0, above = 0;
  for (int d = std::min(c - 1, n); d >= 1 && !below; --d)
    if (n % d == 0) below = d;
  for (int d = c + 1; d <= n && !above; ++d)
    if (n % d == 0) above = d;
  if (below && above) return str("the nearest tile sizes that divide it are ", below, " and ", above);
  return str("the nearest tile size that divides it is ", below ? below : above);
}

void sort_unique(std::vector<std::uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

const char* to_string(TileKind kind) {
  switch (kind) {
    case TileKind::internal: return "internal";
    case TileKind::frontier: return "frontier";
    case TileKind::external: return "external";
  }
  return "?";
}

std::array<std::int64_t, 3> TileMaps::tile_coords(std::uint64_t key) const {
  const auto mx = std::uint64_t(m[0]), my = std::uint64_t(m[1]);
  return {std::int64_t(key % mx), std::int64_t((key / mx) % my), std::int64_t(key / (mx * my))};
}

std::size_t TileMaps::bytes() const {
  return coord.size() * sizeof(std::uint64_t) + id.size() * sizeof(std::int32_t) +
         neighbours.size() * sizeof(std::int32_t) + nodes.size() * sizeof(std::int32_t);
}

namespace {

/// TileMaps::near_gaps of maps whose CNEIGH and IJKMAP are built.
std::vector<std::uint8_t> tiles_near_gaps(const TileMaps& maps) {
  const std::uint32_t n = maps.num_mapped();
  const std::int64_t volume = maps.tile_volume();
  std::vector<std::uint8_t> gap(n, 0), out(n, 0);
  for (std::uint32_t t = 0; t < n; ++t)
    gap[t] = std::any_of(maps.nodes.begin() + std::int64_t(t) * volume, maps.nodes.begin() + std::int64_t(t + 1) * volume,
                         [](std::int32_t node) { return node < 0; });
  for (std::uint32_t t = 0; t < n; ++t) {
    bool near = gap[t];
    for (int s = 0; s < num_offsets && !near; ++s) {
      const std::int32_t nb = maps.neighbours[std::size_t(t) * num_offsets + s];
      near = nb < 0 || std::uint32_t(nb) >= n || gap[std::size_t(nb)];
    }
    out[t] = near;
  }
  return out;
}

}  // namespace

TileView TileMaps::view() const {
  TileView v;
  v.coord = coord.data();
  v.id = id.data();
  v.num_tiles = static_cast<std::uint32_t>(coord.size());
  v.neighbours = neighbours.data();
  v.nodes = nodes.data();
  v.c = c;
  for (int a = 0; a < 3; ++a) {
    v.dims[a] = dims[std::size_t(a)];
    v.m[a] = m[std::size_t(a)];
    v.periodic[a] = periodic[std::size_t(a)];
  }
  v.num_internal = num_internal;
  v.num_frontier = num_frontier;
  v.num_rows = num_rows();
  return v;
}

TileMaps build_tile_maps(const SparseMesh& mesh, int c, const std::function<int(int, int, int)>& owner) {
  static constexpr const char* axis_name[3] = {"x", "y", "z"};
  if (c < 1 || c > 1024) throw std::invalid_argument(str("tile maps: the tile size c = ", c, " must lie in [1, 1024]"));
  TileMaps t;
  t.c = c;
  t.dims = mesh.dims;
  t.periodic = mesh.periodic;
  for (std::size_t a = 0; a < 3; ++a) {
    if (t.dims[a] < 1) throw std::invalid_argument(str("tile maps: the box has ", t.dims[a], " voxels along ", axis_name[a]));
    if (t.periodic[a] && t.dims[a] % c != 0)
      throw std::invalid_argument(str("tile maps: periodic axis ", axis_name[a], " has ", t.dims[a],
                                      " voxels, not a multiple of the tile size c = ", c, " (tiles must wrap); ",
                                      divisors_near(t.dims[a], c)));
    t.m[a] = (t.dims[a] + c - 1) / c;
  }
  const auto mx = std::uint64_t(t.m[0]), my = std::uint64_t(t.m[1]);
  auto key_of = [&](const std::array<std::int64_t, 3>& tc) {
    return std::uint64_t(tc[0]) + mx * (std::uint64_t(tc[1]) + my * std::uint64_t(tc[2]));
  };
  // The neighbour of tile tc at offset d: in the box (after wrapping periodic axes)? moved
  // by wrapping? its key.
  struct Step {
    bool inside, wrapped;
    std::uint64_t key;
  };
  auto step = [&](const std::array<std::int64_t, 3>& tc, const std::array<int, 3>& d) {
    std::array<std::int64_t, 3> n{};
    bool wrapped = false;
    for (std::size_t a = 0; a < 3; ++a) {
      n[a] = tc[a] + d[a];
      if (n[a] < 0 || n[a] >= t.m[a]) {
        if (!t.periodic[a]) return Step{false, false, 0};
        n[a] = (n[a] + t.m[a]) % t.m[a];
        wrapped = true;
      }
    }
    return Step{true, wrapped, key_of(n)};
  };
  const auto offsets = neighbour_offsets();
  const std::int64_t num_nodes = mesh.num_fluid();  // owned fluid nodes (a brick's holes are no node)

  // 1. Tiles holding owned nodes, sorted. Consecutive nodes often share a tile (runs of up
  //    to c along i in lexicographic order, more in Morton order): skip those repeats
  //    before sorting.
  std::vector<std::uint64_t> owned;
  {
    std::uint64_t last = std::numeric_limits<std::uint64_t>::max();
    for (std::int64_t f = 0; f < num_nodes; ++f) {
      const std::size_t s = mesh.fluid_node(std::uint32_t(f)), n = s;
      if (mesh.i[s] < 0 || mesh.j[s] < 0 || mesh.k[s] < 0 || mesh.i[s] >= t.dims[0] || mesh.j[s] >= t.dims[1] ||
          mesh.k[s] >= t.dims[2])
        throw std::logic_error(str("tile maps: node ", n, " lies outside the box"));
      const std::uint64_t key = key_of({mesh.i[s] / c, mesh.j[s] / c, mesh.k[s] / c});
      if (key != last) owned.push_back(key);
      last = key;
    }
    sort_unique(owned);
    owned.shrink_to_fit();
  }

  // 2. External tiles: neighbours of owned tiles that hold no owned node. The candidate
  //    list is compacted whenever it grows past a bound, so it never holds 26 entries per
  //    owned tile.
  std::vector<std::uint64_t> external;
  {
    std::vector<Cursor> cursor(num_offsets, Cursor(owned));
    std::size_t compact_at = std::max<std::size_t>(2 * owned.size(), std::size_t(1) << 20);
    for (const std::uint64_t key : owned) {
      const auto tc = t.tile_coords(key);
      for (std::size_t q = 0; q < num_offsets; ++q) {
        const Step s = step(tc, offsets[q]);
        if (s.inside && cursor[q].find(s.key, !s.wrapped) < 0) external.push_back(s.key);
      }
      if (external.size() > compact_at) {
        sort_unique(external);
        if (external.size() > compact_at / 2) compact_at *= 2;
      }
    }
    sort_unique(external);
    external.shrink_to_fit();
  }

  // 3. All tiles, sorted; which owned tile sits at each position.
  const std::size_t total = owned.size() + external.size();
  if (total > std::size_t(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument(str("tile maps: ", total, " tiles of c = ", c, " exceed 2^31 - 1; use larger tiles"));
  std::vector<std::uint64_t> all(total);
  std::merge(owned.begin(), owned.end(), external.begin(), external.end(), all.begin());
  std::vector<std::int32_t> pos_of_owned(owned.size());
  for (std::size_t p = 0, o = 0; p < total && o < owned.size(); ++p)
    if (all[p] == owned[o]) pos_of_owned[o++] = std::int32_t(p);

  // 4. Neighbour positions (in `all`) of each owned tile, in owned order; -1 outside the box.
  std::vector<std::int32_t> npos(owned.size() * num_offsets, -1);
  {
    std::vector<Cursor> cursor(num_offsets, Cursor(all));
    for (std::size_t o = 0; o < owned.size(); ++o) {
      const auto tc = t.tile_coords(owned[o]);
      for (std::size_t q = 0; q < num_offsets; ++q) {
        const Step s = step(tc, offsets[q]);
        if (!s.inside) continue;
        const std::int64_t p = cursor[q].find(s.key, !s.wrapped);
        if (p < 0) throw std::logic_error("tile maps: a neighbour tile is missing");
        npos[o * num_offsets + q] = std::int32_t(p);
      }
    }
  }

  // 5. The owner of each tile's fluid voxels, scanned where needed and kept (memo): -1
  //    none, the rank where one rank owns them all, -2 where several do. Frontier tiles:
  //    the tile or a neighbour holds a fluid voxel of another rank.
  constexpr std::int32_t unscanned = -3, several = -2;
  std::vector<std::int32_t> voxel_owner(owner ? total : 0, unscanned);
  auto owner_of = [&](std::int32_t p) {
    auto& found = voxel_owner[std::size_t(p)];
    if (found != unscanned) return found;
    const auto tc = t.tile_coords(all[std::size_t(p)]);
    int lo[3], hi[3];
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = int(tc[a]) * c;
      hi[a] = std::min(lo[a] + c, t.dims[a]);
    }
    found = -1;
    for (int k = lo[2]; k < hi[2] && found != several; ++k)
      for (int j = lo[1]; j < hi[1] && found != several; ++j)
        for (int i = lo[0]; i < hi[0]; ++i) {
          const int r = owner(i, j, k);
          if (r < 0 || r == found) continue;
          if (found >= 0) {
            found = several;
            break;
          }
          found = r;
        }
    return found;
  };
  auto has_foreign = [&](std::int32_t p) {
    const std::int32_t o = owner_of(p);
    return o == several || (o >= 0 && o != mesh.rank);
  };
  std::vector<std::uint8_t> frontier(owned.size(), 0);
  if (owner) {
    for (std::size_t o = 0; o < owned.size(); ++o) {
      bool is_frontier = has_foreign(pos_of_owned[o]);
      for (std::size_t q = 0; q < num_offsets && !is_frontier; ++q) {
        const std::int32_t p = npos[o * num_offsets + q];
        is_frontier = p >= 0 && has_foreign(p);
      }
      frontier[o] = is_frontier;
    }
  }

  // 6. Ids: internal, frontier, external, each in ascending coordinate.
  for (const auto f : frontier) (f ? t.num_frontier : t.num_internal) += 1;
  t.num_external = static_cast<std::uint32_t>(external.size());
  std::vector<std::int32_t> id_of_owned(owned.size());
  {
    std::int32_t next_internal = 0, next_frontier = std::int32_t(t.num_internal);
    for (std::size_t o = 0; o < owned.size(); ++o) id_of_owned[o] = frontier[o] ? next_frontier++ : next_internal++;
  }
  t.id.assign(total, -1);
  {
    std::int32_t next_external = std::int32_t(t.num_mapped());
    std::size_t o = 0;
    for (std::size_t p = 0; p < total; ++p)
      t.id[p] = (o < owned.size() && pos_of_owned[o] == std::int32_t(p)) ? id_of_owned[o++] : next_external++;
  }
  t.coord_of_id.resize(total);
  for (std::size_t p = 0; p < total; ++p) t.coord_of_id[std::size_t(t.id[p])] = all[p];
  // Owners: this rank for the mapped tiles; for an external tile, the owner of its fluid
  // voxels (step 5's scan), -1 without a callback.
  t.tile_owner.assign(total, mesh.rank);
  for (std::size_t p = 0; p < total; ++p)
    if (std::uint32_t(t.id[p]) >= t.num_mapped()) t.tile_owner[std::size_t(t.id[p])] = owner ? owner_of(std::int32_t(p)) : -1;
  t.coord = std::move(all);

  // 7. CNEIGH, by id.
  t.neighbours.assign(std::size_t(t.num_mapped()) * num_offsets, -1);
  for (std::size_t o = 0; o < owned.size(); ++o) {
    const std::size_t row = std::size_t(id_of_owned[o]) * num_offsets;
    for (std::size_t q = 0; q < num_offsets; ++q) {
      const std::int32_t p = npos[o * num_offsets + q];
      t.neighbours[row + q] = p < 0 ? -1 : t.id[std::size_t(p)];
    }
  }
  npos.clear();
  npos.shrink_to_fit();

  // 8. IJKMAP, by id: each owned node into its tile's row. Nodes are distinct voxels, so
  //    the writes never collide.
  const std::int64_t volume = t.tile_volume();
  t.nodes.assign(std::size_t(owner ? t.num_tiles() : t.num_mapped()) * std::size_t(volume), -1);
#pragma omp parallel
  {
    std::uint64_t last_key = std::numeric_limits<std::uint64_t>::max();
    std::int64_t row = 0;
#pragma omp for schedule(static)
    for (std::int64_t f = 0; f < num_nodes; ++f) {
      const std::size_t s = mesh.fluid_node(std::uint32_t(f));
      const std::int64_t n = std::int64_t(s);
      const std::int64_t tx = mesh.i[s] / c, ty = mesh.j[s] / c, tz = mesh.k[s] / c;
      const std::uint64_t key = key_of({tx, ty, tz});
      if (key != last_key) {
        const auto it = std::lower_bound(owned.begin(), owned.end(), key);
        row = std::int64_t(id_of_owned[std::size_t(it - owned.begin())]) * volume;
        last_key = key;
      }
      const std::int64_t lid = std::int64_t(c) * c * (mesh.k[s] - c * tz) + std::int64_t(c) * (mesh.j[s] - c * ty) + (mesh.i[s] - c * tx);
      t.nodes[std::size_t(row + lid)] = std::int32_t(n);
    }
  }
  t.near_gaps = tiles_near_gaps(t);

  return t;
}

std::vector<int> TileMaps::peers(int rank) const {
  std::vector<int> out;
  for (std::uint32_t e = num_mapped(); e < num_tiles(); ++e)
    if (tile_owner[e] >= 0 && tile_owner[e] != rank) out.push_back(tile_owner[e]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace hemo::mesh
