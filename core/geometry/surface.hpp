#pragma once
// Checks on a triangulated vessel wall: is it closed (no holes), is every edge shared by
// exactly two triangles; and, for a surface left open where the vessel was cut, where
// the cuts are (the candidate inlets and outlets), as a block of case file to paste.
#include <cstddef>
#include <string>
#include <vector>

#include "core/geometry/triangle_mesh.hpp"

namespace hemo::geometry {

struct SurfaceCheck {
  std::size_t boundary_edges = 0;      // edges of one triangle only: the rims of holes
  std::size_t non_manifold_edges = 0;  // edges of three or more triangles
  std::vector<Point> hole_examples;    // up to 5 midpoints of boundary edges, m, spread out
};

/// Counts the triangles on every undirected edge.
SurfaceCheck check_surface(const TriangleMesh& mesh);

/// Throws InputError if the surface has holes, with their number of boundary edges and
/// some places (mm and m) where they are.
void require_closed(const TriangleMesh& mesh);

/// One open end of a surface: a loop of boundary edges, with its fitted plane.
struct OpenEnd {
  Point centre;       // area centroid of the loop projected on its plane, m
  Point normal;       // unit, pointing out of the enclosed volume
  double radius;      // sqrt(area / pi), m
  double area;        // area enclosed by the projected loop, m^2
  std::size_t edges;  // boundary edges in the loop
  double planarity;   // max |distance| of loop points from the plane / radius
};

/// The loops of boundary edges, each fitted with a plane, sorted by decreasing area.
std::vector<OpenEnd> find_open_ends(const TriangleMesh& mesh);

/// [[boundaries.iolet]] tables for the ends (name, center, outward normal, radius), with
/// the area and planarity as comments and the condition left for the user to choose.
std::string open_ends_toml(const std::vector<OpenEnd>& ends);

}  // namespace hemo::geometry
