// Exact z-ray crossings for the voxelizer's inside test: see ZRays in voxelize_detail.hpp
// for why rays, why parity and why it is exact.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/common/text.hpp"
#include "core/geometry/voxelize_detail.hpp"

namespace hemo::geometry::detail {

namespace {

// 128-bit products: lattice coordinates reach ~2^21 per voxel times the box size, so a
// difference needs up to ~50 bits and a product of two of them does not fit 64.
__extension__ using Wide = __int128;

// Target lattice resolution: 2^20 lattice units per voxel moves a vertex by at most
// 5e-7 dx when snapped, far below what P at 8^3 subsamples can see.
constexpr std::int64_t lattice_per_voxel = std::int64_t(1) << 20;

// Orientation of p against the directed edge a -> b (twice the signed area of a, b, p).
Wide orient(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by, std::int64_t px, std::int64_t py) {
  return Wide(bx - ax) * Wide(py - ay) - Wide(by - ay) * Wide(px - ax);
}

// Sign of orient() for p moved to p + (eps, eps^2), eps -> 0+: the exact value where it
// is not zero, else the first non-zero derivative, -(by - ay) for eps then (bx - ax) for
// eps^2. Swapping a and b flips the result exactly, so two triangles sharing an edge
// always disagree about which side the ray is on: it is inside exactly one of them.
int perturbed_sign(Wide value, std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by) {
  if (value != 0) return value > 0 ? 1 : -1;
  if (by != ay) return by < ay ? 1 : -1;
  if (bx != ax) return bx > ax ? 1 : -1;
  return 0;  // a == b: only in an edge-on triangle, which is never tested
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

ZRays::ZRays(const TriangleMesh& mesh, const std::array<double, 3>& origin, double dx, const std::array<int, 3>& dims,
             int subsamples)
    : dims_(dims), subsamples_(subsamples) {
  // Every ray lies on the lattice: x = origin + (2 S i + 2 s + 1) dx / (2 S); a power
  // of two 'scale_' refines the lattice to ~2^20 per voxel.
  scale_ = 1;
  while (2 * subsamples_ * scale_ < lattice_per_voxel) scale_ *= 2;
  column_ = 2 * std::int64_t(subsamples_) * scale_;
  const double per_dx = double(column_);
  const double limit = 0x1p60;  // keeps every coordinate difference within 61 bits
  if (double(std::max(dims[0], dims[1])) * per_dx >= limit) {
    throw std::invalid_argument(str("ZRays: a box of ", dims[0], " x ", dims[1], " columns is too wide"));
  }

  std::vector<std::int64_t> sx(mesh.vertices.size()), sy(mesh.vertices.size());
  std::vector<double> sz(mesh.vertices.size());
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Point& p = mesh.vertices[v];
    sx[v] = std::llround((p[0] - origin[0]) / dx * per_dx);
    sy[v] = std::llround((p[1] - origin[1]) / dx * per_dx);
    sz[v] = (p[2] - origin[2]) / dx;
  }

  tris_.resize(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    // Vertices in index order, so that a triangle and its flipped copy give bitwise
    // the same crossing heights: P does not depend on orientation, not even in the
    // last bit.
    auto idx = mesh.triangles[t];
    std::sort(idx.begin(), idx.end());
    Tri& r = tris_[t];
    for (int c = 0; c < 3; ++c) {
      r.x[c] = sx[idx[c]];
      r.y[c] = sy[idx[c]];
      r.z[c] = sz[idx[c]];
    }
    r.xmin = std::min({r.x[0], r.x[1], r.x[2]});
    r.xmax = std::max({r.x[0], r.x[1], r.x[2]});
    r.ymin = std::min({r.y[0], r.y[1], r.y[2]});
    r.ymax = std::max({r.y[0], r.y[1], r.y[2]});
    r.zmin = std::min({r.z[0], r.z[1], r.z[2]});
    r.zmax = std::max({r.z[0], r.z[1], r.z[2]});
    const Wide area = orient(r.x[0], r.y[0], r.x[1], r.y[1], r.x[2], r.y[2]);
    r.area_sign = area > 0 ? 1 : (area < 0 ? -1 : 0);
    r.z0 = r.zx = r.zy = 0.0;
    if (r.area_sign != 0) {
      // Plane through the three (snapped) vertices, in voxel units, for layers_cut.
      const double x1 = double(r.x[1] - r.x[0]) / per_dx, y1 = double(r.y[1] - r.y[0]) / per_dx;
      const double x2 = double(r.x[2] - r.x[0]) / per_dx, y2 = double(r.y[2] - r.y[0]) / per_dx;
      const double z1 = r.z[1] - r.z[0], z2 = r.z[2] - r.z[0];
      const double nz = double(area) / (per_dx * per_dx);
      r.zx = -(y1 * z2 - z1 * y2) / nz;
      r.zy = -(z1 * x2 - x1 * z2) / nz;
      r.z0 = r.z[0] - r.zx * (double(r.x[0]) / per_dx) - r.zy * (double(r.y[0]) / per_dx);
    }
  }

  // Bin the triangles by the columns their xy box touches (closed), bin_width_ columns
  // a side: a column then looks only at the triangles of its bin.
  bins_x_ = (dims[0] + bin_width_ - 1) / bin_width_;
  bins_y_ = (dims[1] + bin_width_ - 1) / bin_width_;
  const auto bin_range = [&](const Tri& r, int& bx0, int& bx1, int& by0, int& by1) {
    // Column i spans [i column_, (i + 1) column_]; a box edge on a column boundary
    // touches both columns.
    const auto col = [&](std::int64_t v, int n) {
      return int(std::clamp<std::int64_t>(floor_div(v, column_), 0, n - 1));
    };
    bx0 = col(r.xmin - 1, dims_[0]) / bin_width_;
    bx1 = col(r.xmax, dims_[0]) / bin_width_;
    by0 = col(r.ymin - 1, dims_[1]) / bin_width_;
    by1 = col(r.ymax, dims_[1]) / bin_width_;
  };
  bin_start_.assign(std::size_t(bins_x_) * bins_y_ + 1, 0);
  for (const Tri& r : tris_) {
    int bx0, bx1, by0, by1;
    bin_range(r, bx0, bx1, by0, by1);
    for (int by = by0; by <= by1; ++by)
      for (int bx = bx0; bx <= bx1; ++bx) ++bin_start_[std::size_t(bx) + std::size_t(bins_x_) * by + 1];
  }
  for (std::size_t b = 1; b < bin_start_.size(); ++b) bin_start_[b] += bin_start_[b - 1];
  bin_tris_.resize(bin_start_.back());
  std::vector<std::uint32_t> fill(bin_start_.begin(), bin_start_.end() - 1);
  for (std::uint32_t t = 0; t < tris_.size(); ++t) {
    int bx0, bx1, by0, by1;
    bin_range(tris_[t], bx0, bx1, by0, by1);
    for (int by = by0; by <= by1; ++by)
      for (int bx = bx0; bx <= bx1; ++bx) bin_tris_[fill[std::size_t(bx) + std::size_t(bins_x_) * by]++] = t;
  }
}

void ZRays::column_candidates(int i, int j, std::vector<std::uint32_t>& out) const {
  out.clear();
  const std::size_t b = std::size_t(i / bin_width_) + std::size_t(bins_x_) * std::size_t(j / bin_width_);
  const std::int64_t x0 = i * column_, x1 = x0 + column_, y0 = j * column_, y1 = y0 + column_;
  for (std::uint32_t n = bin_start_[b]; n < bin_start_[b + 1]; ++n) {
    const Tri& r = tris_[bin_tris_[n]];
    if (r.xmax >= x0 && r.xmin <= x1 && r.ymax >= y0 && r.ymin <= y1) out.push_back(bin_tris_[n]);
  }
}

void ZRays::crossings(const std::vector<std::uint32_t>& candidates, std::int64_t x, std::int64_t y,
                      std::vector<double>& out) const {
  out.clear();
  for (const std::uint32_t t : candidates) {
    const Tri& r = tris_[t];
    if (r.area_sign == 0 || x < r.xmin || x > r.xmax || y < r.ymin || y > r.ymax) continue;
    // Barycentric weights (times twice the area) of the ray in the projected triangle.
    const Wide w0 = orient(r.x[1], r.y[1], r.x[2], r.y[2], x, y);
    if (perturbed_sign(w0, r.x[1], r.y[1], r.x[2], r.y[2]) != r.area_sign) continue;
    const Wide w1 = orient(r.x[2], r.y[2], r.x[0], r.y[0], x, y);
    if (perturbed_sign(w1, r.x[2], r.y[2], r.x[0], r.y[0]) != r.area_sign) continue;
    const Wide w2 = orient(r.x[0], r.y[0], r.x[1], r.y[1], x, y);
    if (perturbed_sign(w2, r.x[0], r.y[0], r.x[1], r.y[1]) != r.area_sign) continue;
    // The weights share the area's sign (or are 0) and sum to it exactly: a convex
    // combination, so the height lies within the triangle's z range.
    const double a = double(w0), b = double(w1), c = double(w2);
    out.push_back((a * r.z[0] + b * r.z[1] + c * r.z[2]) / (a + b + c));
  }
  std::sort(out.begin(), out.end());
}

void ZRays::layers_cut(std::uint32_t t, int i, int j, int& k0, int& k1) const {
  const Tri& r = tris_[t];
  double lo = r.zmin, hi = r.zmax;
  double slack = 1e-6;
  if (r.area_sign != 0) {
    // The plane over the column's four corners bounds the triangle's heights there.
    double plo = std::numeric_limits<double>::infinity(), phi = -plo;
    for (int c = 0; c < 4; ++c) {
      const double z = r.z0 + r.zx * (i + (c & 1)) + r.zy * (j + (c >> 1));
      plo = std::min(plo, z);
      phi = std::max(phi, z);
    }
    if (std::isfinite(plo) && std::isfinite(phi)) {
      lo = std::max(lo, plo);
      hi = std::min(hi, phi);
      slack *= 1.0 + std::fabs(r.zx) + std::fabs(r.zy);
    }
  }
  // A slack for the rounding of the plane, which grows with its slope: marking a layer
  // too many only costs subsamples, missing one would cost correctness.
  k0 = int(std::clamp(std::floor(lo - slack), -1.0, double(dims_[2])));
  k1 = int(std::clamp(std::floor(hi + slack), -1.0, double(dims_[2])));
  k0 = std::max(k0, 0);
  k1 = std::min(k1, dims_[2] - 1);
}

bool centre_inside(const ZRays& rays, int i, int j, int k) {
  std::vector<std::uint32_t> candidates;
  std::vector<double> z;
  rays.column_candidates(i, j, candidates);
  rays.crossings(candidates, rays.centre_coordinate(i), rays.centre_coordinate(j), z);
  const double zc = k + 0.5;
  const auto below = std::lower_bound(z.begin(), z.end(), zc) - z.begin();
  return below % 2 == 1;
}

std::vector<std::uint8_t> centre_inside_window(const ZRays& rays, const VoxelWindow& w) {
  std::vector<std::uint8_t> out(std::size_t(std::max<std::int64_t>(w.count(), 0)), 0);
#pragma omp parallel
  {
    std::vector<std::uint32_t> candidates;
    std::vector<double> z;
#pragma omp for schedule(dynamic)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
        rays.column_candidates(i, j, candidates);
        if (candidates.empty()) continue;
        rays.crossings(candidates, rays.centre_coordinate(i), rays.centre_coordinate(j), z);
        std::size_t below = 0;
        for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k) {
          while (below < z.size() && z[below] < k + 0.5) ++below;
          out[std::size_t(w.offset(i, j, k))] = below % 2;
        }
      }
  }
  return out;
}

}  // namespace hemo::geometry::detail
