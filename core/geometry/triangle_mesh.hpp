#pragma once
// A triangulated surface (a vessel wall from an STL file, or one hemoflow generates), in
// metres. Shared by the STL reader/writer (stl.hpp), the surface checks and iolet finder
// (surface.hpp) and the voxelizer (voxelize.hpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hemo::geometry {

using Point = std::array<double, 3>;

struct TriangleMesh {
  /// Vertex positions, m. The STL reader merges vertices that are bitwise equal after
  /// unit scaling, so that triangles sharing an edge share its two vertex indices.
  std::vector<Point> vertices;
  /// Vertex indices of each triangle. Their order (orientation) is not trusted by any
  /// consumer: the inside test and the solid fraction do not depend on it.
  std::vector<std::array<std::uint32_t, 3>> triangles;
  /// Where it came from, for messages ("aorta.stl (binary, 120000 triangles, mm)").
  std::string description;

  std::size_t size() const { return triangles.size(); }
  /// Axis-aligned bounding box {min, max}, m. Undefined for an empty mesh.
  std::array<Point, 2> bounds() const;
};

}  // namespace hemo::geometry
