// make_pipe_surface and pipe_cap (stl.hpp): a triangulated pipe wall, e.g. tilted off
// the lattice axes or tapered, and its end caps as files of their own, for validation
// cases and tests that need a surface hemoflow can regenerate exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/geometry/stl.hpp"

namespace hemo::geometry {

TriangleMesh make_pipe_surface(const Point& centre, const Point& axis, double radius, double length, int segments,
                               bool capped, double end_radius) {
  const double axis_len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  if (!(axis_len > 0) || !std::isfinite(axis_len)) throw InputError("pipe surface: the axis must be a non-zero vector");
  if (end_radius == 0.0) end_radius = radius;
  if (!(radius > 0) || !(end_radius > 0) || !(length > 0) || !std::isfinite(radius) || !std::isfinite(end_radius) ||
      !std::isfinite(length))
    throw InputError(str("pipe surface: radii (", radius, ", ", end_radius, ") and length (", length,
                         ") must be positive"));
  if (segments < 3) throw InputError(str("pipe surface: needs at least 3 segments around, got ", segments));
  const double r_min = std::min(radius, end_radius);
  const double rings_d = std::max(1.0, std::round(length / (2 * std::numbers::pi * r_min / segments)));
  if (rings_d * segments > 5e8) throw InputError("pipe surface: more than 5e8 vertices requested");
  const int intervals = static_cast<int>(rings_d);

  // Right-handed frame (e1, e2, a): e1 x e2 = a, so that increasing angle runs
  // counter-clockwise seen from +a and the triangle orders below face outwards.
  const Point a{axis[0] / axis_len, axis[1] / axis_len, axis[2] / axis_len};
  int least = 0;
  for (int i = 1; i < 3; ++i)
    if (std::fabs(a[i]) < std::fabs(a[least])) least = i;
  Point e1{0, 0, 0};
  e1[least] = 1.0;
  const double d = e1[0] * a[0] + e1[1] * a[1] + e1[2] * a[2];
  for (int i = 0; i < 3; ++i) e1[i] -= d * a[i];
  const double e1_len = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (double& x : e1) x /= e1_len;
  const Point e2{a[1] * e1[2] - a[2] * e1[1], a[2] * e1[0] - a[0] * e1[2], a[0] * e1[1] - a[1] * e1[0]};

  TriangleMesh mesh;
  const auto ring_vertex = [&](int ring, int j) { return static_cast<std::uint32_t>(ring * segments + (j % segments)); };
  for (int k = 0; k <= intervals; ++k) {
    const double t = -0.5 * length + length * k / intervals;
    const double r = k == intervals ? end_radius : radius + (end_radius - radius) * k / intervals;
    for (int j = 0; j < segments; ++j) {
      const double th = 2 * std::numbers::pi * j / segments, c = std::cos(th), s = std::sin(th);
      mesh.vertices.push_back({centre[0] + t * a[0] + r * (c * e1[0] + s * e2[0]),
                               centre[1] + t * a[1] + r * (c * e1[1] + s * e2[1]),
                               centre[2] + t * a[2] + r * (c * e1[2] + s * e2[2])});
    }
  }
  for (int k = 0; k < intervals; ++k)
    for (int j = 0; j < segments; ++j) {
      // (tangential edge) x (axial edge) = radial: outward.
      mesh.triangles.push_back({ring_vertex(k, j), ring_vertex(k, j + 1), ring_vertex(k + 1, j)});
      mesh.triangles.push_back({ring_vertex(k, j + 1), ring_vertex(k + 1, j + 1), ring_vertex(k + 1, j)});
    }
  if (capped) {
    for (int end = 0; end < 2; ++end) {
      const double t = end == 0 ? -0.5 * length : 0.5 * length;
      const auto hub = static_cast<std::uint32_t>(mesh.vertices.size());
      mesh.vertices.push_back({centre[0] + t * a[0], centre[1] + t * a[1], centre[2] + t * a[2]});
      const int ring = end == 0 ? 0 : intervals;
      for (int j = 0; j < segments; ++j) {
        // Counter-clockwise about +a faces +a: right for the far end, reversed for the near one.
        if (end == 1) mesh.triangles.push_back({hub, ring_vertex(ring, j), ring_vertex(ring, j + 1)});
        else mesh.triangles.push_back({hub, ring_vertex(ring, j + 1), ring_vertex(ring, j)});
      }
    }
  }
  mesh.description = str("pipe surface (radius ", radius, " m",
                         end_radius != radius ? str(" to ", end_radius, " m") : std::string(), ", length ", length,
                         " m, ", segments, " segments, ", capped ? "capped" : "open", ")");
  return mesh;
}

TriangleMesh pipe_cap(const TriangleMesh& capped_pipe, int segments, int end) {
  const std::size_t n = std::size_t(std::max(segments, 0));
  if (n < 3 || capped_pipe.triangles.size() < 2 * n || (end != 0 && end != 1))
    throw std::invalid_argument(str("pipe_cap: end ", end, " of a capped pipe of ", segments, " segments"));
  // The caps are the last 2 * segments triangles, end 0 first (make_pipe_surface).
  const std::size_t first = capped_pipe.triangles.size() - (2 - std::size_t(end)) * n;
  TriangleMesh cap;
  std::vector<std::uint32_t> index(capped_pipe.vertices.size(), UINT32_MAX);
  for (std::size_t t = first; t < first + n; ++t) {
    std::array<std::uint32_t, 3> tri{};
    for (int c = 0; c < 3; ++c) {
      std::uint32_t& v = index[capped_pipe.triangles[t][c]];
      if (v == UINT32_MAX) {
        v = static_cast<std::uint32_t>(cap.vertices.size());
        cap.vertices.push_back(capped_pipe.vertices[capped_pipe.triangles[t][c]]);
      }
      tri[c] = v;
    }
    cap.triangles.push_back(tri);
  }
  cap.description = str("cap ", end, " of ", capped_pipe.description);
  return cap;
}

}  // namespace hemo::geometry
