#include "core/geometry/shapes.hpp"

#include "core/geometry/builders.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"
#include "core/geometry/voxel_file.hpp"
#include "core/geometry/voxelize.hpp"
#include "core/geometry/voxelize_detail.hpp"

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

class Box final : public detail::Shape {
 public:
  Box(const config::Config& g, double dx, std::int64_t max_voxels) {
    if (!g.has("size")) g.fail("size", "is required for shape = \"box\"");
    const Vec size = g.vec3("size");
    frame.dx = dx;
    frame.origin = g.vec3("origin");
    for (int d = 0; d < 3; ++d) frame.dims[d] = voxels_along(g, "size", size[d], dx);
    check_voxel_budget(g, frame.dims, max_voxels);
    frame.characteristic_length = std::min({frame.dims[0], frame.dims[1], frame.dims[2]}) * dx;
    frame.description = str("box ", fmt_g(frame.dims[0] * dx), " x ", fmt_g(frame.dims[1] * dx), " x ",
                            fmt_g(frame.dims[2] * dx), " m");
  }
  void fill(VoxelGrid& v, VoxelTally*, std::vector<std::uint8_t>* centre) const override {
    std::fill(v.fluid.begin(), v.fluid.end(), std::uint8_t{1});
    if (centre) centre->assign(v.fluid.size(), 1);
  }
  bool walls_are_box_faces() const override { return true; }
};

class Pipe final : public detail::Shape {
 public:
  Pipe(const config::Config& g, double dx, std::int64_t max_voxels) {
    if (!g.has("radius")) g.fail("radius", "is required for shape = \"pipe\"");
    if (!g.has("length")) g.fail("length", "is required for shape = \"pipe\"");
    R_ = g.real("radius");
    const double L = g.real("length");
    a_ = g.vec3("axis");
    const double norm = std::sqrt(a_[0] * a_[0] + a_[1] * a_[1] + a_[2] * a_[2]);
    if (!(norm > 0.0)) g.fail("axis", "must not be the zero vector");
    for (double& c : a_) c /= norm;
    centre_ = g.vec3("center");

    frame.dx = dx;
    for (int d = 0; d < 3; ++d) {
      const double ad = std::fabs(a_[d]);
      if (std::fabs(ad - 1.0) < 1e-12) {
        // Along the axis the box is exactly the pipe's length, so a periodic pipe closes
        // on itself without a gap.
        frame.dims[d] = voxels_along(g, "length", L, dx);
      } else {
        // Half-extent of the cylinder's bounding box along d; the cross-section gets a
        // whole number of voxels, centred on the axis, so the staircase is symmetric.
        const double half = 0.5 * L * ad + R_ * std::sqrt(std::max(0.0, 1.0 - ad * ad));
        frame.dims[d] = static_cast<int>(std::ceil(2.0 * half / dx - 1e-9));
        if (frame.dims[d] < 2) {
          g.fail("radius", str(fmt_g(R_), " m gives fewer than 2 voxels across at lattice.dx = ", fmt_g(dx),
                               " m (make lattice.dx smaller)"));
        }
      }
      frame.origin[d] = centre_[d] - 0.5 * frame.dims[d] * dx;
    }
    check_voxel_budget(g, frame.dims, max_voxels);
    half_len_ = 0.5 * L + 1e-9 * dx;
    subsamples_ = g.boolean("solid_fraction") ? static_cast<int>(g.integer("subsamples")) : 0;
    frame.characteristic_length = 2.0 * R_;
    frame.description = str("pipe R = ", fmt_g(R_), " m, L = ", fmt_g(L), " m along (", fmt_g(a_[0], 4), ", ",
                            fmt_g(a_[1], 4), ", ", fmt_g(a_[2], 4), ")");
  }

  void fill(VoxelGrid& v, VoxelTally*, std::vector<std::uint8_t>* centre) const override {
    namespace q = phys::d3q19;
    // The centres of the held voxels and of one layer around them, for the wall cuts.
    const VoxelWindow g = detail::grown_window(v);
    const std::vector<std::uint8_t> in =
        detail::classify_centres(v, g, [this](const Vec& c) { return centre_inside(c); });
    detail::copy_held(v, g, in, v.fluid);
    if (centre) *centre = v.fluid;
    v.wall_cuts = detail::collect_wall_cuts(v, g, in, [&](int i, int j, int k, int d) {
      const double dx = v.dx;
      return exit_at(v.centre(i, j, k), {q::cx(d) * dx, q::cy(d) * dx, q::cz(d) * dx});
    });
    v.has_wall_cuts = true;
    if (subsamples_ == 0) return;
    // The ends of the pipe are left as the centres decide (a pipe ends at iolets or wraps
    // around a periodic axis); only the cylinder wall is sampled.
    const double reach = 0.8660254037844386 * v.dx;  // half a voxel diagonal
    auto inside = [this](const Vec& x) { return std::sqrt(along_radial2(x)[1]) < R_; };
    detail::sample_solid_fraction(v, subsamples_, [&](const Vec& c) -> std::optional<decltype(inside)> {
      const auto [along, r2] = along_radial2(c);
      if (std::fabs(along) >= half_len_ || std::fabs(std::sqrt(r2) - R_) >= reach) return std::nullopt;
      return inside;
    });
  }

 private:
  bool centre_inside(const Vec& c) const {
    const auto [along, r2] = along_radial2(c);
    return std::fabs(along) < half_len_ && r2 < R_ * R_;
  }
  /// Where the link a -> a + s from an inside point leaves the pipe: through the cylinder
  /// where it leaves it within the link, else through a flat end. The cylinder first even
  /// where the link crosses an end plane before it: a pipe's ends are iolets (whose links
  /// are not the wall's) or wrap around a periodic axis, where the link's solid neighbour
  /// is the wrapped voxel beyond the cylinder, not the end plane.
  double exit_at(const Vec& a, const Vec& s) const {
    const auto cylinder = detail::line_in_cylinder(a, s, centre_, a_, R_);
    if (cylinder[1] <= 1.0) return std::max(0.0, cylinder[1]);
    const auto ends = detail::line_in_slab(a, s, centre_, a_, -half_len_, half_len_);
    return std::max(0.0, std::min(cylinder[1], ends[1]));
  }
  /// Distance along the axis from the centre, and squared distance from the axis.
  std::array<double, 2> along_radial2(const Vec& x) const {
    const Vec p{x[0] - centre_[0], x[1] - centre_[1], x[2] - centre_[2]};
    const double along = p[0] * a_[0] + p[1] * a_[1] + p[2] * a_[2];
    return {along, p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - along * along};
  }
  double R_ = 0.0, half_len_ = 0.0;
  Vec a_{}, centre_{};
  int subsamples_ = 0;  // 0: no solid fractions
};

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
/// that halfway bounce-back (lb_bgk alone) expects. The wall cuts stay.
void keep_or_drop_solid_fraction(bool keep, VoxelGrid& v) {
  if (keep || v.solid_fraction.empty()) return;
  for (std::size_t i = 0; i < v.fluid.size(); ++i) v.fluid[i] = v.solid_fraction[i] < 0.5f;
  v.solid_fraction.clear();
}

class StlSurface final : public detail::Shape {
 public:
  StlSurface(const config::Config& g, double dx, std::int64_t max_voxels)
      : surface_(read_stl(geometry_file(g), length_unit_from_string(g.string("unit")))) {
    require_closed(surface_);
    options_.dx = dx;
    options_.max_voxels = max_voxels;
    // One sample at the centre when only the staircase is wanted.
    keep_ = g.boolean("solid_fraction");
    options_.subsamples = keep_ ? static_cast<int>(g.integer("subsamples")) : 1;
    frame = voxel_box(surface_, options_);
    rays_ = std::make_unique<detail::ZRays>(surface_, frame.origin, dx, frame.dims, options_.subsamples);
    // The wall cuts follow the centre rays of one subsample. Their lattice is the same
    // (2^20 per voxel) for any power of two subsamples; other counts snap the vertices
    // to another lattice, so they get rays of their own.
    const int s = options_.subsamples;
    if (s & (s - 1)) centre_rays_ = std::make_unique<detail::ZRays>(surface_, frame.origin, dx, frame.dims, 1);
    bvh_ = std::make_unique<detail::TriangleBvh>(surface_);
  }
  void fill(VoxelGrid& v, VoxelTally* tally, std::vector<std::uint8_t>* centre) const override {
    namespace q = phys::d3q19;
    v.solid_fraction.resize(v.fluid.size());
    const std::int64_t odd = detail::fill_window(*rays_, v);
    if (tally) {
      tally->odd_rays += odd;
      // The distance is taken before the solid fractions are dropped (as voxelize() does).
      tally->inside_distance = std::max(tally->inside_distance, detail::largest_inside_distance(*bvh_, v, *rays_));
    }
    keep_or_drop_solid_fraction(keep_, v);

    // Wall cuts: the centre classification of the held voxels and one layer around them
    // (from the rays, never from the held flags), then the first triangle each link to
    // an outside neighbour meets.
    const VoxelWindow g = detail::grown_window(v);
    const std::vector<std::uint8_t> in = detail::centre_inside_window(centre_rays_ ? *centre_rays_ : *rays_, g);
    // The links of a voxel come one after another: they share the triangles near it.
    const double reach = std::sqrt(2.0) * v.dx * (1.0 + 1e-6);
    const auto first_hit = [&, voxel = std::int64_t(-1), candidates = std::vector<std::uint32_t>()](
                               int i, int j, int k, int d) mutable {
      const Vec x = v.centre(i, j, k);
      if (const std::int64_t id = v.voxel_index(i, j, k); id != voxel) {
        bvh_->near(x, reach, candidates);
        voxel = id;
      }
      return bvh_->first_hit(x, v.centre(i + q::cx(d), j + q::cy(d), k + q::cz(d)), candidates);
    };
    v.wall_cuts = detail::collect_wall_cuts(v, g, in, first_hit);
    v.has_wall_cuts = true;
    if (centre) detail::copy_held(v, g, in, *centre);
  }
  void finish(const VoxelTally& total) override {
    require_closed_rays(surface_, total.odd_rays);
    require_fluid(surface_, frame, total.fluid);
    frame.characteristic_length = 2.0 * total.inside_distance;
    frame.description = describe_voxelized(surface_, frame, options_.subsamples, total.fluid);
  }

 private:
  TriangleMesh surface_;
  VoxelizeOptions options_{};
  bool keep_ = false;
  std::unique_ptr<detail::ZRays> rays_;
  std::unique_ptr<detail::ZRays> centre_rays_;  // one subsample, where rays_'s lattice differs
  std::unique_ptr<detail::TriangleBvh> bvh_;
};

class VoxelFile final : public detail::Shape {
 public:
  VoxelFile(const config::Config& g, double dx, std::int64_t max_voxels) : path_(geometry_file(g)) {
    frame = read_voxel_file_header(path_);
    if (std::fabs(frame.dx - dx) > 1e-9 * dx)
      g.fail("file", str("was voxelized at dx = ", fmt_g(frame.dx), " m but lattice.dx = ", fmt_g(dx),
                         " m; set lattice.dx to match or run 'hemoflow mesh' again"));
    check_voxel_budget(g, frame.dims, max_voxels);
    keep_ = g.boolean("solid_fraction");
  }
  void fill(VoxelGrid& v, VoxelTally*, std::vector<std::uint8_t>* centre) const override {
    read_voxel_file_window(path_, v);
    if (centre) {
      // The file keeps P, not the centres: P < 1/2 is the staircase a case without solid
      // fractions gets from it, and a voxel with a cut had its centre inside.
      centre->resize(v.fluid.size());
      for (std::size_t n = 0; n < v.fluid.size(); ++n) (*centre)[n] = v.solid_fraction[n] < 0.5f;
      const std::int64_t nx = v.dims[0], nxy = nx * v.dims[1];
      for (const WallCut& c : v.wall_cuts)
        (*centre)[std::size_t(v.index(int(c.voxel % nx), int(c.voxel % nxy / nx), int(c.voxel / nxy)))] = 1;
    }
    keep_or_drop_solid_fraction(keep_, v);
  }

 private:
  std::string path_;
  bool keep_ = false;
};

}  // namespace

namespace {

struct Ball {
  Vec centre;
  double radius;
};

/// The wall cuts once the spheres are cut out of the shape: for each held voxel whose
/// centre is inside the shape (`centre`) and in no sphere, the shape's cuts (`v`'s, or
/// 1/2 where a link leaves the box of a shape whose walls are the box faces) and the
/// links whose neighbour's centre lies in a sphere; a link that crosses both keeps the
/// nearer crossing.
std::vector<WallCut> cuts_with_spheres(const VoxelGrid& v, const std::vector<std::uint8_t>& centre,
                                       const std::vector<Ball>& balls, bool box_faces) {
  namespace q = phys::d3q19;
  const auto& w = v.window;
  const std::vector<WallCut>& shape = v.wall_cuts;
  const double dx = v.dx;
  const auto inside = [](const Vec& p, const Ball& b) {
    const double e0 = p[0] - b.centre[0], e1 = p[1] - b.centre[1], e2 = p[2] - b.centre[2];
    return e0 * e0 + e1 * e1 + e2 * e2 < b.radius * b.radius;
  };
  std::vector<std::vector<WallCut>> layers(std::size_t(std::max(w.extent[2], 0)));
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k) {
    std::vector<WallCut>& out = layers[std::size_t(k - w.lo[2])];
    std::vector<const Ball*> near;
    // The shape's cuts are sorted: one cursor walks them along with the voxels.
    std::size_t at = std::size_t(
        std::lower_bound(shape.begin(), shape.end(), v.voxel_index(w.lo[0], w.lo[1], k),
                         [](const WallCut& c, std::int64_t id) { return c.voxel < id; }) -
        shape.begin());
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
        const std::int64_t id = v.voxel_index(i, j, k);
        while (at < shape.size() && shape[at].voxel < id) ++at;
        std::size_t end = at;
        while (end < shape.size() && shape[end].voxel == id) ++end;
        if (!centre[std::size_t(v.index(i, j, k))]) continue;
        const Vec x = v.centre(i, j, k);
        bool solid = false;
        near.clear();
        for (const Ball& b : balls) {
          solid |= inside(x, b);
          // A link is at most sqrt(2) dx long: farther spheres cannot meet it.
          const double e0 = x[0] - b.centre[0], e1 = x[1] - b.centre[1], e2 = x[2] - b.centre[2];
          if (std::sqrt(e0 * e0 + e1 * e1 + e2 * e2) < b.radius + 1.5 * dx) near.push_back(&b);
        }
        if (solid) continue;
        for (int d = 1; d < q::Q; ++d) {
          const int a = i + q::cx(d), b = j + q::cy(d), c = k + q::cz(d);
          double t = -1.0;  // the shape's crossing
          for (std::size_t n = at; n < end; ++n)
            if (shape[n].direction == d) t = shape[n].fraction;
          if (box_faces && !v.inside_box(a, b, c)) t = 0.5;
          bool into_sphere = false;
          if (!near.empty()) {
            const Vec y = v.centre(a, b, c);
            const Vec s{y[0] - x[0], y[1] - x[1], y[2] - x[2]};
            double first = std::numeric_limits<double>::infinity();
            for (const Ball* ball : near) {
              into_sphere |= inside(y, *ball);
              const auto span = detail::line_in_sphere(x, s, ball->centre, ball->radius);
              if (span[0] <= span[1] && span[1] >= 0.0 && span[0] <= 1.0)
                first = std::min(first, std::max(0.0, span[0]));
            }
            if (t < 0.0 && !into_sphere) continue;  // a fluid neighbour
            if (first <= 1.0) t = t < 0.0 ? first : std::min(t, first);
          }
          if (t < 0.0) continue;  // none found (rounding): nothing stored
          out.push_back({id, std::uint8_t(d), float(std::min(t, 1.0))});
        }
      }
  }
  return detail::join_layers(layers);
}

}  // namespace

void VoxelTally::add(const VoxelTally& o) {
  fluid += o.fluid;
  odd_rays += o.odd_rays;
  if (obstacle_cut.size() < o.obstacle_cut.size()) obstacle_cut.resize(o.obstacle_cut.size(), 0);
  for (std::size_t i = 0; i < o.obstacle_cut.size(); ++i) obstacle_cut[i] += o.obstacle_cut[i];
  inside_distance = std::max(inside_distance, o.inside_distance);
}

Geometry::Geometry(const config::Config& g, double dx, std::int64_t max_box_voxels) : section_(g) {
  const std::string shape = g.string("shape");
  refuse_keys_of_other_shape(g, shape);
  shape_ = shape == "box"      ? std::unique_ptr<detail::Shape>(std::make_unique<Box>(g, dx, max_box_voxels))
           : shape == "pipe"   ? std::make_unique<Pipe>(g, dx, max_box_voxels)
           : shape == "stl"    ? std::make_unique<StlSurface>(g, dx, max_box_voxels)
           : shape == "voxels" ? std::make_unique<VoxelFile>(g, dx, max_box_voxels)
                               : detail::vessel_tree(g, dx, max_box_voxels);
  for (const config::Config& ob : g.tables("obstacle")) obstacles_.push_back({ob, ob.vec3("center"), ob.real("radius")});
}

Geometry::~Geometry() = default;

const VoxelGrid& Geometry::frame() const { return shape_->frame; }

VoxelTally Geometry::tally() const {
  VoxelTally t;
  t.obstacle_cut.assign(obstacles_.size(), 0);
  return t;
}

VoxelGrid Geometry::voxelize(const VoxelWindow& w, VoxelTally* tally) const {
  const VoxelGrid& f = frame();
  VoxelGrid v;
  v.dims = f.dims;
  v.origin = f.origin;
  v.dx = f.dx;
  v.characteristic_length = f.characteristic_length;
  v.description = f.description;
  v.hold(w);
  VoxelTally found = this->tally();
  std::vector<std::uint8_t> centre;  // the shape's centre classification, for the obstacles' cuts
  // An STL's distance only when tallied.
  shape_->fill(v, tally ? &found : nullptr, obstacles_.empty() ? nullptr : &centre);
  // Obstacles: the held fluid voxels whose centre lies in a sphere turn solid (P = 1, so
  // that a voxel file keeps them solid: it stores P alone).
  for (std::size_t o = 0; o < obstacles_.size(); ++o) {
    const auto c = obstacles_[o].centre;
    const double r2 = obstacles_[o].radius * obstacles_[o].radius;
    std::int64_t removed = 0;
#pragma omp parallel for schedule(static) reduction(+ : removed)
    for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
      for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
        for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
          const Vec p = v.centre(i, j, k);
          const double d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
          std::uint8_t& cell = v.fluid[v.index(i, j, k)];
          if (d2 < r2 && cell) {
            cell = 0;
            if (!v.solid_fraction.empty()) v.solid_fraction[std::size_t(v.index(i, j, k))] = 1.0f;
            ++removed;
          }
        }
    found.obstacle_cut[o] = removed;
  }
  if (!obstacles_.empty()) {
    std::vector<Ball> balls;
    for (const Sphere& ob : obstacles_) balls.push_back({ob.centre, ob.radius});
    v.wall_cuts = cuts_with_spheres(v, centre, balls, shape_->walls_are_box_faces());
    v.has_wall_cuts = true;
  }
  if (tally) {
    found.fluid = v.fluid_count();
    tally->add(found);
  }
  return v;
}

void Geometry::finish(const VoxelTally& total) {
  shape_->finish(total);
  for (std::size_t o = 0; o < obstacles_.size(); ++o)
    // An obstacle that removes nothing is almost always a unit slip (mm for m).
    if (o >= total.obstacle_cut.size() || total.obstacle_cut[o] == 0)
      obstacles_[o].cfg.fail("center", "this sphere covers no fluid voxel: is it inside the domain, and in metres?");
  if (total.fluid == 0) section_.fail("shape", "the geometry contains no fluid voxel");
  for (const Sphere& ob : obstacles_) shape_->frame.description += str(", sphere r = ", fmt_g(ob.radius), " m");
}

VoxelGrid build(const config::Config& g, double dx, std::int64_t max_voxels) {
  Geometry geometry(g, dx, max_voxels);
  VoxelTally tally = geometry.tally();
  VoxelGrid v = geometry.voxelize(VoxelWindow::whole(geometry.frame().dims), &tally);
  geometry.finish(tally);
  v.characteristic_length = geometry.frame().characteristic_length;
  v.description = geometry.frame().description;
  return v;
}

}  // namespace hemo::geometry
