#pragma once
// Host-side spatial search of the wall_shear plugin's surface map: which wall nodes each
// triangle of the surface takes its statistics from (plugin.cpp, surface_rows).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

namespace hemo::wall_shear {

/// The wall nodes (row-major N x 3, m) in a uniform grid of buckets `cell` wide over their
/// bounding box, rows ascending in each bucket: the one spatial search behind the surface
/// map, for the nearest node (surface_radius = 0) and the nodes within a radius. Holds a
/// reference to `nodes`, which must outlive it.
class NodeBuckets {
 public:
  NodeBuckets(const std::vector<double>& nodes, double cell) : nodes_(nodes), cell_(cell) {
    const std::size_t n = nodes.size() / 3;
    for (int a = 0; a < 3; ++a) {
      lo_[a] = std::numeric_limits<double>::max();
      hi_[a] = std::numeric_limits<double>::lowest();
    }
    for (std::size_t r = 0; r < n; ++r)
      for (int a = 0; a < 3; ++a) {
        lo_[a] = std::min(lo_[a], nodes[3 * r + a]);
        hi_[a] = std::max(hi_[a], nodes[3 * r + a]);
      }
    for (int a = 0; a < 3; ++a) dims_[a] = n == 0 ? 1 : std::max(1, int((hi_[a] - lo_[a]) / cell) + 1);
    first_.assign(std::size_t(dims_[0]) * dims_[1] * dims_[2] + 1, 0);
    std::vector<std::size_t> bucket(n);
    for (std::size_t r = 0; r < n; ++r) {
      const double* p = &nodes[3 * r];
      bucket[r] = index(axis_bucket(p, 0), axis_bucket(p, 1), axis_bucket(p, 2));
      ++first_[bucket[r] + 1];
    }
    std::partial_sum(first_.begin(), first_.end(), first_.begin());
    rows_.resize(n);
    std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
    for (std::size_t r = 0; r < n; ++r) rows_[fill[bucket[r]]++] = r;  // ascending row within a bucket
  }

  /// The nearest node to p, ties to the lower row (row 0 with no nodes): buckets searched
  /// in growing shells until no unsearched bucket can hold a nearer node.
  std::size_t nearest(const double* p) const {
    const int bx = axis_bucket(p, 0), by = axis_bucket(p, 1), bz = axis_bucket(p, 2);
    // A point outside the box is as far from it as from its clamped bucket's faces or more:
    // the shell bound below counts from the clamped bucket, so add that distance.
    double outside2 = 0.0;
    for (int a = 0; a < 3; ++a) {
      const double d = std::max({lo_[a] - p[a], p[a] - hi_[a], 0.0});
      outside2 += d * d;
    }
    double best = std::numeric_limits<double>::max();
    std::size_t best_row = 0;
    const int largest = std::max({dims_[0], dims_[1], dims_[2]});
    for (int s = 0; s <= largest; ++s) {
      // Every node in shell s is at least (s - 1) cells away from p (p lies in or beside bucket b).
      if (best < std::numeric_limits<double>::max()) {
        const double reach = std::max(0, s - 1) * cell_;
        if (reach * reach + outside2 > best) break;
      }
      for (int k = bz - s; k <= bz + s; ++k)
        for (int j = by - s; j <= by + s; ++j)
          for (int i = bx - s; i <= bx + s; ++i) {
            if (std::max({std::abs(i - bx), std::abs(j - by), std::abs(k - bz)}) != s) continue;
            if (i < 0 || j < 0 || k < 0 || i >= dims_[0] || j >= dims_[1] || k >= dims_[2]) continue;
            visit(index(i, j, k), p, [&](std::size_t r, double d2) {
              if (d2 < best || (d2 == best && r < best_row)) best = d2, best_row = r;
            });
          }
    }
    return best_row;
  }

  /// The nodes within `radius` of p (distance <= radius), rows ascending.
  std::vector<std::size_t> within(const double* p, double radius) const {
    std::vector<std::size_t> out;
    int from[3], to[3];
    for (int a = 0; a < 3; ++a) {
      from[a] = axis_bucket(p, a, -radius);
      to[a] = axis_bucket(p, a, radius);
    }
    const double r2 = radius * radius;
    for (int k = from[2]; k <= to[2]; ++k)
      for (int j = from[1]; j <= to[1]; ++j)
        for (int i = from[0]; i <= to[0]; ++i)
          visit(index(i, j, k), p, [&](std::size_t r, double d2) {
            if (d2 <= r2) out.push_back(r);
          });
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  /// The bucket of coordinate p[a] + shift along axis a, clamped into the grid.
  int axis_bucket(const double* p, int a, double shift = 0.0) const {
    return int(std::clamp(std::floor((p[a] + shift - lo_[a]) / cell_), 0.0, double(dims_[a] - 1)));
  }
  std::size_t index(int i, int j, int k) const {
    return std::size_t(i) + std::size_t(dims_[0]) * (std::size_t(j) + std::size_t(dims_[1]) * std::size_t(k));
  }
  /// f(row, squared distance to p) for each node of bucket b.
  template <class F>
  void visit(std::size_t b, const double* p, F&& f) const {
    for (std::uint32_t e = first_[b]; e < first_[b + 1]; ++e) {
      const std::size_t r = rows_[e];
      const double dx = nodes_[3 * r] - p[0], dy = nodes_[3 * r + 1] - p[1], dz = nodes_[3 * r + 2] - p[2];
      f(r, dx * dx + dy * dy + dz * dz);
    }
  }

  const std::vector<double>& nodes_;
  double cell_;
  std::array<double, 3> lo_{}, hi_{};
  std::array<int, 3> dims_{};
  std::vector<std::uint32_t> first_;
  std::vector<std::size_t> rows_;
};

}  // namespace hemo::wall_shear
