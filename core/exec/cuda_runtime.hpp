#pragma once
// The CUDA runtime as the rest of hemoflow sees it: plain functions with no CUDA headers,
// so host code (and TOML++/HDF5/Boost users) never includes cuda_runtime.h. Defined in
// cuda_runtime.cu when the CUDA backend is built, and in cuda_absent.cpp otherwise, where
// every call throws "built without CUDA".
#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace hemo::exec {

/// An allocation that failed, host or device: a std::bad_alloc that says how many bytes
/// were asked for where, and what was free there (the set-up turns it into the advice of
/// a memory refusal, core/sim/memory_plan.hpp).
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

}  // namespace hemo::exec

namespace hemo::exec::cuda {

struct DeviceInfo {
  int index = -1;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  std::size_t memory_bytes = 0;
  double memory_clock_khz = 0.0;
  int memory_bus_bits = 0;
};

/// Number of visible CUDA devices; 0 where none (or where the driver is missing).
int device_count();
std::vector<DeviceInfo> devices();
/// Makes `index` the current device of this process (one device per rank).
void select_device(int index);
int current_device();
/// Bytes free and total on the current device.
void memory_info(std::size_t& free_bytes, std::size_t& total_bytes);

void* allocate(std::size_t bytes);
void release(void* ptr) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);
/// Device to pinned host memory, queued on the compute stream after the kernels issued
/// before it: the host does not wait; the bytes are there once the compute stream has
/// been waited for (synchronize_compute, or any later synchronous copy).
void copy_to_host_queued(void* pinned_dst, const void* src, std::size_t bytes);
void fill_zero(void* dst, std::size_t bytes);
void synchronize(const char* what);

/// Waits for the work issued so far on the default (compute) stream, not for the copy
/// streams below; `what` names the work in the error if a kernel faulted.
void synchronize_compute(const char* what);

/// True when the compute stream has finished everything issued to it (no wait).
bool compute_idle();

/// Pinned host memory, for transfers that overlap with kernels.
void* allocate_pinned(std::size_t bytes);
void release_pinned(void* ptr) noexcept;

/// Copies that overlap with later kernels: device to host (pinned), or device to device,
/// also into another process's memory opened by open_ipc_handle (the halo exchange
/// between ranks of one node). Each copy waits, on the device, for the work issued before
/// it on the compute stream, then runs on a stream of its own; wait() blocks the calling
/// thread until every copy issued so far has landed.
class AsyncCopy {
 public:
  AsyncCopy();
  ~AsyncCopy();
  AsyncCopy(const AsyncCopy&) = delete;
  AsyncCopy& operator=(const AsyncCopy&) = delete;
  void copy(void* dst, const void* device_src, std::size_t bytes);
  /// Orders the copy stream after the compute stream's work so far without copying: wait()
  /// then also waits for that work.
  void after_compute();
  void wait();

 private:
  void* stream_ = nullptr;
  void* ready_ = nullptr;
};

/// The stream exec::for_each launches kernels on: the compute stream (the legacy default
/// stream) unless a SideStream::Launches is alive.
void* launch_stream();

/// A second stream for device work independent of what the compute stream does meanwhile
/// (the rbc plugin's internal cells while the frontier's chain of small kernels runs):
/// non-blocking, so neither stream waits for the other except through the events below,
/// and the synchronous copies and waits of the compute stream (copy_to_host,
/// synchronize_compute) do not wait for it. Its owner must join it before anything reads
/// what it writes, or reallocates what it reads or writes.
class SideStream {
 public:
  SideStream();
  ~SideStream();
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  /// The side stream's later work waits, on the device, for the compute stream's so far.
  void after_compute();
  /// The compute stream's later work waits, on the device, for the side stream's so far.
  void join_compute();
  /// Blocks the host until the side stream's work so far is done.
  void wait();
  /// While one lives, exec::for_each launches on the side stream (not nested).
  class Launches {
   public:
    explicit Launches(SideStream& side);
    ~Launches();
    Launches(const Launches&) = delete;
    Launches& operator=(const Launches&) = delete;

   private:
    void* previous_;
  };

 private:
  void* stream_ = nullptr;
  void* compute_done_ = nullptr;  // event on the compute stream
  void* side_done_ = nullptr;     // event on the side stream
};

/// Timestamps of the compute stream's progress (the scheduler's device timeline): mark(i)
/// records event i behind the work issued so far; once the stream has passed two marks,
/// seconds() is the time between them on the device's clock (resolution about 0.5 us).
class StreamMarks {
 public:
  explicit StreamMarks(std::size_t slots = 0);
  ~StreamMarks();
  StreamMarks(const StreamMarks&) = delete;
  StreamMarks& operator=(const StreamMarks&) = delete;
  /// Room for `slots` marks (the old ones dropped).
  void resize(std::size_t slots);
  void mark(std::size_t slot);
  /// Blocks until the compute stream has passed mark `slot`.
  void wait(std::size_t slot);
  double seconds(std::size_t from, std::size_t to) const;

 private:
  void release() noexcept;
  std::vector<void*> events_;
};

/// CUDA IPC (ranks that share a node): 64 opaque bytes that name a device allocation of
/// this process for another process of the same node, which maps it with
/// open_ipc_handle() and may then copy into it device to device (over NVLink where the
/// devices have it). The exporter must not free the allocation while another process has
/// it open (CUDA leaves that undefined).
struct IpcHandle {
  unsigned char bytes[64] = {};
};
IpcHandle ipc_handle(void* device_ptr);
/// Maps another process's allocation into this one; throws where the driver refuses.
void* open_ipc_handle(const IpcHandle& handle);
void close_ipc_handle(void* ptr) noexcept;
/// Whether this process's current device can copy directly into memory of device `peer`
/// (the same device: yes).
bool can_access_peer(int peer);

}  // namespace hemo::exec::cuda
