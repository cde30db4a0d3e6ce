// The openings of a closed surface from its cap files (core/geometry/caps.hpp), the
// tapered pipe and its caps that the tests generate (make_pipe_surface, pipe_cap), and
// the suggested inlet and outlets of open_ends_toml.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "core/common/error.hpp"
#include "core/geometry/caps.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"
#include "tests/unit/surface_helpers.hpp"

using namespace hemo;
using namespace hemo::geometry;
using hemo::test::enclosed_volume;
using hemo::test::polygon_radius;

namespace {

doctest::Approx rel(double value, double eps) { return doctest::Approx(value).epsilon(eps).scale(0); }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Point sub(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

/// Every triangle wound the other way (which == 0: all; 2: every second one).
TriangleMesh rewound(TriangleMesh m, int which = 0) {
  for (std::size_t t = 0; t < m.triangles.size(); ++t)
    if (which == 0 || t % 2 == 0) std::swap(m.triangles[t][1], m.triangles[t][2]);
  return m;
}

/// The error message fit_caps throws ("" if none).
std::string caps_error(const TriangleMesh& surface, const std::vector<CapFile>& caps) {
  try {
    fit_caps(surface, caps);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The tilted, tapered test pipe: radius r0 at the -axis end, r1 at the +axis end.
const Point centre{0.001, -0.002, 0.003}, axis{1, 0.1, 0.05};
constexpr double r0 = 3e-3, r1 = 5e-3, length = 24e-3;
constexpr int segments = 64;

TriangleMesh test_pipe() { return make_pipe_surface(centre, axis, r0, length, segments, true, r1); }

}  // namespace

TEST_CASE("pipe surface: tapered, closed, outward, the volume of its polygonal frustum") {
  const TriangleMesh pipe = test_pipe();
  CHECK(check_surface(pipe).boundary_edges == 0);
  CHECK(check_surface(pipe).non_manifold_edges == 0);
  const double f = std::pow(polygon_radius(1.0, segments), 2);
  CHECK(enclosed_volume(pipe) == rel(f * std::numbers::pi * length * (r0 * r0 + r0 * r1 + r1 * r1) / 3, 1e-9));
  const TriangleMesh open = make_pipe_surface(centre, axis, r0, length, segments, false, r1);
  const std::vector<OpenEnd> ends = find_open_ends(open);
  REQUIRE(ends.size() == 2);
  CHECK(ends[0].radius == rel(polygon_radius(r1, segments), 1e-9));  // the larger end first
  CHECK(ends[1].radius == rel(polygon_radius(r0, segments), 1e-9));
}

TEST_CASE("pipe_cap: each end's fan, on its own, one rim") {
  const TriangleMesh pipe = test_pipe();
  for (int end = 0; end < 2; ++end) {
    const TriangleMesh cap = pipe_cap(pipe, segments, end);
    CHECK(cap.size() == std::size_t(segments));
    CHECK(cap.vertices.size() == std::size_t(segments + 1));
    CHECK(check_surface(cap).boundary_edges == std::size_t(segments));
  }
  CHECK_THROWS_AS(pipe_cap(pipe, segments, 2), std::invalid_argument);
}

TEST_CASE("fit_cap_plane: centroid, normal, radius and rim of a pipe's cap, whatever the winding") {
  const TriangleMesh pipe = test_pipe();
  const Point a = unit(axis);
  const TriangleMesh cap = pipe_cap(pipe, segments, 1);
  const OpenEnd e = fit_cap_plane({"caps/far.stl", cap});
  const Point expect{centre[0] + 0.5 * length * a[0], centre[1] + 0.5 * length * a[1], centre[2] + 0.5 * length * a[2]};
  CHECK(norm(sub(e.centre, expect)) < 1e-12);
  CHECK(std::fabs(dot(e.normal, a)) == rel(1.0, 1e-12));
  CHECK(e.radius == rel(polygon_radius(r1, segments), 1e-12));
  CHECK(e.area == rel(std::numbers::pi * e.radius * e.radius, 1e-12));
  CHECK(e.edges == std::size_t(segments));
  CHECK(e.planarity < 1e-12);
  CHECK(e.source == "caps/far.stl");
  // Wound the other way, or half of it: the same plane (the normal's sign is arbitrary).
  for (const int which : {0, 2}) {
    const OpenEnd r = fit_cap_plane({"caps/far.stl", rewound(cap, which)});
    CHECK(norm(sub(r.centre, e.centre)) < 1e-15);
    CHECK(std::fabs(dot(r.normal, e.normal)) == rel(1.0, 1e-14));
    CHECK(r.area == rel(e.area, 1e-14));
  }
}

TEST_CASE("fit_caps: outward normals, names from the files, the largest opening first") {
  const TriangleMesh pipe = test_pipe();
  const Point a = unit(axis);
  // The small cap first on the command line; the larger (r1, +axis end) must lead.
  const std::vector<CapFile> caps{{"in/small cap.stl", pipe_cap(pipe, segments, 0)},
                                  {"in/large.stl", pipe_cap(pipe, segments, 1)}};
  for (const TriangleMesh& surface : {pipe, rewound(pipe), rewound(pipe, 2)}) {
    const std::vector<OpenEnd> o = fit_caps(surface, caps);
    REQUIRE(o.size() == 2);
    CHECK(o[0].source == "in/large.stl");
    CHECK(o[0].name == "large");
    CHECK(o[1].name == "small_cap");  // a TOML-safe iolet name
    CHECK(dot(o[0].normal, a) == rel(1.0, 1e-12));   // +axis end: out is +axis
    CHECK(dot(o[1].normal, a) == rel(-1.0, 1e-12));  // -axis end: out is -axis
    CHECK(o[0].area > o[1].area);
  }
  // Caps wound the other way give the same result.
  const std::vector<CapFile> flipped{{"in/small cap.stl", rewound(caps[0].mesh)}, {"in/large.stl", rewound(caps[1].mesh)}};
  const std::vector<OpenEnd> f = fit_caps(pipe, flipped), o = fit_caps(pipe, caps);
  for (int i = 0; i < 2; ++i) CHECK(norm(sub(f[i].normal, o[i].normal)) < 1e-14);
  // Two files with the same stem get distinct names.
  const std::vector<OpenEnd> same = fit_caps(pipe, {{"a/cap.stl", caps[0].mesh}, {"b/cap.stl", caps[1].mesh}});
  CHECK(same[0].name == "cap_2");
  CHECK(same[1].name == "cap");
}

TEST_CASE("fit_caps: refuses caps that are not planar, not on the surface, given twice, or several in one file") {
  const TriangleMesh pipe = test_pipe();
  TriangleMesh bent = pipe_cap(pipe, segments, 0);
  // The hub moved along the axis by 5% of the radius: a shallow cone.
  const Point a = unit(axis);
  for (int k = 0; k < 3; ++k) bent.vertices[0][k] += 0.05 * r0 * a[k];
  const std::string not_planar = caps_error(pipe, {{"bent.stl", bent}});
  CHECK(contains(not_planar, "bent.stl: the cap is not planar"));
  CHECK(contains(not_planar, "% of its radius"));

  TriangleMesh moved = pipe_cap(pipe, segments, 0);
  for (Point& p : moved.vertices) p[1] += 2 * r0;  // beside the pipe, off its wall
  const std::string off = caps_error(pipe, {{"moved.stl", moved}});
  CHECK(contains(off, "moved.stl: the cap is not on the surface"));

  const TriangleMesh cap = pipe_cap(pipe, segments, 0);
  CHECK(contains(caps_error(pipe, {{"one.stl", cap}, {"again.stl", cap}}), "again.stl: the cap closes the same opening as one.stl"));

  TriangleMesh both = cap;
  const TriangleMesh other = pipe_cap(pipe, segments, 1);
  const auto base = std::uint32_t(both.vertices.size());
  both.vertices.insert(both.vertices.end(), other.vertices.begin(), other.vertices.end());
  for (auto t : other.triangles) both.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  CHECK(contains(caps_error(pipe, {{"both.stl", both}}), "both.stl: the cap has 2 rims"));

  const TriangleMesh open = make_pipe_surface(centre, axis, r0, length, segments, false, r1);
  CHECK(contains(caps_error(open, {{"one.stl", cap}}), "the surface is not closed"));
}

TEST_CASE("open_ends_toml: the cap file of each opening, the largest as the inlet") {
  const TriangleMesh pipe = test_pipe();
  const std::string toml =
      open_ends_toml(fit_caps(pipe, {{"c/small.stl", pipe_cap(pipe, segments, 0)}, {"c/large.stl", pipe_cap(pipe, segments, 1)}}));
  const auto at = [&](const std::string& part) { return toml.find(part); };
  REQUIRE(at("name = \"large\"") != std::string::npos);
  CHECK(at("name = \"large\"") < at("# from cap file c/large.stl"));
  CHECK(at("# from cap file c/large.stl") < at("condition = \"velocity\""));
  CHECK(at("condition = \"velocity\"") < at("name = \"small\""));
  CHECK(at("name = \"small\"") < at("# from cap file c/small.stl"));
  CHECK(at("# from cap file c/small.stl") < at("condition = \"pressure\""));
  CHECK(contains(toml, "(largest distance of the cap from its plane / radius)"));
}

TEST_CASE("cap_open_ends: flat fans close an open pipe as its own caps do, wound as the wall") {
  const TriangleMesh open = make_pipe_surface(centre, axis, r0, length, segments, false, r1);
  REQUIRE(check_surface(open).boundary_edges == 2 * segments);
  const CappedSurface capped = cap_open_ends(open);
  CHECK(check_surface(capped.closed).boundary_edges == 0);
  CHECK(check_surface(capped.closed).non_manifold_edges == 0);
  REQUIRE(capped.caps.size() == 2);
  REQUIRE(capped.ends.size() == 2);
  // Largest first: the r1 end, then r0; each cap a fan of `segments` triangles.
  CHECK(capped.ends[0].radius > capped.ends[1].radius);
  for (const TriangleMesh& cap : capped.caps) CHECK(cap.size() == std::size_t(segments));
  // Wound as the wall: every edge of the closed surface is run once each way.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> directed;
  for (const auto& t : capped.closed.triangles)
    for (int c = 0; c < 3; ++c) directed.push_back({t[c], t[(c + 1) % 3]});
  std::sort(directed.begin(), directed.end());
  bool paired = std::adjacent_find(directed.begin(), directed.end()) == directed.end();
  for (const auto& [a, b] : directed) paired &= std::binary_search(directed.begin(), directed.end(), std::make_pair(b, a));
  CHECK(paired);
  // The same solid as the pipe closed by make_pipe_surface's own fans.
  CHECK(enclosed_volume(capped.closed) == rel(enclosed_volume(test_pipe()), 1e-12));
  // Its caps are caps of the closed surface, as a meshing tool's would be.
  std::vector<CapFile> files;
  for (std::size_t i = 0; i < capped.caps.size(); ++i) files.push_back({"cap" + std::to_string(i), capped.caps[i]});
  const std::vector<OpenEnd> fitted = fit_caps(capped.closed, files);
  REQUIRE(fitted.size() == 2);
  CHECK(fitted[0].radius == rel(capped.ends[0].radius, 1e-9));
}

TEST_CASE("cap_open_ends: refuses a closed surface and an opening that is not planar") {
  const auto error = [](const TriangleMesh& m) {
    try {
      cap_open_ends(m);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(contains(error(test_pipe()), "the surface is closed: there is no opening to cap"));
  TriangleMesh open = make_pipe_surface(centre, axis, r0, length, segments, false, r1);
  // One rim vertex of the r0 end (the first ring) moved 5% of the radius along the axis.
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  for (int a = 0; a < 3; ++a) open.vertices[0][std::size_t(a)] += 0.05 * r0 * axis[std::size_t(a)] / n;
  const std::string e = error(open);
  CHECK(contains(e, "is not planar"));
  CHECK(contains(e, "Cut the vessel end with a plane"));
}

TEST_CASE("weld_rims: a seam whose copies differ in the last bits is closed; a closed surface is untouched") {
  const TriangleMesh pipe = test_pipe();
  TriangleMesh seam = pipe;
  // Vertex 0 doubled a hair away, and every second triangle on it moved to the copy.
  const std::uint32_t copy = std::uint32_t(seam.vertices.size());
  Point p = seam.vertices[0];
  p[0] = std::nextafter(p[0], 1.0);
  seam.vertices.push_back(p);
  int moved = 0;
  for (auto& t : seam.triangles)
    for (auto& v : t)
      if (v == 0 && moved++ % 2 == 0) v = copy;
  REQUIRE(check_surface(seam).boundary_edges > 0);
  CHECK(weld_rims(seam, weld_tolerance(seam)) == 1);
  CHECK(check_surface(seam).boundary_edges == 0);
  CHECK(seam.triangles == pipe.triangles);
  // Nothing to weld on a closed surface, nor beyond the tolerance.
  TriangleMesh closed = pipe;
  CHECK(weld_rims(closed, weld_tolerance(closed)) == 0);
  CHECK(closed.triangles == pipe.triangles);
  TriangleMesh apart = pipe;  // the same split, the copy 1 mm away: a real hole
  apart.vertices.push_back({p[0] + 1e-3, p[1], p[2]});
  moved = 0;
  for (auto& t : apart.triangles)
    for (auto& v : t)
      if (v == 0 && moved++ % 2 == 0) v = copy;
  CHECK(weld_rims(apart, weld_tolerance(apart)) == 0);
  CHECK(check_surface(apart).boundary_edges > 0);
}

TEST_CASE("fit_caps: a cap of 0.35 mm radius on a surface 70 mm across, without a box-wide voxel grid") {
  // A tapered pipe along the diagonal of a 70 mm cube, 3 mm down to 0.35 mm: its inside
  // test at a sixth of the small radius spans 1,200^3 voxels, which the box-wide grid
  // refused (more than 2^25); the probes' rays need only the triangles.
  const Point diagonal{1, 1, 1};
  const double span = 0.07 * std::sqrt(3.0);
  const TriangleMesh tree = make_pipe_surface({0.035, 0.035, 0.035}, diagonal, 3e-3, span, 32, true, 0.35e-3);
  const std::vector<CapFile> caps{{"wide.stl", pipe_cap(tree, 32, 0)}, {"narrow.stl", pipe_cap(tree, 32, 1)}};
  const std::vector<OpenEnd> ends = fit_caps(tree, caps);
  REQUIRE(ends.size() == 2);
  CHECK(ends[1].radius == rel(polygon_radius(0.35e-3, 32), 1e-6));
  // Out of the fluid: the wide end's normal along -diagonal, the narrow end's along +.
  CHECK(dot(ends[0].normal, diagonal) < -1.7);
  CHECK(dot(ends[1].normal, diagonal) > 1.7);
}
