// STL reading and writing (core/geometry/stl.hpp), the closed-surface check and the open
// end finder (core/geometry/surface.hpp), on generated pipes and hand-written files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/common/error.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"
#include "tests/unit/surface_helpers.hpp"

using namespace hemo;
using namespace hemo::geometry;
using hemo::test::enclosed_volume;
using hemo::test::polygon_radius;
namespace fs = std::filesystem;

namespace {

/// A directory of this test process's own, so that parallel ctest runs do not collide;
/// removed when the process exits.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("hemo_test_stl_" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

fs::path scratch() {
  static const ScratchDir dir;
  return dir.path;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = (scratch() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put_u32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += char((v >> (8 * i)) & 0xff);
}
void put_float(std::string& s, float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  put_u32(s, u);
}

/// A binary STL built byte by byte: `header` (padded to 80 bytes), `count` as stored, and
/// the given triangles (9 floats each).
std::string binary_stl(const std::string& header, std::uint32_t count, const std::vector<std::array<float, 9>>& tris) {
  std::string s = header;
  s.resize(80, ' ');
  put_u32(s, count);
  for (const auto& t : tris) {
    for (int i = 0; i < 3; ++i) put_float(s, 0.0f);
    for (float x : t) put_float(s, x);
    s += std::string(2, '\0');
  }
  return s;
}

const std::vector<std::array<float, 9>> two_triangles = {{0, 0, 0, 1, 0, 0, 0, 1, 0}, {1, 0, 0, 1, 1, 0, 0, 1, 0}};

/// The message of the InputError that reading `path` throws ("" if none is thrown).
std::string read_error(const std::string& path, std::int64_t max_triangles = 200'000'000) {
  try {
    read_stl(path, LengthUnit::mm, max_triangles);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Relative comparison (doctest's Approx adds 1 to the scale, too loose for millimetres).
doctest::Approx rel(double value, double eps) { return doctest::Approx(value).epsilon(eps).scale(0); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Point sub(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }


/// Checks the two ends of an open pipe against its construction.
void check_pipe_ends(const Point& centre, const Point& axis, double r, double length, int n) {
  const TriangleMesh pipe = make_pipe_surface(centre, axis, r, length, n, false);
  const std::vector<OpenEnd> ends = find_open_ends(pipe);
  REQUIRE(ends.size() == 2);
  const Point a = {axis[0] / norm(axis), axis[1] / norm(axis), axis[2] / norm(axis)};
  for (const OpenEnd& e : ends) {
    const double side = dot(e.normal, a) > 0 ? 1.0 : -1.0;  // the +a end or the -a end
    const Point expect_centre{centre[0] + side * 0.5 * length * a[0], centre[1] + side * 0.5 * length * a[1],
                              centre[2] + side * 0.5 * length * a[2]};
    CHECK(norm(sub(e.centre, expect_centre)) < 1e-9 * r);
    CHECK(dot(e.normal, a) * side == rel(1.0, 1e-12));
    CHECK(norm(e.normal) == rel(1.0, 1e-12));
    CHECK(e.edges == std::size_t(n));
    CHECK(e.radius == rel(polygon_radius(r, n), 1e-9));
    if (n >= 64) CHECK(e.radius == rel(r, 0.01));  // coarser polygons fall short of the circle
    CHECK(e.area == rel(std::numbers::pi * e.radius * e.radius, 1e-12));
    CHECK(e.planarity < 1e-9);
  }
  // One end each way.
  CHECK(dot(ends[0].normal, ends[1].normal) == rel(-1.0, 1e-12));
}

}  // namespace

TEST_CASE("STL: length units") {
  CHECK(metres_per_unit(LengthUnit::mm) == 1e-3);
  CHECK(length_unit_from_string("um") == LengthUnit::um);
  CHECK(metres_per_unit(length_unit_from_string("m")) == 1.0);
  try {
    length_unit_from_string("cm");
    FAIL("no error for 'cm'");
  } catch (const InputError& e) {
    CHECK(contains(e.what(), "'cm'"));
    CHECK(contains(e.what(), "\"mm\""));
  }
}

TEST_CASE("STL: binary round trip in mm keeps the triangles and scales the coordinates") {
  const TriangleMesh pipe = make_pipe_surface({0.01, -0.002, 0.003}, {0, 0, 1}, 2e-3, 8e-3, 48, true);
  const std::string path = (scratch() / "round_trip.stl").string();
  write_stl_binary(path, pipe, LengthUnit::mm);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  const std::string bytes = read_file(path);
  CHECK(bytes.size() == 84 + 50 * pipe.size());
  CHECK(bytes.compare(0, 5, "solid") != 0);  // or naive readers take it for ASCII

  const TriangleMesh back = read_stl(path, LengthUnit::mm);
  REQUIRE(back.size() == pipe.size());
  CHECK(back.vertices.size() == pipe.vertices.size());  // shared corners merged again
  for (std::size_t t = 0; t < pipe.size(); ++t)
    for (int c = 0; c < 3; ++c)
      for (int a = 0; a < 3; ++a)
        REQUIRE(std::fabs(back.vertices[back.triangles[t][c]][a] - pipe.vertices[pipe.triangles[t][c]][a]) <
                1e-9);  // float precision of a coordinate of about 1 cm
  CHECK(contains(back.description, "round_trip.stl (binary, "));
  CHECK(contains(back.description, "mm)"));

  // The same numbers read as metres are a thousand times larger.
  const auto b_mm = back.bounds(), b_m = read_stl(path, LengthUnit::m).bounds();
  for (int a = 0; a < 3; ++a) CHECK(std::fabs(b_m[1][a] - 1e3 * b_mm[1][a]) <= 1e-12 * std::fabs(b_m[1][a]));
  CHECK(b_mm[0][2] == rel(-0.001, 1e-6));
  CHECK(b_mm[1][2] == rel(0.007, 1e-6));
}

TEST_CASE("STL: ASCII file with two triangles, shared edge merged") {
  const std::string path = write_file("two.stl",
                                      "solid square made by hand\n"
                                      "  facet normal 0 0 1\n"
                                      "    outer loop\n"
                                      "      vertex 0 0 0\n"
                                      "      vertex 2.5 0 0\n"
                                      "      vertex 0 2.5 0\n"
                                      "    endloop\n"
                                      "  endfacet\n"
                                      "  FACET NORMAL 0 0 1\r\n"  // capitals and CRLF occur in the wild
                                      "    OUTER LOOP\r\n"
                                      "      VERTEX +2.5e0 0 -0\r\n"  // -0 is the same point as 0
                                      "      VERTEX 2.5 2.5 0\r\n"
                                      "      VERTEX 0 2.5 0\r\n"
                                      "    ENDLOOP\r\n"
                                      "  ENDFACET\r\n"
                                      "endsolid square made by hand\n");
  const TriangleMesh m = read_stl(path, LengthUnit::mm);
  REQUIRE(m.size() == 2);
  CHECK(m.vertices.size() == 4);
  CHECK(m.triangles[1][0] == m.triangles[0][1]);
  CHECK(m.triangles[1][2] == m.triangles[0][2]);
  CHECK(m.vertices[m.triangles[1][1]] == Point{2.5e-3, 2.5e-3, 0});
  CHECK(contains(m.description, "two.stl (ASCII, 2 triangles, mm)"));
  const SurfaceCheck s = check_surface(m);
  CHECK(s.boundary_edges == 4);
  CHECK(s.non_manifold_edges == 0);
}

TEST_CASE("STL: degenerate triangles are dropped and counted") {
  std::vector<std::array<float, 9>> tris = two_triangles;
  tris.push_back({5, 5, 5, 5, 5, 5, 6, 6, 6});  // two equal corners
  const TriangleMesh m = read_stl(write_file("degenerate.stl", binary_stl("x", 3, tris)), LengthUnit::m);
  CHECK(m.size() == 2);
  CHECK(m.vertices.size() == 4);  // the corners only the dropped triangle used are gone
  CHECK(contains(m.description, "1 degenerate dropped"));
  CHECK(contains(read_error(write_file("all_degenerate.stl", binary_stl("x", 1, {{1, 1, 1, 1, 1, 1, 2, 2, 2}}))),
                 "all 1 triangles are degenerate"));
}

TEST_CASE("STL: a binary file whose header starts with 'solid' is read as binary") {
  const std::string path = write_file("solid_header.stl", binary_stl("solid exported by a CAD tool", 2, two_triangles));
  const TriangleMesh m = read_stl(path, LengthUnit::m);
  CHECK(m.size() == 2);
  CHECK(contains(m.description, "binary"));
  // With a wrong count it is neither; the message says what both readings found.
  std::string bytes = binary_stl("solid exported by a CAD tool", 3, two_triangles);
  const std::string msg = read_error(write_file("solid_header_bad.stl", bytes));
  CHECK(contains(msg, "ASCII STL: expected 'facet' or 'endsolid' at line 1"));
  CHECK(contains(msg, "header says 3 triangles = 234 bytes, file has 184 bytes"));
}

TEST_CASE("STL: every bad file is an InputError that says what is wrong") {
  const std::string good = binary_stl("x", 2, two_triangles);  // 184 bytes

  SUBCASE("empty file") {
    const std::string path = write_file("empty.stl", "");
    const std::string msg = read_error(path);
    CHECK(contains(msg, path));
    CHECK(contains(msg, "empty file (0 bytes)"));
  }
  SUBCASE("missing file or a directory") {
    const std::string missing = (scratch() / "no_such_file.stl").string();
    CHECK(contains(read_error(missing), missing + ": cannot open STL file"));
    CHECK(contains(read_error(scratch().string()), "is a directory"));
  }
  SUBCASE("shorter than a binary header and not ASCII") {
    CHECK(contains(read_error(write_file("short.stl", "hello world")),
                   "file of 11 bytes is neither binary STL (at least 84 bytes) nor ASCII STL"));
  }
  SUBCASE("truncated binary") {
    const std::string path = write_file("truncated.stl", good.substr(0, 170));
    const std::string msg = read_error(path);
    CHECK(contains(msg, path));
    CHECK(contains(msg, "truncated binary STL: header says 2 triangles = 184 bytes, file has 170 bytes"));
  }
  SUBCASE("count disagrees with the size") {
    CHECK(contains(read_error(write_file("longer.stl", good + "trailing")),
                   "binary STL triangle count disagrees with the file size: header says 2 triangles = 184 bytes, "
                   "file has 192 bytes"));
  }
  SUBCASE("NaN in binary") {
    std::vector<std::array<float, 9>> tris = two_triangles;
    tris[1][4] = std::numeric_limits<float>::quiet_NaN();
    CHECK(contains(read_error(write_file("nan.stl", binary_stl("x", 2, tris))),
                   "binary STL: triangle 1 has a non-finite coordinate"));
    tris[1][4] = std::numeric_limits<float>::infinity();
    CHECK(contains(read_error(write_file("inf.stl", binary_stl("x", 2, tris))), "triangle 1 has a non-finite"));
  }
  SUBCASE("NaN in ASCII") {
    const std::string path = write_file("nan_ascii.stl",
                                        "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 nan 0\n"
                                        "vertex 0 1 0\nendloop\nendfacet\nendsolid s\n");
    const std::string msg = read_error(path);
    CHECK(contains(msg, path + ":5:"));
    CHECK(contains(msg, "triangle 0 has a non-finite coordinate 'nan' at line 5"));
    CHECK(contains(read_error(write_file("inf_ascii.stl",
                                         "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                         "vertex 0 1e999 0\nendloop\nendfacet\nendsolid s\n")),
                   "'1e999' at line 6"));
  }
  SUBCASE("NaN normals are ignored: exporters write them") {
    const std::string path = write_file("nan_normal.stl",
                                        "solid s\nfacet normal nan nan nan\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                        "vertex 0 1e-400 1\nendloop\nendfacet\nendsolid s\n");
    CHECK(read_error(path).empty());
  }
  SUBCASE("ASCII syntax errors name the line and what was expected") {
    const std::string path = write_file("syntax.stl",
                                        "solid s\nfacet normal 0 0 1\nouter loop\nvertx 0 0 0\nvertex 1 0 0\n"
                                        "vertex 0 1 0\nendloop\nendfacet\nendsolid s\n");
    const std::string msg = read_error(path);
    CHECK(contains(msg, path + ":4:"));
    CHECK(contains(msg, "expected 'vertex' at line 4, found 'vertx'"));
    CHECK(contains(read_error(write_file("number.stl", "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n")),
                   "expected a number at line 4, found 'zero'"));
    CHECK(contains(read_error(write_file("cut.stl", "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n")),
                   "expected 'vertex' at line 5, found end of file"));
    CHECK(contains(read_error(write_file("no_end.stl",
                                         "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                         "vertex 0 1 0\nendloop\nendfacet\n")),
                   "expected 'facet' or 'endsolid' at line 9, found end of file"));
  }
  SUBCASE("too many triangles, refused before reading them") {
    const std::string msg = read_error(write_file("many.stl", good), 1);
    CHECK(contains(msg, "binary STL with 2 triangles, more than the limit of 1"));
    // A header claiming 4e9 triangles with a matching size is never allocated: the size
    // check fails first on a short file.
    CHECK(contains(read_error(write_file("huge_count.stl", binary_stl("x", 4'000'000'000u, two_triangles))),
                   "header says 4000000000 triangles = 200000000084 bytes"));
    CHECK(contains(read_error(write_file("many_ascii.stl",
                                         "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                         "vertex 0 1 0\nendloop\nendfacet\nfacet normal 0 0 1\nendsolid s\n"),
                              1),
                   "more than 1 triangles (the limit) at line 9"));
  }
  SUBCASE("no triangles") {
    CHECK(contains(read_error(write_file("zero.stl", binary_stl("x", 0, {}))), "binary STL with no triangles"));
    CHECK(contains(read_error(write_file("zero_ascii.stl", "solid nothing\nendsolid nothing\n")),
                   "ASCII STL with no triangles"));
  }
}

TEST_CASE("pipe surface: capped is closed, outward, and holds pi r^2 L within 1%") {
  const double r = 1.5e-3, L = 12e-3;
  const TriangleMesh pipe = make_pipe_surface({0.001, 0.002, -0.003}, {1, 0.1, 0.05}, r, L, 64, true);
  const SurfaceCheck s = check_surface(pipe);
  CHECK(s.boundary_edges == 0);
  CHECK(s.non_manifold_edges == 0);
  CHECK(s.hole_examples.empty());
  CHECK_NOTHROW(require_closed(pipe));
  CHECK(find_open_ends(pipe).empty());
  const double volume = enclosed_volume(pipe);
  CHECK(volume > 0);  // positive: the triangles face outwards
  CHECK(volume == rel(std::numbers::pi * r * r * L, 0.01));
  // Exactly the inscribed 64-gon prism.
  CHECK(volume == rel(std::pow(polygon_radius(r, 64), 2) * std::numbers::pi * L, 1e-9));
  // Rings about one segment apart: the side triangles are not slivers.
  CHECK(pipe.vertices.size() == std::size_t(64 * (std::lround(L / (2 * std::numbers::pi * r / 64)) + 1) + 2));
}

TEST_CASE("pipe surface: open ends found where the pipe was cut, normals outward") {
  check_pipe_ends({0, 0, 0}, {0, 0, 1}, 1e-3, 6e-3, 64);
  check_pipe_ends({0.01, -0.02, 0.005}, {1, 0.1, 0.05}, 2e-3, 20e-3, 64);  // the tilted validation pipe
  check_pipe_ends({1, 2, 3}, {-0.3, 0.2, -1}, 0.5, 3.0, 17);               // odd segment count
}

TEST_CASE("surface: open ends sharing a vertex are kept apart") {
  // Two open pipes along x, side by side, whose rims touch at one vertex: pipe A's far
  // rim at angle 0 and pipe B's near rim at angle pi are the same point (x, r, 0).
  // Arrangements: A then B, B then A, and A then B with one triangle of B's touching rim
  // moved to the front, so that the walk reaches the shared vertex along B's rim while
  // A's rim edges there come first (following the orientation alone would then join
  // the two rims into one figure-eight loop).
  const double r = 1.0, L = 4.0;
  const int n = 32;
  const TriangleMesh a = make_pipe_surface({0, 0, 0}, {1, 0, 0}, r, L, n, false);
  const TriangleMesh b = make_pipe_surface({L, 2 * r, 0}, {1, 0, 0}, r, L, n, false);
  const auto shared_a = static_cast<std::uint32_t>(a.vertices.size() - n);  // A: last ring, angle 0
  const std::uint32_t shared_b = n / 2;                                     // B: first ring, angle pi
  REQUIRE(norm(sub(a.vertices[shared_a], b.vertices[shared_b])) < 1e-12);
  for (int order = 0; order < 3; ++order) {
    CAPTURE(order);
    // first + second, with second's copy of the shared vertex replaced by first's.
    const TriangleMesh& first = order == 1 ? b : a;
    const TriangleMesh& second = order == 1 ? a : b;
    const std::uint32_t keep = order == 1 ? shared_b : shared_a, drop = order == 1 ? shared_a : shared_b;
    TriangleMesh m = first;
    const auto offset = static_cast<std::uint32_t>(first.vertices.size());
    m.vertices.insert(m.vertices.end(), second.vertices.begin(), second.vertices.end());
    for (auto t : second.triangles) {
      for (auto& v : t) v = v == drop ? keep : v + offset;
      m.triangles.push_back(t);
    }
    if (order == 2) {  // B's first triangle (on its near rim, angle 0) to the front
      const auto b_first = m.triangles.begin() + std::ptrdiff_t(a.triangles.size());
      std::rotate(m.triangles.begin(), b_first, b_first + 1);
    }
    m.description = "two touching pipes";
    CHECK(check_surface(m).boundary_edges == std::size_t(4 * n));
    const auto ends = find_open_ends(m);
    REQUIRE(ends.size() == 4);
    for (const OpenEnd& e : ends) {
      CHECK(e.edges == std::size_t(n));
      CHECK(e.radius == rel(polygon_radius(r, n), 1e-9));
      CHECK(std::fabs(e.normal[0]) == rel(1.0, 1e-9));
      CHECK(e.planarity < 1e-9);
    }
  }
}

TEST_CASE("surface: require_closed names the hole edges and where they are") {
  const TriangleMesh pipe = make_pipe_surface({0, 0, 0}, {0, 0, 1}, 1e-3, 4e-3, 64, false);
  CHECK(check_surface(pipe).boundary_edges == 128);
  CHECK(check_surface(pipe).hole_examples.size() == 5);
  try {
    require_closed(pipe);
    FAIL("an open pipe passed require_closed");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(contains(msg, "pipe surface"));
    CHECK(contains(msg, "not closed: 128 boundary edges"));
    CHECK(contains(msg, ") mm = ("));
    CHECK(contains(msg, ") m"));
  }
}

TEST_CASE("surface: hole examples stay finite for coordinates near the largest double") {
  TriangleMesh m;
  m.vertices = {{1.7e308, 0, 0}, {1.7e308, 1.0, 0}, {0, 0, -1.7e308}};
  m.triangles = {{0, 1, 2}};
  m.description = "huge triangle";
  const SurfaceCheck s = check_surface(m);
  CHECK(s.boundary_edges == 3);
  REQUIRE(s.hole_examples.size() == 3);
  for (const Point& p : s.hole_examples)
    for (double x : p) CHECK(std::isfinite(x));
}

TEST_CASE("surface: open_ends_toml gives one iolet table per end") {
  const TriangleMesh pipe = make_pipe_surface({0, 0, 0}, {1, 0.1, 0.05}, 1e-3, 8e-3, 64, false);
  const std::string toml = open_ends_toml(find_open_ends(pipe));
  auto count = [&](const std::string& part) {
    std::size_t k = 0;
    for (std::size_t at = toml.find(part); at != std::string::npos; at = toml.find(part, at + 1)) ++k;
    return k;
  };
  CHECK(count("[[boundaries.iolet]]") == 2);
  CHECK(count("center = [") == 2);
  CHECK(count("normal = [") == 2);
  CHECK(count("radius = ") == 2);
  // The largest end is the suggested inlet, the other an outlet at zero pressure.
  CHECK(count("name = \"inlet\"") == 1);
  CHECK(count("name = \"outlet1\"") == 1);
  CHECK(count("\ncondition = \"velocity\"") == 1);
  CHECK(count("\nprofile = \"parabolic\"") == 1);
  CHECK(count("\n# velocity = ") == 1);  // to fill in: a case without it is refused
  CHECK(count("\ncondition = \"pressure\"") == 1);
  CHECK(count("\npressure = 0.0") == 1);
  CHECK(toml.find("name = \"inlet\"") < toml.find("name = \"outlet1\""));
  CHECK(count("mm^2") == 2);
  CHECK(count("cap file") == 0);  // open ends come from no file
}
