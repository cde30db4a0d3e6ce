// boundaries: halfway bounce-back walls (the default for every solid voxel), periodic
// axes, moving walls (Ladd), inlets and outlets (velocity: Ladd or Zou-He; pressure: Nash
// or Zou-He), and the forces on obstacles. See README.md.
#include <cmath>
#include <memory>
#include <vector>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/plugin/plugin_api.hpp"
#include "plugins/boundaries/iolet_spec.hpp"
#include "plugins/boundaries/iolets.hpp"
#include "plugins/boundaries/walls.hpp"

namespace hemo::boundaries {

namespace {

class Boundaries {
 public:
  virtual ~Boundaries() = default;
  virtual void setup(SetupStage& st) = 0;
};

/// Everything that depends on the precision of the populations.
template <class Real>
class BoundariesIn final : public Boundaries {
 public:
  BoundariesIn(std::vector<MovingWall> walls, std::vector<IoletSpec> iolets)
      : walls_(std::move(walls)), iolets_(std::move(iolets)) {}
  ObstacleForces<Real>& obstacles() { return obstacles_; }
  void setup(SetupStage& st) override {
    fill_moving_walls<Real>(st, walls_);
    iolets_.setup(st);
    obstacles_.setup(st);
  }

 private:
  std::vector<MovingWall> walls_;
  IoletRuntime<Real> iolets_;
  ObstacleForces<Real> obstacles_;
};

class BoundariesPlugin final : public Plugin {
 public:
  std::array<bool, 3> periodic_axes(const config::Config& config) const override {
    std::array<bool, 3> periodic{false, false, false};
    for (const std::string& a : config.strings("boundaries.periodic")) periodic[a[0] - 'x'] = true;
    return periodic;
  }

  void shape_mesh(MeshStage& st) override {
    const config::Config cfg = st.config.section("boundaries");
    std::vector<MovingWall> walls = request_moving_walls(st, cfg);

    std::vector<IoletSpec> iolets = read_iolets(cfg);
    check_iolets_disjoint(iolets, st.voxels);
    for (IoletSpec& s : iolets) {
      const CutAtPlane c = cut_at_plane(s, st.voxels);
      std::vector<std::uint64_t> cut{std::uint64_t(c.voxels), std::uint64_t(c.outside_disc)};
      if (!st.voxels.holds_whole_box()) cut = {0, 0};  // windows overlap: a count would add voxels twice
      st.comm.sum(cut);
      if (cut[0] > 0)
        log::info(str("iolet '", s.name, "': cut ", cut[0], " fluid voxels beyond its plane",
                      cut[1] > 0 ? str(", ", cut[1], " of them outside its radius (the lumen is wider than the disc "
                                       "there: a pocket behind the plane, now solid)")
                                 : std::string()));
      check_cuts_fluid(s, st.voxels, st.comm);
      const IoletSpec* spec = &s;  // stable: the vector is not resized after this loop
      const geometry::VoxelGrid* vox = &st.voxels;
      s.link_class = st.request.add_link_class("iolet:" + s.name, [spec, vox](const std::array<int, 3>& v) {
        return claims(*spec, *vox, v);
      });
      // The peak velocity, and the inlet's diameter as the length of its Reynolds number.
      if (s.condition == IoletSpec::Condition::velocity)
        st.velocity_scales.push_back({std::fabs(s.value) + std::fabs(s.amplitude), "iolet '" + s.name + "'",
                                      2.0 * s.radius, "diameter of iolet '" + s.name + "'"});
    }
    if (st.config.string("run.precision") == "fp32") make<float>(st, std::move(walls), std::move(iolets));
    else make<double>(st, std::move(walls), std::move(iolets));
  }

  void plan(PlanStage& st) override {
    // The iolets' and moving walls' tables (IoletRuntime, fill_moving_walls): per coded
    // link of theirs about an index, a node and four reals (its profile and a scratch).
    std::uint64_t links = 0;
    for (std::size_t k = 0; k < st.mesh.links.size(); ++k) links += st.mesh.links.source[k] == mesh::wall_link;
    st.memory.array("boundaries", "iolet and wall link tables", links,
                    2 * sizeof(std::uint32_t) + 4 * (st.precision == Precision::fp32 ? 4 : 8));
  }
  void setup(SetupStage& st) override { impl_->setup(st); }

 private:
  template <class Real>
  void make(MeshStage& st, std::vector<MovingWall> walls, std::vector<IoletSpec> iolets) {
    auto impl = std::make_unique<BoundariesIn<Real>>(std::move(walls), std::move(iolets));
    impl->obstacles().request(st);
    impl_ = std::move(impl);
  }
  std::unique_ptr<Boundaries> impl_;
};

void declare_config(config::Schema& schema) {
  schema.section("boundaries", "boundaries",
                 "Walls, periodicity, inlets and outlets. Every solid voxel is a halfway bounce-back wall unless a "
                 "boundary claims it")
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
  declare_iolet_schema(schema);
}

Plugin* create() { return new BoundariesPlugin(); }

const PluginDescriptor descriptor{"boundaries", "boundary", "0.2.0",
                                  "bounce-back walls, periodic axes, moving walls, velocity and pressure iolets, "
                                  "obstacle forces",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::boundaries

HEMO_EXPORT_PLUGIN(hemo::boundaries::descriptor)
