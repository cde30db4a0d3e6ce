#pragma once
// Vector algebra on geometry::Point (metres), for the surface tools: the STL checks, the
// cap fitting and the voxelizer's distances.
#include <cmath>

#include "core/geometry/triangle_mesh.hpp"

namespace hemo::geometry {

inline Point operator-(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Point operator+(const Point& a, const Point& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline Point operator*(double s, const Point& a) { return {s * a[0], s * a[1], s * a[2]}; }
inline double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline double norm(const Point& a) { return std::sqrt(dot(a, a)); }
inline Point cross(const Point& a, const Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline Point unit(const Point& a) { return (1.0 / norm(a)) * a; }

}  // namespace hemo::geometry
