#pragma once
// Private to core/geometry: what the shapes of shapes.cpp share.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "core/config/config.hpp"
#include "core/geometry/shapes.hpp"
#include "core/geometry/voxel_grid.hpp"
#include "physics/d3q19.hpp"

namespace hemo::geometry::detail {

/// One shape of [geometry]: its voxel box, and the voxels of any window of it.
class Shape {
 public:
  virtual ~Shape() = default;
  /// dims, origin, dx, characteristic length and description; no voxels.
  VoxelGrid frame;
  /// Fills grid.fluid (allocated for grid.window, all 0) and, where the shape has them,
  /// grid.solid_fraction and grid.wall_cuts (has_wall_cuts), from the shape alone (no
  /// obstacles); adds to `tally` what only the whole geometry can judge. A voxel must get
  /// the same value in any window. With `centre`, also the centre classification of the
  /// held voxels (1 where the centre is inside the shape; at VoxelGrid::index), which
  /// the obstacles' cuts start from when the fluid flags follow P < 1.
  virtual void fill(VoxelGrid& grid, VoxelTally* tally, std::vector<std::uint8_t>* centre) const = 0;
  /// After the whole box was tallied: checks, and the frame's numbers that need it.
  virtual void finish(const VoxelTally& /*total*/) {}
  /// Whether the shape's walls are the box faces (a box: a link leaving it is cut at 1/2).
  virtual bool walls_are_box_faces() const { return false; }
};

/// Refuses (InputError on geometry.shape) a bounding box of more than max_voxels.
void check_voxel_budget(const config::Config& g, const std::array<int, 3>& dims, std::int64_t max_voxels);

/// Solid fraction P of the held cells an analytic wall cuts (VLBM paper, seeds/000 sec.
/// 2.2): the share of s^3 sample points per cell that lie outside the shape. Every other
/// cell keeps P from its centre (0 fluid, 1 solid). `sampler_for(centre)` returns, for a
/// cell the wall may cut (its centre within half a voxel diagonal of the wall), the
/// shape's inside test to sample with, and nothing otherwise. A cell with any fluid
/// becomes fluid.
template <class SamplerFor>
void sample_solid_fraction(VoxelGrid& v, int s, SamplerFor sampler_for) {
  v.solid_fraction.resize(v.fluid.size());
  for (std::size_t n = 0; n < v.fluid.size(); ++n) v.solid_fraction[n] = v.fluid[n] ? 0.0f : 1.0f;
  const double dx = v.dx;
  const auto& w = v.window;
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
        const std::array<double, 3> c = v.centre(i, j, k);
        const auto inside = sampler_for(c);
        if (!inside) continue;
        int outside = 0;
        for (int sz = 0; sz < s; ++sz)
          for (int sy = 0; sy < s; ++sy)
            for (int sx = 0; sx < s; ++sx)
              outside += !(*inside)({c[0] + ((sx + 0.5) / s - 0.5) * dx, c[1] + ((sy + 0.5) / s - 0.5) * dx,
                                     c[2] + ((sz + 0.5) / s - 0.5) * dx});
        const float P = float(outside) / float(s * s * s);
        const std::int64_t id = v.index(i, j, k);
        v.solid_fraction[id] = P;
        v.fluid[id] = P < 1.0f;
      }
}

/// The held window grown by one voxel on every side and clipped to the box: every voxel
/// a held voxel's links reach.
inline VoxelWindow grown_window(const VoxelGrid& g) {
  VoxelWindow r;
  for (int a = 0; a < 3; ++a) {
    const int lo = std::max(0, g.window.lo[a] - 1), hi = std::min(g.dims[a], g.window.lo[a] + g.window.extent[a] + 1);
    r.lo[a] = lo;
    r.extent[a] = std::max(0, hi - lo);
  }
  return r;
}

/// The centre classification of the voxels of window w: 1 where `inside(centre)` holds,
/// at w.offset(i, j, k). Layers in parallel.
template <class Inside>
std::vector<std::uint8_t> classify_centres(const VoxelGrid& g, const VoxelWindow& w, const Inside& inside) {
  std::vector<std::uint8_t> in(std::size_t(std::max<std::int64_t>(w.count(), 0)), 0);
#pragma omp parallel for schedule(static)
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i)
        in[std::size_t(w.offset(i, j, k))] = inside(g.centre(i, j, k));
  return in;
}

/// The held part of a classification `in` of window `around` (which holds g's window),
/// at VoxelGrid::index.
inline void copy_held(const VoxelGrid& g, const VoxelWindow& around, const std::vector<std::uint8_t>& in,
                      std::vector<std::uint8_t>& out) {
  const auto& w = g.window;
  out.resize(std::size_t(w.count()));
#pragma omp parallel for schedule(static)
  for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      std::copy_n(in.begin() + around.offset(w.lo[0], j, k), w.extent[0], out.begin() + g.index(w.lo[0], j, k));
}

/// Per-layer lists joined in layer order (so the threads that filled them do not matter).
inline std::vector<WallCut> join_layers(const std::vector<std::vector<WallCut>>& layers) {
  std::size_t total = 0;
  for (const auto& l : layers) total += l.size();
  std::vector<WallCut> cuts;
  cuts.reserve(total);
  for (const auto& l : layers) cuts.insert(cuts.end(), l.begin(), l.end());
  return cuts;
}

/// The wall cuts of the held voxels, sorted by (voxel, direction). `in` is the shape's
/// centre classification (1 inside) of `around` = grown_window(g), taken from the shape,
/// never from held flags, so a neighbour outside the window is judged as in any other
/// window. For each held voxel inside and each direction d = 1..18 whose neighbour is
/// outside the box or not inside, `exit_of_link(i, j, k, d)` gives the fraction of the link at
/// which it first crosses the surface (negative: none found, nothing stored; clamped to
/// 1). Layers run in parallel and are concatenated in order, so neither the threads nor
/// the window change the result. Each thread calls its own copy of `exit_of_link`, and
/// the links of one voxel one after another, so that a copy may keep what they share.
template <class Exit>
std::vector<WallCut> collect_wall_cuts(const VoxelGrid& g, const VoxelWindow& around,
                                       const std::vector<std::uint8_t>& in, const Exit& exit_of_link) {
  namespace q = phys::d3q19;
  const auto& w = g.window;
  // A neighbour inside the box lies in `around`: one constant step per direction.
  const std::int64_t sy = around.extent[0], sz = std::int64_t(around.extent[0]) * around.extent[1];
  std::array<std::int64_t, q::Q> step;
  for (int d = 0; d < q::Q; ++d) step[std::size_t(d)] = q::cx(d) + sy * q::cy(d) + sz * q::cz(d);
  std::vector<std::vector<WallCut>> layers(std::size_t(std::max(w.extent[2], 0)));
#pragma omp parallel
  {
    Exit cut_of = exit_of_link;  // this thread's copy
#pragma omp for schedule(dynamic, 1)
    for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k) {
      std::vector<WallCut>& out = layers[std::size_t(k - w.lo[2])];
      for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j) {
        const std::uint8_t* row = in.data() + around.offset(w.lo[0], j, k);
        const bool edge_jk = j == 0 || k == 0 || j == g.dims[1] - 1 || k == g.dims[2] - 1;
        for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
          const std::uint8_t* p = row + (i - w.lo[0]);
          if (!*p) continue;
          const bool edge = edge_jk || i == 0 || i == g.dims[0] - 1;
          for (int d = 1; d < q::Q; ++d) {
            if (edge ? g.inside_box(i + q::cx(d), j + q::cy(d), k + q::cz(d)) && p[step[std::size_t(d)]]
                     : p[step[std::size_t(d)]] != 0)
              continue;
            const double t = cut_of(i, j, k, d);
            if (!(t >= 0.0)) continue;  // also NaN
            out.push_back({g.voxel_index(i, j, k), std::uint8_t(d), float(std::min(t, 1.0))});
          }
        }
      }
    }
  }
  return join_layers(layers);
}

/// The interval [t0, t1] of t where a + t s lies inside a quadric given by
/// A t^2 + 2 B t + C < 0 (A >= 0); empty (t0 > t1) where it never does.
inline std::array<double, 2> quadric_interval(double A, double B, double C) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (!(A > 0.0)) return C < 0.0 ? std::array<double, 2>{-inf, inf} : std::array<double, 2>{inf, -inf};
  const double D = B * B - A * C;
  if (D < 0.0) return {inf, -inf};
  // The root pair without cancellation (Numerical Recipes 5.6).
  const double q = -(B + std::copysign(std::sqrt(D), B));
  if (q == 0.0) return {0.0, 0.0};
  const double r1 = q / A, r2 = C / q;
  return {std::min(r1, r2), std::max(r1, r2)};
}

/// Where the line a + t s is inside the infinite cylinder of radius r about the axis
/// through p along the unit vector u.
inline std::array<double, 2> line_in_cylinder(const std::array<double, 3>& a, const std::array<double, 3>& s,
                                              const std::array<double, 3>& p, const std::array<double, 3>& u,
                                              double r) {
  std::array<double, 3> w{a[0] - p[0], a[1] - p[1], a[2] - p[2]};
  const double wu = w[0] * u[0] + w[1] * u[1] + w[2] * u[2], su = s[0] * u[0] + s[1] * u[1] + s[2] * u[2];
  std::array<double, 3> wr, sr;  // the components across the axis
  for (int d = 0; d < 3; ++d) wr[d] = w[d] - wu * u[d], sr[d] = s[d] - su * u[d];
  const double A = sr[0] * sr[0] + sr[1] * sr[1] + sr[2] * sr[2];
  const double B = wr[0] * sr[0] + wr[1] * sr[1] + wr[2] * sr[2];
  const double C = wr[0] * wr[0] + wr[1] * wr[1] + wr[2] * wr[2] - r * r;
  return quadric_interval(A, B, C);
}

/// Where the line a + t s is inside the sphere of radius r about c.
inline std::array<double, 2> line_in_sphere(const std::array<double, 3>& a, const std::array<double, 3>& s,
                                            const std::array<double, 3>& c, double r) {
  const std::array<double, 3> w{a[0] - c[0], a[1] - c[1], a[2] - c[2]};
  return quadric_interval(s[0] * s[0] + s[1] * s[1] + s[2] * s[2], w[0] * s[0] + w[1] * s[1] + w[2] * s[2],
                          w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - r * r);
}

/// Where the line a + t s lies between the planes lo <= (x - p).u <= hi (u a unit vector).
inline std::array<double, 2> line_in_slab(const std::array<double, 3>& a, const std::array<double, 3>& s,
                                          const std::array<double, 3>& p, const std::array<double, 3>& u, double lo,
                                          double hi) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double along = (a[0] - p[0]) * u[0] + (a[1] - p[1]) * u[1] + (a[2] - p[2]) * u[2];
  const double su = s[0] * u[0] + s[1] * u[1] + s[2] * u[2];
  if (su == 0.0)
    return along >= lo && along <= hi ? std::array<double, 2>{-inf, inf} : std::array<double, 2>{inf, -inf};
  const double t0 = (lo - along) / su, t1 = (hi - along) / su;
  return {std::min(t0, t1), std::max(t0, t1)};
}

/// shape = "tree": a symmetric bifurcating tree of cylinders (vessel_tree.cpp).
std::unique_ptr<Shape> vessel_tree(const config::Config& g, double dx, std::int64_t max_voxels);

}  // namespace hemo::geometry::detail
