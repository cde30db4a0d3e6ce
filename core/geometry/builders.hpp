#pragma once
// Private to core/geometry: what the shape builders share.
#include <array>
#include <cstdint>
#include <optional>

#include "core/config/config.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry::detail {

/// Refuses (InputError on geometry.shape) a bounding box of more than max_voxels.
void check_voxel_budget(const config::Config& g, const std::array<int, 3>& dims, std::int64_t max_voxels);

/// Solid fraction P of the cells an analytic wall cuts (VLBM paper, seeds/000 sec. 2.2):
/// the share of s^3 sample points per cell that lie outside the shape. Every other cell
/// keeps P from its centre (0 fluid, 1 solid). `sampler_for(centre)` returns, for a cell
/// the wall may cut (its centre within half a voxel diagonal of the wall), the shape's
/// inside test to sample with, and nothing otherwise. A cell with any fluid becomes fluid.
template <class SamplerFor>
void sample_solid_fraction(VoxelGrid& v, int s, SamplerFor sampler_for) {
  v.solid_fraction.resize(v.fluid.size());
  for (std::size_t n = 0; n < v.fluid.size(); ++n) v.solid_fraction[n] = v.fluid[n] ? 0.0f : 1.0f;
  const double dx = v.dx;
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < v.dims[2]; ++k)
    for (int j = 0; j < v.dims[1]; ++j)
      for (int i = 0; i < v.dims[0]; ++i) {
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
VoxelGrid build_vessel_tree(const config::Config& g, double dx, std::int64_t max_voxels);

}  // namespace hemo::geometry::detail
