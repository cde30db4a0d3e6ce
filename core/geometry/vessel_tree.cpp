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

/// Where the line a + t s is inside the capsule: the cylinder between the end planes, or
/// one of the end spheres. The capsule is convex, so this is one interval.
std::array<double, 2> capsule_span(const Vessel& v, const Vec& a, const Vec& s) {
  const Vec seg = sub(v.end, v.start);
  const double len = std::sqrt(dot(seg, seg));
  std::array<double, 2> r = line_in_sphere(a, s, v.start, v.radius);
  const auto widen = [&r](const std::array<double, 2>& x) {
    if (x[0] <= x[1]) r = r[0] <= r[1] ? std::array<double, 2>{std::min(r[0], x[0]), std::max(r[1], x[1])} : x;
  };
  widen(line_in_sphere(a, s, v.end, v.radius));
  if (len > 0.0) {
    const Vec u = scale(seg, 1.0 / len);
    const auto c = line_in_cylinder(a, s, v.start, u, v.radius);
    const auto p = line_in_slab(a, s, v.start, u, 0.0, len);
    widen({std::max(c[0], p[0]), std::min(c[1], p[1])});
  }
  return r;
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

  void fill(VoxelGrid& grid, VoxelTally*, std::vector<std::uint8_t>* centre) const override {
    // The centres of the held voxels and of one layer around them: the wall cuts take a
    // neighbour's side from the shape, never from the held flags.
    const VoxelWindow g = grown_window(grid);
    std::vector<std::uint8_t> in(std::size_t(g.count()), 0);
    mark_centres(grid, g, in);
    copy_held(grid, g, in, grid.fluid);
    if (centre) *centre = grid.fluid;
    grid.wall_cuts = wall_cuts(grid, g, in);
    grid.has_wall_cuts = true;
    if (subsamples_ > 0) fill_solid_fraction(grid, vessels_, subsamples_);
  }

 private:
  /// Marks the voxels of window w whose centre lies in a vessel (out at w.offset): each
  /// vessel marks those of its own bounding box, so the cost follows the vessels' volume,
  /// not the box's.
  void mark_centres(const VoxelGrid& grid, const VoxelWindow& w, std::vector<std::uint8_t>& out) const {
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
            if (dot(off, off) < r2) out[std::size_t(w.offset(i, j, k))] = 1;
          }
    }
  }

  /// The wall cuts of the held voxels (`in`: the centres of window g, the held window
  /// grown by one). A link leaves the union of the capsules at the end of the union of
  /// their spans that holds t = 0. Only vessels whose axis passes within radius + 2 dx
  /// of the voxel centre can meet a link (at most sqrt(2) dx long); blocks of 8^3 voxels
  /// list the vessels that pass near them, so a voxel tests a handful, not all 4095.
  std::vector<WallCut> wall_cuts(const VoxelGrid& grid, const VoxelWindow& g,
                                 const std::vector<std::uint8_t>& in) const {
    namespace q = phys::d3q19;
    constexpr int B = 8;
    const auto& w = grid.window;
    const double dx = grid.dx, reach = 2.0 * dx;
    std::array<int, 3> nb;
    for (int a = 0; a < 3; ++a) nb[a] = (w.extent[a] + B - 1) / B;
    const std::size_t blocks = std::size_t(nb[0]) * std::size_t(nb[1]) * std::size_t(nb[2]);
    std::vector<std::vector<std::uint32_t>> near(blocks);
    for (std::uint32_t n = 0; n < vessels_.size(); ++n) {
      const Vessel& v = vessels_[n];
      int b0[3], b1[3];
      bool none = false;
      for (int a = 0; a < 3; ++a) {
        const double r = v.radius + reach;
        const int i0 = std::max(w.lo[a], int(std::floor((std::min(v.start[a], v.end[a]) - r - grid.origin[a]) / dx)));
        const int i1 = std::min(w.lo[a] + w.extent[a] - 1,
                                int(std::ceil((std::max(v.start[a], v.end[a]) + r - grid.origin[a]) / dx)));
        none |= i0 > i1;
        b0[a] = (i0 - w.lo[a]) / B;
        b1[a] = (i1 - w.lo[a]) / B;
      }
      if (none) continue;
      // Serial: the blocks near one vessel are few, and a parallel region per vessel
      // would cost more in barriers than it saves (4095 vessels).
      for (int kb = b0[2]; kb <= b1[2]; ++kb)
        for (int jb = b0[1]; jb <= b1[1]; ++jb)
          for (int ib = b0[0]; ib <= b1[0]; ++ib) {
            const std::array<int, 3> blo{w.lo[0] + ib * B, w.lo[1] + jb * B, w.lo[2] + kb * B};
            Vec c;
            double half2 = 0.0;
            for (int a = 0; a < 3; ++a) {
              const int m = std::min(B, w.lo[a] + w.extent[a] - blo[a]);
              c[a] = grid.origin[a] + (blo[a] + 0.5 * m) * dx;
              half2 += 0.25 * (m - 1) * (m - 1) * dx * dx;
            }
            if (capsule_distance(v, c) < v.radius + reach + std::sqrt(half2))
              near[std::size_t(ib) + std::size_t(nb[0]) * (std::size_t(jb) + std::size_t(nb[1]) * kb)].push_back(n);
          }
    }
    return collect_wall_cuts(
        grid, g, in,
        [&, spans = std::vector<std::array<double, 2>>()](int i, int j, int k, int d) mutable {
          spans.clear();
          const auto& list = near[std::size_t((i - w.lo[0]) / B) +
                                  std::size_t(nb[0]) * (std::size_t((j - w.lo[1]) / B) +
                                                        std::size_t(nb[1]) * std::size_t((k - w.lo[2]) / B))];
          const Vec x = grid.centre(i, j, k);
          const Vec s{q::cx(d) * dx, q::cy(d) * dx, q::cz(d) * dx};
          for (const std::uint32_t n : list) {
            const Vessel& v = vessels_[n];
            if (capsule_distance(v, x) >= v.radius + reach) continue;
            const auto span = capsule_span(v, x, s);
            if (span[0] <= span[1]) spans.push_back(span);
          }
          std::sort(spans.begin(), spans.end());
          double leaves = 0.0;
          for (const auto& span : spans) {
            if (span[0] > leaves + 1e-12) break;  // a gap: the link is outside from `leaves` on
            leaves = std::max(leaves, span[1]);
          }
          return leaves;
        });
  }

  std::vector<Vessel> vessels_;
  int subsamples_ = 0;  // 0: no solid fractions
};

}  // namespace

std::unique_ptr<Shape> vessel_tree(const config::Config& g, double dx, std::int64_t max_voxels) {
  return std::make_unique<VesselTree>(g, dx, max_voxels);
}

}  // namespace hemo::geometry::detail
