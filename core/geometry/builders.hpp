#pragma once
// Private to core/geometry: what the shapes of shapes.cpp share.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/config/config.hpp"
#include "core/geometry/shapes.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry::detail {

/// One shape of [geometry]: its voxel box, and the voxels of any window of it.
class Shape {
 public:
  virtual ~Shape() = default;
  /// dims, origin, dx, characteristic length and description; no voxels.
  VoxelGrid frame;
  /// Fills grid.fluid (allocated for grid.window, all 0) and, where the shape has them,
  /// grid.solid_fraction, from the shape alone (no obstacles); adds to `tally` what
  /// only the whole geometry can judge. A voxel must get the same value in any window.
  virtual void fill(VoxelGrid& grid, VoxelTally* tally) const = 0;
  /// After the whole box was tallied: checks, and the frame's numbers that need it.
  virtual void finish(const VoxelTally& /*total*/) {}
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

/// shape = "tree": a symmetric bifurcating tree of cylinders (vessel_tree.cpp).
std::unique_ptr<Shape> vessel_tree(const config::Config& g, double dx, std::int64_t max_voxels);

}  // namespace hemo::geometry::detail
