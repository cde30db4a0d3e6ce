#include "plugins/boundaries/walls.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/exec/reduce.hpp"
#include "physics/bounce_back.hpp"
#include "physics/interpolated_bounce_back.hpp"
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
void InterpolatedWalls<Real>::request(MeshStage& st, std::vector<int> obstacle_classes) {
  if (st.config.string("boundaries.wall") != "interpolated") return;
  const geometry::VoxelGrid& v = st.voxels;
  if (!v.has_wall_cuts) {
    log::info(str("boundaries.wall = \"interpolated\": the geometry (", v.description,
                  ") has no curved surface to cut the links, so its walls are halfway bounce-back (exact on the voxel "
                  "faces)"));
    return;
  }
  if (!v.solid_fraction.empty()) {
    // The partial cells are the wall's position there; cutting the links into the solid
    // voxels beyond them as well would place the wall twice.
    log::info("boundaries.wall = \"interpolated\" with geometry.solid_fraction = true: the partial cells (lb_vlbm) "
              "carry the wall, and the links into solid voxels stay halfway bounce-back");
    return;
  }
  active_ = true;
  obstacle_classes_ = std::move(obstacle_classes);
  wall_class_ = st.request.add_vessel_wall_class("wall", [](const std::array<int, 3>&) { return true; });
  cuts_ = v.wall_cuts;
}

template <class Real>
void InterpolatedWalls<Real>::setup(SetupStage& st) {
  if (!active_) return;
  const mesh::SparseMesh& m = st.mesh;
  auto cut_of = [&](std::uint32_t n, int d) {
    return double(geometry::find_wall_cut(cuts_, std::int64_t(m.voxel_index(n)), d));
  };
  auto interpolated = [&](int cls) {
    return cls == wall_class_ || std::find(obstacle_classes_.begin(), obstacle_classes_.end(), cls) != obstacle_classes_.end();
  };
  // The kernel's links: the near ones (the wall nearer than halfway) first, then the far
  // ones, each ordered by direction and then node, so that the threads of a warp read the
  // same population array at nearby nodes instead of 19 arrays at one node (the link
  // table's own order is node, then direction). Each link's value is computed on its own,
  // so the order changes no bit.
  struct WallLink {
    std::uint8_t far, direction;
    std::uint32_t node, link, partner;
    Real kappa;
  };
  std::vector<WallLink> wall_links;
  std::vector<std::uint64_t> tally(4, 0);  // links of the rule, near ones, without a cut, near without a second node
  for (std::size_t k = 0; k < m.links.size(); ++k) {
    if (!interpolated(m.links.link_class[k])) continue;
    const std::uint32_t x = m.links.node[k];
    const int q = m.links.direction[k], o = phys::d3q19::opposite(q);  // the solid voxel is x + c_o
    const double delta = cut_of(x, o);
    if (delta < 0.0) {
      ++tally[2];  // no cut found along this link: halfway
      continue;
    }
    const double kap = phys::interpolated_wall_kappa(delta);
    if (kap == 0.0) continue;
    const bool near = phys::interpolation_needs_second_node(delta);
    // The second node x + c_q is where x pulls direction o from; without one (a gap a node
    // wide, a corner) the rule has nothing to interpolate with, and the link stays halfway.
    const std::uint32_t y = near ? m.pulls_from(o, x) : x;
    if (!mesh::is_node(y)) {
      ++tally[3];
      continue;
    }
    wall_links.push_back({std::uint8_t(near ? 0 : 1), std::uint8_t(q), x, std::uint32_t(k), y, Real(kap)});
  }
  std::sort(wall_links.begin(), wall_links.end(), [](const WallLink& a, const WallLink& b) {
    return std::tie(a.far, a.direction, a.node) < std::tie(b.far, b.direction, b.node);
  });
  std::vector<std::uint32_t> link, node, partner;
  std::vector<std::uint8_t> direction;
  std::vector<Real> kappa;
  for (const WallLink& w : wall_links) {
    link.push_back(w.link);
    node.push_back(w.node);
    partner.push_back(w.partner);
    direction.push_back(w.direction);
    kappa.push_back(w.kappa);
  }
  cuts_ = {};
  // The same links grouped by node, for the give-back of their excess mass.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_node;  // (node, link)
  for (const WallLink& w : wall_links) by_node.emplace_back(w.node, w.link);
  std::sort(by_node.begin(), by_node.end());
  std::vector<std::uint32_t> wall_node, first, node_link;
  for (const auto& [x, k] : by_node) {
    if (wall_node.empty() || wall_node.back() != x) {
      wall_node.push_back(x);
      first.push_back(std::uint32_t(node_link.size()));
    }
    node_link.push_back(k);
  }
  first.push_back(std::uint32_t(node_link.size()));
  wall_nodes_ = std::uint32_t(wall_node.size());
  near_ = std::uint32_t(std::count_if(wall_links.begin(), wall_links.end(), [](const WallLink& w) { return !w.far; }));
  count_ = std::uint32_t(wall_links.size());
  tally[0] = count_;
  tally[1] = near_;
  st.comm.sum(tally);
  space_ = st.space;
  mesh_ = &m;
  link_ = exec::to_device(space_, link);
  node_ = exec::to_device(space_, node);
  partner_ = exec::to_device(space_, partner);
  direction_ = exec::to_device(space_, direction);
  kappa_ = exec::to_device(space_, kappa);
  wall_node_ = exec::to_device(space_, wall_node);
  first_ = exec::to_device(space_, first);
  node_link_ = exec::to_device(space_, node_link);
  log::info(str("boundaries.wall = \"interpolated\": linear interpolated bounce-back (Bouzidi et al. 2001) on ", tally[0],
                " links, ", tally[1], " of them with the wall nearer than halfway",
                tally[2] + tally[3] ? str("; halfway bounce-back on ", tally[2], " links the surface does not cut and ",
                                          tally[3], " near links without a second fluid node")
                                    : std::string()));
  // Before the iolets' kernels: the Zou-He nodes of an iolet's rim read these link values
  // and the rest populations.
  st.scheduler.add(Phase::begin_step, "interpolated_walls", "boundaries", [this](StepContext& ctx) {
    if (!count_) return;
    // The populations after the last step, where lb_bgk's streaming left them.
    const PopulationSlotsOf slots = population_slots(*ctx.fields, *mesh_, ctx.step - 1);
    visit_populations<Real>(*ctx.fields, "f", [&](auto& f) {
      using Store = typename std::remove_cvref_t<decltype(f)>::value_type;
      std::visit(
          [&](auto where) {
            InterpolatedWallLinks<Real, Store, decltype(where.lattice)> k{ctx.fields->get<Real>("link_value").data(),
                                                                          link_.data(),
                                                                          node_.data(),
                                                                          partner_.data(),
                                                                          direction_.data(),
                                                                          kappa_.data(),
                                                                          f.data(),
                                                                          where,
                                                                          near_};
            exec::for_each(space_, {0, count_}, k, "boundaries::interpolated_walls");
            exec::for_each(space_, {0, wall_nodes_},
                           ReturnWallExcess<Real, Store, decltype(where.lattice)>{
                               wall_node_.data(), first_.data(), node_link_.data(),
                               ctx.fields->get<Real>("link_value").data(), f.data(), where},
                           "boundaries::return_wall_excess");
          },
          slots);
    });
  });
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
template class InterpolatedWalls<float>;
template class InterpolatedWalls<double>;
template class ObstacleForces<float>;
template class ObstacleForces<double>;

}  // namespace hemo::boundaries
