// Distances from voxel centres to the surface: the nearest-triangle tree, the signed
// distance field phi of the VLBM paper (seeds/000, sec. 2.2: + inside, - outside) and the
// largest inscribed distance behind VoxelGrid::characteristic_length, and the distance of
// single points (distance_to_surface).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "core/common/text.hpp"
#include "core/geometry/point.hpp"
#include "core/geometry/voxelize.hpp"
#include "core/geometry/voxelize_detail.hpp"

namespace hemo::geometry {

namespace detail {

namespace {

// |p - (a + t d)|^2
double dist2_at(const Point& p, const Point& a, const Point& d, double t) {
  const Point q{a[0] + t * d[0] - p[0], a[1] + t * d[1] - p[1], a[2] + t * d[2] - p[2]};
  return dot(q, q);
}

double point_segment_distance2(const Point& p, const Point& a, const Point& b) {
  const Point d = b - a;
  const double len2 = dot(d, d);
  const double t = len2 > 0.0 ? std::clamp(dot(p - a, d) / len2, 0.0, 1.0) : 0.0;
  return dist2_at(p, a, d, t);
}

// Squared distance from p to an axis-aligned box (0 inside it).
double box_distance2(const Point& p, const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  double d2 = 0.0;
  for (int a = 0; a < 3; ++a) {
    const double e = std::max({lo[a] - p[a], 0.0, p[a] - hi[a]});
    d2 += e * e;
  }
  return d2;
}

}  // namespace

double point_triangle_distance2(const Point& p, const Point& a, const Point& b, const Point& c) {
  const Point ab = b - a, ac = c - a;
  const Point n = cross(ab, ac);
  // A (near) zero-area triangle has no interior to project onto: its edges decide.
  if (dot(n, n) <= 1e-24 * dot(ab, ab) * dot(ac, ac)) {
    return std::min({point_segment_distance2(p, a, b), point_segment_distance2(p, b, c),
                     point_segment_distance2(p, a, c)});
  }
  // Which Voronoi region of the triangle (3 vertices, 3 edges, the face) holds p, from
  // the dot products of p - vertex with the two edge vectors.
  const Point ap = p - a;
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) return dot(ap, ap);  // vertex a
  const Point bp = p - b;
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) return dot(bp, bp);  // vertex b
  const Point cp = p - c;
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) return dot(cp, cp);  // vertex c
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return dist2_at(p, a, ab, d1 / (d1 - d3));  // edge ab
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return dist2_at(p, a, ac, d2 / (d2 - d6));  // edge ac
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {  // edge bc
    return dist2_at(p, b, c - b, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  }
  // The face: the distance to its plane, which is better conditioned than the distance
  // to the barycentric closest point.
  const double h = dot(ap, n);
  return h * h / dot(n, n);
}

TriangleBvh::TriangleBvh(const TriangleMesh& mesh) {
  const std::size_t n = mesh.triangles.size();
  if (n == 0) return;
  std::vector<Point> centroid(n);
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tri = mesh.triangles[t];
    for (int a = 0; a < 3; ++a) {
      centroid[t][a] =
          (mesh.vertices[tri[0]][a] + mesh.vertices[tri[1]][a] + mesh.vertices[tri[2]][a]) / 3.0;
    }
  }
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  tris_.resize(n);
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tri = mesh.triangles[t];
    tris_[t] = {mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]]};
  }
  nodes_.reserve(2 * n);
  nodes_.push_back({});
  build(0, order, 0, std::uint32_t(n), centroid);
  // Store the triangles in leaf order, so a leaf's triangles are contiguous.
  std::vector<std::array<Point, 3>> sorted(n);
  for (std::size_t t = 0; t < n; ++t) sorted[t] = tris_[order[t]];
  tris_ = std::move(sorted);
  mesh_index_ = std::move(order);
}

void TriangleBvh::build(std::uint32_t node, std::vector<std::uint32_t>& order, std::uint32_t begin,
                        std::uint32_t end, const std::vector<Point>& centroid) {
  constexpr std::uint32_t leaf_size = 4;
  Node box;
  box.lo = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::infinity()};
  box.hi = {-box.lo[0], -box.lo[1], -box.lo[2]};
  std::array<double, 3> clo = box.lo, chi = box.hi;
  for (std::uint32_t n = begin; n < end; ++n) {
    for (const Point& v : tris_[order[n]]) {
      for (int a = 0; a < 3; ++a) {
        box.lo[a] = std::min(box.lo[a], v[a]);
        box.hi[a] = std::max(box.hi[a], v[a]);
      }
    }
    for (int a = 0; a < 3; ++a) {
      clo[a] = std::min(clo[a], centroid[order[n]][a]);
      chi[a] = std::max(chi[a], centroid[order[n]][a]);
    }
  }
  if (end - begin <= leaf_size) {
    box.first = begin;
    box.count = end - begin;
    nodes_[node] = box;
    return;
  }
  // Split at the median centroid along the widest axis of the centroids: a balanced
  // tree, so the query stack stays shallow whatever the triangle sizes.
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (chi[a] - clo[a] > chi[axis] - clo[axis]) axis = a;
  const std::uint32_t mid = begin + (end - begin) / 2;
  std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                   [&](std::uint32_t x, std::uint32_t y) {
                     return centroid[x][axis] < centroid[y][axis] || (centroid[x][axis] == centroid[y][axis] && x < y);
                   });
  box.first = std::uint32_t(nodes_.size());
  box.count = 0;
  nodes_[node] = box;
  nodes_.push_back({});
  nodes_.push_back({});
  build(box.first, order, begin, mid, centroid);
  build(box.first + 1, order, mid, end, centroid);
}

TriangleBvh::Nearest TriangleBvh::nearest(const Point& p, double limit2, double stop2) const {
  Nearest best{limit2, -1};
  if (nodes_.empty()) return best;
  // Balanced tree: depth <= log2(triangles) + 1, and at most one pending sibling per level.
  std::array<std::uint32_t, 128> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (box_distance2(p, node.lo, node.hi) >= best.distance2) continue;
    if (node.count > 0) {
      for (std::uint32_t t = node.first; t < node.first + node.count; ++t) {
        const double d2 = point_triangle_distance2(p, tris_[t][0], tris_[t][1], tris_[t][2]);
        if (d2 < best.distance2) best = {d2, std::int64_t(mesh_index_[t])};
      }
      if (best.distance2 < stop2) return best;
      continue;
    }
    const double dl = box_distance2(p, nodes_[node.first].lo, nodes_[node.first].hi);
    const double dr = box_distance2(p, nodes_[node.first + 1].lo, nodes_[node.first + 1].hi);
    // The nearer child is searched first (pushed last), so `best` shrinks early.
    const std::uint32_t near = dl <= dr ? node.first : node.first + 1;
    const std::uint32_t far = dl <= dr ? node.first + 1 : node.first;
    if (std::max(dl, dr) < best.distance2) stack[top++] = far;
    if (std::min(dl, dr) < best.distance2) stack[top++] = near;
  }
  return best;
}

namespace {

/// Where a + t s meets the triangle (Moller-Trumbore), t in [0, 1]; infinity where it
/// does not (or runs in its plane). A barycentric slack of 1e-9 keeps a segment through
/// a shared edge or vertex from slipping between the two triangles.
double segment_hit(const std::array<Point, 3>& tri, const Point& a, const Point& s) {
  constexpr double bary_slack = 1e-9, t_slack = 1e-9;
  constexpr double none = std::numeric_limits<double>::infinity();
  const Point e1 = tri[1] - tri[0], e2 = tri[2] - tri[0];
  const Point p = cross(s, e2);
  const double det = dot(e1, p);
  // Edge-on (or degenerate): the segment runs in the triangle's plane; its neighbours
  // are met instead.
  if (!(det * det > 1e-24 * dot(e1, e1) * dot(e2, e2) * dot(s, s))) return none;
  const double inv_det = 1.0 / det;
  const Point tv = a - tri[0];
  const double u = dot(tv, p) * inv_det;
  if (u < -bary_slack || u > 1.0 + bary_slack) return none;
  const Point q = cross(tv, e1);
  const double v = dot(s, q) * inv_det;
  if (v < -bary_slack || u + v > 1.0 + bary_slack) return none;
  const double h = dot(e2, q) * inv_det;
  if (h < -t_slack || h > 1.0 + t_slack) return none;
  return std::clamp(h, 0.0, 1.0);
}

}  // namespace

void TriangleBvh::near(const Point& p, double radius, std::vector<std::uint32_t>& out) const {
  out.clear();
  if (nodes_.empty()) return;
  const double r2 = radius * radius;
  std::array<std::uint32_t, 128> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (box_distance2(p, node.lo, node.hi) > r2) continue;
    if (node.count == 0) {
      stack[top++] = node.first + 1;
      stack[top++] = node.first;
      continue;
    }
    for (std::uint32_t t = node.first; t < node.first + node.count; ++t) out.push_back(t);
  }
}

double TriangleBvh::first_hit(const Point& a, const Point& b, const std::vector<std::uint32_t>& candidates) const {
  const Point s = b - a;
  double best = std::numeric_limits<double>::infinity();
  for (const std::uint32_t t : candidates) best = std::min(best, segment_hit(tris_[t], a, s));
  return best <= 1.0 ? best : -1.0;
}

double TriangleBvh::first_hit(const Point& a, const Point& b) const {
  if (nodes_.empty()) return -1.0;
  const Point s = b - a;
  Point inv;
  for (int k = 0; k < 3; ++k) inv[k] = s[k] != 0.0 ? 1.0 / s[k] : 0.0;
  // Boxes grown by a hair of the surface's size, so that rounding in the slab test never
  // drops a box the segment only touches (a flat box around an axis-aligned triangle).
  double pad = 0.0;
  for (int k = 0; k < 3; ++k) pad = std::max(pad, nodes_[0].hi[k] - nodes_[0].lo[k]);
  pad *= 1e-9;
  const double t_slack = 1e-9;  // a hit at t just outside [0, 1] is at an end point
  double best = std::numeric_limits<double>::infinity();
  // Where the segment enters the node's box; infinity where it misses it or enters
  // beyond the best hit so far.
  const auto entry = [&](const Node& n) {
    double t0 = -t_slack, t1 = std::min(best, 1.0 + t_slack);
    for (int k = 0; k < 3; ++k) {
      const double lo = n.lo[k] - pad, hi = n.hi[k] + pad;
      if (s[k] == 0.0) {
        if (a[k] < lo || a[k] > hi) return std::numeric_limits<double>::infinity();
        continue;
      }
      double u0 = (lo - a[k]) * inv[k], u1 = (hi - a[k]) * inv[k];
      if (u0 > u1) std::swap(u0, u1);
      t0 = std::max(t0, u0);
      t1 = std::min(t1, u1);
      if (t0 > t1) return std::numeric_limits<double>::infinity();
    }
    return t0;
  };
  struct Pending {
    std::uint32_t node;
    double t;  // where the segment enters its box
  };
  std::array<Pending, 128> stack;
  int top = 0;
  if (const double t = entry(nodes_[0]); t <= 1.0 + t_slack) stack[top++] = {0, t};
  while (top > 0) {
    const Pending at = stack[--top];
    if (at.t > best) continue;  // the box starts beyond a hit found since it was pushed
    const Node& node = nodes_[at.node];
    if (node.count == 0) {
      // The nearer child is searched first (pushed last): its hits prune the other.
      const double tl = entry(nodes_[node.first]), tr = entry(nodes_[node.first + 1]);
      const bool left_first = tl <= tr;
      const Pending nearer{left_first ? node.first : node.first + 1, std::min(tl, tr)};
      const Pending farther{left_first ? node.first + 1 : node.first, std::max(tl, tr)};
      if (farther.t <= 1.0 + t_slack) stack[top++] = farther;
      if (nearer.t <= 1.0 + t_slack) stack[top++] = nearer;
      continue;
    }
    for (std::uint32_t t = node.first; t < node.first + node.count; ++t)
      best = std::min(best, segment_hit(tris_[t], a, s));
  }
  return best <= 1.0 ? best : -1.0;
}

double largest_inside_distance(const TriangleBvh& bvh, const VoxelGrid& grid, const ZRays& rays) {
  struct Block {
    double bound;
    std::array<int, 3> lo, n;
  };
  const auto has_fluid = [&](const std::array<int, 3>& lo, const std::array<int, 3>& n) {
    for (int k = lo[2]; k < lo[2] + n[2]; ++k)
      for (int j = lo[1]; j < lo[1] + n[1]; ++j) {
        const auto row = grid.fluid.begin() + grid.index(lo[0], j, k);
        if (std::find(row, row + n[0], std::uint8_t{1}) != row + n[0]) return true;
      }
    return false;
  };
  // Upper bound of the distance over the block's voxel centres: the distance at the
  // middle of those centres plus the farthest of them from it (1-Lipschitz). A bound
  // that cannot reach `floor` only needs to be shown to be below it (an early exit).
  const auto bound_of = [&](const std::array<int, 3>& lo, const std::array<int, 3>& n, double floor) {
    Point c;
    double half2 = 0.0;
    for (int a = 0; a < 3; ++a) {
      c[a] = grid.origin[a] + (lo[a] + 0.5 * n[a]) * grid.dx;
      const double h = 0.5 * (n[a] - 1) * grid.dx;
      half2 += h * h;
    }
    const double half = std::sqrt(half2);
    const double stop = floor - half;
    return std::sqrt(bvh.distance2(c, std::numeric_limits<double>::infinity(), stop > 0.0 ? stop * stop : 0.0)) +
           half;
  };

  // Top level: blocks of up to 32^3 held voxels holding fluid, bounded in parallel.
  constexpr int top = 32;
  std::vector<Block> blocks;
  const auto& w = grid.window;
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; k += top)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; j += top)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; i += top) {
        const std::array<int, 3> lo{i, j, k};
        const std::array<int, 3> n{std::min(top, w.lo[0] + w.extent[0] - i), std::min(top, w.lo[1] + w.extent[1] - j),
                                   std::min(top, w.lo[2] + w.extent[2] - k)};
        blocks.push_back({0.0, lo, n});
      }
  std::vector<std::uint8_t> keep(blocks.size());
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t b = 0; b < std::int64_t(blocks.size()); ++b) {
    keep[b] = has_fluid(blocks[b].lo, blocks[b].n);
    if (keep[b]) blocks[b].bound = bound_of(blocks[b].lo, blocks[b].n, 0.0);
  }
  const auto lower = [](const Block& x, const Block& y) {
    return x.bound < y.bound || (x.bound == y.bound && x.lo > y.lo);
  };
  std::priority_queue<Block, std::vector<Block>, decltype(lower)> queue(lower);
  for (std::size_t b = 0; b < blocks.size(); ++b)
    if (keep[b]) queue.push(blocks[b]);

  // Branch and bound: the best inside voxel centre found so far prunes every block whose
  // bound cannot beat it; the result is the exact maximum whatever the visiting order.
  // Up to 64 promising blocks are taken at a time and their children bounded in
  // parallel; as the result is exact, neither the batch nor the threads change it.
  struct Job {
    Block block;
    bool leaf;  // a popped single voxel: is its centre inside? else: a child to bound
    bool keep;
  };
  double best = 0.0;
  std::vector<Job> jobs;
  while (!queue.empty() && queue.top().bound > best) {
    jobs.clear();
    const double floor = best;  // blocks bounded below it are dropped
    for (int taken = 0; taken < 64 && !queue.empty() && queue.top().bound > best; ++taken) {
      const Block b = queue.top();
      queue.pop();
      if (b.n == std::array<int, 3>{1, 1, 1}) {
        jobs.push_back({b, true, false});
        continue;
      }
      for (int c = 0; c < 8; ++c) {
        Block child{0.0, b.lo, b.n};
        bool empty = false;
        for (int a = 0; a < 3; ++a) {
          const int half = b.n[a] / 2;
          if (b.n[a] == 1) {
            if ((c >> a) & 1) empty = true;
          } else if ((c >> a) & 1) {
            child.lo[a] += half;
            child.n[a] -= half;
          } else {
            child.n[a] = half;
          }
        }
        if (!empty) jobs.push_back({child, false, false});
      }
    }
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t q = 0; q < std::int64_t(jobs.size()); ++q) {
      Job& job = jobs[std::size_t(q)];
      const Block& b = job.block;
      if (job.leaf) {
        // A single voxel's bound is its centre's distance; it counts if the centre is
        // inside (a fluid voxel's centre can lie just outside the wall).
        job.keep = centre_inside(rays, b.lo[0], b.lo[1], b.lo[2]);
      } else {
        job.keep = has_fluid(b.lo, b.n);
        if (job.keep) job.block.bound = bound_of(b.lo, b.n, floor);
      }
    }
    for (const Job& job : jobs) {
      if (!job.keep) continue;
      if (job.leaf) {
        best = std::max(best, job.block.bound);
      } else if (job.block.bound > best) {
        queue.push(job.block);
      }
    }
  }
  return best;
}

}  // namespace detail

std::vector<float> signed_distance(const TriangleMesh& mesh, const VoxelGrid& grid, double band) {
  if (!(band > 0.0) || !std::isfinite(band)) throw std::invalid_argument(str("signed_distance: band = ", band));
  if (!grid.holds_whole_box()) throw std::invalid_argument("signed_distance: the grid must hold the whole box");
  const std::int64_t total = grid.voxel_count();
  std::vector<float> out(std::size_t(std::max<std::int64_t>(total, 0)));
  if (total <= 0) return out;
  const auto& dims = grid.dims;
  const detail::ZRays rays(mesh, grid.origin, grid.dx, dims, 1);
  const detail::TriangleBvh bvh(mesh);

  // Which voxel centres can be within `band` of a triangle: those within its box grown
  // by band. Marking them keeps the tree queries to the band; when the boxes would
  // cover the grid several times over, every voxel is queried instead.
  const auto range = [&](const std::array<std::uint32_t, 3>& tri, int a, int& k0, int& k1) {
    const double lo = std::min({mesh.vertices[tri[0]][a], mesh.vertices[tri[1]][a], mesh.vertices[tri[2]][a]});
    const double hi = std::max({mesh.vertices[tri[0]][a], mesh.vertices[tri[1]][a], mesh.vertices[tri[2]][a]});
    const double f0 = std::ceil((lo - band - grid.origin[a]) / grid.dx - 0.5) - 1.0;
    const double f1 = std::floor((hi + band - grid.origin[a]) / grid.dx - 0.5) + 1.0;
    k0 = int(std::clamp(f0, 0.0, double(dims[a])));
    k1 = int(std::clamp(f1, -1.0, double(dims[a] - 1)));
  };
  double marks = 0.0;
  for (const auto& tri : mesh.triangles) {
    double m = 1.0;
    for (int a = 0; a < 3; ++a) {
      int k0, k1;
      range(tri, a, k0, k1);
      m *= std::max(0, k1 - k0 + 1);
    }
    marks += m;
  }
  std::vector<std::uint8_t> near;
  if (marks <= 4.0 * double(total)) {
    near.assign(out.size(), 0);
    for (const auto& tri : mesh.triangles) {
      std::array<int, 3> k0, k1;
      for (int a = 0; a < 3; ++a) range(tri, a, k0[a], k1[a]);
      for (int k = k0[2]; k <= k1[2]; ++k)
        for (int j = k0[1]; j <= k1[1]; ++j)
          for (int i = k0[0]; i <= k1[0]; ++i) near[std::size_t(grid.index(i, j, k))] = 1;
    }
  }

  const double band2 = band * band;
#pragma omp parallel
  {
    std::vector<std::uint32_t> candidates;
    std::vector<double> z;
#pragma omp for schedule(dynamic)
    for (int j = 0; j < dims[1]; ++j) {
      for (int i = 0; i < dims[0]; ++i) {
        rays.column_candidates(i, j, candidates);
        rays.crossings(candidates, rays.centre_coordinate(i), rays.centre_coordinate(j), z);
        std::size_t below = 0;
        for (int k = 0; k < dims[2]; ++k) {
          while (below < z.size() && z[below] < k + 0.5) ++below;
          const double sign = below % 2 == 1 ? 1.0 : -1.0;  // inside +, the paper's phi
          const auto v = std::size_t(grid.index(i, j, k));
          double d = band;
          if (near.empty() || near[v]) d = std::min(band, std::sqrt(bvh.distance2(grid.centre(i, j, k), band2)));
          out[v] = float(sign * d);
        }
      }
    }
  }
  return out;
}

std::vector<SurfacePoint> nearest_surface(const TriangleMesh& mesh, const std::vector<Point>& points, double limit) {
  std::vector<SurfacePoint> out(points.size(), SurfacePoint{std::numeric_limits<double>::infinity(), {0.0, 0.0, 0.0}, -1});
  if (mesh.size() == 0 || points.empty()) return out;
  const detail::TriangleBvh bvh(mesh);
  const double limit2 = limit * limit;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(points.size()); ++i) {
    const auto hit = bvh.nearest(points[std::size_t(i)], limit2);
    if (hit.triangle < 0) continue;
    const auto& t = mesh.triangles[std::size_t(hit.triangle)];
    const Point n = cross(mesh.vertices[t[1]] - mesh.vertices[t[0]], mesh.vertices[t[2]] - mesh.vertices[t[0]]);
    const double len = norm(n);
    out[std::size_t(i)] = {std::sqrt(hit.distance2), len > 0.0 ? (1.0 / len) * n : Point{0.0, 0.0, 0.0}, hit.triangle};
  }
  return out;
}

double distance_to_surface(const TriangleMesh& mesh, const Point& p) {
  double best2 = std::numeric_limits<double>::infinity();
  for (const auto& t : mesh.triangles)
    best2 = std::min(best2, detail::point_triangle_distance2(p, mesh.vertices[t[0]], mesh.vertices[t[1]],
                                                             mesh.vertices[t[2]]));
  return std::sqrt(best2);
}

}  // namespace hemo::geometry
