// kinetic_energy: the flow's kinetic energy E = sum over the fluid nodes of rho |u|^2 / 2
// dx^3, a row of <output>/kinetic_energy.csv on every monitor step (run.check_every).
// The smallest useful plugin: a config key, a node field, a kernel, an action, a sum
// over ranks, a monitor file. docs/plugin-guide.md walks through it.
#include <string>

#include "core/exec/for_each.hpp"
#include "core/io/series_csv.hpp"
#include "core/plugin/plugin_api.hpp"
#include "kernels.hpp"

namespace hemo::kinetic_energy {
namespace {

class KineticEnergy final : public Plugin {
 public:
  void plan(PlanStage& st) override {
    // The one array setup() allocates, so that a run that would not fit is refused first.
    st.memory.node_field("kinetic_energy", "kinetic_energy", 1, st.precision == Precision::fp32 ? 4 : 8);
  }

  void setup(SetupStage& st) override {
    fp32_ = st.precision == Precision::fp32;
    if (fp32_) declare<float>(st.fields);
    else declare<double>(st.fields);
    space_ = st.space;
    nodes_ = st.mesh.num_nodes;
    stride_ = st.mesh.stride;
    check_every_ = st.check_every;
    comm_ = &st.comm;
    // Lattice energy -> joules: rho_0 dx^3 (dx / dt)^2.
    const LatticeUnits& u = st.units;
    to_joule_ = u.density * u.dx * u.dx * u.dx * (u.dx / u.dt) * (u.dx / u.dt);
    csv_.open(st.comm, st.output_dir, st.config.string("kinetic_energy.file"), ",kinetic_energy_J", st.first_step);
    // Output phase: after the step, when lb_bgk has written density and velocity (it does
    // on monitor steps; a plugin needing them every step asks require_moments_every_step).
    st.scheduler.add(Phase::output, "record", "kinetic_energy", [this](StepContext& ctx) {
      if (ctx.step % check_every_ != 0) return;
      const double energy = fp32_ ? total<float>(*ctx.fields) : total<double>(*ctx.fields);
      csv_.begin(ctx.step, ctx.time);
      csv_.value(energy, 17);
      csv_.end();
    });
  }

 private:
  template <class Real>
  void declare(FieldRegistry& fields) {
    fields.declare_node_field<Real>("kinetic_energy", 1, "kinetic_energy", "rho |u|^2 / 2 (lattice units)");
  }

  /// E in joules: the kernel over this rank's nodes, the core's deterministic sum, then
  /// the sum over the ranks (the same on every rank).
  template <class Real>
  double total(FieldRegistry& fields) {
    Field<Real>& e = fields.get<Real>("kinetic_energy");
    const EnergyDensity<Real> kernel{fields.get<Real>("density").data(), fields.get<Real>("velocity").data(), stride_,
                                     e.data()};
    exec::for_each(space_, {0, nodes_}, kernel, "kinetic_energy::energy_density");
    return comm_->sum(e.sum(0)) * to_joule_;
  }

  bool fp32_ = false;
  exec::Space space_ = exec::Space::host;
  std::uint32_t nodes_ = 0, stride_ = 0;
  std::int64_t check_every_ = 100;
  comm::Communicator* comm_ = nullptr;
  double to_joule_ = 0.0;
  io::SeriesCsv csv_;
};

void declare_config(config::Schema& schema) {
  schema.section("kinetic_energy", "kinetic_energy", "The flow's kinetic energy, every run.check_every steps")
      .string("file", "Name of the monitor file in the output folder")
      .default_value(std::string("kinetic_energy.csv"));
}

Plugin* create() { return new KineticEnergy(); }

const PluginDescriptor descriptor{"kinetic_energy", "output", "0.1.0", "kinetic energy of the flow (an example plugin)",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::kinetic_energy

HEMO_EXPORT_PLUGIN(hemo::kinetic_energy::descriptor)
