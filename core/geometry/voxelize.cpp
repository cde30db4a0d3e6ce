// Surface -> voxels with the VLBM solid fraction P (seeds/000, sec. 2.2). The paper
// samples a signed distance field on q^3 sub-cells of each boundary cell (q = 8 in 3-D)
// and takes P as the share of sub-cells outside the wall. We take the same share of
// subsamples^3 points but classify them by exact z-ray parity (voxelize_detail.hpp) rather
// than through a sampled distance field, which would blur thin walls and sharp edges by
// the sampling pitch. Only voxels that a triangle may cut are subsampled: the others are
// wholly on one side, and the centre ray of their column decides them.
#include "core/geometry/voxelize.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/geometry/voxelize_detail.hpp"

namespace hemo::geometry {

namespace {

// Bytes per voxel that voxelize() allocates: P (float) and the fluid flag.
constexpr double bytes_per_voxel = sizeof(float) + sizeof(std::uint8_t);

std::string mesh_name(const TriangleMesh& mesh) {
  return mesh.description.empty() ? std::string("the surface") : mesh.description;
}

// Bounds of the vertices the triangles use (a stray unused vertex must not grow the box;
// TriangleMesh::bounds() counts every vertex).
std::array<Point, 2> used_bounds(const TriangleMesh& mesh) {
  const double inf = std::numeric_limits<double>::infinity();
  std::array<Point, 2> box{Point{inf, inf, inf}, Point{-inf, -inf, -inf}};
  for (const auto& tri : mesh.triangles)
    for (const std::uint32_t v : tri)
      for (int a = 0; a < 3; ++a) {
        box[0][a] = std::min(box[0][a], mesh.vertices[v][a]);
        box[1][a] = std::max(box[1][a], mesh.vertices[v][a]);
      }
  return box;
}

// Voxels along each axis for the box [lo - margin dx, hi + margin dx], as doubles so a
// hopeless dx cannot overflow.
std::array<double, 3> box_dims(const std::array<Point, 2>& box, double dx, int margin) {
  std::array<double, 3> n;
  for (int a = 0; a < 3; ++a) n[a] = std::max(1.0, std::ceil((box[1][a] - box[0][a]) / dx) + 2.0 * margin);
  return n;
}

double product(const std::array<double, 3>& n) { return n[0] * n[1] * n[2]; }

void check_mesh(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) throw InputError(mesh_name(mesh) + ": has no triangles to voxelize");
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (const std::uint32_t v : mesh.triangles[t]) {
      if (v >= mesh.vertices.size()) {
        throw InputError(str(mesh_name(mesh), ": triangle ", t, " refers to vertex ", v, " of ",
                             mesh.vertices.size()));
      }
      const Point& p = mesh.vertices[v];
      if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
        throw InputError(str(mesh_name(mesh), ": vertex ", v, " of triangle ", t, " is not finite"));
      }
    }
}

}  // namespace

std::int64_t estimate_voxels(const TriangleMesh& mesh, const VoxelizeOptions& options) {
  if (mesh.triangles.empty() || !(options.dx > 0.0)) return 0;
  const double total = product(box_dims(used_bounds(mesh), options.dx, std::max(options.margin, 0)));
  // 2^63 is exactly representable; anything at or above it saturates.
  return total >= 0x1p63 ? std::numeric_limits<std::int64_t>::max() : std::int64_t(total);
}

void check_voxelize_options(const TriangleMesh& mesh, const VoxelizeOptions& options) {
  const std::string name = mesh_name(mesh);
  if (!(options.dx > 0.0) || !std::isfinite(options.dx)) {
    throw InputError(str(name, ": voxel size dx = ", options.dx, " m; it must be a positive number"));
  }
  if (options.subsamples < 1 || options.subsamples > 64) {
    throw InputError(str(name, ": subsamples = ", options.subsamples, " per axis; it must be in 1..64"));
  }
  if (options.margin < 0) throw InputError(str(name, ": margin = ", options.margin, " voxels; it must be >= 0"));
  check_mesh(mesh);

  const auto box = used_bounds(mesh);
  const auto dims = box_dims(box, options.dx, options.margin);
  const double total = product(dims);
  const double int_max = double(std::numeric_limits<int>::max());
  if (total <= double(options.max_voxels) && std::max({dims[0], dims[1], dims[2]}) <= int_max) return;

  // A dx that fits, as a 3-digit number: the count scales as dx^-3 away from the margin,
  // then steps in the third digit take care of the rounding up and the margin.
  std::string hint;
  if (options.max_voxels > 0) {
    const double guess = options.dx * std::max(1.0, std::cbrt(total / double(options.max_voxels)));
    const double digit = std::pow(10.0, std::floor(std::log10(guess)) - 2);
    for (double steps = std::ceil(guess / digit); steps < 4000; ++steps) {
      const auto n = box_dims(box, steps * digit, options.margin);
      if (product(n) <= double(options.max_voxels) && std::max({n[0], n[1], n[2]}) <= int_max) {
        hint = str("; dx = ", fmt_g(steps * digit, 4), " m or coarser would fit");
        break;
      }
    }
    if (hint.empty()) hint = str("; no dx fits with a margin of ", options.margin, " voxels");
  }
  const auto estimate = estimate_voxels(mesh, options);
  throw InputError(str(name, ": at dx = ", fmt_g(options.dx), " m the voxel box (bounds plus ", options.margin,
                       " voxel(s) of margin) is ", fmt_g(dims[0], 15), " x ", fmt_g(dims[1], 15), " x ",
                       fmt_g(dims[2], 15), " = ", estimate, " voxels, more than the limit of ", options.max_voxels,
                       "; it would need ", fmt_bytes(total * bytes_per_voxel), " for P and the fluid map", hint));
}

VoxelGrid voxel_box(const TriangleMesh& mesh, const VoxelizeOptions& options) {
  check_voxelize_options(mesh, options);  // before any allocation
  const auto box = used_bounds(mesh);
  const auto n = box_dims(box, options.dx, options.margin);
  VoxelGrid g;
  g.dx = options.dx;
  for (int a = 0; a < 3; ++a) {
    g.dims[a] = int(n[a]);
    g.origin[a] = box[0][a] - options.margin * options.dx;
  }
  return g;
}

namespace detail {

std::int64_t fill_window(const ZRays& rays, VoxelGrid& g) {
  const int S = rays.subsamples();
  const int nz = g.dims[2];
  const auto& w = g.window;
  const int k_lo = w.lo[2], k_hi = w.lo[2] + w.extent[2] - 1;
  // Everything starts solid (P = 1); only columns a triangle touches are revisited.
  std::fill(g.solid_fraction.begin(), g.solid_fraction.end(), 1.0f);
  std::fill(g.fluid.begin(), g.fluid.end(), std::uint8_t{0});

  std::vector<double> offset(static_cast<std::size_t>(S));  // subsample heights within a voxel
  for (int s = 0; s < S; ++s) offset[std::size_t(s)] = (s + 0.5) / S;
  const double points = double(S) * S * S;

  std::int64_t odd_rays = 0;
  // Each column writes only its own voxels, from data no other column changes, so the
  // result does not depend on the threads or the schedule. Rows (fixed j) are the unit
  // of work: neighbouring columns then write neighbouring bytes. A column's rays run
  // through the whole box; only the window's layers are written.
#pragma omp parallel reduction(+ : odd_rays)
  {
    std::vector<std::uint32_t> candidates;
    std::vector<double> centre_z, sub_z;
    std::vector<std::uint8_t> cut(std::size_t(nz), 0);
    std::vector<int> boundary, outside;
#pragma omp for schedule(dynamic)
    for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j) {
      for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
        rays.column_candidates(i, j, candidates);
        if (candidates.empty()) continue;  // no crossing: outside all along
        // Layers some triangle may cut need subsamples; every crossing of the column's
        // rays lies in them, so outside [kmin, kmax] the column is outside.
        int kmin = nz, kmax = -1;
        for (const std::uint32_t t : candidates) {
          int k0, k1;
          rays.layers_cut(t, i, j, k0, k1);
          if (k0 > k1) continue;
          std::fill(cut.begin() + k0, cut.begin() + k1 + 1, std::uint8_t{1});
          kmin = std::min(kmin, k0);
          kmax = std::max(kmax, k1);
        }
        if (kmin > kmax) continue;
        rays.crossings(candidates, rays.centre_coordinate(i), rays.centre_coordinate(j), centre_z);
        odd_rays += std::int64_t(centre_z.size() % 2);
        boundary.clear();
        std::size_t below = 0;
        for (int k = kmin; k <= kmax; ++k) {
          const bool held = k >= k_lo && k <= k_hi;
          if (cut[std::size_t(k)]) {
            cut[std::size_t(k)] = 0;
            if (held) boundary.push_back(k);
            continue;
          }
          if (!held) continue;
          // Uncut: the whole voxel is on the side of its centre.
          while (below < centre_z.size() && centre_z[below] < k + 0.5) ++below;
          if (below % 2 == 1) {
            const auto v = std::size_t(g.index(i, j, k));
            g.solid_fraction[v] = 0.0f;
            g.fluid[v] = 1;
          }
        }
        if (boundary.empty()) continue;
        // Cut voxels: subsamples^2 rays through the column, each classifying the
        // subsamples of every cut voxel along it from one sorted crossing list.
        outside.assign(boundary.size(), 0);
        for (int sy = 0; sy < S; ++sy) {
          for (int sx = 0; sx < S; ++sx) {
            rays.crossings(candidates, rays.ray_coordinate(i, sx), rays.ray_coordinate(j, sy), sub_z);
            odd_rays += std::int64_t(sub_z.size() % 2);
            std::size_t under = 0;
            for (std::size_t b = 0; b < boundary.size(); ++b) {
              for (int sz = 0; sz < S; ++sz) {
                const double z = boundary[b] + offset[std::size_t(sz)];
                while (under < sub_z.size() && sub_z[under] < z) ++under;
                outside[b] += under % 2 == 0;
              }
            }
          }
        }
        for (std::size_t b = 0; b < boundary.size(); ++b) {
          const auto v = std::size_t(g.index(i, j, boundary[b]));
          g.solid_fraction[v] = float(double(outside[b]) / points);
          g.fluid[v] = outside[b] < int(points);  // any fluid at all: the voxel is stored
        }
      }
    }
  }
  return odd_rays;
}

}  // namespace detail

void require_closed_rays(const TriangleMesh& mesh, std::int64_t odd_rays) {
  if (odd_rays == 0) return;
  // A closed surface is crossed an even number of times by every ray; an odd count
  // means a hole (open iolet ends, a missing triangle) and no inside to speak of.
  throw InputError(str(mesh_name(mesh), ": the surface is not closed: ", odd_rays,
                       " of the voxelizer's rays cross it an odd number of times (a hole, an open end or a "
                       "non-manifold edge); cap the open ends before voxelizing"));
}

void require_fluid(const TriangleMesh& mesh, const VoxelGrid& box, std::int64_t fluid) {
  if (fluid > 0) return;
  throw InputError(str(mesh_name(mesh), ": encloses no fluid voxel at dx = ", fmt_g(box.dx), " m (", box.dims[0],
                       " x ", box.dims[1], " x ", box.dims[2], " voxels)"));
}

std::string describe_voxelized(const TriangleMesh& mesh, const VoxelGrid& box, int subsamples, std::int64_t fluid) {
  return str(mesh_name(mesh), ", voxelized at dx = ", fmt_g(box.dx), " m (", subsamples, "^3 subsamples): ", fluid,
             " fluid voxels in ", box.dims[0], " x ", box.dims[1], " x ", box.dims[2]);
}

VoxelGrid voxelize(const TriangleMesh& mesh, const VoxelizeOptions& options) {
  VoxelGrid g = voxel_box(mesh, options);
  g.hold(VoxelWindow::whole(g.dims));
  g.solid_fraction.resize(g.fluid.size());
  const detail::ZRays rays(mesh, g.origin, g.dx, g.dims, options.subsamples);
  require_closed_rays(mesh, detail::fill_window(rays, g));
  const std::int64_t fluid = g.fluid_count();
  require_fluid(mesh, g, fluid);
  g.characteristic_length = 2.0 * detail::largest_inside_distance(detail::TriangleBvh(mesh), g, rays);
  g.description = describe_voxelized(mesh, g, options.subsamples, fluid);
  return g;
}

}  // namespace hemo::geometry
