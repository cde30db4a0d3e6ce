#include "core/geometry/caps.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <numbers>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/geometry/point.hpp"
#include "core/geometry/voxelize.hpp"
#include "core/geometry/voxelize_detail.hpp"

namespace hemo::geometry {

namespace {


std::string mm(double metres) { return fmt_g(metres * 1e3, 4) + " mm"; }
std::string percent(double share) { return fmt_g(100 * share, 3) + "%"; }
std::string where(const Point& p) { return str("(", mm(p[0]), ", ", mm(p[1]), ", ", mm(p[2]), ")"); }

/// Area vector (normal times area) of triangle t.
Point area_vector(const TriangleMesh& m, const std::array<std::uint32_t, 3>& t) {
  return 0.5 * cross(m.vertices[t[1]] - m.vertices[t[0]], m.vertices[t[2]] - m.vertices[t[0]]);
}

/// A cap must be one disc-like patch: exactly one rim (boundary loop), no edge of more
/// than two triangles. Returns the rim's edge count.
std::size_t require_one_rim(const CapFile& cap) {
  const SurfaceCheck check = check_surface(cap.mesh);
  if (check.non_manifold_edges > 0)
    throw InputError(str(cap.path, ": the cap has ", check.non_manifold_edges,
                         " edges shared by three or more triangles; a cap is one flat patch that closes one opening"));
  const std::vector<OpenEnd> rims = find_open_ends(cap.mesh);
  if (rims.empty())
    throw InputError(str(cap.path, ": the cap is a closed surface (it has no rim); a cap is the flat patch that "
                         "closes one opening of the vessel surface"));
  if (rims.size() > 1)
    throw InputError(str(cap.path, ": the cap has ", rims.size(), " rims (boundary loops): several caps in one file, or "
                         "a cap with a hole; give each opening's cap as a file of its own"));
  return rims[0].edges;
}

/// An iolet name from the cap's file name: its stem, with anything but letters, digits,
/// '_' and '-' turned into '_'.
std::string name_from_path(const std::string& path) {
  std::string name = std::filesystem::path(path).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return name.empty() ? std::string("cap") : name;
}

/// Unique names: a second "cap" becomes "cap_2", and so on.
void name_openings(std::vector<OpenEnd>& openings) {
  for (std::size_t i = 0; i < openings.size(); ++i) {
    const std::string base = name_from_path(openings[i].source);
    std::string name = base;
    for (int k = 2; std::any_of(openings.begin(), openings.begin() + std::ptrdiff_t(i),
                                [&](const OpenEnd& o) { return o.name == name; });
         ++k)
      name = str(base, "_", k);
    openings[i].name = name;
  }
}

/// The inside test of the caps' probes: rays along z through the columns of a voxel box
/// of a sixth of the smallest cap's radius over the surface (so that the probes 2 and 3
/// spacings from a centre lie well inside its disc's cylinder), cast only through the
/// probes' columns (detail::centre_inside). Nothing box-wide is allocated: the memory is
/// the triangles and their binning by columns, so a 70 mm tree with caps of 0.35 mm
/// radius (1,200^3 such voxels) costs what its triangles cost.
class ProbeInside {
 public:
  ProbeInside(const TriangleMesh& surface, double smallest_radius, const std::string& smallest_source)
      : box_(box_of(surface, smallest_radius, smallest_source)), rays_(surface, box_.origin, box_.dx, box_.dims, 1) {}
  double dx() const { return box_.dx; }
  /// Whether the centre of the voxel holding p is inside the surface (outside the box: not).
  bool fluid_at(const Point& p) const {
    int ijk[3];
    for (int a = 0; a < 3; ++a) {
      const double f = std::floor((p[a] - box_.origin[a]) / box_.dx);
      if (!(f >= 0 && f < box_.dims[a])) return false;
      ijk[a] = int(f);
    }
    return detail::centre_inside(rays_, ijk[0], ijk[1], ijk[2]);
  }

 private:
  /// A margin of 4 keeps the probes beyond a cap on the box's face inside the box.
  static VoxelGrid box_of(const TriangleMesh& surface, double smallest_radius, const std::string& smallest_source) {
    constexpr std::int64_t columns = std::int64_t(1) << 20;  // per axis: rays on a lattice of 2^40 per axis
    const VoxelizeOptions options{smallest_radius / 6, 1, std::numeric_limits<std::int64_t>::max(), 4};
    const auto b = surface.bounds();
    for (int a = 0; a < 3; ++a)
      if (!((b[1][a] - b[0][a]) / options.dx + 8 < double(columns)))
        throw InputError(str(smallest_source, ": the cap is too small beside the surface to tell its fluid side: its "
                             "radius ", mm(smallest_radius), " is less than 6 / 2^20 of the surface's extent"));
    return voxel_box(surface, options);
  }
  VoxelGrid box_;
  detail::ZRays rays_;
};

}  // namespace

OpenEnd fit_cap_plane(const CapFile& cap) {
  const TriangleMesh& m = cap.mesh;
  if (m.triangles.empty()) throw InputError(str(cap.path, ": the cap has no triangles"));
  // Each triangle's area vector, counted with the sign that agrees with the largest one:
  // for a flat cap the sum is the area times the normal, whatever each triangle's winding.
  std::size_t largest = 0;
  for (std::size_t t = 1; t < m.triangles.size(); ++t)
    if (norm(area_vector(m, m.triangles[t])) > norm(area_vector(m, m.triangles[largest]))) largest = t;
  const Point reference = area_vector(m, m.triangles[largest]);
  Point sum{0, 0, 0}, moment{0, 0, 0};
  double area = 0;
  for (const auto& t : m.triangles) {
    const Point a = area_vector(m, t);
    const double at = norm(a);
    sum = sum + (dot(a, reference) >= 0 ? 1.0 : -1.0) * a;
    area += at;
    moment = moment + (at / 3) * (m.vertices[t[0]] + m.vertices[t[1]] + m.vertices[t[2]]);
  }
  if (!(area > 0) || !(norm(sum) > 0) || !std::isfinite(area))
    throw InputError(str(cap.path, ": the cap encloses no area (its triangles are degenerate or fold onto each other)"));
  OpenEnd end{};
  end.source = cap.path;
  end.area = area;
  end.radius = std::sqrt(area / std::numbers::pi);
  end.centre = (1 / area) * moment;
  end.normal = (1 / norm(sum)) * sum;
  end.edges = require_one_rim(cap);
  double farthest = 0;
  for (const auto& t : m.triangles)
    for (const std::uint32_t v : t) farthest = std::max(farthest, std::fabs(dot(m.vertices[v] - end.centre, end.normal)));
  end.planarity = farthest / end.radius;
  if (end.planarity > cap_planarity_tolerance)
    throw InputError(str(cap.path, ": the cap is not planar: its vertices lie up to ", mm(farthest),
                         " from its fitted plane, ", percent(end.planarity), " of its radius (", mm(end.radius),
                         "); a cap must be flat to ", percent(cap_planarity_tolerance),
                         " of its radius (the plane where the vessel was cut)"));
  return end;
}

std::vector<OpenEnd> fit_caps(const TriangleMesh& surface, const std::vector<CapFile>& caps) {
  require_closed(surface);
  std::vector<OpenEnd> openings;
  for (const CapFile& cap : caps) {
    OpenEnd end = fit_cap_plane(cap);
    const double off = distance_to_surface(surface, end.centre);
    if (!(off <= cap_on_surface_tolerance * end.radius))
      throw InputError(str(cap.path, ": the cap is not on the surface ", surface.description, ": its centre ",
                           where(end.centre), " lies ", mm(off), " from it, ", percent(off / end.radius),
                           " of the cap's radius (", mm(end.radius), "; at most ",
                           percent(cap_on_surface_tolerance), "). Is it a cap of this surface, in the same unit?"));
    // Two caps of one opening (a file given twice, or by a pattern too) have the same
    // centre, to rounding.
    for (const OpenEnd& other : openings)
      if (norm(end.centre - other.centre) <= cap_on_surface_tolerance * std::min(end.radius, other.radius))
        throw InputError(str(cap.path, ": the cap closes the same opening as ", other.source, " (their centres are ",
                             mm(norm(end.centre - other.centre)), " apart); give each cap once"));
    openings.push_back(end);
  }
  orient_out_of_fluid(surface, openings);
  name_openings(openings);
  sort_by_area(openings);
  return openings;
}

void orient_out_of_fluid(const TriangleMesh& surface, std::vector<OpenEnd>& openings) {
  if (openings.empty()) return;
  const auto smallest = std::min_element(openings.begin(), openings.end(),
                                         [](const OpenEnd& a, const OpenEnd& b) { return a.radius < b.radius; });
  const ProbeInside inside(surface, smallest->radius, smallest->source);
  const double dx = inside.dx();
  for (OpenEnd& o : openings) {
    int behind = 0, beyond = 0;  // fluid probes along -normal and along +normal
    for (const double k : {2.0, 3.0}) {
      behind += inside.fluid_at(o.centre - (k * dx) * o.normal);
      beyond += inside.fluid_at(o.centre + (k * dx) * o.normal);
    }
    if (behind == 2 && beyond == 0) continue;
    if (behind == 0 && beyond == 2) {
      o.normal = -1.0 * o.normal;
      continue;
    }
    throw InputError(str(o.source, ": cannot tell which side of the cap the fluid is on: of the voxels 2 and 3 ",
                         "spacings (dx = ", mm(dx), ") from its centre ", where(o.centre), ", ", behind,
                         " of 2 are fluid on one side and ", beyond, " of 2 on the other (expected 2 and 0). ",
                         "Is it a cap of an opening of ", surface.description, "?"));
  }
}

}  // namespace hemo::geometry
