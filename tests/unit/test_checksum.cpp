// The population checksum names the state, not its storage (core/sim/checksum.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/sim/checksum.hpp"

namespace {

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::uint64_t checksum(const std::vector<T>& values, const std::vector<std::uint64_t>& voxel, int c = 0) {
  const auto b = bytes_of(values);
  return hemo::keyed_checksum(b, sizeof(T), c, voxel);
}

}  // namespace

TEST_CASE("keyed checksum: independent of node order and of how the nodes are split") {
  const std::vector<double> v{0.125, -3.5e-7, 1.0, 2.0e-3, -0.0};
  const std::vector<std::uint64_t> voxel{7, 3, 1000000007ull, 42, 5};
  // The same values stored in another order (as Morton ordering would).
  const std::vector<std::size_t> perm{3, 0, 4, 1, 2};
  std::vector<double> pv;
  std::vector<std::uint64_t> pvox;
  for (std::size_t p : perm) pv.push_back(v[p]), pvox.push_back(voxel[p]);
  CHECK(checksum(v, voxel) == checksum(pv, pvox));
  // Split between two "ranks": partial sums add up (mod 2^64) to the whole.
  const std::vector<double> a(v.begin(), v.begin() + 2), b(v.begin() + 2, v.end());
  const std::vector<std::uint64_t> va(voxel.begin(), voxel.begin() + 2), vb(voxel.begin() + 2, voxel.end());
  CHECK(checksum(a, va) + checksum(b, vb) == checksum(v, voxel));
}

TEST_CASE("keyed checksum: one flipped bit, a swap of two values or another component changes it") {
  const std::vector<float> v{0.5f, 0.25f, -1.0f};
  const std::vector<std::uint64_t> voxel{0, 1, 2};
  const std::uint64_t h = checksum(v, voxel);
  std::vector<float> flipped = v;
  std::uint32_t bits;
  std::memcpy(&bits, &flipped[1], 4);
  bits ^= 1u;  // the last mantissa bit
  std::memcpy(&flipped[1], &bits, 4);
  CHECK(checksum(flipped, voxel) != h);
  const std::vector<float> swapped{0.25f, 0.5f, -1.0f};  // values moved to other voxels
  CHECK(checksum(swapped, voxel) != h);
  CHECK(checksum(v, voxel, 1) != h);
  // -0.0 and +0.0 are different bits.
  CHECK(checksum(std::vector<float>{0.0f}, {9}) != checksum(std::vector<float>{-0.0f}, {9}));
}

TEST_CASE("keyed checksum: refuses bytes that are not one value per node") {
  const std::vector<unsigned char> b(12);
  const std::vector<std::uint64_t> voxel{0, 1};
  CHECK_THROWS_AS(hemo::keyed_checksum(b, 4, 0, voxel), std::logic_error);
  CHECK_THROWS_AS(hemo::keyed_checksum(b, 3, 0, std::vector<std::uint64_t>(4)), std::logic_error);
  CHECK_THROWS_AS(hemo::keyed_checksum(b, 2, 0, std::vector<std::uint64_t>(5)), std::logic_error);
}

TEST_CASE("keyed checksum: 16-bit storage codes are hashed zero-extended") {
  const std::vector<unsigned char> b{0x34, 0x12, 0xff, 0xff};  // little-endian 0x1234, 0xffff
  const std::vector<std::uint64_t> voxel{7, 9};
  CHECK(hemo::keyed_checksum(b, 2, 3, voxel) == hemo::keyed_value_hash(7, 3, 0x1234) + hemo::keyed_value_hash(9, 3, 0xffff));
}
