// boundaries: the vessel wall (interpolated or halfway bounce-back), periodic
// axes, moving walls (Ladd), inlets and outlets (velocity: Ladd or Zou-He; pressure: Nash
// or Zou-He), and the forces on obstacles. See README.md.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/plugin/plugin_api.hpp"
#include "plugins/boundaries/iolet_spec.hpp"
#include "plugins/boundaries/iolets.hpp"
#include "plugins/boundaries/local_speed.hpp"
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
  InterpolatedWalls<Real>& wall() { return wall_; }
  void setup(SetupStage& st) override {
    fill_moving_walls<Real>(st, walls_);
    wall_.setup(st);  // its begin_step action before the iolets': their rim nodes read its link values
    iolets_.setup(st);
    obstacles_.setup(st);
  }

 private:
  std::vector<MovingWall> walls_;
  IoletRuntime<Real> iolets_;
  ObstacleForces<Real> obstacles_;
  InterpolatedWalls<Real> wall_;
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
      if (s.condition == IoletSpec::Condition::velocity) {
        const std::array<double, 2> range = s.value_range();
        st.velocity_scales.push_back({std::max(std::fabs(range[0]), std::fabs(range[1])), "iolet '" + s.name + "'",
                                      2.0 * s.radius, "diameter of iolet '" + s.name + "'"});
      }
    }
    report_compressibility(estimate_compressibility(iolets, st.units), st.comm.rank() == 0);
    if (st.comm.rank() == 0) warn_unvalidated(st.config, st.units, iolets);
    specs_ = iolets;  // for the local speed, once the mesh exists (plan)
    if (st.config.string("run.precision") == "fp32") make<float>(st, std::move(walls), std::move(iolets));
    else make<double>(st, std::move(walls), std::move(iolets));
  }

  void plan(PlanStage& st) override {
    // The iolets', moving walls' and obstacles' tables (IoletRuntime, fill_moving_walls,
    // ObstacleForces): per coded link of theirs about an index, a node and four reals (its
    // profile and a scratch); the interpolated wall's (InterpolatedWalls): per link its
    // index, node, partner, direction and kappa, its index again grouped by node, and per
    // node (at most one a link) its index and first link.
    const std::size_t real = st.precision == Precision::fp32 ? 4 : 8;
    std::uint64_t links = 0, wall = 0;
    for (std::size_t k = 0; k < st.mesh.links.size(); ++k) {
      if (st.mesh.links.source[k] != mesh::wall_link) continue;
      if (int(st.mesh.links.link_class[k]) == st.mesh.links.wall_class) ++wall;
      else ++links;
    }
    if (links) st.memory.array("boundaries", "iolet and wall link tables", links, 2 * sizeof(std::uint32_t) + 4 * real);
    if (wall) st.memory.array("boundaries", "interpolated wall links", wall, 6 * sizeof(std::uint32_t) + 1 + real);
    check_local_speed(st);
  }
  void setup(SetupStage& st) override { impl_->setup(st); }

 private:
  /// The fastest place the iolets' flow implies (local_speed.hpp): the Poiseuille peak of
  /// each outlet's share of the peak inflow (by outlet area, as estimate_compressibility)
  /// through the narrowest passage on its way from the inlets, outlets behind the same
  /// passage adding up. One line; a warning where its Mach number is above flow.max_mach,
  /// and the case refused as for the reference velocity (check_mach) where even the mean
  /// speed there is. On one rank only: the widest path needs the whole geometry (`check`
  /// runs on one); vessels only (pipe, tree, stl and voxel shapes, no periodic axis, no
  /// obstacle).
  void check_local_speed(PlanStage& st) const {
    // The passage model is a vessel's circular cross-section: a box (a channel, a cavity),
    // a periodic axis or an obstacle in the flow makes passages it does not describe (a
    // slab, a crescent beside a sphere), where the estimate would be several times off.
    const bool vessel = st.config.string("geometry.shape") != "box" && st.config.strings("boundaries.periodic").empty() &&
                        st.config.tables("geometry.obstacle").empty();
    if (st.comm.size() > 1 || !vessel) return;
    const mesh::SparseMesh& m = st.mesh;
    const OutflowShares flow = outflow_shares(specs_);
    if (flow.inlets.empty() || flow.outlets.empty() || !(flow.inflow > 0.0)) return;
    // Each iolet link class: an open face (no wall for the distance), and whose nodes are
    // an inlet's (-2), an outlet's (its index) or neither (-1). One pass over the links.
    std::vector<bool> open_class(m.links.class_names.size(), false);
    std::vector<int> group(m.links.class_names.size(), -1);
    auto mark = [&](const IoletSpec& s, int g) {
      if (s.link_class < 0 || std::size_t(s.link_class) >= group.size()) return;
      open_class[std::size_t(s.link_class)] = true;
      if (g != -1) group[std::size_t(s.link_class)] = g;
    };
    for (const IoletSpec& s : specs_) mark(s, -1);  // a velocity iolet with no inflow is still open
    for (const IoletSpec* s : flow.inlets) mark(*s, -2);
    for (std::size_t o = 0; o < flow.outlets.size(); ++o) mark(*flow.outlets[o], int(o));
    std::vector<std::uint32_t> inlet_nodes;
    std::vector<std::vector<std::uint32_t>> outlet_nodes(flow.outlets.size());
    for (std::size_t k = 0; k < m.links.size(); ++k) {
      const std::size_t c = m.links.link_class[k];
      if (c >= group.size() || group[c] == -1) continue;
      (group[c] == -2 ? inlet_nodes : outlet_nodes[std::size_t(group[c])]).push_back(m.links.node[k]);
    }
    if (inlet_nodes.empty()) return;
    const std::vector<float> distance = wall_distance(m, open_class);
    const std::vector<Passage> passages = narrowest_passages(m, distance, inlet_nodes, outlet_nodes);
    // Outlets behind the same passage share it: their flows add up there. The distance is
    // from the node nearest the passage's centre (up to dx / sqrt 2 off it in a cross-section)
    // to the nearest wall point (on a staircase up to dx / 2 inside the surface): the
    // passage's radius is that distance plus about one spacing, within half a spacing
    // (pipes of 5-16 nodes per radius: 1.0-1.25 spacings).
    double fastest = 0.0, flow_there = 0.0;
    std::size_t at = 0;
    std::string names;
    for (std::size_t o = 0; o < flow.outlets.size(); ++o) {
      if (!(passages[o].radius > 0.0f)) continue;
      double through = 0.0;
      std::string behind;
      for (std::size_t p = 0; p < flow.outlets.size(); ++p)
        if (passages[p].node == passages[o].node) {
          through += flow.share[p];
          behind += str(behind.empty() ? "'" : ", '", flow.outlets[p]->name, "'");
        }
      const double radius = (double(passages[o].radius) + 1.0) * m.dx;
      const double peak = 2.0 * through / (M_PI * radius * radius);  // Hagen-Poiseuille: twice the mean
      if (peak > fastest) fastest = peak, at = o, names = behind, flow_there = through;
    }
    if (!(fastest > 0.0)) return;
    const auto where = m.position(passages[at].node);
    const double radius = (double(passages[at].radius) + 1.0) * m.dx;
    const double max_mach = st.config.real("flow.max_mach");
    FlowNumbers local = st.flow;
    auto set_speed = [&](double u) {
      local.velocity = u;
      local.u_lattice = st.units.velocity_to_lattice(u);
      local.mach = local.u_lattice * std::sqrt(3.0);
    };
    set_speed(fastest);
    const double mach = local.mach;
    local.velocity_source = str("the Poiseuille peak of the flow to outlet", names.find(',') != std::string::npos ? "s " : " ",
                                names, " through its narrowest passage, radius about ", fmt_g(1e3 * radius, 3), " mm at (",
                                fmt_g(1e3 * where[0], 4), ", ", fmt_g(1e3 * where[1], 4), ", ", fmt_g(1e3 * where[2], 4),
                                ") mm; an estimate from the geometry");
    if (st.comm.rank() == 0)
      log::info(str("local speed: about ", fmt_g(fastest, 3), " m/s, Mach ", fmt_g(mach, 3), " (", local.velocity_source,
                    "); the reference: Mach ", fmt_g(st.flow.mach, 3), " at ", fmt_g(st.flow.velocity, 3), " m/s (",
                    st.flow.velocity_source, ")"));
    if (!(mach > max_mach) || !(mach > st.flow.mach)) return;
    // Refused where the flow is certainly faster than flow.max_mach there: its mean speed
    // (a plug, the least a developing jet has) through the widest radius the estimate
    // allows (half a spacing more). Warned where only the Poiseuille peak is.
    const double widest = radius + 0.5 * m.dx;
    set_speed(flow_there / (M_PI * widest * widest));
    const double least_mach = local.mach;
    if (least_mach > max_mach) {
      local.velocity_source = str("the mean speed of the flow to outlet", names.find(',') != std::string::npos ? "s " : " ",
                                  names, " through its narrowest passage, radius at most ", fmt_g(1e3 * widest, 3),
                                  " mm at (", fmt_g(1e3 * where[0], 4), ", ", fmt_g(1e3 * where[1], 4), ", ",
                                  fmt_g(1e3 * where[2], 4), ") mm; an estimate from the geometry");
      check_mach(st.config, st.units, local, max_mach);
    }
    if (st.comm.rank() == 0)
      log::warn(str("local speed: Mach ", fmt_g(mach, 3), " > ", fmt_g(max_mach, 3), " (flow.max_mach) at the Poiseuille "
                    "peak of the narrowest passage above (its mean speed, with half a spacing more radius: Mach ",
                    fmt_g(least_mach, 3), "): compressibility errors grow as Mach^2 there. A smaller lattice.dt (or "
                    "lattice.tau nearer 0.5) lowers it in proportion"));
  }

  /// What `check` and `run` say of the density spread the iolets make the flow need
  /// (estimate_compressibility): one line, and a warning with the lever above the 1% at
  /// which the density monitor warns after a run (summary.json largest_density_variation).
  static void report_compressibility(const CompressibilityEstimate& e, bool rank0) {
    if (!rank0 || e.total() <= 0.0) return;
    std::string parts;
    const auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : "; ") + part; };
    if (e.outlet > 0.0)
      add(str(fmt_g(100 * e.outlet, 3), "% for the ", fmt_g(e.viscous_dp + e.inertial_dp, 3), " Pa to outlet '",
              e.outlet_name, "' (", fmt_g(1e3 * e.length, 3), " mm from the inlet at its radius: Poiseuille ",
              fmt_g(e.viscous_dp, 3), " Pa", e.inertial_dp > 0.0 ? str(", accelerating the flow ", fmt_g(e.inertial_dp, 3), " Pa") : "", ")"));
    if (e.imposed > 0.0) add(str(fmt_g(100 * e.imposed, 3), "% for the ", fmt_g(e.imposed_dp, 3), " Pa between imposed pressures"));
    if (e.dynamic > 0.0) add(str(fmt_g(100 * e.dynamic, 3), "% for the inflow's dynamic pressure"));
    const std::string line = str("compressibility: the flow needs a density spread of about ", fmt_g(100 * e.total(), 3),
                                 "% of the mean (", parts, "; an estimate from the iolets)");
    if (e.total() <= density_variation_warning) {
      log::info(line);
      return;
    }
    log::warn(str(line, ": above ", fmt_g(100 * density_variation_warning, 2),
                  "% the lattice fluid is visibly compressible (mass stored in pressure, waves, a drifting mean "
                  "density). The spread falls as dt^2 at fixed dx: a smaller lattice.dt, or lattice.tau nearer 0.5; dt "
                  "divided by ", fmt_g(std::sqrt(e.total() / density_variation_warning), 3), " brings it to ",
                  fmt_g(100 * density_variation_warning, 2), "%"));
  }

  /// Combinations of settings that the validation and the runs of docs/ measured as
  /// wrong or unstable, warned by `check` and `run` with what was measured and what to
  /// change.
  static void warn_unvalidated(const config::Config& config, const LatticeUnits& units,
                               const std::vector<IoletSpec>& iolets) {
    const std::string op = config.has("lb_bgk.collision") ? config.string("lb_bgk.collision") : "";
    const double tau = units.tau;
    if (op == "regularized" && !config.tables("boundaries.moving_wall").empty() && tau < 0.546)
      log::warn(str("lb_bgk.collision = \"regularized\" with a moving wall at tau = ", fmt_g(tau, 4),
                    ": in the Re-1000 lid-driven cavity (cases/cavity_re1000.toml) this operator did not settle below "
                    "tau 0.546, 86% of the lid speed off the reference at 96^3 (tau 0.529) and 25% at 128^3 (tau "
                    "0.538), where bgk was within 2.6% and 1.9% (docs/validation.md of 2026-11-23, 9729b98, halfway "
                    "walls). Use lb_bgk.collision = \"bgk\" or \"trt\", or tau 0.546 or more"));
    for (const IoletSpec& s : iolets) {
      const bool velocity = s.condition == IoletSpec::Condition::velocity;
      if (!velocity && s.model == IoletSpec::Model::zou_he) {
        const double across = 2.0 * s.radius / units.dx;
        // Where the pressure-driven pipe passed (2% in velocity): trt from 48 nodes across,
        // bgk from 80; the regularized operator at none of 48, 64 and 80.
        const double passed_from = op == "trt" ? 48.0 : op == "bgk" ? 80.0 : op == "regularized" ? 1e300 : 0.0;
        if (across < passed_from - 1e-6)
          log::warn(str("iolet '", s.name, "': a Zou-He pressure iolet ", fmt_g(across, 3), " nodes across with "
                        "lb_bgk.collision = \"", op, "\": in the pressure-driven pipe (cases/pipe_pressure.toml) the "
                        "velocity was 20%, 8% and 3% off Hagen-Poiseuille at 48, 64 and 80 nodes across with the "
                        "regularized operator, 9.3%, 2.2% and 1.6% with bgk, 1.6%, 0.5% and 0.7% with trt (tolerance 2%; "
                        "docs/validation.md of 2026-11-23, 9729b98, halfway walls). Use ",
                        op == "trt" ? std::string() : std::string("lb_bgk.collision = \"trt\", "),
                        "a finer lattice.dx (48 nodes across passed with trt), or model = \"anti_bounce_back\""));
      }
      if (!velocity) continue;
      const double least = s.value_range()[0];
      // Where the aorta diverged at its inlet as the inflow reversed (docs/windkessel.md):
      // tau 0.50242, 0.5036 and 0.50726, with Ladd's rule; Zou-He's closure ran.
      if (s.model == IoletSpec::Model::ladd && least < 0.0 && tau < 0.51)
        log::warn(str("iolet '", s.name, "': Ladd's velocity rule with an inflow that reverses (down to ", fmt_g(least, 3),
                      " m/s) at tau = ", fmt_g(tau, 5), ": the aorta case diverged at its inlet as its inflow "
                      "reversed at tau 0.50242, 0.5036 and 0.50726, and so did a straight pipe with that inflow "
                      "(tools/stability/aorta_inlet_pipe.toml; docs/windkessel.md). model = \"zou_he\" ran through "
                      "the reversal (with hold_flow = true for the profile's flow rate)"));
      // An absorbing inlet lets every change of its pressure that is faster than
      // absorbing_time through as a change of flow: a pulsatile inflow would be bent by
      // the pressure pulse it drives.
      if (s.is_absorbing_inlet() && (s.time != IoletSpec::Time::constant || s.profile == IoletSpec::Profile::womersley))
        log::warn(str("iolet '", s.name, "': absorbing = true on a velocity inlet whose inflow changes in time: the inlet "
                      "imposes the prescribed flow less b' / Z, b' every change of its pressure faster than "
                      "absorbing_time (", fmt_g(s.absorbing_time, 3), " s), so the pressure pulse this inflow drives "
                      "through the vessel bends the inflow itself. It is meant for steady inflows (a ramp is fine); for a "
                      "pulsatile one use a plain velocity inlet and absorbing outlets"));
      // The tilted pipe's mean WSS with plain Zou-He: 5.6%, 2.7% and 0.60% off at 8, 12 and
      // 24 nodes per radius (Ladd's 0.69%, 0.53%, 0.09%; hold_flow 0.64%, 0.55%, 0.093%).
      const double per_radius = s.radius / units.dx;
      if (s.model == IoletSpec::Model::zou_he && !s.hold_flow && s.axis < 0 && per_radius < 24.0)
        log::warn(str("iolet '", s.name, "': a Zou-He velocity iolet on a tilted plane ", fmt_g(per_radius, 3),
                      " nodes per radius without hold_flow: its closure sends more or less flow than the profile's "
                      "(+4.3% at 8 nodes per radius in the tilted validation pipe, whose mean WSS was 5.6%, 2.7% and "
                      "0.60% off at 8, 12 and 24; plugins/boundaries/README.md). Set hold_flow = true (0.64%, 0.55%, "
                      "0.093% there) or refine lattice.dx"));
    }
  }

  template <class Real>
  void make(MeshStage& st, std::vector<MovingWall> walls, std::vector<IoletSpec> iolets) {
    auto impl = std::make_unique<BoundariesIn<Real>>(std::move(walls), std::move(iolets));
    impl->obstacles().request(st);
    // Last: the wall claims every solid voxel that the iolets, moving walls and obstacles left.
    impl->wall().request(st, impl->obstacles().link_classes());
    impl_ = std::move(impl);
  }
  std::unique_ptr<Boundaries> impl_;
  std::vector<IoletSpec> specs_;
};

void declare_config(config::Schema& schema) {
  schema.section("boundaries", "boundaries",
                 "Walls, periodicity, inlets and outlets. Every solid voxel is a wall unless a boundary claims it")
      .string("wall",
              "How the fluid meets the vessel wall and the obstacles: 'interpolated' (the default: the linear "
              "interpolated bounce-back of Bouzidi, Firdaouss and Lallemand 2001, with the wall where the surface "
              "cuts each link; where the geometry has no curved surface (a box) or lb_vlbm's partial cells carry the "
              "wall (geometry.solid_fraction = true) it is halfway bounce-back) or 'staircase' (halfway bounce-back "
              "on the voxel faces everywhere)")
      .choices({"interpolated", "staircase"})
      .default_value(std::string("interpolated"))
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
