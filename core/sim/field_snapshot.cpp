#include "core/sim/field_snapshot.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace hemo {

FieldSnapshot::FieldSnapshot(exec::Space space, Precision precision, std::uint32_t nodes, std::uint32_t stride)
    : space_(space), fp32_(precision == Precision::fp32), nodes_(nodes), stride_(stride),
      bytes_(std::size_t(4) * stride * (fp32_ ? sizeof(float) : sizeof(double))) {
}

void FieldSnapshot::allocate() {
  // On first use only: a run without output keeps the device memory for the fields.
  if (space_ == exec::Space::cuda) {
    host_ = exec::cuda::allocate_pinned(bytes_);
    staging_ = exec::DeviceArray<unsigned char>(space_, bytes_);
    download_ = std::make_unique<exec::cuda::AsyncCopy>();
  } else {
    host_ = std::malloc(bytes_);
    if (!host_) throw std::bad_alloc();
  }
}

FieldSnapshot::~FieldSnapshot() {
  download_.reset();  // finishes any copy still in flight before the buffers go
  if (!host_) return;
  if (space_ == exec::Space::cuda) exec::cuda::release_pinned(host_);
  else std::free(host_);
}

void FieldSnapshot::capture(const FieldRegistry& fields) {
  if (!host_) allocate();
  const std::size_t row = std::size_t(stride_) * (fp32_ ? sizeof(float) : sizeof(double));
  const void* density = fp32_ ? static_cast<const void*>(fields.get<float>("density").data())
                              : static_cast<const void*>(fields.get<double>("density").data());
  const void* velocity = fp32_ ? static_cast<const void*>(fields.get<float>("velocity").data())
                               : static_cast<const void*>(fields.get<double>("velocity").data());
  if (space_ == exec::Space::host) {
    std::memcpy(host_, density, row);
    std::memcpy(static_cast<char*>(host_) + row, velocity, 3 * row);
    return;
  }
  // Staging on the device frees the fields for the next steps at once; the slow
  // download then reads only the staging buffer.
  exec::cuda::copy_on_device(staging_.data(), density, row);
  exec::cuda::copy_on_device(staging_.data() + row, velocity, 3 * row);
  download_->copy(host_, staging_.data(), bytes_);
}

void FieldSnapshot::wait() {
  if (download_) download_->wait();
}

}  // namespace hemo
