// 16-bit population storage (physics/storage16.hpp) on the device: every code decodes to
// the host's float, and 2^24 + 2^16 floats (random magnitudes over and beyond each format's
// range, both signs, every code's value and the midpoints between codes) encode to the
// host's code, bit for bit, rounded to nearest and dithered. The host conversions are checked against brute-force
// nearest-even rounding in tests/unit/test_storage16.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/launch_host.hpp"
#include "tests/gpu/storage16_kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::test::Recode<hemo::phys::Fp16s>);
HEMO_INSTANTIATE_HOST(hemo::test::Recode<hemo::phys::E4m11s>);

namespace {

using hemo::exec::Space;

template <class Store>
void compare_with_host(const char* name) {
  INFO("storage ", name);
  constexpr std::uint32_t codes = 1u << 16;
  std::vector<float> values;
  for (std::uint32_t c = 0; c < codes; ++c) {  // each code's value and the midpoint to the next
    Store s, t;
    s.bits = std::uint16_t(c);
    t.bits = std::uint16_t(c + 1);
    values.push_back(float(s));
    if ((c & 0x7fffu) != 0x7fffu) values.push_back(0.5f * (float(s) + float(t)));
  }
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> lg(-30.0, 6.0);
  for (int i = 0; i < (1 << 24); ++i) values.push_back(float(std::exp2(lg(rng))) * (i % 2 ? 1.0f : -1.0f));
  values.push_back(std::numeric_limits<float>::infinity());
  values.push_back(std::numeric_limits<float>::denorm_min());
  const std::uint32_t n = std::uint32_t(values.size());

  std::vector<std::uint16_t> enc_host(n), enc_gpu(n), dit_host(n), dit_gpu(n);
  std::vector<float> dec_host(codes), dec_gpu(codes);
  hemo::exec::for_each(Space::host, {0, n}, hemo::test::Recode<Store>{values.data(), enc_host.data(), dec_host.data(), dit_host.data(), codes},
                       "test::recode");
  auto v = hemo::exec::to_device(Space::cuda, values);
  hemo::exec::DeviceArray<std::uint16_t> enc(Space::cuda, n);
  hemo::exec::DeviceArray<float> dec(Space::cuda, codes);
  hemo::exec::DeviceArray<std::uint16_t> dit(Space::cuda, n);
  hemo::exec::for_each(Space::cuda, {0, n}, hemo::test::Recode<Store>{v.data(), enc.data(), dec.data(), dit.data(), codes},
                       "test::recode");
  enc.download(enc_gpu.data());
  dec.download(dec_gpu.data());
  dit.download(dit_gpu.data());
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < codes; ++i) {
    if (std::isnan(dec_host[i]) && std::isnan(dec_gpu[i])) continue;
    std::uint32_t a, b;
    std::memcpy(&a, &dec_host[i], 4);
    std::memcpy(&b, &dec_gpu[i], 4);
    if (a != b && ++bad <= 5) FAIL_CHECK("code " << i << ": host " << dec_host[i] << ", device " << dec_gpu[i]);
  }
  for (std::uint32_t i = 0; i < n; ++i)
    if (enc_host[i] != enc_gpu[i] && ++bad <= 10)
      FAIL_CHECK("value " << values[i] << ": host code " << enc_host[i] << ", device " << enc_gpu[i]);
  for (std::uint32_t i = 0; i < n; ++i)
    if (dit_host[i] != dit_gpu[i] && ++bad <= 15)
      FAIL_CHECK("value " << values[i] << " dithered: host code " << dit_host[i] << ", device " << dit_gpu[i]);
  CHECK(bad == 0);
  MESSAGE(name, ": ", codes, " codes decoded and ", n, " values encoded (nearest and dithered), device = host bit for bit");
}

}  // namespace

TEST_CASE("gpu storage16: Fp16s and E4m11s convert on the device exactly as on the host") {
  compare_with_host<hemo::phys::Fp16s>("fp16s");
  compare_with_host<hemo::phys::E4m11s>("e4m11");
}
