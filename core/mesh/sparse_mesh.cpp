#include "core/mesh/sparse_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "physics/d3q19.hpp"

namespace hemo::mesh {

namespace d3q19 = phys::d3q19;

const char* to_string(Ordering o) { return o == Ordering::morton ? "morton" : "lexicographic"; }

Ordering ordering_from_string(const std::string& s) {
  if (s == "lexicographic") return Ordering::lexicographic;
  if (s == "morton") return Ordering::morton;
  throw std::invalid_argument("unknown node ordering '" + s + "'");
}

int MeshRequest::add_link_class(std::string name, std::function<bool(const std::array<int, 3>&)> claims) {
  link_classes.push_back({std::move(name), std::move(claims), nullptr});
  if (link_classes.size() > 0xFFFF) throw std::logic_error("too many boundary link classes");
  return static_cast<int>(link_classes.size()) - 1;
}

int MeshRequest::add_fluid_link_class(
    std::string name, std::function<bool(const std::array<int, 3>&, const std::array<int, 3>&)> claims) {
  link_classes.push_back({std::move(name), nullptr, std::move(claims)});
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

std::uint64_t morton_key(std::uint32_t i, std::uint32_t j, std::uint32_t k) {
  return spread_bits(i) | (spread_bits(j) << 1) | (spread_bits(k) << 2);
}

SparseMesh build_mesh(const geometry::VoxelGrid& vox, const MeshRequest& request, Ordering ordering) {
  SparseMesh m;
  m.dims = vox.dims;
  m.origin = vox.origin;
  m.dx = vox.dx;
  m.periodic = request.periodic;
  m.ordering = ordering;

  // 1. Fluid voxels in lexicographic order (i fastest), then the requested order.
  std::vector<std::uint64_t> voxel_of_node;
  voxel_of_node.reserve(static_cast<std::size_t>(vox.fluid_count()));
  for (std::int64_t v = 0; v < vox.voxel_count(); ++v)
    if (vox.fluid[static_cast<std::size_t>(v)]) voxel_of_node.push_back(static_cast<std::uint64_t>(v));
  if (voxel_of_node.size() > max_nodes)
    throw InputError(str("the geometry has ", voxel_of_node.size(), " fluid nodes; one rank holds at most ", max_nodes));
  const auto nx = static_cast<std::uint64_t>(vox.dims[0]), ny = static_cast<std::uint64_t>(vox.dims[1]);
  auto coords = [&](std::uint64_t v) {
    return std::array<int, 3>{int(v % nx), int((v / nx) % ny), int(v / (nx * ny))};
  };
  if (ordering == Ordering::morton) {
    // Morton (Z-order) numbering keeps nodes that are close in space close in memory, so
    // the 18 pulls of a warp touch fewer cache lines (Morton paper, seeds/002, sec. 2).
    std::vector<std::uint64_t> key(voxel_of_node.size());
    for (std::size_t n = 0; n < key.size(); ++n) {
      const auto c = coords(voxel_of_node[n]);
      key[n] = morton_key(std::uint32_t(c[0]), std::uint32_t(c[1]), std::uint32_t(c[2]));
    }
    std::vector<std::uint32_t> perm(key.size());
    std::iota(perm.begin(), perm.end(), 0u);
    std::sort(perm.begin(), perm.end(), [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
    std::vector<std::uint64_t> reordered(perm.size());
    for (std::size_t n = 0; n < perm.size(); ++n) reordered[n] = voxel_of_node[perm[n]];
    voxel_of_node.swap(reordered);
  }

  m.num_nodes = static_cast<std::uint32_t>(voxel_of_node.size());
  m.stride = padded_stride(m.num_nodes);
  m.i.resize(m.num_nodes);
  m.j.resize(m.num_nodes);
  m.k.resize(m.num_nodes);
  for (std::uint32_t n = 0; n < m.num_nodes; ++n) {
    const auto c = coords(voxel_of_node[n]);
    m.i[n] = c[0];
    m.j[n] = c[1];
    m.k[n] = c[2];
  }

  // 2. Voxel -> node: sorted voxel indices with their nodes (kept for lookups).
  {
    std::vector<std::uint32_t> perm(m.num_nodes);
    std::iota(perm.begin(), perm.end(), 0u);
    if (ordering != Ordering::lexicographic)
      std::sort(perm.begin(), perm.end(), [&](std::uint32_t a, std::uint32_t b) { return voxel_of_node[a] < voxel_of_node[b]; });
    m.sorted_voxel.resize(m.num_nodes);
    m.sorted_node = perm;
    for (std::uint32_t s = 0; s < m.num_nodes; ++s) m.sorted_voxel[s] = voxel_of_node[perm[s]];
  }

  // 3. Neighbour table. A dense voxel -> node map makes the 18 lookups per node O(1);
  //    it lives only while the table is built.
  std::vector<std::uint32_t> node_of_voxel(static_cast<std::size_t>(vox.voxel_count()), wall_link);
  for (std::uint32_t n = 0; n < m.num_nodes; ++n) node_of_voxel[voxel_of_node[n]] = n;

  constexpr std::uint16_t no_class = 0xFFFF;
  const std::size_t rows = d3q19::Q - 1;
  m.neighbours.assign(rows * m.stride, wall_link);
  std::vector<std::uint16_t> link_class_of(rows * m.stride, no_class);
  std::vector<std::uint32_t> fluid_source(rows * m.stride, wall_link);  // claimed fluid-to-fluid links
  const auto& classes = request.link_classes;
  const long long nodes = m.num_nodes;
#pragma omp parallel for schedule(static)
  for (long long n = 0; n < nodes; ++n) {
    for (int q = 1; q < d3q19::Q; ++q) {
      std::array<int, 3> y{m.i[n] - d3q19::cx(q), m.j[n] - d3q19::cy(q), m.k[n] - d3q19::cz(q)};
      for (int d = 0; d < 3; ++d)
        if (m.periodic[d]) y[d] = (y[d] + vox.dims[d]) % vox.dims[d];
      const std::size_t slot = std::size_t(q - 1) * m.stride + std::size_t(n);
      if (vox.inside_box(y[0], y[1], y[2])) {
        const std::uint32_t src = node_of_voxel[static_cast<std::size_t>(vox.index(y[0], y[1], y[2]))];
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
  for (const auto& c : classes) m.links.class_names.push_back(c.name);
  for (std::uint32_t n = 0; n < m.num_nodes; ++n)
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::size_t slot = std::size_t(q - 1) * m.stride + n;
      if (m.neighbours[slot] != wall_link) continue;
      if (link_class_of[slot] == no_class) {
        ++m.wall_links;
        continue;
      }
      const auto k = static_cast<std::uint32_t>(m.links.size());
      m.neighbours[slot] = coded_link | k;
      m.links.node.push_back(n);
      m.links.direction.push_back(static_cast<std::uint8_t>(q));
      m.links.link_class.push_back(link_class_of[slot]);
      m.links.source.push_back(fluid_source[slot]);
    }
  if (m.links.size() >= coded_link) throw InputError("too many boundary links for 32-bit link codes");
  return m;
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
        // Ties go to the lower node index so the choice does not depend on search order.
        if (d2 < best_d2 - 1e-24 || (std::fabs(d2 - best_d2) <= 1e-24 && best && *n < *best)) {
          best_d2 = d2;
          best = n;
        }
      }
  return best;
}

std::size_t SparseMesh::bytes() const {
  return (i.size() + j.size() + k.size()) * sizeof(std::int32_t) + neighbours.size() * sizeof(std::uint32_t) +
         sorted_voxel.size() * sizeof(std::uint64_t) + sorted_node.size() * sizeof(std::uint32_t) +
         links.size() * (2 * sizeof(std::uint32_t) + sizeof(std::uint8_t) + sizeof(std::uint16_t));
}

std::string SparseMesh::describe() const {
  std::string s = str(num_nodes, " fluid nodes stored of ", voxel_count(), " voxels (fluid fraction ",
                      fmt_f(fluid_fraction(), 3), "), ", to_string(ordering), " order; ", wall_links, " wall links");
  for (std::size_t c = 0; c < links.class_names.size(); ++c)
    s += str(", ", links.count(int(c)), " ", links.class_names[c], " links");
  s += str("; neighbour table ", fmt_bytes(double(neighbours.size() * sizeof(std::uint32_t))), ", host mesh arrays ",
           fmt_bytes(double(bytes())));
  return s;
}

}  // namespace hemo::mesh
