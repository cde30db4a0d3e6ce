#pragma once
// Moving walls on the faces of the domain box (Ladd's moving bounce-back) and the
// momentum-exchange force on solid obstacles. Plain walls need nothing: every unclaimed
// solid voxel is a halfway bounce-back wall in the mesh itself.
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

/// The force the fluid exerts on each [[geometry.obstacle]], from the momentum that its
/// bounce-back links exchange (kernels.hpp, WallMomentum), written to
/// <output>/forces.csv every run.check_every steps.
template <class Real>
class ObstacleForces {
 public:
  /// Adds a link class per obstacle (so its links can be found again).
  void request(MeshStage& st);
  void setup(SetupStage& st);

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
