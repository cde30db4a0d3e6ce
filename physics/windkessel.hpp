#pragma once
// The three-element Windkessel (RCR) model of the vasculature beyond an outlet:
// N. Westerhof, J.-W. Lankhaar and B. E. Westerhof, "The arterial Windkessel", Med. Biol.
// Eng. Comput. 47, 131-141 (2009), Fig. 2c. A proximal resistance R_p (the characteristic
// impedance of the proximal vessels) in series with a compliance C in parallel with a
// distal (peripheral) resistance R_d, which drains to the distal (venous) pressure p_d.
// With Q the flow INTO the model (out of the simulated domain) and p_c the pressure on the
// compliance:
//   C dp_c/dt = Q - (p_c - p_d) / R_d,        p = p_c + R_p Q,
// p being the pressure at the outlet. Its impedance, p / Q at angular frequency w, is
//   Z(w) = R_p + R_d / (1 + i w R_d C).
//
// Over a step dt with Q held constant the ODE is linear with constant coefficients and
// is integrated exactly: p_c relaxes towards its steady value p_d + R_d Q with the time
// constant tau = R_d C,
//   p_c(t + dt) = p_d + R_d Q + (p_c(t) - p_d - R_d Q) exp(-dt / tau).
// So a step is stable for any dt (the factor exp(-dt/tau) lies in (0, 1]) and exact for a
// piecewise-constant Q: two half steps give the same p_c as one whole step (to rounding).
//
// Coupling to a compressible (lattice) fluid, damped. The outlet imposes p_{n+1} in step
// n + 1 from the flow Q_n measured in step n (one step of lag). The fluid answers a
// pressure change with a flow change through an impedance Z: a rise dp at the outlet sends
// a wave that slows the outflow by about dp / Z (for a plane wave Z_a = rho_0 c_s / A, c_s
// the fluid's sound speed, A the outlet's area). The explicit update p_{n+1} = p_c + R_p Q_n
// feeds that back with the gain -k, k = R_p / Z: an error e_n in p gives Q_n off by
// -e_n / Z and e_{n+1} = -k e_n, which grows when R_p > Z. Damped update: model the
// outlet's response to the pressure change it is about to impose as
//   Q_{n+1} = Q_n - (p_{n+1} - p_n) / Z
// and impose p_{n+1} = p_c + R_p Q_{n+1} with it (p_c that of step n + 1). Solving for
// p_{n+1}: p_{n+1} (1 + k) = p_c + R_p Q_n + k p_n, i.e.
//   p_{n+1} = (p_c + R_p Q_n + k p_n) / (1 + k)
//           = p_e + (p_n - p_e) k / (1 + k),     p_e = p_c + R_p Q_n (the explicit value):
// each step moves p from the last imposed value towards the explicit one by 1 / (1 + k).
// Stability, with the linear outlet Q_n = Q_bar - (a e_n + (1 - a) e_{n-1}) / Z (a share a
// of the response within the step, the rest one step later; 0 <= a <= 1), p_c fixed:
//   (1 + k) e_{n+1} = k (1 - a) (e_n - e_{n-1}),
// whose roots are complex (k (1 - a) < 4 (1 + k)) with |z|^2 = k (1 - a) / (1 + k) < 1: an
// error decays for every k >= 0, by k / (1 + k) every two steps for a = 0, at once for
// a = 1. The explicit update has e_{n+1} = -k (a e_n + (1 - a) e_{n-1}): unstable for
// k > 1 whatever a. A steady state is unchanged (p_n = p_{n+1} gives p = p_c + R_p Q, and
// p_n = p_e returns p_e bitwise), and k -> 0 (R_p << Z) is the explicit update (k = 0:
// bitwise). In a transient the imposed pressure follows the model's with a lag of about
// k steps (the relaxation's time constant, -1 / ln(k / (1 + k)) ~ k + 1/2 steps).
//
// Which Z. The model above needs the fluid's response within the step to be no larger
// than 1 / Z (a <= 1); a response larger than that (a > 1) makes the damped update
// overshoot and, for large k, diverge. The lattice's response is not a plane wave from the
// first step: Zou-He sets the nodes' density, so the mass through the outlet in the step
// changes by the whole density change at once, an impedance Z_a / sqrt 3 (a = sqrt 3 with
// Z = Z_a); anti-bounce-back's and Nash's first-step responses are 3 and 6 times weaker,
// but anti-bounce-back's rises over the next steps. Measured on cases/windkessel_pipe.toml
// (tau 0.505 to 0.6, R_p up to 1e10, 3e8 at which k = 3 with Z_a): Z = Z_a diverges with
// Zou-He and anti-bounce-back; the largest stable Z was 0.6-0.7 Z_a for Zou-He, 0.45 Z_a
// for anti-bounce-back at tau 0.52 and between 0.3 and 0.4 Z_a at tau 0.505, above 2 Z_a
// for Nash. hemoflow uses Z = Z_a / 4 (windkessel_coupling_impedance) for every rule: a
// smaller Z only damps more (k larger: a longer lag, still a few tens of steps for
// physiological R_p, against thousands of steps in a cardiac cycle).
// SI units throughout: Pa, m^3/s, Pa s/m^3, m^3/Pa, s. Plain arithmetic on doubles.
#include <cmath>

namespace hemo::phys {

struct WindkesselRCR {
  double resistance_proximal = 0.0;  // R_p, Pa s/m^3
  double compliance = 0.0;           // C, m^3/Pa
  double resistance_distal = 0.0;    // R_d, Pa s/m^3
  double pressure_distal = 0.0;      // p_d, Pa

  /// tau = R_d C (s): how fast p_c forgets its past.
  double time_constant() const { return resistance_distal * compliance; }
};

/// p_c after a step dt (s) with the outflow Q (m^3/s, into the model) held constant,
/// from p_c (Pa) before it: the exact solution above.
inline double windkessel_step(const WindkesselRCR& m, double capacitor_pressure, double outflow, double dt) {
  const double settled = m.pressure_distal + m.resistance_distal * outflow;
  // exp(-dt / tau) underflows to 0 for a huge dt: p_c is then the settled value, as it
  // should be.
  return settled + (capacitor_pressure - settled) * std::exp(-dt / m.time_constant());
}

/// The pressure at the outlet (Pa) for the capacitor pressure p_c and the outflow Q.
inline double windkessel_pressure(const WindkesselRCR& m, double capacitor_pressure, double outflow) {
  return capacitor_pressure + m.resistance_proximal * outflow;
}

/// The acoustic impedance rho_0 c_s / A (Pa s/m^3) of a fluid of density rho_0 (kg/m^3)
/// and sound speed c_s (m/s) through an area A (m^2): dp / dQ of a plane wave.
inline double acoustic_impedance(double density, double sound_speed, double area) {
  return density * sound_speed / area;
}

/// The impedance Z (Pa s/m^3) the damped coupling uses for a lattice of spacing dx (m) and
/// step dt (s) with reference density rho_0 (kg/m^3) at an outlet of area A (m^2): a
/// quarter of the lattice's acoustic impedance rho_0 c_s / A, c_s = dx / (dt sqrt 3)
/// (the comment above: why a quarter).
inline constexpr double windkessel_coupling_share = 0.25;
/// `share` replaces the quarter where a case sets boundaries.iolet's coupling_share.
inline double windkessel_coupling_impedance(double density, double dx, double dt, double area,
                                            double share = windkessel_coupling_share) {
  return share * acoustic_impedance(density, dx / (dt * std::sqrt(3.0)), area);
}

/// The pressure (Pa) an outlet imposes in the next step with the damped coupling above:
/// p_{n+1} = (p_c + R_p Q_n + k p_n) / (1 + k), k = R_p / Z, for the capacitor pressure
/// p_c of the next step, the flow Q_n of the last step, the pressure p_n imposed in the
/// last step and the fluid's acoustic impedance Z (> 0) at the outlet.
inline double windkessel_damped_pressure(const WindkesselRCR& m, double impedance, double capacitor_pressure,
                                         double outflow, double last_pressure) {
  const double explicit_value = capacitor_pressure + m.resistance_proximal * outflow;  // p_e, as windkessel_pressure
  const double k = m.resistance_proximal / impedance;
  return explicit_value + (last_pressure - explicit_value) * (k / (1.0 + k));
}

/// A non-reflecting (absorbing) pressure outlet as an RCR model: the outlet imposes
///   p = p_target + Z_a (Q - Q_mean),
/// Q_mean the outflow averaged over the time tau (first order, dQ_mean/dt = (Q - Q_mean)/tau)
/// and Z_a = rho_0 c_s / A the fluid's characteristic (plane-wave) impedance at the outlet.
/// A plane wave that reaches an outlet loaded with its own characteristic impedance
/// leaves without reflection (the matched terminal of 1-D pulse-wave models: J. Alastruey,
/// K. H. Parker, J. Peiro and S. J. Sherwin, Commun. Comput. Phys. 4, 317 (2008), sec. 2.2:
/// a single resistance equal to the characteristic impedance absorbs every incoming wave),
/// while slow changes, longer than tau, see the prescribed pressure. In the RCR form
/// (R_p, C, R_d, p_d) = (Z_a, -tau / Z_a, -Z_a, p_target): p_c relaxes towards
/// p_target - Z_a Q over R_d C = tau, so p = p_c + Z_a Q is the line above. Its impedance
/// (windkessel_impedance) is Z(w) = Z_a i w tau / (1 + i w tau), and a wave of angular
/// frequency w comes back with the reflection coefficient
///   R = (Z - Z_a) / (Z + Z_a) = -1 / (1 + 2 i w tau),   |R| = 1 / sqrt(1 + 4 w^2 tau^2):
/// below 5% for periods shorter than 0.31 tau; a plain pressure outlet (Z = 0) has R = -1.
/// The exact step (windkessel_step) and the damped coupling (windkessel_damped_pressure,
/// k = Z_a / Z = 1 / coupling share) hold for the negative R_d and C as they are: only
/// R_d C = tau > 0 and R_p = Z_a > 0 enter their stability.
inline WindkesselRCR absorbing_outlet(double characteristic_impedance, double averaging_time, double target_pressure) {
  return {characteristic_impedance, -averaging_time / characteristic_impedance, -characteristic_impedance,
          target_pressure};
}

/// The capacitor pressure an absorbing outlet starts a run with: Q_mean at the flow it is
/// expected to carry (m^3/s), p_c = p_target - Z_a Q_mean. Started from Q_mean = 0 it
/// takes the start-up's whole flow for a wave and holds p_target + Z_a Q until Q_mean
/// catches up: the domain then stores about the mass of one acoustic transit, Q L / c_s,
/// and drains it over tau, an excess outflow of about L / (c_s tau) of Q decaying as
/// exp(-t / tau). Expecting the flow, it draws it from the first step (a steady wave of
/// half that flow sent upstream: the steady state's own split of p and Q into the two
/// directions), and with tau longer than the run it stays a matched load at every
/// frequency, so what the start stored drains through Z_a within about a transit.
/// Measured on the FDA nozzle's start (0.5 mm, a 0.05 s ramp; tools/validation/notes.md):
/// the outflow overshoots to 1.46 Q at 0.15 s and is within 1.6% of the inflow from
/// 0.3 s on from Q_mean = 0 with tau 0.1 s; expecting Q with tau 10 s, 1.23 Q and 1.3%
/// (0.6% from 0.32 s).
inline double absorbing_start(const WindkesselRCR& absorbing, double expected_outflow) {
  return absorbing.pressure_distal - absorbing.resistance_proximal * expected_outflow;
}

/// The flow an absorbing outlet's load answers in the damped coupling: Q_n extrapolated by
/// the coupling's lag, Q_n + k (Q_n - Q_{n-1}), k = R_p / Z. The damped update follows the
/// explicit value with a lag of about k steps (windkessel_damped_pressure); for a load
/// meant to match the fluid's own impedance that lag is a mismatch, which reflects a
/// share of a wave growing with k / (steps per period). Measured on a pulse of 79 steps
/// (tools/validation, pulse_reflection; share 0.25, k = 4): reflection 7.3% without the
/// extrapolation, 2.8% with it. A steady flow is unchanged (Q_n = Q_{n-1}).
inline double absorbing_flow(double outflow, double previous_outflow, double k) {
  return outflow + k * (outflow - previous_outflow);
}

/// A non-reflecting (absorbing) velocity inlet. In one dimension p and Q split into the
/// wave entering the vessel, a = (p + Z Q) / 2, and the wave arriving from it,
/// b = (p - Z Q) / 2 (the characteristic variables of the linearised equations: K. W.
/// Thompson, J. Comput. Phys. 68, 1 (1987); Z = rho_0 c_s / A as for the absorbing
/// outlet). A velocity inlet that holds Q fixes a - b, so an arriving b comes back whole as
/// a = b (reflection +1 in pressure). Holding the entering wave to what the prescribed flow
/// alone would send, a' = Z Q_target', lets b' pass: Q = Q_target - b' / Z, with
/// arriving_wave the b' of the last step's p and Q at the inlet about their averages over a
/// time tau (first order): slow changes, longer than tau, see the prescribed flow, so the
/// steady flow is Q_target. Any consistent units (here lattice: density, mass a step,
/// Z = sqrt(3) / A with A in dx^2).
inline double arriving_wave(double flow, double mean_flow, double pressure, double mean_pressure, double impedance) {
  return 0.5 * ((pressure - mean_pressure) - impedance * (flow - mean_flow));
}

/// The flow an absorbing inlet imposes: Q_target - b' / Z with b' the mean of the last two
/// steps' arriving_wave. A lattice that answers the inlet's own change of flow dQ with
/// Z_L dQ within the step feeds it back as g = (Z_L / Z - 1) / 4 on each of the two terms:
/// stable for -Z < Z_L < 5 Z. Taken whole (b' of the last step alone) the band is
/// -Z < Z_L < 3 Z, and the inlet nodes' density, which Zou-He's closure computes from the
/// velocity it imposes, went above it at the lattice's shortest period (the FDA nozzle at
/// tau 0.502 diverged by step 400; tools/validation/notes.md); the mean has no gain there.
inline double absorbing_inflow(double target_flow, double arriving, double last_arriving, double impedance) {
  return target_flow - 0.5 * (arriving + last_arriving) / impedance;
}

/// Z(w) = R_p + R_d / (1 + i w R_d C) as {real part, imaginary part} (Pa s/m^3).
struct WindkesselImpedance {
  double re = 0.0, im = 0.0;
};
inline WindkesselImpedance windkessel_impedance(const WindkesselRCR& m, double angular_frequency) {
  const double wt = angular_frequency * m.time_constant();
  const double d = 1.0 + wt * wt;  // R_d / (1 + i wt) = R_d (1 - i wt) / (1 + wt^2)
  return {m.resistance_proximal + m.resistance_distal / d, -m.resistance_distal * wt / d};
}

}  // namespace hemo::phys
