#pragma once
// An iolet as the case file describes it ([[boundaries.iolet]]): a disc (centre, outward
// normal, radius) that cuts the vessel, the condition imposed through it, and how that
// condition varies in space and time. Physical units; lattice conversion happens where
// the values are used.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/geometry/voxel_grid.hpp"
#include "core/sim/units.hpp"
#include "physics/windkessel.hpp"
#include "physics/womersley.hpp"
#include "plugins/boundaries/time_series.hpp"

namespace hemo::boundaries {

using Vec = std::array<double, 3>;

struct IoletSpec {
  enum class Condition { velocity, pressure };
  enum class Model { ladd, nash, anti_bounce_back, zou_he };
  enum class Profile { uniform, parabolic, womersley };
  enum class Time { constant, sinusoidal, csv, windkessel };

  std::string name;
  config::Config cfg;  // the [[boundaries.iolet]] table, for error messages
  Vec center{}, normal{};  // normal: unit, pointing out of the fluid
  double radius = 0.0;
  Condition condition = Condition::velocity;
  Model model = Model::ladd;
  Profile profile = Profile::parabolic;
  Time time = Time::constant;
  double value = 0.0;      // m/s (into the domain) or Pa (gauge)
  double amplitude = 0.0;  // sinusoidal, womersley: same unit as value
  double period = 0.0;     // s
  double phase = 0.0;      // rad
  double ramp = 0.0;       // s: the value rises smoothly from 0 over this time
  double backflow = 0.0;   // pressure iolets: beta of physics/backflow.hpp (0: off)
  std::optional<TimeSeries> series;
  // time = "windkessel" (pressure iolets): the RCR model beyond the outlet
  // (physics/windkessel.hpp) gives the pressure from the outflow, and its compliance's
  // pressure at t = 0 (Pa).
  phys::WindkesselRCR windkessel;
  double windkessel_initial = 0.0;
  double windkessel_coupling_share = phys::windkessel_coupling_share;  // Z = share * rho c_s / A
  // absorbing = true: pressure iolets impose p = value_at(t) + Z_a (Q - Q_mean), Q_mean
  // averaged over absorbing_time (s) (physics/windkessel.hpp, absorbing_outlet); Zou-He
  // velocity iolets hold their flow to the target less b' / Z (absorbing_inflow), the
  // means over absorbing_time. 0: plain.
  double absorbing_time = 0.0;
  bool periodic = true;
  // hold_flow (Zou-He velocity iolets): the flow through the iolet's links is held to the
  // profile's (iolets.cpp, IoletRuntime::refresh).
  bool hold_flow = false;
  // profile = "womersley" with time = "csv": the complex Fourier coefficients c_0..c_N of
  // the mean velocity (m/s) over the CSV's period (fourier_coefficients of half the CSV's
  // centre-line velocity), c_0 real.
  std::vector<phys::Complex> mean_harmonics;
  int axis = -1, sign = 0;  // zou_he: inward normal = sign * e_axis
  int link_class = -1;      // set when the mesh is requested

  /// The value (m/s or Pa) at time t, for uniform and parabolic profiles (ramp included);
  /// not for a Windkessel iolet, whose pressure follows its flow (iolets.cpp).
  double value_at(double t) const;
  /// The start-up factor at time t: (1 - cos(pi t / ramp)) / 2, then 1.
  double ramp_factor(double t) const;
  /// Distance from the iolet's axis, and signed distance beyond its plane, of a point.
  double radial(const Vec& p) const;
  double beyond(const Vec& p) const;
  /// How many terms the velocity profile has (kernels.hpp, ProfileCoefficients): 1, or
  /// for a Womersley profile 3 (constant) or 1 + 2 harmonics (csv).
  int profile_terms() const;
  bool time_dependent() const { return time != Time::constant || profile == Profile::womersley || ramp > 0.0; }
  bool is_windkessel() const { return time == Time::windkessel; }
  /// An absorbing pressure outlet (an RCR model of its own: follows_outflow).
  bool is_absorbing() const { return absorbing_time > 0.0 && condition == Condition::pressure; }
  /// An absorbing velocity inlet (it holds its flow: hold_flow).
  bool is_absorbing_inlet() const { return absorbing_time > 0.0 && condition == Condition::velocity; }
  /// The share of one step of dt in a first-order mean over absorbing_time.
  double absorbing_share(double dt) const { return absorbing_time > dt ? dt / absorbing_time : 1.0; }
  /// Whether the pressure follows the outflow (a Windkessel or an absorbing outlet): such
  /// an iolet's outflow is measured every step and its state checkpointed (iolets.cpp).
  bool follows_outflow() const { return is_windkessel() || is_absorbing(); }
  /// Whether the iolet carries state from step to step (measured at end_step, kept through
  /// checkpoints): an outlet that follows its outflow, or an inlet that holds its flow.
  bool has_state() const { return follows_outflow() || hold_flow; }
  /// The least and largest value imposed over time (m/s or Pa; the ramp left out), and
  /// the largest |d value / dt| (the ramp's included); 0 for a Windkessel iolet's.
  std::array<double, 2> value_range() const;
  double steepest_change() const;
  /// The value the iolet imposes on average once started (m/s or Pa, the ramp done): a
  /// constant's, a sine's mean, a periodic CSV's mean over its period, a CSV's last value
  /// (which it then holds); 0 for a Windkessel iolet.
  double lasting_value() const;
  const char* condition_name() const { return condition == Condition::velocity ? "velocity" : "pressure"; }
};

/// Where the iolets' peak inflow goes: the velocity iolets with a positive peak (`inlets`)
/// bring the sum of their peak flow rates (mean velocity times disc area: half the
/// centre-line value for a parabolic or Womersley profile, all of it for a uniform one),
/// and every other iolet (`outlets`) takes a share in proportion to its disc's area. The
/// one model of the outflow that estimate_compressibility and the local speed use.
struct OutflowShares {
  double inflow = 0.0;                     // m^3/s
  double lasting_inflow = 0.0;             // m^3/s: the inlets' lasting_value flows
  std::vector<const IoletSpec*> inlets, outlets;
  std::vector<double> share;               // m^3/s, per outlet
  std::vector<double> per_speed;           // m^2, per inlet: its flow rate per m/s of its value
};
OutflowShares outflow_shares(const std::vector<IoletSpec>& iolets);

/// The spread of lattice density a case's iolets make the flow need (physics/
/// compressibility.hpp), before it runs: an order of magnitude, not a bound. Three parts:
/// - outlet: the inflow (velocity iolets' peak flow rates) leaves through the pressure
///   iolets in proportion to their areas; each outlet's share drives Hagen-Poiseuille flow
///   through a vessel of the outlet's radius along the straight line from the nearest
///   inlet, and accelerates that column as fast as the inflow changes (rho L dU/dt: the
///   inlet's ramp, oscillation or CSV; at most the water hammer rho c_s dU where the sound
///   crosses L more slowly than the change). The outlet that needs most. Small outlets far from
///   the inlet dominate, as in a coronary tree: a vessel that widens towards the inlet
///   needs less, a tortuous one more.
/// - imposed: the largest difference between two imposed (not Windkessel) pressures.
/// - dynamic: rho u^2 / 2 at the fastest velocity iolet's peak (centre-line) velocity;
///   a stenosis or nozzle speeds the flow up beyond it.
/// Not counted: the start-up's acoustic waves and what the outlets' conditions reflect.
struct CompressibilityEstimate {
  double outlet = 0.0, imposed = 0.0, dynamic = 0.0;  // drho / rho of each part
  double viscous_dp = 0.0, inertial_dp = 0.0, length = 0.0;  // Pa, Pa, m: the outlet that needs most
  std::string outlet_name;
  double imposed_dp = 0.0;  // Pa
  double total() const { return outlet + imposed + dynamic; }
};
CompressibilityEstimate estimate_compressibility(const std::vector<IoletSpec>& iolets, const LatticeUnits& units);

/// Declares [[boundaries.iolet]].
void declare_iolet_schema(config::Schema& schema);

/// Reads and checks every [[boundaries.iolet]] (InputError with the key's location for
/// a zero normal, keys that do not apply, Zou-He on a tilted plane, a bad CSV...).
std::vector<IoletSpec> read_iolets(const config::Config& boundaries);

/// Refuses (InputError) an iolet whose disc no fluid node touches, looking at the voxels
/// each rank holds (collective: every rank calls it).
void check_cuts_fluid(const IoletSpec& iolet, const geometry::VoxelGrid& voxels, comm::Communicator& comm);

/// Refuses two iolets that would claim the same voxel (InputError naming both).
void check_iolets_disjoint(const std::vector<IoletSpec>& iolets, const geometry::VoxelGrid& voxels);

/// Turns held fluid voxels beyond the plane, up to one radius deep and 1.5 radii from the
/// axis, solid: the iolet cuts the vessel there, and no pocket of fluid stays behind the
/// plane outside the disc. Says how many voxels it removed, and how many of them lay
/// outside the disc's radius.
struct CutAtPlane {
  std::int64_t voxels = 0, outside_disc = 0;
};
CutAtPlane cut_at_plane(const IoletSpec& iolet, geometry::VoxelGrid& voxels);

/// True if the (solid) voxel v lies just beyond the iolet's plane, inside its disc.
bool claims(const IoletSpec& iolet, const geometry::VoxelGrid& voxels, const std::array<int, 3>& v);

}  // namespace hemo::boundaries
