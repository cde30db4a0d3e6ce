#include "core/geometry/surface.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <unordered_map>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/geometry/caps.hpp"
#include "core/geometry/point.hpp"

namespace hemo::geometry {

namespace {


/// An undirected edge as one sortable number: smaller vertex index in the high half.
using EdgeKey = std::uint64_t;
EdgeKey edge_key(std::uint32_t a, std::uint32_t b) {
  return (std::uint64_t(std::min(a, b)) << 32) | std::max(a, b);
}
std::uint32_t edge_lo(EdgeKey e) { return static_cast<std::uint32_t>(e >> 32); }
std::uint32_t edge_hi(EdgeKey e) { return static_cast<std::uint32_t>(e); }

/// The edges used by exactly one triangle, sorted, and the counts of boundary and
/// non-manifold edges. A sorted array rather than a hash map: a third of the memory
/// and a deterministic order, which makes the messages reproducible.
struct EdgeCensus {
  std::vector<EdgeKey> boundary;
  std::size_t non_manifold = 0;
};

EdgeCensus edge_census(const TriangleMesh& mesh) {
  std::vector<EdgeKey> edges;
  edges.reserve(3 * mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    for (std::uint32_t v : tri)
      if (v >= mesh.vertices.size())
        throw std::out_of_range(str(mesh.description, ": triangle ", t, " refers to vertex ", v, " of ",
                                    mesh.vertices.size()));
    for (int c = 0; c < 3; ++c) edges.push_back(edge_key(tri[c], tri[(c + 1) % 3]));
  }
  std::sort(edges.begin(), edges.end());
  EdgeCensus census;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i + 1;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) census.boundary.push_back(edges[i]);
    else if (j - i > 2) ++census.non_manifold;
    i = j;
  }
  return census;
}

/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations: small,
/// unconditionally stable, and accurate for the nearly degenerate spectra of a circle.
/// Returns the eigenvalues and, in the columns of `vectors`, the unit eigenvectors.
struct SymmetricEigen {
  std::array<double, 3> values;
  std::array<std::array<double, 3>, 3> vectors;
  Point vector(int k) const { return {vectors[0][k], vectors[1][k], vectors[2][k]}; }
};

SymmetricEigen symmetric_eigen(std::array<std::array<double, 3>, 3> a) {
  std::array<std::array<double, 3>, 3> v{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  double scale = 0;
  for (const auto& row : a)
    for (double x : row) scale += x * x;
  for (int sweep = 0; sweep < 64; ++sweep) {
    const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (off <= 1e-32 * scale || off == 0) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0) continue;
        // Rotation angle that zeroes a[p][q]; t = tan(angle), the smaller root.
        const double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const double sign = theta >= 0 ? 1.0 : -1.0;
        const double t = std::fabs(theta) > 1e150 ? 0.5 / theta  // theta^2 would overflow
                                                  : sign / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) {  // a <- a J
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {  // a <- J^T a
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {  // v <- v J
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  return {{a[0][0], a[1][1], a[2][2]}, v};
}

/// A boundary edge with the direction its triangle gives it, and that triangle.
struct BoundaryEdge {
  std::uint32_t tail, head, triangle;
};

std::vector<BoundaryEdge> boundary_edges(const TriangleMesh& mesh, const std::vector<EdgeKey>& boundary) {
  std::vector<BoundaryEdge> out;
  out.reserve(boundary.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    for (int c = 0; c < 3; ++c)
      if (std::binary_search(boundary.begin(), boundary.end(), edge_key(tri[c], tri[(c + 1) % 3])))
        out.push_back({tri[c], tri[(c + 1) % 3], static_cast<std::uint32_t>(t)});
  }
  return out;
}

std::uint32_t other_end(const BoundaryEdge& e, std::uint32_t v) { return e.tail == v ? e.head : e.tail; }

/// Where several holes touch at vertex `v`, the rim edge that continues the hole which
/// the walk arrived on: go round the fan of triangles at `v` from the arriving edge's
/// triangle, across interior edges, until a rim edge is reached. Returns edges.size()
/// where the fan is not a simple one (a non-manifold edge on the way).
std::size_t across_fan(const TriangleMesh& mesh, const std::vector<BoundaryEdge>& edges,
                       const std::vector<std::size_t>& rim_at_v, const std::vector<std::uint32_t>& triangles_at_v,
                       std::uint32_t v, std::size_t arriving) {
  std::uint32_t t = edges[arriving].triangle;
  std::uint32_t from = other_end(edges[arriving], v);
  for (std::size_t step = 0; step < triangles_at_v.size(); ++step) {
    const auto& tri = mesh.triangles[t];
    std::uint32_t y = tri[0];
    for (std::uint32_t c : tri)
      if (c != v && c != from) y = c;
    for (std::size_t e : rim_at_v)
      if (e != arriving && edges[e].triangle == t && other_end(edges[e], v) == y) return e;
    std::uint32_t next = t;
    int found = 0;
    for (std::uint32_t t2 : triangles_at_v) {
      const auto& c = mesh.triangles[t2];
      if (t2 != t && (c[0] == y || c[1] == y || c[2] == y)) {
        next = t2;
        ++found;
      }
    }
    if (found != 1) break;
    from = y;
    t = next;
  }
  return edges.size();
}

/// Chains boundary edges into closed loops (lists of edge indices). Walks edges, not
/// vertices, so a vertex where two holes touch is passed through once per hole; there
/// the walk follows the fan of triangles of the hole it is on (across_fan), or failing
/// that the edge that continues the triangles' orientation. Chains that do not close
/// (only possible on a non-manifold surface) are left out.
std::vector<std::vector<std::size_t>> chain_loops(const TriangleMesh& mesh, const std::vector<BoundaryEdge>& edges) {
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> at;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    at[edges[e].tail].push_back(e);
    at[edges[e].head].push_back(e);
  }
  // Triangles around the vertices where holes touch (rare: usually none).
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> fan;
  for (const auto& [v, list] : at)
    if (list.size() > 2) fan[v];
  if (!fan.empty())
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
      for (std::uint32_t v : mesh.triangles[t]) {
        const auto it = fan.find(v);
        if (it != fan.end()) it->second.push_back(static_cast<std::uint32_t>(t));
      }

  std::vector<bool> used(edges.size(), false);
  std::vector<std::vector<std::size_t>> loops;
  for (std::size_t first = 0; first < edges.size(); ++first) {
    if (used[first]) continue;
    used[first] = true;
    std::vector<std::size_t> loop{first};
    const std::uint32_t start = edges[first].tail;
    std::uint32_t cur = edges[first].head;
    bool closed = true;
    while (cur != start) {
      const std::vector<std::size_t>& here = at[cur];
      std::size_t next = edges.size();
      if (here.size() > 2) {
        next = across_fan(mesh, edges, here, fan[cur], cur, loop.back());
        if (next < edges.size() && used[next]) next = edges.size();
      }
      if (next == edges.size())
        for (std::size_t e : here) {
          if (used[e]) continue;
          if (edges[e].tail == cur) {
            next = e;
            break;
          }
          if (next == edges.size()) next = e;
        }
      if (next == edges.size()) {
        closed = false;
        break;
      }
      used[next] = true;
      loop.push_back(next);
      cur = other_end(edges[next], cur);
    }
    if (closed) loops.push_back(std::move(loop));
  }
  return loops;
}

OpenEnd fit_end(const TriangleMesh& mesh, const std::vector<BoundaryEdge>& edges, const std::vector<std::size_t>& loop) {
  // The loop's vertices in walking order.
  std::vector<Point> p;
  p.reserve(loop.size());
  std::uint32_t cur = edges[loop[0]].tail;
  for (std::size_t e : loop) {
    p.push_back(mesh.vertices[cur]);
    cur = other_end(edges[e], cur);
  }
  const std::size_t n = p.size();

  // Plane of the polyline, each segment weighted by its length, so that a finely meshed
  // stretch of the rim does not pull the fit towards it.
  double total = 0;
  Point c0{0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    const Point& q = p[(i + 1) % n];
    const double len = std::sqrt(dot(q - p[i], q - p[i]));
    total += len;
    c0 = c0 + (0.5 * len) * (p[i] + q);
  }
  if (total > 0) c0 = (1 / total) * c0;
  std::array<std::array<double, 3>, 3> cov{};
  for (std::size_t i = 0; i < n; ++i) {
    const Point a = p[i] - c0, b = p[(i + 1) % n] - c0;
    const double len = std::sqrt(dot(b - a, b - a));
    // Integral of (x - c0)(x - c0)^T along the segment from a to b.
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) cov[r][s] += len * ((a[r] * a[s] + b[r] * b[s]) / 3 + (a[r] * b[s] + b[r] * a[s]) / 6);
  }
  const SymmetricEigen eig = symmetric_eigen(cov);
  int lo = 0, hi = 0;
  for (int k = 1; k < 3; ++k) {
    if (eig.values[k] < eig.values[lo]) lo = k;
    if (eig.values[k] > eig.values[hi]) hi = k;
  }
  if (lo == hi) hi = (lo + 1) % 3;  // all equal (a single point): any frame will do
  Point normal = eig.vector(lo);
  const Point u = eig.vector(hi);
  const Point v = cross(normal, u);

  // Shoelace area and area centroid in plane coordinates.
  double twice_area = 0, cx = 0, cy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Point a = p[i] - c0, b = p[(i + 1) % n] - c0;
    const double xa = dot(a, u), ya = dot(a, v), xb = dot(b, u), yb = dot(b, v);
    const double w = xa * yb - xb * ya;
    twice_area += w;
    cx += (xa + xb) * w;
    cy += (ya + yb) * w;
  }
  OpenEnd end{};
  end.centre = c0;
  // A loop enclosing (next to) no area, a slit, has no meaningful area centroid.
  if (std::fabs(twice_area) > 1e-9 * total * total)
    end.centre = c0 + (cx / (3 * twice_area)) * u + (cy / (3 * twice_area)) * v;
  end.area = 0.5 * std::fabs(twice_area);
  end.radius = std::sqrt(end.area / std::numbers::pi);
  end.edges = loop.size();
  double max_dist = 0;
  for (const Point& q : p) max_dist = std::max(max_dist, std::fabs(dot(q - end.centre, normal)));
  end.planarity = end.radius > 0 ? max_dist / end.radius : (max_dist > 0 ? std::numeric_limits<double>::infinity() : 0);

  // The wall next to the rim lies inside: the outward normal points away from it.
  std::vector<std::uint32_t> tris;
  for (std::size_t e : loop) tris.push_back(edges[e].triangle);
  std::sort(tris.begin(), tris.end());
  tris.erase(std::unique(tris.begin(), tris.end()), tris.end());
  Point wall{0, 0, 0};
  for (std::uint32_t t : tris) {
    const auto& tri = mesh.triangles[t];
    wall = wall + (1.0 / 3) * (mesh.vertices[tri[0]] + mesh.vertices[tri[1]] + mesh.vertices[tri[2]]);
  }
  wall = (1.0 / double(tris.size())) * wall;
  if (dot(wall - end.centre, normal) > 0) normal = -1.0 * normal;
  end.normal = normal;
  return end;
}

/// The order of openings: larger area first; NaN (from absurd coordinates) last instead
/// of breaking the ordering.
bool larger_area(const OpenEnd& a, const OpenEnd& b) {
  const auto key = [](const OpenEnd& e) { return std::isnan(e.area) ? -1.0 : e.area; };
  return key(a) > key(b);
}

std::string coordinate(double x, double scale = 1.0) { return fmt_g(x * scale, 6); }

std::string where(const Point& p) {
  return str("(", coordinate(p[0], 1e3), ", ", coordinate(p[1], 1e3), ", ", coordinate(p[2], 1e3), ") mm = (",
             coordinate(p[0]), ", ", coordinate(p[1]), ", ", coordinate(p[2]), ") m");
}

}  // namespace

SurfaceCheck check_surface(const TriangleMesh& mesh) {
  const EdgeCensus census = edge_census(mesh);
  SurfaceCheck check;
  check.boundary_edges = census.boundary.size();
  check.non_manifold_edges = census.non_manifold;
  // Examples spread over the surface, so that several holes are shown rather than five
  // neighbouring edges of one: first at least a quarter of the surface's size apart,
  // then a twentieth, then any other.
  const auto b = mesh.bounds();
  const Point diag = b[1] - b[0];
  const double size = std::sqrt(dot(diag, diag));
  for (const double spread : {0.25 * size, 0.05 * size, 0.0})
    for (EdgeKey e : census.boundary) {
      if (check.hole_examples.size() == 5) break;
      // Halves first: the sum of two coordinates near the largest double would overflow.
      const Point mid = 0.5 * mesh.vertices[edge_lo(e)] + 0.5 * mesh.vertices[edge_hi(e)];
      const bool far = std::all_of(check.hole_examples.begin(), check.hole_examples.end(), [&](const Point& q) {
        return std::sqrt(dot(mid - q, mid - q)) > spread;
      });
      if (far) check.hole_examples.push_back(mid);
    }
  return check;
}

std::size_t weld_rims(TriangleMesh& mesh, double tolerance) {
  const EdgeCensus census = edge_census(mesh);
  if (census.boundary.empty() || !(tolerance > 0)) return 0;
  std::vector<std::uint32_t> rim;
  for (EdgeKey e : census.boundary) rim.push_back(edge_lo(e)), rim.push_back(edge_hi(e));
  std::sort(rim.begin(), rim.end());
  rim.erase(std::unique(rim.begin(), rim.end()), rim.end());
  // A surface far from the origin beside its size has no bits left for a weld (and its
  // cell numbers would not fit an integer).
  for (std::uint32_t v : rim)
    for (double x : mesh.vertices[v])
      if (!(std::fabs(x) / tolerance < 0x1p52)) return 0;
  // Rim vertices binned by cells of the tolerance: a pair within it lies in neighbouring
  // cells. Each vertex goes to the lowest-numbered one within reach (union-find).
  const auto cell = [&](const Point& p) {
    return std::array<std::int64_t, 3>{std::int64_t(std::floor(p[0] / tolerance)), std::int64_t(std::floor(p[1] / tolerance)),
                                        std::int64_t(std::floor(p[2] / tolerance))};
  };
  const auto hash = [](const std::array<std::int64_t, 3>& c) {
    return std::uint64_t(c[0]) * 73856093u ^ std::uint64_t(c[1]) * 19349663u ^ std::uint64_t(c[2]) * 83492791u;
  };
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> bins;
  for (std::uint32_t v : rim) bins[hash(cell(mesh.vertices[v]))].push_back(v);
  std::unordered_map<std::uint32_t, std::uint32_t> parent;
  const auto find = [&](std::uint32_t v) {
    for (auto it = parent.find(v); it != parent.end() && it->second != v; it = parent.find(v)) v = it->second;
    return v;
  };
  for (std::uint32_t v : rim) parent[v] = v;
  for (std::uint32_t v : rim) {
    const auto c = cell(mesh.vertices[v]);
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = bins.find(hash({c[0] + dx, c[1] + dy, c[2] + dz}));
          if (it == bins.end()) continue;
          for (std::uint32_t w : it->second) {
            const Point d = mesh.vertices[w] - mesh.vertices[v];
            if (w == v || dot(d, d) > tolerance * tolerance) continue;
            const std::uint32_t a = find(v), b = find(w);
            if (a != b) parent[std::max(a, b)] = std::min(a, b);
          }
        }
  }
  std::size_t welded = 0;
  for (std::uint32_t v : rim) welded += find(v) != v;
  if (welded == 0) return 0;
  std::vector<std::array<std::uint32_t, 3>> kept;
  kept.reserve(mesh.triangles.size());
  for (auto tri : mesh.triangles) {
    for (std::uint32_t& v : tri)
      if (parent.count(v)) v = find(v);
    if (tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]) kept.push_back(tri);
  }
  // The vertices welded away (and those only collapsed triangles used) go; the others
  // keep their order.
  std::vector<std::uint32_t> index(mesh.vertices.size(), 0);
  for (const auto& tri : kept)
    for (std::uint32_t v : tri) index[v] = 1;
  std::vector<Point> vertices;
  for (std::size_t v = 0; v < index.size(); ++v)
    if (index[v]) index[v] = std::uint32_t(vertices.size()), vertices.push_back(mesh.vertices[v]);
  for (auto& tri : kept)
    for (std::uint32_t& v : tri) v = index[v];
  mesh.vertices = std::move(vertices);
  mesh.triangles = std::move(kept);
  return welded;
}

double weld_tolerance(const TriangleMesh& mesh) {
  if (mesh.vertices.empty()) return 0.0;
  const auto b = mesh.bounds();
  return 1e-6 * norm(b[1] - b[0]);
}

CappedSurface cap_open_ends(const TriangleMesh& mesh) {
  const EdgeCensus census = edge_census(mesh);
  if (census.boundary.empty())
    throw InputError(str(mesh.description, ": the surface is closed: there is no opening to cap"));
  if (census.non_manifold > 0)
    throw InputError(str(mesh.description, ": ", census.non_manifold, " non-manifold edges (edges of three or more "
                         "triangles): the openings cannot be told apart; repair the surface first"));
  const std::vector<BoundaryEdge> edges = boundary_edges(mesh, census.boundary);
  const auto loops = chain_loops(mesh, edges);
  struct Opening {
    OpenEnd end;
    const std::vector<std::size_t>* loop;
  };
  std::vector<Opening> openings;
  for (const auto& loop : loops) openings.push_back({fit_end(mesh, edges, loop), &loop});
  std::stable_sort(openings.begin(), openings.end(),
                   [](const Opening& a, const Opening& b) { return larger_area(a.end, b.end); });
  std::size_t rim_edges = 0;
  for (const Opening& o : openings) rim_edges += o.loop->size();
  if (rim_edges != edges.size())
    throw InputError(str(mesh.description, ": ", edges.size() - rim_edges, " of ", edges.size(), " boundary edges do "
                         "not close into loops around openings; repair the surface first"));
  CappedSurface out;
  out.closed = mesh;
  for (std::size_t i = 0; i < openings.size(); ++i) {
    const OpenEnd& e = openings[i].end;
    if (!(e.planarity <= cap_planarity_tolerance))
      throw InputError(str(mesh.description, ": opening ", i + 1, " of ", openings.size(), " (", e.edges,
                           " rim edges, radius ", fmt_g(e.radius * 1e3, 4), " mm, centre ", where(e.centre),
                           ") is not planar: its rim lies up to ", fmt_g(100 * e.planarity, 3), "% of its radius "
                           "from its plane (a flat cap needs at most ", fmt_g(100 * cap_planarity_tolerance, 2),
                           "%). Cut the vessel end with a plane in the meshing tool, then cap it"));
    // The fan: each rim edge, run against its wall triangle's direction, to the centre.
    TriangleMesh cap;
    cap.vertices.push_back(e.centre);
    std::unordered_map<std::uint32_t, std::uint32_t> local;
    const auto vertex = [&](std::uint32_t v) {
      const auto [it, added] = local.try_emplace(v, std::uint32_t(cap.vertices.size()));
      if (added) cap.vertices.push_back(mesh.vertices[v]);
      return it->second;
    };
    const auto centre = std::uint32_t(out.closed.vertices.size());
    out.closed.vertices.push_back(e.centre);
    for (std::size_t k : *openings[i].loop) {
      const BoundaryEdge& b = edges[k];
      out.closed.triangles.push_back({b.head, b.tail, centre});
      cap.triangles.push_back({vertex(b.head), vertex(b.tail), 0});
    }
    cap.description = str("cap ", i + 1, " of ", mesh.description);
    out.caps.push_back(std::move(cap));
    out.ends.push_back(e);
  }
  out.closed.description = str(mesh.description, ", ", openings.size(), " opening", openings.size() == 1 ? "" : "s",
                               " capped");
  return out;
}

void require_closed(const TriangleMesh& mesh) {
  const SurfaceCheck check = check_surface(mesh);
  if (check.boundary_edges == 0) return;
  std::string places;
  for (const Point& p : check.hole_examples) places += str("\n  near ", where(p));
  throw InputError(str(mesh.description, ": the surface is not closed: ", check.boundary_edges,
                       " boundary edges (edges of a single triangle) around holes",
                       check.non_manifold_edges > 0 ? str(", and ", check.non_manifold_edges, " non-manifold edges")
                                                    : std::string(),
                       "; for example", places,
                       "\nClose the holes: open vessel ends need flat caps, on which the iolets are placed. "
                       "`hemoflow mesh FILE.stl --cap CLOSED.stl` (with --unit as the file's) closes every planar "
                       "opening with a flat cap, writes each cap beside it and prints the iolets for them."));
}

std::vector<OpenEnd> find_open_ends(const TriangleMesh& mesh) {
  const EdgeCensus census = edge_census(mesh);
  const std::vector<BoundaryEdge> edges = boundary_edges(mesh, census.boundary);
  std::vector<OpenEnd> ends;
  for (const auto& loop : chain_loops(mesh, edges)) ends.push_back(fit_end(mesh, edges, loop));
  sort_by_area(ends);
  return ends;
}

void sort_by_area(std::vector<OpenEnd>& ends) { std::stable_sort(ends.begin(), ends.end(), larger_area); }

}  // namespace hemo::geometry
