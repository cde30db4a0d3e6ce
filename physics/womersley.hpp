#pragma once
// Womersley flow: the exact oscillating profile in a rigid straight pipe, used to
// validate pulsatile runs. J. R. Womersley, "Method for the calculation of velocity, rate
// of flow and viscous drag in arteries when the pressure gradient is known",
// J. Physiol. 127, 553-563 (1955).
//
// For a body acceleration (pressure gradient / rho) g(t) = g0 + g1 cos(omega t) along the
// axis, u_t = g + nu (u_rr + u_r / r) with u(R) = 0. With u = Re[A(r) e^{i omega t}] the
// oscillating part obeys i omega A = g1 + nu (A'' + A'/r), whose regular solution is
//   A(r) = (g1 / (i omega)) [1 - J0(k r) / J0(k R)],   k = i^{3/2} sqrt(omega / nu),
// so that |k| R = alpha = R sqrt(omega / nu), the Womersley number.
//
// Device-safe (HEMO_HD only, no <complex>): a validation kernel may evaluate the profile.
#include <cmath>

#include "physics/hd.hpp"

namespace hemo::phys {

/// Minimal complex number for host and device code.
struct Complex {
  double re = 0.0, im = 0.0;
};
HEMO_HD Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
HEMO_HD Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
HEMO_HD Complex operator*(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
HEMO_HD Complex operator*(double s, Complex a) { return {s * a.re, s * a.im}; }
/// Plain quotient: |z| <= 30 keeps |J0| < 1e13, so c^2 + d^2 cannot overflow.
HEMO_HD Complex operator/(Complex a, Complex b) {
  const double d = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
}
/// e^{i theta}.
HEMO_HD Complex exp_i(double theta) { return {cos(theta), sin(theta)}; }

namespace detail {
/// |re| + |im|: a cheap norm, enough for the series' stopping test.
HEMO_HD double norm1(Complex a) { return fabs(a.re) + fabs(a.im); }

/// P(s) = (J0(z) - 1) / s with s = z^2 / 4, i.e. sum_{k>=1} (-1)^k s^{k-1} / (k!)^2.
/// Splitting off the 1 lets womersley_amplitude form J0(kR) - J0(kr) without cancelling
/// two numbers close to 1 (and without dividing by omega) as omega -> 0.
HEMO_HD Complex j0_tail(Complex s) {
  Complex term{-1.0, 0.0}, sum{-1.0, 0.0};
  for (int k = 1; k < 200; ++k) {
    term = (-1.0 / double((k + 1) * (k + 1))) * (term * s);
    sum = sum + term;
    if (norm1(term) < 1e-17 * norm1(sum)) break;
  }
  return sum;
}
}  // namespace detail

/// Bessel function J0 of a complex argument by its power series
///   J0(z) = sum_k (-1)^k (z^2/4)^k / (k!)^2,
/// summed until a term is below 1e-17 of the running sum (at most 200 terms; |z| = 20
/// takes 37, |z| = 30 takes 48). Why a series is enough here: its rounding error is about
/// eps * sum_k |term_k| = eps * I0(|z|). On the Womersley ray arg z = 3 pi / 4,
/// |J0(z)| ~ e^{|z|/sqrt 2} / sqrt(2 pi |z|), so the relative error eps I0(|z|) / |J0(z)|
/// is at most ~1e-13 at alpha = 20 and ~2e-12 at |z| = 30 (measured against mpmath:
/// 5e-15 and 2e-13): ample for arterial alpha <= 20. On the real axis J0 stays O(1) while
/// I0 grows like e^x, so the absolute error there is ~ eps e^x (3e-13 at x = 10): do not
/// use it for large real x.
HEMO_HD Complex bessel_j0(Complex z) {
  const Complex s = 0.25 * (z * z);
  return Complex{1.0, 0.0} + s * detail::j0_tail(s);
}

/// Bessel function J1(z) = (z/2) sum_k (-1)^k (z^2/4)^k / (k! (k+1)!), same stopping rule
/// and accuracy as bessel_j0. Used for the flow rate.
HEMO_HD Complex bessel_j1(Complex z) {
  const Complex s = 0.25 * (z * z);
  Complex term{1.0, 0.0}, sum{1.0, 0.0};
  for (int k = 1; k < 200; ++k) {
    term = (-1.0 / double(k * (k + 1))) * (term * s);
    sum = sum + term;
    if (detail::norm1(term) < 1e-17 * detail::norm1(sum)) break;
  }
  return 0.5 * (z * sum);
}

/// alpha = R sqrt(omega / nu): the ratio of the pipe radius to the Stokes-layer thickness.
HEMO_HD double womersley_number(double R, double omega, double nu) { return R * sqrt(omega / nu); }

/// i^{3/2} = e^{3 pi i / 4}: the direction of k in the complex plane.
HEMO_HD Complex i_three_halves() { return {-0.70710678118654752440, 0.70710678118654752440}; }

/// Complex amplitude A(r) of the oscillating part, u_osc(r, t) = Re[A(r) e^{i omega t}],
/// for the drive g1 cos(omega t) (Womersley 1955; see the top of this file):
///   A(r) = (g1 / (i omega)) [1 - J0(k r) / J0(k R)].
/// Evaluated as A = -(g1 / (4 nu)) [R^2 P(kR) - r^2 P(kr)] / J0(kR) with
/// P(z) = (J0(z) - 1) / (z^2/4) and (k r)^2 / 4 = -i omega r^2 / (4 nu), which is the same
/// expression with the 1/omega cancelled analytically: exact for omega = 0 (it gives the
/// Poiseuille profile g1 (R^2 - r^2) / (4 nu)) and free of cancellation for small alpha.
HEMO_HD Complex womersley_amplitude(double r, double R, double nu, double g1, double omega) {
  const double kmag = sqrt(omega / nu);
  const Complex k = kmag * i_three_halves();
  const Complex kr = r * k, kR = R * k;
  const Complex tail = (R * R) * detail::j0_tail(0.25 * (kR * kR)) - (r * r) * detail::j0_tail(0.25 * (kr * kr));
  return (-g1 / (4.0 * nu)) * (tail / bessel_j0(kR));
}

/// Axial velocity at radius r and time t for g(t) = g0 + g1 cos(omega t): the steady
/// Poiseuille part plus Re[A(r) e^{i omega t}]. Zero outside the pipe (r > R).
HEMO_HD double womersley_velocity(double r, double R, double nu, double g0, double g1, double omega, double t) {
  if (r > R) return 0.0;
  const Complex a = womersley_amplitude(r, R, nu, g1, omega);
  const Complex osc = a * exp_i(omega * t);
  return g0 * (R * R - r * r) / (4.0 * nu) + osc.re;
}

/// Complex amplitude of the oscillating flow rate, Q_osc(t) = Re[Q e^{i omega t}]:
///   Q = (pi R^2 g1 / (i omega)) [1 - 2 J1(z) / (z J0(z))],  z = i^{3/2} alpha
/// (Womersley 1955, the flow-rate integral of A(r); int_0^R r J0(kr) dr = R J1(kR) / k).
/// Needs omega > 0; the bracket loses about log10(1/alpha^2) digits as alpha -> 0.
HEMO_HD Complex womersley_flow_amplitude(double R, double nu, double g1, double omega) {
  const Complex z = womersley_number(R, omega, nu) * i_three_halves();
  const Complex bracket = Complex{1.0, 0.0} - 2.0 * (bessel_j1(z) / (z * bessel_j0(z)));
  const double pi = 3.14159265358979323846;
  return Complex{pi * R * R * g1, 0.0} / Complex{0.0, omega} * bracket;
}

/// The oscillating profile that carries a unit mean velocity: u(r, t) = Re[W(r) e^{i omega t}]
/// has the flow rate pi R^2 cos(omega t), whatever drives it (a pressure gradient's
/// harmonic, here normalised away): W(r) = A(r) pi R^2 / Q with A and Q of any one drive
/// (womersley_amplitude, womersley_flow_amplitude). A velocity inlet given a flow waveform
/// imposes each Fourier harmonic of its mean velocity with this shape (J. R. Womersley
/// 1955; as HemeLB and others impose measured flow waveforms). W -> 2 (1 - r^2 / R^2), the
/// Poiseuille shape of unit mean velocity, as omega -> 0 (needs omega > 0: use the
/// Poiseuille shape for the mean).
HEMO_HD Complex womersley_profile_per_mean_velocity(double r, double R, double nu, double omega) {
  const double pi = 3.14159265358979323846;
  return (pi * R * R) * (womersley_amplitude(r, R, nu, 1.0, omega) / womersley_flow_amplitude(R, nu, 1.0, omega));
}

}  // namespace hemo::phys
