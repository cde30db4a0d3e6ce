#include "plugins/boundaries/walls.hpp"

#include <cmath>
#include <filesystem>

#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/exec/reduce.hpp"
#include "physics/bounce_back.hpp"
#include "plugins/boundaries/kernels.hpp"

namespace hemo::boundaries {

std::vector<MovingWall> request_moving_walls(MeshStage& st, const config::Config& boundaries) {
  std::vector<MovingWall> walls;
  int index = 0;
  for (const config::Config& w : boundaries.tables("moving_wall")) {
    MovingWall wall;
    wall.name = w.has("name") ? w.string("name") : str("wall", index);
    const std::string face = w.string("face");
    wall.axis = face[0] - 'x';
    wall.high = face[1] == '+';
    wall.velocity = w.vec3("velocity");
    if (st.request.periodic[wall.axis])
      w.fail("face", str("face ", face, " lies on a periodic axis (boundaries.periodic): it is not a wall"));
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
    st.velocity_scales.push_back({std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), "moving wall '" + wall.name + "'"});
    walls.push_back(wall);
    ++index;
  }
  return walls;
}

template <class Real>
void fill_moving_walls(SetupStage& st, const std::vector<MovingWall>& walls) {
  if (walls.empty()) return;
  auto& field = st.fields.get<Real>("link_value");
  std::vector<Real> values = field.array().to_host();
  const auto& links = st.mesh.links;
  for (const MovingWall& w : walls) {
    const phys::Vec3<Real> u{Real(st.units.velocity_to_lattice(w.velocity[0])),
                             Real(st.units.velocity_to_lattice(w.velocity[1])),
                             Real(st.units.velocity_to_lattice(w.velocity[2]))};
    for (std::size_t k = 0; k < links.size(); ++k)
      if (links.link_class[k] == w.link_class) values[k] = phys::moving_wall_term<Real>(links.direction[k], u);
  }
  field.array().upload(values);
}

template <class Real>
void ObstacleForces<Real>::request(MeshStage& st) {
  int i = 0;
  for (const config::Config& ob : st.config.tables("geometry.obstacle")) {
    Obstacle o;
    o.center = ob.vec3("center");
    o.radius = ob.real("radius");
    const auto c = o.center;
    const double r2 = o.radius * o.radius;
    const geometry::VoxelGrid* vox = &st.voxels;
    o.link_class = st.request.add_link_class(str("obstacle:", i), [c, r2, vox](const std::array<int, 3>& v) {
      const auto p = vox->centre(v[0], v[1], v[2]);
      return (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]) < r2;
    });
    obstacles_.push_back(std::move(o));
    ++i;
  }
}

template <class Real>
void ObstacleForces<Real>::setup(SetupStage& st) {
  if (obstacles_.empty()) return;
  run_ = RunContext::of(st);
  const auto& links = st.mesh.links;
  for (Obstacle& o : obstacles_) {
    std::vector<std::uint32_t> idx;
    for (std::size_t k = 0; k < links.size(); ++k)
      if (links.link_class[k] == o.link_class) idx.push_back(static_cast<std::uint32_t>(k));
    o.count = static_cast<std::uint32_t>(idx.size());
    o.link = exec::to_device(run_.space, idx);
    o.scratch = exec::DeviceArray<Real>(run_.space, 3 * idx.size());
  }
  std::string header;
  for (std::size_t i = 0; i < obstacles_.size(); ++i)
    header += str(",obstacle", i, "_Fx_N,obstacle", i, "_Fy_N,obstacle", i, "_Fz_N");
  csv_.open(st.comm, st.output_dir, "forces.csv", header, st.first_step);
  st.scheduler.add(Phase::output, "obstacle_forces", "boundaries", [this](StepContext& ctx) { monitor(ctx); });
}

template <class Real>
void ObstacleForces<Real>::monitor(StepContext& ctx) {
  if (!run_.due(ctx.step)) return;
  FieldRegistry& fields = *ctx.fields;
  // Lattice momentum per step -> N: rho_0 dx^4 / dt^2.
  const double to_newton = run_.units.density * std::pow(run_.units.dx, 4) / (run_.units.dt * run_.units.dt);
  std::vector<double> force;  // this rank's links, then summed over the ranks
  for (Obstacle& o : obstacles_) {
    // The populations after this step, where lb_bgk's streaming left them.
    const PopulationSlotsOf slots = population_slots(fields, *run_.mesh, ctx.step);
    visit_populations<Real>(fields, "f", [&](auto& f) {
      using Store = typename std::remove_cvref_t<decltype(f)>::value_type;
      std::visit(
          [&](auto where) {
            WallMomentum<Real, Store, decltype(where.lattice)> k{o.scratch.data(), o.link.data(),
                                                                 fields.get<std::uint32_t>("link_node").data(),
                                                                 fields.get<std::uint8_t>("link_direction").data(),
                                                                 fields.get<Real>("link_value").data(), f.data(), where,
                                                                 o.count};
            exec::for_each(run_.space, {0, o.count}, k, "boundaries::wall_momentum");
          },
          slots);
    });
    for (int c = 0; c < 3; ++c) force.push_back(exec::sum(run_.space, o.scratch.data() + std::size_t(c) * o.count, o.count));
  }
  run_.comm->sum(force);
  csv_.begin(ctx.step, ctx.time);
  for (double f : force) csv_.value(f * to_newton);
  csv_.end();
}

template void fill_moving_walls<float>(SetupStage&, const std::vector<MovingWall>&);
template void fill_moving_walls<double>(SetupStage&, const std::vector<MovingWall>&);
template class ObstacleForces<float>;
template class ObstacleForces<double>;

}  // namespace hemo::boundaries
