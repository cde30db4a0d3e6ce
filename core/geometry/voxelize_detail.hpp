#pragma once
// Private to the voxelizer (voxelize.cpp, voxelize_rays.cpp, voxelize_distance.cpp):
// the exact ray-crossing machinery behind the inside test, and the nearest-triangle tree
// behind the distances.
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/geometry/triangle_mesh.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry::detail {

/// Rays parallel to +z through the columns of a voxel box. Voxel column (i, j) holds
/// subsamples^2 rays, at x = origin + (i + (s + 1/2) / subsamples) dx (same for y), and a
/// centre ray at x = origin + (i + 1/2) dx.
///
/// Why rays and parity: a point is inside a closed surface iff a ray from it crosses the
/// surface an odd number of times, whatever the triangles' orientation (which we do not
/// trust: TriangleMesh). One ray along z answers the question for every point of a
/// voxel column at once, so a column costs O(triangles near it) rather than a 3-D query
/// per subsample. The generalised winding number, the other robust choice, needs the
/// orientation we do not trust, and costs a (hierarchical) sum over triangles per point.
///
/// Why it is exact: x and y of the vertices are snapped to an integer lattice of pitch
/// dx / (2 subsamples 2^m), ~1e-6 dx, on which every ray lies exactly, so "is the ray
/// inside this triangle's xy projection" is decided by integer orientation tests with no
/// rounding. A ray through an edge or a vertex is decided by symbolic perturbation (the
/// ray moved by (eps, eps^2)): each edge then puts the ray on exactly one side, the same
/// for the two triangles sharing it, so a ray through a shared edge or vertex is counted
/// exactly once, and triangles seen edge-on (zero projected area) never. Snapping moves
/// shared vertices identically, so a closed surface stays closed.
class ZRays {
 public:
  ZRays(const TriangleMesh& mesh, const std::array<double, 3>& origin, double dx, const std::array<int, 3>& dims,
        int subsamples);

  int subsamples() const { return subsamples_; }
  /// Lattice x (or y) of subsample ray s in 0..subsamples-1 of column i.
  std::int64_t ray_coordinate(int i, int s) const { return (2 * std::int64_t(subsamples_) * i + 2 * s + 1) * scale_; }
  /// Lattice x (or y) of the centre ray of column i.
  std::int64_t centre_coordinate(int i) const { return (2 * std::int64_t(subsamples_) * i + subsamples_) * scale_; }

  /// The triangles whose xy bounding box touches column (i, j) (closed square), ascending.
  void column_candidates(int i, int j, std::vector<std::uint32_t>& out) const;
  /// Heights (voxel units above origin z) where the ray at lattice (x, y) crosses the
  /// surface, ascending, taken from `candidates` (which must include every triangle whose
  /// box touches the ray).
  void crossings(const std::vector<std::uint32_t>& candidates, std::int64_t x, std::int64_t y,
                 std::vector<double>& out) const;
  /// Voxel layers k0..k1 of column (i, j) that triangle t may cut (its plane over the
  /// column, clipped to its z range); k0 > k1 when none.
  void layers_cut(std::uint32_t t, int i, int j, int& k0, int& k1) const;

 private:
  struct Tri {
    std::array<std::int64_t, 3> x, y;  // snapped lattice coordinates, vertices in index order
    std::array<double, 3> z;           // voxel units above origin z
    std::int64_t xmin, xmax, ymin, ymax;
    double zmin, zmax;
    double z0, zx, zy;  // plane z = z0 + zx x + zy y (voxel units), when area_sign != 0
    int area_sign;      // sign of the projected area; 0: seen edge-on, never crossed
  };
  std::array<int, 3> dims_;
  int subsamples_;
  std::int64_t scale_;   // lattice units per (dx / (2 subsamples))
  std::int64_t column_;  // lattice units per dx
  std::vector<Tri> tris_;
  int bin_width_ = 4;  // columns per bin side
  int bins_x_ = 0, bins_y_ = 0;
  std::vector<std::uint32_t> bin_start_, bin_tris_;
};

/// Squared distance from p to triangle (a, b, c), by the closest-point region method
/// (Ericson, Real-Time Collision Detection, 5.1.5); degenerate triangles fall back to
/// their edges.
double point_triangle_distance2(const Point& p, const Point& a, const Point& b, const Point& c);

/// Median-split bounding-box tree over the triangles, for nearest-triangle queries.
class TriangleBvh {
 public:
  explicit TriangleBvh(const TriangleMesh& mesh);
  /// Squared distance from p to the nearest triangle, or `limit2` if none is nearer.
  /// With stop2 > 0 the search ends at the first triangle nearer than sqrt(stop2): a
  /// result below stop2 is then only an upper bound, one at or above it is exact.
  double distance2(const Point& p, double limit2 = std::numeric_limits<double>::infinity(), double stop2 = 0.0) const {
    return nearest(p, limit2, stop2).distance2;
  }
  /// The same search, also naming the triangle (its index in the mesh; -1: none nearer
  /// than sqrt(limit2)); of equally near triangles, the first the search meets.
  struct Nearest {
    double distance2;
    std::int64_t triangle;
  };
  Nearest nearest(const Point& p, double limit2 = std::numeric_limits<double>::infinity(), double stop2 = 0.0) const;
  /// The first point where the segment a -> b meets a triangle, as t in [0, 1] (a + t (b
  /// - a)), or a negative value where it meets none. Moller-Trumbore in double, with a
  /// barycentric slack of 1e-9 so that a segment through a shared edge or vertex is not
  /// lost between its triangles; a triangle seen edge-on is skipped (its neighbours are met).
  double first_hit(const Point& a, const Point& b) const;
  /// The triangles (their positions in the tree, for first_hit below) whose bounding box
  /// comes within `radius` of p: every triangle a segment from p of that length can meet.
  void near(const Point& p, double radius, std::vector<std::uint32_t>& out) const;
  /// first_hit over `candidates` only (from near()): the links of one voxel share one
  /// tree search.
  double first_hit(const Point& a, const Point& b, const std::vector<std::uint32_t>& candidates) const;

 private:
  struct Node {
    std::array<double, 3> lo, hi;
    std::uint32_t first;  // leaf: first triangle; inner: left child (right is first + 1)
    std::uint32_t count;  // leaf: triangle count; inner: 0
  };
  void build(std::uint32_t node, std::vector<std::uint32_t>& order, std::uint32_t begin, std::uint32_t end,
             const std::vector<Point>& centroid);
  std::vector<Node> nodes_;
  std::vector<std::array<Point, 3>> tris_;  // in tree order
  std::vector<std::uint32_t> mesh_index_;  // of each triangle in tree order: its index in the mesh
};

/// The largest distance from the surface of a fluid voxel centre that lies inside the
/// surface (exact over voxel centres, by branch and bound on blocks: the distance is
/// 1-Lipschitz, so a block cannot beat its centre's distance plus its half diagonal).
/// Over the voxels grid holds (its window): the maximum over several windows is that over
/// their union. `rays` must be built on grid's box, `bvh` on the surface. 0 when no held
/// fluid voxel centre is inside.
double largest_inside_distance(const TriangleBvh& bvh, const VoxelGrid& grid, const ZRays& rays);

/// Fills P (solid_fraction) and the fluid flags of the voxels grid holds (its window)
/// from the rays (voxelize.hpp says how); grid.fluid and grid.solid_fraction must be
/// allocated for the window. Returns how many of the rays it cast cross the surface an
/// odd number of times (> 0: the surface is not closed). Results do not depend on the
/// number of OpenMP threads, nor on the window: a voxel gets the same P in any window.
std::int64_t fill_window(const ZRays& rays, VoxelGrid& grid);

/// Whether the centre of voxel (i, j, k) is inside the surface (centre ray of column i, j).
bool centre_inside(const ZRays& rays, int i, int j, int k);

/// centre_inside for every voxel of window w (any window of the box), one crossing list
/// per column: 1 inside, at w.offset(i, j, k).
std::vector<std::uint8_t> centre_inside_window(const ZRays& rays, const VoxelWindow& w);

}  // namespace hemo::geometry::detail
