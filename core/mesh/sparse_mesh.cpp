#include "core/mesh/sparse_mesh.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/mesh/lattice_view.hpp"
#include "physics/d3q19.hpp"

namespace hemo::mesh {

namespace d3q19 = phys::d3q19;

const char* to_string(Ordering o) { return o == Ordering::morton ? "morton" : "lexicographic"; }

Ordering ordering_from_string(const std::string& s) {
  if (s == "lexicographic") return Ordering::lexicographic;
  if (s == "morton") return Ordering::morton;
  throw std::invalid_argument("unknown node ordering '" + s + "'");
}

const char* to_string(Layout l) { return l == Layout::bricks ? "bricks" : "nodes"; }

Layout layout_from_string(const std::string& s) {
  if (s == "nodes") return Layout::nodes;
  if (s == "bricks") return Layout::bricks;
  throw std::invalid_argument("unknown mesh layout '" + s + "'");
}

int MeshRequest::add_link_class(std::string name, std::function<bool(const std::array<int, 3>&)> claims) {
  link_classes.push_back({std::move(name), false, std::move(claims), nullptr});
  if (link_classes.size() > 0xFFFF) throw std::logic_error("too many boundary link classes");
  return static_cast<int>(link_classes.size()) - 1;
}

int MeshRequest::add_vessel_wall_class(std::string name, std::function<bool(const std::array<int, 3>&)> claims) {
  for (const LinkClass& c : link_classes)
    if (c.vessel_wall) throw std::logic_error("a second vessel wall link class: " + name);
  const int id = add_link_class(std::move(name), std::move(claims));
  link_classes[std::size_t(id)].vessel_wall = true;
  return id;
}

int MeshRequest::add_fluid_link_class(
    std::string name, std::function<bool(const std::array<int, 3>&, const std::array<int, 3>&)> claims) {
  link_classes.push_back({std::move(name), false, nullptr, std::move(claims)});
  if (link_classes.size() > 0xFFFF) throw std::logic_error("too many boundary link classes");
  return static_cast<int>(link_classes.size()) - 1;
}

std::size_t BoundaryLinks::count(int id) const {
  return static_cast<std::size_t>(std::count(link_class.begin(), link_class.end(), static_cast<std::uint16_t>(id)));
}

namespace {
// Spreads the low 21 bits of v so that two zero bits separate each.
std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0x1FFFFF;
  v = (v | v << 32) & 0x1F00000000FFFFull;
  v = (v | v << 16) & 0x1F0000FF0000FFull;
  v = (v | v << 8) & 0x100F00F00F00F00Full;
  v = (v | v << 4) & 0x10C30C30C30C30C3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}
}  // namespace

namespace {
/// The brick arrays of BrickView (lattice_view.hpp) from the mesh's slots: tables with
/// periodic wrap, fluid masks, and the link words from the neighbour table's coded links.
void build_bricks(SparseMesh& m, const std::vector<std::uint64_t>& keys, const std::array<int, 3>& bdims,
                  const std::vector<std::uint8_t>& slot_fluid) {
  const std::size_t bricks = keys.size();
  m.num_bricks = static_cast<std::uint32_t>(bricks);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> id_of;  // (key, brick id), sorted
  for (std::size_t b = 0; b < bricks; ++b) id_of.emplace_back(keys[b], std::uint32_t(b));
  std::sort(id_of.begin(), id_of.end());
  const auto bx = std::uint64_t(bdims[0]), by = std::uint64_t(bdims[1]);
  m.brick_table.assign(bricks * 27, no_brick);
  m.fluid_mask.assign(bricks, 0);
  for (std::size_t b = 0; b < bricks; ++b) {
    const std::array<int, 3> bc{int(keys[b] % bx), int(keys[b] / bx % by), int(keys[b] / (bx * by))};
    for (int e = 0; e < 27; ++e) {
      std::array<int, 3> c{bc[0] + e % 3 - 1, bc[1] + e / 3 % 3 - 1, bc[2] + e / 9 - 1};
      bool inside = true;
      for (int d = 0; d < 3; ++d) {
        if (m.periodic[d]) c[d] = (c[d] + bdims[d]) % bdims[d];
        inside = inside && c[d] >= 0 && c[d] < bdims[d];
      }
      if (!inside) continue;
      const std::uint64_t key = std::uint64_t(c[0]) + bx * (std::uint64_t(c[1]) + by * std::uint64_t(c[2]));
      const auto it = std::lower_bound(id_of.begin(), id_of.end(), std::make_pair(key, std::uint32_t(0)));
      if (it != id_of.end() && it->first == key) m.brick_table[b * 27 + std::size_t(e)] = it->second;
    }
    for (std::uint32_t s = 0; s < brick_slots; ++s)
      if (slot_fluid[b * brick_slots + s]) m.fluid_mask[b] |= std::uint64_t(1) << s;
  }
  // Link words: links are numbered in (slot, direction) order, so a brick's links are
  // contiguous and each slot's first link is its brick's first plus an offset.
  m.link_mask.assign(bricks, 0);
  m.link_first.assign(bricks, 0);
  m.link_word.assign(m.stride, 0);
  std::vector<std::uint8_t> seen(bricks, 0);
  for (std::size_t k = 0; k < m.links.size(); ++k) {
    const std::uint32_t n = m.links.node[k], b = n / brick_slots;
    if (!seen[b]) m.link_first[b] = std::uint32_t(k), seen[b] = 1;
    if (!(m.link_mask[b] >> (n % brick_slots) & 1u)) {
      const std::uint32_t offset = std::uint32_t(k) - m.link_first[b];
      if (offset >= (1u << (32 - link_word_shift))) throw std::logic_error("mesh: too many links in one brick");
      m.link_word[n] = offset << link_word_shift;
      m.link_mask[b] |= std::uint64_t(1) << (n % brick_slots);
    }
    m.link_word[n] |= 1u << m.links.direction[k];
  }
}
}  // namespace

std::uint64_t morton_key(std::uint32_t i, std::uint32_t j, std::uint32_t k) {
  return spread_bits(i) | (spread_bits(j) << 1) | (spread_bits(k) << 2);
}

SparseMesh build_mesh(const geometry::VoxelGrid& vox, const MeshRequest& request, Ordering ordering,
                      const MeshPart* part, Layout layout) {
  SparseMesh m;
  m.dims = vox.dims;
  m.origin = vox.origin;
  m.dx = vox.dx;
  m.periodic = request.periodic;
  m.ordering = ordering;
  m.layout = layout;
  m.rank = part ? part->rank : 0;

  const auto nx = static_cast<std::uint64_t>(vox.dims[0]), ny = static_cast<std::uint64_t>(vox.dims[1]);
  auto coords = [&](std::uint64_t v) {
    return std::array<int, 3>{int(v % nx), int((v / nx) % ny), int(v / (nx * ny))};
  };
  // The voxel a node at x pulls population q from, x - c_q (wrapped along periodic axes).
  auto upstream = [&](const std::array<int, 3>& x, int q) {
    std::array<int, 3> y{x[0] - d3q19::cx(q), x[1] - d3q19::cy(q), x[2] - d3q19::cz(q)};
    for (int d = 0; d < 3; ++d)
      if (m.periodic[d]) y[d] = (y[d] + vox.dims[d]) % vox.dims[d];
    return y;
  };

  // 1. This rank's fluid voxels in lexicographic order (i fastest), from the voxels held
  //    (the whole box on one rank; on many, the window around the rank's bricks).
  std::vector<std::uint64_t> owned;
  owned.reserve(part ? 0 : static_cast<std::size_t>(vox.fluid_count()));
  const auto& w = vox.window;
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
        if (!vox.fluid[static_cast<std::size_t>(vox.index(i, j, k))]) continue;
        if (part && part->owner(i, j, k) != part->rank) continue;
        owned.push_back(static_cast<std::uint64_t>(vox.voxel_index(i, j, k)));
      }

  // 2. Halo: the voxels of other ranks that owned nodes pull from. D3Q19's directions come
  //    in opposite pairs, so an owned node pulling from rank r's voxel is also pulled from
  //    by it: the same pass finds what to send and what will arrive.
  std::vector<std::uint8_t> edge(owned.size(), 0);
  std::vector<std::pair<int, std::uint64_t>> halo_voxels, send_voxels;  // (rank, voxel)
  std::map<int, std::uint32_t> pulled;  // per rank, the directions this rank pulls from it (bit q)
  if (part) {
    for (std::size_t n = 0; n < owned.size(); ++n) {
      const auto x = coords(owned[n]);
      for (int q = 1; q < d3q19::Q; ++q) {
        const auto y = upstream(x, q);
        if (!vox.is_fluid(y[0], y[1], y[2])) continue;
        const int r = part->owner(y[0], y[1], y[2]);
        if (r == part->rank) continue;
        edge[n] = 1;
        pulled[r] |= 1u << q;
        halo_voxels.emplace_back(r, static_cast<std::uint64_t>(vox.voxel_index(y[0], y[1], y[2])));
        send_voxels.emplace_back(r, owned[n]);
      }
    }
    for (auto* list : {&halo_voxels, &send_voxels}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }

  // 3. Node order: interior, then edge, each in the requested order; then the halo.
  //    Bricks: the same three ranges of whole bricks, each brick 64 slots (slot_fluid
  //    tells the fluid slots from the holes).
  auto by_order = [&](std::vector<std::uint64_t>& keys, auto coords_of) {
    // Morton (Z-order) numbering keeps nodes that are close in space close in memory, so
    // the 18 pulls of a warp touch fewer cache lines (Morton paper, seeds/002, sec. 2).
    if (ordering != Ordering::morton) return;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> keyed(keys.size());
    for (std::size_t n = 0; n < keys.size(); ++n) {
      const auto c = coords_of(keys[n]);
      keyed[n] = {morton_key(std::uint32_t(c[0]), std::uint32_t(c[1]), std::uint32_t(c[2])), keys[n]};
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t n = 0; n < keys.size(); ++n) keys[n] = keyed[n].second;
  };
  std::vector<std::array<int, 3>> slot_coords;  // voxel of each local node or slot
  std::vector<std::uint8_t> slot_fluid;         // bricks: 1 where the slot's voxel is fluid
  std::array<int, 3> bdims{0, 0, 0};            // bricks along each axis
  std::vector<std::uint64_t> brick_keys;        // bricks: key (lexicographic brick index) of each brick
  std::uint64_t interior_count = 0, owned_count = 0, halo_count = 0;
  if (layout == Layout::nodes) {
    std::vector<std::uint64_t> interior, edges;
    for (std::size_t n = 0; n < owned.size(); ++n) (edge[n] ? edges : interior).push_back(owned[n]);
    by_order(interior, coords);
    by_order(edges, coords);
    interior_count = interior.size();
    owned_count = interior.size() + edges.size();
    halo_count = halo_voxels.size();
    slot_coords.reserve(owned_count + halo_count);
    for (const auto* list : {&interior, &edges})
      for (const std::uint64_t v : *list) slot_coords.push_back(coords(v));
    for (const auto& h : halo_voxels) slot_coords.push_back(coords(h.second));
  } else {
    for (int d = 0; d < 3; ++d) {
      bdims[d] = (vox.dims[d] + brick_edge - 1) / brick_edge;
      if (m.periodic[d] && vox.dims[d] % brick_edge != 0)
        throw InputError(str("lattice.layout = \"bricks\" needs each periodic axis a multiple of ", brick_edge,
                             " voxels long; axis ", "xyz"[d], " has ", vox.dims[d], ": use lattice.layout = \"nodes\""));
    }
    const auto bx = std::uint64_t(bdims[0]), by = std::uint64_t(bdims[1]);
    auto brick_of = [&](std::uint64_t v) {
      const auto c = coords(v);
      return std::uint64_t(c[0] / brick_edge) + bx * (std::uint64_t(c[1] / brick_edge) + by * std::uint64_t(c[2] / brick_edge));
    };
    auto brick_coords = [&](std::uint64_t key) {
      return std::array<int, 3>{int(key % bx), int(key / bx % by), int(key / (bx * by))};
    };
    // (key, edge) of the owned voxels' bricks; consecutive voxels (i fastest) share a brick
    // in runs of up to 4: merged before sorting.
    std::vector<std::pair<std::uint64_t, std::uint8_t>> owned_bricks;
    for (std::size_t n = 0; n < owned.size(); ++n) {
      const std::uint64_t key = brick_of(owned[n]);
      if (!owned_bricks.empty() && owned_bricks.back().first == key) owned_bricks.back().second |= edge[n];
      else owned_bricks.emplace_back(key, edge[n]);
    }
    std::sort(owned_bricks.begin(), owned_bricks.end());
    std::vector<std::uint64_t> interior, edges;
    for (std::size_t a = 0; a < owned_bricks.size();) {
      std::size_t b = a;
      bool is_edge = false;
      for (; b < owned_bricks.size() && owned_bricks[b].first == owned_bricks[a].first; ++b) is_edge |= owned_bricks[b].second;
      (is_edge ? edges : interior).push_back(owned_bricks[a].first);
      a = b;
    }
    by_order(interior, brick_coords);
    by_order(edges, brick_coords);
    std::vector<std::pair<int, std::uint64_t>> halo_bricks;  // (rank, key), each brick one owner
    for (const auto& h : halo_voxels) halo_bricks.emplace_back(h.first, brick_of(h.second));
    std::sort(halo_bricks.begin(), halo_bricks.end());
    halo_bricks.erase(std::unique(halo_bricks.begin(), halo_bricks.end()), halo_bricks.end());
    for (std::size_t b = 1; b < halo_bricks.size(); ++b)
      if (halo_bricks[b].second == halo_bricks[b - 1].second)
        throw InputError(str("lattice.layout = \"bricks\": a brick of ", brick_edge, "^3 voxels is shared by ranks ",
                             halo_bricks[b - 1].first, " and ", halo_bricks[b].first,
                             "; partition.brick must be a multiple of ", brick_edge));
    brick_keys = interior;
    brick_keys.insert(brick_keys.end(), edges.begin(), edges.end());
    for (const auto& h : halo_bricks) brick_keys.push_back(h.second);
    interior_count = std::uint64_t(interior.size()) * brick_slots;
    owned_count = std::uint64_t(interior.size() + edges.size()) * brick_slots;
    halo_count = std::uint64_t(halo_bricks.size()) * brick_slots;
    // Which slots are fluid: the owned voxels (ascending) and the halo voxels.
    std::vector<std::uint64_t> halo_sorted;
    for (const auto& h : halo_voxels) halo_sorted.push_back(h.second);
    std::sort(halo_sorted.begin(), halo_sorted.end());
    auto contains = [](const std::vector<std::uint64_t>& sorted, std::uint64_t v) {
      return std::binary_search(sorted.begin(), sorted.end(), v);
    };
    slot_coords.resize(owned_count + halo_count);
    slot_fluid.assign(owned_count + halo_count, 0);
    for (std::size_t b = 0; b < brick_keys.size(); ++b) {
      const auto bc = brick_coords(brick_keys[b]);
      const bool is_halo = b * brick_slots >= owned_count;
      for (std::uint32_t s = 0; s < brick_slots; ++s) {
        const std::array<int, 3> c{bc[0] * brick_edge + int(s & 3u), bc[1] * brick_edge + int(s >> 2 & 3u),
                                   bc[2] * brick_edge + int(s >> 4)};
        const std::size_t n = b * brick_slots + s;
        slot_coords[n] = c;
        if (!vox.inside_box(c[0], c[1], c[2])) continue;
        const auto v = static_cast<std::uint64_t>(vox.voxel_index(c[0], c[1], c[2]));
        slot_fluid[n] = is_halo ? contains(halo_sorted, v) : contains(owned, v);
      }
    }
    if (!part && owned_count > 0) {
      // (one rank: every fluid voxel is owned; a check of the brick bookkeeping)
      const auto fluid = std::count(slot_fluid.begin(), slot_fluid.end(), std::uint8_t(1));
      if (std::uint64_t(fluid) != owned.size()) throw std::logic_error("mesh: bricks lost fluid voxels");
    }
  }
  owned.clear();
  owned.shrink_to_fit();
  const std::uint64_t local = owned_count + halo_count;
  if (local > max_nodes)
    throw InputError(str("this rank's part of the geometry has ", local,
                         layout == Layout::bricks ? " brick slots" : " fluid nodes", " with its halo; one rank holds at most ",
                         max_nodes, ": run on more ranks or coarsen dx"));
  auto is_fluid_slot = [&](std::size_t n) { return slot_fluid.empty() || slot_fluid[n]; };

  m.num_interior = static_cast<std::uint32_t>(interior_count);
  m.num_nodes = static_cast<std::uint32_t>(owned_count);
  m.num_halo = static_cast<std::uint32_t>(halo_count);
  m.stride = padded_stride(m.num_nodes + m.num_halo);
  m.i.resize(local);
  m.j.resize(local);
  m.k.resize(local);
  for (std::size_t n = 0; n < local; ++n) {
    m.i[n] = slot_coords[n][0];
    m.j[n] = slot_coords[n][1];
    m.k[n] = slot_coords[n][2];
  }
  slot_coords.clear();
  slot_coords.shrink_to_fit();
  if (layout == Layout::bricks)
    for (std::uint32_t n = 0; n < m.num_nodes; ++n)
      if (slot_fluid[n]) m.fluid_nodes.push_back(n);

  // 4. Voxel -> owned node: sorted voxel indices with their nodes (kept for lookups).
  {
    std::vector<std::uint32_t> perm;
    perm.reserve(m.num_fluid());
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) perm.push_back(m.fluid_node(f));
    std::sort(perm.begin(), perm.end(), [&](std::uint32_t a, std::uint32_t b) { return m.voxel_index(a) < m.voxel_index(b); });
    m.sorted_voxel.resize(perm.size());
    for (std::size_t s = 0; s < perm.size(); ++s) m.sorted_voxel[s] = m.voxel_index(perm[s]);
    m.sorted_node = std::move(perm);
  }

  // 5. Neighbour table. A dense voxel -> node map makes the 18 lookups per node O(1);
  //    it covers only the bounding box of this rank's nodes (owned and halo), not the
  //    whole voxel box, and lives only while the table is built.
  std::array<int, 3> lo{INT_MAX, INT_MAX, INT_MAX}, extent{0, 0, 0};
  {
    std::array<int, 3> hi{-1, -1, -1};
    for (std::size_t n = 0; n < local; ++n) {
      const std::array<int, 3> c{m.i[n], m.j[n], m.k[n]};
      for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], c[d]), hi[d] = std::max(hi[d], c[d]);
    }
    for (int d = 0; d < 3; ++d) extent[d] = local ? hi[d] - lo[d] + 1 : 0;
  }
  constexpr std::size_t outside = std::size_t(-1);
  auto window_index = [&](int x, int y, int z) {
    const int a = x - lo[0], b = y - lo[1], c = z - lo[2];
    if (a < 0 || b < 0 || c < 0 || a >= extent[0] || b >= extent[1] || c >= extent[2]) return outside;
    return std::size_t(a) + std::size_t(extent[0]) * (std::size_t(b) + std::size_t(extent[1]) * std::size_t(c));
  };
  std::vector<std::uint32_t> node_of_voxel(static_cast<std::size_t>(extent[0]) * static_cast<std::size_t>(extent[1]) * static_cast<std::size_t>(extent[2]), wall_link);
  for (std::size_t n = 0; n < local; ++n)
    if (is_fluid_slot(n)) node_of_voxel[window_index(m.i[n], m.j[n], m.k[n])] = static_cast<std::uint32_t>(n);
  auto local_node = [&](int x, int y, int z) {
    const std::size_t at = window_index(x, y, z);
    return at == outside ? wall_link : node_of_voxel[at];
  };

  constexpr std::uint16_t no_class = 0xFFFF;
  const std::size_t rows = d3q19::Q - 1;
  m.neighbours.assign(rows * m.stride, wall_link);
  std::vector<std::uint16_t> link_class_of(rows * m.stride, no_class);
  std::vector<std::uint32_t> fluid_source(rows * m.stride, wall_link);  // claimed fluid-to-fluid links
  const auto& classes = request.link_classes;
  const long long nodes = m.num_nodes;
#pragma omp parallel for schedule(static)
  for (long long n = 0; n < nodes; ++n) {
    if (!is_fluid_slot(std::size_t(n))) continue;  // a brick's hole: no links
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::array<int, 3> y = upstream({m.i[n], m.j[n], m.k[n]}, q);
      const std::size_t slot = std::size_t(q - 1) * m.stride + std::size_t(n);
      if (vox.inside_box(y[0], y[1], y[2])) {
        const std::uint32_t src = local_node(y[0], y[1], y[2]);
        if (src != wall_link) {
          std::size_t c = 0;
          const std::array<int, 3> to{m.i[n], m.j[n], m.k[n]};
          while (c < classes.size() && !(classes[c].claims_fluid && classes[c].claims_fluid(y, to))) ++c;
          if (c == classes.size()) {
            m.neighbours[slot] = src;
          } else {
            link_class_of[slot] = static_cast<std::uint16_t>(c);
            fluid_source[slot] = src;
          }
          continue;
        }
      }
      for (std::size_t c = 0; c < classes.size(); ++c)
        if (classes[c].claims && classes[c].claims(y)) {
          link_class_of[slot] = static_cast<std::uint16_t>(c);
          break;
        }
    }
  }
  // Coded links are numbered in (node, direction) order so the numbering, and with it
  // every per-link array, is the same for any thread count.
  for (const auto& c : classes) {
    if (c.vessel_wall) m.links.wall_class = int(m.links.class_names.size());
    m.links.class_names.push_back(c.name);
  }
  for (std::uint32_t f = 0; f < m.num_fluid(); ++f)
    for (int q = 1, n = int(m.fluid_node(f)); q < d3q19::Q; ++q) {
      const std::size_t slot = std::size_t(q - 1) * m.stride + std::size_t(n);
      if (m.neighbours[slot] != wall_link) continue;
      if (link_class_of[slot] == no_class) {
        ++m.wall_links;
        continue;
      }
      const auto k = static_cast<std::uint32_t>(m.links.size());
      m.neighbours[slot] = coded_link | k;
      m.links.node.push_back(std::uint32_t(n));
      m.links.direction.push_back(static_cast<std::uint8_t>(q));
      m.links.link_class.push_back(link_class_of[slot]);
      m.links.source.push_back(fluid_source[slot]);
    }
  if (m.links.size() >= coded_link) throw InputError("too many boundary links for 32-bit link codes");

  // 6. The halo plan: per neighbour rank, what goes out and where what comes in lands.
  for (std::size_t s = 0, h = 0; s < send_voxels.size() || h < halo_voxels.size();) {
    const int r = std::min(s < send_voxels.size() ? send_voxels[s].first : INT_MAX,
                           h < halo_voxels.size() ? halo_voxels[h].first : INT_MAX);
    HaloNeighbour nb;
    nb.rank = r;
    for (; s < send_voxels.size() && send_voxels[s].first == r; ++s) {
      const auto c = coords(send_voxels[s].second);
      nb.send.push_back(local_node(c[0], c[1], c[2]));
    }
    for (int q = 1; q < d3q19::Q; ++q)
      if (pulled[r] & (1u << q)) {
        // This rank pulls q from r; by symmetry r pulls opposite(q) from this rank.
        nb.receive_directions |= 1u << q;
        nb.send_directions |= 1u << d3q19::opposite(q);
      }
    nb.receive_begin = static_cast<std::uint32_t>(m.num_nodes + h);
    for (; h < halo_voxels.size() && halo_voxels[h].first == r; ++h) {
      ++nb.receive_count;
      if (layout == Layout::bricks) {
        const auto c = coords(halo_voxels[h].second);
        nb.receive.push_back(local_node(c[0], c[1], c[2]));
      }
    }
    if (nb.send.empty() || nb.receive_count == 0)
      throw std::logic_error(str("mesh: the halo with rank ", r, " is one-sided (", nb.send.size(), " nodes to send, ",
                                 nb.receive_count, " to receive)"));
    m.halo.push_back(std::move(nb));
  }
  if (layout == Layout::bricks) build_bricks(m, brick_keys, bdims, slot_fluid);
  return m;
}

std::vector<unsigned char> SparseMesh::compact(std::vector<unsigned char> per_node, std::size_t element) const {
  if (layout == Layout::nodes) {
    per_node.resize(std::size_t(num_fluid()) * element);
    return per_node;
  }
  std::vector<unsigned char> out(std::size_t(num_fluid()) * element);
  for (std::uint32_t f = 0; f < num_fluid(); ++f)
    std::memcpy(&out[std::size_t(f) * element], &per_node[std::size_t(fluid_nodes[f]) * element], element);
  return out;
}

std::vector<unsigned char> SparseMesh::expand(std::vector<unsigned char> per_fluid, std::size_t element) const {
  if (layout == Layout::nodes) return per_fluid;
  std::vector<unsigned char> out(std::size_t(num_nodes) * element, 0);
  for (std::uint32_t f = 0; f < num_fluid(); ++f)
    std::memcpy(&out[std::size_t(fluid_nodes[f]) * element], &per_fluid[std::size_t(f) * element], element);
  return out;
}

std::array<double, 3> SparseMesh::position(std::uint32_t n) const {
  return {origin[0] + (i[n] + 0.5) * dx, origin[1] + (j[n] + 0.5) * dx, origin[2] + (k[n] + 0.5) * dx};
}

std::optional<std::uint32_t> SparseMesh::find(int vi, int vj, int vk) const {
  if (vi < 0 || vj < 0 || vk < 0 || vi >= dims[0] || vj >= dims[1] || vk >= dims[2]) return std::nullopt;
  const std::uint64_t v = std::uint64_t(vi) + std::uint64_t(dims[0]) * (std::uint64_t(vj) + std::uint64_t(dims[1]) * std::uint64_t(vk));
  const auto it = std::lower_bound(sorted_voxel.begin(), sorted_voxel.end(), v);
  if (it == sorted_voxel.end() || *it != v) return std::nullopt;
  return sorted_node[static_cast<std::size_t>(it - sorted_voxel.begin())];
}

std::optional<std::uint32_t> SparseMesh::nearest(const std::array<double, 3>& p, int radius) const {
  int c[3];
  for (int d = 0; d < 3; ++d) c[d] = static_cast<int>(std::floor((p[d] - origin[d]) / dx));
  std::optional<std::uint32_t> best;
  double best_d2 = std::numeric_limits<double>::infinity();
  for (int dk = -radius; dk <= radius; ++dk)
    for (int dj = -radius; dj <= radius; ++dj)
      for (int di = -radius; di <= radius; ++di) {
        const auto n = find(c[0] + di, c[1] + dj, c[2] + dk);
        if (!n) continue;
        const auto x = position(*n);
        const double d2 = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
        // Ties go to the lower voxel index: the same node for any order and rank count.
        if (d2 < best_d2 - 1e-24 || (std::fabs(d2 - best_d2) <= 1e-24 && best && voxel_index(*n) < voxel_index(*best))) {
          best_d2 = d2;
          best = n;
        }
      }
  return best;
}

std::size_t SparseMesh::bytes() const {
  return (i.size() + j.size() + k.size()) * sizeof(std::int32_t) + neighbours.size() * sizeof(std::uint32_t) +
         sorted_voxel.size() * sizeof(std::uint64_t) + sorted_node.size() * sizeof(std::uint32_t) +
         links.size() * (2 * sizeof(std::uint32_t) + sizeof(std::uint8_t) + sizeof(std::uint16_t)) +
         fluid_nodes.size() * sizeof(std::uint32_t) + brick_table.size() * sizeof(std::uint32_t) +
         (fluid_mask.size() + link_mask.size()) * sizeof(std::uint64_t) +
         (link_first.size() + link_word.size()) * sizeof(std::uint32_t);
}

std::string SparseMesh::describe() const {
  std::string s = str(num_fluid(), " fluid nodes stored of ", voxel_count(), " voxels (fluid fraction ",
                      fmt_f(fluid_fraction(), 3), "), ", to_string(ordering), " order; ",
                      links.wall_class < 0 ? str(wall_links, " wall links")
                                           : str(links.count(links.wall_class) + wall_links,
                                                 " wall links (coded for interpolated bounce-back)"));
  if (layout == Layout::bricks)
    s += str("; bricks of ", brick_edge, "^3: ", num_nodes / brick_slots, " owned, fill ",
             fmt_f(num_nodes ? double(num_fluid()) / double(num_nodes) : 0.0, 3));
  for (std::size_t c = 0; c < links.class_names.size(); ++c)
    if (int(c) != links.wall_class) s += str(", ", links.count(int(c)), " ", links.class_names[c], " links");
  if (!halo.empty())
    s += str("; rank ", rank, ": ", num_nodes - num_interior, " edge nodes, ", num_halo, " halo nodes from ", halo.size(),
             " neighbour ranks");
  s += str("; neighbour table ", fmt_bytes(double(neighbours.size() * sizeof(std::uint32_t))), ", host mesh arrays ",
           fmt_bytes(double(bytes())));
  return s;
}

}  // namespace hemo::mesh
