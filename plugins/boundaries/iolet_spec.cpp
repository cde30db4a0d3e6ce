#include "plugins/boundaries/iolet_spec.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "core/common/text.hpp"
#include "physics/compressibility.hpp"
#include "physics/d3q19.hpp"
#include "plugins/boundaries/kernels.hpp"

namespace hemo::boundaries {

namespace {

double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// How far beyond its plane an iolet reaches: the solid voxels its links come from lie
// within one diagonal link (sqrt 2 dx) of the plane; 2.5 dx leaves room for rounding
// without reaching into a neighbouring vessel.
constexpr double claim_depth = 2.5;
// How far from its axis, in radii, an iolet cuts the fluid beyond its plane (cut_at_plane).
constexpr double pocket_reach = 1.5;

/// The voxel range [lo, hi] (per axis, may extend one voxel past the box) that can hold
/// voxels the iolet claims.
void near_disc(const IoletSpec& A, const geometry::VoxelGrid& voxels, int (&lo)[3], int (&hi)[3],
               double depth = 0.0) {
  const double reach = A.radius + std::max(depth, claim_depth * voxels.dx);
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::max(-1, int(std::floor((A.center[d] - reach - voxels.origin[d]) / voxels.dx)) - 1);
    hi[d] = std::min(voxels.dims[d], int(std::ceil((A.center[d] + reach - voxels.origin[d]) / voxels.dx)) + 1);
  }
}

/// time = "windkessel": the RCR model's keys, refused on any other iolet (naming the key).
void read_windkessel(const config::Config& c, IoletSpec& s, bool velocity) {
  static constexpr const char* keys[] = {"resistance_proximal", "compliance", "resistance_distal", "pressure_distal",
                                         "pressure_initial", "coupling_share"};
  if (velocity) {
    if (s.is_windkessel())
      c.fail("time", "'windkessel' applies to pressure iolets only (it turns the outflow into a pressure)");
    for (const char* k : keys)
      if (c.has(k)) c.fail(k, "applies to pressure iolets with time = \"windkessel\" only");
    return;
  }
  if (!s.is_windkessel()) {
    const bool absorbing = c.boolean("absorbing");  // it has the same damped coupling
    for (const char* k : keys)
      if (c.has(k) && !(absorbing && std::string(k) == "coupling_share"))
        c.fail(k, absorbing ? "applies to time = \"windkessel\" only (an absorbing outlet takes coupling_share alone)"
                            : "applies to time = \"windkessel\" only");
    if (absorbing && c.has("coupling_share")) s.windkessel_coupling_share = c.real("coupling_share");
    return;
  }
  for (const char* k : {"resistance_proximal", "compliance", "resistance_distal"})
    if (!c.has(k)) c.fail(k, "is required with time = \"windkessel\"");
  // The ramp scales a prescribed value; here the pressure follows the flow, which the
  // inlet's own ramp starts smoothly.
  if (c.has("ramp") && c.real("ramp") > 0.0)
    c.fail("ramp", "does not apply to a Windkessel outlet (its pressure follows the flow); ramp the inlet instead");
  s.windkessel = {c.real("resistance_proximal"), c.real("compliance"), c.real("resistance_distal"),
                  c.real("pressure_distal")};
  s.windkessel_initial = c.has("pressure_initial") ? c.real("pressure_initial") : s.windkessel.pressure_distal;
  s.windkessel_coupling_share = c.has("coupling_share") ? c.real("coupling_share") : phys::windkessel_coupling_share;
}

}  // namespace

void declare_iolet_schema(config::Schema& schema) {
  schema.table_array("boundaries.iolet", "boundaries",
                     "An inlet or outlet: a disc that cuts the vessel, through which a velocity or a pressure is imposed")
      .string("name", "Label in logs and in iolets.csv (letters, digits, '_' and '-')")
      .required()
      .reals("center", "m", "Centre of the disc", 3)
      .required()
      .reals("normal", "1", "Normal of the disc, pointing OUT of the fluid (normalised)", 3)
      .required()
      .real("radius", "m", "Radius of the disc; also the radius of the parabolic and Womersley profiles")
      .greater_than(0.0)
      .required()
      .string("condition", "What is imposed: 'velocity' or 'pressure'")
      .choices({"velocity", "pressure"})
      .required()
      .string("model", "How: 'ladd' (velocity, moving bounce-back), 'nash' (pressure, HemeLB's zeroth-order ghost "
                       "density), 'anti_bounce_back' (pressure on the plane, any orientation), 'zou_he' (either; for a "
                       "pressure the normal must be a lattice axis); 'auto' = ladd or anti_bounce_back")
      .choices({"auto", "ladd", "nash", "anti_bounce_back", "zou_he"})
      .default_value(std::string("auto"))
      .string("profile", "Velocity iolets: 'uniform', 'parabolic' (Poiseuille over the disc) or 'womersley' (with "
                         "time = 'constant': a steady part and one harmonic; with time = 'csv': each harmonic of the "
                         "CSV's flow waveform with its Womersley shape, docs: plugins/boundaries/README.md)")
      .choices({"uniform", "parabolic", "womersley"})
      .default_value(std::string("parabolic"))
      .real("velocity", "m/s", "Velocity iolets: centre-line (parabolic, womersley mean) or uniform speed INTO the domain")
      .real("pressure", "Pa", "Pressure iolets: gauge pressure (relative to the reference density)")
      .string("time", "Time dependence of the value: 'constant', 'sinusoidal' or 'csv'; pressure iolets also "
                      "'windkessel' (the pressure follows the outflow through a three-element RCR model, "
                      "docs/windkessel.md)")
      .choices({"constant", "sinusoidal", "csv", "windkessel"})
      .default_value(std::string("constant"))
      .real("amplitude", "m/s or Pa", "sinusoidal: amplitude; womersley: oscillating part, as the centre-line "
                                      "velocity its pressure gradient would drive in steady flow")
      .default_value(0.0)
      .real("period", "s", "sinusoidal, womersley: period of the oscillation")
      .greater_than(0.0)
      .real("phase", "rad", "sinusoidal, womersley: phase of the oscillation")
      .default_value(0.0)
      .string("csv", "csv: file with two columns, time (s) and value (m/s or Pa); relative to the case file")
      .boolean("periodic", "csv: repeat the series after its last time")
      .default_value(true)
      .integer("harmonics", "1",
               "profile = 'womersley' with time = 'csv': harmonics of the CSV's period imposed (the log says how "
               "closely they reproduce the CSV)")
      .at_least(1)
      .at_most(max_womersley_harmonics)
      .default_value(std::int64_t{10})
      .real("backflow_stabilization", "1",
            "Pressure iolets used as outlets: where fluid flows back IN (u.n < 0), prescribe p - beta rho (u.n)^2 "
            "instead of p (the normal part of Esmaily Moghadam et al. 2011's backflow stabilization); 1 is a common "
            "choice, 0 turns it off. Leave 0 on pressure INLETS")
      .at_least(0.0)
      .default_value(0.0)
      .real("resistance_proximal", "Pa s/m^3",
            "windkessel: proximal resistance R_p (about the characteristic impedance of the vessel beyond the "
            "outlet); p = p_c + R_p Q. 0 gives the two-element model")
      .at_least(0.0)
      .real("compliance", "m^3/Pa", "windkessel: compliance C of the vessels beyond the outlet")
      .greater_than(0.0)
      .real("resistance_distal", "Pa s/m^3", "windkessel: distal (peripheral) resistance R_d")
      .greater_than(0.0)
      .real("pressure_distal", "Pa", "windkessel: distal (venous) gauge pressure p_d that R_d drains to")
      .default_value(0.0)
      .real("pressure_initial", "Pa", "windkessel: pressure p_c on the compliance at t = 0 (default: pressure_distal); "
                                      "start near the expected mean to shorten the transient (time constant R_d C)")
      .real("coupling_share", "1",
            "windkessel and absorbing, advanced: the share of the outlet's lattice acoustic impedance rho c_s / A that the damped "
            "coupling takes as the fluid's response Z (k = R_p / Z); default 0.25 (physics/windkessel.hpp: measured "
            "stable on the validation pipe); for stability studies")
      .greater_than(0.0)
      .boolean("absorbing",
               "Non-reflecting. Pressure iolets: the outlet imposes p + Z (Q - Q_mean), Z = rho c_s / A the lattice's "
               "characteristic impedance at the disc and Q_mean the outflow averaged over absorbing_time, so a pressure "
               "wave leaves instead of being reflected back into the vessel (a plain pressure outlet reflects it whole, "
               "with the opposite sign), while the mean pressure is the prescribed one (physics/windkessel.hpp, "
               "absorbing_outlet). Velocity iolets with model = 'zou_he' (they then hold their flow): the inlet imposes "
               "the prescribed flow less what a wave arriving from the vessel carries, Q - b' / Z (absorbing_inflow), "
               "so the wave leaves instead of coming back whole; the flow is the prescribed one over times longer than "
               "absorbing_time. For steady inflows: a pulsatile one would be bent by its own pressure pulse, and a start "
               "into a resistance (the FDA nozzle) settled slower with it than without (plugins/boundaries/README.md)")
      .default_value(false)
      .real("absorbing_time", "s",
            "absorbing: the time the means (Q_mean; at an inlet also p_mean) average over. At an outlet a wave of "
            "period T comes back with the share "
            "1 / sqrt(1 + (4 pi absorbing_time / T)^2) of its amplitude: under 5% for T < 0.31 absorbing_time; "
            "slower changes of the flow see the prescribed pressure")
      .greater_than(0.0)
      .default_value(0.5)
      .boolean("hold_flow",
               "velocity iolets with model = 'zou_he': holds the flow through the iolet's links to the profile's. "
               "Zou-He's closure imposes the velocity at each node and bounces back the populations arriving there, so "
               "the flow it sends through the plane differs from the profile's by an error of second order in dx (a "
               "few percent at 8-12 nodes per radius on a tilted plane). With this key each step adds the steady "
               "profile's shape times the amount that cancels that difference, averaged over the last 100 steps or "
               "so (one sum over the iolet's links a step, as a Windkessel outlet's)")
      .default_value(false)
      .real("ramp", "s", "Start-up time: the value rises from 0 as (1 - cos(pi t / ramp)) / 2. An impulsive start "
                         "sends a pressure wave along the vessel that the fluid damps only slowly")
      .at_least(0.0)
      .default_value(0.0);
}

double IoletSpec::ramp_factor(double t) const {
  return (ramp > 0.0 && t < ramp) ? 0.5 * (1.0 - std::cos(M_PI * t / ramp)) : 1.0;
}

int IoletSpec::profile_terms() const {
  if (profile != Profile::womersley) return 1;
  return time == Time::csv ? 1 + 2 * (int(mean_harmonics.size()) - 1) : 3;
}

double IoletSpec::value_at(double t) const {
  double v = value;
  switch (time) {
    case Time::constant: break;
    case Time::sinusoidal: v = value + amplitude * std::sin(2.0 * M_PI * t / period + phase); break;
    case Time::csv: v = series->at(t, periodic); break;
    case Time::windkessel: break;  // the pressure follows the flow (IoletRuntime)
  }
  return v * ramp_factor(t);
}

double IoletSpec::beyond(const Vec& p) const {
  return dot({p[0] - center[0], p[1] - center[1], p[2] - center[2]}, normal);
}

double IoletSpec::radial(const Vec& p) const {
  const Vec d{p[0] - center[0], p[1] - center[1], p[2] - center[2]};
  const double along = dot(d, normal);
  return std::sqrt(std::max(0.0, dot(d, d) - along * along));
}

std::vector<IoletSpec> read_iolets(const config::Config& boundaries) {
  std::vector<IoletSpec> out;
  std::set<std::string> names;
  for (const config::Config& c : boundaries.tables("iolet")) {
    IoletSpec s;
    s.cfg = c;
    s.name = c.string("name");
    if (s.name.empty() || !std::all_of(s.name.begin(), s.name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
        }))
      c.fail("name", "use only letters, digits, '_' and '-'");
    if (!names.insert(s.name).second) c.fail("name", "another iolet has this name");
    s.center = c.vec3("center");
    s.normal = c.vec3("normal");
    const double norm = std::sqrt(dot(s.normal, s.normal));
    if (!(norm > 0.0)) c.fail("normal", "must not be the zero vector");
    for (double& x : s.normal) x /= norm;
    s.radius = c.real("radius");

    const bool velocity = c.string("condition") == "velocity";
    s.condition = velocity ? IoletSpec::Condition::velocity : IoletSpec::Condition::pressure;
    const std::string model = c.string("model");
    if (model == "ladd" && !velocity)
      c.fail("model", "'ladd' imposes a velocity; a pressure iolet takes 'anti_bounce_back', 'nash' or 'zou_he'");
    if ((model == "nash" || model == "anti_bounce_back") && velocity)
      c.fail("model", str("'", model, "' imposes a pressure; a velocity iolet takes 'ladd' or 'zou_he'"));
    s.model = model == "zou_he"             ? IoletSpec::Model::zou_he
              : model == "nash"             ? IoletSpec::Model::nash
              : velocity                    ? IoletSpec::Model::ladd
                                            : IoletSpec::Model::anti_bounce_back;
    for (int a = 0; a < 3; ++a)
      if (std::fabs(std::fabs(s.normal[a]) - 1.0) < 1e-9) {
        s.axis = a;
        s.sign = s.normal[a] > 0 ? -1 : 1;  // inward = -outward
      }
    // Zou-He's pressure rule balances the five populations that cross a face normal to a
    // lattice axis (its general form, used on the rim, is ill-conditioned where few links
    // cross). A velocity node always takes the general non-equilibrium bounce-back
    // (physics/zou_he.hpp, nebb_velocity), whose momentum is imposed, on any plane.
    if (s.model == IoletSpec::Model::zou_he && s.axis < 0 && !velocity)
      c.fail("model", "'zou_he' for a pressure needs a normal along x, y or z; use 'anti_bounce_back' on a tilted plane");

    const std::string profile = c.string("profile");
    s.profile = profile == "uniform" ? IoletSpec::Profile::uniform
                                     : (profile == "womersley" ? IoletSpec::Profile::womersley : IoletSpec::Profile::parabolic);
    const std::string time = c.string("time");
    s.time = time == "sinusoidal"   ? IoletSpec::Time::sinusoidal
             : time == "csv"        ? IoletSpec::Time::csv
             : time == "windkessel" ? IoletSpec::Time::windkessel
                                    : IoletSpec::Time::constant;
    read_windkessel(c, s, velocity);
    if (c.boolean("absorbing")) {
      if (velocity && s.model != IoletSpec::Model::zou_he)
        c.fail("absorbing", "on a velocity iolet needs model = \"zou_he\" (the inlet holds its flow, hold_flow, to the "
                            "target less what an arriving wave carries); Ladd's rule cannot");
      if (velocity && c.has("hold_flow") && !c.boolean("hold_flow"))
        c.fail("hold_flow", "an absorbing velocity inlet holds its flow: remove hold_flow = false");
      if (s.is_windkessel())
        c.fail("absorbing", "does not apply to a Windkessel outlet: its R_p sets how waves are reflected (R_p = rho c_s / A "
                            "would absorb them)");
      s.absorbing_time = c.real("absorbing_time");
    } else if (c.has("absorbing_time")) {
      c.fail("absorbing_time", "applies with absorbing = true only");
    }
    const char* value_key = velocity ? "velocity" : "pressure";
    const char* other_key = velocity ? "pressure" : "velocity";
    if (c.has(other_key)) c.fail(other_key, str("does not apply to a ", c.string("condition"), " iolet"));
    if (!velocity && c.has("profile")) c.fail("profile", "applies to velocity iolets only");
    if (s.time == IoletSpec::Time::csv) {
      if (!c.has("csv")) c.fail("csv", "is required with time = \"csv\"");
      if (c.has(value_key)) c.fail(value_key, "the CSV file gives the value; remove this key or use another time");
      s.series = TimeSeries::load(c.file_path("csv"), c.path() + ".csv");
      s.periodic = c.boolean("periodic");
    } else {
      for (const char* k : {"csv", "periodic"})
        if (c.has(k)) c.fail(k, "applies to time = \"csv\" only");
      if (velocity && !c.has("velocity")) c.fail("velocity", "is required for a velocity iolet");
      if (s.is_windkessel() && c.has("pressure"))
        c.fail("pressure", "the Windkessel model gives the pressure (from the outflow); remove this key, or set "
                           "pressure_initial and pressure_distal");
      s.value = c.has(value_key) ? c.real(value_key) : 0.0;
    }
    s.amplitude = c.real("amplitude");
    s.phase = c.real("phase");
    s.ramp = c.real("ramp");
    s.hold_flow = c.boolean("hold_flow") || (velocity && s.absorbing_time > 0.0);
    if (s.hold_flow && !(velocity && s.model == IoletSpec::Model::zou_he))
      c.fail("hold_flow", "applies to velocity iolets with model = \"zou_he\" only (Ladd's rule sends the profile's "
                          "flow through the links exactly)");
    s.backflow = c.real("backflow_stabilization");
    if (s.backflow > 0.0 && velocity)
      c.fail("backflow_stabilization", "applies to pressure iolets only (a velocity iolet fixes the inflow)");
    if (s.backflow > 0.0 && s.model == IoletSpec::Model::zou_he)
      c.fail("backflow_stabilization", "is not available with model = \"zou_he\"; use \"anti_bounce_back\" (or \"nash\")");
    const bool womersley_csv = s.profile == IoletSpec::Profile::womersley && s.time == IoletSpec::Time::csv;
    const bool oscillates = s.time == IoletSpec::Time::sinusoidal || s.profile == IoletSpec::Profile::womersley;
    if (womersley_csv) {
      // The CSV's period and its harmonics make the profile (fourier_coefficients).
      for (const char* k : {"period", "amplitude", "phase"})
        if (c.has(k)) c.fail(k, "the CSV gives a Womersley profile's time dependence (its period and harmonics)");
      if (!s.periodic) c.fail("periodic", "a Womersley profile from a CSV repeats it: set periodic = true");
      s.period = s.series->last_time() - s.series->first_time();
      // The CSV's value is the centre-line velocity of the parabolic profile of the same
      // flow: the mean velocity is half of it.
      s.mean_harmonics = fourier_coefficients(*s.series, int(c.integer("harmonics")));
      for (phys::Complex& h : s.mean_harmonics) h = 0.5 * h;
    } else if (c.has("harmonics")) {
      c.fail("harmonics", "applies to profile = \"womersley\" with time = \"csv\" only");
    } else if (oscillates) {
      if (!c.has("period")) c.fail("period", "is required for a sinusoidal or Womersley iolet");
      s.period = c.real("period");
    } else {
      for (const char* k : {"period", "amplitude", "phase"})
        if (c.has(k)) c.fail(k, "applies to time = \"sinusoidal\" or profile = \"womersley\" only");
    }
    if (s.profile == IoletSpec::Profile::womersley && s.time != IoletSpec::Time::constant && !womersley_csv)
      c.fail("time", "a Womersley profile takes time = \"constant\" (one harmonic, its own keys) or \"csv\" (the "
                     "CSV's harmonics)");
    if (s.profile == IoletSpec::Profile::womersley && s.model == IoletSpec::Model::zou_he)
      c.fail("profile", "'womersley' is available with model 'ladd' only");
    out.push_back(std::move(s));
  }
  return out;
}

bool claims(const IoletSpec& iolet, const geometry::VoxelGrid& voxels, const std::array<int, 3>& v) {
  const Vec p = voxels.centre(v[0], v[1], v[2]);
  const double b = iolet.beyond(p);
  return b > 0.0 && b < claim_depth * voxels.dx && iolet.radial(p) < iolet.radius;
}

CutAtPlane cut_at_plane(const IoletSpec& iolet, geometry::VoxelGrid& voxels) {
  // Up to one radius beyond the plane: enough to remove a vessel's rounded end cap (so
  // no pocket of fluid is left behind the iolet), not enough to reach far into the rest
  // of the geometry.
  const double depth = iolet.radius + claim_depth * voxels.dx;
  CutAtPlane cut;
  int lo[3], hi[3];
  // The box of a ball of radius + depth about the centre: it holds every voxel below
  // (depth beyond the plane, 1.5 radii from the axis: sqrt(depth^2 + 2.25 R^2) < 2R + depth).
  near_disc(iolet, voxels, lo, hi, depth);
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i) {
        if (!voxels.holds(i, j, k)) continue;
        std::uint8_t& cell = voxels.fluid[static_cast<std::size_t>(voxels.index(i, j, k))];
        const auto p = voxels.centre(i, j, k);
        const double b = iolet.beyond(p);
        // Within pocket_reach radii of the axis: a lumen wider than the disc where the
        // plane cuts it (a vessel's cross-section is rarely a circle) or widening beyond
        // it would otherwise leave fluid behind the plane, outside the disc, fed through
        // the crescent between the disc's rim and the wall: the patient aorta diverged in
        // such a pocket when its inflow reversed (docs/windkessel.md). The crescent
        // itself, in front of the plane, stays fluid; its pulls from the cut voxels
        // outside the disc are walls (the iolet claims only its disc).
        // Where cells carry solid fractions, at least two spacings past the rim: the partial
        // cells of a vessel wall that runs on past the plane would otherwise stay behind it
        // as a thin shell of fluid fed only through the wall cells (lb_vlbm diverged there).
        const double r = iolet.radial(p);
        const double rim = voxels.solid_fraction.empty() ? 0.0 : 2.0 * voxels.dx;
        if (cell && b > 0.0 && b < depth && r < std::max(pocket_reach * iolet.radius, iolet.radius + rim)) {
          cell = 0;
          ++cut.voxels;
          if (r >= iolet.radius) ++cut.outside_disc;
        }
        // An iolet plane is not a wall. A surface closed by a flat cap at the plane gives
        // the cells just inside it a solid fraction (VLBM) that would act as a partial wall
        // across the inflow; on the disc, away from the vessel wall, the cap is the only
        // reason for P > 0, so it is cleared there. Within a voxel of the rim the cap's and
        // the wall's shares cannot be told apart and stay.
        if (cell && !voxels.solid_fraction.empty() && b <= 0.0 && b > -0.8660254037844386 * voxels.dx &&
            r < iolet.radius - voxels.dx)
          voxels.solid_fraction[static_cast<std::size_t>(voxels.index(i, j, k))] = 0.0f;
      }
  return cut;
}

void check_cuts_fluid(const IoletSpec& iolet, const geometry::VoxelGrid& voxels, comm::Communicator& comm) {
  // Some fluid node must pull a population from a voxel the iolet claims. Each rank
  // looks at the pairs it holds both voxels of (a voxel outside the box is solid, held
  // or not); every fluid voxel is held with its neighbours by the rank that owns it.
  const auto held = [&](int i, int j, int k) { return !voxels.inside_box(i, j, k) || voxels.holds(i, j, k); };
  const auto held_fluid = [&](int i, int j, int k) { return voxels.holds(i, j, k) && voxels.is_fluid(i, j, k); };
  int lo[3], hi[3];
  near_disc(iolet, voxels, lo, hi);
  std::uint64_t found = 0;
  for (int k = lo[2]; k <= hi[2] && !found; ++k)
    for (int j = lo[1]; j <= hi[1] && !found; ++j)
      for (int i = lo[0]; i <= hi[0] && !found; ++i) {
        if (!held(i, j, k) || voxels.is_fluid(i, j, k) || !claims(iolet, voxels, {i, j, k})) continue;
        for (int q = 1; q < phys::d3q19::Q && !found; ++q)
          found = held_fluid(i + phys::d3q19::cx(q), j + phys::d3q19::cy(q), k + phys::d3q19::cz(q));
      }
  std::vector<std::uint64_t> total{found};
  comm.sum(total);
  if (total[0] > 0) return;
  iolet.cfg.fail("center", str("iolet '", iolet.name, "' cuts no fluid: no fluid node lies next to its disc. Check the ",
                               "centre and radius (in m) and that the normal points out of the fluid"));
}

void check_iolets_disjoint(const std::vector<IoletSpec>& iolets, const geometry::VoxelGrid& voxels) {
  // Voxels near each disc, tested against every other iolet: cost ~ disc area, not box.
  for (std::size_t a = 0; a < iolets.size(); ++a) {
    const IoletSpec& A = iolets[a];
    int lo[3], hi[3];
    near_disc(A, voxels, lo, hi);
    for (int k = lo[2]; k <= hi[2]; ++k)
      for (int j = lo[1]; j <= hi[1]; ++j)
        for (int i = lo[0]; i <= hi[0]; ++i) {
          if (!claims(A, voxels, {i, j, k})) continue;
          for (std::size_t b = a + 1; b < iolets.size(); ++b)
            if (claims(iolets[b], voxels, {i, j, k}))
              iolets[b].cfg.fail("center", str("iolet '", iolets[b].name, "' overlaps iolet '", A.name, "' (defined at ",
                                               A.cfg.where("center"), "): their discs claim the same voxels"));
        }
  }
}

std::array<double, 2> IoletSpec::value_range() const {
  switch (time) {
    case Time::sinusoidal: return {value - std::fabs(amplitude), value + std::fabs(amplitude)};
    case Time::csv: return {series->least(), series->largest()};
    case Time::windkessel: return {0.0, 0.0};
    default: return {value, value};
  }
}

double IoletSpec::lasting_value() const {
  switch (time) {
    case Time::csv: return periodic ? series->mean() : series->at(series->last_time(), false);
    case Time::windkessel: return 0.0;
    default: return value;  // constant, and a sine about its value
  }
}

double IoletSpec::steepest_change() const {
  double s = 0.0;
  if (time == Time::sinusoidal) s = std::fabs(amplitude) * 2.0 * M_PI / period;
  if (time == Time::csv) s = series->steepest();
  // The ramp's (1 - cos(pi t / ramp)) / 2 rises at most at pi / (2 ramp) per second.
  if (ramp > 0.0) {
    const auto r = value_range();
    s += std::max(std::fabs(r[0]), std::fabs(r[1])) * M_PI / (2.0 * ramp);
  }
  return s;
}

OutflowShares outflow_shares(const std::vector<IoletSpec>& iolets) {
  OutflowShares f;
  double outlet_area = 0.0;
  for (const IoletSpec& s : iolets) {
    const double area = M_PI * s.radius * s.radius;
    if (s.condition == IoletSpec::Condition::velocity) {
      // The value is the centre-line velocity (parabolic, and the Womersley profiles of
      // the same flow) or the uniform one; positive into the domain.
      const double peak = s.value_range()[1];
      if (peak <= 0.0) continue;
      f.inlets.push_back(&s);
      f.per_speed.push_back((s.profile == IoletSpec::Profile::uniform ? 1.0 : 0.5) * area);
      f.inflow += f.per_speed.back() * peak;
      f.lasting_inflow += f.per_speed.back() * s.lasting_value();
    } else {
      f.outlets.push_back(&s);
      outlet_area += area;
    }
  }
  for (const IoletSpec* o : f.outlets)
    f.share.push_back(outlet_area > 0.0 ? f.inflow * M_PI * o->radius * o->radius / outlet_area : 0.0);
  return f;
}

CompressibilityEstimate estimate_compressibility(const std::vector<IoletSpec>& iolets, const LatticeUnits& units) {
  CompressibilityEstimate e;
  const double mu = units.viscosity * units.density;
  const OutflowShares flow = outflow_shares(iolets);
  double inflow_change = 0.0, inflow_swing = 0.0, outlet_area = 0.0, fastest = 0.0;
  for (std::size_t i = 0; i < flow.inlets.size(); ++i) {
    const IoletSpec& s = *flow.inlets[i];
    const double per_speed = flow.per_speed[i];
    const auto r = s.value_range();  // the swing over time (from rest where a ramp starts it)
    inflow_change += per_speed * s.steepest_change();
    inflow_swing += per_speed * (s.ramp > 0.0 ? std::max(std::fabs(r[0]), std::fabs(r[1])) : r[1] - r[0]);
    fastest = std::max(fastest, r[1]);
  }
  double p_least = HUGE_VAL, p_largest = -HUGE_VAL;
  int imposed = 0;
  for (const IoletSpec* o : flow.outlets) {
    outlet_area += M_PI * o->radius * o->radius;
    if (o->is_windkessel()) continue;
    const auto r = o->value_range();
    p_least = std::min(p_least, r[0]), p_largest = std::max(p_largest, r[1]);
    ++imposed;
  }
  double most = 0.0;
  for (std::size_t k = 0; k < flow.outlets.size(); ++k) {
    const IoletSpec* o = flow.outlets[k];
    if (flow.inlets.empty() || outlet_area <= 0.0) break;
    double length = HUGE_VAL;
    for (const IoletSpec* i : flow.inlets) {
      const Vec d{o->center[0] - i->center[0], o->center[1] - i->center[1], o->center[2] - i->center[2]};
      length = std::min(length, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    const double viscous = phys::poiseuille_pressure_drop(mu, length, flow.share[k], o->radius);
    // A column longer than the sound travels while the inflow changes is not pushed as
    // one: its pressure is then at most the water hammer's rho c_s dU (Joukowsky).
    const double c_s = units.dx / (units.dt * std::sqrt(3.0));
    const double inertial = units.density * std::min(length * inflow_change, c_s * inflow_swing) / outlet_area;
    if (viscous + inertial > most)
      most = viscous + inertial, e.viscous_dp = viscous, e.inertial_dp = inertial, e.length = length, e.outlet_name = o->name;
  }
  e.outlet = phys::density_variation(most, units.density, units.dx, units.dt);
  if (imposed >= 2) {
    e.imposed_dp = p_largest - p_least;
    e.imposed = phys::density_variation(e.imposed_dp, units.density, units.dx, units.dt);
  }
  e.dynamic = phys::dynamic_density_variation(fastest, units.dx, units.dt);
  return e;
}

}  // namespace hemo::boundaries
