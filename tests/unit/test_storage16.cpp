// physics/storage16.hpp: every code decodes and encodes back to itself, and encoding
// rounds to the nearest code, ties to the even one, against a reference built by brute
// force from the decoded codes (and, for IEEE half, against the compiler's _Float16).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "physics/storage16.hpp"

using namespace hemo::phys;

namespace {

/// The finite non-negative codes by value (they ascend with the code), and their values.
template <class F>
std::vector<double> finite_values() {
  std::vector<double> v;
  for (std::uint32_t c = 0; c < 0x8000u; ++c) {
    const float x = F::decode(std::uint16_t(c));
    if (!std::isfinite(x)) break;
    v.push_back(double(x));
  }
  return v;
}

/// The code nearest to x >= 0 (ties to the even code). Past the largest finite code by half
/// a step or more (IEEE rounding: max + half a step overflows), the code after it, which
/// is infinity.
std::uint16_t reference(double x, const std::vector<double>& v) {
  const auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end()) {
    const double step = v.back() - v[v.size() - 2];
    return std::uint16_t(x < v.back() + step / 2 ? v.size() - 1 : v.size());
  }
  const std::size_t hi = std::size_t(it - v.begin());
  if (*it == x || hi == 0) return std::uint16_t(hi);
  const double below = x - v[hi - 1], above = *it - x;
  if (below < above) return std::uint16_t(hi - 1);
  if (above < below) return std::uint16_t(hi);
  return std::uint16_t((hi % 2 == 0) ? hi : hi - 1);  // a tie: the even code
}

template <class F>
void check_format(const char* name) {
  INFO("format ", std::string(name));
  // 1. Every code: finite ones decode and encode back to themselves, both signs; the
  //    infinities too; NaN codes decode to NaN and encode to a NaN code.
  std::size_t nans = 0;
  for (std::uint32_t c = 0; c <= 0xffffu; ++c) {
    const float x = F::decode(std::uint16_t(c));
    if (std::isnan(x)) {
      ++nans;
      const std::uint16_t back = F::encode(x);
      CHECK(std::isnan(F::decode(back)));
      continue;
    }
    if (F::encode(x) != c) {
      FAIL_CHECK("code " << c << " decodes to " << x << " and encodes to " << F::encode(x));
    }
  }
  CHECK(nans == 2 * F::man_mask);
  // 2. Rounding against the brute-force reference: random magnitudes over the whole range
  //    and beyond, every midpoint between neighbouring codes (exact ties: the even code
  //    wins) and the floats just beside each midpoint.
  const std::vector<double> v = finite_values<F>();
  const std::uint16_t inf_code = std::uint16_t(v.size());
  CHECK(std::isinf(F::decode(inf_code)));
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> lg(std::log2(v[1]) - 3, std::log2(v.back()) + 2);
  std::size_t checked = 0, bad = 0;
  auto check_one = [&](float x) {
    ++checked;
    const std::uint16_t want = reference(double(x), v);
    const std::uint16_t got = F::encode(x), got_neg = F::encode(-x);
    if (got != want || got_neg != std::uint16_t(want | 0x8000u)) {
      if (++bad <= 5) FAIL_CHECK("x = " << x << ": code " << got << ", nearest-even " << want);
    }
  };
  for (int i = 0; i < 1000000; ++i) check_one(float(std::exp2(lg(rng))));
  for (std::size_t c = 0; c + 1 < v.size(); ++c) {
    const float mid = float((v[c] + v[c + 1]) / 2);  // exact: two codes' mean fits a float
    check_one(mid);
    check_one(std::nextafter(mid, 0.0f));
    check_one(std::nextafter(mid, 1e30f));
  }
  CHECK(bad == 0);
  MESSAGE(std::string(name), ": ", checked, " values rounded as nearest-even, every code round-tripped");
  // 3. Zeros keep their sign; overflow gives infinity; the float subnormals give zero.
  CHECK(F::encode(0.0f) == 0);
  CHECK(F::encode(-0.0f) == 0x8000u);
  CHECK(std::isinf(F::decode(F::encode(1e10f))));
  CHECK(F::decode(F::encode(-1e10f)) < 0);
  CHECK(F::encode(std::numeric_limits<float>::denorm_min()) == 0);
  CHECK(std::isnan(F::decode(F::encode(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace

TEST_CASE("storage16: Fp16 (IEEE binary16) and E4m11 round to nearest even, every code round-trips") {
  check_format<Fp16>("Fp16");
  check_format<E4m11>("E4m11");
  CHECK(Fp16::decode(Fp16::encode(65504.0f)) == 65504.0f);
  CHECK(Fp16::decode(0x0400u) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(E4m11::decode(0x0800u) == std::ldexp(1.0f, -12));
  CHECK(E4m11::decode(0x77ffu) == std::ldexp(2.0f - std::ldexp(1.0f, -11), 1));  // largest: just under 4
}

#if defined(__FLT16_MAX__)
TEST_CASE("storage16: Fp16 agrees with the compiler's _Float16 conversion") {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> lg(-26.0, 17.0);
  std::size_t bad = 0;
  for (int i = 0; i < 1000000; ++i) {
    const float x = float(std::exp2(lg(rng))) * (i % 2 ? 1.0f : -1.0f);
    const _Float16 h = static_cast<_Float16>(x);
    std::uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    if (Fp16::encode(x) != bits && ++bad <= 5) FAIL_CHECK("x = " << x << ": " << Fp16::encode(x) << " against " << bits);
    if (float(h) != Fp16::decode(bits) && ++bad <= 5) FAIL_CHECK("decode " << bits);
  }
  CHECK(bad == 0);
}
#endif

TEST_CASE("storage16: the population storages Fp16s and E4m11s convert through their formats") {
  static_assert(sizeof(Fp16s) == 2 && sizeof(E4m11s) == 2);
  static_assert(std::is_trivially_copyable_v<Fp16s> && std::is_trivially_default_constructible_v<E4m11s>);
  static_assert(is_stored16<Fp16s> && is_stored16<E4m11s> && !is_stored16<float>);
  CHECK(std::string(Fp16s::type_name) == "fp16s");
  CHECK(std::string(E4m11s::type_name) == "e4m11");
  for (float x : {0.0f, 1e-6f, -3.3e-4f, 0.0123f, 0.333f, -0.9f}) {
    CHECK(Fp16s(x).bits == Fp16::encode(x));
    CHECK(E4m11s(x).bits == E4m11::encode(x));
    CHECK(float(Fp16s(x)) == Fp16::decode(Fp16::encode(x)));
    CHECK(double(E4m11s(x)) == double(E4m11::decode(E4m11::encode(x))));
  }
  Fp16s zero{};
  zero.bits = 0;
  CHECK(float(zero) == 0.0f);  // a zeroed field is h = 0: f = w
}

template <class F>
void check_dithered(const char* name) {
  INFO("format ", std::string(name));
  const std::vector<double> v = finite_values<F>();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lg(std::log2(v[1]) - 2, std::log2(v.back()) - 1);
  std::size_t bad = 0;
  for (int i = 0; i < 20000; ++i) {
    const float x = float(std::exp2(lg(rng))) * (i % 2 ? 1.0f : -1.0f);
    // Each dithered code is one of the two codes around x (x itself if it is one), and over
    // many noises their mean is x: the rounding is unbiased.
    const auto lo = std::upper_bound(v.begin(), v.end(), double(std::fabs(x))) - 1;
    const double a = *lo, b = (lo + 1 == v.end()) ? *lo : *(lo + 1);
    double sum = 0.0;
    const int draws = 256;
    for (int k = 0; k < draws; ++k) {
      const std::uint32_t noise = mix32(std::uint32_t(i) * 7919u + std::uint32_t(k));
      const double d = std::fabs(double(F::decode(F::encode_dithered(x, noise))));
      if (d != a && d != b && ++bad <= 5) FAIL_CHECK("x = " << x << " dithered to " << d << ", not " << a << " or " << b);
      sum += d;
    }
    const double mean = sum / draws, step = b - a;
    // 6 standard deviations of a mean of `draws` Bernoulli steps (at most step / 2 each): a
    // true failure among the 40000 draws here has a chance of about 1e-4.
    if (step > 0 && std::fabs(mean - std::fabs(double(x))) > 6.0 * step / std::sqrt(double(draws)) / 2.0 &&
        ++bad <= 5)
      FAIL_CHECK("x = " << x << ": mean of dithered codes " << mean << ", step " << step);
    if (a == std::fabs(double(x)))  // exactly a code: every noise gives it
      CHECK(F::encode_dithered(x, 0xffffffffu) == F::encode(x));
  }
  CHECK(bad == 0);
  CHECK(std::isnan(F::decode(F::encode_dithered(std::numeric_limits<float>::quiet_NaN(), 123u))));
  CHECK(F::encode_dithered(0.0f, 0xffffffffu) == 0);
}

TEST_CASE("storage16: dithered rounding picks one of the two codes around x, unbiased over the noise") {
  check_dithered<Fp16>("Fp16");
  check_dithered<E4m11>("E4m11");
  // store_population: float passes through; a 16-bit storage rounds to nearest with seed 0.
  CHECK(store_population<float>(0.123f, 3, 99u) == 0.123f);
  CHECK(store_population<E4m11s>(0.123f, 3, 0u).bits == E4m11::encode(0.123f));
}
