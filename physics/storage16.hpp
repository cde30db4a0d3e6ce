#pragma once
// 16-bit storage formats for the populations (issue 16; docs/bytes_per_update.md): the
// kernels compute in FP32 and store h_q = f_q - w_q in 16 bits. A format of 1 sign bit,
// E exponent bits and M mantissa bits (1 + E + M = 16), IEEE 754 style:
//   exponent field 1 .. 2^E - 2   normal:    (-1)^s 2^(e - 1 + min_exp) (1 + m / 2^M)
//   exponent field 0              subnormal: (-1)^s 2^(min_exp - M) m
//   exponent field 2^E - 1        infinity (m = 0) or NaN (m != 0)
// so that a diverging run still shows NaN and infinity to the checks that look for them.
// Encoding rounds to nearest, ties to even (IEEE 754 roundTiesToEven), in integer
// arithmetic on the float's bits: the same bits on the host and on a CUDA device.
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

  /// The code of x, rounded to nearest, ties to even; beyond the largest finite value:
  /// infinity; NaN: a quiet NaN; below half the smallest subnormal: a signed zero.
  HEMO_HD static std::uint16_t encode(float x) {
    const std::uint32_t b = float_bits(x);
    const std::uint32_t sign = (b >> 16) & 0x8000u;
    const int exp8 = int((b >> 23) & 0xffu);
    const std::uint32_t man = b & 0x7fffffu;
    if (exp8 == 255) return std::uint16_t(sign | (top << ManBits) | (man ? (1u << (ManBits - 1)) : 0u));
    if (exp8 == 0) return std::uint16_t(sign);  // zero, or a float subnormal (< 1.2e-38)
    // x = sig 2^(E - 23) with the 24-bit significand sig; the format's biased exponent e.
    const int E = exp8 - 127, e = E - MinExp + 1;
    const std::uint32_t sig = man | 0x800000u;
    const int shift = (23 - ManBits) + (e >= 1 ? 0 : 1 - e);  // bits of sig below the format's last
    if (shift > 24) return std::uint16_t(sign);                // less than half the smallest subnormal
    std::uint32_t q = sig >> shift;
    const std::uint32_t rest = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u))) ++q;
    // Normal: q holds the implicit bit at ManBits, which adds the 1 to the exponent field
    // (and a carry out of the mantissa moves up one binade by itself); subnormal: q is m.
    const std::uint32_t code = e >= 1 ? (std::uint32_t(e - 1) << ManBits) + q : q;
    if (code >= (top << ManBits)) return std::uint16_t(sign | (top << ManBits));  // overflow
    return std::uint16_t(sign | code);
  }

  /// The value of a code (exact in float).
  HEMO_HD static float decode(std::uint16_t c) {
    const std::uint32_t sign = (std::uint32_t(c) & 0x8000u) << 16;
    const std::uint32_t e = (std::uint32_t(c) >> ManBits) & top, m = std::uint32_t(c) & man_mask;
    if (e == top) return bits_float(sign | 0x7f800000u | (m ? 0x400000u : 0u));
    if (e == 0) {
      // m 2^(MinExp - ManBits): an exact product with a power of two (a normal float).
      const float v = float(m) * bits_float(std::uint32_t(127 + MinExp - ManBits) << 23);
      return sign ? -v : v;
    }
    return bits_float(sign | (std::uint32_t(int(e) - 1 + MinExp + 127) << 23) | (m << (23 - ManBits)));
  }
};

using Fp16 = Format16<5, 10, -14>;
using E4m11 = Format16<4, 11, -12>;

}  // namespace hemo::phys
