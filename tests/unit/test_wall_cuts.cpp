// Wall cuts (VoxelGrid::wall_cuts, for interpolated bounce-back): every fluid-to-solid
// link of the centre classification has exactly one cut, at the surface, for the
// analytic shapes (against bisection and the closed-form sphere), an STL of the same
// pipe (within the facets' chord error), sphere obstacles and the vessel tree; the same
// for any thread count; the voxel file keeps them (whole and by window), reads version 1
// without them and refuses damaged cut datasets naming the dataset.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/geometry/shapes.hpp"
#include "geometry_helpers.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/voxel_file.hpp"
#include "core/geometry/voxelize_detail.hpp"
#include "physics/d3q19.hpp"
#include "temp_dir.hpp"

using namespace hemo;
namespace q = phys::d3q19;
using Vec = std::array<double, 3>;

namespace {

using test::geometry_section;

geometry::VoxelGrid build(const std::string& toml, double dx) {
  return geometry::build(geometry_section(toml), dx, std::int64_t(1) << 30);
}

double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec sub(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec add(const Vec& a, const Vec& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec scale(const Vec& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec unit(const Vec& a) { return scale(a, 1.0 / std::sqrt(dot(a, a))); }

Vec link(const geometry::VoxelGrid& g, int d) { return {q::cx(d) * g.dx, q::cy(d) * g.dx, q::cz(d) * g.dx}; }

/// The first t in [0, 1] where a + t s leaves a convex region that holds a and not a + s.
double bisect_exit(const std::function<bool(const Vec&)>& inside, const Vec& a, const Vec& s) {
  double lo = 0.0, hi = 1.0;
  for (int n = 0; n < 80; ++n) {
    const double mid = 0.5 * (lo + hi);
    (inside(add(a, scale(s, mid))) ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

/// Where a + t s first enters the sphere, from the plain quadratic formula; +inf if never in [0, 1].
double sphere_entry(const Vec& c, double r, const Vec& a, const Vec& s) {
  const Vec w = sub(a, c);
  const double A = dot(s, s), B = 2.0 * dot(w, s), C = dot(w, w) - r * r;
  const double D = B * B - 4.0 * A * C;
  if (D < 0.0) return std::numeric_limits<double>::infinity();
  const double t = (-B - std::sqrt(D)) / (2.0 * A);
  return t >= 0.0 && t <= 1.0 ? t : std::numeric_limits<double>::infinity();
}

struct LinkCount {
  std::int64_t links = 0;    // fluid-to-solid links of the centre classification
  std::int64_t missing = 0;  // of them without a cut
  std::int64_t extra = 0;    // cuts on links that are not fluid-to-solid
  double worst = 0.0;        // largest |cut - expected|
};

/// Every link of the held voxels against the classification `inside` (of a voxel centre)
/// and `expected` (the fraction of a fluid-to-solid link; NaN: do not compare).
LinkCount check_links(const geometry::VoxelGrid& g, const std::function<bool(const Vec&)>& inside,
                      const std::function<double(const Vec&, const Vec&)>& expected) {
  LinkCount n;
  const auto& w = g.window;
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
        const Vec x = g.centre(i, j, k);
        const bool in = inside(x);
        for (int d = 1; d < q::Q; ++d) {
          const int a = i + q::cx(d), b = j + q::cy(d), c = k + q::cz(d);
          const bool wall = in && (!g.inside_box(a, b, c) || !inside(g.centre(a, b, c)));
          const float cut = g.wall_cut(g.voxel_index(i, j, k), d);
          if (!wall) {
            n.extra += cut >= 0.0f;
            continue;
          }
          ++n.links;
          if (cut < 0.0f) {
            ++n.missing;
            continue;
          }
          const double e = expected(x, link(g, d));
          if (!std::isnan(e)) n.worst = std::max(n.worst, std::fabs(cut - e));
        }
      }
  return n;
}

/// Sorted by (voxel, direction) without repeats, directions 1..18, fractions in [0, 1],
/// voxels held.
void check_well_formed(const geometry::VoxelGrid& g) {
  REQUIRE(g.has_wall_cuts);
  std::int64_t bad = 0;
  const std::int64_t nx = g.dims[0], nxy = nx * g.dims[1];
  for (std::size_t n = 0; n < g.wall_cuts.size(); ++n) {
    const auto& c = g.wall_cuts[n];
    bad += c.direction < 1 || c.direction > 18 || !(c.fraction >= 0.0f && c.fraction <= 1.0f);
    bad += !g.holds(int(c.voxel % nx), int(c.voxel % nxy / nx), int(c.voxel / nxy));
    if (n > 0) {
      const auto& p = g.wall_cuts[n - 1];
      bad += !(p.voxel < c.voxel || (p.voxel == c.voxel && p.direction < c.direction));
    }
  }
  CHECK(bad == 0);
}

struct PipeShape {
  Vec centre, axis;  // axis: unit
  double R, L, dx;
  std::array<double, 2> along_radial2(const Vec& x) const {
    const Vec p = sub(x, centre);
    const double along = dot(p, axis);
    return {along, dot(p, p) - along * along};
  }
  // As the library classifies centres (its ends lie 1e-9 dx beyond L / 2).
  bool inside(const Vec& x) const {
    const auto [along, r2] = along_radial2(x);
    return std::fabs(along) < 0.5 * L + 1e-9 * dx && r2 < R * R;
  }
  /// The cut the pipe gives a link x -> x + s: where it leaves the cylinder if it does
  /// within the link (a pipe's ends are iolets or periodic, not the wall), else the end.
  double cut(const Vec& x, const Vec& s) const {
    const auto in_cylinder = [&](const Vec& p) { return along_radial2(p)[1] < R * R; };
    if (!in_cylinder(add(x, s))) return bisect_exit(in_cylinder, x, s);
    return bisect_exit([&](const Vec& p) { return inside(p); }, x, s);
  }
};

void check_pipe(const std::string& axis_toml, const Vec& axis, double R, double L) {
  const PipeShape pipe{{0.0, 0.0, 0.0}, unit(axis), R, L, 1.0};
  const std::string toml = "[geometry]\nshape = \"pipe\"\nradius = " + std::to_string(R) + "\nlength = " +
                           std::to_string(L) + "\naxis = " + axis_toml + "\n";
  const geometry::VoxelGrid g = build(toml, 1.0);
  check_well_formed(g);
  const auto inside = [&](const Vec& x) { return pipe.inside(x); };
  // The staircase: the fluid flags are the centre classification.
  std::int64_t differ = 0;
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) differ += g.is_fluid(i, j, k) != inside(g.centre(i, j, k));
  CHECK(differ == 0);
  const LinkCount n = check_links(g, inside, [&](const Vec& x, const Vec& s) { return pipe.cut(x, s); });
  CHECK(n.links > 0);
  CHECK(n.links == std::int64_t(g.wall_cuts.size()));
  CHECK(n.missing == 0);
  CHECK(n.extra == 0);
  CHECK(n.worst < 1e-6);

  // With solid fractions the fluid flags follow P < 1, the cuts still the centres.
  const geometry::VoxelGrid p = build(toml + "solid_fraction = true\nsubsamples = 4\n", 1.0);
  CHECK(p.fluid_count() > g.fluid_count());
  CHECK(p.wall_cuts.size() == g.wall_cuts.size());
  CHECK(std::equal(p.wall_cuts.begin(), p.wall_cuts.end(), g.wall_cuts.begin(), [](const auto& a, const auto& b) {
    return a.voxel == b.voxel && a.direction == b.direction && a.fraction == b.fraction;
  }));
}

bool same_cuts(const std::vector<geometry::WallCut>& a, const std::vector<geometry::WallCut>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
           return x.voxel == y.voxel && x.direction == y.direction && x.fraction == y.fraction;
         });
}

}  // namespace

TEST_CASE("wall cuts: a pipe along x, every wall link cut where the cylinder or else a flat end is") {
  check_pipe("[1, 0, 0]", {1, 0, 0}, 5.3, 16.0);
  // Links through the ends are cut at the end plane: x = +-8 from centres at +-7.5.
  const geometry::VoxelGrid g = build("[geometry]\nshape = \"pipe\"\nradius = 5.3\nlength = 16.0\n", 1.0);
  const int j = g.dims[1] / 2, k = g.dims[2] / 2;
  CHECK(g.wall_cut(g.voxel_index(g.dims[0] - 1, j, k), 1) == doctest::Approx(0.5).epsilon(1e-8));
  CHECK(g.wall_cut(g.voxel_index(0, j, k), 2) == doctest::Approx(0.5).epsilon(1e-8));
  CHECK(g.wall_cut(g.voxel_index(3, j, k), 1) < 0.0f);  // fluid to fluid
}

TEST_CASE("wall cuts: a pipe tilted off every axis") { check_pipe("[1, 0.4, 0.25]", {1, 0.4, 0.25}, 4.7, 20.0); }

TEST_CASE("wall cuts: a box has none, a sphere obstacle in it the sphere's and 1/2 at the box faces") {
  CHECK_FALSE(build("[geometry]\nshape = \"box\"\nsize = [6, 6, 6]\n", 1.0).has_wall_cuts);
  const Vec c{10.2, 7.9, 9.1};
  const double r = 4.3;
  const geometry::VoxelGrid g =
      build("[geometry]\nshape = \"box\"\nsize = [20, 16, 18]\n[[geometry.obstacle]]\ncenter = [10.2, 7.9, 9.1]\n"
            "radius = 4.3\n",
            1.0);
  check_well_formed(g);
  const auto outside_sphere = [&](const Vec& x) { return dot(sub(x, c), sub(x, c)) >= r * r; };
  const LinkCount n = check_links(g, outside_sphere, [&](const Vec& x, const Vec& s) {
    const Vec y = add(x, s);
    const bool in_box = y[0] > 0 && y[1] > 0 && y[2] > 0 && y[0] < 20 && y[1] < 16 && y[2] < 18;
    return std::min(in_box ? 1.0 : 0.5, sphere_entry(c, r, x, s));
  });
  CHECK(n.links == std::int64_t(g.wall_cuts.size()));
  CHECK(n.missing == 0);
  CHECK(n.extra == 0);
  CHECK(n.worst < 1e-6);
}

TEST_CASE("wall cuts: a sphere across a pipe's wall, a link that meets both keeps the nearer") {
  const PipeShape pipe{{0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, 5.0, 16.0, 1.0};
  const Vec c{0.3, 4.6, 0.2};
  const double r = 2.6;
  const std::string obstacle = "[[geometry.obstacle]]\ncenter = [0.3, 4.6, 0.2]\nradius = 2.6\n";
  const auto fluid = [&](const Vec& x) { return pipe.inside(x) && dot(sub(x, c), sub(x, c)) >= r * r; };
  std::int64_t both = 0;
  const auto expected = [&](const Vec& x, const Vec& s) {
    const double wall = pipe.cut(x, s);
    const double sphere = sphere_entry(c, r, x, s);
    both += sphere < 1.0 && !pipe.inside(add(x, s));
    return std::min(wall, sphere);
  };
  for (const bool p : {false, true}) {
    const geometry::VoxelGrid g = build(std::string("[geometry]\nshape = \"pipe\"\nradius = 5.0\nlength = 16.0\n") +
                                            (p ? "solid_fraction = true\nsubsamples = 3\n" : "") + obstacle,
                                        1.0);
    check_well_formed(g);
    const LinkCount n = check_links(g, fluid, expected);
    CHECK(n.links == std::int64_t(g.wall_cuts.size()));
    CHECK(n.missing == 0);
    CHECK(n.extra == 0);
    CHECK(n.worst < 1e-6);
  }
  CHECK(both > 0);  // links that leave the pipe and cross the sphere on the way
}

TEST_CASE("wall cuts: an STL of the tilted pipe agrees with the analytic pipe within the facets' chord error") {
  const test::TempDir dir("wall_cuts");
  const double R = 4.7, L = 20.0, dx = 1.0;
  const int segments = 96;
  const Vec axis = unit({1, 0.4, 0.25});
  const std::string stl = (dir.path / "pipe.stl").string();
  geometry::write_stl_binary(stl, geometry::make_pipe_surface({0, 0, 0}, axis, R, L, segments, true));
  const PipeShape pipe{{0.0, 0.0, 0.0}, axis, R, L, dx};
  // The facets' vertices lie on the circle: the surface runs between R cos(pi / N) and R.
  const double chord = R * (1.0 - std::cos(M_PI / segments));
  // The tree's plain segment query, on the surface as read back (float coordinates).
  const geometry::detail::TriangleBvh bvh(geometry::read_stl(stl, geometry::LengthUnit::m));
  for (const bool p : {false, true}) {
    const geometry::VoxelGrid g =
        build("[geometry]\nshape = \"stl\"\nfile = \"" + stl + "\"\nsolid_fraction = " + (p ? "true" : "false") +
                  "\nsubsamples = 3\n",
              dx);
    check_well_formed(g);
    // Against the STL's own centre classification: with p = false its fluid flags.
    const geometry::VoxelGrid staircase = build("[geometry]\nshape = \"stl\"\nfile = \"" + stl + "\"\n", dx);
    const auto stl_inside = [&](const Vec& x) {
      const int i = int(std::floor((x[0] - g.origin[0]) / dx)), j = int(std::floor((x[1] - g.origin[1]) / dx)),
                k = int(std::floor((x[2] - g.origin[2]) / dx));
      return staircase.is_fluid(i, j, k);
    };
    const LinkCount n = check_links(g, stl_inside, [](const Vec&, const Vec&) { return std::nan(""); });
    CHECK(n.links > 0);
    CHECK(n.missing == 0);  // a well-resolved pipe: no link slips between the triangles
    CHECK(n.extra == 0);
    // Each cut point lies on the facetted wall (between the polygon's inner radius and R)
    // or on an end plane; where the analytic pipe has the same link, the two crossings
    // lie within the chord error of each other along the wall's normal.
    const std::int64_t nx = g.dims[0], nxy = nx * g.dims[1];
    std::int64_t off_wall = 0, compared = 0, too_far = 0, query_differs = 0;
    double worst = 0.0;
    for (const auto& c : g.wall_cuts) {
      const int i = int(c.voxel % nx), j = int(c.voxel % nxy / nx), k = int(c.voxel / nxy);
      const Vec x = g.centre(i, j, k), s = link(g, c.direction);
      // The voxelizer searches the triangles near a voxel once for all its links; the
      // plain query finds the same first triangle.
      query_differs += float(bvh.first_hit(x, add(x, s))) != c.fraction;
      const Vec hit = add(x, scale(s, c.fraction));
      const auto [along, r2] = pipe.along_radial2(hit);
      const double rr = std::sqrt(std::max(r2, 0.0));
      const bool on_end = std::fabs(std::fabs(along) - 0.5 * L) < 1e-6;
      off_wall += !on_end && (rr < R * std::cos(M_PI / segments) - 1e-6 || rr > R + 1e-6);
      if (!pipe.inside(x) || pipe.inside(add(x, s)) || on_end) continue;
      const double t = bisect_exit([&](const Vec& y) { return pipe.inside(y); }, x, s);
      const Vec at = add(x, scale(s, t));
      const Vec radial = sub(sub(at, pipe.centre), scale(pipe.axis, dot(sub(at, pipe.centre), pipe.axis)));
      const double cosine = std::fabs(dot(unit(radial), unit(s)));
      if (cosine < 0.2) continue;  // grazing: the crossings may lie far apart along the link
      ++compared;
      const double gap = std::fabs(c.fraction - t) * std::sqrt(dot(s, s)) * cosine;
      worst = std::max(worst, gap);
      too_far += gap > 1.05 * chord + 1e-7;  // float fractions: 1e-7
    }
    CHECK(query_differs == 0);
    CHECK(off_wall == 0);
    CHECK(compared > 100);
    CHECK(too_far == 0);
    MESSAGE("STL pipe: ", g.wall_cuts.size(), " cuts, ", compared, " compared, largest normal gap ", worst,
            " dx (chord error ", chord, " dx)");
  }
}

namespace {

// The vessel tree of vessel_tree.cpp, rebuilt here: capsules (start, end, radius).
struct Capsule {
  Vec a, b;
  double r;
  double axis_distance(const Vec& x) const {
    const Vec s = sub(b, a), p = sub(x, a);
    const double t = std::clamp(dot(p, s) / dot(s, s), 0.0, 1.0);
    const Vec o = sub(p, scale(s, t));
    return std::sqrt(dot(o, o));
  }
};

void grow(std::vector<Capsule>& out, const Vec& start, const Vec& dir, const Vec& normal, double length, double radius,
          int level, double angle, double radius_ratio, double length_ratio) {
  const Vec end = add(start, scale(dir, length));
  out.push_back({start, end, radius});
  if (level <= 1) return;
  const Vec next = unit(cross(dir, normal));
  for (const double side : {-1.0, 1.0}) {
    const Vec d = unit(add(scale(dir, std::cos(side * angle)), scale(cross(normal, dir), std::sin(side * angle))));
    grow(out, end, d, next, length * length_ratio, radius * radius_ratio, level - 1, angle, radius_ratio, length_ratio);
  }
}

/// min over capsules of (distance to the axis - radius): < 0 inside the union, 0 on its surface.
double union_level(const std::vector<Capsule>& tree, const Vec& x) {
  double m = std::numeric_limits<double>::infinity();
  for (const Capsule& c : tree) m = std::min(m, c.axis_distance(x) - c.r);
  return m;
}

}  // namespace

TEST_CASE("wall cuts: a vessel tree's cuts lie on the surface of the union of capsules, and not on thread count") {
  // Metres, as a case gives them.
  const double R = 1e-3, dx = 2.5e-4;
  const std::string toml = "[geometry]\nshape = \"tree\"\nradius = 1e-3\nlength = 5e-3\nlevels = 4\n"
                           "axis = [1, 0.2, 0.1]\ncenter = [0.001, 0.002, 0.003]\n";
  std::vector<Capsule> tree;
  {
    const Vec dir = unit({1, 0.2, 0.1});
    const Vec helper = std::fabs(dir[2]) < 0.9 ? Vec{0, 0, 1} : Vec{0, 1, 0};
    grow(tree, {0.001, 0.002, 0.003}, dir, unit(cross(dir, cross(helper, dir))), 5e-3, R, 4, 35.0 * M_PI / 180.0, 0.794,
         0.8);
  }
  const geometry::VoxelGrid g = build(toml, dx);
  check_well_formed(g);
  const auto inside = [&](const Vec& x) { return union_level(tree, x) < 0.0; };
  const LinkCount n = check_links(g, inside, [](const Vec&, const Vec&) { return std::nan(""); });
  CHECK(n.links > 1000);
  CHECK(n.links == std::int64_t(g.wall_cuts.size()));
  CHECK(n.missing == 0);
  CHECK(n.extra == 0);

  const std::int64_t nx = g.dims[0], nxy = nx * g.dims[1];
  std::int64_t off_surface = 0, outside_before = 0;
  double worst = 0.0;
  for (const auto& c : g.wall_cuts) {
    const Vec x = g.centre(int(c.voxel % nx), int(c.voxel % nxy / nx), int(c.voxel / nxy)), s = link(g, c.direction);
    // The stored float moves the point by up to 2^-24 of the link (~1e-11 m here) from
    // the double the library computed; the level changes by at most as much.
    const double level = union_level(tree, add(x, scale(s, double(c.fraction))));
    worst = std::max(worst, std::fabs(level));
    off_surface += std::fabs(level) > 1e-9 * R + 0x1p-24 * std::sqrt(dot(s, s));
    // Every point of the link before the cut is inside the union.
    for (int m = 0; m < 20; ++m) outside_before += union_level(tree, add(x, scale(s, c.fraction * m / 20.0))) >= 0.0;
    if (c.fraction > 1e-5) outside_before += union_level(tree, add(x, scale(s, c.fraction - 1e-5))) >= 0.0;
  }
  CHECK(off_surface == 0);
  CHECK(outside_before == 0);
  MESSAGE("tree: ", g.wall_cuts.size(), " cuts, largest |distance to the surface| ", worst, " m");

  // The same on one thread.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const geometry::VoxelGrid one = build(toml, dx);
  omp_set_num_threads(threads);
  CHECK(same_cuts(one.wall_cuts, g.wall_cuts));
}

TEST_CASE("wall cuts: the voxel file keeps them whole and by window, version 1 has none, damage is refused") {
  const test::TempDir dir("wall_cuts_file");
  const std::string path = (dir.path / "pipe.voxels.h5").string();
  const std::string toml = "[geometry]\nshape = \"pipe\"\nradius = 4.5\nlength = 14.0\naxis = [1, 0.3, 0.2]\n"
                           "solid_fraction = true\nsubsamples = 3\n"
                           "[[geometry.obstacle]]\ncenter = [0, 0, 4]\nradius = 2\n";
  const geometry::VoxelGrid g = build(toml, 1.0);
  check_well_formed(g);
  geometry::write_voxel_file(path, g);
  const geometry::VoxelGrid back = geometry::read_voxel_file(path);
  CHECK(back.has_wall_cuts);
  CHECK(same_cuts(back.wall_cuts, g.wall_cuts));
  CHECK(back.fluid == g.fluid);

  // A window reads the cuts of its own voxels.
  geometry::VoxelGrid part = geometry::read_voxel_file_header(path);
  part.hold({{2, 3, 1}, {g.dims[0] - 5, g.dims[1] - 4, 4}});
  geometry::read_voxel_file_window(path, part);
  std::vector<geometry::WallCut> mine;
  const std::int64_t nx = g.dims[0], nxy = nx * g.dims[1];
  for (const auto& c : g.wall_cuts)
    if (part.holds(int(c.voxel % nx), int(c.voxel % nxy / nx), int(c.voxel / nxy))) mine.push_back(c);
  CHECK(!mine.empty());
  CHECK(part.has_wall_cuts);
  CHECK(same_cuts(part.wall_cuts, mine));

  // As a shape: a case on the file gets the cuts, with or without solid fractions.
  for (const bool p : {true, false}) {
    const geometry::VoxelGrid v = build("[geometry]\nshape = \"voxels\"\nfile = \"" + path +
                                            "\"\nsolid_fraction = " + (p ? "true" : "false") + "\n",
                                        1.0);
    CHECK(same_cuts(v.wall_cuts, g.wall_cuts));
  }

  // A grid without cuts writes none, and reads back without.
  geometry::VoxelGrid plain = g;
  plain.wall_cuts.clear();
  plain.has_wall_cuts = false;
  geometry::write_voxel_file(path, plain);
  CHECK_FALSE(geometry::read_voxel_file(path).has_wall_cuts);

  // Version 1 (the same, without /wall_cuts): read, without cuts, even if a group of that
  // name were there.
  geometry::write_voxel_file(path, g);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    const int one = 1;
    REQUIRE(H5Awrite(a, H5T_NATIVE_INT, &one) >= 0);
    H5Aclose(a);
    H5Fclose(f);
  }
  {
    const geometry::VoxelGrid v1 = geometry::read_voxel_file(path);
    CHECK_FALSE(v1.has_wall_cuts);
    CHECK(v1.wall_cuts.empty());
    CHECK(v1.fluid == g.fluid);
  }

  // Damage one dataset of a good file at a time.
  const auto damage = [&](const char*, const std::function<void(hid_t)>& change) {
    geometry::write_voxel_file(path, g);
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    change(f);
    H5Fclose(f);
  };
  const auto rewrite = [&](hid_t f, const char* name, hid_t type, const void* data) {
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    REQUIRE(d >= 0);
    REQUIRE(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(d);
  };
  const std::size_t count = g.wall_cuts.size();
  REQUIRE(count > 10);
  damage("direction", [&](hid_t f) {
    std::vector<std::uint8_t> d(count);
    for (std::size_t i = 0; i < count; ++i) d[i] = g.wall_cuts[i].direction;
    d[count / 2] = 19;
    rewrite(f, "wall_cuts/direction", H5T_NATIVE_UINT8, d.data());
  });
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains("/wall_cuts/direction"), InputError);
  damage("fraction", [&](hid_t f) {
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = g.wall_cuts[i].fraction;
    v[3] = std::nanf("");
    rewrite(f, "wall_cuts/fraction", H5T_NATIVE_FLOAT, v.data());
  });
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains("/wall_cuts/fraction"), InputError);
  damage("unsorted", [&](hid_t f) {
    std::vector<std::int64_t> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = g.wall_cuts[i].voxel;
    // Two cuts of different voxels in one layer swapped.
    std::size_t i = 0;
    while (v[i] == v[i + 1]) ++i;
    std::swap(v[i], v[i + 1]);
    rewrite(f, "wall_cuts/voxel", H5T_NATIVE_INT64, v.data());
  });
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains("sorted"), InputError);
  damage("sizes", [&](hid_t f) {
    REQUIRE(H5Ldelete(f, "wall_cuts/fraction", H5P_DEFAULT) >= 0);
    const hsize_t n = count - 1;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(f, "wall_cuts/fraction", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(d >= 0);
    H5Dclose(d);
    H5Sclose(space);
  });
  const std::string sizes = "dataset /wall_cuts/fraction has " + std::to_string(count - 1) + " values";
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains(sizes.c_str()), InputError);
  damage("missing", [&](hid_t f) { REQUIRE(H5Ldelete(f, "wall_cuts/layer_first", H5P_DEFAULT) >= 0); });
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains("/wall_cuts/layer_first"), InputError);
}

// Run by hand: HEMO_DATA_DIR=../shared/data build/bin/hemo_unit_tests -tc="wall cuts timing*" --no-skip
TEST_CASE("wall cuts timing: the benchmark tree, a 256^3 tree and the carotid STL" * doctest::skip()) {
  const auto time = [](const std::string& name, const std::string& toml, double dx) {
    const auto t0 = std::chrono::steady_clock::now();
    const geometry::VoxelGrid g = build(toml, dx);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Links of fluid (centre) voxels into solid ones without a cut: none for the
    // analytic shapes, and for an STL only where a link grazes a triangle's edge.
    std::int64_t links = 0, missing = 0;
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) {
          if (!g.is_fluid(i, j, k)) continue;
          for (int d = 1; d < q::Q; ++d) {
            if (g.is_fluid(i + q::cx(d), j + q::cy(d), k + q::cz(d))) continue;
            ++links;
            missing += g.wall_cut(g.voxel_index(i, j, k), d) < 0.0f;
          }
        }
    MESSAGE(name, ": ", g.dims[0], " x ", g.dims[1], " x ", g.dims[2], " voxels, ", g.fluid_count(), " fluid, ",
            g.wall_cuts.size(), " cuts, ", missing, " of ", links, " wall links without one, ", omp_get_max_threads(),
            " threads: ", seconds, " s");
    CHECK(missing * 100000 <= links);
  };
  time("benchmark tree (cases/bench/vessel_tree.toml)",
       "[geometry]\nshape = \"tree\"\nradius = 1.0e-3\nlength = 3.0e-3\nlevels = 4\nbranching_angle = 20.0\n", 1.32e-5);
  time("tree of 8 generations in ~256^3",
       "[geometry]\nshape = \"tree\"\nradius = 1.0\nlength = 3.0\nlevels = 8\nbranching_angle = 30.0\n", 0.036);
  if (const char* data = std::getenv("HEMO_DATA_DIR")) {
    const std::string stl = std::string(data) + "/vascular/carotid_gmsh/carotid_capped.stl";
    for (const double dx : {1e-4, 5e-5})
      time("carotid_capped.stl at dx = " + std::to_string(dx),
           "[geometry]\nshape = \"stl\"\nfile = \"" + stl + "\"\nunit = \"m\"\n", dx);
  }
}
