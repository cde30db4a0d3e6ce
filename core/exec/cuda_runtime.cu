// CUDA implementation of core/exec/cuda_runtime.hpp.
#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>

#include "core/exec/cuda_check.cuh"
#include "core/exec/cuda_runtime.hpp"

namespace hemo::exec::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device / no driver" error
    return 0;
  }
  return n;
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  const int n = device_count();
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    HEMO_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    DeviceInfo d;
    d.index = i;
    d.name = p.name;
    d.sm_major = p.major;
    d.sm_minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    d.memory_bytes = p.totalGlobalMem;
    int clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, i);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, i);
    d.memory_clock_khz = clock_khz;
    d.memory_bus_bits = bus_bits;
    out.push_back(d);
  }
  return out;
}

void select_device(int index) { HEMO_CUDA_CHECK(cudaSetDevice(index)); }

int current_device() {
  int d = -1;
  HEMO_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void memory_info(std::size_t& free_bytes, std::size_t& total_bytes) {
  HEMO_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err != cudaSuccess) {
    std::size_t free_b = 0, total_b = 0;
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory("CUDA out of memory: cudaMalloc of " + std::to_string(bytes) + " bytes failed (" +
                      cudaGetErrorString(err) + "); " + std::to_string(free_b) + " of " + std::to_string(total_b) +
                      " bytes free on the device");
  }
  return p;
}

void release(void* ptr) noexcept { cudaFree(ptr); }

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  HEMO_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  HEMO_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  // Asynchronous on the compute stream: ordered after the kernels, no host stall.
  HEMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
}
void copy_to_host_queued(void* pinned_dst, const void* src, std::size_t bytes) {
  HEMO_CUDA_CHECK(cudaMemcpyAsync(pinned_dst, src, bytes, cudaMemcpyDeviceToHost, 0));
}
void fill_zero(void* dst, std::size_t bytes) { HEMO_CUDA_CHECK(cudaMemset(dst, 0, bytes)); }

void synchronize(const char* what) { check_cuda(cudaDeviceSynchronize(), what); }

void synchronize_compute(const char* what) { check_cuda(cudaStreamSynchronize(0), what); }

bool compute_idle() {
  const cudaError_t e = cudaStreamQuery(0);
  if (e == cudaErrorNotReady) return false;
  check_cuda(e, "compute stream");
  return true;
}

AsyncCopy::AsyncCopy() {
  cudaStream_t s = nullptr;
  cudaEvent_t e = nullptr;
  HEMO_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  HEMO_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  stream_ = s;
  ready_ = e;
}

AsyncCopy::~AsyncCopy() {
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  cudaEventDestroy(static_cast<cudaEvent_t>(ready_));
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void AsyncCopy::after_compute() {
  auto e = static_cast<cudaEvent_t>(ready_);
  HEMO_CUDA_CHECK(cudaEventRecord(e, 0));
  HEMO_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream_), e, 0));
}

void AsyncCopy::copy(void* dst, const void* src, std::size_t bytes) {
  after_compute();
  // Unified addressing tells host from device, this device from a peer's mapping.
  HEMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream_)));
}

void AsyncCopy::wait() { check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "asynchronous copy"); }

namespace {
void* current_launch_stream = nullptr;  // nullptr: the legacy default (compute) stream
}  // namespace

void* launch_stream() { return current_launch_stream; }

SideStream::SideStream() {
  cudaStream_t s = nullptr;
  cudaEvent_t a = nullptr, b = nullptr;
  HEMO_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  HEMO_CUDA_CHECK(cudaEventCreateWithFlags(&a, cudaEventDisableTiming));
  HEMO_CUDA_CHECK(cudaEventCreateWithFlags(&b, cudaEventDisableTiming));
  stream_ = s;
  compute_done_ = a;
  side_done_ = b;
}

SideStream::~SideStream() {
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  cudaEventDestroy(static_cast<cudaEvent_t>(compute_done_));
  cudaEventDestroy(static_cast<cudaEvent_t>(side_done_));
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void SideStream::after_compute() {
  HEMO_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(compute_done_), 0));
  HEMO_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream_), static_cast<cudaEvent_t>(compute_done_), 0));
}

void SideStream::join_compute() {
  HEMO_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(side_done_), static_cast<cudaStream_t>(stream_)));
  HEMO_CUDA_CHECK(cudaStreamWaitEvent(0, static_cast<cudaEvent_t>(side_done_), 0));
}

void SideStream::wait() { check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "side stream"); }

SideStream::Launches::Launches(SideStream& side) : previous_(current_launch_stream) {
  if (previous_) throw std::logic_error("SideStream::Launches: already launching on a side stream");
  current_launch_stream = side.stream_;
}

SideStream::Launches::~Launches() { current_launch_stream = previous_; }

StreamMarks::StreamMarks(std::size_t slots) { resize(slots); }

StreamMarks::~StreamMarks() { release(); }

void StreamMarks::release() noexcept {
  for (void* e : events_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  events_.clear();
}

void StreamMarks::resize(std::size_t slots) {
  release();
  events_.reserve(slots);
  for (std::size_t i = 0; i < slots; ++i) {
    cudaEvent_t e = nullptr;
    HEMO_CUDA_CHECK(cudaEventCreate(&e));  // with timing
    events_.push_back(e);
  }
}

void StreamMarks::mark(std::size_t slot) { HEMO_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(events_.at(slot)), 0)); }

void StreamMarks::wait(std::size_t slot) {
  check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(events_.at(slot))), "the device timeline's marks");
}

double StreamMarks::seconds(std::size_t from, std::size_t to) const {
  float ms = 0.0f;
  HEMO_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_.at(from)), static_cast<cudaEvent_t>(events_.at(to))));
  return 1e-3 * double(ms);
}

IpcHandle ipc_handle(void* device_ptr) {
  cudaIpcMemHandle_t h;
  HEMO_CUDA_CHECK(cudaIpcGetMemHandle(&h, device_ptr));
  static_assert(sizeof(h) == sizeof(IpcHandle::bytes));
  IpcHandle out;
  std::memcpy(out.bytes, &h, sizeof(h));
  return out;
}

void* open_ipc_handle(const IpcHandle& handle) {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.bytes, sizeof(h));
  void* p = nullptr;
  const cudaError_t err = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
  if (err != cudaSuccess) cudaGetLastError();  // not left for the next launch's check to report
  check_cuda(err, "cudaIpcOpenMemHandle");
  return p;
}

void close_ipc_handle(void* ptr) noexcept { cudaIpcCloseMemHandle(ptr); }

bool can_access_peer(int peer) {
  const int self = current_device();
  if (peer == self) return true;
  int can = 0;
  return cudaDeviceCanAccessPeer(&can, self, peer) == cudaSuccess && can != 0;
}

void* allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  HEMO_CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}
void release_pinned(void* ptr) noexcept { cudaFreeHost(ptr); }

}  // namespace hemo::exec::cuda
