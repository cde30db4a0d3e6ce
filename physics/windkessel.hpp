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
