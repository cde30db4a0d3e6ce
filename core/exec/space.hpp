#pragma once
// Where kernels run and memory lives.
#include <cstdint>

namespace hemo::exec {

enum class Space : std::uint8_t { host, cuda };

inline const char* to_string(Space s) { return s == Space::host ? "cpu" : "cuda"; }

/// True when this build contains the CUDA backend.
constexpr bool cuda_built() {
#if HEMO_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

/// A half-open range of node indices [begin, end).
struct Range {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t size() const { return end - begin; }
};

}  // namespace hemo::exec
