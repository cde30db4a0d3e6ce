#pragma once
// Checks on a triangulated vessel wall: is it closed (no holes), is every edge shared by
// exactly two triangles; and, for a surface left open where the vessel was cut, where
// the cuts are (the candidate inlets and outlets), as a block of case file to paste.
// A closed surface gives its openings through cap files instead: caps.hpp.
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

/// One opening of a vessel surface with its fitted plane: an open end (a loop of
/// boundary edges, find_open_ends) or the cap that closes it (caps.hpp, fit_caps).
struct OpenEnd {
  Point centre;       // area centroid of the loop projected on its plane (of the cap), m
  Point normal;       // unit, pointing out of the enclosed volume
  double radius;      // sqrt(area / pi), m
  double area;        // area enclosed by the projected loop (of the cap's triangles), m^2
  std::size_t edges;  // boundary edges in the loop (on the cap's rim)
  double planarity;   // max |distance| of loop (cap) points from the plane / radius
  std::string name = {};    // suggested iolet name; empty: "inlet" or "outlet<i>" by rank
  std::string source = {};  // the cap file it was fitted to; empty for an open end
};

/// The loops of boundary edges, each fitted with a plane, sorted by decreasing area.
std::vector<OpenEnd> find_open_ends(const TriangleMesh& mesh);

/// Largest area first, keeping the order of equal areas (NaN last): the order in which
/// open_ends_toml suggests the inlet.
void sort_by_area(std::vector<OpenEnd>& ends);

/// Welds the vertices on the rims of holes (ends of boundary edges) that lie within
/// `tolerance` (m) of another rim vertex, so that a surface whose seams differ in the last
/// bits of their coordinates (a revolved profile closed at 2 pi, two patches exported
/// apart) is closed. Vertices elsewhere are left alone, so a closed surface is unchanged
/// bit for bit. Triangles that collapse are dropped. Returns the number of rim vertices
/// merged into another.
std::size_t weld_rims(TriangleMesh& mesh, double tolerance);

/// The weld tolerance for a surface: a millionth of its bounding box's diagonal (0.07 um
/// for a 70 mm coronary tree, far above float rounding at that size, far below any
/// vessel's detail).
double weld_tolerance(const TriangleMesh& mesh);

/// A surface whose openings are closed by flat caps, and each cap as a surface of its own
/// (as meshing tools export them), in the order of `ends` (largest first).
struct CappedSurface {
  TriangleMesh closed;
  std::vector<TriangleMesh> caps;
  std::vector<OpenEnd> ends;
};

/// Closes every opening (loop of boundary edges) by a fan of triangles from the loop's
/// area centroid, wound as the wall's triangles next to it. Throws InputError where an
/// opening is not planar within cap_planarity_tolerance of its radius (caps.hpp; saying
/// where and by how much: a flat cap on a slanted or ragged cut would bend the vessel),
/// where the surface has no opening, or non-manifold edges.
CappedSurface cap_open_ends(const TriangleMesh& mesh);

/// [[boundaries.iolet]] tables for the openings (name, center, outward normal, radius),
/// in the given order (largest first), with the area, planarity and cap file as
/// comments. The first is suggested as the inlet (a parabolic velocity profile whose
/// velocity is left for the user to fill in), the others as outlets at zero pressure.
/// (Implemented in openings_toml.cpp.)
std::string open_ends_toml(const std::vector<OpenEnd>& ends);

}  // namespace hemo::geometry
