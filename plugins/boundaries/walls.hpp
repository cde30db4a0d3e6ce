#pragma once
// The vessel wall (boundaries.wall: interpolated bounce-back where the geometry gives the
// surface's cut of each link, else the mesh's own halfway bounce-back), moving walls on
// the faces of the domain box (Ladd's moving bounce-back) and the momentum-exchange force
// on solid obstacles.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/plugin/plugin_api.hpp"
#include "plugins/boundaries/monitor.hpp"

namespace hemo::boundaries {

struct MovingWall {
  std::string name;
  int axis = 0;                      // 0, 1, 2
  bool high = false;                 // the face at the box's upper end along `axis`
  std::array<double, 3> velocity{};  // m/s
  int link_class = -1;
};

/// Reads [[boundaries.moving_wall]] and adds a link class per wall.
std::vector<MovingWall> request_moving_walls(MeshStage& st, const config::Config& boundaries);

/// Ladd's term for every link of every moving wall; constant in time, so written once.
template <class Real>
void fill_moving_walls(SetupStage& st, const std::vector<MovingWall>& walls);

/// boundaries.wall = "interpolated": the linear interpolated bounce-back of Bouzidi et al.
/// (physics/interpolated_bounce_back.hpp) on the vessel wall and the obstacles, from the
/// cut of each link that the geometry computed from the surface (VoxelGrid::wall_cuts).
/// A link class "wall" claims every solid voxel that no earlier class claimed (so it is
/// requested after the iolets, moving walls and obstacles); each step, before the
/// iolets' kernels (whose rim nodes read the wall's link values), one kernel over those
/// links writes kappa (partner - reflected), and one over their nodes takes the excess
/// mass they bring from the node's rest population (kernels.hpp, ReturnWallExcess). Links
/// whose kappa is 0 (a wall halfway, or no cut: the fallbacks) are left out: their value
/// stays 0.
template <class Real>
class InterpolatedWalls {
 public:
  /// Decides whether the case's walls are interpolated and, if so, adds the class and
  /// keeps this rank's cuts. `obstacle_classes`: the obstacles' link classes, which take
  /// the same rule.
  void request(MeshStage& st, std::vector<int> obstacle_classes);
  void setup(SetupStage& st);

 private:
  bool active_ = false;
  int wall_class_ = -1;
  std::vector<int> obstacle_classes_;
  std::vector<geometry::WallCut> cuts_;  // this rank's window, until setup
  std::uint32_t count_ = 0, near_ = 0, wall_nodes_ = 0;
  exec::DeviceArray<std::uint32_t> link_, node_, partner_, wall_node_, first_, node_link_;
  exec::DeviceArray<std::uint8_t> direction_;
  exec::DeviceArray<Real> kappa_;
  const mesh::SparseMesh* mesh_ = nullptr;
  exec::Space space_ = exec::Space::host;
};

/// The force the fluid exerts on each [[geometry.obstacle]], from the momentum that its
/// bounce-back links exchange (kernels.hpp, WallMomentum), written to
/// <output>/forces.csv every run.check_every steps.
template <class Real>
class ObstacleForces {
 public:
  /// Adds a link class per obstacle (so its links can be found again).
  void request(MeshStage& st);
  void setup(SetupStage& st);
  /// The obstacles' link classes (after request).
  std::vector<int> link_classes() const {
    std::vector<int> out;
    for (const Obstacle& o : obstacles_) out.push_back(o.link_class);
    return out;
  }

 private:
  struct Obstacle {
    std::array<double, 3> center{};
    double radius = 0.0;
    int link_class = -1;
    std::uint32_t count = 0;
    exec::DeviceArray<std::uint32_t> link;
    exec::DeviceArray<Real> scratch;
  };
  void monitor(StepContext& ctx);
  std::vector<Obstacle> obstacles_;
  RunContext run_;
  io::SeriesCsv csv_;
};

}  // namespace hemo::boundaries
