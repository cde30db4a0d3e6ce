#include "core/geometry/shapes.hpp"

#include "core/geometry/builders.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"
#include "core/geometry/voxel_file.hpp"
#include "core/geometry/voxelize.hpp"

namespace hemo::geometry {

void declare_schema(config::Schema& schema) {
  schema.section("geometry", "core", "Analytic shape of the fluid domain (lengths in m)")
      .string("shape", "Domain shape: 'box' (a channel or cavity), 'pipe' (a circular cylinder), 'tree' (a bifurcating "
                       "vessel tree), 'stl' (a closed surface from an STL file) or 'voxels' (a voxel file written by "
                       "'hemoflow mesh')")
      .choices({"box", "pipe", "tree", "stl", "voxels"})
      .required()
      .string("file", "stl, voxels: the file, relative to the case file; a leading $HEMO_DATA_DIR/ is replaced by "
                      "that environment variable")
      .string("unit", "stl: length unit of the file's coordinates")
      .choices({"m", "mm", "um"})
      .default_value(std::string("m"))
      .boolean("solid_fraction", "pipe, tree, stl, voxels: keep each wall cell's solid fraction P (for lb_vlbm); false: a cell "
                                 "is fluid when its centre is inside (a staircase for halfway bounce-back)")
      .default_value(false)
      .reals("size", "m", "box: edge lengths [x, y, z]", 3)
      .greater_than(0.0)
      .reals("origin", "m", "box: position of the corner with the smallest coordinates", 3)
      .default_value(std::vector<double>{0.0, 0.0, 0.0})
      .real("radius", "m", "pipe: radius; tree: radius of the root vessel")
      .greater_than(0.0)
      .real("length", "m", "pipe: length along its axis; tree: length of the root vessel")
      .greater_than(0.0)
      .reals("axis", "1", "pipe, tree: direction of the (root) axis (any direction; normalised)", 3)
      .default_value(std::vector<double>{1.0, 0.0, 0.0})
      .reals("center", "m", "pipe: midpoint of the axis; tree: where the root vessel starts", 3)
      .default_value(std::vector<double>{0.0, 0.0, 0.0})
      .integer("levels", "1", "tree: generations of vessels (1 = the root alone; 2^levels - 1 vessels)")
      .at_least(1)
      .at_most(12)
      .default_value(std::int64_t{4})
      .real("branching_angle", "deg", "tree: angle between a daughter vessel and its parent")
      .greater_than(0.0)
      .less_than(90.0)
      .default_value(35.0)
      .real("radius_ratio", "1", "tree: daughter / parent radius (Murray's law for a symmetric split: 2^(-1/3) = 0.794)")
      .greater_than(0.0)
      .at_most(1.0)
      .default_value(0.794)
      .real("length_ratio", "1", "tree: daughter / parent length")
      .greater_than(0.0)
      .at_most(1.0)
      .default_value(0.8)
      .integer("subsamples", "1",
               "pipe, tree, stl: with solid_fraction, sample points per voxel edge for P of the cells the wall cuts "
               "(the VLBM paper, sec. 2.2, uses 8)")
      .at_least(1)
      .at_most(32)
      .default_value(std::int64_t{8});
  schema.table_array("geometry.obstacle", "core", "Solid obstacles cut out of the domain")
      .string("shape", "Obstacle shape")
      .choices({"sphere"})
      .default_value(std::string("sphere"))
      .reals("center", "m", "Centre of the sphere", 3)
      .required()
      .real("radius", "m", "Radius of the sphere")
      .greater_than(0.0)
      .required();
}

namespace detail {

void check_voxel_budget(const config::Config& g, const std::array<int, 3>& dims, std::int64_t max_voxels) {
  const double total = double(dims[0]) * dims[1] * dims[2];
  if (total > double(max_voxels)) {
    g.fail("shape", str("the bounding box has ", dims[0], " x ", dims[1], " x ", dims[2], " = ", fmt_g(total, 4),
                        " voxels, more than the limit of ", fmt_g(double(max_voxels), 4),
                        " (", fmt_bytes(total), " for the voxel map alone); make lattice.dx larger"));
  }
}

}  // namespace detail

namespace {

using Vec = std::array<double, 3>;
using detail::check_voxel_budget;

int voxels_along(const config::Config& g, std::string_view key, double length, double dx) {
  const double n = length / dx;
  if (n > 1e9) g.fail(key, str("spans ", fmt_g(n), " voxels at lattice.dx = ", fmt_g(dx), " m"));
  const int rounded = static_cast<int>(std::llround(n));
  if (rounded < 2) {
    g.fail(key, str(fmt_g(length), " m gives ", rounded, " voxel(s) at lattice.dx = ", fmt_g(dx),
                    " m; at least 2 are needed (make lattice.dx smaller)"));
  }
  if (std::fabs(rounded - n) > 1e-6 * n) {
    log::warn(str("geometry.", key, ": ", fmt_g(length), " m is not a whole number of lattice.dx = ", fmt_g(dx),
                  " m; using ", rounded, " voxels (", fmt_g(rounded * dx), " m)"));
  }
  return rounded;
}

void refuse_keys_of_other_shape(const config::Config& g, const std::string& shape) {
  // Which keys each shape reads; anything else given is a mistake worth reporting.
  const std::vector<std::string> all{"size", "origin", "radius", "length", "axis", "center", "levels",
                                     "branching_angle", "radius_ratio", "length_ratio", "file", "unit",
                                     "solid_fraction", "subsamples"};
  const std::vector<std::string> box{"size", "origin"};
  const std::vector<std::string> pipe{"radius", "length", "axis", "center", "solid_fraction", "subsamples"};
  const std::vector<std::string> stl{"file", "unit", "solid_fraction", "subsamples"};
  const std::vector<std::string> voxels{"file", "solid_fraction"};
  const std::vector<std::string> tree{"radius", "length", "axis", "center", "levels", "branching_angle",
                                      "radius_ratio", "length_ratio", "solid_fraction", "subsamples"};
  const auto& allowed = shape == "box"    ? box
                        : shape == "pipe" ? pipe
                        : shape == "stl"  ? stl
                        : shape == "voxels" ? voxels
                                            : tree;
  for (const std::string& k : all)
    if (g.has(k) && std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      g.fail(k, str("does not apply to shape = \"", shape, "\""));
}

VoxelGrid build_box(const config::Config& g, double dx, std::int64_t max_voxels) {
  if (!g.has("size")) g.fail("size", "is required for shape = \"box\"");
  const Vec size = g.vec3("size");
  VoxelGrid v;
  v.dx = dx;
  v.origin = g.vec3("origin");
  for (int d = 0; d < 3; ++d) v.dims[d] = voxels_along(g, "size", size[d], dx);
  check_voxel_budget(g, v.dims, max_voxels);
  v.fluid.assign(static_cast<std::size_t>(v.voxel_count()), 1);
  v.characteristic_length = std::min({v.dims[0], v.dims[1], v.dims[2]}) * dx;
  v.description = str("box ", fmt_g(v.dims[0] * dx), " x ", fmt_g(v.dims[1] * dx), " x ", fmt_g(v.dims[2] * dx), " m");
  return v;
}

VoxelGrid build_pipe(const config::Config& g, double dx, std::int64_t max_voxels) {
  if (!g.has("radius")) g.fail("radius", "is required for shape = \"pipe\"");
  if (!g.has("length")) g.fail("length", "is required for shape = \"pipe\"");
  const double R = g.real("radius"), L = g.real("length");
  Vec a = g.vec3("axis");
  const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(norm > 0.0)) g.fail("axis", "must not be the zero vector");
  for (double& c : a) c /= norm;
  const Vec centre = g.vec3("center");

  VoxelGrid v;
  v.dx = dx;
  for (int d = 0; d < 3; ++d) {
    const double ad = std::fabs(a[d]);
    if (std::fabs(ad - 1.0) < 1e-12) {
      // Along the axis the box is exactly the pipe's length, so a periodic pipe closes
      // on itself without a gap.
      v.dims[d] = voxels_along(g, "length", L, dx);
    } else {
      // Half-extent of the cylinder's bounding box along d; the cross-section gets a
      // whole number of voxels, centred on the axis, so the staircase is symmetric.
      const double half = 0.5 * L * ad + R * std::sqrt(std::max(0.0, 1.0 - ad * ad));
      v.dims[d] = static_cast<int>(std::ceil(2.0 * half / dx - 1e-9));
      if (v.dims[d] < 2) {
        g.fail("radius", str(fmt_g(R), " m gives fewer than 2 voxels across at lattice.dx = ", fmt_g(dx),
                             " m (make lattice.dx smaller)"));
      }
    }
    v.origin[d] = centre[d] - 0.5 * v.dims[d] * dx;
  }
  check_voxel_budget(g, v.dims, max_voxels);
  v.fluid.assign(static_cast<std::size_t>(v.voxel_count()), 0);
  const double half_len = 0.5 * L + 1e-9 * dx, R2 = R * R;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < v.dims[2]; ++k)
    for (int j = 0; j < v.dims[1]; ++j)
      for (int i = 0; i < v.dims[0]; ++i) {
        const Vec c = v.centre(i, j, k);
        const Vec p{c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]};
        const double along = p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
        const double r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - along * along;
        if (std::fabs(along) < half_len && r2 < R2) v.fluid[v.index(i, j, k)] = 1;
      }
  if (g.boolean("solid_fraction")) {
    // The ends of the pipe are left as the centres decide (a pipe ends at iolets or wraps
    // around a periodic axis); only the cylinder wall is sampled.
    const double reach = 0.8660254037844386 * dx;  // half a voxel diagonal
    auto along_radial = [&](const Vec& x) {
      const Vec p{x[0] - centre[0], x[1] - centre[1], x[2] - centre[2]};
      const double along = p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
      return std::array<double, 2>{along, std::sqrt(std::max(0.0, p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - along * along))};
    };
    auto inside = [&](const Vec& x) { return along_radial(x)[1] < R; };
    detail::sample_solid_fraction(v, static_cast<int>(g.integer("subsamples")),
                                  [&](const Vec& c) -> std::optional<decltype(inside)> {
                                    const auto [along, r] = along_radial(c);
                                    if (std::fabs(along) >= half_len || std::fabs(r - R) >= reach) return std::nullopt;
                                    return inside;
                                  });
  }
  v.characteristic_length = 2.0 * R;
  v.description = str("pipe R = ", fmt_g(R), " m, L = ", fmt_g(L), " m along (", fmt_g(a[0], 4), ", ",
                      fmt_g(a[1], 4), ", ", fmt_g(a[2], 4), ")");
  return v;
}

void cut_obstacles(const config::Config& g, VoxelGrid& v) {
  for (const config::Config& ob : g.tables("obstacle")) {
    const Vec c = ob.vec3("center");
    const double r = ob.real("radius");
    std::int64_t removed = 0;
#pragma omp parallel for schedule(static) reduction(+ : removed)
    for (int k = 0; k < v.dims[2]; ++k)
      for (int j = 0; j < v.dims[1]; ++j)
        for (int i = 0; i < v.dims[0]; ++i) {
          const Vec p = v.centre(i, j, k);
          const double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
          std::uint8_t& cell = v.fluid[v.index(i, j, k)];
          if (d2 < r * r && cell) {
            cell = 0;
            ++removed;
          }
        }
    // An obstacle that removes nothing is almost always a unit slip (mm for m).
    if (removed == 0) ob.fail("center", "this sphere covers no fluid voxel: is it inside the domain, and in metres?");
    v.description += str(", sphere r = ", fmt_g(r), " m");
  }
}

}  // namespace

std::string geometry_file(const config::Config& g) {
  if (!g.has("file")) g.fail("file", str("is required for shape = \"", g.string("shape"), "\""));
  const std::string raw = g.string("file");
  const std::string var = "$HEMO_DATA_DIR/";
  std::string path;
  if (raw.rfind(var, 0) == 0) {
    const char* dir = std::getenv("HEMO_DATA_DIR");
    if (!dir || !*dir) g.fail("file", "starts with $HEMO_DATA_DIR/ but the environment variable HEMO_DATA_DIR is not set");
    path = (std::filesystem::path(dir) / raw.substr(var.size())).string();
  } else {
    path = g.file_path("file");
  }
  if (!std::filesystem::exists(path)) g.fail("file", str("'", path, "' does not exist"));
  return path;
}

namespace {

/// Without solid fractions a cell is fluid when its centre is inside: the staircase
/// that halfway bounce-back (lb_bgk alone) expects.
void keep_or_drop_solid_fraction(const config::Config& g, VoxelGrid& v) {
  if (g.boolean("solid_fraction") || v.solid_fraction.empty()) return;
  for (std::size_t i = 0; i < v.fluid.size(); ++i) v.fluid[i] = v.solid_fraction[i] < 0.5f;
  v.solid_fraction.clear();
}

VoxelGrid build_from_stl(const config::Config& g, double dx, std::int64_t max_voxels) {
  const TriangleMesh surface = read_stl(geometry_file(g), length_unit_from_string(g.string("unit")));
  require_closed(surface);
  VoxelizeOptions o;
  o.dx = dx;
  o.max_voxels = max_voxels;
  // One sample at the centre when only the staircase is wanted.
  o.subsamples = g.boolean("solid_fraction") ? static_cast<int>(g.integer("subsamples")) : 1;
  VoxelGrid v = voxelize(surface, o);
  keep_or_drop_solid_fraction(g, v);
  return v;
}

VoxelGrid build_from_voxel_file(const config::Config& g, std::int64_t max_voxels, double dx) {
  VoxelGrid v = read_voxel_file(geometry_file(g));
  if (std::fabs(v.dx - dx) > 1e-9 * dx)
    g.fail("file", str("was voxelized at dx = ", fmt_g(v.dx), " m but lattice.dx = ", fmt_g(dx),
                       " m; set lattice.dx to match or run 'hemoflow mesh' again"));
  check_voxel_budget(g, v.dims, max_voxels);
  keep_or_drop_solid_fraction(g, v);
  return v;
}

}  // namespace

VoxelGrid build(const config::Config& g, double dx, std::int64_t max_voxels) {
  const std::string shape = g.string("shape");
  refuse_keys_of_other_shape(g, shape);
  VoxelGrid v = shape == "box"      ? build_box(g, dx, max_voxels)
                : shape == "pipe"   ? build_pipe(g, dx, max_voxels)
                : shape == "stl"    ? build_from_stl(g, dx, max_voxels)
                : shape == "voxels" ? build_from_voxel_file(g, max_voxels, dx)
                                    : detail::build_vessel_tree(g, dx, max_voxels);
  cut_obstacles(g, v);
  if (v.fluid_count() == 0) g.fail("shape", "the geometry contains no fluid voxel");
  return v;
}

}  // namespace hemo::geometry
