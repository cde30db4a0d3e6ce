#pragma once
// The halo exchange of a node field between ranks (issue 11; HemeLB's order, seeds/001
// sec. 3): a plugin that pulls from neighbour nodes asks for it in its phases:
//   collide_edge      update the edge nodes (the ones other ranks pull from);
//   halo_send         start(field): pack the edge values each neighbour needs, post;
//   collide_interior  update the interior nodes while the messages fly;
//   halo_receive      finish(field): wait, place the arrived values in the halo nodes.
// What goes where comes from the mesh's halo plan (SparseMesh::halo). On CUDA, values are
// packed on the device and, on a copy stream while the interior is updated, either
// copied straight into the peer's device memory (ranks of one node whose devices reach
// each other: CUDA IPC, `device_peers`; only a one-byte token then goes through MPI, once
// the copy has landed) or downloaded into pinned host memory, sent by MPI and uploaded
// (other nodes; no CUDA-aware MPI). finish() posts the messages and polls them while the
// GPU still computes. On the host, start() posts. With one rank there is nothing to
// exchange and every call returns at once.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/gather.hpp"
#include "core/fields/field_registry.hpp"
#include "core/mesh/sparse_mesh.hpp"

namespace hemo {

/// Which rows of a field to exchange: all of them, or (for D3Q19 populations) only the
/// directions a pull across the interface reads (SparseMesh::HaloNeighbour): 5 of 19
/// across a plane; or the opposite rows of those, where populations streamed in place
/// hold them (core/mesh/population_slots.hpp).
enum class HaloRows { all, crossing_directions, crossing_opposite };

/// Forward: the owners' values into the halo copies. Reverse: what this rank's steps wrote
/// into its halo copies back into the owners' nodes (in-place streaming after an odd step,
/// where an edge node writes f* into the slot of the halo node it pulled from).
enum class HaloDirection { forward, reverse };

class HaloExchange {
 public:
  /// device_peers: on CUDA, copy device to device to the peers of this node that allow it
  /// (run.halo_transport = "auto"); false: every peer through host memory ("host").
  /// Collective over the ranks (each asks its peers where they run).
  HaloExchange(comm::Communicator& comm, const mesh::SparseMesh& mesh, exec::Space space, bool device_peers = true);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// True when this rank has neighbour ranks.
  bool active() const { return !mesh_.halo.empty(); }

  /// Packs every component of the field at each neighbour's send nodes and posts the
  /// messages. The field's values at the send nodes must be final.
  template <class T>
  void start(Field<T>& field, HaloRows rows = HaloRows::all, HaloDirection direction = HaloDirection::forward);
  /// Waits for the messages of start() and writes the values into the halo nodes.
  template <class T>
  void finish(Field<T>& field);
  template <class T>
  void exchange(Field<T>& field, HaloRows rows = HaloRows::all) {
    start(field, rows);
    finish(field);
  }

  /// Bytes of values the last exchange sent from this rank.
  std::uint64_t last_bytes_sent() const { return last_bytes_sent_; }
  /// Seconds this rank waited on the exchange with nothing left to compute: after the GPU
  /// had finished the interior, until the messages were done, plus the upload of values
  /// staged through the host (CUDA), or in the wait for the messages (host). The exposed
  /// communication time, summed over exchanges.
  double wait_seconds() const { return wait_seconds_; }
  /// Peers whose values go device to device (CUDA IPC), and all peers.
  int device_peer_count() const;
  int peer_count() const { return int(peers_.size()); }

 private:
  struct Peer {
    int rank = 0;
    std::uint32_t sends = 0, receive_begin = 0, receives = 0;
    std::uint32_t send_directions = 0, receive_directions = 0;
    exec::DeviceArray<std::uint32_t> send_nodes;  // in the run's space
    exec::DeviceArray<std::uint32_t> receive_nodes;  // the halo nodes, in the order values arrive
    bool scattered = false;                          // bricks: receive_nodes are not contiguous
    /// Reverse exchange of populations (rows opposite the send directions, by send node):
    /// 1 where the peer's node pulled that population from ours this step and so wrote it.
    exec::DeviceArray<std::uint8_t> reverse_keep;
    exec::RowList send_rows, receive_rows;        // of the exchange in flight
    std::size_t send_offset = 0, receive_offset = 0;  // bytes into the staging buffers
    // Device to device (CUDA IPC): the peer copies its values into this rank's inbox and
    // this rank into the peer's (outbox, mapped from the peer), each of two halves of
    // `capacity` bytes by the parity of the exchange: the peer may write exchange k + 1
    // while this rank's scatter of exchange k is still queued (a token of exchange k + 1
    // comes only after the peer's packing of k + 1, and so after its scatter of k: the
    // half of k is free again when k + 2 arrives).
    bool device_peer = false;
    unsigned char* inbox = nullptr;
    unsigned char* outbox = nullptr;
    std::size_t capacity = 0;
    bool direct = false;                    // this exchange goes device to device
    unsigned char token_out = 1, token_in = 0;
  };
  void connect_device_peers();
  /// One value to each peer (mine[k] to peers_[k]) and one from each, blocking.
  template <class T>
  std::vector<T> trade_with_peers(std::vector<T>& mine);
  void reserve(std::size_t send_bytes, std::size_t receive_bytes);
  void post();

  comm::Communicator& comm_;
  const mesh::SparseMesh& mesh_;
  exec::Space space_;
  std::vector<Peer> peers_;
  std::size_t send_bytes_ = 0;                     // of the exchange in flight
  exec::HostBuffer<unsigned char> send_host_, receive_host_;  // pinned on CUDA
  exec::DeviceArray<unsigned char> send_device_;   // CUDA: packed values before the download
  exec::DeviceArray<unsigned char> receive_device_;  // CUDA, bricks: packed values before the scatter
  std::unique_ptr<exec::cuda::AsyncCopy> copies_;  // CUDA: downloads and device-to-device copies
  std::uint64_t exchanges_ = 0;                      // started so far: the inbox half's parity
  std::vector<comm::Message> sends_, receives_;
  bool in_flight_ = false, posted_ = false, reverse_ = false;
  HaloRows reverse_rows_ = HaloRows::all;
  std::uint64_t last_bytes_sent_ = 0;
  double wait_seconds_ = 0.0;
};

}  // namespace hemo
