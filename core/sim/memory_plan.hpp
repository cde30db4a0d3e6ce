#pragma once
// What a run will allocate on one rank, declared before anything is (Plugin::plan), and
// the memory it may use: a run that would not fit is refused at set-up with the estimate
// and what to change, instead of dying in the middle of allocating (docs/cluster.md,
// "Memory"). Host-only (no CUDA or TOML headers).
#include <cstdint>
#include <string>
#include <vector>

namespace hemo {

/// One allocation of the plan: a field, a table, a buffer.
struct MemoryItem {
  std::string name;   // the field's name ("f"), or what it is ("halo buffers")
  std::string owner;  // "core" or the plugin's name
  std::uint64_t bytes = 0;
  bool host = false;  // in host memory even on the CUDA backend (staging buffers); else in the run's memory
};

/// A setting that makes the run need less, with the bytes it saves on this rank.
struct MemoryAdvice {
  std::string setting;  // "lb_bgk.streaming = \"aa\""
  std::uint64_t saves = 0;
  std::string note;  // "", or what goes with it ("with run.precision = \"fp32\"")
};

class MemoryPlan {
 public:
  MemoryPlan() = default;
  /// `nodes` and `stride` of the rank's mesh (SparseMesh::num_nodes, ::stride).
  MemoryPlan(std::uint32_t nodes, std::uint32_t stride) : nodes_(nodes), stride_(stride) {}

  /// A node field of `components` rows of the stride, as FieldRegistry::declare_node_field
  /// allocates it.
  void node_field(const std::string& owner, const std::string& name, int components, std::size_t element_bytes);
  /// An array of `count` entries of `element_bytes` in the run's memory
  /// (FieldRegistry::declare_array, exec::DeviceArray).
  void array(const std::string& owner, const std::string& name, std::uint64_t count, std::size_t element_bytes);
  /// Host memory on either backend (pinned staging buffers).
  void host(const std::string& owner, const std::string& name, std::uint64_t bytes);
  void advise(const std::string& setting, std::uint64_t saves, const std::string& note = "");

  const std::vector<MemoryItem>& items() const { return items_; }
  const std::vector<MemoryAdvice>& advice() const { return advice_; }
  /// Bytes in the run's memory (the device on CUDA, the host on the CPU backend).
  std::uint64_t run_bytes() const;
  /// Bytes in host memory that are not the run's memory (CUDA: staging buffers; CPU: 0).
  std::uint64_t host_only_bytes() const;
  /// The run's-memory items, largest first, items of the same name added up.
  std::vector<MemoryItem> largest() const;
  /// "f 2.0 GiB, f_next 2.0 GiB, neighbours 1.8 GiB, 6 more 0.5 GiB": the largest `n`.
  std::string describe_largest(std::size_t n = 4) const;

  std::uint32_t nodes() const { return nodes_; }
  std::uint32_t stride() const { return stride_; }

 private:
  std::uint32_t nodes_ = 0, stride_ = 0;
  std::vector<MemoryItem> items_;
  std::vector<MemoryAdvice> advice_;
};

/// The memory one rank may use, and where the number came from.
struct MemoryAvailable {
  std::uint64_t bytes = 0;  // 0: unknown (then nothing is refused)
  std::string source;       // "MemAvailable in /proc/meminfo", "HEMO_MEMORY_LIMIT_BYTES", ...
  bool from_user = false;   // HEMO_MEMORY_LIMIT_BYTES
};

/// The share of safety kept free of the available memory: what the estimate leaves out
/// (output buffers, HDF5 and MPI internals, the CUDA runtime's own work space).
inline constexpr double memory_margin = 0.10;

/// HEMO_MEMORY_LIMIT_BYTES: bytes, optionally with a suffix K, M, G or T (powers of
/// 1024), e.g. "12G"; 0 when unset or empty. InputError when it does not parse.
std::uint64_t memory_limit_from_environment();

/// Host memory this process may still use: the smallest of MemAvailable (/proc/meminfo)
/// and the cgroup's limit less its use (cgroup v2 memory.max, v1 memory.limit_in_bytes;
/// reclaimable file pages not counted as used). HEMO_MEMORY_LIMIT_BYTES replaces it.
MemoryAvailable host_memory_available();
/// Parsers of the files above, for tests: MemAvailable of /proc/meminfo text in bytes
/// (0 when absent); a cgroup limit file ("max" or bytes: 0 for none).
std::uint64_t parse_meminfo_available(const std::string& meminfo);
std::uint64_t parse_cgroup_limit(const std::string& text);

/// What a refusal says about the run beside the plan.
struct MemoryContext {
  std::string memory = "host memory";  // or "memory of GPU 0 (NVIDIA H100)"
  MemoryAvailable available;           // in all, for the `sharing` ranks
  int rank = 0, ranks = 1;
  int sharing = 1;   // ranks sharing that memory: each may use its share
  double dx = 0.0;   // m, lattice.dx
};

/// The bytes one rank may plan to use: its share of the available memory, less
/// memory_margin; 0 when the available memory is unknown.
std::uint64_t usable_bytes(const MemoryContext& context);

/// "" when the plan fits; else the refusal: the bytes needed (the largest items), the
/// bytes usable and where they come from, and what to change (a coarser lattice.dx, more
/// ranks, the plan's advice).
std::string memory_refusal(const MemoryPlan& plan, const MemoryContext& context);

}  // namespace hemo
