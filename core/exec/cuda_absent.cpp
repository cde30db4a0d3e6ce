// core/exec/cuda_runtime.hpp for a build without CUDA: no devices; any attempt to use
// one is an error that says how to get a CUDA build.
#include <stdexcept>

#include "core/exec/cuda_runtime.hpp"

namespace hemo::exec::cuda {
namespace {
[[noreturn]] void absent() {
  throw std::runtime_error(
      "this hemoflow was built without CUDA; rebuild with -DHEMO_CUDA=ON on a machine with nvcc");
}
}  // namespace

int device_count() { return 0; }
std::vector<DeviceInfo> devices() { return {}; }
void select_device(int) { absent(); }
int current_device() { return -1; }
void memory_info(std::size_t& f, std::size_t& t) { f = t = 0; }
void* allocate(std::size_t) { absent(); }
void release(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { absent(); }
void copy_to_host(void*, const void*, std::size_t) { absent(); }
void copy_to_host_queued(void*, const void*, std::size_t) { absent(); }
void copy_on_device(void*, const void*, std::size_t) { absent(); }
void fill_zero(void*, std::size_t) { absent(); }
void synchronize(const char*) {}
void synchronize_compute(const char*) {}
bool compute_idle() { return true; }
void* allocate_pinned(std::size_t) { absent(); }
void release_pinned(void*) noexcept {}
AsyncCopy::AsyncCopy() { absent(); }
AsyncCopy::~AsyncCopy() = default;
void AsyncCopy::copy(void*, const void*, std::size_t) { absent(); }
void AsyncCopy::after_compute() {}
void AsyncCopy::wait() {}
void* launch_stream() { return nullptr; }
SideStream::SideStream() { absent(); }
SideStream::~SideStream() = default;
void SideStream::after_compute() {}
void SideStream::join_compute() {}
void SideStream::wait() {}
SideStream::Launches::Launches(SideStream&) : previous_(nullptr) { absent(); }
SideStream::Launches::~Launches() = default;
StreamMarks::StreamMarks(std::size_t slots) {
  if (slots) absent();
}
StreamMarks::~StreamMarks() = default;
void StreamMarks::release() noexcept {}
void StreamMarks::resize(std::size_t slots) {
  if (slots) absent();
}
void StreamMarks::mark(std::size_t) { absent(); }
void StreamMarks::wait(std::size_t) { absent(); }
double StreamMarks::seconds(std::size_t, std::size_t) const { absent(); }
IpcHandle ipc_handle(void*) { absent(); }
void* open_ipc_handle(const IpcHandle&) { absent(); }
void close_ipc_handle(void*) noexcept {}
bool can_access_peer(int) { return false; }

}  // namespace hemo::exec::cuda
