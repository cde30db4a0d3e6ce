// Surface voxelization with the VLBM solid fraction P (seeds/000 sec. 2.2): volumes
// against exact polyhedron volumes, exact fractions on plane faces, rays through edges
// and vertices, orientation and thread independence, signed distance against brute force,
// the voxel geometry file. The surfaces are built here (not read from STL) so that the
// exact answers are known.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "core/common/error.hpp"
#include "core/geometry/point.hpp"
#include "core/geometry/voxel_file.hpp"
#include "core/geometry/voxelize.hpp"

using namespace hemo;
using geometry::Point;
using geometry::TriangleMesh;
using geometry::VoxelGrid;
using geometry::cross;
using geometry::dot;
using geometry::norm;
using geometry::unit;

namespace {

Point add(const Point& a, const Point& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Point sub(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Point scale(const Point& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }

// Signed volume by the divergence theorem (positive for outward orientation).
double signed_volume(const TriangleMesh& m) {
  double v = 0.0;
  for (const auto& t : m.triangles) v += dot(m.vertices[t[0]], cross(m.vertices[t[1]], m.vertices[t[2]]));
  return v / 6.0;
}

// Every directed edge appears once and its reverse once: closed and consistently oriented.
bool closed_and_oriented(const TriangleMesh& m) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
  for (const auto& t : m.triangles)
    for (int e = 0; e < 3; ++e) ++edges[{t[e], t[(e + 1) % 3]}];
  for (const auto& [e, n] : edges)
    if (n != 1 || edges.count({e.second, e.first}) == 0 || edges.at({e.second, e.first}) != 1) return false;
  return true;
}

// Outward orientation, so the divergence-theorem volume is positive.
void orient_outward(TriangleMesh& m) {
  if (signed_volume(m) < 0)
    for (auto& t : m.triangles) std::swap(t[1], t[2]);
}

// Icosahedron (its 20 faces found as the vertex triples at mutual distance 2), each
// subdivision splitting a triangle into 4 with the new vertices pushed onto the sphere.
TriangleMesh icosphere(const Point& centre, double radius, int subdivisions) {
  const double phi = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<Point> v;
  for (const double a : {-1.0, 1.0})
    for (const double b : {-phi, phi}) {
      v.push_back({a, b, 0.0});
      v.push_back({0.0, a, b});
      v.push_back({b, 0.0, a});
    }
  std::vector<std::array<std::uint32_t, 3>> tris;
  for (std::uint32_t a = 0; a < 12; ++a)
    for (std::uint32_t b = a + 1; b < 12; ++b)
      for (std::uint32_t c = b + 1; c < 12; ++c)
        if (std::fabs(norm(sub(v[a], v[b])) - 2) < 1e-9 && std::fabs(norm(sub(v[b], v[c])) - 2) < 1e-9 &&
            std::fabs(norm(sub(v[a], v[c])) - 2) < 1e-9) {
          tris.push_back(dot(v[a], cross(v[b], v[c])) > 0 ? std::array{a, b, c} : std::array{a, c, b});
        }
  for (auto& p : v) p = unit(p);
  for (int s = 0; s < subdivisions; ++s) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> mid;
    const auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
      const std::pair<std::uint32_t, std::uint32_t> key{std::min(a, b), std::max(a, b)};
      const auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back(unit(scale(add(v[a], v[b]), 0.5)));
      return mid[key] = std::uint32_t(v.size() - 1);
    };
    std::vector<std::array<std::uint32_t, 3>> next;
    for (const auto& [a, b, c] : tris) {
      const std::uint32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.push_back({a, ab, ca});
      next.push_back({b, bc, ab});
      next.push_back({c, ca, bc});
      next.push_back({ab, bc, ca});
    }
    tris = std::move(next);
  }
  TriangleMesh m;
  for (const auto& p : v) m.vertices.push_back(add(centre, scale(p, radius)));
  m.triangles = std::move(tris);
  m.description = "test icosphere";
  return m;
}

// Closed cylinder: `around` segments, `along` rings of side quads, a fan on each cap.
TriangleMesh cylinder(const Point& centre, const Point& axis, double radius, double length, int around, int along) {
  const Point u = unit(axis);
  const Point v = unit(cross(u, std::fabs(u[0]) < 0.9 ? Point{1, 0, 0} : Point{0, 1, 0}));
  const Point w = cross(u, v);
  TriangleMesh m;
  for (int r = 0; r <= along; ++r)
    for (int q = 0; q < around; ++q) {
      const double t = 2.0 * M_PI * q / around;
      const Point ring = add(scale(v, radius * std::cos(t)), scale(w, radius * std::sin(t)));
      m.vertices.push_back(add(add(centre, scale(u, length * (double(r) / along - 0.5))), ring));
    }
  const auto id = [&](int r, int q) { return std::uint32_t(r * around + (q % around)); };
  for (int r = 0; r < along; ++r)
    for (int q = 0; q < around; ++q) {
      m.triangles.push_back({id(r, q), id(r, q + 1), id(r + 1, q + 1)});
      m.triangles.push_back({id(r, q), id(r + 1, q + 1), id(r + 1, q)});
    }
  const auto c0 = std::uint32_t(m.vertices.size());
  m.vertices.push_back(add(centre, scale(u, -0.5 * length)));
  m.vertices.push_back(add(centre, scale(u, 0.5 * length)));
  for (int q = 0; q < around; ++q) {
    m.triangles.push_back({c0, id(0, q + 1), id(0, q)});
    m.triangles.push_back({c0 + 1, id(along, q), id(along, q + 1)});
  }
  orient_outward(m);
  m.description = "test cylinder";
  return m;
}

// Axis-aligned box, two triangles a face, appended to m (so several boxes make one mesh).
void add_box(TriangleMesh& m, const Point& lo, const Point& hi) {
  const auto base = std::uint32_t(m.vertices.size());
  for (int c = 0; c < 8; ++c) m.vertices.push_back({c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]});
  // Faces as corner quads (bit patterns), each split along a diagonal.
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& q : quads) {
    m.triangles.push_back({base + q[0], base + q[1], base + q[2]});
    m.triangles.push_back({base + q[0], base + q[2], base + q[3]});
  }
}

// Octahedron |x - c|_1 = r.
void add_octahedron(TriangleMesh& m, const Point& c, double r) {
  const auto base = std::uint32_t(m.vertices.size());
  for (int a = 0; a < 3; ++a)
    for (const double s : {-r, r}) {
      Point p = c;
      p[a] += s;
      m.vertices.push_back(p);
    }
  // Vertex 2a + (s > 0): one face per octant.
  for (int sx = 0; sx < 2; ++sx)
    for (int sy = 0; sy < 2; ++sy)
      for (int sz = 0; sz < 2; ++sz) {
        std::array<std::uint32_t, 3> t{base + std::uint32_t(sx), base + 2 + std::uint32_t(sy), base + 4 + std::uint32_t(sz)};
        if ((sx + sy + sz) % 2 == 0) std::swap(t[1], t[2]);
        m.triangles.push_back(t);
      }
}

geometry::VoxelizeOptions options(double dx, int subsamples = 8) {
  return {.dx = dx, .subsamples = subsamples, .max_voxels = std::int64_t(1) << 30, .margin = 1};
}

double fluid_volume(const VoxelGrid& g) {
  double v = 0.0;
  for (const float p : g.solid_fraction) v += 1.0 - p;
  return v * g.dx * g.dx * g.dx;
}

// Squared distance to a triangle, computed differently from the library (the plane if
// the foot point is inside, else the nearest of the three edges), for brute force.
double brute_distance2(const Point& p, const Point& a, const Point& b, const Point& c) {
  const Point n = unit(cross(sub(b, a), sub(c, a)));
  const double h = dot(sub(p, a), n);
  const Point f = sub(p, scale(n, h));
  const bool in = dot(cross(sub(b, a), sub(f, a)), n) >= 0 && dot(cross(sub(c, b), sub(f, b)), n) >= 0 &&
                  dot(cross(sub(a, c), sub(f, c)), n) >= 0;
  if (in) return h * h;
  double best = INFINITY;
  for (const auto& [s, e] : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}}) {
    const Point d = sub(e, s);
    const double t = std::clamp(dot(sub(p, s), d) / dot(d, d), 0.0, 1.0);
    const Point q = sub(add(s, scale(d, t)), p);
    best = std::min(best, dot(q, q));
  }
  return best;
}

}  // namespace

TEST_CASE("test surfaces are closed and consistently oriented") {
  CHECK(closed_and_oriented(icosphere({0, 0, 0}, 1.0, 2)));
  CHECK(icosphere({0, 0, 0}, 1.0, 4).size() == 5120);
  CHECK(closed_and_oriented(cylinder({0, 0, 0}, {1, 0.1, 0.05}, 1.0, 5.0, 24, 6)));
  TriangleMesh box;
  add_box(box, {0, 0, 0}, {1, 2, 3});
  CHECK(closed_and_oriented(box));
  CHECK(signed_volume(box) == doctest::Approx(6.0));
  TriangleMesh oct;
  add_octahedron(oct, {0, 0, 0}, 3.0);
  CHECK(closed_and_oriented(oct));
  CHECK(std::fabs(signed_volume(oct)) == doctest::Approx(4.0 / 3.0 * 27.0));
}

TEST_CASE("voxelize: sphere volume, deep voxels, characteristic length") {
  const double dx = 1e-4, r = 10 * dx;
  const Point c{0.013e-3, 0.037e-3, 0.071e-3};
  const auto mesh = icosphere(c, r, 4);
  const auto g = geometry::voxelize(mesh, options(dx));
  REQUIRE(g.solid_fraction.size() == std::size_t(g.voxel_count()));
  REQUIRE(g.fluid.size() == std::size_t(g.voxel_count()));
  // (1) fluid volume sum (1 - P) dx^3 against the polyhedron's exact volume.
  CHECK(fluid_volume(g) == doctest::Approx(signed_volume(mesh)).epsilon(0.005));
  // fluid = (P < 1), P in [0, 1], and a shell of partial voxels.
  std::int64_t partial = 0;
  for (std::size_t v = 0; v < g.fluid.size(); ++v) {
    REQUIRE(g.solid_fraction[v] >= 0.0f);
    REQUIRE(g.solid_fraction[v] <= 1.0f);
    REQUIRE((g.fluid[v] != 0) == (g.solid_fraction[v] < 1.0f));
    partial += g.solid_fraction[v] > 0.0f && g.solid_fraction[v] < 1.0f;
  }
  CHECK(partial > 500);
  // (3) deep inside: P = 0; deep outside (a box corner): solid.
  const auto inside = [&](const Point& p) {
    return std::array<int, 3>{int((p[0] - g.origin[0]) / dx), int((p[1] - g.origin[1]) / dx),
                              int((p[2] - g.origin[2]) / dx)};
  };
  const auto ci = inside(c);
  CHECK(g.solid_fraction[std::size_t(g.index(ci[0], ci[1], ci[2]))] == 0.0f);
  CHECK(g.is_fluid(ci[0], ci[1], ci[2]));
  CHECK(!g.is_fluid(0, 0, 0));
  CHECK(g.solid_fraction[0] == 1.0f);
  CHECK(!g.is_fluid(g.dims[0] - 1, g.dims[1] - 1, g.dims[2] - 1));
  // Diameter of the largest inscribed ball, to a voxel.
  CHECK(g.characteristic_length <= 2 * r);
  CHECK(g.characteristic_length >= 2 * (r - dx));
  CHECK(g.description.find("test icosphere") != std::string::npos);
}

TEST_CASE("voxelize: P does not depend on triangle orientation") {
  const double dx = 1e-4;
  const auto mesh = icosphere({0.2e-4, -0.3e-4, 0.1e-4}, 10 * dx, 4);
  auto flipped = mesh;
  for (std::size_t t = 0; t < flipped.triangles.size(); t += 2) std::swap(flipped.triangles[t][0], flipped.triangles[t][1]);
  const auto a = geometry::voxelize(mesh, options(dx));
  const auto b = geometry::voxelize(flipped, options(dx));
  CHECK(a.dims == b.dims);
  CHECK(a.solid_fraction == b.solid_fraction);  // bitwise
  CHECK(a.fluid == b.fluid);
}

TEST_CASE("voxelize: P on plane faces is the exact cut fraction") {
  // A box whose +x face cuts voxels at 1/4 and +y face at 3/4 (the -x, -y, -z faces lie
  // on voxel faces: the margin puts them there).
  const double dx = 0.25;
  TriangleMesh m;
  const Point lo{0.5, 0.25, 0.75};
  add_box(m, lo, {lo[0] + 5.25 * dx, lo[1] + 4.75 * dx, lo[2] + 6.0 * dx});
  const auto g = geometry::voxelize(m, options(dx));
  CHECK(g.dims == std::array<int, 3>{8, 7, 8});
  CHECK(g.origin[0] == doctest::Approx(lo[0] - dx));
  const auto P = [&](int i, int j, int k) { return double(g.solid_fraction[std::size_t(g.index(i, j, k))]); };
  const double tol = 1.0 / 8;
  CHECK(std::fabs(P(6, 2, 3) - 0.75) <= tol);            // x face at 6.25 dx
  CHECK(std::fabs(P(3, 5, 3) - 0.25) <= tol);           // y face at 5.75 dx
  CHECK(std::fabs(P(6, 5, 3) - (1 - 0.25 * 0.75)) <= tol);  // both
  // At 8 subsamples these fractions are exact, and so is the whole volume.
  CHECK(P(6, 2, 3) == 0.75);
  CHECK(P(3, 5, 3) == 0.25);
  CHECK(P(6, 5, 3) == 0.8125);
  for (int k = 1; k <= 6; ++k)
    for (int j = 1; j <= 4; ++j)
      for (int i = 1; i <= 5; ++i) REQUIRE(P(i, j, k) == 0.0);
  CHECK(P(3, 2, 7) == 1.0);
  CHECK(fluid_volume(g) == doctest::Approx(5.25 * 4.75 * 6.0 * dx * dx * dx));
}

TEST_CASE("voxelize: rays through edges and vertices are counted once") {
  SUBCASE("box face diagonals through every centre ray") {
    // Corners on voxel corners, one subsample: the centre rays (i + 1/2, j + 1/2) run
    // through the diagonals of the top and bottom faces.
    const double dx = 1.0;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {4, 4, 4});
    const auto g = geometry::voxelize(m, options(dx, 1));
    CHECK(g.fluid_count() == 64);
    for (int k = 1; k <= 4; ++k)
      for (int j = 1; j <= 4; ++j)
        for (int i = 1; i <= 4; ++i) REQUIRE(g.is_fluid(i, j, k));
  }
  SUBCASE("octahedron with its vertices and edges on subsample rays") {
    // A unit box at the origin fixes the voxel box's origin at (-1, -1, -1); the
    // octahedron's centre is then at (9.25, 9.25, 9) voxels from it, on a subsample ray
    // (offsets 1/4, 3/4 at two subsamples), and so are its six vertices and the
    // projections of its edges, while no subsample point lies on a face.
    const double dx = 1.0, r = 4.0;
    const Point oc{8.25, 8.25, 8.0};
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {1, 1, 1});
    add_octahedron(m, oc, r);
    const auto g = geometry::voxelize(m, options(dx, 2));
    REQUIRE(g.origin == std::array<double, 3>{-1, -1, -1});
    std::int64_t wrong = 0;
    for (int k = 0; k < g.dims[2]; ++k)
      for (int j = 0; j < g.dims[1]; ++j)
        for (int i = 0; i < g.dims[0]; ++i) {
          int out = 0;
          for (int s = 0; s < 8; ++s) {
            const Point p{-1 + i + 0.25 + 0.5 * (s & 1), -1 + j + 0.25 + 0.5 * ((s >> 1) & 1),
                          -1 + k + 0.25 + 0.5 * ((s >> 2) & 1)};
            const bool in_oct = std::fabs(p[0] - oc[0]) + std::fabs(p[1] - oc[1]) + std::fabs(p[2] - oc[2]) < r;
            const bool in_box = p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1 && p[2] > 0 && p[2] < 1;
            out += !(in_oct || in_box);
          }
          wrong += g.solid_fraction[std::size_t(g.index(i, j, k))] != float(out / 8.0);
        }
    CHECK(wrong == 0);
  }
}

TEST_CASE("voxelize: tilted closed cylinder volume") {
  const double dx = 1e-4;
  const auto mesh = cylinder({0.31e-4, 0.17e-4, -0.23e-4}, {1, 0.1, 0.05}, 6 * dx, 30 * dx, 96, 20);
  const auto g = geometry::voxelize(mesh, options(dx));
  CHECK(fluid_volume(g) == doctest::Approx(signed_volume(mesh)).epsilon(0.005));
  CHECK(g.characteristic_length == doctest::Approx(12 * dx).epsilon(0.1));
}

TEST_CASE("voxelize: an open surface is refused") {
  auto mesh = icosphere({0, 0, 0}, 10.0, 2);
  mesh.triangles.pop_back();
  CHECK_THROWS_WITH_AS(geometry::voxelize(mesh, options(1.0)), doctest::Contains("not closed"), InputError);
}

TEST_CASE("signed distance: exact at voxel centres within the band, +-band beyond") {
  const double dx = 1e-4, r = 10 * dx, band = 3 * dx;
  const Point c{0.013e-3, 0.037e-3, 0.071e-3};
  const auto mesh = icosphere(c, r, 4);
  const auto g = geometry::voxelize(mesh, options(dx));
  const auto sd = geometry::signed_distance(mesh, g, band);
  REQUIRE(sd.size() == std::size_t(g.voxel_count()));
  double worst_brute = 0.0, worst_sphere = 0.0;
  int in_band = 0;
  for (int k = 0; k < g.dims[2]; ++k)
    for (int j = 0; j < g.dims[1]; ++j)
      for (int i = 0; i < g.dims[0]; ++i) {
        const Point p = g.centre(i, j, k);
        const double s = sd[std::size_t(g.index(i, j, k))];
        const double rho = norm(sub(p, c));
        double d2 = INFINITY;
        for (const auto& t : mesh.triangles)
          d2 = std::min(d2, brute_distance2(p, mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]));
        const double d = std::sqrt(d2);
        if (std::fabs(rho - r) > 0.1 * dx) REQUIRE((s > 0) == (rho < r));  // + inside
        if (d < band) {
          ++in_band;
          worst_brute = std::max(worst_brute, std::fabs(std::fabs(s) - d));
          worst_sphere = std::max(worst_sphere, std::fabs(s - (r - rho)));
        } else {
          REQUIRE(std::fabs(s) == float(band));
        }
      }
  CHECK(in_band > 3000);
  CHECK(worst_brute < 1e-5 * dx);    // float output
  CHECK(worst_sphere < 0.02 * dx);  // the polyhedron is within ~0.01 dx of the sphere
}

TEST_CASE("voxelize and signed distance do not depend on the number of threads") {
  const double dx = 1e-4;
  const auto mesh = cylinder({0, 0, 0}, {1, 0.1, 0.05}, 5 * dx, 25 * dx, 64, 12);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto a = geometry::voxelize(mesh, options(dx));
  const auto sa = geometry::signed_distance(mesh, a, 2 * dx);
  omp_set_num_threads(2);
  const auto b = geometry::voxelize(mesh, options(dx));
  const auto sb = geometry::signed_distance(mesh, b, 2 * dx);
  omp_set_num_threads(threads);
  CHECK(a.solid_fraction == b.solid_fraction);
  CHECK(a.fluid == b.fluid);
  CHECK(a.characteristic_length == b.characteristic_length);
  CHECK(sa == sb);
}

TEST_CASE("voxel budget: estimate and refusal before allocating") {
  const double dx = 1e-4;
  const auto mesh = icosphere({0, 0, 0}, 10 * dx, 2);
  auto opt = options(dx);
  // Bounds span 20 dx (to rounding): 20 or 21 voxels plus 2 of margin per axis.
  const std::int64_t n = geometry::estimate_voxels(mesh, opt);
  CHECK(n >= 22 * 22 * 22);
  CHECK(n <= 23 * 23 * 23);
  opt.max_voxels = n;
  CHECK(geometry::voxelize(mesh, opt).voxel_count() == n);
  opt.max_voxels = 1000;
  try {
    geometry::voxelize(mesh, opt);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find(std::to_string(n) + " voxels") != std::string::npos);
    CHECK(what.find("limit of 1000") != std::string::npos);
    CHECK(what.find("B for P") != std::string::npos);  // bytes
    // The dx it suggests does fit.
    const auto at = what.find("; dx = ");
    REQUIRE(at != std::string::npos);
    REQUIRE(what.find(" m or coarser would fit", at) != std::string::npos);
    auto coarser = opt;
    coarser.dx = std::stod(what.substr(at + 7));
    CHECK(geometry::estimate_voxels(mesh, coarser) <= 1000);
    CHECK(geometry::estimate_voxels(mesh, coarser) > 500);
  }
  // A huge box saturates instead of overflowing.
  opt.dx = 1e-12;
  CHECK(geometry::estimate_voxels(mesh, opt) > std::int64_t(1) << 40);
  CHECK_THROWS_AS(geometry::voxelize(mesh, opt), InputError);
}

TEST_CASE("voxel file: round trip and read errors") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hemo_voxel_file_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const double dx = 1e-4;
  const auto g = geometry::voxelize(icosphere({0, 0, 0}, 6 * dx, 3), options(dx));
  const std::string path = (dir / "sphere.h5").string();
  geometry::write_voxel_file(path, g);
  CHECK(!fs::exists(path + ".tmp"));
  const auto back = geometry::read_voxel_file(path);
  CHECK(back.dims == g.dims);
  CHECK(back.origin == g.origin);
  CHECK(back.dx == g.dx);
  CHECK(back.characteristic_length == g.characteristic_length);
  CHECK(back.description == g.description);
  CHECK(back.solid_fraction == g.solid_fraction);
  CHECK(back.fluid == g.fluid);

  // A grid without P is written as 0 / 1.
  VoxelGrid plain;
  plain.dims = {3, 2, 1};
  plain.dx = 1.0;
  plain.fluid = {1, 0, 1, 1, 0, 0};
  geometry::write_voxel_file(path, plain);
  CHECK(geometry::read_voxel_file(path).solid_fraction == std::vector<float>{0, 1, 0, 0, 1, 1});

  CHECK_THROWS_WITH_AS(geometry::read_voxel_file((dir / "missing.h5").string()),
                       doctest::Contains("missing.h5: no such"), InputError);
  const std::string text = (dir / "text.h5").string();
  std::ofstream(text) << "not hdf5\n";
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(text), doctest::Contains("text.h5: not an HDF5 file"), InputError);

  // Damage a good file: drop the dataset, then put one of the wrong shape in its place.
  geometry::write_voxel_file(path, g);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Ldelete(f, "solid_fraction", H5P_DEFAULT) >= 0);
    H5Fclose(f);
  }
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains("sphere.h5: no dataset /solid_fraction"),
                       InputError);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hsize_t shape[3] = {2, 3, 4};
    const hid_t space = H5Screate_simple(3, shape, nullptr);
    const hid_t d = H5Dcreate2(f, "solid_fraction", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(d >= 0);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
  }
  CHECK_THROWS_WITH_AS(geometry::read_voxel_file(path), doctest::Contains("has shape (2, 3, 4) but dims say"),
                       InputError);
  fs::remove_all(dir);
}

// Run by hand: build/bin/hemo_unit_tests -tc="voxelize timing*" --no-skip
TEST_CASE("voxelize timing: ~200k triangles in a ~1e8-voxel box" * doctest::skip()) {
  const double dx = 1e-4;
  // Tilted cylinder, R = 150 dx, L = 1000 dx: box ~ 1000 x 400 x 350 voxels.
  const auto mesh = cylinder({0, 0, 0}, {1, 0.1, 0.05}, 150 * dx, 1000 * dx, 400, 250);
  const auto opt = geometry::VoxelizeOptions{.dx = dx, .subsamples = 8, .max_voxels = std::int64_t(1) << 31, .margin = 1};
  const auto t0 = std::chrono::steady_clock::now();
  const auto g = geometry::voxelize(mesh, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "voxelize timing: " << mesh.size() << " triangles, " << g.dims[0] << " x " << g.dims[1] << " x "
            << g.dims[2] << " = " << g.voxel_count() << " voxels, " << g.fluid_count() << " fluid, "
            << omp_get_max_threads() << " threads: " << seconds << " s\n"
            << "  fluid volume / polyhedron volume - 1 = " << fluid_volume(g) / signed_volume(mesh) - 1.0
            << ", characteristic length " << g.characteristic_length / dx << " dx\n";
  CHECK(fluid_volume(g) == doctest::Approx(signed_volume(mesh)).epsilon(0.005));
}
