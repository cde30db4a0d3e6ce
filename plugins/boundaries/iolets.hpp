#pragma once
// Iolets at run time: which links and nodes each owns, the per-link profile shapes, the
// kernels that refresh link_value every step (begin_step), the Windkessel outlets' state
// (the flow through them at end_step, their RCR model advanced at begin_step), and the
// monitor that writes each iolet's flow rate and mean pressure to <output>/iolets.csv.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/plugin/plugin_api.hpp"
#include "plugins/boundaries/iolet_spec.hpp"
#include "plugins/boundaries/kernels.hpp"
#include "plugins/boundaries/monitor.hpp"

namespace hemo::boundaries {

template <class Real>
class IoletRuntime {
 public:
  explicit IoletRuntime(std::vector<IoletSpec> specs) : specs_(std::move(specs)) {}

  const std::vector<IoletSpec>& specs() const { return specs_; }
  std::vector<IoletSpec>& specs() { return specs_; }

  /// Builds the per-iolet link and node lists and shapes, and registers the actions.
  void setup(SetupStage& st);

 private:
  /// A Zou-He inlet that holds its flow (hold_flow): the flow the profile's terms send
  /// through the iolet's links by Ladd's rule (target) and through its nodes by Zou-He's
  /// (nodes), per unit of each term's factor, summed over the ranks at set-up; the
  /// correction shape's flow through the nodes per unit; and from step to step the flow
  /// imposed at the nodes, correction included, and the estimate of the closure's excess
  /// beyond it, relaxed towards each step's measurement (the state a checkpoint keeps).
  /// Lattice mass a step. An absorbing inlet (absorbing_inflow) also keeps the last step's
  /// flow through its links (measured at end_step), the averages over absorbing_time of
  /// that flow and of the mean density less 1 at its nodes (taken from the populations at
  /// begin_step), and the wave it saw arriving a step before: lattice units, state a
  /// checkpoint keeps; and its impedance sqrt(3) / A and node count over the ranks.
  struct HeldFlow {
    std::array<double, max_profile_terms> target{}, nodes{};
    double correction_nodes = 0.0;
    double nominal = 0.0, excess = 0.0;
    double impedance = 0.0, node_count = 0.0;
    double flow = 0.0, mean_flow = 0.0, mean_density = 0.0, last_arriving = 0.0;
  };
  struct Device {  // one iolet's arrays on the run's backend
    std::uint32_t links = 0, nodes = 0, zou_he_nodes = 0, rule_links = 0;
    bool ladd_written = false;  // a constant Ladd profile is written once
    exec::DeviceArray<std::uint32_t> link, node, zh_unknown, zh_sources, rule_link;
    exec::DeviceArray<Real> shape, zh_shape, rule_shape, scratch;
    HeldFlow held;
  };
  /// A Windkessel or absorbing outlet's state, carried from step to step and through checkpoints (its
  /// three state doubles are restart values bound to the table "windkessel").
  struct Windkessel {
    double capacitor_pressure = 0.0;  // p_c (Pa) after this step's advance
    double outflow = 0.0;             // Q (m^3/s, out of the domain) through it in the last step
    double previous_outflow = 0.0;    // Q of the step before (absorbing outlets' extrapolation)
    double pressure = 0.0;            // p (Pa) imposed in this step; the damped coupling's p_n in the next
    double impedance = 0.0;           // Z = rho_0 c_s / A (Pa s/m^3) of the lattice at the outlet (not state)
    phys::WindkesselRCR model;        // the case's RCR, or an absorbing outlet's (absorbing_outlet)
  };
  void build(SetupStage& st, const IoletSpec& s, Device& d);
  /// `pressure` (Pa): a pressure iolet's value in this step.
  void refresh(const IoletSpec& s, Device& d, FieldRegistry& fields, std::int64_t step, double time, double pressure);
  /// The same with the populations `f` as stored (Store: Real or a 16-bit format).
  template <class Store>
  void refresh(const IoletSpec& s, Device& d, FieldRegistry& fields, const Store* f, std::int64_t step, double time,
               double pressure);
  /// This rank's mass (lattice units) through the iolet in the step whose link values
  /// link_value holds: the sum of its link values, weighted by lb_vlbm's fluid share
  /// unless `weighted` is false.
  double mass_through(Device& d, FieldRegistry& fields, bool weighted = true);
  /// This rank's sum of the densities at the iolet's nodes (the density field).
  double density_sum(Device& d, FieldRegistry& fields);
  /// end_step: every Windkessel outlet's outflow in this step and every held-flow inlet's
  /// excess (and an absorbing inlet's flow), summed over the ranks.
  void measure_flows(StepContext& ctx);
  /// begin_step: every Windkessel outlet's p_c advanced over one step with the last
  /// step's outflow, and the pressure it imposes in this step (damped coupling).
  void advance_windkessels(double time);
  void monitor(StepContext& ctx);
  /// The time factors of a velocity iolet's profile terms at time t.
  ProfileCoefficients<Real> coefficients(const IoletSpec& s, double t) const;

  std::vector<IoletSpec> specs_;
  std::vector<Device> device_;
  std::vector<Windkessel> windkessel_;  // one per iolet; used by Windkessel iolets only
  RunContext run_;
  io::SeriesCsv csv_;
};

}  // namespace hemo::boundaries
