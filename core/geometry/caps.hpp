#pragma once
// The openings of a CLOSED vessel surface, from its cap files. Meshing tools (VMTK,
// gmsh, ...) export the closed surface and one planar cap per opening, whose triangles
// are also triangles of the closed surface. Each cap is fitted with a plane, checked to
// be planar and to lie on the surface, and its normal is turned to point out of the
// fluid by the voxelizer's inside test (exact ray parity): the triangles' winding is
// never trusted. `hemoflow mesh SURFACE.stl --find-iolets --caps CAP.stl...` prints the
// result as [[boundaries.iolet]] tables (open_ends_toml), as it does for open ends.
#include <string>
#include <vector>

#include "core/geometry/surface.hpp"
#include "core/geometry/triangle_mesh.hpp"

namespace hemo::geometry {

/// A cap is refused when a vertex lies farther than this share of its radius from its
/// plane. Caps cut by a plane are flat to rounding (the patient caps in the test data:
/// 3e-7 of the units); 1% still places the iolet's disc within a hundredth of a radius.
inline constexpr double cap_planarity_tolerance = 0.01;
/// A cap is on the surface when its centroid lies within this share of its radius from
/// the surface's nearest triangle. The cap's own triangles are part of the surface, so a
/// cap of this surface, in the same unit, lies at a distance of rounding.
inline constexpr double cap_on_surface_tolerance = 0.03;

/// One cap file, read in the same unit as the surface.
struct CapFile {
  std::string path;   // as given, for messages and the tables' comments
  TriangleMesh mesh;
};

/// The plane of one cap: the area-weighted centroid and normal of its triangles (each
/// triangle's normal counted with the sign that agrees with the largest triangle's, so
/// that the winding does not matter; the result's sign is arbitrary), radius
/// sqrt(area / pi), its rim edges and planarity; source = the cap's path. Throws
/// InputError naming the file for a cap that is not one patch with one rim, or not
/// planar within cap_planarity_tolerance (saying by how much).
OpenEnd fit_cap_plane(const CapFile& cap);

/// Every cap fitted (fit_cap_plane) and checked to lie on `surface`, which must be
/// closed; each normal turned to point out of the fluid (orient_out_of_fluid); each
/// named after its file (letters, digits, '_' and '-'; unique); sorted by decreasing
/// area. Throws InputError naming the cap file for a cap that is off the surface, the
/// same opening as another cap, or one whose fluid side cannot be told.
std::vector<OpenEnd> fit_caps(const TriangleMesh& surface, const std::vector<CapFile>& caps);

/// Flips the normals of `openings` (planes of openings of the closed `surface`) that
/// point into the fluid. The surface is voxelized (ray parity, so the winding is not
/// used) at dx = (smallest radius) / 6, coarser if the box would exceed 2^25 voxels but
/// not beyond radius / 2; the voxels 2 and 3 spacings from each centre along -normal
/// must both be fluid and those along +normal both not, or the other way round (then
/// the normal is flipped). Anything else is an InputError naming the opening's source.
void orient_out_of_fluid(const TriangleMesh& surface, std::vector<OpenEnd>& openings);

}  // namespace hemo::geometry
