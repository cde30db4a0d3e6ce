#pragma once
// 16-bit storage formats for the populations (issue 16; docs/bytes_per_update.md): the
// kernels compute in FP32 and store h_q = f_q - w_q in 16 bits. A format of 1 sign bit,
// E exponent bits and M mantissa bits (1 + E + M = 16), IEEE 754 style:
//   exponent field 1 .. 2^E - 2   normal:    (-1)^s 2^(e - 1 + min_exp) (1 + m / 2^M)
//   exponent field 0              subnormal: (-1)^s 2^(min_exp - M) m
//   exponent field 2^E - 1        infinity (m = 0) or NaN (m != 0)
// so that a diverging run still shows NaN and infinity to the checks that look for them.
// Encoding rounds to nearest, ties to even (IEEE 754 roundTiesToEven), by exact float
// scaling and one integer step on the float's bits: the same bits on host and device.
//   Fp16  = IEEE binary16 (E 5, M 10, smallest normal 2^-14 = 6.1e-5, largest 65504),
//           FluidX3D's FP16S storage of f - w;
//   E4m11 = E 4, M 11 (one bit more precision), smallest normal 2^-12 = 2.4e-4, largest
//           just under 4: room for any population of a flow that has not diverged.
// One rounding of real flow states moved the velocity by 1.1-1.9e-4 of its maximum in Fp16
// and 0.7-1.0e-4 in E4m11 (docs/fp16_storage.md).
#include <cstdint>
#include <cstring>

#include "physics/hd.hpp"

namespace hemo::phys {

HEMO_HD std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

HEMO_HD float bits_float(std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

template <int ExpBits, int ManBits, int MinExp>
struct Format16 {
  static_assert(1 + ExpBits + ManBits == 16, "a 16-bit format: sign, exponent and mantissa bits");
  static constexpr std::uint32_t top = (1u << ExpBits) - 1;  // the exponent field of inf and NaN
  static constexpr std::uint32_t man_mask = (1u << ManBits) - 1;
  static constexpr std::uint32_t inf_code = top << ManBits;
  static constexpr int shift = 23 - ManBits;  // float mantissa bits below the format's last
  /// IEEE binary16: on the device, the hardware's conversions (round to nearest even, the
  /// same bits as the code below; NaN payloads aside, which tests/gpu checks).
  static constexpr bool ieee_half = ExpBits == 5 && ManBits == 10 && MinExp == -14;

  // Both conversions place the format's exponent and mantissa fields on a float's, which
  // is exact: for a normal code, the fields shifted into a float's and the exponent moved
  // by a constant (an integer addition on the bits) are its value; a subnormal code's
  // mantissa m is an integer, and its value m 2^(MinExp - ManBits) one exact product.
  // Rounding is one integer step on the float's bits. Both paths are computed and one is
  // selected: no branch for a warp to diverge on, no int-float conversion instruction
  // (those run at a quarter of the rate on the GPU), no floating-point operation on a
  // float subnormal (x86 takes a slow path for those), and the same IEEE operations on
  // host and device. About 15 operations to encode, 10 to decode.

  /// The code of x, rounded to nearest, ties to even; beyond the largest finite value:
  /// infinity; NaN: a quiet NaN; below half the smallest subnormal: a signed zero.
  HEMO_HD static std::uint16_t encode(float x) {
#if defined(__CUDA_ARCH__)
    if constexpr (ieee_half) {  // the device's own conversion: the same rounding, one instruction
      std::uint16_t h;
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
      return h;
    }
#endif
    const std::uint32_t b = float_bits(x);
    const std::uint32_t sign = (b >> 16) & 0x8000u, abs_bits = b & 0x7fffffffu;
    // A normal code: the float's exponent field moved down by 126 + MinExp is the code's
    // (>= 1 where this path is taken); the mantissa rounded to ManBits bits, nearest even.
    // A carry moves to the next binade, or to the infinity code, by itself.
    const std::uint32_t y = abs_bits - (std::uint32_t(126 + MinExp) << 23);
    std::uint32_t normal = (y + ((1u << (shift - 1)) - 1u) + ((y >> shift) & 1u)) >> shift;
    normal = normal < inf_code ? normal : inf_code;
    // A subnormal code m: |x| / 2^(MinExp - ManBits) (exact, < 2^ManBits where this path is
    // taken) rounded to an integer, nearest even, by adding 2^23 (no fraction bits left);
    // 2^ManBits is the smallest normal code.
    const std::uint32_t sub = float_bits(bits_float(abs_bits) * subnormal_scale() + 8388608.0f) - 0x4b000000u;
    std::uint32_t mag = abs_bits >= smallest_normal_bits ? normal : sub;
    // NaN: the canonical quiet NaN, all bits but the sign set (as the device's cvt gives).
    return std::uint16_t(abs_bits > 0x7f800000u ? 0x7fffu : sign | mag);
  }

  /// The code of x rounded stochastically: up with the probability of x's distance from the
  /// code below, by `noise`, 32 bits from dither_noise (nearest rounding stalls increments
  /// below half a step; this keeps their expected value; docs/bytes_per_update.md).
  /// Deterministic: the same bits on host and device.
  HEMO_HD static std::uint16_t encode_dithered(float x, std::uint32_t noise) {
    const std::uint32_t b = float_bits(x);
    const std::uint32_t sign = (b >> 16) & 0x8000u, abs_bits = b & 0x7fffffffu;
    const std::uint32_t y = abs_bits - (std::uint32_t(126 + MinExp) << 23);
    std::uint32_t normal = (y + (noise & ((1u << shift) - 1u))) >> shift;  // add [0, 1) step, truncate
    normal = normal < inf_code ? normal : inf_code;
    // Subnormal: |x| / 2^(MinExp - ManBits) plus uniform [-1/2, 1/2), rounded to an integer.
    // (noise >> 9) 2^-23 - 1/2, exact: 1 + that mantissa over 2^23, less 3/2 (no int-float conversion)
    const float offset = bits_float(0x3f800000u | (noise >> 9)) - 1.5f;
    float t = bits_float(abs_bits) * subnormal_scale() + offset;
    t = t > 0.0f ? t : 0.0f;
    const std::uint32_t sub = float_bits(t + 8388608.0f) - 0x4b000000u;
    const std::uint32_t mag = abs_bits >= smallest_normal_bits ? normal : sub;
    return std::uint16_t(abs_bits > 0x7f800000u ? 0x7fffu : sign | mag);
  }

  /// The value of a code (exact in float).
  HEMO_HD static float decode(std::uint16_t c) {
#if defined(__CUDA_ARCH__)
    if constexpr (ieee_half) {  // exact, one instruction
      float x;
      asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(c));
      return x;
    }
#endif
    const std::uint32_t sign = (std::uint32_t(c) & 0x8000u) << 16, mag = std::uint32_t(c) & 0x7fffu;
    const std::uint32_t normal = (mag << shift) + (std::uint32_t(126 + MinExp) << 23);
    // m 2^(MinExp - ManBits): m as a float by the same 2^23 trick, then an exact product.
    const std::uint32_t sub = float_bits((bits_float(0x4b000000u | mag) - 8388608.0f) * subnormal_unit());
    std::uint32_t r = mag <= man_mask ? sub : normal;
    r = mag >= inf_code ? (0x7f800000u | ((mag & man_mask) ? 0x400000u : 0u)) : r;
    return bits_float(sign | r);
  }

 private:
  static constexpr std::uint32_t smallest_normal_bits = std::uint32_t(127 + MinExp) << 23;
  HEMO_HD static float subnormal_scale() { return bits_float(std::uint32_t(127 + ManBits - MinExp) << 23); }
  HEMO_HD static float subnormal_unit() { return bits_float(std::uint32_t(127 + MinExp - ManBits) << 23); }
};

using Fp16 = Format16<5, 10, -14>;
using E4m11 = Format16<4, 11, -12>;

/// A population stored in 16 bits of a format (Fp16 or E4m11): the element type of a
/// population field with 16-bit storage. Kernels read it as `Real(h)` and write it as
/// `Stored16(x)`, the same expressions as for a float field, so one kernel template
/// serves every storage. Trivial (a field zeroes and copies it as bytes); zero bits are
/// h = 0, f = w.
template <class Format>
struct Stored16 {
  std::uint16_t bits;
  using format = Format;
  Stored16() = default;
  HEMO_HD explicit Stored16(float x) : bits(Format::encode(x)) {}
  /// Rounded stochastically with the 32 bits `noise` (Format::encode_dithered).
  HEMO_HD Stored16(float x, std::uint32_t noise) : bits(Format::encode_dithered(x, noise)) {}
  HEMO_HD explicit operator float() const { return Format::decode(bits); }
  HEMO_HD explicit operator double() const { return double(Format::decode(bits)); }  // exec::sum, first_non_finite
};

/// FluidX3D's FP16S: IEEE half of h = f - w.
struct Fp16s : Stored16<Fp16> {
  using Stored16::Stored16;
  static constexpr const char* type_name = "fp16s";
};
/// One bit more precision than Fp16s, range to just under 4 (enough for h of any flow
/// that has not diverged); about twice as accurate per rounding (docs/fp16_storage.md).
struct E4m11s : Stored16<E4m11> {
  using Stored16::Stored16;
  static constexpr const char* type_name = "e4m11";
};

/// Whether T is one of the 16-bit population storages.
template <class T>
inline constexpr bool is_stored16 = requires { typename T::format; };

/// 32 well-mixed bits (Chris Wellons' lowbias32 integer hash).
HEMO_HD std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/// The noise that dithers population h of direction q: from h's own bits and a per-step
/// seed, not from the node's index, so that the answer is the same on any rank count and
/// node order (CPU = GPU, and ranks, bitwise).
HEMO_HD std::uint32_t dither_noise(float h, int q, std::uint32_t step_seed) {
  return mix32(float_bits(h) ^ step_seed ^ (std::uint32_t(q) * 0x9e3779b9u));
}

/// A population h written to storage Store: as computed for float and double; for a
/// 16-bit storage, nearest-even (step_seed 0) or dithered with dither_noise.
template <class Store, class Real>
HEMO_HD Store store_population(Real h, int q, std::uint32_t step_seed) {
  if constexpr (is_stored16<Store>) {
    if (step_seed) return Store(float(h), dither_noise(float(h), q, step_seed));
    return Store(float(h));
  } else {
    (void)q, (void)step_seed;
    return Store(h);
  }
}

}  // namespace hemo::phys
