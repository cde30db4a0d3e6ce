#pragma once
// A kernel for the 16-bit storage test (test_gpu_storage16.cpp): each format's
// conversions on whichever backend runs it, so the device's bits can be compared with the
// host's. Instantiated for the host in the test and for CUDA in storage16_kernels.cu.
#include <cstdint>

#include "physics/storage16.hpp"

namespace hemo::test {

/// decoded[i] = Store's value of code i (i < 65536); encoded[i] = the code of value[i];
/// dithered[i] = its code rounded stochastically with noise mix32(i).
template <class Store>
struct Recode {
  const float* value;
  std::uint16_t* encoded;
  float* decoded;
  std::uint16_t* dithered;
  std::uint32_t codes;
  HEMO_HD void operator()(std::uint32_t i) const {
    encoded[i] = Store(value[i]).bits;
    dithered[i] = Store(value[i], phys::mix32(i)).bits;
    if (i < codes) {
      Store s;
      s.bits = std::uint16_t(i);
      decoded[i] = float(s);
    }
  }
};

}  // namespace hemo::test
