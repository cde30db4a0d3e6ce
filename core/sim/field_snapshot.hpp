#pragma once
// A copy of the moments (density, velocity) taken at an output step. On CUDA the copy is
// staged on the device (a fast device-to-device copy, ordered after the step's kernels)
// and then downloaded on a copy stream into pinned host memory while the next steps
// already run; on the host it is a plain memcpy. The writer reads it only after wait().
#include <cstdint>
#include <memory>

#include "core/exec/cuda_runtime.hpp"
#include "core/exec/device_array.hpp"
#include "core/fields/field_registry.hpp"
#include "core/sim/units.hpp"

namespace hemo {

class FieldSnapshot {
 public:
  FieldSnapshot(exec::Space space, Precision precision, std::uint32_t nodes, std::uint32_t stride);
  ~FieldSnapshot();
  FieldSnapshot(const FieldSnapshot&) = delete;
  FieldSnapshot& operator=(const FieldSnapshot&) = delete;

  /// Starts copying "density" and "velocity"; returns without waiting on CUDA.
  void capture(const FieldRegistry& fields);
  /// Blocks until the copy has landed in host memory.
  void wait();

  std::uint32_t nodes() const { return nodes_; }
  /// Row 0 is the density, rows 1-3 the velocity components (lattice units).
  double value(int row, std::uint32_t node) const {
    const std::size_t i = std::size_t(row) * stride_ + node;
    return fp32_ ? double(static_cast<const float*>(host_)[i]) : static_cast<const double*>(host_)[i];
  }

 private:
  void allocate();
  exec::Space space_;
  bool fp32_;
  std::uint32_t nodes_, stride_;
  std::size_t bytes_;
  void* host_ = nullptr;  // 4 rows of `stride` values; pinned on CUDA
  exec::DeviceArray<unsigned char> staging_;  // CUDA only
  std::unique_ptr<exec::cuda::AsyncCopy> download_;
};

}  // namespace hemo
