#include "plugins/boundaries/local_speed.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

#include "physics/d3q19.hpp"

namespace hemo::boundaries {

namespace {

namespace d3q19 = phys::d3q19;

float link_length(int q) {
  const int c2 = d3q19::cx(q) * d3q19::cx(q) + d3q19::cy(q) * d3q19::cy(q) + d3q19::cz(q) * d3q19::cz(q);
  return c2 == 1 ? 1.0f : std::sqrt(2.0f);
}

/// The owned fluid node n pulls direction q from (its neighbour at x - c_q), or wall_link.
std::uint32_t neighbour(const mesh::SparseMesh& m, int q, std::uint32_t n) {
  const std::uint32_t y = m.pulls_from(q, n);
  return mesh::is_node(y) && y < m.num_nodes ? y : mesh::wall_link;
}

}  // namespace

std::vector<float> wall_distance(const mesh::SparseMesh& m, const std::vector<bool>& open_class) {
  // Each node carries the wall point nearest it found so far (the wall's crossing of a
  // link, halfway along it); a node passes its point on to its neighbours, which keep it
  // where it is nearer than theirs (a Dijkstra on the Euclidean distance to the carried
  // point: the distance to the wall's points, not along the links).
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> d(m.num_nodes, inf);
  std::vector<std::array<float, 3>> point(m.num_nodes);
  auto at = [&](std::uint32_t n) { return std::array<float, 3>{float(m.i[n]), float(m.j[n]), float(m.k[n])}; };
  auto distance = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
  };
  using Item = std::pair<float, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
    const std::uint32_t n = m.fluid_node(f);
    const auto x = at(n);
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::uint32_t code = m.neighbours[std::size_t(q - 1) * m.stride + n];
      if (mesh::is_node(m.pulls_from(q, n))) continue;
      if (mesh::is_coded_link(code)) {
        const std::size_t cls = m.links.link_class[mesh::link_index(code)];
        if (cls < open_class.size() && open_class[cls]) continue;
      }
      // n pulls q from x - c_q, a wall: halfway bounce-back puts the wall at x - c_q / 2.
      const float half = 0.5f * link_length(q);
      if (half < d[n]) {
        d[n] = half;
        point[n] = {x[0] - 0.5f * float(d3q19::cx(q)), x[1] - 0.5f * float(d3q19::cy(q)), x[2] - 0.5f * float(d3q19::cz(q))};
      }
    }
    if (d[n] < inf) queue.push({d[n], n});
  }
  while (!queue.empty()) {
    const auto [dist, n] = queue.top();
    queue.pop();
    if (dist > d[n]) continue;
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::uint32_t y = neighbour(m, q, n);
      if (y == mesh::wall_link) continue;
      const float through = distance(at(y), point[n]);
      if (through < d[y]) {
        d[y] = through;
        point[y] = point[n];
        queue.push({through, y});
      }
    }
  }
  return d;
}

std::vector<Passage> narrowest_passages(const mesh::SparseMesh& m, const std::vector<float>& distance,
                                        const std::vector<std::uint32_t>& sources,
                                        const std::vector<std::vector<std::uint32_t>>& targets) {
  // Widest paths (a Dijkstra that takes the largest bottleneck first): width[n] is the
  // largest over the paths from a source to n of the smallest wall distance on them, and
  // narrowest[n] the node where that smallest distance is.
  std::vector<float> width(m.num_nodes, 0.0f);
  std::vector<std::uint32_t> narrowest(m.num_nodes, mesh::wall_link);
  using Item = std::pair<float, std::uint32_t>;
  std::priority_queue<Item> queue;  // largest width first
  for (const std::uint32_t n : sources) {
    if (n >= m.num_nodes || !(distance[n] > width[n])) continue;
    width[n] = distance[n];
    narrowest[n] = n;
    queue.push({width[n], n});
  }
  while (!queue.empty()) {
    const auto [w, n] = queue.top();
    queue.pop();
    if (w < width[n]) continue;
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::uint32_t y = neighbour(m, q, n);
      if (y == mesh::wall_link) continue;
      const float through = std::min(w, distance[y]);
      if (through > width[y]) {
        width[y] = through;
        narrowest[y] = distance[y] < w ? y : narrowest[n];
        queue.push({through, y});
      }
    }
  }
  std::vector<Passage> out;
  for (const auto& group : targets) {
    Passage p;
    for (const std::uint32_t n : group)
      if (n < m.num_nodes && width[n] > p.radius) p = {width[n], narrowest[n]};
    out.push_back(p);
  }
  return out;
}

}  // namespace hemo::boundaries
