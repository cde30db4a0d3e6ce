#pragma once
// Helpers shared by the unit tests of surfaces (test_stl, test_caps): exact volumes and
// polygon areas of generated pipes.
#include <cmath>
#include <numbers>

#include "core/geometry/point.hpp"

namespace hemo::test {

/// Divergence theorem: the sum of the signed volumes of the tetrahedra (origin, triangle).
inline double enclosed_volume(const geometry::TriangleMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles)
    v += geometry::dot(m.vertices[t[0]], geometry::cross(m.vertices[t[1]], m.vertices[t[2]])) / 6;
  return v;
}

/// Area of the regular n-gon inscribed in a circle of radius r, as a circle's radius.
inline double polygon_radius(double r, int n) {
  return r * std::sqrt(std::sin(2 * std::numbers::pi / n) * n / (2 * std::numbers::pi));
}

}  // namespace hemo::test
