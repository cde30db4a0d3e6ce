#include "core/sim/checksum.hpp"

#include <cstring>
#include <stdexcept>

namespace hemo {

std::uint64_t keyed_checksum(std::span<const unsigned char> bytes, std::size_t element_bytes, int c,
                             std::span<const std::uint64_t> voxel) {
  if ((element_bytes != 2 && element_bytes != 4 && element_bytes != 8) || bytes.size() != element_bytes * voxel.size())
    throw std::logic_error("keyed_checksum: bytes do not hold one 2-, 4- or 8-byte value per node");
  std::uint64_t sum = 0;
  for (std::size_t n = 0; n < voxel.size(); ++n) {
    std::uint64_t bits = 0;
    if (element_bytes == 8) {
      std::memcpy(&bits, bytes.data() + 8 * n, 8);
    } else if (element_bytes == 2) {  // 16-bit population storage
      std::uint16_t b16 = 0;
      std::memcpy(&b16, bytes.data() + 2 * n, 2);
      bits = b16;
    } else {
      std::uint32_t b32 = 0;
      std::memcpy(&b32, bytes.data() + 4 * n, 4);
      bits = b32;
    }
    sum += keyed_value_hash(voxel[n], c, bits);
  }
  return sum;
}

}  // namespace hemo
