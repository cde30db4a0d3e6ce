// passive_scalar: a concentration (a dye, a drug) carried by the flow that the lb plugin
// computes and diffusing through it, without acting on it: the advection-diffusion
// lattice Boltzmann scheme of advection_diffusion.hpp on D3Q7, one step after each fluid
// step. An out-of-tree example plugin: it uses the public plugin API only. See README.md.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/io/json.hpp"
#include "core/io/series_csv.hpp"
#include "core/plugin/plugin_api.hpp"
#include "kernels.hpp"

namespace hemo::passive_scalar {

namespace {

/// tau of the case's diffusivity: D dt / dx^2 = c_s^2 (tau - 1/2).
double relaxation_time(const config::Config& cfg, const LatticeUnits& units) {
  return d3q7::relaxation_time(cfg.real("passive_scalar.diffusivity") * units.dt / (units.dx * units.dx));
}

/// A number as text: an integer, or the shortest text that reads back as the same double.
template <class T>
void append_number(std::string& out, T v) {
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

class ScalarBase {
 public:
  virtual ~ScalarBase() = default;
  virtual void setup(SetupStage& st) = 0;
  virtual void initialise(SetupStage& st) = 0;
};

/// Real: the run's precision (run.precision), that of lb_bgk's velocity field.
template <class Real>
class Scalar final : public ScalarBase {
 public:
  void setup(SetupStage& st) override {
    const config::Config& cfg = st.config;
    mesh_ = &st.mesh;
    comm_ = &st.comm;
    halo_ = &st.halo;
    space_ = st.space;
    output_dir_ = st.output_dir;
    check_every_ = st.check_every;
    field_every_ = cfg.integer("passive_scalar.field_every");
    omega_ = Real(1.0 / relaxation_time(cfg, st.units));
    lattice_ = lattice_view(st.fields, st.mesh);

    // Fields: the concentration, and the populations in two sets (read one, write the
    // other, swapped each step) like lb_bgk's. "scalar_g" carries the state from step to
    // step, so checkpoints keep it and a restart continues bitwise.
    st.fields.declare_node_field<Real>("concentration", 1, "passive_scalar", "concentration C (unit of passive_scalar.peak)");
    st.fields.declare_node_field<Real>("scalar_g", d3q7::Q, "passive_scalar", "D3Q7 populations of C, post-collision")
        .set_restart_state();
    st.fields.declare_node_field<Real>("scalar_g_next", d3q7::Q, "passive_scalar", "D3Q7 populations (second set)");

    // lb_bgk writes "velocity" on output steps only unless asked for it every step.
    st.scheduler.require_moments_every_step("passive_scalar");
    // end_step: after the fluid's step (this is an "output" plugin: it acts after lb_bgk
    // in every phase), with that step's velocity.
    st.scheduler.add(Phase::end_step, "advect_diffuse", "passive_scalar", [this](StepContext& ctx) { step(*ctx.fields); });
    st.scheduler.add(Phase::output, "scalar_monitor", "passive_scalar", [this](StepContext& ctx) {
      if (ctx.step % check_every_ == 0) monitor(*ctx.fields, ctx.step, ctx.time);
      if (field_every_ > 0 && ctx.step % field_every_ == 0) write_field(*ctx.fields, ctx.step);
    });
    st.scheduler.add_run_end("scalar_final", "passive_scalar", [this](StepContext& ctx) {
      if (written_step_ != ctx.step) write_field(*ctx.fields, ctx.step);
      const double mass = monitor(*ctx.fields, ctx.step, ctx.time, false);
      log::info(str("passive_scalar: mass ", fmt_g(initial_mass_, 10), " -> ", fmt_g(mass, 10), " (relative change ",
                    fmt_g(initial_mass_ > 0.0 ? mass / initial_mass_ - 1.0 : 0.0, 3), ")"));
    });
    csv_.open(st.comm, st.output_dir, "passive_scalar.csv",
              ",mass,centre_x,centre_y,centre_z,variance_x,variance_y,variance_z", st.first_step);
  }

  void initialise(SetupStage& st) override {
    if (!st.fields.contains("velocity"))
      st.config.fail("run.plugins", "passive_scalar needs the node field 'velocity' of the lb plugin (lb_bgk)");
    // The Gaussian blob C0 exp(-|x - x0|^2 / (2 s0^2)) at the voxel centres, across
    // periodic faces to the nearest image of its centre.
    const mesh::SparseMesh& m = *mesh_;
    const auto x0 = st.config.vec3("passive_scalar.centre");
    const double s0 = st.config.real("passive_scalar.width"), peak = st.config.real("passive_scalar.peak");
    std::vector<Real> c(m.stride, Real(0));
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
      const std::uint32_t n = m.fluid_node(f);
      const auto x = m.position(n);
      double r2 = 0.0;
      for (int a = 0; a < 3; ++a) {
        const double box = m.dims[a] * m.dx;
        double d = x[a] - x0[a];
        if (m.periodic[a]) d -= box * std::round(d / box);
        r2 += d * d;
      }
      c[n] = Real(peak * std::exp(-r2 / (2.0 * s0 * s0)));
    }
    FieldRegistry& fields = st.fields;
    fields.get<Real>("concentration").array().upload(c);
    std::visit(
        [&](auto lattice) {
          InitEquilibrium<Real, decltype(lattice)> init{fields.get<Real>("scalar_g").data(),
                                                        fields.get<Real>("concentration").data(),
                                                        fields.get<Real>("velocity").data(), lattice, m.stride};
          exec::for_each(space_, {0, m.num_nodes}, init, "passive_scalar::init_equilibrium");
        },
        lattice_);
    halo_->exchange(fields.get<Real>("scalar_g"), HaloRows::crossing_directions);
    // A restarted run's populations are restored after this; its monitor continues.
    initial_mass_ = monitor(fields, 0, 0.0, st.first_step == 0);
    log::info(str("passive_scalar: Gaussian blob at [", fmt_g(x0[0]), ", ", fmt_g(x0[1]), ", ", fmt_g(x0[2]), "] m, width ",
                  fmt_g(s0), " m = ", fmt_g(s0 / m.dx, 3), " dx, mass ", fmt_g(initial_mass_, 10), " (C m^3)"));
  }

 private:
  /// One step of the scalar, then its halo (every rank's edge values into the halo copies
  /// the other ranks pull from), then the swap of the two sets.
  void step(FieldRegistry& fields) {
    Field<Real>& g = fields.get<Real>("scalar_g");
    Field<Real>& next = fields.get<Real>("scalar_g_next");
    std::visit(
        [&](auto lattice) {
          AdvectDiffuse<Real, decltype(lattice)> k{g.data(), next.data(), fields.get<Real>("concentration").data(),
                                                   fields.get<Real>("velocity").data(), lattice, mesh_->stride, omega_};
          exec::for_each(space_, {0, mesh_->num_nodes}, k, "passive_scalar::advect_diffuse");
        },
        lattice_);
    // Only the rows a pull across a rank boundary reads (D3Q7's directions are D3Q19's
    // first seven, advection_diffusion.hpp): 1 of 7 across a plane.
    halo_->exchange(next, HaloRows::crossing_directions);
    fields.swap<Real>("scalar_g", "scalar_g_next");
  }

  /// passive_scalar.csv: the mass sum C dx^3, the centre of mass and the variance about it
  /// along each axis, over every rank's nodes. Returns the mass.
  double monitor(FieldRegistry& fields, std::int64_t step, double time, bool record = true) {
    const mesh::SparseMesh& m = *mesh_;
    FieldBase& concentration = fields.lookup("concentration");
    // The mass by the core's reduction (exec::sum, on the run's backend: chunked, the same
    // order for any thread count), then over the ranks in rank order.
    const double mass = comm_->sum(concentration.sum(0)) * m.dx * m.dx * m.dx;
    // The first and second moments on the host, about the box's centre o (less
    // cancellation in the variance). A monitor wanted every step would compute them on
    // the device too: a kernel writing C d and C d^2 per node, then exec::sum.
    const std::vector<double> c = concentration.component_to_host(0);
    std::array<double, 3> o{};
    for (int a = 0; a < 3; ++a) o[a] = m.origin[a] + 0.5 * m.dims[a] * m.dx;
    std::array<double, 7> s{};  // sum C, sum C d_a, sum C d_a^2
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
      const std::uint32_t n = m.fluid_node(f);
      const auto x = m.position(n);
      s[0] += c[n];
      for (int a = 0; a < 3; ++a) {
        const double d = x[a] - o[a];
        s[1 + a] += c[n] * d;
        s[4 + a] += c[n] * d * d;
      }
    }
    comm_->sum(std::span<double>(s));
    if (record) {
      csv_.begin(step, time);
      csv_.value(mass, 17);
      for (int a = 0; a < 3; ++a) csv_.value(o[a] + s[1 + a] / s[0], 17);
      for (int a = 0; a < 3; ++a) csv_.value(s[4 + a] / s[0] - (s[1 + a] / s[0]) * (s[1 + a] / s[0]), 17);
      csv_.end();
    }
    return mass;
  }

  /// concentration_<step>.csv: i, j, k, x, y, z (m), C of every fluid voxel in ascending
  /// voxel index, gathered to rank 0: the same file on any rank count and layout.
  void write_field(FieldRegistry& fields, std::int64_t step) {
    const mesh::SparseMesh& m = *mesh_;
    struct Entry {
      std::uint64_t voxel;
      double c;
    };
    const std::vector<double> c = fields.lookup("concentration").component_to_host(0);
    std::vector<Entry> mine(m.num_fluid());
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) mine[f] = {m.voxel_index(m.fluid_node(f)), c[m.fluid_node(f)]};
    std::vector<Entry> all = comm_->gather<Entry>(mine, 0);
    written_step_ = step;
    if (comm_->rank() != 0) return;
    std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.voxel < b.voxel; });
    std::string text = "i,j,k,x,y,z,concentration\n";
    for (const Entry& e : all) {
      const auto ijk = m.voxel_coordinates(e.voxel);
      const auto x = m.voxel_centre(e.voxel);
      for (const std::int32_t i : ijk) {
        append_number(text, i);
        text += ',';
      }
      for (const double xa : x) {
        append_number(text, xa);
        text += ',';
      }
      append_number(text, e.c);
      text += '\n';
    }
    io::write_file_atomic((std::filesystem::path(output_dir_) / str("concentration_", step, ".csv")).string(), text);
  }

  const mesh::SparseMesh* mesh_ = nullptr;
  comm::Communicator* comm_ = nullptr;
  HaloExchange* halo_ = nullptr;
  exec::Space space_ = exec::Space::host;
  LatticeView lattice_;  // the mesh layout's addressing (core/fields/lattice_fields.hpp)
  std::string output_dir_;
  std::int64_t check_every_ = 100, field_every_ = 0, written_step_ = -1;
  Real omega_ = Real(1);
  double initial_mass_ = 0.0;
  io::SeriesCsv csv_;
};

class PassiveScalarPlugin final : public Plugin {
 public:
  /// Checks before anything is allocated (`hemoflow check` runs this too), and the memory.
  void plan(PlanStage& st) override {
    const config::Config& cfg = st.config;
    const mesh::SparseMesh& m = st.mesh;
    const auto x0 = cfg.vec3("passive_scalar.centre");
    for (int a = 0; a < 3; ++a) {
      const double lo = m.origin[a], hi = m.origin[a] + m.dims[a] * m.dx;
      if (x0[a] < lo || x0[a] > hi)
        cfg.fail("passive_scalar.centre", str("component ", "xyz"[a], " = ", fmt_g(x0[a]), " m lies outside the box's [",
                                              fmt_g(lo), ", ", fmt_g(hi), "] m"));
    }
    // Equilibria turn negative, and the scheme unstable near tau = 1/2, where a lattice
    // velocity component exceeds c_s^2 = 1/4 (advection_diffusion.hpp).
    const double tau = relaxation_time(cfg, st.units), u = st.flow.u_lattice;
    if (u > d3q7::max_lattice_velocity) {
      const LatticeUnits& lu = st.units;
      const double dt_max = floor_significant(d3q7::max_lattice_velocity * lu.dx / st.flow.velocity, 3);
      const bool by_dt = cfg.has("lattice.dt");
      cfg.fail(by_dt ? "lattice.dt" : "lattice.tau",
               str("gives the lattice velocity U dt / dx = ", fmt_g(u, 3), " (U = ", fmt_g(st.flow.velocity, 4), " m/s, ",
                   st.flow.velocity_source, "), above ", d3q7::max_lattice_velocity,
                   ", the most passive_scalar's D3Q7 equilibrium takes: use ",
                   by_dt ? str("lattice.dt <= ", fmt_g(dt_max), " s")
                         : str("lattice.tau <= ", fmt_g(floor_significant(0.5 + 3.0 * lu.viscosity * dt_max / (lu.dx * lu.dx), 4)))));
    }
    const double D = cfg.real("passive_scalar.diffusivity");
    log::info(str("passive_scalar: D = ", fmt_g(D), " m^2/s: tau = ", fmt_g(tau, 6), " (lattice D = ",
                  fmt_g(D * st.units.dt / (st.units.dx * st.units.dx), 4), ")",
                  st.flow.velocity > 0.0 ? str(", grid Peclet number U dx / D = ", fmt_g(st.flow.velocity * st.units.dx / D, 3))
                                         : std::string()));
    const std::size_t real = st.precision == Precision::fp32 ? 4 : 8;
    st.memory.node_field("passive_scalar", "concentration", 1, real);
    st.memory.node_field("passive_scalar", "scalar_g", d3q7::Q, real);
    st.memory.node_field("passive_scalar", "scalar_g_next", d3q7::Q, real);
    // The halo's staging: lb_bgk's, which is larger (its rows that cross, of 19).
  }
  void setup(SetupStage& st) override {
    if (st.precision == Precision::fp32) impl_ = std::make_unique<Scalar<float>>();
    else impl_ = std::make_unique<Scalar<double>>();
    impl_->setup(st);
  }
  void initialise(SetupStage& st) override { impl_->initialise(st); }

 private:
  std::unique_ptr<ScalarBase> impl_;
};

void declare_config(config::Schema& schema) {
  schema.section("passive_scalar", "passive_scalar",
                 "A passive scalar (a dye, a drug) advected by the flow and diffusing: D3Q7 advection-diffusion lattice "
                 "Boltzmann (examples/passive_scalar), starting as a Gaussian blob")
      .real("diffusivity", "m^2/s", "Diffusivity D of the scalar in the fluid")
      .greater_than(0.0)
      .required()
      .reals("centre", "m", "Centre x0 of the initial Gaussian blob C = peak exp(-|x - x0|^2 / (2 width^2))", 3)
      .required()
      .real("width", "m", "Standard deviation of the initial Gaussian blob (per axis)")
      .greater_than(0.0)
      .required()
      .real("peak", "1", "Concentration at the blob's centre (its unit is the scalar's: mol/m^3, kg/m^3, ...)")
      .at_least(0.0)
      .default_value(1.0)
      .integer("field_every", "1",
               "Steps between files concentration_<step>.csv of every fluid voxel; 0: only after the last step. The "
               "monitor passive_scalar.csv (mass, centre, variance) is written every run.check_every steps")
      .at_least(0)
      .default_value(std::int64_t{0});
}

Plugin* create() { return new PassiveScalarPlugin(); }

const PluginDescriptor descriptor{"passive_scalar", "output", "0.1.0",
                                  "passive scalar advected and diffused by the flow (D3Q7 advection-diffusion LB), "
                                  "an out-of-tree example",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::passive_scalar

HEMO_EXPORT_PLUGIN(hemo::passive_scalar::descriptor)
