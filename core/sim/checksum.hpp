#pragma once
// A checksum of a node field that names the state, not the way it is stored: equal fields
// give equal checksums whatever the node ordering (lexicographic, Morton) and, with many
// ranks, whatever the partition, because each value is keyed by its node's global voxel
// index and the keyed hashes are added (mod 2^64, which is commutative and associative:
// ranks add their partial sums exactly). A flipped bit changes it, up to a 2^-64 chance.
#include <cstdint>
#include <span>

namespace hemo {

/// splitmix64's finaliser (Steele, Lea & Flood, OOPSLA 2014): a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The hash of one value: component c of the node at global voxel index `voxel`, with the
/// value's bits (a float's, a double's or a 16-bit storage code, zero-extended).
constexpr std::uint64_t keyed_value_hash(std::uint64_t voxel, int c, std::uint64_t bits) {
  return mix64(mix64(voxel * 64u + std::uint64_t(c)) ^ bits);
}

/// Sum of keyed_value_hash over count values of component c whose bytes (element_bytes
/// each, 2, 4 or 8) are in `bytes`; voxel[n] is node n's global voxel index.
std::uint64_t keyed_checksum(std::span<const unsigned char> bytes, std::size_t element_bytes, int c,
                             std::span<const std::uint64_t> voxel);

}  // namespace hemo
