#pragma once
// The geometry of the [geometry] section: a box (channel), a pipe along any direction, a
// vessel tree, a closed STL surface or a voxel file, with sphere obstacles cut out.
//
// A Geometry knows its voxel box before it holds any voxel, and voxelizes any window of
// it on demand, so that each rank of a many-rank run holds only its own part
// (docs/architecture.md, "Many ranks": pass 1 counts fluid per brick slab by slab, pass 2
// voxelizes the rank's window). A voxel gets the same value in every window.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/geometry/voxel_grid.hpp"

namespace hemo::geometry {

/// Declares [geometry] and [[geometry.obstacle]].
void declare_schema(config::Schema& schema);

/// What voxelizing windows found that only the whole geometry can judge, summed (or, for
/// the distance, maximised) over windows that cover the box once, and over ranks.
struct VoxelTally {
  std::int64_t fluid = 0;                  // fluid voxels
  std::int64_t odd_rays = 0;               // stl: rays that cross the surface an odd number of times
  std::vector<std::int64_t> obstacle_cut;  // fluid voxels each [[geometry.obstacle]] turned solid
  double inside_distance = 0.0;            // stl: largest distance of an inside fluid voxel centre from the wall, m

  void add(const VoxelTally& other);
};

namespace detail {
class Shape;
}

class Geometry {
 public:
  /// Reads [geometry] at spacing dx (m) and sets up its voxel box; allocates no voxel.
  /// InputError for bad keys, shapes that give fewer than 2 voxels across, or a box of
  /// more than `max_box_voxels` voxels (one rank holds the whole box; many ranks pass
  /// a larger limit and check their windows).
  Geometry(const config::Config& geometry_section, double dx, std::int64_t max_box_voxels);
  ~Geometry();

  /// The voxel box: dims, origin, dx, description and characteristic length (an STL's
  /// only after finish()); no voxels.
  const VoxelGrid& frame() const;
  /// An empty tally of this geometry (one count per obstacle), the same on every rank.
  VoxelTally tally() const;
  /// The voxels of window w with the obstacles cut; with `tally` (from tally()), adds
  /// what it found.
  VoxelGrid voxelize(const VoxelWindow& w, VoxelTally* tally = nullptr) const;
  /// After windows covering the box once were tallied (and summed over ranks): the
  /// checks that need the whole geometry (InputError: no fluid at all, an obstacle that
  /// covers no fluid voxel, an STL surface that is not closed), and the characteristic
  /// length and description of an STL.
  void finish(const VoxelTally& total);

 private:
  struct Sphere {
    config::Config cfg;  // [[geometry.obstacle]], for messages
    std::array<double, 3> centre;
    double radius;
  };
  config::Config section_;
  std::unique_ptr<detail::Shape> shape_;
  std::vector<Sphere> obstacles_;
};

/// The whole box at once (one process, tools and tests): Geometry, voxelize, finish.
VoxelGrid build(const config::Config& geometry_section, double dx, std::int64_t max_voxels);

/// geometry.file of an "stl" or "voxels" shape, resolved against the case file and a
/// leading $HEMO_DATA_DIR/; InputError when it is missing.
std::string geometry_file(const config::Config& geometry_section);

}  // namespace hemo::geometry
