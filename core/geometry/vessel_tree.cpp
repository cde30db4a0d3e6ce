// shape = "tree": a symmetric bifurcating tree of vessels, the sparse geometry of the
// performance benchmark (a fluid fraction near 0.2, like the portal-venous systems of the
// VLBM paper, seeds/000 sec. 3.2). Each vessel is a capsule (a cylinder with rounded
// ends) so parent and daughters join without gaps. Daughters leave the parent's end at
// +/- branching_angle, in a plane turned 90 degrees about the parent's axis at every
// generation, so the tree fills three dimensions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "core/common/text.hpp"
#include "core/geometry/builders.hpp"

namespace hemo::geometry::detail {

namespace {

using Vec = std::array<double, 3>;

Vec add(const Vec& a, const Vec& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec sub(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec scale(const Vec& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec normalise(const Vec& a) { return scale(a, 1.0 / std::sqrt(dot(a, a))); }

struct Vessel {
  Vec start, end;
  double radius;
};

/// d rotated by `angle` about the unit axis n (Rodrigues), n perpendicular to d.
Vec rotate(const Vec& d, const Vec& n, double angle) {
  return add(scale(d, std::cos(angle)), scale(cross(n, d), std::sin(angle)));
}

void grow(std::vector<Vessel>& out, const Vec& start, const Vec& dir, const Vec& plane_normal, double length,
          double radius, int level, const config::Config& g) {
  const Vec end = add(start, scale(dir, length));
  out.push_back({start, end, radius});
  if (level <= 1) return;
  const double angle = g.real("branching_angle") * M_PI / 180.0;
  const Vec next_normal = normalise(cross(dir, plane_normal));  // turn the plane by 90 degrees
  for (double side : {-1.0, 1.0}) {
    const Vec d = normalise(rotate(dir, plane_normal, side * angle));
    grow(out, end, d, next_normal, length * g.real("length_ratio"), radius * g.real("radius_ratio"), level - 1, g);
  }
}

double capsule_distance(const Vessel& v, const Vec& x) {
  const Vec seg = sub(v.end, v.start), p = sub(x, v.start);
  const double t = std::clamp(dot(p, seg) / dot(seg, seg), 0.0, 1.0);
  const Vec off = sub(p, scale(seg, t));
  return std::sqrt(dot(off, off));
}

/// Solid fraction P of the cells the vessel walls cut (builders.hpp): a cell within half
/// a voxel diagonal of some wall samples the vessels that come that close to it.
void fill_solid_fraction(VoxelGrid& grid, const std::vector<Vessel>& vessels, int s) {
  const double reach = 0.8660254037844386 * grid.dx;
  sample_solid_fraction(grid, s, [&](const Vec& c) {
    std::vector<const Vessel*> near;
    bool cut = false;
    for (const Vessel& v : vessels) {
      const double d = capsule_distance(v, c);
      if (d < v.radius + reach) near.push_back(&v);
      cut |= std::fabs(d - v.radius) < reach;
    }
    auto inside = [near](const Vec& x) {
      for (const Vessel* v : near)
        if (capsule_distance(*v, x) < v->radius) return true;
      return false;
    };
    return cut ? std::optional<decltype(inside)>(inside) : std::nullopt;
  });
}

class VesselTree final : public Shape {
 public:
  VesselTree(const config::Config& g, double dx, std::int64_t max_voxels) {
    if (!g.has("radius")) g.fail("radius", "is required for shape = \"tree\" (radius of the root vessel)");
    if (!g.has("length")) g.fail("length", "is required for shape = \"tree\" (length of the root vessel)");
    const Vec axis = g.vec3("axis");
    if (!(dot(axis, axis) > 0.0)) g.fail("axis", "must not be the zero vector");
    const Vec dir = normalise(axis);
    // Any vector not parallel to the axis gives the first bifurcation plane.
    const Vec helper = std::fabs(dir[2]) < 0.9 ? Vec{0, 0, 1} : Vec{0, 1, 0};
    const Vec plane_normal = normalise(cross(dir, cross(helper, dir)));

    const int levels = static_cast<int>(g.integer("levels"));
    grow(vessels_, g.vec3("center"), dir, plane_normal, g.real("length"), g.real("radius"), levels, g);
    const double smallest = vessels_.back().radius;
    if (smallest < dx) {
      g.fail("levels", str("the last generation has radius ", fmt_g(smallest), " m, less than lattice.dx = ",
                           fmt_g(dx), " m: use fewer levels or a smaller dx"));
    }
    Vec lo{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    Vec hi = scale(lo, -1.0);
    for (const Vessel& v : vessels_)
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::min({lo[d], v.start[d] - v.radius, v.end[d] - v.radius});
        hi[d] = std::max({hi[d], v.start[d] + v.radius, v.end[d] + v.radius});
      }
    frame.dx = dx;
    for (int d = 0; d < 3; ++d) {
      frame.dims[d] = static_cast<int>(std::ceil((hi[d] - lo[d]) / dx - 1e-9));
      frame.origin[d] = lo[d];
    }
    check_voxel_budget(g, frame.dims, max_voxels);
    subsamples_ = g.boolean("solid_fraction") ? static_cast<int>(g.integer("subsamples")) : 0;
    frame.characteristic_length = 2.0 * g.real("radius");
    frame.description = str("vessel tree of ", vessels_.size(), " vessels (", levels, " generations), root R = ",
                            fmt_g(g.real("radius")), " m, L = ", fmt_g(g.real("length")), " m");
  }

  void fill(VoxelGrid& grid, VoxelTally*) const override {
    // Each vessel marks the held voxels of its own bounding box whose centre lies within
    // its radius of the segment: cost proportional to the vessels' volume, not the box's.
    const auto& w = grid.window;
    const double dx = grid.dx;
    const Vec& lo = grid.origin;
    for (const Vessel& v : vessels_) {
      int b[3], e[3];
      for (int d = 0; d < 3; ++d) {
        b[d] = std::max(w.lo[d], static_cast<int>(std::floor((std::min(v.start[d], v.end[d]) - v.radius - lo[d]) / dx)));
        e[d] = std::min(w.lo[d] + w.extent[d] - 1,
                        static_cast<int>(std::ceil((std::max(v.start[d], v.end[d]) + v.radius - lo[d]) / dx)));
      }
      const Vec seg = sub(v.end, v.start);
      const double seg2 = dot(seg, seg), r2 = v.radius * v.radius;
#pragma omp parallel for schedule(static)
      for (int k = b[2]; k <= e[2]; ++k)
        for (int j = b[1]; j <= e[1]; ++j)
          for (int i = b[0]; i <= e[0]; ++i) {
            const Vec p = sub(grid.centre(i, j, k), v.start);
            const double t = std::clamp(dot(p, seg) / seg2, 0.0, 1.0);
            const Vec off = sub(p, scale(seg, t));
            if (dot(off, off) < r2) grid.fluid[grid.index(i, j, k)] = 1;
          }
    }
    if (subsamples_ > 0) fill_solid_fraction(grid, vessels_, subsamples_);
  }

 private:
  std::vector<Vessel> vessels_;
  int subsamples_ = 0;  // 0: no solid fractions
};

}  // namespace

std::unique_ptr<Shape> vessel_tree(const config::Config& g, double dx, std::int64_t max_voxels) {
  return std::make_unique<VesselTree>(g, dx, max_voxels);
}

}  // namespace hemo::geometry::detail
