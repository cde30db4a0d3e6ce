#pragma once
// Voxelization of a closed triangulated surface (a vessel wall) into the volumetric
// parameter P of the VLBM paper (seeds/000, sec. 2.2): P is the solid share of a voxel,
// 1 solid, 0 fluid, between for the boundary voxels, estimated from subsamples^3 points
// per voxel (the paper uses 8^3). The surface's triangle orientation is not used.
#include <cstdint>
#include <vector>

#include "core/geometry/triangle_mesh.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry {

struct VoxelizeOptions {
  double dx;  // voxel edge, m
  int subsamples = 8;  /* per axis: P from subsamples^3 points */
  std::int64_t max_voxels;
  int margin = 1;  /* voxels of solid around the bounding box */
};

/// Voxels of the box voxelize() would allocate: the mesh bounds plus `margin` voxels on
/// every side, at spacing dx. Saturates at INT64_MAX instead of overflowing.
std::int64_t estimate_voxels(const TriangleMesh& mesh, const VoxelizeOptions& options);

/// Throws InputError when the options are unusable (dx <= 0, subsamples outside 1..64,
/// margin < 0, empty or non-finite mesh) or when the box has more than max_voxels voxels;
/// the latter message gives the estimate, the dims, the bytes it would need and a dx that
/// would fit. Allocates nothing; voxelize() calls it first.
void check_voxelize_options(const TriangleMesh& mesh, const VoxelizeOptions& options);

/// The box is the mesh bounds plus `margin` voxels, origin at its lower corner. Fills
/// solid_fraction (P) for every voxel and fluid = (P < 1), the characteristic length
/// (twice the largest distance from the surface of an inside voxel centre: the diameter
/// of the largest inscribed ball, to a voxel) and a description. Throws InputError for a
/// surface that is not closed (a ray crossing it an odd number of times).
/// Results do not depend on the number of OpenMP threads.
VoxelGrid voxelize(const TriangleMesh& mesh, const VoxelizeOptions& options);

/// The box voxelize() fills (dims, origin, dx), without voxels: check_voxelize_options
/// first. detail::fill_window (voxelize_detail.hpp) fills any window of it, so that a
/// rank of a many-rank run voxelizes only its part (core/geometry/shapes.hpp).
VoxelGrid voxel_box(const TriangleMesh& mesh, const VoxelizeOptions& options);

/// The checks and the description voxelize() makes, for callers that voxelize window by
/// window and total the counts: InputError for rays that cross the surface an odd number
/// of times (not closed) and for a surface that encloses no fluid voxel.
void require_closed_rays(const TriangleMesh& mesh, std::int64_t odd_rays);
void require_fluid(const TriangleMesh& mesh, const VoxelGrid& box, std::int64_t fluid);
std::string describe_voxelized(const TriangleMesh& mesh, const VoxelGrid& box, int subsamples, std::int64_t fluid);

/// Signed distance (m) from each voxel centre of `grid` to the surface, + inside and
/// - outside (the paper's phi, sec. 2.2): exact (nearest point on the nearest triangle)
/// where it is below `band`, +-band elsewhere. Index as VoxelGrid::index. Separate from
/// voxelize() so that voxelizing does not pay for a distance field. The mesh must be the
/// closed surface `grid` was voxelized from (voxelize() checks closedness, this does not).
std::vector<float> signed_distance(const TriangleMesh& mesh, const VoxelGrid& grid, double band);

/// Distance (m) from p to the nearest point of the surface: exact, by a pass over every
/// triangle (for a few points; signed_distance serves grids).
double distance_to_surface(const TriangleMesh& mesh, const Point& p);

/// The surface's point nearest to each of `points`, searched within `limit` (m): its
/// distance and the unit normal of the triangle it lies on, oriented as the triangle is
/// stored (not trusted: a caller orients it); distance infinity and normal zero where no
/// triangle lies within `limit`. A bounding-volume tree over the triangles, OpenMP over
/// the points; the same answer for any thread count. `triangle` is the nearest triangle's
/// index in the mesh (-1 where none is within `limit`).
struct SurfacePoint {
  double distance;
  Point normal;
  std::int64_t triangle = -1;
};
std::vector<SurfacePoint> nearest_surface(const TriangleMesh& mesh, const std::vector<Point>& points, double limit);

}  // namespace hemo::geometry
