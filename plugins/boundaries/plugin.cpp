// boundaries: halfway bounce-back walls (the default for every solid voxel), periodic
// axes, and moving walls (Ladd's moving bounce-back) on the faces of the domain box.
// See README.md.
#include <cmath>
#include <vector>

#include "core/common/text.hpp"
#include "core/plugin/plugin_api.hpp"
#include "physics/bounce_back.hpp"

namespace hemo::boundaries {

namespace {

struct MovingWall {
  std::string name;
  int axis = 0;        // 0, 1, 2
  bool high = false;   // the face at the box's upper end along `axis`
  std::array<double, 3> velocity{};  // m/s
  int link_class = -1;
};

int axis_of(const std::string& s) { return s[0] - 'x'; }

class BoundariesPlugin final : public Plugin {
 public:
  void shape_mesh(MeshStage& st) override {
    const config::Config cfg = st.config.section("boundaries");
    for (const std::string& a : cfg.strings("periodic")) st.request.periodic[axis_of(a)] = true;

    int index = 0;
    for (const config::Config& w : cfg.tables("moving_wall")) {
      MovingWall wall;
      wall.name = w.has("name") ? w.string("name") : str("wall", index);
      const std::string face = w.string("face");
      wall.axis = axis_of(face);
      wall.high = face[1] == '+';
      wall.velocity = w.vec3("velocity");
      if (st.request.periodic[wall.axis]) {
        w.fail("face", str("face ", face, " lies on a periodic axis (boundaries.periodic): it is not a wall"));
      }
      // A halfway bounce-back wall can only slide: a normal velocity would push mass
      // through a wall that cannot move.
      if (wall.velocity[wall.axis] != 0.0) {
        w.fail("velocity", str("has a component normal to face ", face, " (", fmt_g(wall.velocity[wall.axis]),
                               " m/s); a moving wall can only slide along its face"));
      }
      const int axis = wall.axis, extent = st.voxels.dims[wall.axis];
      const bool high = wall.high;
      // Everything beyond the face belongs to the wall, edges and corners included, so
      // each node's wall links come in +/- pairs and the wall adds no net mass.
      wall.link_class = st.request.add_link_class(
          "moving_wall:" + wall.name,
          [axis, extent, high](const std::array<int, 3>& v) { return high ? v[axis] >= extent : v[axis] < 0; });
      const auto& u = wall.velocity;
      st.velocity_scales.emplace_back(std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]),
                                      "moving wall '" + wall.name + "'");
      walls_.push_back(wall);
      ++index;
    }
  }

  void setup(SetupStage& st) override {
    if (st.precision == Precision::fp32) fill_link_values<float>(st);
    else fill_link_values<double>(st);
  }

 private:
  /// Ladd's term for every link of every moving wall; constant in time, so computed once.
  template <class Real>
  void fill_link_values(SetupStage& st) {
    if (walls_.empty()) return;
    auto& field = st.fields.get<Real>("link_value");
    std::vector<Real> values = field.array().to_host();
    const auto& links = st.mesh.links;
    for (const MovingWall& w : walls_) {
      const phys::Vec3<Real> u{Real(st.units.velocity_to_lattice(w.velocity[0])),
                               Real(st.units.velocity_to_lattice(w.velocity[1])),
                               Real(st.units.velocity_to_lattice(w.velocity[2]))};
      for (std::size_t k = 0; k < links.size(); ++k)
        if (links.link_class[k] == w.link_class) values[k] = phys::moving_wall_term<Real>(links.direction[k], u);
    }
    field.array().upload(values);
  }

  std::vector<MovingWall> walls_;
};

void declare_config(config::Schema& schema) {
  schema.section("boundaries", "boundaries",
                 "Walls and periodicity. Every solid voxel is a halfway bounce-back wall unless a boundary claims it")
      .strings("periodic", "Axes along which the domain wraps around (its faces on those axes are not walls)")
      .choices({"x", "y", "z"})
      .default_value(std::vector<std::string>{});
  schema.table_array("boundaries.moving_wall", "boundaries",
                     "A face of the domain box that slides with a constant velocity (Ladd's moving bounce-back)")
      .string("name", "Label for logs (default wall<index>)")
      .string("face", "Which face of the box: x-, x+, y-, y+, z- or z+")
      .choices({"x-", "x+", "y-", "y+", "z-", "z+"})
      .required()
      .reals("velocity", "m/s", "Wall velocity; must lie in the face's plane", 3)
      .required();
}

Plugin* create() { return new BoundariesPlugin(); }

const PluginDescriptor descriptor{"boundaries", "boundary", "0.1.0",
                                  "halfway bounce-back walls, periodic axes, moving walls", &declare_config, &create};

}  // namespace
}  // namespace hemo::boundaries

HEMO_EXPORT_PLUGIN(hemo::boundaries::descriptor)
